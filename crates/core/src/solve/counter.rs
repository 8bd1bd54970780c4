//! The counter-decrement engine: retrograde analysis for any finite game, cycles included.
//!
//! Each open position holds a count of its undecided children. Round 0 decides the positions
//! whose game is over (and open positions without moves, which are lost). Round `r` walks the
//! positions decided in round `r - 1`, in parallel: a lost position makes every undecided parent a
//! win; a won position decrements each undecided parent's counter, and the task that takes it to
//! zero makes that parent a loss. What is undecided when a round decides nothing is a draw.
//!
//! Invariant: a position is decided exactly once, by the task whose `fetch_or` finds its cell
//! undecided, and only that task writes its remoteness — so values and remoteness are the same
//! for every thread count.

use std::sync::atomic::{AtomicU8, AtomicU16, AtomicU32, AtomicU64, Ordering};

use rayon::prelude::*;

use super::{SolveOptions, SolveStats};
use crate::base::cells::{self, Cells};
use crate::base::progress::Progress;
use crate::game::{Game, Status, Value};

/// Bytes per counter for a game whose positions have at most `max_children` moves.
pub fn counter_width(max_children: u64) -> u64 {
    match max_children {
        0..=0xFF => 1,
        0x100..=0xFFFF => 2,
        0x1_0000..=0xFFFF_FFFF => 4,
        _ => 8,
    }
}

/// An atomic counter of undecided children.
pub(super) trait Counter: Sync + Send + Sized + cells::ZeroedAtomic {
    fn set(&self, v: u64);
    fn get(&self) -> u64;
    /// Decrements and returns the new value.
    fn decrement(&self) -> u64;
}

macro_rules! counter {
    ($atomic:ty, $plain:ty) => {
        impl Counter for $atomic {
            #[inline]
            fn set(&self, v: u64) {
                self.store(v as $plain, Ordering::Relaxed)
            }
            #[inline]
            fn get(&self) -> u64 {
                self.load(Ordering::Relaxed) as u64
            }
            #[inline]
            fn decrement(&self) -> u64 {
                (self.fetch_sub(1, Ordering::Relaxed) - 1) as u64
            }
        }
    };
}

counter!(AtomicU8, u8);
counter!(AtomicU16, u16);
counter!(AtomicU32, u32);
counter!(AtomicU64, u64);

/// Positions handed to one task at a time.
const CHUNK: usize = 4096;

/// Solves `game` into `cells` (which must be all undecided and hold `game.size()` cells).
pub fn solve<G: Game>(game: &G, cells: &Cells<'_>, opts: &SolveOptions) -> SolveStats {
    assert_eq!(cells.len(), game.size(), "cells must match the game");
    match counter_width(game.max_children()) {
        1 => run::<G, AtomicU8>(game, cells, opts),
        2 => run::<G, AtomicU16>(game, cells, opts),
        4 => run::<G, AtomicU32>(game, cells, opts),
        _ => run::<G, AtomicU64>(game, cells, opts),
    }
}

fn run<G: Game, C: Counter>(game: &G, cells: &Cells<'_>, opts: &SolveOptions) -> SolveStats {
    game.prepare();
    let size = game.size();
    let counters: Vec<C> = cells::zeroed_atomics(size);
    let remoteness: Option<Vec<AtomicU32>> = opts.remoteness.then(|| cells::zeroed_atomics(size));
    let progress = opts.begin_progress(size);
    let run = Run {
        game,
        size,
        cells,
        counters: &counters,
        remoteness: remoteness.as_deref(),
        opts,
        progress,
        v3: crate::base::cpu::v3(),
    };
    progress.step("round 0");
    let edges = AtomicU64::new(0);
    let mut frontier = run.round_zero(&edges);
    progress.reach(0);

    let visits = AtomicU64::new(0);
    let mut decided_total = frontier.len() as u64;
    progress.reach(decided_total);
    let mut round: u32 = 0;
    while !frontier.is_empty() {
        round += 1;
        progress.step(&format!("round {round}"));
        frontier = run.round(&frontier, round, &visits);
        decided_total += frontier.len() as u64;
    }

    run.draws();
    progress.reach(size);
    debug_assert!(decided_total <= size);

    SolveStats {
        counts: cells.counts(),
        rounds: Some(round),
        parent_visits: visits.into_inner(),
        edges: Some(edges.into_inner()),
        child_probes: 0,
        remoteness: remoteness.map(cells::into_plain),
    }
}

