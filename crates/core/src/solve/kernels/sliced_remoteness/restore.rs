//! What a table that leaves one mover out does not store, decided again by the row kernel: the
//! raw table's bytes restored (`decompress`), or the positions counted by score as they are
//! restored (`research tiers`), a key tier at a time as a solve goes.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::*;

/// Restores what a table that leaves one mover out does not store: class B (Right to move)
/// of every row, in `cells` and `nibbles`, into which `stored(range)` puts the bytes the
/// table stores for the positions `range` (class A as solved; the positions the rules decide,
/// and class B, don't-care). Key tiers fullest first, as a solve goes, each first put in
/// place: a row's class B is decided from its class A and from class A of the tier above
/// (`RowKernel::decide` with `RESTORE`), and the row's cells and nibbles written whole, its
/// positions the rules decide set as a solve sets them. `advance` is told the positions of
/// each chunk of rows done. The bytes are then the raw table's; two key tiers are resident at
/// a time, as in a solve.
pub fn restore_left_out(
    board: &SlicedBoard<'_>,
    cells: &Cells<'_>,
    nibbles: &Nibbles<'_>,
    stored: &mut dyn FnMut(std::ops::Range<u64>) -> crate::Result<()>,
    advance: &(dyn Fn(u64) + Sync),
) -> crate::Result<()> {
    let s = board.index;
    assert_eq!(cells.len(), s.size(), "cells must match the board");
    let kernel = RowKernel::new(board);
    let release = |positions: std::ops::Range<u64>| {
        cells.release(positions.clone());
        nibbles.release(positions);
    };
    each_restored_chunk(
        s,
        stored,
        |chunk| {
            kernel.with_scratch(|sc| {
                for row in chunk {
                    kernel.restore_row(row, sc, cells, nibbles, row.len);
                }
            });
            advance(chunk.iter().map(|r| r.len as u64).sum());
        },
        // A batch's pages are written: they leave resident memory (the file keeps them).
        release,
        release,
    )
}

/// The positions of a table that leaves one mover out, counted by tier (filled cells) and
/// score, as [`restore_left_out`] would restore them, without writing a row: entry `t` of the
/// result counts, for every score, the positions with `t` filled cells ([`score_meaning`]
/// says what a score is). `stored` puts the stored bytes of the positions of a range in
/// `cells` and `nibbles` as there; `discard(range)` is told when no row reads the positions
/// `range` any more (the caller may free their memory). Only class A of each row is written
/// back (the rows below read it: its positions the rules decide are stored as don't-care);
/// class B is never read (its children are class A). Two key tiers are held at a time.
pub fn count_left_out(
    board: &SlicedBoard<'_>,
    cells: &Cells<'_>,
    nibbles: &Nibbles<'_>,
    stored: &mut dyn FnMut(std::ops::Range<u64>) -> crate::Result<()>,
    discard: &mut dyn FnMut(std::ops::Range<u64>),
    advance: &(dyn Fn(u64) + Sync),
) -> crate::Result<Vec<[u64; 256]>> {
    let s = board.index;
    assert_eq!(cells.len(), s.size(), "cells must match the board");
    let kernel = RowKernel::new(board);
    // Each class's filled low cells, by rank.
    let filled: Vec<Vec<u8>> = s
        .class_list
        .iter()
        .map(|class| {
            class
                .iter()
                .map(|&v| {
                    let (l, r) = s.low_masks[v as usize];
                    (l | r).count_ones() as u8
                })
                .collect()
        })
        .collect();
    let tiers = s.tier_sizes.len();
    let lw = s.low_digits() as i32;
    // A histogram a thread (locked by its thread only).
    let threads = rayon::current_num_threads();
    let counts: Vec<std::sync::Mutex<ScoreCounts>> = (0..threads)
        .map(|_| std::sync::Mutex::new(ScoreCounts::new(tiers)))
        .collect();
    each_restored_chunk(
        s,
        stored,
        |chunk| {
            let at = rayon::current_thread_index().unwrap_or(0) % threads;
            let mut counts = counts[at].lock().unwrap_or_else(|e| e.into_inner());
            kernel.with_scratch(|sc| {
                for row in chunk {
                    // Class A written back: the rows below read it, the positions the rules
                    // decide as the rules say (stored, they are don't-care).
                    kernel.restore_row(row, sc, cells, nibbles, row.split);
                    let (a, b) = sc.out[..row.len as usize].split_at(row.split as usize);
                    for (class, scores) in [(row.d, a), (row.d + 1, b)] {
                        if !scores.is_empty() {
                            counts.count(row.tier, scores, &filled[(class + lw) as usize]);
                        }
                    }
                }
            });
            advance(chunk.iter().map(|r| r.len as u64).sum());
        },
        |_| {},
        discard,
    )?;
    let mut total = vec![[0u64; 256]; tiers];
    for c in counts {
        let mut c = c.into_inner().unwrap_or_else(|e| e.into_inner());
        c.flush();
        for (t, c) in total.iter_mut().zip(&c.total) {
            for (x, y) in t.iter_mut().zip(c) {
                *x += y;
            }
        }
    }
    Ok(total)
}

/// Positions counted by tier and score: four interleaved copies of 32-bit counters (counting is
/// a read-modify-write, and neighbours of one tier and score in one copy would wait on each
/// other: a quarter of a count's time went so), added into 64-bit totals before a counter
/// could overflow.
pub(super) struct ScoreCounts {
    /// Copy `c`, tier `t`, score `s` at `(c * tiers + t) << 8 | s`.
    lanes: Vec<u32>,
    /// Positions counted into `lanes` since they were last added up.
    since: u64,
    total: Vec<[u64; 256]>,
}

