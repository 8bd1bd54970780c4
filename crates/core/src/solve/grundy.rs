//! The generalized Sprague-Grundy labelling (Fraenkel and Yesha's algorithm, run as retrograde
//! rounds): the value of every position of an impartial game, cycles included
//! ([`crate::base::grundy`], docs/SUMS.md).
//!
//! Stage `m` labels the positions of value `m`, the way the counter engine labels losses.
//! Positions still open at its start have followers of every value below `m`. A follower
//! labelled `m` *marks* its open and infinite parents (they can move to `m`); an open position
//! is labelled `m` when none of its followers is labelled `m` and every follower still open or
//! infinite is marked — so any move to a larger or infinite value can be answered by a move
//! back to `m`, as the definition asks. It counts those followers (`stage_count`), and the task
//! that marks the last of them labels it. Seeds are the open positions all of whose followers
//! have smaller values (`count`, the followers without a finite value, is zero). When the
//! rounds stop, an open position that was not marked has no follower of value `m`, so it can
//! have no finite value at all: it is infinite, with the finite values below `m` in reach and
//! those of the later stages that mark it. Marked ones go on to stage `m + 1`. The labelling
//! ends when no position is left open (at the latest after a stage that labels nothing).
//!
//! Stage 0 is the counter engine's solve itself (labelled 0: lost; marked: won; left over:
//! drawn), so a build that has solved the game hands its cells over and the labelling starts
//! at stage 1 ([`label`]'s `solved`).
//!
//! Invariant: within a stage a position is labelled or marked, never both, decided once by a
//! `fetch_or` on its 2-bit stage cell (as the counter engine decides wins and losses) — so the
//! values are the same for every thread count, as the function's uniqueness says they must be.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, AtomicU16, AtomicU32, AtomicU64, Ordering};

use rayon::prelude::*;

use super::SolveOptions;
use super::counter::{Counter, counter_width};
use crate::base::cells::{self, Cells};
use crate::base::error::{Error, Result};
use crate::base::grundy::{Labels, StageReport};
use crate::base::progress::Progress;
use crate::game::{Game, Status};

/// Positions handed to one task at a time.
const CHUNK: usize = 4096;

/// A position's kind, in a 2-bit cell that goes from open to one of the others once.
const OPEN: u8 = 0;
const FINITE: u8 = 1;
const INFINITE: u8 = 2;
const UNUSED: u8 = 3;

/// A position's stage cell: what the current stage decided about it (reset every stage).
const MARKED: u8 = 1;
const LABELLED: u8 = 2;

/// The largest stage (and value) the labelling runs to: codes must stay below `u32::MAX`.
const MAX_STAGE: u32 = u32::MAX - 2;

/// A frontier entry's flag: the position was marked (else it was labelled).
const MARK_FLAG: u64 = 1 << 63;

/// Bytes the labelling needs for a game of `size` positions whose positions have at most
/// `max_children` moves, besides the game and the solve's cells: the codes, two counters and two
/// 2-bit cells a position, the frontiers and open lists, and the records of infinite positions
/// (at most one a position and one per later mark; counted as one each).
pub fn memory_estimate(size: u64, max_children: u64) -> u64 {
    let counters = 2 * counter_width(max_children);
    size.saturating_mul(4 + counters + 16 + 8 + 16)
        .saturating_add(2 * size.div_ceil(4))
}

/// What one task found in a round.
#[derive(Default)]
struct Piece {
    /// Labelled and marked positions (the latter flagged [`MARK_FLAG`]): the next frontier.
    next: Vec<u64>,
    /// Open positions marked: the next stage's open positions.
    marked_open: Vec<u64>,
    /// Infinite positions marked (position, stage): values they reach.
    reached: Vec<(u64, u32)>,
    visits: u64,
}

