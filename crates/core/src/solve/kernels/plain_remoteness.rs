//! The solve with remoteness for games that are a [`PlainBoard`]: a configuration at a time,
//! both movers together, from the remoteness bytes alone.
//!
//! The generic kernel reaches a position's children through the game's walk and iterators; on
//! a plain board they are arithmetic: the children of configuration `c` through empty cell `i`
//! are positions `2 (c + 3^i) + 1` (Left claimed it, Right to move) and `2 (c + 2 * 3^i)` (Right
//! claimed it). The order is the bit-parallel step's: rows of `3^8` columns by levels (the
//! claims among a row's high cells, most first), each row decided whole, its columns with the
//! most claims first, so a row and the rows its high children lie in stay in the cache. A
//! position's byte is the engine's (`2 * (remoteness + 1) + lost`, see [`crate::solve::tiered`]), so
//! the table, the checkpoints and a resumed solve are exactly the generic kernel's.

use std::sync::atomic::{AtomicU8, AtomicU32, AtomicU64, Ordering};

use rayon::prelude::*;

use super::bitplane::{Columns, LOW};
#[cfg(target_arch = "x86_64")]
use super::plain_remoteness_avx2 as avx2;
use crate::base::cells::{self, Cells};
use crate::base::progress::Progress;
use crate::game::shape::{PlainBoard, digit_masks};
use crate::solve::finished::{AnonBytes, FinishedTiers, TierDone};
use crate::solve::{SolveOptions, SolveStats};

/// Rows a task takes at a time.
const ROWS_PER_UNIT: usize = 4;

/// What a solve reports besides the cells and bytes it wrote.
pub struct Counts {
    pub rounds: u32,
    pub edges: u64,
}

