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
