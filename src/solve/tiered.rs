//! The tiered engine: retrograde analysis for acyclic games, one tier at a time.
//!
//! A game that numbers its tiers ([`Game::tier_count`]) promises that every move goes to a
//! strictly higher tier. The engine solves the last tier first and walks down: a position of the
//! tier being solved reads its children, all already decided. It wins iff some child is lost
//! (remoteness `1 + min` over lost children); otherwise it is drawn if some child is drawn (or is
//! no position), and lost if every child is won (remoteness `1 + max` over all children). Ended
//! positions take the rules' value with remoteness 0, drawn ends none. These are exactly the
//! values and rounds of the counter engine, so both write byte-identical tables. No parents, no
//! counters and no frontiers are needed: a 2-bit cell and a 1-byte remoteness per index.
//!
//! Invariant: when tier `t` is solved, every index of tiers above `t` is final (the tiers are
//! finished in order, and a tier's positions only read higher tiers), so the positions of a tier
//! can be decided in any order by any number of threads.

use std::sync::atomic::{AtomicU8, AtomicU32, AtomicU64, Ordering};

use rayon::prelude::*;

use super::{SolveOptions, SolveStats};
use crate::game::{Game, Status, Value};
use crate::table::cells::{self, Cells};

/// Remoteness as the engine keeps it: one byte, `remoteness + 1`, and 0 for none (draws, unused
/// indices), so zeroed memory and fresh files start as "none".
const NONE: u8 = 0;

/// The most tiers the engine's one-byte remoteness can follow (remoteness is below the number of
/// tiers, and one value means "none").
pub const MAX_TIERS: u32 = u8::MAX as u32;

/// Why the tiered engine cannot solve a game, or `None` when it can.
pub fn unsupported<G: Game>(game: &G) -> Option<String> {
    match game.tier_count() {
        None => Some(format!(
            "{} may have cycles or does not list its tiers; use the counter engine",
            game.spec()
        )),
        Some(n) if n > MAX_TIERS => Some(format!(
            "{} has {n} tiers, more than the tiered engine follows ({MAX_TIERS})",
            game.spec()
        )),
        Some(_) => None,
    }
}

/// Bytes the tiered engine needs for `size` positions: the cells, one byte of remoteness each,
/// and the output remoteness (four bytes each) when asked for.
pub fn memory_estimate(size: u64, remoteness: bool) -> u64 {
    let out = if remoteness {
        size.saturating_mul(4)
    } else {
        0
    };
    size.div_ceil(4).saturating_add(size).saturating_add(out)
}

/// The most positions two consecutive tiers hold, for a game whose tiers are contiguous ranges
/// (only those two need to be resident); `None` for other games.
pub fn widest_two_tiers<G: Game>(game: &G) -> Option<u64> {
    let tiers = game.tier_count()?;
    let len = |t: u32| game.tier_range(t).map(|r| r.end - r.start);
    let mut widest = 0u64;
    for t in 0..tiers {
        let two = len(t)? + if t + 1 < tiers { len(t + 1)? } else { 0 };
        widest = widest.max(two);
    }
    Some(widest)
}

/// Bytes the tiered engine needs resident for `game`: [`memory_estimate`], or for a game with
/// contiguous tiers the cells and remoteness of its two widest consecutive tiers (the finished
/// tiers live in the memory-mapped files and the kernel may write them out).
pub fn memory_estimate_for<G: Game>(game: &G, remoteness: bool) -> u64 {
    match widest_two_tiers(game) {
        Some(two) if !remoteness => two.div_ceil(4).saturating_add(two),
        _ => memory_estimate(game.size(), remoteness),
    }
}

/// Solves `game` into `cells` (all undecided, `game.size()` of them).
///
/// # Panics
/// When [`unsupported`] names a reason; callers check it first.
pub fn solve<G: Game>(game: &G, cells: &Cells<'_>, opts: &SolveOptions) -> SolveStats {
    let rem = zeroed_bytes(game.size());
    let tiers = game.tier_count().unwrap_or(0);
    solve_tiers(game, cells, &rem, tiers, 0, opts, |_, _, _| Ok(true))
        .expect("the callback never fails")
        .expect("the callback never stops")
}

/// Heap bytes, zeroed, as atomics (the remoteness of a solve that is not resumable).
pub fn zeroed_bytes(n: u64) -> Vec<AtomicU8> {
    let v = std::mem::ManuallyDrop::new(vec![0u8; n as usize]);
    // SAFETY: AtomicU8 has u8's layout and accepts every bit pattern; the allocation is handed
    // over whole.
    unsafe { Vec::from_raw_parts(v.as_ptr() as *mut AtomicU8, v.len(), v.capacity()) }
}

