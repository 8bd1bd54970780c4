//! Board shapes: descriptions, by data alone, of the index families a game may declare so that
//! the solvers can decide many positions at once without knowing the game.
//!
//! A shape is a promise about a game's index, moves and ends: a [`PlainBoard`] numbers every
//! configuration of claimed cells with either player to move; a [`SlicedBoard`] numbers the
//! boards alternation reaches by rows of key cells ([`sliced`]). A game declares its shape through
//! [`crate::game::Tiered::board_shape`]; [`crate::solve::plan`] picks a kernel from it. This
//! module names no game, and no game owns it: the cell games build their indices from it, the
//! solvers read it, and `game.rs` refers to it in the contract.
//!
//! The invariant a reader must not break: a shape describes its game exactly, on every position
//! (`crate::game::check_tiers` checks a plain board against its game; the sliced index's tests
//! check that every board has an index whose stored board is one of its images).

pub mod sliced;

use sliced::Sliced;

/// A player of a claiming game: Left claims to join, Right to cut. As an index's low bit, the
/// player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Player {
    Left = 0,
    Right = 1,
}

impl Player {
    pub fn other(self) -> Player {
        match self {
            Player::Left => Player::Right,
            Player::Right => Player::Left,
        }
    }

    /// The cell state this player's claims leave (1 Left's, 2 Right's; 0 is empty).
    pub fn cell(self) -> u8 {
        self as u8 + 1
    }

    pub fn letter(self) -> char {
        match self {
            Player::Left => 'L',
            Player::Right => 'R',
        }
    }

    /// The board after this player claims `cell` on Left's cells `l` and Right's `r`.
    #[inline]
    pub fn claim(self, l: u64, r: u64, cell: u32) -> (u64, u64) {
        match self {
            Player::Left => (l | 1 << cell, r),
            Player::Right => (l, r | 1 << cell),
        }
    }
}

/// The shape a game's index has, as it declares it ([`crate::game::Tiered::board_shape`]).
#[derive(Clone, Copy)]
pub enum BoardShape<'a> {
    Plain(PlainBoard<'a>),
    Sliced(SlicedBoard<'a>),
}

impl<'a> BoardShape<'a> {
    pub fn plain(self) -> Option<PlainBoard<'a>> {
        match self {
            BoardShape::Plain(b) => Some(b),
            BoardShape::Sliced(_) => None,
        }
    }

    pub fn sliced(self) -> Option<SlicedBoard<'a>> {
        match self {
            BoardShape::Sliced(b) => Some(b),
            BoardShape::Plain(_) => None,
        }
    }
}

/// A game of claiming cells, described by data alone: `cells` cells, each empty, Left's or
/// Right's; the index of a position is `mover + 2 * sum(d_i * 3^i)` (`d_i` 0 empty, 1 Left's,
/// 2 Right's; `mover` 0 when Left is to move), so every configuration with either player to move
/// is a position. A move claims an empty cell for the mover and passes the turn. Left has won
/// when his cells join (`joins` has bit `s` for every cell set `s` that does); Right has won when
/// the cells he has not taken no longer join; Left's win is tested first. A won position has no
/// moves and is a win for the winner to move, a loss for the other.
#[derive(Clone, Copy, Debug)]
pub struct PlainBoard<'a> {
    pub cells: u32,
    pub joins: &'a [u64],
}

impl PlainBoard<'_> {
    #[inline(always)]
    pub fn joins(&self, set: u64) -> bool {
        self.joins[(set >> 6) as usize] >> (set & 63) & 1 == 1
    }

    /// Who has won with Left's cells `l` and Right's `r`: `(left, right)`, at most one true.
    #[inline(always)]
    pub fn won(&self, l: u64, r: u64) -> (bool, bool) {
        let full = (1u64 << self.cells) - 1;
        let left = self.joins(l);
        (left, !left && !self.joins(full & !r))
    }
}

/// A game of claiming cells by alternation, numbered by the sliced index ([`Sliced`]): a move
/// claims an empty cell for the mover (Left where Left has no more cells than Right, less the
/// first player's edge); Left has won when his cells join (`joins`, as in [`PlainBoard`]), Right
/// when the cells he has not taken (within `full`) no longer join; Left's win is tested first; a
/// won position has no moves and is a win for the winner to move. `order` lists the cells in the
/// order a position's children are read.
#[derive(Clone, Copy)]
pub struct SlicedBoard<'a> {
    pub index: &'a Sliced,
    pub joins: &'a [u64],
    pub full: u64,
    pub order: &'a [u32],
}

/// Left's and Right's cells of a configuration given by `digits` base-3 digits of `value`
/// (digit `i`, cell `i`: 0 empty, 1 Left's, 2 Right's), as bit masks. Digits above `digits`
/// are ignored.
#[inline]
pub fn digit_masks(mut value: u64, digits: u32) -> (u64, u64) {
    let (mut l, mut r) = (0u64, 0u64);
    for i in 0..digits {
        match value % 3 {
            0 => {}
            1 => l |= 1 << i,
            _ => r |= 1 << i,
        }
        value /= 3;
    }
    (l, r)
}