/// Labels every position of the impartial game `game` (every position open or unused: a player
/// who cannot move loses) with its generalized Sprague-Grundy value. `solved`, when given, is
/// the counter engine's solve of the game (all of its cells decided): it is stage 0, and the
/// labelling starts at stage 1.
pub fn label<G: Game>(game: &G, opts: &SolveOptions, solved: Option<&Cells<'_>>) -> Result<Labels> {
    match counter_width(game.max_children()) {
        1 => run::<G, AtomicU8>(game, opts, solved),
        2 => run::<G, AtomicU16>(game, opts, solved),
        4 => run::<G, AtomicU32>(game, opts, solved),
        _ => run::<G, AtomicU64>(game, opts, solved),
    }
}

/// One labelling's state: per position its kind (open, finite, infinite, unused), its mark in
/// the current stage, its finite value, and its followers not yet given a value (overall, and
/// in the current stage).
struct Labelling<'a, G, C> {
    game: &'a G,
    opts: &'a SolveOptions,
    kinds: Cells<'a>,
    stage_cells: Cells<'a>,
    stage_words: &'a [AtomicU64],
    values: Vec<AtomicU32>,
    count: Vec<C>,
    stage_count: Vec<C>,
    progress: &'a dyn Progress,
    /// Parent visits so far.
    visits: u64,
    /// Infinite positions with the stage they became so, and the marks they got later.
    became_infinite: Vec<(u64, u32)>,
    reached: Vec<(u64, u32)>,
}

fn run<G: Game, C: Counter>(
    game: &G,
    opts: &SolveOptions,
    solved: Option<&Cells<'_>>,
) -> Result<Labels> {
    game.prepare();
    let size = game.size();
    let kind_words = cells::zeroed_words(cells::words_for(size));
    let stage_words = cells::zeroed_words(cells::words_for(size));
    let mut l = Labelling {
        game,
        opts,
        kinds: Cells::new(&kind_words, size),
        stage_cells: Cells::new(&stage_words, size),
        stage_words: &stage_words,
        // The finite values, written once by the task that labels a position.
        values: cells::zeroed_atomics(size),
        count: cells::zeroed_atomics::<C>(size),
        stage_count: cells::zeroed_atomics::<C>(size),
        progress: opts.begin_progress(size),
        visits: 0,
        became_infinite: Vec::new(),
        reached: Vec::new(),
    };
    l.progress.step("stage 0");
    let (mut open, lost) = l.start(solved)?;
    let mut largest: Option<u32> = None;
    let mut stage = 0u32;
    if solved.is_some() {
        l.stage_zero_from(&lost);
        if !lost.is_empty() {
            largest = Some(0);
        }
        // Stage 0 ran, where there was a position to label.
        if !(open.is_empty() && lost.is_empty() && l.became_infinite.is_empty()) {
            stage = 1;
        }
    }
    drop(lost);
    let mut reports = Vec::new();
    while !open.is_empty() {
        opts.stop.check()?;
        if stage > MAX_STAGE {
            return Err(l.fail(format!("values beyond {MAX_STAGE}")));
        }
        let (report, next_open) = l.stage(stage, &open)?;
        if report.labelled > 0 {
            largest = Some(stage);
        }
        reports.push(report);
        open = next_open;
        stage += 1;
    }
    let finite = largest.map_or(0, |l| l + 1);
    let Labelling {
        kinds,
        values,
        became_infinite,
        reached,
        progress,
        visits,
        ..
    } = l;
    let (codes, sets) = codes_and_sets(&kinds, values, finite, became_infinite, reached)
        .ok_or_else(|| Error::Spec {
            spec: game.spec(),
            msg: format!(
                "{finite} finite values and more distinct reach sets than 32-bit codes hold"
            ),
        })?;
    progress.reach(size);
    Ok(Labels {
        codes,
        finite,
        sets,
        stages: stage,
        parent_visits: visits,
        stage_reports: reports,
    })
}

