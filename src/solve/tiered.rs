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
//! ([`super::plan`] chooses; [`run`] dispatches).
//!
//! Invariant: when tier `t` is solved, every index of tiers above `t` is final (the tiers are
//! finished in order, and a tier's positions only read higher tiers), so the positions of a tier
//! can be decided in any order by any number of threads.

use std::sync::atomic::{AtomicU8, AtomicU32, AtomicU64, Ordering};

use rayon::prelude::*;

use super::plan::{self, Kernel};
pub use super::plan::{MAX_TIERS, unsupported};
use super::tiers::{AnonBytes, FinishedTiers, Solved, TierDone};
use super::{Engine, SolveOptions, SolveStats};
use crate::base::cells::{self, Cells};
use crate::game::shape::{BoardShape, PlainBoard};
use crate::game::{Status, TierPosition, TierVisitor, Tiered, Value};

/// Remoteness as the engine keeps it while solving: one byte, `2 * (remoteness + 1) + lost`
/// (lost: 1 when the player to move there loses), and [`crate::base::remoteness::ENGINE_NONE`] (0)
/// for none (draws, unused indices), so zeroed memory and fresh files start as "none" and a
/// child is read with one load. Halving and subtracting one (wrapping) gives the table's
/// one-byte encoding, where all-ones ([`crate::base::remoteness::stored_none`]) is none.
const NONE: u8 = crate::base::remoteness::ENGINE_NONE;

/// Solves `game` into `cells` (all undecided, `game.size()` of them). Fails only for a game
/// whose walk lists no position at all.
///
/// # Panics
/// When [`unsupported`] names a reason; callers check it first.
pub fn solve<G: Tiered>(game: &G, cells: &Cells<'_>, opts: &SolveOptions) -> crate::Result<Solved> {
    let solved = solve_tiers(
        game,
        cells,
        game.tier_count(),
        0,
        None::<ReadResumed>,
        opts,
        |_| Ok(true),
    )?;
    Ok(solved.expect("the callback never stops"))
}

/// A filler of a resumed solve's remoteness, in its simplest type (for solves with none).
type ReadResumed = fn(&mut [u8]) -> crate::Result<()>;

/// Solves the tiers below `done_from`; the tiers from `done_from` up must already be decided in
/// `cells`, and `resume` must fill the buffer it is given with what [`TierDone::remoteness`]
/// held for tier `done_from` (for a fresh solve, `done_from` is the tier count and `resume` is
/// `None`): it is read into the engine's memory directly, with no second copy. `rounds_before`
/// is the rounds figure of the tiers already done (0 at the start).
///
/// After each tier `after` is called; it may make the work durable, and returns `false` to stop
/// there (the result is then `None`, and the solve can be resumed below that tier; after tier 0
/// the solve finishes regardless). The stats count this call's edges only.
pub fn solve_tiers<G: Tiered>(
    game: &G,
    cells: &Cells<'_>,
    done_from: u32,
    rounds_before: u32,
    resume: Option<impl FnOnce(&mut [u8]) -> crate::Result<()>>,
    opts: &SolveOptions,
    mut after: impl FnMut(TierDone<'_>) -> crate::Result<bool>,
) -> crate::Result<Option<Solved>> {
    if opts.remoteness {
        run::<G, true>(
            game,
            cells,
            done_from,
            rounds_before,
            resume,
            opts,
            &mut after,
        )
    } else {
        run::<G, false>(
            game,
            cells,
            done_from,
            rounds_before,
            resume,
            opts,
            &mut after,
        )
    }
}

fn run<G: Tiered, const REM: bool>(
    game: &G,
    cells: &Cells<'_>,
    done_from: u32,
    rounds_before: u32,
    resume: Option<impl FnOnce(&mut [u8]) -> crate::Result<()>>,
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
    // The kernel: per position through the game's walk, unless the game's shape has a faster
    // one for this run (`plan::choose` says which, and why).
    let kernel = plan::choose(
        plan::Shape::of_tiered(game),
        Engine::Tiered,
        REM,
        done_from == tiers,
    )
    .expect("unsupported() was checked");
    let board = game.board_shape();
    match kernel {
        Kernel::BitPlane => {
            let board = board.and_then(BoardShape::plain).expect("a plain board");
            super::bitplane::solve(&board, cells, opts, after)
        }
        Kernel::SlicedRows => {
            let board = board.and_then(BoardShape::sliced).expect("a sliced board");
            super::sliced::solve(&board, cells, done_from, opts, after)
        }
        Kernel::SlicedRemoteness => {
            // In memory (a build keeps the nibbles in its work file instead): a fresh solve.
            assert_eq!(done_from, tiers, "an in-memory solve starts from nothing");
            let board = board.and_then(BoardShape::sliced).expect("a sliced board");
            let len = super::slicedrem::nibble_words_for(size) * 8;
            let rem = AnonBytes::new(len).map_err(|source| crate::Error::Io {
                path: format!("{len} bytes of anonymous memory for remoteness"),
                source,
            })?;
            let nibbles = super::slicedrem::Nibbles::new(rem.words());
            let solved = super::slicedrem::solve(&board, cells, &nibbles, done_from, opts, after)?;
            Ok(solved.map(|s| Solved {
                remoteness: Some(rem),
                rem_width: crate::table::format::REM_NIBBLES,
                ..s
            }))
        }
        Kernel::PlainRemoteness => {
            let board = board.and_then(BoardShape::plain).expect("a plain board");
            let rem = AnonBytes::new(size).map_err(|source| crate::Error::Io {
                path: format!("{size} bytes of anonymous memory for remoteness"),
                source,
            })?;
            let Some(stats) = solve_plain_remoteness(&board, cells, &rem, opts, after)? else {
                return Ok(None);
            };
            Ok(Some(Solved {
                stats,
                remoteness: Some(rem),
                rem_width: 1,
            }))
        }
        Kernel::PerPosition => {
            per_position::<G, REM>(game, cells, done_from, rounds_before, resume, opts, after)
        }
        Kernel::Counter => unreachable!("the tiered engine's kernels only"),
    }
}

/// The per-position kernel's solve ([`Kernel::PerPosition`]): every tier below `done_from`,
/// a position at a time through the game's walk; as [`solve_tiers`].
fn per_position<G: Tiered, const REM: bool>(
    game: &G,
    cells: &Cells<'_>,
    done_from: u32,
    rounds_before: u32,
    resume: Option<impl FnOnce(&mut [u8]) -> crate::Result<()>>,
    opts: &SolveOptions,
    after: &mut impl FnMut(TierDone<'_>) -> crate::Result<bool>,
) -> crate::Result<Option<Solved>> {
    let size = game.size();
    let tiers = game.tier_count();
    let rem_len = if REM { size } else { 0 };
    let mut rem = AnonBytes::new(rem_len).map_err(|source| crate::Error::Io {
        path: format!("{rem_len} bytes of anonymous memory for remoteness"),
        source,
    })?;
    if let Some(fill) = resume {
        fill(rem.bytes_mut())?;
    }
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
            game.visit_tier(t, unit, &mut k);
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
        remoteness: REM.then_some(rem),
        rem_width: if REM { 1 } else { 0 },
    }))
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

