//! The Shannon switching game on vertices, solved by a memoised minimax that shares no code with
//! retrodb's engines or its cell games.
//!
//! Short (Left) and Cut (Right) take turns claiming a vertex other than the terminals A and B.
//! Short has won when his vertices, with A and B, hold a path from A to B (an A-B edge is such a
//! path from the start); Cut has won when the vertices he has not claimed no longer hold one. In a
//! position where someone has won, the player to move has won or lost accordingly (the convention
//! of every retrodb table, positions no play reaches included).
//!
//! A position is a base-3 code: digit `i` (weight `3^i`) is cell `i`'s state — 0 free, 1 Short's,
//! 2 Cut's — and cell `i` is the `i`-th vertex other than A and B in increasing order, the order of
//! a `shannon-vertex:` position text. With `k` cells there are `3^k` codes, each with either
//! player to move.
//!
//! The invariant: a value here comes from the rules above and the values of the position's
//! children, nothing else — no table, no index of retrodb's.

use super::graphs::Graph;
use super::lehman::{Class, Player};
use crate::game::Value;

/// The most cells (vertices other than the terminals) a [`VertexGame`] solves: `2 * 3^12`
/// memoised values, 1 MB.
pub const MAX_CELLS: usize = 12;

/// The vertex game on a simple graph with two terminals.
#[derive(Clone, Debug)]
pub struct VertexGame {
    /// `join[s]`: whether the cells of the set `s` (bit `i` = cell `i`) with the terminals hold a
    /// path from A to B.
    join: Vec<bool>,
    cells: usize,
}

/// Why a [`VertexGame`] was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VertexGameError {
    #[error("terminals {a} and {b} must be two distinct vertices of 0..{vertices}")]
    Terminals { a: usize, b: usize, vertices: usize },
    #[error("{cells} vertices besides the terminals, more than the {max} the minimax solves")]
    TooLarge { cells: usize, max: usize },
}

impl VertexGame {
    /// The game on `graph` with terminals `a` and `b`; refused for equal or absent terminals and
    /// for more than [`MAX_CELLS`] other vertices.
    pub fn new(graph: &Graph, a: usize, b: usize) -> Result<VertexGame, VertexGameError> {
        let n = graph.vertices();
        if a >= n || b >= n || a == b {
            return Err(VertexGameError::Terminals { a, b, vertices: n });
        }
        let vertex: Vec<usize> = (0..n).filter(|&v| v != a && v != b).collect();
        let cells = vertex.len();
        if cells > MAX_CELLS {
            return Err(VertexGameError::TooLarge {
                cells,
                max: MAX_CELLS,
            });
        }
        let join = (0..1usize << cells)
            .map(|s| {
                let allowed = vertex
                    .iter()
                    .enumerate()
                    .filter(|&(i, _)| s >> i & 1 == 1)
                    .fold(1u64 << a | 1u64 << b, |m, (_, &v)| m | 1 << v);
                // Breadth-first from A inside the allowed vertices.
                let mut reached = 1u64 << a;
                let mut frontier = reached;
                while frontier != 0 {
                    let v = frontier.trailing_zeros() as usize;
                    frontier &= frontier - 1;
                    let fresh = graph.neighbours(v) & allowed & !reached;
                    reached |= fresh;
                    frontier |= fresh;
                }
                reached >> b & 1 == 1
            })
            .collect();
        Ok(VertexGame { join, cells })
    }

    /// The number of cells (vertices other than the terminals).
    pub fn cells(&self) -> usize {
        self.cells
    }

    /// Every position's value, by memoised minimax.
    pub fn solve(&self) -> Minimax {
        let codes = 3usize.pow(self.cells as u32);
        let mut memo = Minimax {
            cells: self.cells,
            wins: vec![UNKNOWN; 2 * codes],
        };
        // Each code's claims, kept by counting in base 3 (digit i: bit i of `short` or `cut`).
        let (mut short, mut cut) = (0usize, 0usize);
        for code in 0..codes {
            for mover in [0, 1] {
                self.mover_wins(&mut memo.wins, code, short, cut, mover);
            }
            for i in 0..self.cells {
                let bit = 1 << i;
                if short & bit != 0 {
                    // 1 -> 2
                    short &= !bit;
                    cut |= bit;
                    break;
                } else if cut & bit != 0 {
                    // 2 -> 0, carry on
                    cut &= !bit;
                } else {
                    // 0 -> 1
                    short |= bit;
                    break;
                }
            }
        }
        memo
    }

    /// Whether the player to move (0 Short, 1 Cut) wins at `code`, whose cells claimed by Short
    /// and by Cut are `short` and `cut`; memoised in `wins`.
    fn mover_wins(
        &self,
        wins: &mut [u8],
        code: usize,
        short: usize,
        cut: usize,
        mover: usize,
    ) -> bool {
        let slot = 2 * code + mover;
        if wins[slot] != UNKNOWN {
            return wins[slot] == WON;
        }
        let all = (1usize << self.cells) - 1;
        let won = if self.join[short] {
            mover == 0 // Short has joined A and B
        } else if !self.join[all & !cut] {
            mover == 1 // Cut has separated them
        } else {
            let mut free = all & !(short | cut);
            let mut any = false;
            while free != 0 && !any {
                let i = free.trailing_zeros() as usize;
                free &= free - 1;
                let weight = POW3[i];
                any = if mover == 0 {
                    !self.mover_wins(wins, code + weight, short | 1 << i, cut, 1)
                } else {
                    !self.mover_wins(wins, code + 2 * weight, short, cut | 1 << i, 0)
                };
            }
            any
        };
        wins[slot] = if won { WON } else { LOST };
        won
    }
}