/// Solves every tier of `board` into `cells` (all undecided) and `rem` (all zero, a byte per
/// position), calling `after` after each tier as the tiered engine does; `None` when `after`
/// stopped the solve. Rows are decided 16 columns at a time with AVX2 where the CPU has
/// x86-64-v3 ([`crate::base::cpu::v3`]), a configuration at a time otherwise; the bytes are
/// the same.
pub fn solve(
    board: &PlainBoard<'_>,
    cells: &Cells<'_>,
    rem: &AnonBytes,
    progress: &dyn Progress,
    stop: &crate::solve::Stop,
    after: &mut impl FnMut(TierDone<'_>) -> crate::Result<bool>,
) -> crate::Result<Option<Counts>> {
    let avx2 = crate::base::cpu::v3();
    solve_with(board, cells, rem, progress, stop, avx2, after)
}

/// [`solve`], with AVX2 (`avx2`, which the CPU must have) or a configuration at a time.
fn solve_with(
    board: &PlainBoard<'_>,
    cells: &Cells<'_>,
    rem: &AnonBytes,
    progress: &dyn Progress,
    stop: &crate::solve::Stop,
    avx2: bool,
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
    let high = e - low;
    let mut levels: Vec<Vec<u64>> = vec![Vec::new(); high as usize + 1];
    for row in 0..rows {
        let (l, r) = digit_masks(row, high);
        levels[(l | r).count_ones() as usize].push(row);
    }
    let rounds = AtomicU32::new(0);
    let edges = AtomicU64::new(0);
    let mut finished = FinishedTiers::below(e + 1);
    #[cfg(target_arch = "x86_64")]
    let avx2_row = avx2.then(|| {
        let (cols, facts) = super::bitplane::shared_tables(low);
        avx2::Row {
            board,
            cols,
            facts,
            masks: avx2::EmptyMasks::shared(low),
            rem: bytes.as_ptr() as *mut u8,
            low,
            high,
        }
    });
    #[cfg(not(target_arch = "x86_64"))]
    let _ = avx2;
    for h in (0..=high).rev() {
        progress.step(&format!("level {h} of {}", high + 1));
        levels[h as usize].par_chunks(ROWS_PER_UNIT).for_each_init(
            || Task {
                board,
                bytes,
                left_step: &left_step,
                right_step: &right_step,
                rounds: 0,
                edges: 0,
                row_at: 0,
                lost: vec![0; (2 * row_configs as usize).div_ceil(64) + 1],
                #[cfg(target_arch = "x86_64")]
                avx2: avx2_row.as_ref().map(|r| (r, avx2::Scratch::new(low))),
            },
            |task, chunk| {
                if stop.requested() {
                    return;
                }
                (task.rounds, task.edges) = (0, 0);
                for &row in chunk {
                    task.row(&cols, cells, row, high, low);
                }
                rounds.fetch_max(task.rounds as u32, Ordering::Relaxed);
                edges.fetch_add(task.edges, Ordering::Relaxed);
                progress.advance(2 * row_configs * chunk.len() as u64);
            },
        );
        // A stopped level is incomplete: neither a checkpoint nor the next level may use it.
        stop.check()?;
        // Tier t is complete once every row with at least t - low claims is.
        let complete = if h == 0 { 0 } else { h + low };
        let positions = |t| 2 * super::bitplane::tier_configurations(e, t);
        let rounds_now = Some(rounds.load(Ordering::Relaxed));
        if !finished.complete_from(complete, positions, rounds_now, bytes, after)? {
            return Ok(None);
        }
    }
    Ok(Some(Counts {
        rounds: rounds.into_inner(),
        edges: edges.into_inner(),
    }))
}

/// For each run of `configs` configurations (the board's configurations cut into runs from the
/// first, the last run shorter), the tier whose report to [`solve`]'s `after` callback leaves
/// every position of the run final: no later work writes its bytes or cells. Rows are decided
/// by levels, most high claims first, and a level's rows are final once it is done: a row with
/// `h > 0` claims among its high cells when tier `h + low` is reported, the row with none when
/// tier 0 is. Reported tiers fall one at a time, so a run is final once a tier at most its
/// figure has been reported.
pub fn final_tiers(board: &PlainBoard<'_>, configs: u64) -> Vec<u32> {
    let e = board.cells;
    let low = e.min(LOW);
    let high = e - low;
    let row_configs = 3u64.pow(low);
    let runs = 3u64.pow(e).div_ceil(configs);
    let mut tiers = vec![u32::MAX; runs as usize];
    for row in 0..3u64.pow(high) {
        let (l, r) = digit_masks(row, high);
        let h = (l | r).count_ones();
        let tier = if h == 0 { 0 } else { h + low };
        let first = row * row_configs / configs;
        let last = ((row + 1) * row_configs - 1) / configs;
        for t in &mut tiers[first as usize..=last as usize] {
            *t = (*t).min(tier);
        }
    }
    tiers
}

/// The plain board's kernel with remoteness ([`crate::solve::plan::TieredKernel::PlainRemoteness`]), a fresh solve into
/// `cells` (all undecided) and `rem` (zeroed, a byte per position) that the caller holds: a
/// build reads the runs [`final_tiers`] calls final while the solve goes on.
/// `None` when `after` stopped the solve.
pub(crate) fn solve_counted(
    board: &PlainBoard<'_>,
    cells: &Cells<'_>,
    rem: &AnonBytes,
    opts: &SolveOptions,
    after: &mut impl FnMut(TierDone<'_>) -> crate::Result<bool>,
) -> crate::Result<Option<SolveStats>> {
    let size = cells.len();
    let progress = opts.begin_progress(size);
    let Some(counts) = solve(board, cells, rem, progress, &opts.stop, after)? else {
        return Ok(None);
    };
    progress.reach(size);
    Ok(Some(SolveStats {
        counts: cells.counts(),
        rounds: Some(counts.rounds),
        parent_visits: 0,
        edges: Some(counts.edges),
        child_probes: counts.edges,
        remoteness: None,
    }))
}

/// One task's view: the bytes it reads and writes, and its tallies.
struct Task<'a> {
    board: &'a PlainBoard<'a>,
    bytes: &'a [AtomicU8],
    left_step: &'a [usize; 64],
    right_step: &'a [usize; 64],
    /// The first position of the row being decided, and which of the row's positions are lost
    /// (bit `k` for position `row_at + k`).
    row_at: usize,
    lost: Vec<u64>,
    /// The largest byte-encoded remoteness (`remoteness + 1`) stored.
    rounds: u8,
    edges: u64,
    /// The rows' AVX2 step and this task's scratch for it, where the CPU has it.
    #[cfg(target_arch = "x86_64")]
    avx2: Option<(&'a avx2::Row<'a>, avx2::Scratch)>,
}

impl Task<'_> {
    /// Decides every configuration of `row` (of `high` high cells, `low` low ones) and writes
    /// its cells, 16 columns at a time where the CPU has AVX2.
    fn row(&mut self, cols: &Columns, cells: &Cells<'_>, row: u64, high: u32, low: u32) {
        #[cfg(target_arch = "x86_64")]
        if let Some((step, scratch)) = &mut self.avx2 {
            let row_configs = 3usize.pow(low);
            let at = 2 * row as usize * row_configs;
            self.lost.iter_mut().for_each(|w| *w = 0);
            // SAFETY: the task holds a step only where the CPU has AVX2; the row is this
            // task's for the level, and the level above is finished (`solve`'s order).
            let tally = unsafe { avx2::decide_row(step, row, scratch, &mut self.lost) };
            self.rounds = self.rounds.max(tally.max_byte >> 1);
            self.edges += tally.edges;
            row_cells(&self.lost, at, 2 * row_configs, cells);
            return;
        }
        self.row_body(cols, cells, row, high, low)
    }

    #[inline(always)]
    fn row_body(&mut self, cols: &Columns, cells: &Cells<'_>, row: u64, high: u32, low: u32) {
        let board = self.board;
        let row_configs = 3u64.pow(low);
        let task = self;
        let (hl, hr) = digit_masks(row, high);
        let base = row * row_configs;
        task.row_at = 2 * base as usize;
        task.lost.iter_mut().for_each(|w| *w = 0);
        // The ends: a table of each player's win over the low cells.
        let (left_by, right_by) = super::bitplane::ends_by(board, low, hl << low, hr << low);
        let bit = |t: &[u64; 4], a: u8| t[(a / 64) as usize] >> (a % 64) & 1 == 1;
        // The row's columns with the most claims first: a low cell's move stays in the
        // row, one claim up.
        for by in cols.by_count.iter().rev() {
            for col in by {
                let l = hl << low | col.left as u64;
                let r = hr << low | col.right as u64;
                let left_won = bit(&left_by, col.left);
                let right_won = !left_won && bit(&right_by, col.right);
                task.decide(base + col.p as u64, l, r, (left_won, right_won));
            }
        }
        // Then the row's cells.
        row_cells(
            &task.lost,
            2 * base as usize,
            2 * row_configs as usize,
            cells,
        );
    }

    /// Decides configuration `config` (Left's cells `l`, Right's `r`) for both movers.
    #[inline(always)]
    fn decide(&mut self, config: u64, l: u64, r: u64, (left_won, right_won): (bool, bool)) {
        let at = 2 * config as usize;
        // Bytes for Left to move, then Right to move.
        let (left_byte, right_byte) = if left_won {
            (2, 3)
        } else if right_won {
            (3, 2)
        } else {
            let empty = ((1u64 << self.board.cells) - 1) & !(l | r);
            self.edges += 2 * empty.count_ones() as u64;
            self.best(at, empty)
        };
        self.store(at, left_byte, right_byte);
        self.rounds = self.rounds.max(left_byte >> 1).max(right_byte >> 1);
    }

    /// Stores the bytes of the positions at `at` and `at + 1`, and notes which are lost.
    #[inline(always)]
    fn store(&mut self, at: usize, left_byte: u8, right_byte: u8) {
        self.bytes[at].store(left_byte, Ordering::Relaxed);
        self.bytes[at + 1].store(right_byte, Ordering::Relaxed);
        let k = at - self.row_at;
        self.lost[k / 64] |= ((left_byte & 1) as u64 | ((right_byte & 1) as u64) << 1) << (k % 64);
    }

    /// The bytes of the positions of the configuration at `at` (Left to move, Right to move)
    /// whose moves claim the cells of `empty`, each landing `left_step[i]` (`right_step[i]`)
    /// positions on: a win `1 + min` over lost children, else a loss `1 + max` over the (won)
    /// children.
    ///
    /// One maximum, no branch on the children's values: a child with `r = remoteness + 1`
    /// counts as `r` when won and as `255 - r` when lost (above any won child's, as `r` is at
    /// most 127, and larger the quicker the loss).
    #[inline(always)]
    fn best(&self, at: usize, empty: u64) -> (u8, u8) {
        let (mut left, mut right) = (0u8, 0u8);
        let mut e = empty;
        while e != 0 {
            let i = e.trailing_zeros() as usize & 63;
            e &= e - 1;
            let a = self.bytes[at + self.left_step[i]].load(Ordering::Relaxed);
            let b = self.bytes[at + self.right_step[i]].load(Ordering::Relaxed);
            left = left.max(key(a));
            right = right.max(key(b));
        }
        (byte_of(left), byte_of(right))
    }
}

