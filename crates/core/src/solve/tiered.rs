//! The tiered engine: retrograde analysis for acyclic games, one tier at a time.
//!
//! A [`Tiered`] game promises that every move goes to a strictly higher tier. The engine solves
//! the last tier first and walks down: a position of the tier being solved reads its children,
//! all already decided. It wins iff some child is lost; otherwise it is drawn if some child is
//! drawn (or is no position), and lost if every child is won. Ended positions take the rules'
//! value. A values-only solve keeps nothing but the 2-bit cells and stops reading a position's
//! children at its first lost child. A solve with remoteness keeps one byte per index
//! (`remoteness + 1`, 0 for none): `1 + min` over lost children for a win, `1 + max` over all
//! children for a loss, 0 for ended positions; these are exactly the counter engine's values and
//! rounds, so both write byte-identical tables. docs/TIERED.md has the memory model and the
//! checkpoints.
//!
//! The per-position kernel is one generic [`TierVisitor`], monomorphised per game and per mode
//! (values only or with remoteness): no per-game engine and no dynamic dispatch in the inner
//! loop. Games of a shape the solvers know by data alone go through a kernel of their own
//! ([`super::plan`] chooses, once, a [`TieredKernel`] that carries the board; [`solve_tiers`]
//! dispatches on it, the one place that does).
//!
//! Invariant: when tier `t` is solved, every index of tiers above `t` is final (the tiers are
//! finished in order, and a tier's positions only read higher tiers), so the positions of a tier
//! can be decided in any order by any number of threads.

use std::sync::atomic::{AtomicU8, AtomicU32, AtomicU64, Ordering};

use rayon::prelude::*;

use super::finished::{AnonBytes, FinishedTiers, Remoteness, Solved, TierDone};
pub use super::kernels::plain_remoteness_streamed::RemotenessStream;
use super::kernels::sliced_frames::{FrameSink, LossPlanes};
use super::kernels::sliced_remoteness::Nibbles;
use super::plan::TieredKernel;
pub use super::plan::{MAX_TIERS, unsupported};
use super::{SolveOptions, SolveStats};
use crate::base::cells::{self, Cells};
use crate::game::{Status, TierPosition, TierVisitor, Tiered, Value};

/// Remoteness as the engine keeps it while solving: one byte, `2 * (remoteness + 1) + lost`
/// (lost: 1 when the player to move there loses), and [`crate::base::remoteness::ENGINE_NONE`] (0)
/// for none (draws, unused indices), so zeroed memory and fresh files start as "none" and a
/// child is read with one load. Halving and subtracting one (wrapping) gives the table's
/// one-byte encoding, where all-ones ([`crate::base::remoteness::stored_none`]) is none.
const NONE: u8 = crate::base::remoteness::ENGINE_NONE;

/// Solves `game` into `cells` (all undecided, `game.size()` of them), in memory. Fails only
/// for a game whose walk lists no position at all.
///
/// # Panics
/// When [`unsupported`] names a reason; callers check it first.
pub fn solve<G: Tiered>(game: &G, cells: &Cells<'_>, opts: &SolveOptions) -> crate::Result<Solved> {
    if let Some(why) = unsupported(game) {
        panic!("tiered engine: {why}");
    }
    let kernel = TieredKernel::of(game, opts.remoteness, true).expect("unsupported() was checked");
    let tiers = game.tier_count();
    let solved = solve_tiers(game, &kernel, cells, tiers, &InMemory, opts, &mut |_| {
        Ok(true)
    })?;
    Ok(solved.expect("the callback never stops"))
}

