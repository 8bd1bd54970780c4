//! The tiered engine: retrograde analysis for acyclic games, one tier at a time.
//!
//! A game that numbers its tiers ([`Game::tier_count`]) promises that every move goes to a
//! strictly higher tier. The engine solves the last tier first and walks down: a position of the
//! tier being solved reads its children, all already decided. It wins iff some child is lost
//! (remoteness `1 + min` over lost children); otherwise it is drawn if some child is drawn (or is
//! no position), and lost if every child is won (remoteness `1 + max` over all children). Ended
//! positions take the rules' value with remoteness 0, drawn ends none. These are exactly the
//! values and rounds of the counter engine, so both write byte-identical tables. No parents, no
//! counters and no frontiers are needed: a 2-bit cell per index, and one remoteness byte per
//! position of the tier being solved and of its child tier where the game numbers each tier's
//! positions ([`Game::tier_slots`]; cell games do), else one per index. docs/TIERED.md has the
//! memory model, the slots and the checkpoints.
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

/// Bytes the tiered engine needs for `size` positions when it keeps a remoteness byte per
/// index: the cells, those bytes, and the output remoteness (four bytes each) when asked for.
pub fn memory_estimate(size: u64, remoteness: bool) -> u64 {
    let out = if remoteness {
        size.saturating_mul(4)
    } else {
        0
    };
    size.div_ceil(4).saturating_add(size).saturating_add(out)
}

/// Whether a solve keeps remoteness per tier, in slots ([`Game::tier_slots`]): two tiers of it
/// at a time. Otherwise one byte per index (games without slots, and solves that return every
/// position's remoteness).
pub fn slotted<G: Game>(game: &G, remoteness: bool) -> bool {
    !remoteness && game.tier_slots(0).is_some()
}

/// The slots of tier `t` ([`Game::tier_slots`]; 0 for games without slots and past the last
/// tier).
pub fn slots<G: Game>(game: &G, t: u32) -> u64 {
    if t < game.tier_count().unwrap_or(0) {
        game.tier_slots(t).unwrap_or(0)
    } else {
        0
    }
}

/// The most a solved tier of `solving` and its child tier hold together, by `len` (0 past the
/// last tier).
fn widest_pair(solving: std::ops::Range<u32>, len: impl Fn(u32) -> u64) -> u64 {
    solving.map(|t| len(t) + len(t + 1)).max().unwrap_or(0)
}

/// The most slots a solved tier of `solving` and its child tier hold together.
pub fn widest_two_tiers<G: Game>(game: &G, solving: std::ops::Range<u32>) -> u64 {
    widest_pair(solving, |t| slots(game, t))
}

/// Bytes of cells a solve of the tiers `solving` keeps resident: where tiers are index ranges,
/// those of a solved tier and its child tier at most (finished tiers live in the table's file,
/// which the kernel may write out); otherwise all of them.
pub fn resident_cells<G: Game>(game: &G, solving: std::ops::Range<u32>) -> u64 {
    if game.tier_range(0).is_none() {
        return game.size().div_ceil(4);
    }
    let tiers = game.tier_count().unwrap_or(0);
    let len = |t: u32| {
        (t < tiers)
            .then(|| game.tier_range(t))
            .flatten()
            .map_or(0, |r| r.end - r.start)
    };
    widest_pair(solving, len).div_ceil(4)
}

/// Bytes the tiered engine needs resident for `game`: with slots, the cells it keeps
/// ([`resident_cells`]) and the remoteness of its two widest consecutive tiers; otherwise
/// [`memory_estimate`].
pub fn memory_estimate_for<G: Game>(game: &G, remoteness: bool) -> u64 {
    let tiers = game.tier_count().unwrap_or(0);
    if slotted(game, remoteness) {
        resident_cells(game, 0..tiers).saturating_add(widest_two_tiers(game, 0..tiers))
    } else {
        memory_estimate(game.size(), remoteness)
    }
}

