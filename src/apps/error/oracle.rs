//! Errors of the oracles' sweeps and checks: a graph or terminal pair the oracle refuses, a
//! position it cannot judge, an input text it cannot read, a table it does not decide; and the
//! pieces of a census: a piece named wrongly, a piece file damaged, repeated, missing or unlike
//! the others.

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

    /// A piece of a census that is not `RES/MOD` with `RES < MOD`.
    #[error("'{}' is not a piece RES/MOD with 0 <= RES < MOD (e.g. 3/64)", cut(.text))]
    PieceSpec { text: String },

    /// A piece file that cannot be read as one, or whose content does not match its checksum.
    #[error("piece file {path} is damaged: {reason}")]
    PieceDamaged { path: String, reason: String },

    /// Two piece files of the same piece, or holding the same graphs.
    #[error("piece {piece} is given twice: {first} and {second}")]
    PieceRepeated {
        piece: String,
        first: String,
        second: String,
    },

    /// A piece file unlike the first one given (another modulus, vertex count or options).
    #[error("piece file {path} {got}, but {first} {expected}")]
    PieceMismatch {
        path: String,
        got: String,
        first: String,
        expected: String,
    },

    /// Pieces of a census that no file given holds (`RES` of each).
    #[error("{} of the {of} pieces are missing: {}", .missing.len(), piece_list(.missing, *.of))]
    PiecesMissing { of: u64, missing: Vec<u64> },

    /// A merge given no piece file.
    #[error("no piece files in {paths} (a piece file is a .json file written by --out)")]
    NoPieces { paths: String },

    /// A piece whose graphs do not all have the same number of vertices.
    #[error("a piece holds graphs of one vertex count; these have {counts:?} vertices")]
    PieceVertices { counts: Vec<usize> },

    /// A piece file to write that exists already.
    #[error(
        "{path} exists: a finished piece is not overwritten (delete it to run the piece again)"
    )]
    PieceExists { path: String },
}

/// The first pieces of a list, as `3/64, 5/64, ... (and N more)`.
fn piece_list(res: &[u64], of: u64) -> String {
    const SHOWN: usize = 8;
    let mut text: Vec<String> = res
        .iter()
        .take(SHOWN)
        .map(|r| format!("{r}/{of}"))
        .collect();
    if res.len() > SHOWN {
        text.push(format!("and {} more", res.len() - SHOWN));
    }
    text.join(", ")
}
