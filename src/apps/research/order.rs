//! The option-ranking conjecture tested as stated: against the order of combinatorial game
//! theory, not against win/loss and remoteness.
//!
//! The statement says that option `G_i^L` ranked above `G_j^L` satisfies `G_i^L > G_j^L`, and
//! that options equal on both keys are equal games. `G >= H` means Left wins `G - H` when Right
//! moves first; two options can also be incomparable (`G - H` a first-player win), which no
//! ranking by numbers can express. Each option's value is its configuration's canonical form
//! ([`crate::games::cell::values::board_values`]), under the convention that a finished board is worth
//! `C` free moves to its winner; the figures are kept per `C`, so a dependence on the convention
//! shows.
//!
//! The invariant: the truth of a pair comes from the values alone (an [`OrderTable`] over the
//! arena), the ranking from cell states alone ([`super::ranking`]); neither reads the other.

use serde::Serialize;

use crate::apps::error::{AppError, ResearchError, Result};
use crate::game::cgt::{Game, Order, OrderTable};
use crate::game::{Game as _, Tiered};
use crate::games::cell::values::{BoardValues, board_values};
use crate::games::cell::{CellGame, EMPTY, LEFT, Player};

/// Every configuration's value for one convention `C`, with the order of every pair of values.
pub struct GameOrder {
    pub free_moves: u32,
    values: BoardValues,
    order: OrderTable,
}

impl GameOrder {
    /// The values of every configuration of `game` (a cell game's full table) for `C`.
    pub fn new(game: &CellGame, free_moves: u32) -> Result<GameOrder> {
        let board = game.board_shape().and_then(|b| b.plain()).ok_or_else(|| {
            AppError::Research(ResearchError::NotPlainBoard { spec: game.spec() })
        })?;
        let mut values = board_values(&board, free_moves)?;
        let order = OrderTable::new(&mut values.games);
        Ok(GameOrder {
            free_moves,
            values,
            order,
        })
    }

    /// The value of the configuration given by cell states (either mover: a value is the
    /// configuration's, both players' options together).
    pub fn value(&self, cells: &[u8]) -> Game {
        self.values.values[configuration(cells)]
    }

    /// How option `a` compares with option `b` for the player who chooses between them: Left
    /// prefers larger games, Right smaller ones.
    pub fn truth(&self, a: Game, b: Game, mover: Player) -> Truth {
        truth_of(self.order.compare(a, b), mover)
    }

    /// CGSuite's notation of a value.
    pub fn show(&self, g: Game) -> String {
        self.values.games.show(g)
    }

    /// The distinct values over every configuration.
    pub fn distinct(&self) -> usize {
        let mut seen = vec![false; self.values.games.len()];
        for g in &self.values.values {
            seen[g.index()] = true;
        }
        seen.iter().filter(|&&b| b).count()
    }
}

/// The configuration number of cell states: digit `i` (base 3) is cell `i`, 1 for Left's, 2
/// for Right's — the order [`board_values`] indexes by.
pub fn configuration(cells: &[u8]) -> usize {
    cells.iter().rev().fold(0usize, |acc, &s| {
        acc * 3
            + match s {
                EMPTY => 0,
                LEFT => 1,
                _ => 2,
            }
    })
}

/// How option `a` compares with option `b` for `mover`, given how `a` compares with `b` as
/// games: Left prefers larger games, Right smaller ones.
pub fn truth_of(o: Order, mover: Player) -> Truth {
    match (o, mover) {
        (Order::Equal, _) => Truth::Equal,
        (Order::Confused, _) => Truth::Incomparable,
        (Order::Greater, Player::Left) | (Order::Less, Player::Right) => Truth::Better,
        _ => Truth::Worse,
    }
}

/// How one option really compares with another, for the player choosing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Truth {
    Better,
    Equal,
    Worse,
    Incomparable,
}

