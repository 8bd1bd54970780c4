//! The row kernel for games in the sliced index ([`SlicedBoard`]): values only, one row at a time.
//!
//! A row holds every position with one key (the contents of the key cells); its moves into
//! low cells stay in the row (one more filled low cell), its moves into key cells go to rows of
//! the next key tier. So the engine goes by key tiers, the fullest first, and decides each row
//! whole in a buffer of its own: the positions with the most filled low cells first, each one
//! reading its low children from the buffer (decided just before) and its key children from the
//! finished rows of the tier above, which are few (one per empty key cell and mover) and read
//! at the same low configuration mapped by one table lookup. A row's children thus lie in at
//! most `2 * key cells` rows, and a tier's rows read only the tier above: the build touches two
//! key tiers of the table at a time, front to back.
//!
//! Invariant: while key tier `k` is decided, a row's cells are written only by the task that
//! owns the row (once, when the row is done), and rows of tier `k + 1`, finished, are only read.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::tiered::{Solved, TierDone};
use super::{SolveOptions, SolveStats};
use crate::cells::{CELLS_PER_WORD, Cells, LOSS, WIN};
use crate::game::SlicedBoard;
use crate::games::cell::sliced::{Row, Sliced};

/// Rows a task takes at a time.
pub(crate) const ROWS_PER_UNIT: usize = 4;

/// Bytes the kernel keeps resident besides its tables: the cells of the two widest consecutive
/// key tiers (the tier decided and the one it reads), which the table's file mapping holds.
pub fn resident_bytes(s: &Sliced) -> u64 {
    (0..s.tier_rows.len())
        .map(|k| key_tier_len(s, k) + key_tier_len(s, k + 1))
        .max()
        .unwrap_or(0)
        .div_ceil(4)
        + tables_bytes(s)
}

/// The positions of key tier `k`.
pub(crate) fn key_tier_len(s: &Sliced, k: usize) -> u64 {
    s.tier_rows.get(k).map_or(0, |r| {
        s.rows[r.clone()].iter().map(|row| row.len as u64).sum()
    })
}

/// Makes the cells from `from` to the end undecided.
pub(crate) fn clear_from(cells: &Cells<'_>, from: u64) {
    let words = cells.words();
    let mut i = from;
    while i < cells.len() && !i.is_multiple_of(CELLS_PER_WORD) {
        cells.clear(i);
        i += 1;
    }
    let first = (i / CELLS_PER_WORD) as usize;
    words[first.min(words.len())..]
        .par_iter()
        .for_each(|w| w.store(0, Ordering::Relaxed));
}

/// The index's own tables: low configurations, ranks, permutations, rows.
pub fn tables_bytes(s: &Sliced) -> u64 {
    let low = 3u64.pow(s.low_digits());
    low * (16 + 4 + 4 + 4 * s.low_perm.len() as u64)
        + s.row_of_key.len() as u64 * 4
        + s.rows.len() as u64 * std::mem::size_of::<Row>() as u64
}

/// What every row shares: the child order and the low configurations' cells in it.
struct Facts {
    /// The order position of each cell.
    order_of: [u32; 64],
    /// Per order position: the low digit of that cell, or `u32::MAX` for a key cell.
    low_digit: [u32; 64],
    /// Each low configuration's filled cells as order positions.
    low_filled: Vec<u64>,
    all: u64,
}

impl Facts {
    fn new(board: &SlicedBoard<'_>) -> Facts {
        let s = board.index;
        let mut order_of = [0u32; 64];
        for (k, &c) in board.order.iter().enumerate() {
            order_of[c as usize] = k as u32;
        }
        let mut low_digit = [u32::MAX; 64];
        for (j, &c) in s.low_cells.iter().enumerate() {
            low_digit[order_of[c as usize] as usize] = j as u32;
        }
        let in_order = |set: u64| {
            let (mut out, mut rest) = (0u64, set);
            while rest != 0 {
                out |= 1 << order_of[rest.trailing_zeros() as usize];
                rest &= rest - 1;
            }
            out
        };
        let low_filled = s.low_masks.iter().map(|&(l, r)| in_order(l | r)).collect();
        let n = board.order.len() as u32;
        Facts {
            order_of,
            low_digit,
            low_filled,
            all: if n == 64 { u64::MAX } else { (1u64 << n) - 1 },
        }
    }