/// What a solve keeps outside its own memory and where it starts, as its caller provides:
/// a build's work files and checkpoint (the table builder implements it), or nothing
/// ([`InMemory`]). A kernel given no store for its remoteness keeps it in memory.
pub trait TierStores {
    /// The words the row kernel with remoteness ([`TieredKernel::SlicedRemoteness`]) keeps its
    /// nibbles in, written in place (a build's work file); `None`: anonymous memory.
    fn nibbles(&self) -> Option<&Nibbles<'_>> {
        None
    }

    /// Where the plain board's kernel with remoteness ([`TieredKernel::PlainRemoteness`])
    /// hands its remoteness while it solves; `None`: kept in memory for the caller.
    fn stream(&self) -> Option<&dyn RemotenessStream> {
        None
    }

    /// Fills `engine_bytes` (a byte per index, zeroed) with the remoteness of the finished
    /// tiers a resumed solve starts from, as `TierDone::remoteness` held it (the
    /// per-position kernel reads it into its memory directly, with no second copy).
    fn resume(&self, engine_bytes: &mut [u8]) -> crate::Result<()> {
        let _ = engine_bytes;
        Ok(())
    }

    /// The rounds figure of the tiers finished already (0 at the start).
    fn rounds_before(&self) -> u32 {
        0
    }
}

/// The stores of a solve that keeps everything in memory, from scratch.
pub struct InMemory;

impl TierStores for InMemory {}

/// Solves the tiers below `done_from` of `game` with `kernel` (chosen for this game, these
/// options and this start: [`TieredKernel::of`]); the tiers from `done_from` up must already be
/// decided in `cells` (for a fresh solve, `done_from` is the tier count), and `stores` says
/// where the kernel keeps what is not in its own memory and what the finished tiers held.
///
/// After each tier `after` is called; it may make the work durable, and returns `false` to stop
/// there (the result is then `None`, and the solve can be resumed below that tier; after tier 0
/// the solve finishes regardless). The stats count this call's edges only.
///
/// This is the one place that dispatches on the kernel.
pub fn solve_tiers<G: Tiered>(
    game: &G,
    kernel: &TieredKernel<'_>,
    cells: &Cells<'_>,
    done_from: u32,
    stores: &dyn TierStores,
    opts: &SolveOptions,
    after: &mut impl FnMut(TierDone<'_>) -> crate::Result<bool>,
) -> crate::Result<Option<Solved>> {
    assert_eq!(cells.len(), game.size(), "cells must match the game");
    if let Some(why) = unsupported(game) {
        panic!("tiered engine: {why}");
    }
    game.prepare();
    let size = game.size();
    let tiers = game.tier_count();
    let done_from = done_from.min(tiers);
    match *kernel {
        TieredKernel::BitPlane(board) => {
            super::kernels::bitplane::solve(&board, cells, opts, after)
        }
        TieredKernel::SlicedRows(board) => {
            super::kernels::sliced_rows::solve(&board, cells, done_from, opts, after)
        }
        TieredKernel::SlicedRemoteness(board) => match stores.nibbles() {
            Some(nibbles) => {
                let solved = super::kernels::sliced_remoteness::solve(
                    &board, cells, nibbles, done_from, opts, after,
                )?;
                Ok(solved.map(|s| Solved {
                    remoteness: Remoteness::InStore,
                    ..s
                }))
            }
            None => {
                // In anonymous memory: a fresh solve.
                assert_eq!(done_from, tiers, "an in-memory solve starts from nothing");
                let len = super::kernels::sliced_remoteness::nibble_words_for(size) * 8;
                let rem = anon_bytes(len)?;
                let nibbles = super::kernels::sliced_remoteness::Nibbles::new(rem.words());
                let solved = super::kernels::sliced_remoteness::solve(
                    &board, cells, &nibbles, done_from, opts, after,
                )?;
                Ok(solved.map(|s| Solved {
                    remoteness: Remoteness::Nibbles(rem),
                    ..s
                }))
            }
        },
        // In memory, its frames written into the cells (a build out of core calls the kernel
        // itself, with planes in files and a compressed table for its frames).
        TieredKernel::SlicedFrames(board) => {
            // In memory: the frames go into the cells, a fresh solve.
            assert_eq!(done_from, tiers, "an in-memory solve starts from nothing");
            let words = LossPlanes::words_for(board.index);
            let (a, b) = (cells::zeroed_words(words), cells::zeroed_words(words));
            let planes = LossPlanes::new(&a, &b);
            let sink = IntoCells(*cells);
            super::kernels::sliced_frames::solve(&board, &planes, &sink, done_from, opts, after)
        }
        TieredKernel::PlainRemoteness(board) => match stores.stream() {
            Some(stream) => super::kernels::plain_remoteness_streamed::solve_streaming(
                &board, stream, cells, opts, after,
            ),
            None => {
                let rem = anon_bytes(size)?;
                let Some(stats) = super::kernels::plain_remoteness::solve_counted(
                    &board, cells, &rem, opts, after,
                )?
                else {
                    return Ok(None);
                };
                Ok(Some(Solved {
                    stats,
                    remoteness: Remoteness::EngineBytes(rem),
                }))
            }
        },
        TieredKernel::PerPosition if opts.remoteness => {
            per_position::<G, true>(game, cells, done_from, stores, opts, after)
        }
        TieredKernel::PerPosition => {
            per_position::<G, false>(game, cells, done_from, stores, opts, after)
        }
    }
}

/// The out-of-core kernel's frames written into cells in memory.
struct IntoCells<'a>(Cells<'a>);

