//! The remoteness section's encoding on disk (docs/FORMAT.md): [`RemotenessEncoding`] (none,
//! bytes of a width, all-ones for none, [`stored_none`], or nibbles relative to the value), and
//! the lengths of the sections and frames that hold it. What
//! "none" is in memory and on disk is named in [`crate::base::remoteness`].

use rayon::prelude::*;

use crate::base::cells;
use crate::base::remoteness::stored_none;

/// How a table stores remoteness (docs/FORMAT.md). The header holds it in one byte, the
/// remoteness width field (0, 1, 2, 4, or 0x80 for nibbles); only the header's reader and writer
/// turn it into that byte and back (`RemotenessEncoding::from_header_byte`,
/// `RemotenessEncoding::header_byte`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RemotenessEncoding {
    /// No remoteness.
    None,
    /// This many bytes a position (1, 2 or 4), little-endian, all-ones (`stored_none`) for none.
    Bytes(u8),
    /// Half a byte a position relative to its value ([`nibble_of`]), the lower half for the even
    /// index: the tables of the boards the solvers know (plain and sliced), whose remoteness
    /// follows the value's parity and never exceeds their cells.
    Nibbles,
}

/// The header byte of [`RemotenessEncoding::Nibbles`].
const NIBBLES_BYTE: u8 = 0x80;

impl RemotenessEncoding {
    /// The narrowest bytes whose none (`stored_none`, all-ones) exceeds `max`, the largest
    /// finite remoteness.
    pub fn narrowest(max: u32) -> RemotenessEncoding {
        RemotenessEncoding::Bytes(remoteness_width(max))
    }

    /// Whether the table has remoteness at all.
    pub fn is_stored(self) -> bool {
        self != RemotenessEncoding::None
    }

    /// The header's remoteness width byte.
    pub(in crate::table::format) fn header_byte(self) -> u8 {
        match self {
            RemotenessEncoding::None => 0,
            RemotenessEncoding::Bytes(w) => w,
            RemotenessEncoding::Nibbles => NIBBLES_BYTE,
        }
    }

    /// The encoding of the header's remoteness width byte `b` in a table of `version`; `None`
    /// for a byte that names none (nibbles before [`super::NIBBLE_VERSION`]).
    pub(in crate::table::format) fn from_header_byte(
        b: u8,
        version: u32,
    ) -> Option<RemotenessEncoding> {
        match b {
            0 => Some(RemotenessEncoding::None),
            1 | 2 | 4 => Some(RemotenessEncoding::Bytes(b)),
            NIBBLES_BYTE if version >= super::NIBBLE_VERSION => Some(RemotenessEncoding::Nibbles),
            _ => None,
        }
    }

    /// Bytes of a raw table's remoteness section for `size` positions (whole 64-bit words of
    /// nibbles, as the cells are whole words).
    pub fn section_len(self, size: u64) -> u64 {
        match self {
            RemotenessEncoding::None => 0,
            RemotenessEncoding::Bytes(w) => size.saturating_mul(w as u64),
            RemotenessEncoding::Nibbles => size.div_ceil(16).saturating_mul(8),
        }
    }

    /// Bytes of the remoteness of `n` positions in a frame of a compressed table (nibbles: half
    /// a byte each, rounded up; frames start at multiples of 32 positions).
    pub fn frame_len(self, n: u64) -> u64 {
        match self {
            RemotenessEncoding::None => 0,
            RemotenessEncoding::Bytes(w) => n * w as u64,
            RemotenessEncoding::Nibbles => n.div_ceil(2),
        }
    }

    /// Bytes a position takes (0.5 for nibbles).
    pub fn bytes_per_position(self) -> f64 {
        match self {
            RemotenessEncoding::None => 0.0,
            RemotenessEncoding::Bytes(w) => w as f64,
            RemotenessEncoding::Nibbles => 0.5,
        }
    }
}

impl std::fmt::Display for RemotenessEncoding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RemotenessEncoding::None => f.write_str("no remoteness"),
            RemotenessEncoding::Bytes(w) => write!(f, "remoteness in {w} byte(s)"),
            RemotenessEncoding::Nibbles => {
                f.write_str("remoteness in half a byte (relative to the value)")
            }
        }
    }
}

/// The nibble of a position of value `code` (a cell code) and remoteness `r` in a
/// [`RemotenessEncoding::Nibbles`] table: `r / 2` for a loss (its remoteness is even), `(r + 1) / 2` for a win
/// (odd, or 0 where the game is over), 0 for a draw or an unused index (no remoteness). `None`
/// when the pair does not fit: a loss of odd remoteness, a win of even nonzero remoteness, a
/// value past 15.
pub fn nibble_of(code: u8, r: Option<u32>) -> Option<u8> {
    let n = match (code, r) {
        (cells::LOSS, Some(r)) if r % 2 == 0 => r / 2,
        (cells::WIN, Some(r)) if r == 0 || r % 2 == 1 => r.div_ceil(2),
        (cells::LOSS | cells::WIN, _) => return None,
        _ => 0,
    };
    (n < 16).then_some(n as u8)
}

