//! Table files: writing them, converting between raw and compressed encodings,
//! and opening them for lookups, verification and dumps.
//!
//! The byte layout is `docs/FORMAT.md`; [`format`](mod@format) is its one implementation. Writers put a
//! table under its final name only when it is complete; readers answer only from bytes whose
//! checksum matched. In the manner of fst's raw layer, a [`Table`] reads any bytes
//! (`AsRef<[u8]>`: a memory map by default, a `Vec` or a slice as well); the payload readers
//! (`payload.rs`: raw blocks, zstd frames, the one-mover omission as a wrapper around either)
//! work on `&[u8]` behind one trait, `CellSource`; probing (`probe.rs`), verification
//! (`verify.rs`) and a cursor for lookups near each other (`cursor.rs`) sit on top; failures
//! are a [`TableError`] with a kind a caller can match. The writer (`write/`) assembles a table
//! into any sink (`TableSink`): a table file, or memory in the tests.
//!
//! This layer knows files and bytes, and games only to rebuild a table's game from its header;
//! it never calls a solver (that is [`crate::table::builder`], where the conversions of
//! `compress` and `decompress` are too).

pub mod builder;
mod cursor;
pub mod format;
mod frames;
pub mod lookup;
mod payload;
mod probe;
mod read;
mod verify;
pub(crate) mod workfiles;
pub(crate) mod write;
pub mod zstd;

pub use crate::base::error::table::{Checked, TableError, TableErrorKind};
// Made by the builder (the conversions, and a one-mover table's rows decided by the row
// kernel); named here beside the tables they read.
pub use builder::convert::{compress, decompress};
pub use builder::rows::CountsByTier;
pub use cursor::Cursor;
pub use frames::RawFrame;
pub use probe::{LineStep, Probe, ProbeMove, SumMove, SumProbe, SumToken, move_rank};
pub use read::{DEFAULT_CACHE, GrundyInfo, Info, Table};
pub use workfiles::{OutputFile, OutputLock, check_output, output_dir, raw_sibling, write_output};
