//! Errors of the oracles' sweeps and checks: a graph or terminal pair the oracle refuses, a
//! position it cannot judge, an input text it cannot read, a table it does not decide.

use super::cut;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OracleError {
    /// A graph and terminals that make no game for the oracle (`reason` says why).
    #[error("graph {graph6} with terminals {a} {b}: {reason}")]
    Pair {
        graph6: String,
        a: usize,
        b: usize,
        reason: String,
    },

    /// A graph with vertices but no edge, which has terminal pairs but no Shannon game.
    #[error(
        "graph {graph6} has {vertices} vertices and no edges: the Shannon game needs at least one edge"
    )]
    NoEdges { graph6: String, vertices: usize },

    /// A position of `spec` the oracle cannot judge (`reason` says why).
    #[error("{spec}: position '{}': {reason}", cut(.position))]
    Position {
        spec: String,
        position: String,
        reason: String,
    },

    /// A game the engine compared cannot solve, or the oracle cannot decide (`reason`).
    #[error("{spec}: {reason}")]
    Unsupported { spec: String, reason: String },

    /// A table whose game Lehman's criterion does not decide.
    #[error(
        "{path}: Lehman's criterion decides Shannon edge games (shannon: and bridgit: tables), not {spec}"
    )]
    NotEdgeGame { path: String, spec: String },

    /// A corruption to inject that is not `GRAPH6:A:B:POSITION`.
    #[error("'{}' is not GRAPH6:A:B:POSITION (e.g. Bg:0:2:./R)", cut(.text))]
    Corruption { text: String },

    /// A position text of the minimax that the game's notation reads to an index out of
    /// range or reached by another text.
    #[error(
        "{spec}: position '{}' parses to index {index}, out of range or reached by another text",
        cut(.position)
    )]
    IndexClash {
        spec: String,
        position: String,
        index: u64,
    },

    /// A position of the game that no text of the minimax reaches.
    #[error("{spec}: index {index} is a position no text reaches")]
    Unreached { spec: String, index: u64 },
}
