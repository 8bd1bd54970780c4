//! A subtraction game, `subtract:N,MOVES` (`subtract:20,1,3,4`): a heap of N tokens; a move
//! takes one of the allowed amounts; the player who cannot move loses. The position is the
//! heap's size, so the index is `0..=N`. The worked example of adding a game
//! (docs/ARCHITECTURE.md): the rules, the notation, its spec, and one line in `games/mod.rs`.

use crate::error::{Error, Result};
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

    fn open(spec: &SpecInput<'_>) -> Result<Subtraction> {
        let bad = |msg: &str| Error::Spec {
            spec: spec.spec.into(),
            msg: msg.into(),
        };
        let mut nums = spec.arg.split(',').map(|s| s.trim().parse::<u64>());
        let heap = nums
            .next()
            .and_then(|n| n.ok())
            .ok_or_else(|| bad("expected N,MOVES"))?;
        let mut takes: Vec<u64> = nums
            .collect::<Result<_, _>>()
            .map_err(|_| bad("bad move"))?;
        takes.sort_unstable();
        takes.dedup();
        if takes.is_empty() || takes[0] == 0 || heap >= 1 << 32 {
            return Err(bad(
                "expected N below 2^32 and positive amounts, e.g. 20,1,3,4",
            ));
        }
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
    fn for_each_parent(&self, pos: u64, mut f: impl FnMut(u64)) {
        self.takes
            .iter()
            .filter(|&&t| pos + t <= self.heap)
            .for_each(|&t| f(pos + t));
    }
    fn max_children(&self) -> u64 {
        self.takes.len() as u64
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