/// The plain board's kernel with remoteness ([`Kernel::PlainRemoteness`]), a fresh solve into
/// `cells` (all undecided) and `rem` (zeroed, a byte per position) that the caller holds: a
/// build reads the runs [`super::plainrem::final_tiers`] calls final while the solve goes on.
/// `None` when `after` stopped the solve.
pub(crate) fn solve_plain_remoteness(
    board: &PlainBoard<'_>,
    cells: &Cells<'_>,
    rem: &AnonBytes,
    opts: &SolveOptions,
    after: &mut impl FnMut(TierDone<'_>) -> crate::Result<bool>,
) -> crate::Result<Option<SolveStats>> {
    let size = cells.len();
    let progress = opts.begin_progress(size);
    let Some(counts) = super::plainrem::solve(board, cells, rem, progress, &opts.stop, after)?
    else {
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

/// From the engine's `2 * (remoteness + 1) + lost` (0 none) to the table's byte (all-ones
/// none), in place.
pub fn table_bytes(rem: &mut AnonBytes) {
    rem.bytes_mut()
        .par_chunks_mut(1 << 16)
        .for_each(|c| c.iter_mut().for_each(|b| *b = (*b >> 1).wrapping_sub(1)));
}

/// The table's nibbles ([`crate::table::format::nibble_of`]) of the engine's bytes of a game
/// whose remoteness follows its value's parity: byte `j` of `out` holds `bytes[2j]`'s nibble
/// (low) and `bytes[2j + 1]`'s (high), 0 past the end of `bytes`. From `b = 2 * (r + 1) + lost`,
/// a loss's `r / 2` and a win's `(r + 1) / 2` are both `(b / 2 - lost) / 2`, and none (0) gives
/// 0: one expression, no branch.
pub fn engine_nibbles(bytes: &[u8], out: &mut [u8]) {
    let n = |b: u8| ((b >> 1) - (b & 1)) >> 1;
    let whole = (bytes.len() / 2).min(out.len());
    for (o, pair) in out.iter_mut().zip(bytes.chunks_exact(2)) {
        *o = n(pair[0]) | n(pair[1]) << 4;
    }
    if let Some(o) = out.get_mut(whole) {
        *o = bytes.get(2 * whole).map_or(0, |&b| n(b));
    }
    out.iter_mut().skip(whole + 1).for_each(|o| *o = 0);
}

/// The per-position kernel ([`Kernel::PerPosition`]), the engine's side of a tier walk: decides
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