    fn in_order(&self, mut set: u64) -> u64 {
        let mut out = 0u64;
        while set != 0 {
            out |= 1 << self.order_of[set.trailing_zeros() as usize];
            set &= set - 1;
        }
        out
    }
}

/// The key tiers a solve from `done_from` decides and the tiers it reports as they complete;
/// the single-process solve and the one across ranks (`super::distributed::sliced`) share it, so
/// both report the same tiers with the same positions.
pub(crate) struct KeyTiers {
    /// The fullest key tier left (-1 when none is).
    pub first_key: i64,
    /// Positions of the key tiers left.
    pub todo: u64,
    /// A resumed solve: the first index of the rows to clear before deciding them again.
    pub clear_from: Option<u64>,
    /// The next tier (filled cells) to report.
    next: i64,
    low: u32,
}

impl KeyTiers {
    /// The plan of a solve of the tiers below `done_from` (the tier count for a fresh solve).
    ///
    /// A resumed solve starts at the key tier below the last complete one: tier `done_from`
    /// complete means every key tier from `done_from - low cells` up is, and the rows below (a
    /// contiguous end of the table, as rows are stored fullest key tier first) are cleared
    /// first, since an interrupted run may have written some of them.
    pub fn new(s: &Sliced, done_from: u32) -> KeyTiers {
        let lw = s.low_digits();
        let hw = s.key_digits();
        let tiers = s.tier_sizes.len() as u32;
        let done_from = done_from.min(tiers);
        // The key tiers left: those below `done_from - lw` (all of them for a fresh solve).
        let first_key = if done_from == tiers {
            hw as i64
        } else {
            done_from as i64 - lw as i64 - 1
        };
        let todo: u64 = (0..=first_key.max(-1))
            .filter(|&k| k >= 0)
            .map(|k| key_tier_len(s, k as usize))
            .sum();
        let clear_from = (done_from < tiers && first_key >= 0).then(|| {
            s.rows[s.tier_rows[first_key as usize].clone()]
                .first()
                .map_or(s.size(), |r| r.start)
        });
        KeyTiers {
            first_key,
            todo,
            clear_from,
            next: done_from as i64 - 1,
            low: lw,
        }
    }

