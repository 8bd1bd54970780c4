//! # retrodb
//!
//! retrodb builds complete win/loss/draw databases for finite two-player games by parallel
//! retrograde analysis, keeps them as packed 2-bit tables in memory-mapped files, and answers
//! position lookups from them.
//!
//! The data flows one way: a game spec becomes a [`games::AnyGame`]; [`builder`] has a solver
//! from [`solve`] decide every position into 2-bit [`base::cells`] held by a [`table`] file; a
//! [`table::Table`] opens the file again, rebuilds the game from its header and answers probes
//! ([`table::lookup`] orders its moves and adds the line and the values as games).
//! Imports run one way too: cli -> builder -> solve / table -> games -> game
//! (docs/ARCHITECTURE.md).
//!
//! The library is these modules: the contract a game meets ([`game`], with the board shapes a
//! game may declare), the games ([`games`]), the solvers ([`solve`]), the table files and their
//! lookups ([`table`]), the build that joins them ([`builder`]), combinatorial game theory's
//! canonical forms ([`cgt`]), the HTTP server ([`serve`]), the error ([`error`]) and what every
//! layer shares ([`base`]: 2-bit cells, Sprague-Grundy values, remoteness' encodings, memory
//! limits, progress, the random generator). The applications built on it — the terminal game,
//! the benchmarks, the Bridg-It research and the independent checkers — are [`apps`], and the
//! command line is [`cli`] (its entry points only, so that a program that registers games of
//! its own, [`games::register`], can run it).
//!
//! ```
//! use retrodb::{builder::{self, BuildOptions}, games::AnyGame, table};
//! # let dir = std::env::temp_dir().join(format!("retrodb-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir).unwrap();
//! # let out = dir.join("seed001.rdb");
//! // The seed's digraph (data/seed001.txt): 12 vertices, draws included.
//! let game = AnyGame::open("digraph:data/seed001.txt", u64::MAX)?;
//! builder::build(&game, &out, &BuildOptions::default())?;
//! let t = table::Table::open(&out)?;
//! assert_eq!(t.probe_text("4")?.value, retrodb::Value::Win);
//! # std::fs::remove_dir_all(&dir).unwrap();
//! # Ok::<(), retrodb::Error>(())
//! ```

pub mod apps;
pub mod base;
pub mod builder;
pub mod cgt;
pub mod cli;
pub mod error;
pub mod game;
pub mod games;
#[cfg(feature = "serve")]
pub mod serve;
pub mod solve;
pub mod table;

pub use error::{Error, Result};
pub use game::{Game, Move, Notation, Omissions, Status, Value};