impl FrameSink for IntoCells<'_> {
    fn frame_positions(&self) -> u64 {
        1 << 16
    }

    fn take(&self, first: u64, n: u64, words: &[u64]) -> crate::Result<()> {
        let at = (first / cells::CELLS_PER_WORD) as usize;
        let to = &self.0.words()[at..at + n.div_ceil(cells::CELLS_PER_WORD) as usize];
        for (w, &v) in to.iter().zip(words) {
            w.store(v, Ordering::Relaxed);
        }
        Ok(())
    }
}

/// `len` zeroed bytes of anonymous memory for remoteness.
fn anon_bytes(len: u64) -> crate::Result<AnonBytes> {
    AnonBytes::new(len).map_err(|source| crate::Error::Io {
        path: format!("{len} bytes of anonymous memory for remoteness"),
        source,
    })
}

/// The per-position kernel's solve ([`TieredKernel::PerPosition`]): every tier below `done_from`,
/// a position at a time through the game's walk; as [`solve_tiers`].
fn per_position<G: Tiered, const REM: bool>(
    game: &G,
    cells: &Cells<'_>,
    done_from: u32,
    stores: &dyn TierStores,
    opts: &SolveOptions,
    after: &mut impl FnMut(TierDone<'_>) -> crate::Result<bool>,
) -> crate::Result<Option<Solved>> {
    let size = game.size();
    let tiers = game.tier_count();
    let mut rem = anon_bytes(if REM { size } else { 0 })?;
    stores.resume(rem.bytes_mut())?;
    let rounds_before = stores.rounds_before();
    if done_from < tiers {
        // A resumed solve: the interrupted run may have decided positions below its checkpoint
        // (the bit-parallel step writes whole rows); they are decided again from scratch.
        clear_tiers(game, cells, done_from);
    }
    let progress = opts.begin_progress(size);
    let edges = AtomicU64::new(0);
    let probes = AtomicU64::new(0);
    // Rounds of the counter engine: the largest remoteness plus one, 0 when nothing is won or
    // lost. Stored bytes are remoteness plus one already, so it is their largest value.
    let rounds = AtomicU32::new(rounds_before);
    let mut listed = 0u64;
    let mut finished = FinishedTiers::below(done_from);
    let v3 = crate::base::cpu::v3();

    for t in (0..done_from).rev() {
        progress.step(&format!("tier {t} of {tiers}"));
        let tier_done = AtomicU64::new(0);
        let rem_atomics = rem.atomics();
        (0..game.tier_units(t)).into_par_iter().for_each(|unit| {
            if opts.stop.requested() {
                return;
            }
            let mut k = PerPosition::<G, REM> {
                game: std::marker::PhantomData,
                cells: *cells,
                // Nothing reads tier t's cells while it is solved: decisions go out a word at a
                // time.
                batch: cells::Batch::new(*cells),
                rem: rem_atomics,
                positions: 0,
                edges: 0,
                probes: 0,
                rounds: 0,
            };
            visit_unit(v3, game, t, unit, &mut k);
            k.batch.flush();
            edges.fetch_add(k.edges, Ordering::Relaxed);
            probes.fetch_add(k.probes, Ordering::Relaxed);
            rounds.fetch_max(k.rounds as u32, Ordering::Relaxed);
            progress.advance(k.positions);
            tier_done.fetch_add(k.positions, Ordering::Relaxed);
        });
        // A stopped tier is incomplete: neither a checkpoint nor the next tier may use it.
        opts.stop.check()?;
        let positions = tier_done.into_inner();
        listed += positions;
        if t == 0 && listed == 0 && done_from == tiers && size > 0 {
            // A walk that lists nothing would leave a table of "unused" indices.
            return Err(crate::Error::Spec {
                spec: game.spec(),
                msg: format!(
                    "the tier walk listed no position of the {size} the game numbers; \
                     refusing to write a table without positions"
                ),
            });
        }
        let rounds_now = REM.then(|| rounds.load(Ordering::Relaxed));
        if !finished.complete_from(t, |_| positions, rounds_now, rem_atomics, after)? {
            return Ok(None);
        }
    }
    progress.reach(size);
    let edges = edges.into_inner();
    Ok(Some(Solved {
        stats: SolveStats {
            counts: cells.counts(),
            rounds: REM.then(|| rounds.into_inner()),
            parent_visits: 0,
            edges: REM.then_some(edges),
            child_probes: probes.into_inner(),
            remoteness: None,
        },
        remoteness: if REM {
            Remoteness::EngineBytes(rem)
        } else {
            Remoteness::None
        },
    }))
}

/// Visits unit `unit` of tier `t` with `k`, the walk and the visitor compiled for the CPU's
/// level (`v3`: [`crate::base::cpu::v3`], asked once a solve).
fn visit_unit<G: Tiered, V: TierVisitor>(v3: bool, game: &G, t: u32, unit: u64, k: &mut V) {
    #[cfg(target_arch = "x86_64")]
    if v3 {
        // SAFETY: `v3` says the CPU has the v3 extensions.
        return unsafe { visit_unit_v3(game, t, unit, k) };
    }
    let _ = v3;
    game.visit_tier(t, unit, k)
}

/// [`visit_unit`]'s walk compiled for x86-64-v3 (the walks are `#[inline(always)]` so that
/// they are compiled here; one instruction for each count and lowest set bit).
///
/// # Safety
/// The CPU has [`crate::base::cpu::V3_FEATURES`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt,fma")]
unsafe fn visit_unit_v3<G: Tiered, V: TierVisitor>(game: &G, t: u32, unit: u64, k: &mut V) {
    game.visit_tier(t, unit, k)
}

/// Makes every position of the tiers below `below` undecided.
fn clear_tiers<G: Tiered>(game: &G, cells: &Cells<'_>, below: u32) {
    struct Clear<'a>(Cells<'a>);
    impl TierVisitor for Clear<'_> {
        fn visit<I: ExactSizeIterator<Item = u64>>(&mut self, p: TierPosition<I>) {
            self.0.clear(p.index);
        }
    }
    for t in 0..below {
        (0..game.tier_units(t))
            .into_par_iter()
            .for_each(|unit| game.visit_tier(t, unit, &mut Clear(*cells)));
    }
}

