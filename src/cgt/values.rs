//! The value of every configuration of a cell game, as a canonical game.
//!
//! A cell game's configuration is a short partizan game: Left's options claim an empty cell for
//! Left, Right's for Right. A board where a player has already won has no moves in the table's
//! game; as a game value it is given the convention of **`C` free moves for the winner**: the
//! integer `C` when Left has connected, `-C` when Right has cut (`C >= 1`, so the winner wins
//! whoever is to move, as in the table). Values are computed from the highest configuration index
//! down (a move adds `3^i` or `2 * 3^i`, so children come first), and `make` is memoised on the
//! option lists: configurations with the same options share the work, and memory grows with the
//! distinct values, not with the positions (besides one id per configuration).

use std::collections::HashMap;

use super::{Game, Games};
use crate::game::{PlainBoard, digit_masks};
use crate::oracle::surreal::Dyadic;

/// Every configuration's value (indexed by configuration, `0..3^cells`), in `games`.
pub struct BoardValues {
    pub games: Games,
    pub values: Vec<Game>,
    /// The convention's `C`.
    pub free_moves: u32,
}

/// Values of every configuration of `board` with the winner's `free_moves` convention.
pub fn board_values(board: &PlainBoard<'_>, free_moves: u32) -> BoardValues {
    assert!(free_moves >= 1, "the winner gets at least one free move");
    let e = board.cells;
    let n = 3usize.pow(e);
    let mut games = Games::new();
    let c = Dyadic::int(free_moves as i64);
    let left_won = games.number(c);
    let right_won = games.neg(left_won);
    let pow3: Vec<usize> = (0..e).map(|i| 3usize.pow(i)).collect();
    let mut values = vec![Games::ZERO; n];
    let mut made: HashMap<(Vec<Game>, Vec<Game>), Game> = HashMap::new();
    let full = (1u64 << e) - 1;
    let (mut l_opts, mut r_opts) = (
        Vec::with_capacity(e as usize),
        Vec::with_capacity(e as usize),
    );
    for config in (0..n).rev() {
        let (l, r) = digit_masks(config as u64, e);
        let (lw, rw) = board.won(l, r);
        values[config] = if lw {
            left_won
        } else if rw {
            right_won
        } else {
            l_opts.clear();
            r_opts.clear();
            let mut empty = full & !(l | r);
            while empty != 0 {
                let i = empty.trailing_zeros() as usize;
                empty &= empty - 1;
                l_opts.push(values[config + pow3[i]]);
                r_opts.push(values[config + 2 * pow3[i]]);
            }
            l_opts.sort_unstable();
            l_opts.dedup();
            r_opts.sort_unstable();
            r_opts.dedup();
            match made.get(&(l_opts.clone(), r_opts.clone())) {
                Some(&g) => g,
                None => {
                    let g = games.make(l_opts.clone(), r_opts.clone());
                    made.insert((l_opts.clone(), r_opts.clone()), g);
                    g
                }
            }
        };
    }
    BoardValues {
        games,
        values,
        free_moves,
    }
}

/// The value of single positions of a game, computed on demand from their options, with a
/// bound on the positions visited (an early position of a large board stands for most of its
/// table). Cell games' full tables (both movers of every configuration) and Hackenbush have
/// values; a finished cell board is worth `free_moves` to its winner.
pub struct PositionValues<'a> {
    game: &'a crate::games::AnyGame,
    pub games: Games,
    memo: HashMap<u64, Game>,
    left_won: Game,
    limit: usize,
}

impl<'a> PositionValues<'a> {
    /// `None` for games without values (digraphs, cell games indexed for one first mover).
    pub fn new(
        game: &'a crate::games::AnyGame,
        free_moves: u32,
        limit: usize,
    ) -> Option<PositionValues<'a>> {
        use crate::games::AnyGame;
        match game {
            AnyGame::Cell(g) if g.start().is_none() => {}
            AnyGame::Hackenbush(_) => {}
            _ => return None,
        }
        let mut games = Games::new();
        let left_won = games.number(Dyadic::int(free_moves.max(1) as i64));
        Some(PositionValues {
            game,
            games,
            memo: HashMap::new(),
            left_won,
            limit,
        })
    }

    /// The value of the configuration or edge set of position `pos` (either mover), or `None`
    /// when it would take more than the limit's positions.
    pub fn value(&mut self, pos: u64) -> Option<Game> {
        use crate::Game as _;
        use crate::games::AnyGame;
        let key = pos >> 1;
        if let Some(&g) = self.memo.get(&key) {
            return Some(g);
        }
        if self.memo.len() >= self.limit {
            return None;
        }
        let at = key << 1;
        if let AnyGame::Cell(g) = self.game {
            let (l, r) = g.masks(at);
            match g.winner(l, r) {
                Some(crate::games::cell::Player::Left) => {
                    return Some(self.remember(key, self.left_won));
                }
                Some(crate::games::cell::Player::Right) => {
                    let v = self.games.neg(self.left_won);
                    return Some(self.remember(key, v));
                }
                None => {}
            }
        }
        let mut sides = [Vec::new(), Vec::new()];
        for (mover, side) in sides.iter_mut().enumerate() {
            let mut children = Vec::new();
            crate::with_game!(self.game, g => g.for_each_child(at + mover as u64, |c| children.push(c)));
            for c in children {
                side.push(self.value(c)?);
            }
        }
        let [l, r] = sides;
        let v = self.games.make(l, r);
        Some(self.remember(key, v))
    }

    fn remember(&mut self, key: u64, g: Game) -> Game {
        self.memo.insert(key, g);
        g
    }
}
