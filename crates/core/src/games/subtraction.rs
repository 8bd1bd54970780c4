//! A subtraction game, `subtract:N,MOVES` (`subtract:20,1,3,4`): a heap of N tokens; a move
//! takes one of the allowed amounts; the player who cannot move loses. The position is the
//! heap's size, so the index is `0..=N`. An amount larger than N is kept in the spec and never
//! played (a subtraction set is the game's, the heap only where it starts); every sum of a
//! position and an amount is checked, since amounts go up to 2^64 - 1. The worked example of adding a game
//! (docs/ARCHITECTURE.md): the rules, the notation, its spec, and one line in `games/mod.rs`.

use crate::base::error::{Error, Result, cut};
use crate::game::{Game, Move, Notation, Omissions, PositionError, Status};
use crate::games::{Family, SpecInput};

pub struct Subtraction {
    heap: u64,
    takes: Vec<u64>,
}

impl Family for Subtraction {
    const KINDS: &'static [(&'static str, &'static str)] = &[(
        "subtract",
        "a heap and the amounts a move may take, e.g. 20,1,3,4",
    )];

    /// Its own variant, so the solvers are compiled for it.
    fn into_any(self) -> crate::games::AnyGame {
        crate::games::AnyGame::Subtraction(self)
    }

    fn open(spec: &SpecInput<'_>) -> Result<Subtraction> {
        let bad = |msg: String| Error::Spec {
            spec: spec.spec.into(),
            msg,
        };
        let mut words = spec.arg.split(',').map(str::trim);
        let heap_word = words.next().unwrap_or("");
        let heap = match heap_word.parse::<u64>() {
            Ok(n) if n < 1 << 32 => n,
            _ => {
                return Err(bad(format!(
                    "heap '{}': expected N,MOVES with N from 0 to {}, e.g. 20,1,3,4",
                    cut(heap_word),
                    (1u64 << 32) - 1
                )));
            }
        };
        let mut takes = Vec::new();
        for w in words {
            match w.parse::<u64>() {
                Ok(t) if t > 0 => takes.push(t),
                _ => {
                    return Err(bad(format!(
                        "move '{}': expected an amount from 1 to {} (amounts above the heap \
                         are allowed and never played)",
                        cut(w),
                        u64::MAX
                    )));
                }
            }
        }
        if takes.is_empty() {
            return Err(bad(
                "expected N,MOVES: at least one amount after the heap, e.g. \
                 20,1,3,4"
                    .into(),
            ));
        }
        takes.sort_unstable();
        takes.dedup();
        Ok(Subtraction { heap, takes })
    }
}

impl Game for Subtraction {
    fn spec(&self) -> String {
        let takes: Vec<String> = self.takes.iter().map(u64::to_string).collect();
        format!("subtract:{},{}", self.heap, takes.join(","))
    }
    fn size(&self) -> u64 {
        self.heap + 1
    }
    fn status(&self, _pos: u64) -> Status {
        Status::Open
    }
    fn for_each_child(&self, pos: u64, mut f: impl FnMut(u64)) {
        self.takes
            .iter()
            .filter(|&&t| t <= pos)
            .for_each(|&t| f(pos - t));
    }
    fn for_each_parent(&self, pos: u64, f: impl FnMut(u64)) {
        // Checked: an amount near 2^64 would wrap past the heap into a wrong parent.
        self.takes
            .iter()
            .filter_map(|&t| pos.checked_add(t))
            .filter(|&p| p <= self.heap)
            .for_each(f);
    }
    fn max_children(&self) -> u64 {
        self.takes.iter().filter(|&&t| t <= self.heap).count() as u64
    }
    fn impartial(&self) -> bool {
        true
    }
}

impl Notation for Subtraction {
    fn parse_position(&self, text: &str) -> Result<u64, PositionError> {
        match text.trim().parse::<u64>() {
            Ok(n) if n <= self.heap => Ok(n),
            _ => Err(PositionError::new(
                text,
                format!("expected a heap of 0 to {}", self.heap),
            )),
        }
    }
    fn position_text(&self, pos: u64) -> String {
        pos.to_string()
    }
    /// The amount the move takes.
    fn move_id(&self, name: &str) -> Option<u64> {
        name.strip_prefix("take")?.parse().ok()
    }
    fn moves(&self, pos: u64) -> Vec<Move> {
        let mut moves = Vec::new();
        self.for_each_child(pos, |c| {
            moves.push(Move {
                name: format!("take{}", pos - c),
                child: c,
            })
        });
        moves
    }
}

impl Omissions for Subtraction {}