/// The per-position kernel ([`TieredKernel::PerPosition`]), the engine's side of a tier walk: decides
/// each position the game lists from its children's cells (and, with `REM`, their remoteness).
struct PerPosition<'c, 'a, G, const REM: bool> {
    game: std::marker::PhantomData<G>,
    cells: Cells<'a>,
    batch: cells::Batch<'a>,
    /// Every index's `remoteness + 1` (with `REM` only).
    rem: &'c [AtomicU8],
    positions: u64,
    edges: u64,
    probes: u64,
    /// The largest remoteness byte stored.
    rounds: u8,
}

impl<G: Tiered, const REM: bool> TierVisitor for PerPosition<'_, '_, G, REM> {
    #[inline(always)]
    fn visit<I: ExactSizeIterator<Item = u64>>(&mut self, p: TierPosition<I>) {
        let index = p.index;
        let code = self.code(p);
        self.batch.decide(index, code);
    }

    /// Both codes go out in one write: the two cells are side by side in one word.
    #[inline(always)]
    fn visit_pair<I, J>(&mut self, first: TierPosition<I>, second: TierPosition<J>)
    where
        I: ExactSizeIterator<Item = u64>,
        J: ExactSizeIterator<Item = u64>,
    {
        debug_assert!(first.index.is_multiple_of(2) && second.index == first.index + 1);
        let index = first.index;
        let codes = self.code(first) | self.code(second) << 2;
        self.batch.decide(index, codes);
    }
}