/// Solves `game` into `cells` (all undecided, `game.size()` of them).
///
/// # Panics
/// When [`unsupported`] names a reason; callers check it first.
pub fn solve<G: Game>(game: &G, cells: &Cells<'_>, opts: &SolveOptions) -> SolveStats {
    let tiers = game.tier_count().unwrap_or(0);
    solve_tiers(game, cells, tiers, 0, None::<Fill>, opts, |_| Ok(true))
        .expect("the callback never fails")
        .expect("the callback never stops")
}

/// A filler of a resumed solve's remoteness, in its simplest type (for solves with none).
type Fill = fn(&mut [u8]) -> crate::Result<()>;

/// A finished tier, as [`solve_tiers`] reports it.
pub struct TierDone<'a> {
    pub tier: u32,
    /// The rounds figure of the tiers finished so far.
    pub rounds: u32,
    /// Positions the tier listed.
    pub positions: u64,
    /// What a later call needs to resume below this tier: the tier's remoteness by slot when
    /// the solve is [`slotted`], else every index's byte. Zero is "none", else remoteness + 1.
    pub remoteness: &'a [AtomicU8],
}

/// Zeroed anonymous memory for remoteness bytes: reserved, not committed (pages appear when
/// first written), with huge pages advised. Page faults on a file mapping serialised the two
/// threads in the first tiers, which touch every page.
struct AnonBytes {
    map: Option<memmap2::MmapMut>,
}

impl AnonBytes {
    fn new(len: u64) -> std::io::Result<AnonBytes> {
        if len == 0 {
            return Ok(AnonBytes { map: None });
        }
        let len = usize::try_from(len).map_err(std::io::Error::other)?;
        let map = memmap2::MmapOptions::new()
            .len(len)
            .no_reserve_swap()
            .map_anon()?;
        // Advice only: without transparent huge pages the map works the same.
        let _ = map.advise(memmap2::Advice::HugePage);
        Ok(AnonBytes { map: Some(map) })
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        self.map.as_deref_mut().unwrap_or(&mut [])
    }

    /// The bytes as atomics, for the solver's threads.
    fn atomics(&self) -> &[AtomicU8] {
        let Some(map) = &self.map else { return &[] };
        // SAFETY: AtomicU8 has u8's layout and any alignment, and every access through the
        // slice is atomic; the map is writable and only reachable through `&self` here, so no
        // plain reference to these bytes exists while the slice lives.
        unsafe { std::slice::from_raw_parts(map.as_ptr() as *const AtomicU8, map.len()) }
    }
}