impl ScoreCounts {
    pub(super) fn new(tiers: usize) -> ScoreCounts {
        ScoreCounts {
            lanes: vec![0; (4 * tiers) << 8],
            since: 0,
            total: vec![[0; 256]; tiers],
        }
    }

    /// Counts the positions of `scores`, the one at rank `i` in tier `tier + filled[i]`.
    #[inline(always)]
    pub(super) fn count(&mut self, tier: u32, scores: &[u8], filled: &[u8]) {
        let n = scores.len().min(filled.len());
        if self.since + n as u64 > u32::MAX as u64 {
            self.flush();
        }
        self.since += n as u64;
        let tiers = self.total.len();
        let (l0, rest) = self.lanes.split_at_mut(tiers << 8);
        let (l1, rest) = rest.split_at_mut(tiers << 8);
        let (l2, l3) = rest.split_at_mut(tiers << 8);
        let at = |s: u8, f: u8| ((tier + f as u32) as usize) << 8 | s as usize;
        let (scores, filled) = (&scores[..n], &filled[..n]);
        let mut quads = scores.chunks_exact(4).zip(filled.chunks_exact(4));
        for (s, f) in quads.by_ref() {
            l0[at(s[0], f[0])] += 1;
            l1[at(s[1], f[1])] += 1;
            l2[at(s[2], f[2])] += 1;
            l3[at(s[3], f[3])] += 1;
        }
        let rest = n / 4 * 4;
        for (&s, &f) in scores[rest..].iter().zip(&filled[rest..]) {
            l0[at(s, f)] += 1;
        }
    }

    /// Adds the copies into the totals and zeroes them.
    pub(super) fn flush(&mut self) {
        let tiers = self.total.len();
        for lane in self.lanes.chunks_exact_mut(tiers << 8) {
            for (t, counts) in self.total.iter_mut().zip(lane.chunks_exact_mut(256)) {
                for (x, y) in t.iter_mut().zip(counts.iter_mut()) {
                    *x += *y as u64;
                    *y = 0;
                }
            }
        }
        self.since = 0;
    }
}

/// What a score [`count_left_out`] counts is: its cell code (0: no position has it) and
/// remoteness.
pub fn score_meaning(score: u8) -> (u8, u32) {
    if score == 0 {
        return (0, 0);
    }
    let (code, r, _) = decode(score);
    (code, r)
}

/// The loop [`restore_left_out`] and [`count_left_out`] share: key tiers fullest first, each
/// first put in place by `stored`, its rows in batches of about [`BATCH_POSITIONS`] positions;
/// each batch's chunks of [`ROWS_PER_UNIT`] rows go to `chunk` in parallel, then the batch's
/// positions to `batch_done`; `tier_done` is told the positions of the tier above once its last
/// reader is done.
fn each_restored_chunk(
    s: &Sliced,
    stored: &mut dyn FnMut(std::ops::Range<u64>) -> crate::Result<()>,
    chunk: impl Fn(&[Row]) + Sync,
    mut batch_done: impl FnMut(std::ops::Range<u64>),
    mut tier_done: impl FnMut(std::ops::Range<u64>),
) -> crate::Result<()> {
    for k in (0..s.tier_rows.len()).rev() {
        stored(key_tier_cells(s, k))?;
        let rows = &s.rows[s.tier_rows[k].clone()];
        for batch in batches(rows) {
            batch
                .par_chunks(ROWS_PER_UNIT)
                .with_max_len(1)
                .for_each(&chunk);
            if let (Some(a), Some(b)) = (batch.first(), batch.last()) {
                batch_done(a.start..b.start + b.len as u64);
            }
        }
        tier_done(key_tier_cells(s, k + 1));
    }
    tier_done(key_tier_cells(s, 0));
    Ok(())
}

/// Writes `buf` (words from `first_word` on) over the `bits` bits a position of `positions`
/// in `words`, leaving the other bits of the first and last word to their rows' tasks.
pub(super) fn put_words(
    words: &[AtomicU64],
    first_word: u64,
    buf: &[u64],
    bits: u64,
    positions: std::ops::Range<u64>,
) {
    let (from, to) = (positions.start * bits, positions.end * bits);
    for (w, &x) in buf.iter().enumerate() {
        let at = first_word + w as u64;
        let lo = from.max(at * 64) - at * 64;
        let hi = to.min(at * 64 + 64).saturating_sub(at * 64);
        if lo >= hi {
            continue;
        }
        let word = &words[at as usize];
        if hi - lo == 64 {
            word.store(x, Ordering::Relaxed);
        } else {
            let mask = ((1u64 << (hi - lo)) - 1) << lo;
            word.fetch_and(!mask, Ordering::Relaxed);
            word.fetch_or(x & mask, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ScoreCounts;

    /// The interleaved counters count as one histogram would, rows of every length (the
    /// remainder of four too), and a flush forced by the overflow guard loses nothing.
    #[test]
    fn score_counts_equal_a_plain_histogram() {
        let tiers = 6;
        let mut want = vec![[0u64; 256]; tiers];
        let mut got = ScoreCounts::new(tiers);
        let mut rng = crate::base::splitmix::SplitMix64(7);
        for len in 0..40usize {
            let tier = (rng.next_u64() % 3) as u32;
            let scores: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
            let filled: Vec<u8> = (0..len).map(|_| (rng.next_u64() % 3) as u8).collect();
            for (&sc, &f) in scores.iter().zip(&filled) {
                want[(tier + f as u32) as usize][sc as usize] += 1;
            }
            if len == 20 {
                // As if the copies were nearly full: the next count adds them up first.
                got.since = u32::MAX as u64 - 3;
            }
            got.count(tier, &scores, &filled);
        }
        got.flush();
        assert_eq!(got.total, want);
        assert!(got.lanes.iter().all(|&x| x == 0));
    }
}
