//! The tier step with remoteness for games that are a [`PlainBoard`]: a configuration at a
//! time, both movers together, from the remoteness bytes alone.
//!
//! The generic kernel reaches a position's children through the game's walk and iterators; on
//! a plain board they are arithmetic: the children of configuration `c` through empty cell `i`
//! are positions `2 (c + 3^i) + 1` (Left claimed it, Right to move) and `2 (c + 2 * 3^i)` (Right
//! claimed it). The walk is the bit-parallel step's: rows of `3^8` columns, a row's columns of
//! tier `t` listed in increasing order, so the cells of a row are written in order through a
//! [`cells::Batch`]. A position's byte is the engine's (`2 * (remoteness + 1) + lost`, see
//! [`super::tiered`]), so the table, the checkpoints and a resumed solve are exactly the generic
//! kernel's.

use std::sync::atomic::{AtomicU8, AtomicU32, AtomicU64, Ordering};

use rayon::prelude::*;

use super::bitplane::{Columns, LOW};
use super::tiered::{AnonBytes, TierDone};
use crate::game::{PlainBoard, digit_masks};
use crate::table::cells::{self, Cells};

/// Rows a task takes at a time.
const ROWS_PER_UNIT: u64 = 4;

/// What a solve reports besides the cells and bytes it wrote.
pub struct Counts {
    pub rounds: u32,
    pub edges: u64,
}

/// Solves every tier of `board` into `cells` (all undecided) and `rem` (all zero, a byte per
/// position), calling `after` after each tier as the tiered engine does; `None` when `after`
/// stopped the solve.
pub fn solve(
    board: &PlainBoard<'_>,
    cells: &Cells<'_>,
    rem: &AnonBytes,
    progress: &indicatif::ProgressBar,
    stop: &super::Stop,
    after: &mut impl FnMut(TierDone<'_>) -> crate::Result<bool>,
) -> crate::Result<Option<Counts>> {
    let e = board.cells;
    let low = e.min(LOW);
    let cols = Columns::new(low);
    let rows = 3u64.pow(e - low);
    let row_configs = 3u64.pow(low);
    assert_eq!(
        cells.len(),
        2 * rows * row_configs,
        "cells must match the board"
    );
    let bytes = rem.atomics();
    // Per cell: how far on a claim moves a position's index (Left's claim lands on Right to
    // move, so one more).
    // 64 entries, so a cell number masked to 6 bits needs no bounds check.
    let mut left_step = [0usize; 64];
    let mut right_step = [0usize; 64];
    for i in 0..e as usize {
        left_step[i] = 2 * 3usize.pow(i as u32) + 1;
        right_step[i] = 4 * 3usize.pow(i as u32);
    }
    let units = rows.div_ceil(ROWS_PER_UNIT);
    let rounds = AtomicU32::new(0);
    let edges = AtomicU64::new(0);
    for t in (0..=e).rev() {
        progress.set_message(format!("tier {t} of {}", e + 1));
        let positions: u64 = (0..units)
            .into_par_iter()
            .map(|unit| {
                if stop.requested() {
                    return 0;
                }
                let mut task = Task {
                    board,
                    bytes,
                    batch: cells::Batch::new(*cells),
                    left_step: &left_step,
                    right_step: &right_step,
                    rounds: 0,
                    edges: 0,
                };
                let mut done = 0;
                for row in unit * ROWS_PER_UNIT..((unit + 1) * ROWS_PER_UNIT).min(rows) {
                    let (hl, hr) = digit_masks(row, e - low);
                    let filled = (hl | hr).count_ones();
                    let Some(c) = t.checked_sub(filled).filter(|&c| c <= low) else {
                        continue;
                    };
                    let base = row * row_configs;
                    for col in &cols.by_count[c as usize] {
                        let config = base + col.p as u64;
                        let l = hl << low | col.left as u64;
                        let r = hr << low | col.right as u64;
                        task.decide(config, l, r);
                    }
                    done += 2 * cols.by_count[c as usize].len() as u64;
                }
                task.batch.flush();
                rounds.fetch_max(task.rounds as u32, Ordering::Relaxed);
                edges.fetch_add(task.edges, Ordering::Relaxed);
                progress.inc(done);
                done
            })
            .sum();
        // A stopped tier is incomplete: neither a checkpoint nor the next tier may use it.
        stop.check()?;
        let go_on = after(TierDone {
            tier: t,
            rounds: Some(rounds.load(Ordering::Relaxed)),
            positions,
            remoteness: bytes,
        })?;
        if !go_on && t > 0 {
            return Ok(None);
        }
    }
    Ok(Some(Counts {
        rounds: rounds.into_inner(),
        edges: edges.into_inner(),
    }))
}

/// One task's view: the bytes it reads and writes, and its tallies.
struct Task<'a, 'b> {
    board: &'a PlainBoard<'a>,
    bytes: &'a [AtomicU8],
    batch: cells::Batch<'b>,
    left_step: &'a [usize; 64],
    right_step: &'a [usize; 64],
    /// The largest byte-encoded remoteness (`remoteness + 1`) stored.
    rounds: u8,
    edges: u64,
}

impl Task<'_, '_> {
    /// Decides configuration `config` (Left's cells `l`, Right's `r`) for both movers.
    #[inline(always)]
    fn decide(&mut self, config: u64, l: u64, r: u64) {
        let at = 2 * config as usize;
        let (left_won, right_won) = self.board.won(l, r);
        // Codes and bytes for Left to move, then Right to move.
        let (codes, left_byte, right_byte) = if left_won {
            (cells::WIN | cells::LOSS << 2, 2, 3)
        } else if right_won {
            (cells::LOSS | cells::WIN << 2, 3, 2)
        } else {
            let empty = ((1u64 << self.board.cells) - 1) & !(l | r);
            self.edges += 2 * empty.count_ones() as u64;
            let a = self.best(at, empty, self.left_step);
            let b = self.best(at, empty, self.right_step);
            (a.0 | b.0 << 2, a.1, b.1)
        };
        self.bytes[at].store(left_byte, Ordering::Relaxed);
        self.bytes[at + 1].store(right_byte, Ordering::Relaxed);
        self.rounds = self.rounds.max(left_byte >> 1).max(right_byte >> 1);
        self.batch.decide(at as u64, codes);
    }

    /// The code and byte of the position at `at` whose moves claim the cells of `empty`, each
    /// landing `step[i]` positions on: a win `1 + min` over lost children, else a loss
    /// `1 + max` over the (won) children.
    ///
    /// One maximum, no branch on the children's values: a child with `r = remoteness + 1`
    /// counts as `r` when won and as `255 - r` when lost (above any won child's, as `r` is at
    /// most 127, and larger the quicker the loss).
    #[inline(always)]
    fn best(&self, at: usize, empty: u64, step: &[usize; 64]) -> (u8, u8) {
        let mut key = 0u8;
        let mut e = empty;
        while e != 0 {
            let i = e.trailing_zeros() as usize & 63;
            e &= e - 1;
            let b = self.bytes[at + step[i]].load(Ordering::Relaxed);
            key = key.max((b >> 1) ^ 0u8.wrapping_sub(b & 1));
        }
        if key >= 128 {
            (cells::WIN, 2 * (255 - key + 1))
        } else {
            (cells::LOSS, 2 * (key + 1) + 1)
        }
    }
}