/// The remoteness a [`RemotenessEncoding::Nibbles`] table's nibble `n` stands for at a position of value
/// `code` (the inverse of [`nibble_of`]); `None` for draws and unused indices.
pub fn remoteness_of_nibble(code: u8, n: u8) -> Option<u32> {
    let n = (n & 15) as u32;
    match code {
        cells::LOSS => Some(2 * n),
        cells::WIN => Some((2 * n).saturating_sub(1)),
        _ => None,
    }
}

/// Stores `r` (`crate::base::remoteness::NONE` for none) in `d.len()` bytes, none as
/// `stored_none` (all-ones).
pub fn put_remoteness(d: &mut [u8], r: u32) {
    let none = stored_none(d.len() as u8);
    match d.len() {
        1 => d[0] = r.min(none) as u8,
        2 => d.copy_from_slice(&(r.min(none) as u16).to_le_bytes()),
        _ => d.copy_from_slice(&r.to_le_bytes()),
    }
}

/// Reads a remoteness of `b.len()` bytes; `stored_none` (all-ones) is none.
pub fn get_remoteness(b: &[u8]) -> Option<u32> {
    let r = match b.len() {
        1 => b[0] as u32,
        2 => u16::from_le_bytes([b[0], b[1]]) as u32,
        _ => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
    };
    (r != stored_none(b.len() as u8)).then_some(r)
}

/// The narrowest remoteness width (bytes) whose none (`stored_none`, all-ones) exceeds `max`,
/// the largest finite remoteness.
pub fn remoteness_width(max: u32) -> u8 {
    if max < stored_none(1) {
        1
    } else if max < stored_none(2) {
        2
    } else {
        4
    }
}

/// `rem` (in memory, `crate::base::remoteness::NONE` for none) stored `width` bytes each, as a raw table's remoteness
/// section holds it (empty for width 0).
pub fn remoteness_bytes(rem: &[u32], width: u8) -> Vec<u8> {
    if width == 0 {
        return Vec::new();
    }
    let mut out = vec![0u8; rem.len() * width as usize];
    out.par_chunks_mut(width as usize * 4096)
        .zip(rem.par_chunks(4096))
        .for_each(|(dst, src)| {
            for (d, &r) in dst.chunks_mut(width as usize).zip(src) {
                put_remoteness(d, r);
            }
        });
    out
}

/// The table's one-byte remoteness (all-ones for none) of the engine's bytes
/// (`2 * (remoteness + 1) + lost`, `crate::base::remoteness::ENGINE_NONE` for none), in place.
pub fn bytes_of_engine(bytes: &mut [u8]) {
    bytes
        .par_chunks_mut(1 << 16)
        .for_each(|c| c.iter_mut().for_each(|b| *b = (*b >> 1).wrapping_sub(1)));
}

/// The table's nibbles ([`nibble_of`]) of the engine's bytes of a game whose remoteness follows
/// its value's parity: byte `j` of `out` holds `bytes[2j]`'s nibble (low) and `bytes[2j + 1]`'s
/// (high), 0 past the end of `bytes`. From `b = 2 * (r + 1) + lost`, a loss's `r / 2` and a
/// win's `(r + 1) / 2` are both `(b / 2 - lost) / 2`, and none (0) gives 0: one expression, no
/// branch.
pub fn nibbles_of_engine(bytes: &[u8], out: &mut [u8]) {
    let n = |b: u8| ((b >> 1) - (b & 1)) >> 1;
    // Eight positions at a time in a word: no engine byte is 1, so `b / 2 - lost` borrows
    // from no neighbour, and each nibble is below 16, so the word shifted by 4 puts each odd
    // position's nibble above its even neighbour's.
    const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    const ONES: u64 = 0x0101_0101_0101_0101;
    let pack = |x: u64| -> u32 {
        let y = ((x >> 1) & LOW7) - (x & ONES);
        let z = (y >> 1) & LOW7;
        let w = (z | z >> 4) & 0x00FF_00FF_00FF_00FF;
        let w = (w | w >> 8) & 0x0000_FFFF_0000_FFFF;
        (w | w >> 16) as u32
    };
    let words = (bytes.len() / 8).min(out.len() / 4);
    for (o, b) in out[..4 * words]
        .chunks_exact_mut(4)
        .zip(bytes.chunks_exact(8))
    {
        let x = u64::from_le_bytes(b.try_into().expect("8 bytes"));
        o.copy_from_slice(&pack(x).to_le_bytes());
    }
    let (bytes, out) = (&bytes[8 * words..], &mut out[4 * words..]);
    let whole = (bytes.len() / 2).min(out.len());
    for (o, pair) in out.iter_mut().zip(bytes.chunks_exact(2)) {
        *o = n(pair[0]) | n(pair[1]) << 4;
    }
    if let Some(o) = out.get_mut(whole) {
        *o = bytes.get(2 * whole).map_or(0, |&b| n(b));
    }
    out.iter_mut().skip(whole + 1).for_each(|o| *o = 0);
}