/// A child's key for its parent (`b` its byte, `2 * (remoteness + 1) + lost`): the
/// remoteness plus one when won, 255 minus that when lost (above any won child's, as the
/// remoteness is at most 126, and larger the quicker the loss), 0 for none.
#[inline(always)]
pub(super) fn key(b: u8) -> u8 {
    (b >> 1) ^ 0u8.wrapping_sub(b & 1)
}

/// A position's byte from the largest key over its children: a win one more than the
/// quickest lost child's remoteness, else a loss one more than the slowest won child's (a
/// loss at once where it has none, key 0).
#[inline(always)]
pub(super) fn byte_of(key: u8) -> u8 {
    if key >= 128 {
        2 * (255 - key + 1)
    } else {
        2 * (key + 1) + 1
    }
}

/// Writes the cells of positions `from..from + n`, lost where bit `k` of `lost` is set for
/// position `from + k`, else won (a plain board has no draws), a cell word at a time; the first
/// and the last word may hold other rows' cells, which other tasks may be writing.
#[inline(always)]
fn row_cells(lost: &[u64], from: usize, n: usize, cells: &Cells<'_>) {
    const PER: usize = cells::CELLS_PER_WORD as usize;
    const _: () = assert!(cells::WIN == 1 && cells::LOSS == 2);
    let words = cells.words();
    let (first, last) = (from / PER, (from + n - 1) / PER);
    for (w, word) in words.iter().enumerate().take(last + 1).skip(first) {
        let lo = (w * PER).max(from);
        let hi = ((w + 1) * PER).min(from + n);
        // Bits lo - from .. hi - from of `lost` (at most 32, so two words at most).
        let k = lo - from;
        let (q, r) = (k / 64, k % 64);
        let mut got = lost[q] >> r;
        if r > 0 {
            got |= lost[q + 1] << (64 - r);
        }
        let len = hi - lo;
        let shift = lo - w * PER;
        let present = ((1u64 << len) - 1) << shift;
        let lost_here = (got & ((1u64 << len) - 1)) << shift;
        // Win 01, loss 10.
        let bits = spread2(lost_here) << 1 | spread2(present & !lost_here);
        if w == first || w == last {
            word.fetch_or(bits, Ordering::Relaxed);
        } else {
            word.store(bits, Ordering::Relaxed);
        }
    }
}

