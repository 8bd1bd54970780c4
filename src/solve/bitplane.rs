//! The bit-parallel tier step for games that are a [`PlainBoard`]: values only, many positions
//! at a time.
//!
//! A configuration is a row (the digits of the cells above the lowest [`LOW`]) and a column
//! (the lowest cells' digits, `0..3^LOW`). For each mover the engine keeps a *loss plane*: one
//! bit per configuration, set when that mover, to move there, loses. A row of a plane is
//! `3^LOW` bits, so the children of every configuration of a row through one cell are one
//! shifted copy of a row: a high cell's move goes to another row at the same columns, a low
//! cell `e`'s move to the same row, `3^e` (Left) or `2 * 3^e` (Right) columns on. Deciding tier
//! `t` for a row is then, per cell, a handful of word operations over the row, masked to the
//! columns whose cell is empty and whose configurations are in the tier:
//!
//! ```text
//! Left to move loses  = in tier & !(Left has won) & (Right has won | no child where Right loses)
//! Right to move loses = in tier & (Left has won | !(Right has won) & no child where Left loses)
//! ```
//!
//! The ends are tested a configuration at a time (two lookups in the board's join table) and the
//! tier's decisions are written to the cells as each row finishes, so after every tier the cells
//! hold exactly what the generic kernel would have written (checkpoints work unchanged).
//!
//! Invariant: while tier `t` is decided, a row's planes are written only by the task that owns
//! the row, and only at tier `t`'s bits; other tasks read only tier `t + 1`'s bits of it.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::tiered::{Solved, TierDone};
use super::{SolveOptions, SolveStats};
use crate::game::{PlainBoard, digit_masks};
use crate::table::cells::{self, Cells};

/// Cells in a row's columns: `3^8 = 6561` columns, 103 words a row and plane (and a column's
/// cells fit a byte).
pub(super) const LOW: u32 = 8;

/// Rows a task takes at a time.
const ROWS_PER_UNIT: u64 = 8;

/// A column: its number and each player's cells among the low ones.
#[derive(Clone, Copy)]
pub(super) struct Column {
    pub p: u16,
    pub left: u8,
    pub right: u8,
}

/// The columns' fixed facts: each one's cells, and the word masks of the columns with a given
/// number of filled cells and with a given cell empty.
pub(super) struct Columns {
    low: u32,
    /// `3^low`.
    columns: usize,
    /// Words per row.
    words: usize,
    /// The columns with `c` filled cells, in increasing order.
    pub by_count: Vec<Vec<Column>>,
    /// `in_count[c]`: bit `p` set when column `p` has `c` filled cells.
    in_count: Vec<Vec<u64>>,
    /// `empty[e]`: bit `p` set when column `p` has cell `e` empty.
    empty: Vec<Vec<u64>>,
}

impl Columns {
    pub fn new(low: u32) -> Columns {
        let n = 3usize.pow(low);
        let words = n.div_ceil(64);
        let mut by_count = vec![Vec::new(); low as usize + 1];
        let mut in_count = vec![vec![0u64; words]; low as usize + 1];
        let mut empty = vec![vec![0u64; words]; low as usize];
        for p in 0..n {
            let (l, r) = digit_masks(p as u64, low);
            for (i, e) in empty.iter_mut().enumerate() {
                if (l | r) >> i & 1 == 0 {
                    e[p / 64] |= 1 << (p % 64);
                }
            }
            let c = (l | r).count_ones() as usize;
            by_count[c].push(Column {
                p: p as u16,
                left: l as u8,
                right: r as u8,
            });
            in_count[c][p / 64] |= 1 << (p % 64);
        }
        Columns {
            low,
            columns: n,
            words,
            by_count,
            in_count,
            empty,
        }
    }
}

/// A row of a plane read `s` columns on: word `w` holds the bits of columns `s + 64 w ..`.
struct Window<'a> {
    src: &'a [AtomicU64],
    shift: u32,
}

