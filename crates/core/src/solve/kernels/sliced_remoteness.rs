//! The row kernel with remoteness, for games in the sliced index ([`SlicedBoard`]): a row at a
//! time as the values-only kernel ([`super::sliced_rows`]), a position at a time within the row.
//!
//! What the solve keeps per position is half a byte beside the two-bit cell: a cell game's
//! remoteness follows its value's parity (a win's is odd, or 0 where the game is over; a loss's
//! even) and never exceeds its cells, so `r / 2` for a loss and `(r + 1) / 2` for a win fit four
//! bits; the table's nibble encoding is the same, so a build's work file holds them in place.
//! Cells and nibbles live in the build's work file, so the order is the values kernel's: key tiers fullest first, a tier's
//! rows reading only the tier above, two key tiers resident, the rest on disk.
//!
//! A row is decided over the dense range of low configurations in one byte a column, a
//! *score* that orders a child for the player choosing it: `1 + r` for a won child (the loser
//! delays: the larger the better), `255 - r` for a lost one (the winner hurries), 0 for none.
//! A position's best child is the largest score; it wins (remoteness `256 - best`) when that
//! child is lost, else loses (remoteness `best`), and its own score is `257 - best` or
//! `255 - best`. A move into a low cell adds `3^j` or `2 * 3^j` to the column, so the row's two
//! classes, merged in decreasing column order, find their low children decided; the key
//! children's scores come first, from the tier above, gathered per class as the values kernel
//! gathers loss bits.
//!
//! Invariant: as in [`super::sliced_rows`], a row's cells and nibbles are written only by the task
//! that owns it, once, and the rows of the tier above are only read.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use rayon::prelude::*;

use super::sliced_rows::{
    Ends, Facts, KeyChild, KeyTiers, ROWS_PER_UNIT, key_children, key_tier_cells, or_words,
    row_ends,
};
use crate::base::cells::{CELLS_PER_WORD, Cells, LOSS, WIN};
use crate::game::shape::SlicedBoard;
use crate::game::shape::sliced::{Row, Sliced};
use crate::solve::finished::{Solved, TierDone};
use crate::solve::{SolveOptions, SolveStats};

mod nibbles;
mod restore;
mod scores;

pub use nibbles::{NIBBLES_PER_WORD, Nibbles, nibble_words_for};
use restore::put_words;
pub use restore::{count_left_out, restore_left_out, score_meaning};
use scores::{DECODE, SCORE, decode, score_of};

/// Positions of a batch of rows: once a batch is decided, its pages leave resident memory.
const BATCH_POSITIONS: u64 = 1 << 28;

/// Bytes the kernel keeps resident: the cells and nibbles of the key tier it reads and of a
/// batch of the tier it decides (the largest such pair), and its tables (the values kernel's
/// and its own).
pub fn resident_bytes(s: &Sliced) -> u64 {
    let pair = (0..s.tier_rows.len())
        .map(|k| tier_len(s, k).min(BATCH_POSITIONS + max_row(s)) + tier_len(s, k + 1))
        .max()
        .unwrap_or(0);
    bytes_with_tables(s, pair)
}

/// The bytes of `positions` positions' cells and nibbles (two bits and four a position) and
/// the kernel's tables: the values kernel's, the merged classes (8 bytes a column, twice) and
/// the columns' empty cells (2 bytes).
fn bytes_with_tables(s: &Sliced, positions: u64) -> u64 {
    let low = 3u64.pow(s.low_digits());
    positions.div_ceil(4) + positions.div_ceil(2) + super::sliced_rows::tables_bytes(s) + low * 18
}

/// Bytes [`count_left_out`] keeps resident: the cells and nibbles of two key tiers (the
/// largest such pair: neither is released in batches, as a solve's written rows are), and the
/// tables.
pub fn count_resident_bytes(s: &Sliced) -> u64 {
    let pair = (0..s.tier_rows.len())
        .map(|k| tier_len(s, k) + tier_len(s, k + 1))
        .max()
        .unwrap_or(0);
    bytes_with_tables(s, pair)
}

/// The most positions a row holds.
fn max_row(s: &Sliced) -> u64 {
    s.rows.iter().map(|r| r.len as u64).max().unwrap_or(0)
}

