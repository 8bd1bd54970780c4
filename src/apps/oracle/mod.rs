//! Independent answers used to check the tables, computed without retrograde analysis.
//!
//! - [`lehman`]: Lehman's matroid criterion, the value of any Shannon edge-game position in
//!   polynomial time;
//! - [`forests`]: two edge-disjoint forests kept maximal as edges arrive (matroid partition),
//!   which Lehman's criterion and the research report's spanning trees use;
//! - [`graphs`]: small simple graphs — every connected one up to isomorphism, graph6 text,
//!   automorphisms and terminal pairs up to them;
//! - [`orbits`]: orbits of vertex pairs under a graph's automorphisms, by individualisation and
//!   refinement;
//! - [`check`]: a finished Shannon or Bridg-It table against Lehman at random positions;
//! - [`sweep`]: solves the Shannon game on many graphs and compares every table with Lehman;
//! - [`vertex`]: the Shannon game on vertices by memoised minimax;
//! - [`vertex_sweep`]: solves the vertex game on many graphs and compares every table with the
//!   minimax (and the edge game's class by Lehman beside it);
//!
//! The invariant: nothing here calls a solver to reach its own answer — an oracle that consulted
//! the tables could not catch their mistakes. (The sweep calls the solver only for the tables it
//! checks.)

pub mod check;
pub mod forests;
pub mod graphs;
pub mod lehman;
pub mod orbits;
pub mod sweep;
pub mod vertex;
pub mod vertex_sweep;
