//! Table files: building them from a solve, converting between raw and compressed encodings,
//! and opening them for lookups, verification and dumps.
//!
//! The byte layout is `docs/FORMAT.md`; [`format`] is its one implementation. Writers put a
//! table under its final name only when it is complete; readers answer only from bytes whose
//! checksum matched.

pub mod cache;
pub mod cells;
mod convert;
pub mod format;
mod read;
pub mod report;
pub(crate) mod workfiles;
mod write;
pub mod zstd;

pub use convert::{compress, decompress};
pub use read::{DEFAULT_CACHE, Info, Probe, ProbeMove, Table};
pub use workfiles::{OutputLock, raw_sibling};
pub use write::{
    BuildEstimate, BuildOptions, BuildSummary, CHECKPOINT_EVERY, Mark, OnTier, TierReport,
    TieredPlan, build, build_file, estimate, plan_tiered,
};
