//! Research tools for Bridg-It: each player's graph and `b_L`, `b_R` (the fewest further bridges
//! a player needs), the spanning-tree strategies, the option-ranking conjecture, and the report
//! that checks all of them against a complete table; and, for any game with tiers, the
//! distribution of value and remoteness by tier ([`depth`]).
//!
//! Everything here reads positions as cell states (cell `i` of the position text is edge `i` of
//! both players' graphs) and reaches the table only through the cell game's own conversion
//! between states and indices, so a change of index layout leaves it untouched; [`depth`] reads
//! indices only as the game's own tier walk lists them.

pub mod depth;
pub mod geometry;
pub mod order;
pub mod ranking;
pub mod report;
pub mod strategy;
pub mod trees;

pub use geometry::PlayerGraph;
pub use report::{
    LateReport, Report, SamplePopulation, open_or_build, render_text, research, research_late,
    research_lehman, research_sample, research_with_progress,
};
pub use strategy::{Optional, SpanningTreePlayer, optional_moves};
