//! What goes into one frame of a compressed table: the cells or the remoteness of a run of
//! positions, the don't-care entries (the positions the rules decide, and those a one-mover
//! table leaves out) filled as asked, every fill tried for `best`.

use crate::base::cells;
use crate::base::error::{Error, Result};
use crate::game::{Game, Omissions, Rules, table_rules};
use crate::table::format::{RemotenessEncoding, put_remoteness};
use crate::table::read::Table;
use crate::table::zstd::{DontCareFill, Params};
use crate::with_game;

/// The contents to try for one frame: every fill for [`DontCareFill::Best`], else the one asked for.
pub(super) fn candidates(
    fill: DontCareFill,
    make: impl Fn(DontCareFill) -> Result<Vec<u8>>,
) -> Result<Vec<Vec<u8>>> {
    match fill {
        DontCareFill::Best => [
            DontCareFill::Stored,
            DontCareFill::Previous,
            DontCareFill::Second,
        ]
        .into_iter()
        .map(make)
        .collect(),
        f => Ok(vec![make(f)?]),
    }
}

/// The cell bytes of positions `first..first + n`, don't-care cells filled as `fill` says;
/// with `omitted`, the positions the game marks omissible are don't-care too.
pub(super) fn cell_frame(
    input: &Table,
    first: u64,
    n: u64,
    fill: DontCareFill,
    omitted: bool,
) -> Result<Vec<u8>> {
    let raw = input.raw_cells(first, n)?;
    Ok(with_game!(input.game(), g => cell_frame_of(g, raw, first, n, fill, omitted)))
}

/// [`cell_frame`] from the cells themselves: `raw` holds positions `first..first + n` as a raw
/// table's bytes do (`first` a multiple of 4), the bits past the last zero. A build that writes
/// its frames as it solves (the out-of-core kernel) makes them here, so they are the frames
/// `compress` makes of the raw table.
pub(crate) fn cell_frame_of<G: Game + Omissions>(
    g: &G,
    raw: &[u8],
    first: u64,
    n: u64,
    fill: DontCareFill,
    omitted: bool,
) -> Vec<u8> {
    let bytes = n.div_ceil(4) as usize;
    // Stored values need no rules: the raw bytes are the frame, left-out cells zeroed.
    if fill == DontCareFill::Stored {
        let mut out = raw[..bytes].to_vec();
        if omitted {
            for r in g.omissible_ranges(first, n).into_iter().flatten() {
                clear_cells(&mut out, r.start - first..r.end - first);
            }
        }
        return out;
    }
    let left_out = if omitted {
        g.omissible_run(first, n)
    } else {
        None
    };
    let mut out = vec![0u8; bytes];
    let mut prev = 0u8;
    let searched = g.searched_run(first, n);
    for i in 0..n {
        let pos = first + i;
        let rules = match &searched {
            _ if left_out.as_ref().is_some_and(|o| o[i as usize]) => Rules::Unused,
            Some(s) if s[i as usize] => Rules::Search,
            // Only whether the rules decide matters here, not their value.
            Some(_) => Rules::Unused,
            None => table_rules(g, pos),
        };
        let code = match (rules, fill) {
            (Rules::Search, _) | (_, DontCareFill::Stored) => {
                prev = cells::get_in_bytes(raw, i);
                prev
            }
            (_, DontCareFill::Previous | DontCareFill::Best) => prev,
            (_, DontCareFill::Zero) => 0,
            (_, DontCareFill::Second) if i >= 2 => cells::get_in_bytes(&out, i - 2),
            (_, DontCareFill::Second) => 0,
        };
        out[(i / 4) as usize] |= code << ((i % 4) * 2);
    }
    out
}

/// Zeroes the 2-bit cells `range` of `bytes`: whole bytes at once, the cells at its ends one by
/// one.
fn clear_cells(bytes: &mut [u8], range: std::ops::Range<u64>) {
    let (mut a, b) = (range.start, range.end);
    while a < b && !a.is_multiple_of(4) {
        bytes[(a / 4) as usize] &= !(3 << ((a % 4) * 2));
        a += 1;
    }
    let whole = (b - a) / 4;
    bytes[(a / 4) as usize..(a / 4 + whole) as usize].fill(0);
    a += whole * 4;
    while a < b {
        bytes[(a / 4) as usize] &= !(3 << ((a % 4) * 2));
        a += 1;
    }
}

