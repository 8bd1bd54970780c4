//! A cursor over a table: lookups of many positions close together (a tier walk lists a unit's
//! positions in increasing index, a few bytes apart) at memory speed, from a raw table or a
//! compressed one. Over a raw table it keeps the bytes of the checksum block of cells and the
//! block of remoteness it read last, so a lookup inside them is a shift and a mask; over a
//! compressed table it keeps the last few frames it decoded, of its own (no lock shared with
//! other threads), and takes what the rules say of a position from its caller where the caller
//! knows it (a tier walk hands over each position's status and children).
//!
//! Invariant: the cursor answers only from bytes the table has seen match their checksum — a
//! raw block checked by [`Table::check_block`], a frame decoded by [`Table::decode`] (which
//! checks it) — and from a compressed table as [`Table::value`] and [`Table::remoteness`] do:
//! the rules' answer where the rules decide (such positions may be stored as "don't care"). A
//! table that leaves one mover out, or a raw one with remoteness wider than a byte, is looked
//! up through [`Table::value_and_remoteness`].

use super::Table;
use super::format::{Encoding, RemotenessEncoding, Section, get_remoteness, remoteness_of_nibble};
use super::payload::ZstdFrames;
use crate::base::cells;
use crate::base::error::Result;
use crate::game::{Rules, Value, table_rules};
use crate::with_game;

/// The checked bytes `start..start + bytes.len()` of a section.
#[derive(Clone, Copy, Default)]
struct Window<'t> {
    start: u64,
    bytes: &'t [u8],
}

impl Window<'_> {
    /// The byte at `at` of the section, if the window holds it.
    #[inline(always)]
    fn get(&self, at: u64) -> Option<u8> {
        self.bytes
            .get(at.wrapping_sub(self.start) as usize)
            .copied()
    }
}

/// Frames a cursor keeps decoded, per stream: a row of a 25-cell sliced table spans up to three
/// frames of 65,536 positions, and the walk reads it once per tier.
const KEPT_FRAMES: usize = 8;

/// Decoded frames of one stream, frame `k` in slot `k % KEPT_FRAMES`.
#[derive(Default)]
struct Kept {
    slots: [Option<(u64, Vec<u8>)>; KEPT_FRAMES],
}

impl Kept {
    /// Frame `k`, decoded by `decode` unless kept.
    #[inline]
    fn get(&mut self, k: u64, decode: impl FnOnce() -> Result<Vec<u8>>) -> Result<&[u8]> {
        let slot = &mut self.slots[k as usize % KEPT_FRAMES];
        if slot.as_ref().is_none_or(|(kept, _)| *kept != k) {
            *slot = Some((k, decode()?));
        }
        Ok(&slot.as_ref().expect("just filled").1)
    }
}

/// How a cursor reads its table.
enum Mode {
    /// A raw table with remoteness in nibbles, a byte, or none: from the windows.
    Raw,
    /// A compressed table that stores every position: from kept frames.
    Frames,
    /// Anything else: through the table's own lookups.
    Table,
}

/// Lookups of many positions of one table near each other ([`Table::cursor`]).
pub struct Cursor<'t, B> {
    table: &'t Table<B>,
    mode: Mode,
    cells: Window<'t>,
    remoteness: Window<'t>,
    cell_frames: Kept,
    remoteness_frames: Kept,
}

impl<B: AsRef<[u8]> + Sync> Table<B> {
    /// A cursor for lookups near each other (see [`Cursor`]).
    pub fn cursor(&self) -> Cursor<'_, B> {
        let h = self.header();
        let mode = match h.encoding {
            Encoding::Raw
                if matches!(
                    h.remoteness_encoding,
                    RemotenessEncoding::None
                        | RemotenessEncoding::Bytes(1)
                        | RemotenessEncoding::Nibbles
                ) =>
            {
                Mode::Raw
            }
            Encoding::Zstd => Mode::Frames,
            _ => Mode::Table,
        };
        Cursor {
            table: self,
            mode,
            cells: Window::default(),
            remoteness: Window::default(),
            cell_frames: Kept::default(),
            remoteness_frames: Kept::default(),
        }
    }
}

impl<'t, B: AsRef<[u8]> + Sync> Cursor<'t, B> {
    /// [`Table::value_and_remoteness`]: the value of a position (`None` for an unused index)
    /// and its remoteness (`None` for draws and tables without it).
    #[inline]
    pub fn value_and_remoteness(&mut self, pos: u64) -> Result<(Option<Value>, Option<u32>)> {
        let game = self.table.game();
        self.value_and_remoteness_by(pos, || with_game!(game, g => table_rules(g, pos)))
    }

