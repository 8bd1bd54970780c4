//! Errors of playing against a table: an opponent or a start the game does not allow, input
//! that ends before the game.

use super::cut;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PlayError {
    #[error(
        "unknown opponent '{}' (table, spanning-tree, optional, ranking, ranking-reversed)",
        cut(.name)
    )]
    UnknownOpponent { name: String },

    /// A table of a game that is not a board or graph cell game.
    #[error("play: {spec} is not a board or graph cell game")]
    NotCellGame { spec: String },

    /// An opponent that plays Bridg-It only, given another game.
    #[error("play: the {opponent} opponent plays Bridg-It only")]
    BridgitOnly { opponent: &'static str },

    /// The spanning-tree opponent asked to play Right or from a board not empty.
    #[error(
        "play: the spanning-tree opponent plays Left from the empty board (use --as right and no --from)"
    )]
    SpanningTreeStart,

    /// A Bridg-It board whose Left graph has no two edge-disjoint spanning trees.
    #[error("bridgit:{n}: no two spanning trees")]
    NoSpanningTrees { n: u32 },

    /// The computer to move with no move left (the table and the rules disagree).
    #[error("play: no move left")]
    NoMoveLeft,

    /// The human's input ended before the game did.
    #[error("play: the input ended before the game")]
    InputEnded,
}