impl<G: Tiered, const REM: bool> PerPosition<'_, '_, G, REM> {
    /// The position's code, its remoteness stored where the solve follows it.
    #[inline(always)]
    fn code<I: ExactSizeIterator<Item = u64>>(&mut self, p: TierPosition<I>) -> u8 {
        self.positions += 1;
        let (code, r) = match p.status {
            Status::Unused => return cells::UNDECIDED,
            Status::Over(Value::Draw) => (cells::DRAW, NONE),
            Status::Over(v) => (cells::code(v), 1),
            Status::Open if REM => self.decide_with_remoteness(p.children),
            Status::Open => (self.decide(p.children), NONE),
        };
        if REM && r != NONE {
            let lost = (code == cells::LOSS) as u8;
            self.rem[p.index as usize].store(2 * r + lost, Ordering::Relaxed);
            self.rounds = self.rounds.max(r);
        }
        code
    }
}

impl<G: Tiered, const REM: bool> PerPosition<'_, '_, G, REM> {
    /// Win at the first lost child; else draw if some child is not won (only in games with
    /// draws), else loss.
    #[inline(always)]
    fn decide(&mut self, children: impl ExactSizeIterator<Item = u64>) -> u8 {
        let mut draw = false;
        let mut reads = 0;
        for c in children {
            reads += 1;
            if !G::DRAWS {
                // Children are decided and never drawn: a win or a loss.
                if self.cells.lost_of_decided(c) {
                    self.probes += reads;
                    return cells::verdict(true, false);
                }
                continue;
            }
            let code = self.cells.get(c);
            if code == cells::LOSS {
                self.probes += reads;
                return cells::verdict(true, draw);
            }
            if G::DRAWS {
                draw |= code != cells::WIN;
            }
        }
        self.probes += reads;
        cells::verdict(false, draw)
    }

    /// Every child read once: its byte holds its remoteness and whether it is lost.
    #[inline(always)]
    fn decide_with_remoteness(&mut self, children: impl ExactSizeIterator<Item = u64>) -> (u8, u8) {
        let n = children.len() as u64;
        self.edges += n;
        self.probes += n;
        let (mut quickest, mut slowest) = (u8::MAX, 0u8);
        let (mut any_lost, mut all_won) = (false, true);
        for c in children {
            let e = self.rem[c as usize].load(Ordering::Relaxed);
            if e & 1 == 1 {
                any_lost = true;
                quickest = quickest.min(e >> 1);
            } else if G::DRAWS && e == NONE {
                // Drawn (or no position).
                all_won = false;
            } else {
                slowest = slowest.max(e >> 1);
            }
        }
        // Remoteness: a win 1 + the quickest lost child, a loss 1 + the slowest won child (no
        // children at all: 0, stored as 1), a draw none.
        match cells::verdict(any_lost, !all_won) {
            cells::WIN => (cells::WIN, quickest + 1),
            cells::LOSS => (cells::LOSS, slowest + 1),
            code => (code, NONE),
        }
    }
}
