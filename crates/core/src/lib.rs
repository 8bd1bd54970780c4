//! # retrodb-core
//!
//! The engine of retrodb: what a program needs to define games, build their complete
//! win/loss/draw tables by parallel retrograde analysis, and read them — packed 2-bit tables in
//! memory-mapped files, zstd-compressed for random access, checksummed. The command line, the
//! HTTP server, the research and the benchmarks are built on it in the `retrodb` crate; this
//! crate depends on none of their crates (no clap, indicatif, plotters, axum, hyper, tokio or
//! tower).
//!
//! The data flows one way: a game spec becomes an [`AnyGame`]; [`build`] has a solver from
//! [`solve`] decide every position into 2-bit cells held by a [`table`] file; a [`Table`] opens
//! the file again, rebuilds the game from its header and answers probes ([`table::lookup`]
//! orders its moves and adds the line and the values as games). Imports run one way too:
//! table's builder -> solve / table -> games -> game -> base (docs/ARCHITECTURE.md).
//!
//! - [`game`]: the contract a game meets ([`Game`], [`game::Tiered`], [`Notation`]), the value
//!   of a position ([`Value`]), the board shapes a game may declare, and combinatorial game
//!   theory's canonical forms ([`game::cgt`]).
//! - [`games`]: the built-in families behind one enum ([`AnyGame`]) and the registry a program
//!   adds its own families to ([`register`], [`register_tiered`]: with the kernels instantiated
//!   for their types).
//! - [`solve`]: the solvers and the plan that picks a kernel for a game's board (across the
//!   ranks of an MPI job with the feature `mpi`).
//! - [`table`]: the table files — built ([`build`], [`BuildOptions`]; the builder is
//!   [`table::builder`]), written, compressed, verified, opened ([`Table`]) and probed.
//! - [`base`]: what every layer shares — the error ([`Error`], [`Result`]), the 2-bit cells,
//!   Sprague-Grundy values, memory limits, progress, the random generator.
//!
//! ```
//! use retrodb_core::{AnyGame, BuildOptions, Table};
//! let dir = std::env::temp_dir().join(format!("retrodb-core-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! // A token game on a digraph: from 0 to 1 or 2, from 1 back to 0; 2 has no move.
//! let input = dir.join("g.txt");
//! std::fs::write(&input, "0 1\n0 2\n1 0\n").unwrap();
//! let game = AnyGame::open(&format!("digraph:{}", input.display()), u64::MAX)?;
//! let out = dir.join("g.rdb");
//! retrodb_core::build(&game, &out, &BuildOptions::default())?;
//! let t = Table::open(&out)?;
//! // The player to move at 0 moves to 2, where the other cannot move.
//! assert_eq!(t.probe_text("0")?.value, retrodb_core::Value::Win);
//! # std::fs::remove_dir_all(&dir).unwrap();
//! # Ok::<(), retrodb_core::Error>(())
//! ```

pub mod base;
pub mod game;
pub mod games;
mod registration;
pub mod solve;
pub mod table;

pub use base::error::{Error, Result};
pub use game::{Game, Move, Notation, Omissions, Status, Value};
pub use games::AnyGame;
pub use registration::{register, register_tiered};
pub use table::builder::{BuildOptions, build};
pub use table::{Probe, Table};