/// What every phase of one solve reads and writes; each phase takes its fields apart first, so
/// its loops read them as plain locals.
struct Run<'a, G, C> {
    game: &'a G,
    /// `game.size()`.
    size: u64,
    cells: &'a Cells<'a>,
    counters: &'a [C],
    remoteness: Option<&'a [AtomicU32]>,
    opts: &'a SolveOptions,
    progress: &'a dyn Progress,
    /// The CPU has x86-64-v3 ([`crate::base::cpu::v3`], asked once a solve): each chunk's loop
    /// runs the copy compiled for it.
    v3: bool,
}

impl<G: Game, C: Counter> Run<'_, G, C> {
    /// Round 0: terminal positions, and the children counted for every open one (added to
    /// `edges`). Returns the positions decided, the first frontier.
    #[inline]
    fn round_zero(&self, edges: &AtomicU64) -> Vec<u64> {
        let Run {
            size,
            opts,
            progress,
            ..
        } = *self;
        let chunks = size.div_ceil(CHUNK as u64);
        let pieces: Vec<Vec<u64>> = (0..chunks)
            .into_par_iter()
            .map(|k| {
                let mut decided = Vec::new();
                if opts.stop.requested() {
                    return decided;
                }
                let start = k * CHUNK as u64;
                let end = (start + CHUNK as u64).min(size);
                let local_edges = self.zero_chunk(start..end, &mut decided);
                edges.fetch_add(local_edges, Ordering::Relaxed);
                progress.advance(end - start);
                decided
            })
            .collect();
        concat(pieces)
    }

    /// Round `round`: the parents of `frontier`'s positions (each step added to `visits`).
    /// Returns the positions decided, the next frontier.
    #[inline]
    fn round(&self, frontier: &[u64], round: u32, visits: &AtomicU64) -> Vec<u64> {
        let Run {
            remoteness,
            opts,
            progress,
            ..
        } = *self;
        let pieces: Vec<Vec<u64>> = frontier
            .par_chunks(CHUNK)
            .map(|chunk| {
                let mut decided = Vec::new();
                // A requested stop empties the next frontier, which ends the rounds.
                if opts.stop.requested() {
                    return decided;
                }
                let local_visits = self.round_chunk(chunk, &mut decided);
                if let Some(rem) = &remoteness {
                    for &q in &decided {
                        rem[q as usize].store(round, Ordering::Relaxed);
                    }
                }
                visits.fetch_add(local_visits, Ordering::Relaxed);
                progress.advance(decided.len() as u64);
                decided
            })
            .collect();
        concat(pieces)
    }

    /// Round 0 of positions `range`: the decided ones pushed to `decided`; returns the edges
    /// counted. The loop compiled for the CPU's level.
    fn zero_chunk(&self, range: std::ops::Range<u64>, decided: &mut Vec<u64>) -> u64 {
        #[cfg(target_arch = "x86_64")]
        if self.v3 {
            // SAFETY: `v3` says the CPU has the v3 extensions.
            return unsafe { self.zero_chunk_v3(range, decided) };
        }
        self.zero_chunk_body(range, decided)
    }

    /// [`Run::zero_chunk_body`] compiled for x86-64-v3.
    ///
    /// # Safety
    /// The CPU has [`crate::base::cpu::V3_FEATURES`].
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt,fma")]
    unsafe fn zero_chunk_v3(&self, range: std::ops::Range<u64>, decided: &mut Vec<u64>) -> u64 {
        self.zero_chunk_body(range, decided)
    }

    #[inline(always)]
    fn zero_chunk_body(&self, range: std::ops::Range<u64>, decided: &mut Vec<u64>) -> u64 {
        let Run {
            game,
            cells,
            counters,
            remoteness,
            ..
        } = *self;
        let mut local_edges = 0u64;
        for pos in range {
            match game.status(pos) {
                Status::Unused => {
                    if let Some(rem) = &remoteness {
                        rem[pos as usize].store(crate::base::remoteness::NONE, Ordering::Relaxed);
                    }
                }
                Status::Over(Value::Draw) => {
                    // A drawn end decides nothing about its parents: it keeps their
                    // counters above zero, like a child that stays undecided.
                    cells.decide(pos, cells::DRAW);
                    if let Some(rem) = &remoteness {
                        rem[pos as usize].store(crate::base::remoteness::NONE, Ordering::Relaxed);
                    }
                }
                Status::Over(v) => {
                    cells.decide(pos, cells::code(v));
                    decided.push(pos);
                }
                Status::Open => {
                    let n = game.child_count(pos);
                    local_edges += n;
                    if n == 0 {
                        cells.decide(pos, cells::LOSS);
                        decided.push(pos);
                    } else {
                        counters[pos as usize].set(n);
                    }
                }
            }
        }
        local_edges
    }

    /// One chunk of a round: the parents of `chunk`'s positions, those decided pushed to
    /// `decided`; returns the parents visited. The loop compiled for the CPU's level.
    fn round_chunk(&self, chunk: &[u64], decided: &mut Vec<u64>) -> u64 {
        #[cfg(target_arch = "x86_64")]
        if self.v3 {
            // SAFETY: `v3` says the CPU has the v3 extensions.
            return unsafe { self.round_chunk_v3(chunk, decided) };
        }
        self.round_chunk_body(chunk, decided)
    }

    /// [`Run::round_chunk_body`] compiled for x86-64-v3.
    ///
    /// # Safety
    /// The CPU has [`crate::base::cpu::V3_FEATURES`].
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt,fma")]
    unsafe fn round_chunk_v3(&self, chunk: &[u64], decided: &mut Vec<u64>) -> u64 {
        self.round_chunk_body(chunk, decided)
    }

    #[inline(always)]
    fn round_chunk_body(&self, chunk: &[u64], decided: &mut Vec<u64>) -> u64 {
        let Run {
            game,
            cells,
            counters,
            ..
        } = *self;
        let mut local_visits = 0u64;
        for &pos in chunk {
            match cells.get(pos) {
                cells::LOSS => game.for_each_parent(pos, |q| {
                    local_visits += 1;
                    if cells.decide(q, cells::WIN) {
                        decided.push(q);
                    }
                }),
                cells::WIN => game.for_each_parent(pos, |q| {
                    local_visits += 1;
                    if cells.get(q) == cells::UNDECIDED
                        && counters[q as usize].decrement() == 0
                        && cells.decide(q, cells::LOSS)
                    {
                        decided.push(q);
                    }
                }),
                _ => unreachable!("only wins and losses enter a frontier"),
            }
        }
        local_visits
    }

    /// What is still undecided among open positions is a draw: an undecided open position still
    /// has a counter above zero, unused and terminal indices never had one.
    #[inline]
    fn draws(&self) {
        let Run {
            size,
            cells,
            counters,
            remoteness,
            ..
        } = *self;
        let words = cells.words();
        (0..words.len()).into_par_iter().for_each(|w| {
            let start = w as u64 * cells::CELLS_PER_WORD;
            let end = (start + cells::CELLS_PER_WORD).min(size);
            for pos in start..end {
                if counters[pos as usize].get() > 0
                    && cells.decide(pos, cells::DRAW)
                    && let Some(rem) = &remoteness
                {
                    rem[pos as usize].store(crate::base::remoteness::NONE, Ordering::Relaxed);
                }
            }
        });
    }
}

fn concat(pieces: Vec<Vec<u64>>) -> Vec<u64> {
    let total = pieces.iter().map(Vec::len).sum();
    let mut out = Vec::with_capacity(total);
    for p in pieces {
        out.extend_from_slice(&p);
    }
    out
}
