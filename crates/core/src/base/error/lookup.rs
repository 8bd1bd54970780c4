//! Errors of a lookup that does not fit its table or game: a line asked of a table without
//! remoteness or of a draw, game values or Sprague-Grundy values the table or game has none of,
//! an index outside the table, game values beyond a request's budget or a lookup cancelled. The
//! position itself parsed; the table is not damaged.

use super::cut;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LookupError {
    /// Principal lines asked of a table built without remoteness (`position`: the one asked,
    /// when one was).
    #[error(
        "{path}: the table was built without remoteness, so it has no principal {} (build it with --remoteness)",
        match .position { Some(p) => format!("line of '{}'", cut(p)), None => "lines".to_string() }
    )]
    NoRemoteness {
        path: String,
        position: Option<String>,
    },

    /// The principal line of a drawn position: best play never ends.
    #[error(
        "'{}' is a draw: under best play the game never ends, so it has no principal line",
        cut(.position)
    )]
    DrawHasNoLine { position: String },

    /// Game values asked of a game that has none.
    #[error(
        "{spec} has no game values (they are defined for cell games' full tables and Hackenbush)"
    )]
    NoGameValues { spec: String },

    /// A free-moves convention outside 1 to 64.
    #[error(
        "free moves {free_moves}: a finished board is worth 1 to 64 free moves to its winner (at least one free move, C >= 1)"
    )]
    FreeMoves { free_moves: u32 },

    /// The values of every configuration of a board too large for them.
    #[error(
        "{cells} cells: the values of all 3^{cells} configurations are out of reach (at most {max} cells)"
    )]
    BoardTooLarge { cells: u32, max: u32 },

    /// Generalized Sprague-Grundy values asked of a table without them (`impartial`: whether
    /// its game could have them, built with `--grundy`).
    #[error(
        "{path}: the table holds no generalized Sprague-Grundy values, which sums of tokens need; {}",
        if *.impartial {
            format!("build it with `retrodb build {spec} --grundy`")
        } else {
            format!("they are defined for impartial games (digraph:FILE), and {spec} is not one")
        }
    )]
    NoGrundy {
        path: String,
        spec: String,
        impartial: bool,
    },

    /// Game values asked by one request would visit more than its budget of `cap` positions
    /// ([`crate::base::budget::Budget`]; the server's `--max-value-positions`).
    #[error(
        "game values: this request would visit more than {cap} positions, the limit of one request (serve --max-value-positions); ask for positions with fewer below them"
    )]
    WorkLimit { cap: u64 },

    /// The lookup was cancelled: its request timed out, its client went away, or the server
    /// is shutting down.
    #[error("the lookup was cancelled (its request timed out or the server is shutting down)")]
    Cancelled,

    /// An index past the table's last.
    #[error("index {index} is outside the table (size {size})")]
    OutOfRange { index: u64, size: u64 },

    /// Stored bytes asked of a table that does not store them so (compressed, another width,
    /// a range not aligned or past the end): `what` names them.
    #[error("raw {what} {first}..{end} of {path}")]
    Raw {
        what: &'static str,
        first: u64,
        end: u64,
        path: String,
    },
}