/// Solves the tiers below `done_from` (the tiers from `done_from` up must already be decided in
/// `cells` and `rem`, as a previous call left them). `rem` holds one byte per index, zero where
/// nothing is decided; `rounds_before` is the rounds figure of the tiers already done (0 at the
/// start). After each tier `after(t, rounds, positions)` is called with the rounds so far and
/// the positions the tier listed; it may make the work durable, and returns `false` to stop
/// there (the result is then `None`, and the solve can be resumed with `done_from = t`; after
/// tier 0 the solve finishes regardless). Tier `t - 1` reads the remoteness of tier `t` only, so
/// a caller may discard that of the tiers above it. The stats count this call's edges only.
pub fn solve_tiers<G: Game>(
    game: &G,
    cells: &Cells<'_>,
    rem: &[AtomicU8],
    done_from: u32,
    rounds_before: u32,
    opts: &SolveOptions,
    mut after: impl FnMut(u32, u32, u64) -> crate::Result<bool>,
) -> crate::Result<Option<SolveStats>> {
    assert_eq!(cells.len(), game.size(), "cells must match the game");
    assert_eq!(
        rem.len() as u64,
        game.size(),
        "remoteness must match the game"
    );
    if let Some(why) = unsupported(game) {
        panic!("tiered engine: {why}");
    }
    game.prepare();
    let size = game.size();
    let tiers = game.tier_count().unwrap_or(0);
    let progress = opts.bar(size);
    let edges = AtomicU64::new(0);
    // Rounds of the counter engine: the largest remoteness plus one, 0 when nothing is won or
    // lost. Stored bytes are remoteness plus one already, so it is their largest value.
    let rounds = AtomicU32::new(rounds_before);

    for t in (0..done_from.min(tiers)).rev() {
        progress.set_message(format!("tier {t} of {tiers}"));
        let tier_done = AtomicU64::new(0);
        let units = game.tier_units(t);
        (0..units).into_par_iter().for_each(|unit| {
            let mut local_edges = 0u64;
            let mut done = 0u64;
            let mut local_rounds = 0u8;
            // Nothing reads tier t's cells while it is solved: decisions go out a word at a time.
            let mut batch = cells::Batch::new(cells);
            game.visit_tier(t, unit, |pos, status, kids| {
                done += 1;
                let (code, r) = decide(cells, rem, status, kids, &mut local_edges);
                if code != cells::UNDECIDED {
                    batch.decide(pos, code);
                }
                if r != NONE {
                    rem[pos as usize].store(r, Ordering::Relaxed);
                    local_rounds = local_rounds.max(r);
                }
            });
            drop(batch);
            edges.fetch_add(local_edges, Ordering::Relaxed);
            rounds.fetch_max(local_rounds as u32, Ordering::Relaxed);
            progress.inc(done);
            tier_done.fetch_add(done, Ordering::Relaxed);
        });
        if !after(t, rounds.load(Ordering::Relaxed), tier_done.into_inner())? && t > 0 {
            return Ok(None);
        }
    }
    progress.set_position(size);

    let rounds = rounds.into_inner();
    let edges = edges.into_inner();
    Ok(Some(SolveStats {
        counts: cells.counts(),
        rounds,
        parent_visits: 0,
        edges,
        child_probes: edges,
        remoteness: opts.remoteness.then(|| {
            rem.par_iter()
                .map(|r| match r.load(Ordering::Relaxed) {
                    NONE => u32::MAX,
                    r => r as u32 - 1,
                })
                .collect()
        }),
    }))
}

/// The code and remoteness of a position from its status by the rules and its (decided)
/// children. Children's cells are read first and their remoteness only where it counts (lost
/// children of a win, every child of a loss): the remoteness bytes are the larger array.
#[inline]
fn decide(
    cells: &Cells<'_>,
    rem: &[AtomicU8],
    status: Status,
    kids: &[u64],
    edges: &mut u64,
) -> (u8, u8) {
    match status {
        Status::Unused => (cells::UNDECIDED, NONE),
        Status::Over(Value::Draw) => (cells::DRAW, NONE),
        Status::Over(v) => (cells::code(v), 1),
        Status::Open => {
            *edges += kids.len() as u64;
            if kids.is_empty() {
                return (cells::LOSS, 1);
            }
            let mut any_lost = false;
            let mut all_won = true;
            for &c in kids.iter() {
                match cells.get(c) {
                    cells::LOSS => any_lost = true,
                    cells::WIN => {}
                    _ => all_won = false,
                }
            }
            let r = |c: u64| rem[c as usize].load(Ordering::Relaxed);
            if any_lost {
                let quickest = kids
                    .iter()
                    .filter(|&&c| cells.get(c) == cells::LOSS)
                    .map(|&c| r(c))
                    .min()
                    .unwrap_or(1);
                (cells::WIN, quickest + 1)
            } else if all_won {
                let slowest = kids.iter().map(|&c| r(c)).max().unwrap_or(1);
                (cells::LOSS, slowest + 1)
            } else {
                (cells::DRAW, NONE)
            }
        }
    }
}
