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
