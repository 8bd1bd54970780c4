//! # retrodb
//!
//! retrodb builds complete win/loss/draw databases for finite two-player games by parallel
//! retrograde analysis, keeps them as packed 2-bit tables in memory-mapped files, and answers
//! position lookups from them.
//!
//! The data flows one way: a game spec becomes an [`AnyGame`]; [`build`] has a solver from
//! [`solve`] decide every position into 2-bit cells held by a [`table`] file; a [`Table`] opens
//! the file again, rebuilds the game from its header and answers probes ([`table::lookup`]
//! orders its moves and adds the line and the values as games). Imports run one way too:
//! apps -> table's builder -> solve / table -> games -> game -> base (docs/ARCHITECTURE.md).
//!
//! The library's face is six modules and the names below them a program needs most:
//!
//! - [`game`]: the contract a game meets ([`Game`], [`game::Tiered`], [`Notation`]), the value
//!   of a position ([`Value`]), the board shapes a game may declare, and combinatorial game
//!   theory's canonical forms ([`game::cgt`]).
//! - [`games`]: the built-in families behind one enum ([`AnyGame`]) and the registry a program
//!   adds its own families to ([`register`]).
//! - [`solve`]: the solvers and the plan that picks a kernel for a game's board.
//! - [`table`]: the table files — built ([`build`], [`BuildOptions`]; the builder is
//!   [`table::builder`]), written, compressed, verified, opened ([`Table`]) and probed.
//! - [`apps`]: what is built on the library — the command line ([`apps::cli`], its entry points
//!   a program with games of its own can run), the HTTP server (`apps::serve`, feature
//!   `serve`), the terminal game, the benchmarks, the Bridg-It research and the independent
//!   checkers.
//! - [`base`]: what every layer shares — the error ([`Error`], [`Result`]), the 2-bit cells,
//!   Sprague-Grundy values, memory limits, progress, the random generator.
//!
//! ```
//! use retrodb::{AnyGame, BuildOptions, Table};
//! # let dir = std::env::temp_dir().join(format!("retrodb-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir).unwrap();
//! # let out = dir.join("seed001.rdb");
//! // The seed's digraph (data/seed001.txt): 12 vertices, draws included.
//! let game = AnyGame::open("digraph:data/seed001.txt", u64::MAX)?;
//! retrodb::build(&game, &out, &BuildOptions::default())?;
//! let t = Table::open(&out)?;
//! assert_eq!(t.probe_text("4")?.value, retrodb::Value::Win);
//! # std::fs::remove_dir_all(&dir).unwrap();
//! # Ok::<(), retrodb::Error>(())
//! ```

pub mod apps;
pub mod base;
pub mod game;
pub mod games;
pub mod solve;
pub mod table;

pub use base::error::{Error, Result};
pub use game::{Game, Move, Notation, Omissions, Status, Value};
pub use games::{AnyGame, register};
pub use table::builder::{BuildOptions, build};
pub use table::{Probe, Table};