/// The rows of one key tier cut into batches of about [`BATCH_POSITIONS`] positions.
fn batches(rows: &[Row]) -> Vec<&[Row]> {
    let mut out = Vec::new();
    let (mut from, mut n) = (0, 0u64);
    for (i, r) in rows.iter().enumerate() {
        n += r.len as u64;
        if n >= BATCH_POSITIONS {
            out.push(&rows[from..=i]);
            (from, n) = (i + 1, 0);
        }
    }
    if from < rows.len() {
        out.push(&rows[from..]);
    }
    out
}

fn tier_len(s: &Sliced, k: usize) -> u64 {
    let r = key_tier_cells(s, k);
    r.end - r.start
}

/// Solves the tiers below `done_from` of `board` into `cells` and `nibbles` (the tiers from
/// `done_from` up decided in both; for a fresh solve every cell undecided, every nibble zero),
/// calling `after` as [`super::sliced_rows::solve`] does. `None` when `after` stopped the solve.
pub fn solve(
    board: &SlicedBoard<'_>,
    cells: &Cells<'_>,
    nibbles: &Nibbles<'_>,
    done_from: u32,
    opts: &SolveOptions,
    after: &mut impl FnMut(TierDone<'_>) -> crate::Result<bool>,
) -> crate::Result<Option<Solved>> {
    let s = board.index;
    assert_eq!(cells.len(), s.size(), "cells must match the board");
    assert!(
        nibbles.words().len() as u64 >= nibble_words_for(s.size()),
        "nibbles must match the board"
    );
    let kernel = RowKernel::new(board);
    let hw = s.key_digits();
    let mut plan = KeyTiers::new(s, done_from);
    if let Some(from) = plan.clear_from {
        super::sliced_rows::clear_from(cells, from);
        nibbles.clear_from(from);
    }
    let progress = opts.begin_progress(plan.todo);
    let probes = AtomicU64::new(0);
    // The largest remoteness of the rows decided here, and of those before (a resumed solve
    // reads them from the finished key tiers once, at the end).
    let longest = AtomicU32::new(0);
    for k in (0..=plan.first_key).rev() {
        let k = k as u32;
        progress.step(&format!("key tier {k} of {}", hw + 1));
        let rows = &s.rows[s.tier_rows[k as usize].clone()];
        for batch in batches(rows) {
            batch
                .par_chunks(ROWS_PER_UNIT)
                .with_max_len(1)
                .for_each(|chunk| {
                    if opts.stop.requested() {
                        return;
                    }
                    let mut n = 0;
                    kernel.with_scratch(|sc| {
                        for row in chunk {
                            let (first, first_nibble_word, reads, r) =
                                kernel.decide::<false>(row, sc, cells, nibbles);
                            n += reads;
                            longest.fetch_max(r, Ordering::Relaxed);
                            or_words(cells.words(), first, &sc.buf);
                            or_words(nibbles.words(), first_nibble_word, &sc.nbuf);
                        }
                    });
                    probes.fetch_add(n, Ordering::Relaxed);
                    progress.advance(chunk.iter().map(|r| r.len as u64).sum());
                });
            // The batch's pages are written: they leave resident memory (the file keeps them
            // for the tier below), so the tier decided holds a batch at a time.
            if let (Some(a), Some(b)) = (batch.first(), batch.last()) {
                let written = a.start..b.start + b.len as u64;
                cells.release(written.clone());
                nibbles.release(written);
            }
        }
        opts.stop.check()?;
        // The tiers a key tier completes are reported with no remoteness to keep: it is in the
        // nibbles, which a checkpoint syncs with the cells.
        if !plan.finished(s, k, after)? {
            return Ok(None);
        }
        let above = key_tier_cells(s, k as usize + 1);
        cells.release(above.clone());
        nibbles.release(above);
    }
    plan.rest(after)?;
    progress.reach(plan.todo);
    // A resumed solve decided only part of the table: the rest's longest win comes from its
    // nibbles (their remoteness is at most `2n`).
    let from_disk = if done_from < s.tier_sizes.len() as u32 {
        longest_stored(s, cells, nibbles)
    } else {
        0
    };
    let rounds = longest.into_inner().max(from_disk) + 1;
    Ok(Some(Solved {
        stats: SolveStats {
            counts: cells.counts(),
            rounds: Some(rounds),
            parent_visits: 0,
            edges: None,
            child_probes: probes.into_inner(),
            remoteness: None,
        },
        remoteness: crate::solve::finished::Remoteness::None,
    }))
}

/// The largest remoteness stored in `cells` and `nibbles`.
fn longest_stored(s: &Sliced, cells: &Cells<'_>, nibbles: &Nibbles<'_>) -> u32 {
    const PIECE: u64 = 1 << 16;
    let size = s.size();
    (0..size.div_ceil(PIECE))
        .into_par_iter()
        .map(|k| {
            (k * PIECE..((k + 1) * PIECE).min(size))
                .map(|i| SCORE[(cells.get(i) as usize) << 4 | nibbles.get(i) as usize])
                .filter(|&score| score != 0)
                .map(|score| decode(score).1)
                .max()
                .unwrap_or(0)
        })
        .max()
        .unwrap_or(0)
}

/// The scores of positions `first..first + n` into `out` (cleared first), a word of nibbles at
/// a time.
#[inline(always)]
fn scores(cells: &Cells<'_>, nibbles: &Nibbles<'_>, first: u64, n: u64, out: &mut Vec<u8>) {
    out.clear();
    let (cw, nw) = (cells.words(), nibbles.words());
    let end = first + n;
    let mut p = first;
    while p < end {
        // Positions of one nibble word, inside one cell word (16 divides 32).
        let stop = end.min((p / NIBBLES_PER_WORD + 1) * NIBBLES_PER_WORD);
        let c = cw[(p / CELLS_PER_WORD) as usize].load(Ordering::Relaxed);
        let x = nw[(p / NIBBLES_PER_WORD) as usize].load(Ordering::Relaxed);
        if p.is_multiple_of(NIBBLES_PER_WORD) && stop - p == NIBBLES_PER_WORD {
            // A whole word: two positions a lookup (their four cell bits and nibble byte).
            let c = c >> (2 * (p % CELLS_PER_WORD));
            for k in 0..8 {
                let pair = SCORE_PAIR[((c >> (4 * k) & 15) << 8 | (x >> (8 * k) & 255)) as usize];
                out.extend_from_slice(&pair.to_le_bytes());
            }
        } else {
            out.extend((p..stop).map(|q| {
                let code = c >> (2 * (q % CELLS_PER_WORD)) & 3;
                let nib = x >> (4 * (q % NIBBLES_PER_WORD)) & 15;
                SCORE[(code << 4 | nib) as usize]
            }));
        }
        p = stop;
    }
}

/// [`SCORE`] of two neighbour positions at once: index `codes << 8 | nibbles` (the first
/// position's code and nibble in the low bits), the first's score in the low byte.
static SCORE_PAIR: [u16; 4096] = {
    let mut t = [0u16; 4096];
    let mut i = 0;
    while i < 4096 {
        let (codes, nibs) = (i >> 8, i & 255);
        let a = SCORE[(codes & 3) << 4 | (nibs & 15)] as u16;
        let b = SCORE[(codes >> 2) << 4 | (nibs >> 4)] as u16;
        t[i] = a | b << 8;
        i += 1;
    }
    t
};

/// What every row shares: the values kernel's facts, and per pair of classes the columns in
/// decreasing order.
struct RowKernel<'a> {
    board: SlicedBoard<'a>,
    facts: Facts,
    /// `merged[d + lw + 1]`: the columns of classes `d` (Left to move) and `d + 1` (Right to
    /// move), largest first, for `d` from `-lw - 1` to `lw`, each
    /// `column | rank << 20 | empty << 40 | class_b << 63`: its rank in its class and its
    /// empty low digits as a mask (in the entry: a table of them by column took a megabyte of
    /// the cache the row's scores need).
    merged: Vec<Vec<u64>>,
    /// `3^j` (Left's move into low cell `j`) and `2 * 3^j` (Right's).
    step: [[u32; 16]; 2],
    /// The most positions a row holds.
    max_row: usize,
    /// The CPU has x86-64-v3 ([`crate::base::cpu::v3`], asked once a solve).
    v3: bool,
}