impl<G: Game, C: Counter> Labelling<'_, G, C> {
    fn fail(&self, msg: String) -> Error {
        Error::Spec {
            spec: self.game.spec(),
            msg,
        }
    }

    /// The open positions, with their moves counted; unused indices marked so. Given the
    /// solve, its losses are value 0 (returned second), its draws infinite from stage 0 on,
    /// its wins open.
    fn start(&mut self, solved: Option<&Cells<'_>>) -> Result<(Vec<u64>, Vec<u64>)> {
        let (game, kinds, count, progress) = (self.game, &self.kinds, &self.count, &self.progress);
        let size = game.size();
        let fail = |msg: String| self.fail(msg);
        let pieces: Vec<Result<(Vec<u64>, Vec<u64>)>> = (0..size.div_ceil(CHUNK as u64))
            .into_par_iter()
            .map(|k| {
                let start = k * CHUNK as u64;
                let end = (start + CHUNK as u64).min(size);
                let (mut open, mut lost) = (Vec::new(), Vec::new());
                for pos in start..end {
                    match game.status(pos) {
                        Status::Unused => {
                            kinds.decide(pos, UNUSED);
                        }
                        Status::Open => {
                            count[pos as usize].set(game.child_count(pos));
                            match solved.map(|c| c.get(pos)) {
                                None | Some(cells::WIN) => open.push(pos),
                                Some(cells::LOSS) => {
                                    kinds.decide(pos, FINITE);
                                    lost.push(pos);
                                }
                                Some(cells::DRAW) => {
                                    kinds.decide(pos, INFINITE);
                                }
                                Some(c) => {
                                    return Err(fail(format!(
                                        "position {pos} (an index) is undecided ({c}) in the solve \
                                         handed over"
                                    )));
                                }
                            }
                        }
                        Status::Over(v) => {
                            return Err(fail(format!(
                                "position {pos} (an index) is over ({v}): generalized \
                                 Sprague-Grundy values are for games where a player who \
                                 cannot move loses"
                            )));
                        }
                    }
                }
                progress.advance(end - start - open.len() as u64);
                Ok((open, lost))
            })
            .collect();
        let (open, lost): (Vec<Vec<u64>>, Vec<Vec<u64>>) = pieces
            .into_iter()
            .collect::<Result<Vec<_>>>()?
            .into_iter()
            .unzip();
        Ok((concat(open), concat(lost)))
    }

    /// Stage 0 from a solve: the lost positions' parents lose a follower without a value, and
    /// the drawn positions are infinite from stage 0.
    fn stage_zero_from(&mut self, lost: &[u64]) {
        let (game, kinds, count) = (self.game, &self.kinds, &self.count);
        self.visits += lost
            .par_chunks(CHUNK)
            .map(|chunk| {
                let mut v = 0u64;
                for &x in chunk {
                    game.for_each_parent(x, |q| {
                        v += 1;
                        if kinds.get(q) == OPEN {
                            count[q as usize].decrement();
                        }
                    });
                }
                v
            })
            .sum::<u64>();
        let size = game.size();
        let draws: Vec<Vec<(u64, u32)>> = (0..size.div_ceil(CHUNK as u64))
            .into_par_iter()
            .map(|k| {
                let start = k * CHUNK as u64;
                let end = (start + CHUNK as u64).min(size);
                (start..end)
                    .filter(|&p| kinds.get(p) == INFINITE)
                    .map(|p| (p, 0))
                    .collect()
            })
            .collect();
        self.became_infinite = concat(draws);
    }

    /// Stage `m`: labels `m` the open positions all of whose followers have values below `m`
    /// and none `m`, spreading from them; what stays open (reaches a position labelled `m`)
    /// is returned for the next stage, and the rest becomes infinite.
    fn stage(&mut self, m: u32, open: &[u64]) -> Result<(StageReport, Vec<u64>)> {
        let started = std::time::Instant::now();
        let visits_before = self.visits;
        self.progress.step(&format!("stage {m}"));
        self.stage_words
            .par_chunks(1 << 14)
            .for_each(|c| c.iter().for_each(|w| w.store(0, Ordering::Relaxed)));
        // Seeds: open positions whose every follower has a value (below m).
        let (count, stage_count, stage_cells) = (&self.count, &self.stage_count, &self.stage_cells);
        let seeds: Vec<u64> = open
            .par_chunks(CHUNK)
            .flat_map_iter(|chunk| {
                chunk.iter().copied().filter(|&u| {
                    let n = count[u as usize].get();
                    stage_count[u as usize].set(n);
                    n == 0 && stage_cells.decide(u, LABELLED)
                })
            })
            .collect();
        for &u in &seeds {
            self.values[u as usize].store(m, Ordering::Relaxed);
        }
        let (labelled, next_open) = self.spread(m, seeds);
        self.opts.stop.check()?;
        let found_infinite = self.close(m, open);
        self.progress.advance(labelled + found_infinite);
        let report = StageReport {
            value: m,
            open: open.len() as u64,
            labelled,
            infinite: found_infinite,
            parent_visits: self.visits - visits_before,
            seconds: started.elapsed().as_secs_f64(),
        };
        Ok((report, next_open))
    }

    /// Spreads stage `m` from the positions labelled `m` (`seeds`): their open parents are
    /// marked (they reach `m`), and an open parent whose every follower is labelled below `m`
    /// or marked is labelled `m` in turn. Returns the positions labelled and the open ones
    /// marked.
    fn spread(&mut self, m: u32, seeds: Vec<u64>) -> (u64, Vec<u64>) {
        let (game, kinds, count) = (self.game, &self.kinds, &self.count);
        let (stage_count, stage_cells, values) =
            (&self.stage_count, &self.stage_cells, &self.values);
        let mut labelled = seeds.len() as u64;
        let mut frontier = seeds;
        let mut next_open: Vec<Vec<u64>> = Vec::new();
        while !frontier.is_empty() {
            if self.opts.stop.requested() {
                break;
            }
            let pieces: Vec<Piece> = frontier
                .par_chunks(CHUNK)
                .map(|chunk| {
                    let mut p = Piece::default();
                    for &item in chunk {
                        let x = item & !MARK_FLAG;
                        if item & MARK_FLAG == 0 {
                            // Labelled m: its parents can move to m.
                            game.for_each_parent(x, |q| {
                                p.visits += 1;
                                match kinds.get(q) {
                                    OPEN => {
                                        count[q as usize].decrement();
                                        if stage_cells.decide(q, MARKED) {
                                            p.next.push(q | MARK_FLAG);
                                            p.marked_open.push(q);
                                        }
                                    }
                                    INFINITE if stage_cells.decide(q, MARKED) => {
                                        p.next.push(q | MARK_FLAG);
                                        p.reached.push((q, m));
                                    }
                                    _ => {}
                                }
                            });
                        } else {
                            // Marked: one more follower of its open parents answered.
                            game.for_each_parent(x, |q| {
                                p.visits += 1;
                                if kinds.get(q) == OPEN
                                    && stage_cells.get(q) == 0
                                    && stage_count[q as usize].decrement() == 0
                                    && stage_cells.decide(q, LABELLED)
                                {
                                    values[q as usize].store(m, Ordering::Relaxed);
                                    p.next.push(q);
                                }
                            });
                        }
                    }
                    p
                })
                .collect();
            let mut next = Vec::with_capacity(pieces.iter().map(|p| p.next.len()).sum());
            for p in pieces {
                self.visits += p.visits;
                labelled += p.next.iter().filter(|&&i| i & MARK_FLAG == 0).count() as u64;
                next.extend_from_slice(&p.next);
                next_open.push(p.marked_open);
                self.reached.extend_from_slice(&p.reached);
            }
            frontier = next;
        }
        (labelled, concat(next_open))
    }

    /// Ends stage `m` over its `open` positions: the labelled ones are finite; the ones neither
    /// labelled nor marked have no follower of value `m`, so no finite value: infinite from
    /// stage `m`. Returns how many became infinite.
    fn close(&mut self, m: u32, open: &[u64]) -> u64 {
        let (kinds, stage_cells) = (&self.kinds, &self.stage_cells);
        let infinite: Vec<Vec<(u64, u32)>> = open
            .par_chunks(CHUNK)
            .map(|chunk| {
                let mut out = Vec::new();
                for &u in chunk {
                    match stage_cells.get(u) {
                        LABELLED => {
                            kinds.decide(u, FINITE);
                        }
                        MARKED => {}
                        _ => {
                            kinds.decide(u, INFINITE);
                            out.push((u, m));
                        }
                    }
                }
                out
            })
            .collect();
        let mut found = 0u64;
        for piece in infinite {
            found += piece.len() as u64;
            self.became_infinite.extend_from_slice(&piece);
        }
        found
    }
}

