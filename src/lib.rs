//! # retrodb
//!
//! retrodb builds complete win/loss/draw databases for finite two-player games by parallel
//! retrograde analysis, keeps them as packed 2-bit tables in memory-mapped files, and answers
//! position lookups from them.
//!
//! This crate is the applications: the command line ([`apps::cli`], its entry points a program
//! with games of its own can run), the HTTP server (`apps::serve`, feature `serve`), the
//! terminal game, the benchmarks, the Bridg-It research and the independent checkers. The
//! engine — games, solvers, table files — is the crate `retrodb-core`, whose modules are
//! re-exported here under the same names, so `retrodb::table::Table` is
//! `retrodb_core::table::Table`. A program that only defines games, builds tables or reads them
//! depends on `retrodb-core` alone (none of clap, indicatif, plotters or the HTTP stack).
//!
//! Imports run one way: apps -> table's builder -> solve / table -> games -> game -> base
//! (docs/ARCHITECTURE.md); the core does not know this crate.
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

pub use retrodb_core::{
    AnyGame, BuildOptions, Error, Game, Move, Notation, Omissions, Probe, Result, Status, Table,
    Value, base, build, game, games, register, register_tiered, solve, table, with_game,
    with_tiered_game,
};
