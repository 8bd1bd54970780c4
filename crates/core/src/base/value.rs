//! The game-theoretic value of a position: what every layer, from the 2-bit cells up, says a
//! position is worth to the player to move.

use std::fmt;

use serde::Serialize;

/// The game-theoretic value of a position, for the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Value {
    Win,
    Loss,
    Draw,
}

impl Value {
    /// The value for the other player: what a child's value means to the parent's mover.
    pub fn flip(self) -> Value {
        match self {
            Value::Win => Value::Loss,
            Value::Loss => Value::Win,
            Value::Draw => Value::Draw,
        }
    }

    /// The value in words for the player it belongs to, with the plies to the end where known:
    /// `wins in 3`, `loses in 2`, `draws` (`wins`, `loses` without remoteness). The one wording
    /// of the command line, the demo and the web board (docs/NOTATION.md, "Values of moves").
    pub fn in_words(self, plies: Option<u32>) -> String {
        let word = match self {
            Value::Win => "wins",
            Value::Loss => "loses",
            Value::Draw => "draws",
        };
        match plies {
            Some(n) if self != Value::Draw => format!("{word} in {n}"),
            _ => word.to_string(),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Value::Win => "win",
            Value::Loss => "loss",
            Value::Draw => "draw",
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