/// The table's codes and the distinct reach sets (numbered in the order of the first position
/// that has each): an infinite position that became so in stage `m'` reaches `0..m'` and the
/// stages of its later marks. `None` when the codes do not fit 32 bits.
fn codes_and_sets(
    kinds: &Cells<'_>,
    values: Vec<AtomicU32>,
    finite: u32,
    mut became: Vec<(u64, u32)>,
    mut reached: Vec<(u64, u32)>,
) -> Option<(Vec<u32>, Vec<u64>)> {
    let mut codes = cells::into_plain(values);
    codes
        .par_chunks_mut(CHUNK)
        .enumerate()
        .for_each(|(k, chunk)| {
            for (i, c) in chunk.iter_mut().enumerate() {
                if kinds.get((k * CHUNK + i) as u64) != FINITE {
                    *c = Labels::UNUSED;
                }
            }
        });
    became.par_sort_unstable();
    reached.par_sort_unstable();
    let words = crate::base::grundy::words_per_set(finite);
    let mut ids: HashMap<Vec<u64>, u32> = HashMap::new();
    // Most infinite positions reach just the values below the stage they became infinite in:
    // their set's id by that stage, without hashing.
    let mut prefix_ids: Vec<Option<u32>> = vec![None; finite as usize + 1];
    let mut sets: Vec<u64> = Vec::new();
    let mut set = vec![0u64; words];
    let mut r = 0usize;
    for &(pos, since) in &became {
        while r < reached.len() && reached[r].0 < pos {
            r += 1;
        }
        let later = r < reached.len() && reached[r].0 == pos;
        let id = match prefix_ids[since as usize] {
            Some(id) if !later => id,
            _ => {
                set.iter_mut().for_each(|w| *w = 0);
                for j in 0..since {
                    set[(j / 64) as usize] |= 1 << (j % 64);
                }
                while r < reached.len() && reached[r].0 == pos {
                    let j = reached[r].1;
                    set[(j / 64) as usize] |= 1 << (j % 64);
                    r += 1;
                }
                let id = match ids.get(&set) {
                    Some(&id) => id,
                    None => {
                        let id = ids.len() as u32;
                        ids.insert(set.clone(), id);
                        sets.extend_from_slice(&set);
                        id
                    }
                };
                if !later {
                    prefix_ids[since as usize] = Some(id);
                }
                id
            }
        };
        let code = finite.checked_add(id).filter(|&c| c != Labels::UNUSED)?;
        codes[pos as usize] = code;
    }
    Some((codes, sets))
}

fn concat<T: Copy>(pieces: Vec<Vec<T>>) -> Vec<T> {
    let total = pieces.iter().map(Vec::len).sum();
    let mut out = Vec::with_capacity(total);
    for p in pieces {
        out.extend_from_slice(&p);
    }
    out
}

#[cfg(test)]
mod tests;