/// Solves the tiers below `done_from`; the tiers from `done_from` up must already be decided in
/// `cells`, and `resume` must fill the buffer it is given with what [`TierDone::remoteness`]
/// held for tier `done_from` (for a fresh solve, `done_from` is the tier count and `resume` is
/// `None`): it is read into the engine's memory directly, with no second copy. `rounds_before`
/// is the rounds figure of the tiers already done (0 at the start).
///
/// After each tier `after` is called; it may make the work durable, and returns `false` to stop
/// there (the result is then `None`, and the solve can be resumed below that tier; after tier 0
/// the solve finishes regardless). The stats count this call's edges only.
///
/// Remoteness is kept [`slotted`] where the game allows: tier `t` reads tier `t + 1`'s only, so
/// two tiers of it are resident at a time.
pub fn solve_tiers<G: Game>(
    game: &G,
    cells: &Cells<'_>,
    done_from: u32,
    rounds_before: u32,
    resume: Option<impl FnOnce(&mut [u8]) -> crate::Result<()>>,
    opts: &SolveOptions,
    mut after: impl FnMut(TierDone<'_>) -> crate::Result<bool>,
) -> crate::Result<Option<SolveStats>> {
    assert_eq!(cells.len(), game.size(), "cells must match the game");
    if let Some(why) = unsupported(game) {
        panic!("tiered engine: {why}");
    }
    game.prepare();
    let size = game.size();
    let tiers = game.tier_count().unwrap_or(0);
    let done_from = done_from.min(tiers);
    let slotted = slotted(game, opts.remoteness);
    let no_memory = |len: usize, source| crate::Error::Io {
        path: format!("{len} bytes of anonymous memory for remoteness"),
        source,
    };
    let alloc = |len: u64| AnonBytes::new(len).map_err(|e| no_memory(len as usize, e));
    let expected = |t: u32| if slotted { slots(game, t) } else { size };
    // With slots: `child` is tier t + 1's remoteness, `current` tier t's; without, one array.
    let mut child = alloc(expected(done_from))?;
    if let Some(fill) = resume {
        fill(child.bytes_mut())?;
    }
    let progress = opts.bar(size);
    let edges = AtomicU64::new(0);
    // Rounds of the counter engine: the largest remoteness plus one, 0 when nothing is won or
    // lost. Stored bytes are remoteness plus one already, so it is their largest value.
    let rounds = AtomicU32::new(rounds_before);

    for t in (0..done_from).rev() {
        progress.set_message(format!("tier {t} of {tiers}"));
        let current = if slotted {
            Some(alloc(expected(t))?)
        } else {
            None
        };
        let (kid_rem, rem) = (
            child.atomics(),
            current.as_ref().unwrap_or(&child).atomics(),
        );
        let tier_done = AtomicU64::new(0);
        let units = game.tier_units(t);
        (0..units).into_par_iter().for_each(|unit| {
            let mut local_edges = 0u64;
            let mut done = 0u64;
            let mut local_rounds = 0u8;
            // Nothing reads tier t's cells while it is solved: decisions go out a word at a time.
            let mut batch = cells::Batch::new(cells);
            game.visit_tier(t, unit, |pos, slot, status, kids, kid_slots| {
                done += 1;
                // Without slots, remoteness is kept by index.
                let (slot, kid_slots) = if slotted {
                    (slot, kid_slots)
                } else {
                    (pos, kids)
                };
                let (code, r) = decide(cells, kid_rem, status, kids, kid_slots, &mut local_edges);
                if code != cells::UNDECIDED {
                    batch.decide(pos, code);
                }
                if r != NONE {
                    rem[slot as usize].store(r, Ordering::Relaxed);
                    local_rounds = local_rounds.max(r);
                }
            });
            drop(batch);
            edges.fetch_add(local_edges, Ordering::Relaxed);
            rounds.fetch_max(local_rounds as u32, Ordering::Relaxed);
            progress.inc(done);
            tier_done.fetch_add(done, Ordering::Relaxed);
        });
        let done = TierDone {
            tier: t,
            rounds: rounds.load(Ordering::Relaxed),
            positions: tier_done.into_inner(),
            remoteness: rem,
        };
        let go_on = after(done)?;
        if let Some(c) = current {
            child = c;
        }
        if !go_on && t > 0 {
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
        remoteness: (opts.remoteness && !slotted).then(|| {
            child
                .atomics()
                .par_iter()
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
    kid_slots: &[u64],
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
            // A child's remoteness is at its slot (its index, where there are no slots).
            let r = |slot: u64| rem[slot as usize].load(Ordering::Relaxed);
            if any_lost {
                let quickest = kids
                    .iter()
                    .zip(kid_slots)
                    .filter(|&(&c, _)| cells.get(c) == cells::LOSS)
                    .map(|(_, &slot)| r(slot))
                    .min()
                    .unwrap_or(1);
                (cells::WIN, quickest + 1)
            } else if all_won {
                let slowest = kid_slots.iter().map(|&slot| r(slot)).max().unwrap_or(1);
                (cells::LOSS, slowest + 1)
            } else {
                (cells::DRAW, NONE)
            }
        }
    }
}
