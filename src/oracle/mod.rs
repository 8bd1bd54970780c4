//! Independent answers used to check the tables, computed without retrograde analysis.
//!
//! - [`surreal`]: exact dyadic rationals, the simplicity rule and nimbers — the values of
//!   Hackenbush positions, from which outcome classes follow without any table.
//!
//! The invariant: nothing here calls a solver to reach its own answer — an oracle that consulted
//! the tables could not catch their mistakes.

pub mod surreal;
