//! The retrograde engines. They know the [`crate::game::Game`] contract and the 2-bit
//! [`crate::base::cells`], and nothing of any particular game or of files.
//!
//! - [`counter`]: the counter-decrement engine, for any game (cycles and draws included).
//! - [`tiered`]: the tiered engine, for acyclic games that number their tiers; it decides every
//!   position exactly as the counter engine does (values, remoteness, rounds), with one of four
//!   kernels: per position through the game's walk, or by the game's shape (`kernels`:
//!   bitplane, plain remoteness, sliced rows, sliced remoteness).
//! - `grundy`: the generalized Sprague-Grundy labelling of an impartial game (values for sums
//!   of tokens), in retrograde rounds like the counter engine's.
//! - [`plan`]: which kernel solves a game, chosen once from its shape and the options, and the
//!   memory that kernel needs.

pub mod counter;
pub(crate) mod digest;
pub mod distributed;
pub(crate) mod erased;
pub(crate) mod finished;
pub(crate) mod grundy;
pub(crate) mod kernels;
pub mod plan;
pub mod tiered;

use crate::base::progress::{Progress, Silent};
use crate::games::AnyGame;
use crate::with_tiered_game;

/// Which retrograde engine solves a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    Counter,
    Tiered,
}

/// A name that is no engine.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{name}' is not an engine (engines: counter, tiered)")]
pub struct UnknownEngine {
    pub name: String,
}

impl Engine {
    /// The default engine for a game: tiered where it applies (it measures faster on every
    /// game it solves, see docs/BENCHMARKS.md), counter otherwise.
    pub fn default_for(game: &AnyGame) -> Engine {
        if tiered_unsupported(game).is_none() {
            Engine::Tiered
        } else {
            Engine::Counter
        }
    }

    /// Reads `counter` or `tiered`.
    pub fn parse(text: &str) -> Result<Engine, UnknownEngine> {
        match text {
            "counter" => Ok(Engine::Counter),
            "tiered" => Ok(Engine::Tiered),
            _ => Err(UnknownEngine {
                name: text.to_string(),
            }),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Engine::Counter => "counter",
            Engine::Tiered => "tiered",
        }
    }

    /// Bytes this engine needs for a build of `game` from scratch: those of the kernel it
    /// would use ([`plan::memory_estimate`]); the counter engine's for games the tiered engine
    /// cannot solve.
    pub fn memory_estimate(self, game: &AnyGame, remoteness: bool) -> u64 {
        plan::memory_estimate(self, game, remoteness).saturating_add(PROCESS_BYTES)
    }
}

/// What the process needs besides a solve's own memory (code, thread stacks, the allocator's
/// pools), measured as the peak of the smallest builds.
pub const PROCESS_BYTES: u64 = 6 << 20;

/// Why the tiered engine cannot solve `game`, or `None` when it can.
pub fn tiered_unsupported(game: &AnyGame) -> Option<String> {
    with_tiered_game!(game, g => tiered::unsupported(g), other => Some(format!(
        "{} may have cycles and lists no tiers; use the counter engine",
        other.spec()
    )))
}

/// A request to stop a solve early, shared between the solve and whoever may ask for it (the
/// Python module's Ctrl-C). Engines look at it between pieces of work and skip the rest once it
/// is set; the cells of a stopped solve are incomplete, so the build fails with
/// [`crate::Error::Interrupted`] before it would write a table or a checkpoint from them.
#[derive(Clone, Debug, Default)]
pub struct Stop(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl Stop {
    pub fn new() -> Stop {
        Stop::default()
    }

    /// Asks the solve to stop (it cannot be taken back).
    pub fn request(&self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    pub fn requested(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// `Err(Interrupted)` once a stop was requested.
    pub fn check(&self) -> crate::Result<()> {
        if self.requested() {
            Err(crate::Error::Interrupted(
                "the solve was interrupted".into(),
            ))
        } else {
            Ok(())
        }
    }
}

/// What a solver is asked to do besides deciding values.
#[derive(Clone, Default)]
pub struct SolveOptions {
    /// Keep the round each position was decided in (its remoteness).
    pub remoteness: bool,
    /// Where to report progress; `None` reports nothing.
    pub progress: Option<std::sync::Arc<dyn Progress>>,
    /// Checked between pieces of work; once set, the solve skips what is left.
    pub stop: Stop,
}

impl SolveOptions {
    /// Where the solve reports, its stage begun with `total` units (positions) to do: the
    /// caller's progress, or [`Silent`]. A solve's stage has no words of its own; its steps
    /// (tiers, rounds, levels) say where it is.
    pub(crate) fn begin_progress(&self, total: u64) -> &dyn Progress {
        let p = self.progress.as_deref().unwrap_or(&Silent);
        p.stage("", total);
        p
    }
}

/// What a finished solve reports.
#[derive(Clone, Debug, Default)]
pub struct SolveStats {
    /// `[unused, win, loss, draw]` positions.
    pub counts: [u64; 4],
    /// Rounds of the retrograde pass (the largest remoteness plus one); `None` where the solve
    /// did not follow remoteness (a values-only tiered solve).
    pub rounds: Option<u32>,
    /// Child-to-parent steps taken (each an edge of the game graph seen backwards).
    pub parent_visits: u64,
    /// The edges of the game graph (every position's children); `None` where the solve did not
    /// enumerate them all (a values-only tiered solve stops at a position's first lost child).
    pub edges: Option<u64>,
    /// Children whose cells were read to decide a parent (the tiered engine's random reads;
    /// fewer than the edges where a values-only solve stops at a position's first lost child).
    pub child_probes: u64,
    /// Per position, the round it was decided in; present when asked for. Draws and unused
    /// indices hold `crate::base::remoteness::NONE`.
    pub remoteness: Option<Vec<u32>>,
}

/// Bytes the counter engine needs for a game of `size` positions whose positions have at most
/// `max_children` moves (cells, counters, frontiers, remoteness when asked).
pub fn memory_estimate(size: u64, max_children: u64, remoteness: bool) -> u64 {
    // Saturating, so a game too large to number still gets an estimate above any limit.
    let cells = size.div_ceil(4);
    let counters = size.saturating_mul(counter::counter_width(max_children));
    // The current and next frontier together hold each position at most once, plus the
    // per-task pieces of the next one while it is gathered.
    let frontiers = size.saturating_mul(12);
    let rem = if remoteness {
        size.saturating_mul(4)
    } else {
        0
    };
    cells
        .saturating_add(counters)
        .saturating_add(frontiers)
        .saturating_add(rem)
}
