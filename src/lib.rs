//! # retrodb
//!
//! retrodb builds complete win/loss/draw databases for finite two-player games by parallel
//! retrograde analysis, keeps them as packed 2-bit tables in memory-mapped files, and answers
//! position lookups from them.
//!
//! The data flows one way: a game spec becomes a [`games::AnyGame`]; [`build`] has a solver from
//! [`solve`] decide every position into 2-bit [`cells`] held by a [`table`] file; a
//! [`table::Table`] opens the file again, rebuilds the game from its header and answers probes.
//! Imports run one way too: cli -> build -> solve / table -> games -> game / shape
//! (docs/ARCHITECTURE.md).
//!
//! ```no_run
//! use retrodb::{build::{self, BuildOptions}, games::AnyGame, table};
//! let game = AnyGame::open("digraph:data/seed001.txt", u64::MAX)?;
//! let summary = build::build(&game, "seed001.rdb".as_ref(), &BuildOptions::default())?;
//! let t = table::Table::open("seed001.rdb".as_ref())?;
//! let answer = t.probe_text("4")?;
//! assert_eq!(answer.value, retrodb::Value::Win);
//! # Ok::<(), retrodb::Error>(())
//! ```

pub mod bench;
pub mod build;
pub mod cells;
pub mod cgt;
pub mod error;
pub mod game;
pub mod games;
pub mod grundy;
pub mod lookup;
pub mod memory;
pub mod oracle;
pub mod play;
pub mod progress;
pub mod remoteness;
pub mod research;
#[cfg(feature = "serve")]
pub mod serve;
pub mod shape;
pub mod solve;
pub mod splitmix;
pub mod table;

pub use error::{Error, Result};
pub use game::{Game, Move, Notation, Omissions, Status, Value};
