//! Remoteness, named once: how a position's remoteness is held in memory and how a table file
//! stores it, each with its one "none" (a draw, or an index that is no position).
//!
//! - In memory, a remoteness is a `u32` (a solve's [`crate::solve::SolveStats::remoteness`], the
//!   distributed engine's, a table's read back for re-encoding), [`NONE`] for none; a table's
//!   reader answers `Option<u32>`.
//! - While the tiered engine solves, it keeps one byte a position, `2 * (remoteness + 1) +
//!   lost` with [`ENGINE_NONE`] for none, so zeroed memory starts as none and a child is read
//!   with one load; `table::format::bytes_of_engine` and `nibbles_of_engine` turn it into the file's.
//! - On disk (docs/FORMAT.md), a remoteness of `width` bytes (1, 2 or 4) holds
//!   [`stored_none`]`(width)`, all-ones, for none; a table in nibbles stores a draw's as 0 beside
//!   its cell. The width choice and the byte layout are `table::format`'s.

use rayon::prelude::*;

/// In memory: no remoteness (a draw, or an index that is no position).
pub const NONE: u32 = u32::MAX;

/// The tiered engine's working byte for no remoteness (draws, unused indices).
pub const ENGINE_NONE: u8 = 0;

/// On disk: the value a remoteness of `width` bytes holds for none, all-ones.
pub const fn stored_none(width: u8) -> u32 {
    match width {
        1 => 0xFF,
        2 => 0xFFFF,
        _ => u32::MAX,
    }
}

/// The largest remoteness in `rem` that is not [`NONE`], 0 if none.
pub fn max_finite(rem: &[u32]) -> u32 {
    rem.par_iter()
        .filter(|&&r| r != NONE)
        .max()
        .copied()
        .unwrap_or(0)
}