    /// [`Cursor::value_and_remoteness`], with what the rules say of `pos` from `rules` (asked
    /// only of a compressed table): `table_rules` of the table's game, or [`Rules::of`] a tier
    /// walk's status and children, which the walk has at hand.
    #[inline(always)]
    pub fn value_and_remoteness_by(
        &mut self,
        pos: u64,
        rules: impl FnOnce() -> Rules,
    ) -> Result<(Option<Value>, Option<u32>)> {
        if pos >= self.table.header().size {
            return self.table.value_and_remoteness(pos);
        }
        match self.mode {
            Mode::Raw => self.raw(pos),
            Mode::Frames => self.frames(pos, rules),
            Mode::Table => self.table.value_and_remoteness(pos),
        }
    }

    #[inline(always)]
    fn raw(&mut self, pos: u64) -> Result<(Option<Value>, Option<u32>)> {
        let h = self.table.header();
        let byte = match self.cells.get(pos / 4) {
            Some(b) => b,
            None => self.refill_cells(pos / 4)?,
        };
        let code = byte >> (2 * (pos % 4)) & 3;
        let encoding = h.remoteness_encoding;
        let remoteness = if !encoding.is_stored() {
            None
        } else {
            let nibbles = encoding == RemotenessEncoding::Nibbles;
            let at = if nibbles { pos / 2 } else { pos };
            let b = match self.remoteness.get(at) {
                Some(b) => b,
                None => self.refill_remoteness(at)?,
            };
            if nibbles {
                remoteness_of_nibble(code, b >> (4 * (pos % 2)) & 15)
            } else {
                get_remoteness(&[b])
            }
        };
        // The window's bytes are read in place: a page that vanished read zeros.
        self.table.intact()?;
        Ok((cells::value(code), remoteness))
    }

    /// Moves the cells' window to the block that holds byte `at`; returns that byte.
    #[cold]
    fn refill_cells(&mut self, at: u64) -> Result<u8> {
        let h = self.table.header();
        self.cells = self.window(h.cells, 0, at)?;
        Ok(self.cells.get(at).expect("the block holds the byte"))
    }

    /// Moves the remoteness' window to the block that holds byte `at`; returns that byte.
    #[cold]
    fn refill_remoteness(&mut self, at: u64) -> Result<u8> {
        let h = self.table.header();
        let first = h.cells.blocks(h.block as u64);
        self.remoteness = self.window(h.remoteness, first, at)?;
        Ok(self.remoteness.get(at).expect("the block holds the byte"))
    }

    /// The checked block of `section` that holds its byte `at` (`first` is the section's first
    /// block in the checksum list).
    fn window(&self, section: Section, first: u64, at: u64) -> Result<Window<'t>> {
        self.table.check_block(section, first, at)?;
        let block = self.table.header().block as u64;
        let start = at / block * block;
        let end = (start + block).min(section.len);
        let table: &'t Table<B> = self.table;
        let bytes = table.bytes();
        Ok(Window {
            start,
            bytes: &bytes[(section.offset + start) as usize..(section.offset + end) as usize],
        })
    }

    /// A compressed table's answer: the position's frames decoded (and so checked) whatever
    /// the rules say, the stored code and remoteness where only a search knows.
    #[inline(always)]
    fn frames(
        &mut self,
        pos: u64,
        rules: impl FnOnce() -> Rules,
    ) -> Result<(Option<Value>, Option<u32>)> {
        let table: &'t Table<B> = self.table;
        let h = table.header();
        let Some(ZstdFrames {
            cells, remoteness, ..
        }) = table.payload().frames()
        else {
            unreachable!("frames belong to compressed tables")
        };
        let (k, i) = (pos / h.frame_positions, pos % h.frame_positions);
        let fail = |kind| table.fail(kind);
        let frame = self
            .cell_frames
            .get(k, || table.decode(cells, 0, k as usize).map_err(fail))?;
        let code = cells::get_in_bytes(frame, i);
        let stored = match remoteness {
            None => None,
            Some(stream) => {
                let first = table.frame_count() + 1;
                let frame = self
                    .remoteness_frames
                    .get(k, || table.decode(stream, first, k as usize).map_err(fail))?;
                match h.remoteness_encoding {
                    // Frames start at multiples of 32 positions: a nibble frame at a whole byte.
                    RemotenessEncoding::Nibbles => {
                        remoteness_of_nibble(code, frame[(i / 2) as usize] >> (4 * (i % 2)) & 15)
                    }
                    RemotenessEncoding::Bytes(w) => {
                        let w = w as usize;
                        get_remoteness(&frame[i as usize * w..(i as usize + 1) * w])
                    }
                    RemotenessEncoding::None => {
                        unreachable!("a remoteness stream without remoteness")
                    }
                }
            }
        };
        Ok(match rules() {
            Rules::Unused => (None, None),
            Rules::Known(v, r) => (Some(v), r.filter(|_| remoteness.is_some())),
            Rules::Search => (cells::value(code), stored),
        })
    }
}