/// The contents to try for one frame of cells made by [`cell_frame_of`]: every fill for
/// [`DontCareFill::Best`], else the one asked for.
pub(crate) fn cell_candidates<G: Game + Omissions>(
    g: &G,
    raw: &[u8],
    first: u64,
    n: u64,
    params: Params,
) -> Vec<Vec<u8>> {
    let made = candidates(params.fill, |fill| {
        Ok(cell_frame_of(g, raw, first, n, fill, params.one_mover))
    });
    made.expect("making a frame from cells does not fail")
}

/// Which of positions `first..first + n` a one-mover table leaves out (`None`: none).
pub(super) fn left_out(input: &Table, first: u64, n: u64, omitted: bool) -> Option<Vec<bool>> {
    if omitted {
        with_game!(input.game(), g => g.omissible_run(first, n))
    } else {
        None
    }
}

/// The remoteness bytes of positions `first..first + n`, don't-care entries filled as `fill`
/// says; with `omitted`, the positions the game marks omissible are don't-care too (fill
/// `stored`: zero).
pub(super) fn remoteness_frame(
    input: &Table,
    first: u64,
    n: u64,
    fill: DontCareFill,
    omitted: bool,
) -> Result<Vec<u8>> {
    let out_of_table = left_out(input, first, n, omitted);
    let w = match input.header().remoteness_encoding {
        RemotenessEncoding::Nibbles => return nibble_frame(input, first, n, fill, out_of_table),
        RemotenessEncoding::Bytes(w) => w as usize,
        RemotenessEncoding::None => 0,
    };
    let mut out = vec![0u8; n as usize * w];
    let mut prev = crate::base::remoteness::NONE;
    with_game!(input.game(), g => {
        for i in 0..n as usize {
            let pos = first + i as u64;
            let omitted_here = out_of_table.as_ref().is_some_and(|o| o[i]);
            let rules = if omitted_here { Rules::Unused } else { table_rules(g, pos) };
            let r = match (rules, fill) {
                (_, DontCareFill::Stored) if omitted_here => 0,
                (Rules::Search, _) | (_, DontCareFill::Stored) => {
                    prev = input.remoteness(pos)?.unwrap_or(crate::base::remoteness::NONE);
                    prev
                }
                (_, DontCareFill::Previous | DontCareFill::Second | DontCareFill::Best) => prev,
                (_, DontCareFill::Zero) => 0,
            };
            put_remoteness(&mut out[i * w..(i + 1) * w], r);
        }
        Ok::<(), Error>(())
    })?;
    Ok(out)
}

/// [`remoteness_frame`] of a table with remoteness in nibbles: the stored bytes as they are,
/// or with the positions the rules decide filled as `fill` says (the previous nibble, or 0);
/// the positions `left_out` marks are don't-care too (zero with fill `stored`).
pub(super) fn nibble_frame(
    input: &Table,
    first: u64,
    n: u64,
    fill: DontCareFill,
    left_out: Option<Vec<bool>>,
) -> Result<Vec<u8>> {
    let stored = input.raw_nibbles(first, n)?;
    if fill == DontCareFill::Stored {
        let mut out = stored.to_vec();
        for (i, _) in left_out.iter().flatten().enumerate().filter(|(_, o)| **o) {
            out[i / 2] &= !(15 << (4 * (i % 2)));
        }
        return Ok(out);
    }
    let nibble = |i: u64| stored[(i / 2) as usize] >> (4 * (i % 2)) & 15;
    let mut out = vec![0u8; n.div_ceil(2) as usize];
    let mut prev = 0u8;
    with_game!(input.game(), g => {
        let searched = g.searched_run(first, n);
        for i in 0..n {
            let search = match &searched {
                _ if left_out.as_ref().is_some_and(|o| o[i as usize]) => false,
                Some(s) => s[i as usize],
                None => matches!(table_rules(g, first + i), Rules::Search),
            };
            let x = match fill {
                _ if search => {
                    prev = nibble(i);
                    prev
                }
                DontCareFill::Zero => 0,
                DontCareFill::Second if i >= 2 => out[((i - 2) / 2) as usize] >> (4 * (i % 2)) & 15,
                DontCareFill::Second => 0,
                _ => prev,
            };
            out[(i / 2) as usize] |= x << (4 * (i % 2));
        }
    });
    Ok(out)
}