/// The ranking against the game order, for one convention, variant and mover, over one
/// population of positions.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct OrderFigures {
    /// The convention: a finished board is worth this many free moves to its winner.
    pub free_moves: u32,
    pub variant: String,
    pub mover: String,
    /// Positions with at least two options.
    pub positions: u64,
    /// Pairs of options (unordered).
    pub pairs: u64,
    /// Pairs the ranking orders (one option above the other), and how the higher one really
    /// compares with the lower: the statement claims `better` for all of them.
    pub ranked: u64,
    pub ranked_better: u64,
    pub ranked_equal: u64,
    pub ranked_worse: u64,
    pub ranked_incomparable: u64,
    /// Of the ranked pairs, those where exactly one option wins at once (a finished board,
    /// worth `C`), and how the higher option really compares in these: better, worse,
    /// incomparable (equal is the rest). The ranking puts the immediate win first, and it can
    /// never be better or equal: after the other move the winning cell is still free, so the
    /// other option `H` has `C` among its Left options (for Left to move), hence not `H <= C`.
    pub ranked_with_immediate_win: u64,
    pub ranked_with_immediate_win_better: u64,
    pub ranked_with_immediate_win_worse: u64,
    pub ranked_with_immediate_win_incomparable: u64,
    /// Pairs the statement calls equivalent (equal keys, no option winning at once), and how
    /// they really compare: the statement claims `equal` for all of them.
    pub equivalent: u64,
    pub equivalent_equal: u64,
    /// One of the two is strictly better.
    pub equivalent_ordered: u64,
    pub equivalent_incomparable: u64,
    /// Pairs with equal keys in positions where some option wins at once, where the statement
    /// claims nothing.
    pub tied_beside_immediate_win: u64,
    /// Positions where every claim on a pair holds.
    pub positions_all_claims_hold: u64,
    /// Positions where some top-ranked option is strictly worse than another option.
    pub positions_top_dominated: u64,
}

impl OrderFigures {
    pub fn new(free_moves: u32, variant: &str, mover: Player) -> OrderFigures {
        OrderFigures {
            free_moves,
            variant: variant.to_string(),
            mover: format!("{mover:?}").to_lowercase(),
            ..OrderFigures::default()
        }
    }

    /// Adds another tally's counts to these (the labels stay).
    pub fn add(&mut self, o: &OrderFigures) {
        macro_rules! add {
            ($($f:ident),*) => { $( self.$f += o.$f; )* };
        }
        add!(
            positions,
            pairs,
            ranked,
            ranked_better,
            ranked_equal,
            ranked_worse,
            ranked_incomparable,
            ranked_with_immediate_win,
            ranked_with_immediate_win_better,
            ranked_with_immediate_win_worse,
            ranked_with_immediate_win_incomparable,
            equivalent,
            equivalent_equal,
            equivalent_ordered,
            equivalent_incomparable,
            tied_beside_immediate_win,
            positions_all_claims_hold,
            positions_top_dominated
        );
    }

    /// The counts without the labels, for comparing two conventions.
    pub fn counts(&self) -> [u64; 18] {
        [
            self.positions,
            self.pairs,
            self.ranked,
            self.ranked_better,
            self.ranked_equal,
            self.ranked_worse,
            self.ranked_incomparable,
            self.ranked_with_immediate_win,
            self.ranked_with_immediate_win_better,
            self.ranked_with_immediate_win_worse,
            self.ranked_with_immediate_win_incomparable,
            self.equivalent,
            self.equivalent_equal,
            self.equivalent_ordered,
            self.equivalent_incomparable,
            self.tied_beside_immediate_win,
            self.positions_all_claims_hold,
            self.positions_top_dominated,
        ]
    }

    /// Whether the parts add up to their totals.
    pub fn consistent(&self) -> bool {
        self.ranked
            == self.ranked_better + self.ranked_equal + self.ranked_worse + self.ranked_incomparable
            && self.equivalent
                == self.equivalent_equal + self.equivalent_ordered + self.equivalent_incomparable
            && self.pairs == self.ranked + self.equivalent + self.tied_beside_immediate_win
            && self.positions_all_claims_hold <= self.positions
            && self.positions_top_dominated <= self.positions
            && self.ranked_with_immediate_win_better
                + self.ranked_with_immediate_win_worse
                + self.ranked_with_immediate_win_incomparable
                <= self.ranked_with_immediate_win
            && self.ranked_with_immediate_win <= self.ranked
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configuration_numbers_are_base_3_digits_low_cell_first() {
        assert_eq!(configuration(&[EMPTY, EMPTY]), 0);
        assert_eq!(configuration(&[LEFT, EMPTY]), 1);
        assert_eq!(configuration(&[2, EMPTY]), 2);
        assert_eq!(configuration(&[EMPTY, LEFT]), 3);
        assert_eq!(configuration(&[2, 2, LEFT]), 2 + 6 + 9);
    }
}
