//! The applications built on the library, each a client that reads tables through
//! [`crate::table::Table`] and sits beside the command line: the terminal game ([`play`]), the
//! benchmarks ([`bench`](mod@bench)), the Bridg-It research ([`research`]) and the independent checkers
//! that every solver result is compared with ([`oracle`]: naive minimax, Lehman's criterion,
//! sweeps over small graphs).

pub mod bench;
pub mod cache;
pub mod chart;
pub mod cli;
pub mod error;
pub mod oracle;
pub mod play;
pub mod research;
#[cfg(feature = "serve")]
pub mod serve;
