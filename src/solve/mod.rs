//! The retrograde engines. They know the [`crate::game::Game`] contract and the 2-bit
//! [`crate::table::cells`], and nothing of any particular game or of files.
//!
//! - [`counter`]: the counter-decrement engine, for any game (cycles and draws included).

pub mod counter;

use indicatif::ProgressBar;

/// What a solver is asked to do besides deciding values.
#[derive(Clone, Default)]
pub struct SolveOptions {
    /// Keep the round each position was decided in (its remoteness).
    pub remoteness: bool,
    /// Where to report progress; `None` reports nothing.
    pub progress: Option<ProgressBar>,
}

/// What a finished solve reports.
#[derive(Clone, Debug, Default)]
pub struct SolveStats {
    /// `[unused, win, loss, draw]` positions.
    pub counts: [u64; 4],
    /// Rounds of the retrograde pass (the largest remoteness plus one).
    pub rounds: u32,
    /// Child-to-parent steps taken (each an edge of the game graph seen backwards).
    pub parent_visits: u64,
    /// Children counted in the initial pass (the edges of the game graph).
    pub edges: u64,
    /// Per position, the round it was decided in; present when asked for. Draws hold `u32::MAX`,
    /// unused indices `0`.
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