    /// Reports to `after` the tiers that key tier `k`, just decided, completes: tier `t` is
    /// complete when key tier `t - low cells` is (every key tier for the tiers below), and the
    /// first tier a key tier completes reports that key tier's positions (the others none).
    /// `false` when `after` stopped the solve.
    pub fn finished(
        &mut self,
        s: &Sliced,
        k: u32,
        after: &mut impl FnMut(TierDone<'_>) -> crate::Result<bool>,
    ) -> crate::Result<bool> {
        let complete = if k == 0 { 0 } else { (k + self.low) as i64 };
        let mut positions = key_tier_len(s, k as usize);
        while self.next >= complete {
            let t = self.next as u32;
            self.next -= 1;
            let go_on = after(TierDone {
                tier: t,
                rounds: None,
                positions: std::mem::take(&mut positions),
                remoteness: &[],
            })?;
            if !go_on && t > 0 {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Reports the tiers a resumed solve found complete beyond its checkpoint (all but
    /// reported), once every key tier is decided.
    pub fn rest(
        &mut self,
        after: &mut impl FnMut(TierDone<'_>) -> crate::Result<bool>,
    ) -> crate::Result<()> {
        while self.next >= 0 {
            let t = self.next as u32;
            self.next -= 1;
            after(TierDone {
                tier: t,
                rounds: None,
                positions: 0,
                remoteness: &[],
            })?;
        }
        Ok(())
    }
}

/// Solves the tiers (filled cells) below `done_from` of `board` into `cells`; the tiers from
/// `done_from` up must be decided already (for a fresh solve, `done_from` is the tier count and
/// every cell undecided). Calls `after` for each tier, highest first, once all its positions
/// are decided ([`KeyTiers::finished`]). `None` when `after` stopped the solve.
///
/// A resumed solve starts at the key tier below the last complete one ([`KeyTiers::new`]).
pub fn solve(
    board: &SlicedBoard<'_>,
    cells: &Cells<'_>,
    done_from: u32,
    opts: &SolveOptions,
    after: &mut impl FnMut(TierDone<'_>) -> crate::Result<bool>,
) -> crate::Result<Option<Solved>> {
    let s = board.index;
    assert_eq!(cells.len(), s.size(), "cells must match the board");
    let kernel = RowKernel::new(board);
    let hw = s.key_digits();
    let mut plan = KeyTiers::new(s, done_from);
    if let Some(from) = plan.clear_from {
        clear_from(cells, from);
    }
    let progress = opts.bar(plan.todo);
    let probes = AtomicU64::new(0);
    for k in (0..=plan.first_key).rev() {
        let k = k as u32;
        progress.set_message(format!("key tier {k} of {}", hw + 1));
        let rows = &s.rows[s.tier_rows[k as usize].clone()];
        // One job a chunk: rows differ in cost by orders of magnitude, and rayon's default
        // splitting left one thread idle for minutes behind a long sequential run of rows.
        rows.par_chunks(ROWS_PER_UNIT)
            .with_max_len(1)
            .for_each_init(Vec::new, |buf, chunk| {
                if opts.stop.requested() {
                    return;
                }
                let mut n = 0;
                for row in chunk {
                    let (first_word, p) = kernel.decide(row, buf, cells);
                    n += p;
                    or_words(cells.words(), first_word, buf);
                }
                probes.fetch_add(n, Ordering::Relaxed);
                progress.inc(chunk.iter().map(|r| r.len as u64).sum());
            });
        // A stopped key tier is incomplete: neither a checkpoint nor the next tier may use it.
        opts.stop.check()?;
        if !plan.finished(s, k, after)? {
            return Ok(None);
        }
    }
    plan.rest(after)?;
    progress.set_position(s.size());
    Ok(Some(Solved {
        stats: SolveStats {
            counts: cells.counts(),
            rounds: None,
            parent_visits: 0,
            edges: None,
            child_probes: probes.into_inner(),
            remoteness: None,
        },
        remoteness: None,
    }))
}

/// ORs a decided row's words into `words` from word `first_word` on (the cells' words, or a
/// job's buffer), one `fetch_or` a nonzero word: the first and last may hold a neighbour row's
/// cells.
pub(crate) fn or_words(words: &[AtomicU64], first_word: u64, buf: &[u64]) {
    for (w, &bits) in buf.iter().enumerate() {
        if bits != 0 {
            words[first_word as usize + w].fetch_or(bits, Ordering::Relaxed);
        }
    }
}

/// Decides rows of a sliced board: what every row shares, made once.
pub(crate) struct RowKernel<'a> {
    board: SlicedBoard<'a>,
    facts: Facts,
}

impl<'a> RowKernel<'a> {
    pub fn new(board: &SlicedBoard<'a>) -> RowKernel<'a> {
        RowKernel {
            board: *board,
            facts: Facts::new(board),
        }
    }

    /// Decides `row` into `buf` (cleared first): its cells as the table's words from the
    /// returned word on (the first and last may have bits of the row only, to be ORed with a
    /// neighbour's); also returns the children read. Every row of the key tier above must be
    /// decided in `cells`, which the call only reads.
    pub fn decide(&self, row: &Row, buf: &mut Vec<u64>, cells: &Cells<'_>) -> (u64, u64) {
        let probes = decide_row(&self.board, &self.facts, row, buf, cells);
        (row.start / CELLS_PER_WORD, probes)
    }
}

/// Where a move into a key cell leads, for one mover: the start of the child row's class and
/// the permutation that makes the child's key canonical.
#[derive(Clone, Copy)]
struct KeyChild {
    base: u64,
    g: usize,
}

/// Decides one row into `buf`, as the table's words from the row's first word on; returns the
/// children read. Every row of the tier above is finished in `cells`.
fn decide_row(
    board: &SlicedBoard<'_>,
    facts: &Facts,
    row: &Row,
    buf: &mut Vec<u64>,
    cells: &Cells<'_>,
) -> u64 {
    let s = board.index;
    let joins = |set: u64| board.joins[(set >> 6) as usize] >> (set & 63) & 1 == 1;
    let (kl, kr) = s.key_masks(row.key);
    let key_filled = facts.in_order(kl | kr);
    let (a, b) = s.row_classes(kl, kr);
    // The key children of each mover, by order position.
    let none = KeyChild {
        base: u64::MAX,
        g: 0,
    };
    let mut key_children = [[none; 64]; 2];
    let mut digits = row.key;
    for (i, &c) in s.key_cells.iter().enumerate() {
        let d = digits % 3;
        digits /= 3;
        if d != 0 {
            continue;
        }
        for (m, add) in [(0usize, 1u64), (1, 2)] {
            let (canon, g) = s.canonical(row.key as u64 + add * s.pow3[i]);
            let Some(child) = s.rows.get(s.row_of_key[canon as usize] as usize) else {
                continue;
            };
            // Left's move leads to class B of the child row (Right to move), Right's to A.
            let base = child.start + if m == 0 { child.split as u64 } else { 0 };
            key_children[m][facts.order_of[c as usize] as usize] = KeyChild { base, g };
        }
    }
    // The row's cells in a buffer aligned to the table's words.
    let first_word = row.start / CELLS_PER_WORD;
    let end_word = (row.start + row.len as u64).div_ceil(CELLS_PER_WORD);
    buf.clear();
    buf.resize((end_word - first_word) as usize, 0);
    let origin = first_word * CELLS_PER_WORD;
    let split = row.start + row.split as u64;
    let lost_here = |buf: &[u64], i: u64| {
        let at = i - origin;
        buf[(at / CELLS_PER_WORD) as usize] >> ((at % CELLS_PER_WORD) * 2 + 1) & 1 == 1
    };
    let mut probes = 0u64;
    for c in (0..=s.low_digits() as usize).rev() {
        for (m, class, start, other) in [(0usize, a, row.start, split), (1, b, split, row.start)] {
            let Some(ranks) = class.by_count.get(c) else {
                continue;
            };
            let step = (m as u64 + 1) as u32;
            for rank in ranks.clone() {
                let v = class.list[rank as usize];
                let (ll, lr) = s.low_masks[v as usize];
                let (l, r) = (kl | ll, kr | lr);
                let left_won = joins(l);
                let code = if left_won || !joins(board.full & !r) {
                    // The game is over: a win for the winner to move.
                    if left_won == (m == 0) { WIN } else { LOSS }
                } else {
                    let mut empty = facts.all & !(key_filled | facts.low_filled[v as usize]);
                    let mut win = false;
                    while empty != 0 {
                        let k = empty.trailing_zeros() as usize;
                        empty &= empty - 1;
                        probes += 1;
                        let j = facts.low_digit[k];
                        let lost = if j != u32::MAX {
                            let child = v + step * s.pow3[j as usize] as u32;
                            lost_here(buf, other + s.rank[child as usize] as u64)
                        } else {
                            let kc = key_children[m][k];
                            let at = if kc.g == 0 {
                                rank
                            } else {
                                s.rank[s.low_image(kc.g, v) as usize]
                            };
                            cells.lost_of_decided(kc.base + at as u64)
                        };
                        if lost {
                            win = true;
                            break;
                        }
                    }
                    if win { WIN } else { LOSS }
                };
                let at = start + rank as u64 - origin;
                buf[(at / CELLS_PER_WORD) as usize] |= (code as u64) << ((at % CELLS_PER_WORD) * 2);
            }
        }
    }
    probes
}
