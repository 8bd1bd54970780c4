//! Solving across ranks: the engines that split a game's positions between processes (MPI
//! ranks, or threads standing in for them) and exchange decisions in bulk-synchronous rounds.
//!
//! - [`comm`]: the collectives the engines use ([`comm::Comm`]), and a transport over threads;
//! - [`digraph`]: the token game on a digraph, vertices split across ranks;
//! - `sliced`: the rows of a sliced game's key tiers as jobs rank 0 hands out;
//! - `frames`: the same for the out-of-core kernel, whose cells go back to rank 0 to be
//!   compressed.
//!
//! docs/DISTRIBUTED.md describes the design and how to run it.

pub mod comm;
pub mod digraph;
pub(crate) mod frames;
#[cfg(feature = "mpi")]
pub mod mpi;
pub(crate) mod sliced;