/// Bit `j` of a 32-bit `x` moved to bit `2 * j` (a cell word's low bits).
#[inline(always)]
pub(super) fn spread2(x: u64) -> u64 {
    let mut x = x & 0xFFFF_FFFF;
    x = (x | x << 16) & 0x0000_FFFF_0000_FFFF;
    x = (x | x << 8) & 0x00FF_00FF_00FF_00FF;
    x = (x | x << 4) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | x << 2) & 0x3333_3333_3333_3333;
    (x | x << 1) & 0x5555_5555_5555_5555
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Tiered;
    use crate::games::{AnyGame, Input};
    use crate::solve::finished::{AnonBytes, TierDone};

    /// The 3 x 3 grid of vertices, corner to corner: 12 edges, 4 high cells of 12.
    const GRID: &str =
        "terminals 0 8\n0 1\n1 2\n3 4\n4 5\n6 7\n7 8\n0 3\n3 6\n1 4\n4 7\n2 5\n5 8\n";

    /// `game`'s plain board, and the zeroed cell words and engine bytes a solve of it takes.
    fn board_of(game: &AnyGame) -> (PlainBoard<'_>, Vec<AtomicU64>, AnonBytes) {
        let shape = crate::with_tiered_game!(game, g => g.board_shape(), _ => None);
        let board = shape
            .and_then(crate::game::shape::BoardShape::plain)
            .unwrap();
        let size = game.size();
        let words = cells::zeroed_words(cells::words_for(size));
        (board, words, AnonBytes::new(size).unwrap())
    }

    /// The bytes, cells and tallies of a solve of `game`, 16 columns at a time (`avx2`) or a
    /// configuration at a time.
    fn solved(game: &AnyGame, avx2: bool) -> (Vec<u8>, Vec<u8>, u32, u64) {
        let (board, words, rem) = board_of(game);
        let size = game.size();
        let table = Cells::new(&words, size);
        let counts = solve_with(
            &board,
            &table,
            &rem,
            &crate::base::progress::Silent,
            &crate::solve::Stop::new(),
            avx2,
            &mut |_| Ok(true),
        )
        .unwrap()
        .unwrap();
        let got = (0..size).map(|i| table.get(i)).collect();
        (rem.bytes().to_vec(), got, counts.rounds, counts.edges)
    }

    /// The AVX2 rows decide every position as the scalar ones do (remoteness, value, the
    /// largest remoteness and the edges): boards whose rows have fewer low cells than a vector
    /// needs (hex:1, hex:2: only single columns, or a vector and one), whole rows of 3^8
    /// columns, and several levels of high cells.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_rows_decide_as_the_scalar_rows() {
        // Without AVX2 the scalar rows alone are used: there is nothing to compare.
        if !crate::base::cpu::v3() {
            return;
        }
        let games = [
            ("hex:1", None),
            ("hex:2", None),
            ("bridgit:2", None),
            ("hex:3", None),
            ("shannon:grid3x3.txt", Some(GRID)),
        ];
        for (spec, text) in games {
            let input = text.map_or(Input::Disk, |t| Input::Embedded(t.as_bytes()));
            let game = AnyGame::load(spec, input, u64::MAX).unwrap();
            let (bytes, got, rounds, edges) = solved(&game, false);
            let (bytes2, got2, rounds2, edges2) = solved(&game, true);
            let differ = (0..bytes.len()).find(|&i| bytes[i] != bytes2[i] || got[i] != got2[i]);
            assert!(
                differ.is_none(),
                "{spec}: position {} has byte {} and cell {} a configuration at a time, {} \
                 and {} with AVX2",
                differ.unwrap_or(0),
                bytes[differ.unwrap_or(0)],
                got[differ.unwrap_or(0)],
                bytes2[differ.unwrap_or(0)],
                got2[differ.unwrap_or(0)],
            );
            assert!(
                bytes.iter().all(|&b| b >= 2),
                "{spec}: every position decided"
            );
            assert_eq!((rounds, edges), (rounds2, edges2), "{spec}");
        }
    }

    /// Every run [`final_tiers`] calls final when a tier is reported holds, from then on, the
    /// bytes and cells the finished solve has; and most runs are final before the last tier.
    #[test]
    fn runs_are_final_once_their_tier_is_reported() {
        let game = AnyGame::load(
            "shannon:grid3x3.txt",
            Input::Embedded(GRID.as_bytes()),
            u64::MAX,
        )
        .unwrap();
        let (board, words, rem) = board_of(&game);
        let size = game.size();
        let table = Cells::new(&words, size);
        // Runs that cut rows, runs of whole rows, and one run.
        for configs in [1000, 3u64.pow(LOW), 1 << 20] {
            words.iter().for_each(|w| w.store(0, Ordering::Relaxed));
            rem.atomics()
                .iter()
                .for_each(|b| b.store(0, Ordering::Relaxed));
            let finals = final_tiers(&board, configs);
            assert_eq!(finals.len() as u64, 3u64.pow(board.cells).div_ceil(configs));
            let positions =
                |k: usize| 2 * k as u64 * configs..(2 * (k as u64 + 1) * configs).min(size);
            let mut seen: Vec<Option<(Vec<u8>, Vec<u8>)>> = vec![None; finals.len()];
            let mut early = 0;
            let mut after = |done: TierDone<'_>| {
                for (k, s) in seen.iter_mut().enumerate() {
                    if s.is_none() && finals[k] >= done.tier {
                        early += usize::from(done.tier > 0);
                        let p = positions(k);
                        let bytes = p
                            .clone()
                            .map(|i| done.remoteness[i as usize].load(Ordering::Relaxed));
                        *s = Some((bytes.collect(), p.map(|i| table.get(i)).collect()));
                    }
                }
                Ok(true)
            };
            solve(
                &board,
                &table,
                &rem,
                &crate::base::progress::Silent,
                &crate::solve::Stop::new(),
                &mut after,
            )
            .unwrap()
            .unwrap();
            for (k, s) in seen.iter().enumerate() {
                let p = positions(k);
                let bytes: Vec<u8> = p.clone().map(|i| rem.bytes()[i as usize]).collect();
                let got: Vec<u8> = p.map(|i| table.get(i)).collect();
                let (then_bytes, then_cells) = s.as_ref().expect("every run is final at the end");
                let changed = (0..bytes.len())
                    .find(|&i| then_bytes[i] != bytes[i] || then_cells[i] != got[i]);
                assert!(
                    changed.is_none(),
                    "run {k} of {configs} configurations: position {} changed after tier {}",
                    2 * k as u64 * configs + changed.unwrap_or(0) as u64,
                    finals[k]
                );
            }
            if finals.len() > 1 {
                assert!(
                    2 * early > finals.len(),
                    "{early} of {} runs final early",
                    finals.len()
                );
            }
        }
    }
}