/// `3^i`.
const POW3: [usize; MAX_CELLS + 1] = {
    let mut p = [1usize; MAX_CELLS + 1];
    let mut i = 1;
    while i <= MAX_CELLS {
        p[i] = 3 * p[i - 1];
        i += 1;
    }
    p
};

const UNKNOWN: u8 = 0;
const WON: u8 = 1;
const LOST: u8 = 2;

/// The values of every position of a [`VertexGame`].
#[derive(Clone, Debug)]
pub struct Minimax {
    cells: usize,
    /// Per `2 * code + mover` (0 Short to move, 1 Cut): [`WON`] or [`LOST`] for the mover.
    wins: Vec<u8>,
}

impl Minimax {
    pub fn cells(&self) -> usize {
        self.cells
    }

    /// The number of codes, `3^cells`.
    pub fn codes(&self) -> usize {
        self.wins.len() / 2
    }

    /// The value of position `code` for the player to move (there are no draws).
    #[inline]
    pub fn value(&self, code: usize, mover: Player) -> Value {
        let slot = 2 * code + (mover == Player::Cut) as usize;
        if self.wins[slot] == WON {
            Value::Win
        } else {
            Value::Loss
        }
    }

    /// The class of the empty position; `None` if both players would lose moving first, which
    /// a vertex of one's own never hurting rules out.
    pub fn class(&self) -> Option<Class> {
        Class::from_values(self.value(0, Player::Short), self.value(0, Player::Cut))
    }

    /// The position text of `code` ([`position_text`]).
    pub fn text(&self, code: usize, mover: Player) -> String {
        position_text(self.cells, code, mover)
    }
}

/// The position text of `code` in a game of `cells` cells: `.`, `L` or `R` per cell, then `/L`
/// or `/R` for the mover.
pub fn position_text(cells: usize, code: usize, mover: Player) -> String {
    let mut s = String::with_capacity(cells + 2);
    let mut c = code;
    for _ in 0..cells {
        s.push(['.', 'L', 'R'][c % 3]);
        c /= 3;
    }
    s.push_str(if mover == Player::Short { "/L" } else { "/R" });
    s
}

/// The number of codes of a game of `cells` cells, `3^cells`.
pub fn codes(cells: usize) -> usize {
    POW3[cells]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(n: usize, edges: &[(usize, usize)], a: usize, b: usize) -> Minimax {
        VertexGame::new(&Graph::from_edges(n, edges).unwrap(), a, b)
            .unwrap()
            .solve()
    }

    #[test]
    fn small_games_by_hand() {
        // An edge: no cells, Short has joined A and B before anyone moves.
        assert_eq!(game(2, &[(0, 1)], 0, 1).class(), Some(Class::Short));
        // The path's ends: one cell between them, whoever takes it wins.
        let p3 = game(3, &[(0, 1), (1, 2)], 0, 2);
        assert_eq!(p3.class(), Some(Class::First));
        assert_eq!(p3.codes(), 3);
        assert_eq!(p3.value(1, Player::Cut), Value::Loss); // "L/R": Short has joined
        assert_eq!(p3.value(2, Player::Cut), Value::Win); // "R/R": Cut has separated
        // The 4-cycle's opposite corners: two disjoint one-vertex paths, Short wins moving second.
        assert_eq!(
            game(4, &[(0, 1), (1, 2), (2, 3), (3, 0)], 0, 2).class(),
            Some(Class::Short)
        );
        // A path of four: two cells in series, Cut wins moving second.
        assert_eq!(
            game(4, &[(0, 1), (1, 2), (2, 3)], 0, 3).class(),
            Some(Class::Cut)
        );
    }

    #[test]
    fn a_position_someone_has_won_is_valued_for_the_mover() {
        // The path 0-1-2-3 with terminals 0 and 3: "LL" Short has joined; "R." Cut has separated.
        let g = game(4, &[(0, 1), (1, 2), (2, 3)], 0, 3);
        let code = |d: [usize; 2]| d[0] + 3 * d[1];
        assert_eq!(g.value(code([1, 1]), Player::Short), Value::Win);
        assert_eq!(g.value(code([1, 1]), Player::Cut), Value::Loss);
        assert_eq!(g.value(code([2, 0]), Player::Short), Value::Loss);
        assert_eq!(g.value(code([2, 0]), Player::Cut), Value::Win);
        assert_eq!(g.text(code([2, 0]), Player::Cut), "R./R");
    }

    #[test]
    fn refuses_bad_terminals_and_large_graphs() {
        let p3 = Graph::from_edges(3, &[(0, 1), (1, 2)]).unwrap();
        assert!(VertexGame::new(&p3, 1, 1).is_err());
        assert!(VertexGame::new(&p3, 0, 3).is_err());
        let big = Graph::empty(MAX_CELLS + 3).unwrap();
        let e = VertexGame::new(&big, 0, 1).expect_err("too large");
        assert!(matches!(e, VertexGameError::TooLarge { .. }), "{e}");
        assert!(e.to_string().contains("more than"), "{e}");
    }
}