impl<'a> Window<'a> {
    /// The row that starts at word `base`, `s` columns on, `words` words of it.
    #[inline(always)]
    fn new(plane: &'a [AtomicU64], base: usize, s: usize, words: usize) -> Window<'a> {
        let from = base + s / 64;
        Window {
            src: &plane[from..from + words + 1],
            shift: (s % 64) as u32,
        }
    }

    #[inline(always)]
    fn get(&self, w: usize) -> u64 {
        let lo = self.src[w].load(Ordering::Relaxed);
        if self.shift == 0 {
            lo
        } else {
            let hi = self.src[w + 1].load(Ordering::Relaxed);
            (lo >> self.shift) | (hi << (64 - self.shift))
        }
    }
}

/// Bytes the loss planes take for a board of `cells` cells.
pub fn memory_estimate(cells: u32) -> u64 {
    let low = cells.min(LOW);
    let words = 3u64.pow(low).div_ceil(64);
    let rows = 3u64.pow(cells - low);
    2 * (rows * words + pad(low) as u64) * 8
}

/// Words past a plane's last row, so a shifted read of the last row stays inside.
fn pad(low: u32) -> usize {
    (2 * 3usize.pow(low.saturating_sub(1))).div_ceil(64) + 2
}

/// Solves every tier of `board` into `cells` (all undecided), calling `after` after each tier
/// as the tiered engine does; `None` when `after` stopped the solve.
pub fn solve(
    board: &PlainBoard<'_>,
    cells: &Cells<'_>,
    opts: &SolveOptions,
    after: &mut impl FnMut(TierDone<'_>) -> crate::Result<bool>,
) -> crate::Result<Option<Solved>> {
    let e = board.cells;
    let low = e.min(LOW);
    let cols = Columns::new(low);
    let words = cols.words;
    let rows = 3u64.pow(e - low);
    let row_cells = 3u64.pow(low);
    let plane_words = rows as usize * words + pad(low);
    let planes = [
        crate::table::cells::zeroed_words(plane_words as u64),
        crate::table::cells::zeroed_words(plane_words as u64),
    ];
    let size = 2 * rows * row_cells;
    assert_eq!(cells.len(), size, "cells must match the board");
    let progress = opts.bar(size);
    let units = rows.div_ceil(ROWS_PER_UNIT);
    let pow3: Vec<u64> = (0..=e).map(|i| 3u64.pow(i)).collect();

    for t in (0..=e).rev() {
        progress.set_message(format!("tier {t} of {}", e + 1));
        let positions: u64 = (0..units)
            .into_par_iter()
            .map(|unit| {
                let mut done = 0u64;
                if opts.stop.requested() {
                    return done;
                }
                let mut scratch = Scratch::new(words);
                for row in unit * ROWS_PER_UNIT..((unit + 1) * ROWS_PER_UNIT).min(rows) {
                    done += decide_row(board, &cols, &planes, &pow3, row, t, &mut scratch, cells);
                }
                progress.inc(done);
                done
            })
            .sum();
        // A stopped tier is incomplete: neither a checkpoint nor the next tier may use it.
        opts.stop.check()?;
        let go_on = after(TierDone {
            tier: t,
            rounds: None,
            positions,
            remoteness: &[],
        })?;
        if !go_on && t > 0 {
            return Ok(None);
        }
    }
    progress.set_position(size);
    Ok(Some(Solved {
        stats: SolveStats {
            counts: cells.counts(),
            rounds: None,
            parent_visits: 0,
            edges: None,
            child_probes: 0,
            remoteness: None,
        },
        remoteness: None,
    }))
}

/// A task's working words for one row.
struct Scratch {
    left_won: Vec<u64>,
    right_won: Vec<u64>,
    left_wins: Vec<u64>,
    right_wins: Vec<u64>,
}

impl Scratch {
    fn new(words: usize) -> Scratch {
        Scratch {
            left_won: vec![0; words],
            right_won: vec![0; words],
            left_wins: vec![0; words],
            right_wins: vec![0; words],
        }
    }
}

/// Decides the configurations of `row` in tier `t` and writes their cells; returns how many
/// positions it decided.
#[allow(clippy::too_many_arguments)]
#[inline]
fn decide_row(
    board: &PlainBoard<'_>,
    cols: &Columns,
    planes: &[Vec<AtomicU64>; 2],
    pow3: &[u64],
    row: u64,
    t: u32,
    s: &mut Scratch,
    cells: &Cells<'_>,
) -> u64 {
    let low = cols.low;
    let words = cols.words;
    // The row's own cells (bits low..) and its empty high cells.
    let (hl, hr) = digit_masks(row, board.cells - low);
    let (hl, hr) = (hl << low, hr << low);
    let all_high = ((1u64 << board.cells) - 1) & !((1u64 << low) - 1);
    let empty_high = all_high & !(hl | hr);
    let filled = (hl | hr).count_ones();
    let Some(c) = t.checked_sub(filled).filter(|&c| c <= low) else {
        return 0;
    };
    let in_tier = &cols.in_count[c as usize];
    let columns = &cols.by_count[c as usize];
    // Ends, a configuration at a time.
    s.left_won.iter_mut().for_each(|w| *w = 0);
    s.right_won.iter_mut().for_each(|w| *w = 0);
    let (left_won, right_won) = (&mut s.left_won[..words], &mut s.right_won[..words]);
    for col in columns {
        let (lw, rw) = board.won(hl | col.left as u64, hr | col.right as u64);
        let (w, bit) = ((col.p / 64) as usize, 1u64 << (col.p % 64));
        left_won[w] |= (lw as u64).wrapping_neg() & bit;
        right_won[w] |= (rw as u64).wrapping_neg() & bit;
    }
    // Children: Left's moves lead to Right to move (Right's loss plane), Right's to Left's.
    let [left_loses, right_loses] = planes;
    let base = row as usize * words;
    s.left_wins.iter_mut().for_each(|w| *w = 0);
    s.right_wins.iter_mut().for_each(|w| *w = 0);
    let (left_wins, right_wins) = (&mut s.left_wins[..words], &mut s.right_wins[..words]);
    let in_tier = &in_tier[..words];
    let mut high = empty_high;
    while high != 0 {
        let i = high.trailing_zeros();
        high &= high - 1;
        let step = pow3[(i - low) as usize] as usize;
        let lrow = &right_loses[base + step * words..][..words];
        let rrow = &left_loses[base + 2 * step * words..][..words];
        for ((((lw, rw), &m), a), b) in left_wins
            .iter_mut()
            .zip(right_wins.iter_mut())
            .zip(in_tier)
            .zip(lrow)
            .zip(rrow)
        {
            if m != 0 {
                *lw |= a.load(Ordering::Relaxed);
                *rw |= b.load(Ordering::Relaxed);
            }
        }
    }
    for (i, &step) in pow3[..low as usize].iter().enumerate() {
        let step = step as usize;
        let lsrc = Window::new(right_loses, base, step, words);
        let rsrc = Window::new(left_loses, base, 2 * step, words);
        for (w, (((lw, rw), &m), &empty)) in left_wins
            .iter_mut()
            .zip(right_wins.iter_mut())
            .zip(in_tier)
            .zip(&cols.empty[i][..words])
            .enumerate()
        {
            let m = m & empty;
            if m != 0 {
                *lw |= lsrc.get(w) & m;
                *rw |= rsrc.get(w) & m;
            }
        }
    }
    // This tier's bits of the row's planes: only this task writes them.
    for w in 0..words {
        let m = in_tier[w];
        if m == 0 {
            continue;
        }
        let (lw, rw) = (s.left_won[w], s.right_won[w]);
        let left_lost = m & !lw & (rw | !left_wins[w]);
        let right_lost = m & (lw | (!rw & !right_wins[w]));
        left_wins[w] = left_lost;
        right_wins[w] = right_lost;
        let (a, b) = (&left_loses[base + w], &right_loses[base + w]);
        a.store(a.load(Ordering::Relaxed) | left_lost, Ordering::Relaxed);
        b.store(b.load(Ordering::Relaxed) | right_lost, Ordering::Relaxed);
    }
    // And the cells: a cell word holds 16 configurations, a nibble each (Left to move's code,
    // then Right to move's). Column p is configuration first + p, nibble (first + p) % 16: the
    // row's sets moved up by that phase give each cell word's 16 bits in place, four to a word.
    let first = row * cols.columns as u64;
    let phase = (first % 16) as u32;
    let first_cw = first / 16;
    let last_cw = (first + cols.columns as u64 - 1) / 16;
    let moved = |set: &[u64], j: usize| -> u64 {
        let cur = if j < words { set[j] } else { 0 };
        if phase == 0 {
            cur
        } else {
            let prev = if j > 0 { set[j - 1] } else { 0 };
            (cur << phase) | (prev >> (64 - phase))
        }
    };
    let cell_words = cells.words();
    for j in 0..=words {
        let tier = moved(in_tier, j);
        if tier == 0 {
            continue;
        }
        let (ll, rl) = (moved(left_wins, j), moved(right_wins, j));
        for q in 0..4u32 {
            let t16 = tier >> (16 * q) & 0xFFFF;
            if t16 == 0 {
                continue;
            }
            let (l16, r16) = (ll >> (16 * q) & 0xFFFF, rl >> (16 * q) & 0xFFFF);
            let left =
                (spread(t16 & !l16) * cells::WIN as u64) | (spread(t16 & l16) * cells::LOSS as u64);
            let right =
                (spread(t16 & !r16) * cells::WIN as u64) | (spread(t16 & r16) * cells::LOSS as u64);
            let cw = first_cw + 4 * j as u64 + q as u64;
            let at = &cell_words[cw as usize];
            if cw == first_cw || cw == last_cw {
                // Shared with the rows on either side, which other tasks may be writing.
                at.fetch_or(left | right << 2, Ordering::Relaxed);
            } else {
                at.store(
                    at.load(Ordering::Relaxed) | left | right << 2,
                    Ordering::Relaxed,
                );
            }
        }
    }
    2 * columns.len() as u64
}

/// Bit `j` of a 16-bit `x` moved to bit `4 * j`.
#[inline(always)]
fn spread(x: u64) -> u64 {
    SPREAD[(x & 0xFF) as usize] | SPREAD[(x >> 8 & 0xFF) as usize] << 32
}

/// `SPREAD[b]`: bit `j` of byte `b` at bit `4 * j`.
const SPREAD: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut j = 0;
        while j < 8 {
            if b >> j & 1 == 1 {
                t[b] |= 1 << (4 * j);
            }
            j += 1;
        }
        b += 1;
    }
    t
};