/// Column bits of a merged entry (and of its rank, next).
const COLUMN_BITS: u32 = 20;
/// Where a merged entry's empty low digits start.
const EMPTY_SHIFT: u32 = 40;

impl<'a> RowKernel<'a> {
    fn new(board: &SlicedBoard<'a>) -> RowKernel<'a> {
        let s = board.index;
        let facts = Facts::new(board);
        let lw = s.low_digits();
        let n = 3usize.pow(lw);
        assert!(n <= 1 << COLUMN_BITS, "columns fit their bits");
        let empty = |v: u32| {
            let (l, r) = s.low_masks[v as usize];
            s.low_cells
                .iter()
                .enumerate()
                .filter(|&(_, &c)| (l | r) >> c & 1 == 0)
                .fold(0u64, |acc, (j, _)| acc | 1 << j)
        };
        let merged = (-(lw as i32) - 1..=lw as i32)
            .into_par_iter()
            .map(|d| {
                let mut m: Vec<u64> = Vec::new();
                for (class, b) in [(d, 0u64), (d + 1, 1)] {
                    if class.abs() > lw as i32 {
                        continue;
                    }
                    m.extend(s.class_of(class).iter().enumerate().map(|(rank, &v)| {
                        v as u64 | (rank as u64) << COLUMN_BITS | empty(v) << EMPTY_SHIFT | b << 63
                    }));
                }
                m.sort_unstable_by_key(|&e| std::cmp::Reverse(e & ((1 << COLUMN_BITS) - 1)));
                m
            })
            .collect();
        let mut step = [[0u32; 16]; 2];
        for (j, p) in (0..lw).map(|j| 3u32.pow(j)).enumerate() {
            step[0][j] = p;
            step[1][j] = 2 * p;
        }
        RowKernel {
            board: *board,
            facts,
            merged,
            step,
            max_row: max_row(s) as usize,
            v3: crate::base::cpu::v3(),
        }
    }

    /// Restores `row` (`decide` with `RESTORE`) and writes its first `n` positions' cells and
    /// nibbles over the stored bytes; its scores stay in `sc.out`.
    fn restore_row(
        &self,
        row: &Row,
        sc: &mut Scratch,
        cells: &Cells<'_>,
        nibbles: &Nibbles<'_>,
        n: u32,
    ) {
        let (first, first_nibble_word, _, _) = self.decide::<true>(row, sc, cells, nibbles);
        let at = row.start..row.start + n as u64;
        put_words(cells.words(), first, &sc.buf, 2, at.clone());
        put_words(nibbles.words(), first_nibble_word, &sc.nbuf, 4, at);
    }

    /// Runs `f` with this thread's scratch (made once a thread: a row's scratch is half a
    /// megabyte, and making it a job cost a fifth of the solve).
    fn with_scratch<R>(&self, f: impl FnOnce(&mut Scratch) -> R) -> R {
        thread_local! {
            static SCRATCH: std::cell::RefCell<Option<Scratch>> =
                const { std::cell::RefCell::new(None) };
        }
        SCRATCH.with(|cell| {
            let mut slot = cell.borrow_mut();
            let made_for = (self.facts.words, self.max_row);
            let sc = slot.get_or_insert_with(|| Scratch::new(&self.facts, self.max_row));
            if sc.made_for != made_for {
                *sc = Scratch::new(&self.facts, self.max_row);
            }
            f(sc)
        })
    }

    /// Decides `row`: its cells into `sc.buf` (the table's words from the first returned word
    /// on) and its nibbles into `sc.nbuf` (from the second), both to be ORed in (a first and
    /// last word may be a neighbour's); also returns the child rows read and the row's longest
    /// remoteness. The rows of the key tier above must be decided in `cells` and `nibbles`.
    ///
    /// With `RESTORE`, the row's class A (Left to move) is read as stored in `cells` and
    /// `nibbles` instead (but for the positions the rules decide: its ends and the positions
    /// without a move) and class B (Right to move) decided from it and from class A of the rows
    /// of the tier above: what a table that leaves Right's positions out
    /// ([`restore_left_out`]) needs; the returned words are then the whole row's.
    fn decide<const RESTORE: bool>(
        &self,
        row: &Row,
        sc: &mut Scratch,
        cells: &Cells<'_>,
        nibbles: &Nibbles<'_>,
    ) -> (u64, u64, u64, u32) {
        #[cfg(target_arch = "x86_64")]
        if self.v3 {
            // SAFETY: `v3` says the CPU has the v3 extensions.
            return unsafe { self.decide_v3::<RESTORE>(row, sc, cells, nibbles) };
        }
        self.decide_body::<RESTORE>(row, sc, cells, nibbles)
    }

    /// [`RowKernel::decide_body`] compiled for x86-64-v3 (one instruction for each lowest set
    /// bit).
    ///
    /// # Safety
    /// The CPU has [`crate::base::cpu::V3_FEATURES`].
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt,fma")]
    unsafe fn decide_v3<const RESTORE: bool>(
        &self,
        row: &Row,
        sc: &mut Scratch,
        cells: &Cells<'_>,
        nibbles: &Nibbles<'_>,
    ) -> (u64, u64, u64, u32) {
        self.decide_body::<RESTORE>(row, sc, cells, nibbles)
    }

    #[inline(always)]
    fn decide_body<const RESTORE: bool>(
        &self,
        row: &Row,
        sc: &mut Scratch,
        cells: &Cells<'_>,
        nibbles: &Nibbles<'_>,
    ) -> (u64, u64, u64, u32) {
        row_ends(&self.board, &self.facts, row, &mut sc.ends);
        let (reads, a_key) = self.key_scores::<RESTORE>(row, sc, cells, nibbles);
        self.row_scores::<RESTORE>(row, sc, a_key);
        let (first_word, first_nibble_word, longest) = self.write_row(row, sc);
        (first_word, first_nibble_word, reads, longest)
    }

    /// Each class's best score among its key children, by rank, into `sc.kbest` (restoring:
    /// class A's stored scores instead); returns the child rows read and, restoring, whether
    /// class A has key children.
    #[inline(always)]
    fn key_scores<const RESTORE: bool>(
        &self,
        row: &Row,
        sc: &mut Scratch,
        cells: &Cells<'_>,
        nibbles: &Nibbles<'_>,
    ) -> (u64, bool) {
        let s = self.board.index;
        let f = &self.facts;
        let lw = f.lw as i32;
        let d = row.d;
        let split = row.split as usize;
        let (len_a, len_b) = (split, row.len as usize - split);
        // Key children: each class's best child score among them, by rank.
        sc.kbest[0].clear();
        sc.kbest[0].resize(len_a, 0);
        sc.kbest[1].clear();
        sc.kbest[1].resize(len_b, 0);
        let mut reads = 0u64;
        // Restoring, whether class A has key children (else a position of it without an empty
        // low cell has no move: the rules decide it, and its stored bytes are don't-care).
        let mut a_key = false;
        for KeyChild { m, g, first, n } in key_children(s, row) {
            let dm = d + m as i32;
            if dm.abs() > lw || sc.kbest[m].is_empty() {
                continue;
            }
            if RESTORE && m == 0 {
                a_key = true;
                continue;
            }
            reads += 1;
            scores(cells, nibbles, first, n, &mut sc.child);
            let best = &mut sc.kbest[m];
            if g == 0 {
                for (b, &c) in best.iter_mut().zip(&sc.child) {
                    *b = (*b).max(c);
                }
            } else {
                let at = &f.gather[g][(dm + lw) as usize];
                for (b, &t) in best.iter_mut().zip(at) {
                    *b = (*b).max(sc.child[t as usize]);
                }
            }
        }

        if RESTORE {
            // Class A's scores as stored, by rank.
            scores(cells, nibbles, row.start, len_a as u64, &mut sc.kbest[0]);
        }
        (reads, a_key)
    }

    /// The score of every position of the row into `sc.score` (by column) and `sc.out` (class
    /// A's ranks, then class B's), largest column first, each from its key children's best and
    /// its low children's scores.
    #[inline(always)]
    fn row_scores<const RESTORE: bool>(&self, row: &Row, sc: &mut Scratch, a_key: bool) {
        let lw = self.facts.lw as i32;
        let d = row.d;
        let len_a = row.split as usize;
        // The row's positions, largest column first: each reads its low children's scores.
        let (left_won, right_won) = (&sc.ends.left_won, &sc.ends.right_won);
        let bit = |plane: &[u64], v: usize| plane[v / 64] >> (v % 64) & 1 == 1;
        let mask = (1u64 << COLUMN_BITS) - 1;
        for &e in &self.merged[(d + lw + 1) as usize] {
            let v = (e & mask) as usize;
            let rank = (e >> COLUMN_BITS & mask) as usize;
            let b = (e >> 63) as usize;
            let (lwon, rwon) = (bit(left_won, v), bit(right_won, v));
            // Class A: Left to move; class B: Right. Left's join counts first.
            let score = if lwon {
                if b == 0 { 1 } else { 255 }
            } else if rwon {
                if b == 0 { 255 } else { 1 }
            } else if RESTORE && b == 0 {
                let open = (e >> EMPTY_SHIFT) as u16 & 0xFFF;
                // No move: lost at once, as a solve finds it.
                if open == 0 && !a_key {
                    255
                } else {
                    sc.kbest[0][rank]
                }
            } else {
                let mut best = sc.kbest[b][rank];
                let mut open = (e >> EMPTY_SHIFT) as u16 & 0xFFF;
                let step = &self.step[b];
                let score = &sc.score[..];
                while open != 0 {
                    let j = open.trailing_zeros() as usize & 15;
                    open &= open - 1;
                    let c = v + step[j] as usize;
                    debug_assert!(c < score.len(), "a child column inside the range");
                    // SAFETY: column `v`'s low digit `j` is empty, so filling it (adding
                    // `step[j]`, `3^j` or `2 * 3^j`) gives a column below `3^lw`, the range's
                    // length (`Scratch::new`).
                    best = best.max(unsafe { *score.get_unchecked(c) });
                }
                score_of(best)
            };
            sc.score[v] = score;
            sc.out[b * len_a + rank] = score;
        }
    }

    /// The row's cells and nibbles from its scores, into `sc.buf` and `sc.nbuf` from the words
    /// returned (a cell word's and a nibble word's index), and the row's longest remoteness.
    #[inline(always)]
    fn write_row(&self, row: &Row, sc: &mut Scratch) -> (u64, u64, u32) {
        // The row's cells and nibbles, class A's ranks then class B's.
        let out = &sc.out[..row.len as usize];
        let mut longest = 0u32;
        let start = row.start;
        let (buf, nbuf) = (&mut sc.buf, &mut sc.nbuf);
        buf.clear();
        nbuf.clear();
        let first_word = start / CELLS_PER_WORD;
        let first_nibble_word = start / NIBBLES_PER_WORD;
        let end = start + row.len as u64;
        buf.resize((end.div_ceil(CELLS_PER_WORD) - first_word) as usize, 0);
        nbuf.resize(
            (end.div_ceil(NIBBLES_PER_WORD) - first_nibble_word) as usize,
            0,
        );
        // A nibble word's positions at a time (inside one cell word: 16 divides 32), each
        // score decoded by a table: a branch on the value mispredicted half the time.
        let mut t = 0;
        let mut p = start;
        let mut most = 0u8;
        // The whole cell words of the row, 32 positions a vector where the CPU has AVX2.
        #[cfg(target_arch = "x86_64")]
        let (whole_from, whole_to) = if self.v3 {
            let from = start.next_multiple_of(CELLS_PER_WORD).min(end);
            (from, from + (end - from) / CELLS_PER_WORD * CELLS_PER_WORD)
        } else {
            (end, end)
        };
        while p < end {
            #[cfg(target_arch = "x86_64")]
            if p == whole_from && whole_to > whole_from {
                let n = (whole_to - whole_from) as usize;
                let c = (p / CELLS_PER_WORD - first_word) as usize;
                let w = (p / NIBBLES_PER_WORD - first_nibble_word) as usize;
                let (cells, nibbles) = (
                    &mut buf[c..c + n / CELLS_PER_WORD as usize],
                    &mut nbuf[w..w + n / NIBBLES_PER_WORD as usize],
                );
                // SAFETY: `v3` says the CPU has AVX2.
                most = most.max(unsafe { pack_scores(&out[t..t + n], cells, nibbles) });
                t += n;
                p = whole_to;
                continue;
            }
            let stop = end.min((p / NIBBLES_PER_WORD + 1) * NIBBLES_PER_WORD);
            let (mut cw, mut nw) = (0u64, 0u64);
            for q in p..stop {
                let (code, n, r) = DECODE[out[t] as usize];
                t += 1;
                most = most.max(r);
                cw |= (code as u64) << (2 * (q % CELLS_PER_WORD));
                nw |= (n as u64) << (4 * (q % NIBBLES_PER_WORD));
            }
            buf[(p / CELLS_PER_WORD - first_word) as usize] |= cw;
            nbuf[(p / NIBBLES_PER_WORD - first_nibble_word) as usize] |= nw;
            p = stop;
        }
        longest = longest.max(most as u32);
        (first_word, first_nibble_word, longest)
    }
}
/// ORs the cells and nibbles of `scores` (32 a cell word, 16 a nibble word, from a word's
/// first position) into `cells` and `nibbles`, as [`DECODE`] gives them; returns their largest
/// remoteness.
///
/// # Safety
/// The CPU has AVX2; `scores` holds `32 * cells.len()` bytes and `nibbles` two words a cell
/// word.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn pack_scores(scores: &[u8], cells: &mut [u64], nibbles: &mut [u64]) -> u8 {
    use std::arch::x86_64::*;
    const { assert!(WIN == 1 && LOSS == 2, "a win's code is 01, a loss's 10") };
    assert!(scores.len() == 32 * cells.len() && nibbles.len() == 2 * cells.len());
    let zero = _mm256_setzero_si256();
    let ones = _mm256_set1_epi8(-1);
    let low7 = _mm256_set1_epi8(0x7F);
    // A nibble byte's two positions: the first times 1 plus the second times 16.
    let pair = _mm256_set1_epi16(0x1001);
    let mut top = zero;
    for (k, chunk) in scores.chunks_exact(32).enumerate() {
        // SAFETY: 32 bytes.
        let x = unsafe { _mm256_loadu_si256(chunk.as_ptr() as *const __m256i) };
        // A score of 128 and more is a loss: remoteness `255 - score`, nibble half of it; a
        // win's remoteness is `score - 1`, its nibble `score / 2`.
        let lost = _mm256_cmpgt_epi8(zero, x);
        let flipped = _mm256_xor_si256(x, lost);
        top = _mm256_max_epu8(
            top,
            _mm256_add_epi8(flipped, _mm256_andnot_si256(lost, ones)),
        );
        let nib = _mm256_and_si256(_mm256_srli_epi16(flipped, 1), low7);
        let packed = _mm256_packus_epi16(_mm256_maddubs_epi16(nib, pair), zero);
        nibbles[2 * k] |= _mm256_extract_epi64(packed, 0) as u64;
        nibbles[2 * k + 1] |= _mm256_extract_epi64(packed, 2) as u64;
        let loss = super::plain_remoteness::spread2(_mm256_movemask_epi8(x) as u32 as u64);
        cells[k] |= (0x5555_5555_5555_5555 ^ loss) | loss << 1;
    }
    let half = _mm_max_epu8(
        _mm256_castsi256_si128(top),
        _mm256_extracti128_si256(top, 1),
    );
    let mut bytes = [0u8; 16];
    // SAFETY: 16 bytes.
    unsafe { _mm_storeu_si128(bytes.as_mut_ptr() as *mut __m128i, half) };
    bytes.into_iter().max().unwrap_or(0)
}

/// A task's working memory for one row.
struct Scratch {
    ends: Ends,
    /// The row's scores by column (only its classes' columns are written, then read).
    score: Vec<u8>,
    /// The best key child's score, by rank, of class A and class B.
    kbest: [Vec<u8>; 2],
    /// A child row's scores, of one class, in rank order.
    child: Vec<u8>,
    /// The row's scores in its order (class A's ranks, then class B's).
    out: Vec<u8>,
    /// The row's cells and nibbles as the table's words.
    buf: Vec<u64>,
    nbuf: Vec<u64>,
    /// The board this scratch was made for: its planes' words and longest row.
    made_for: (usize, usize),
}

impl Scratch {
    fn new(f: &Facts, max_row: usize) -> Scratch {
        let n = 3usize.pow(f.lw);
        Scratch {
            ends: Ends::new(f),
            // Low children lie inside the range (a move fills an empty digit).
            score: vec![0; n],
            kbest: [Vec::new(), Vec::new()],
            child: Vec::new(),
            out: vec![0; max_row],
            buf: Vec::new(),
            nbuf: Vec::new(),
            made_for: (f.words, max_row),
        }
    }
}

#[cfg(test)]
mod tests;
