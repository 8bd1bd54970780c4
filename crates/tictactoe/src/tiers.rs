//! Tic-tac-toe's tiers: tier `t` holds the boards with `t` stones, and every move adds one, so the
//! game is acyclic and retrodb's tiered engine solves it a tier at a time, reading each board's
//! children in the tier above.
//!
//! A tier's boards are spread over the whole base-3 index, so a tier is walked by work units: a
//! unit fixes the digits of the high cells (all but the low [`LOW_CELLS`]), and walks, in
//! increasing order, the low parts with the counts of X and O that make the tier's
//! (precomputed once per board size, [`LowParts`]). Units are ranges of the index and do not
//! interleave, as the engine requires.

use retrodb_core::game::{Status, TierPosition, TierVisitor, Tiered};

use super::{Board, TicTacToe};

/// The cells of a unit's walk: `3^10` low parts, 59,049 entries of 12 bytes.
pub const LOW_CELLS: u32 = 10;

/// The low parts of the index (the digits of the low cells), by their counts of X and O, each
/// list in increasing order, with their stones as masks.
pub(crate) struct LowParts {
    cells: u32,
    /// `by_counts[x * (cells + 1) + o]`: the parts with `x` X and `o` O.
    by_counts: Vec<Vec<(u32, Board)>>,
}

impl LowParts {
    /// The low parts of a board of `cells` low cells.
    pub(crate) fn new(cells: u32) -> LowParts {
        let side = cells as usize + 1;
        let mut by_counts = vec![Vec::new(); side * side];
        for part in 0..3u32.pow(cells) {
            let (mut b, mut rest) = (Board { x: 0, o: 0 }, part);
            for i in 0..cells {
                match rest % 3 {
                    1 => b.x |= 1 << i,
                    2 => b.o |= 1 << i,
                    _ => {}
                }
                rest /= 3;
            }
            let (x, o) = (b.x.count_ones() as usize, b.o.count_ones() as usize);
            by_counts[x * side + o].push((part, b));
        }
        LowParts { cells, by_counts }
    }

    fn with(&self, x: u32, o: u32) -> &[(u32, Board)] {
        if x + o > self.cells {
            return &[];
        }
        &self.by_counts[(x * (self.cells + 1) + o) as usize]
    }
}

/// The children of an open board: one per empty cell, the mover's digit added there.
struct Children<'g> {
    pow3: &'g [u64],
    pos: u64,
    digit: u64,
    empty: u32,
}

impl Iterator for Children<'_> {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        if self.empty == 0 {
            return None;
        }
        let i = self.empty.trailing_zeros();
        self.empty &= self.empty - 1;
        Some(self.pos + self.digit * self.pow3[i as usize])
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.empty.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Children<'_> {}

impl TicTacToe {
    /// The low cells of this board's units.
    fn low_cells(&self) -> u32 {
        self.cells().min(LOW_CELLS)
    }
}

impl Tiered for TicTacToe {
    fn tier_count(&self) -> u32 {
        self.cells() + 1
    }

    fn tier_units(&self, _t: u32) -> u64 {
        3u64.pow(self.cells() - self.low_cells())
    }

    fn visit_tier(&self, t: u32, unit: u64, visitor: &mut impl TierVisitor) {
        let low = self.low_cells();
        let high = self.board(unit);
        let high = Board {
            x: high.x << low,
            o: high.o << low,
        };
        // X moves first: a board of `t` stones has X's half rounded up.
        let (x, o) = (t.div_ceil(2), t / 2);
        let (hx, ho) = (high.x.count_ones(), high.o.count_ones());
        if hx > x || ho > o {
            return;
        }
        let base = unit * self.pow3[low as usize];
        let full = (1u32 << self.cells()) - 1;
        for &(part, b) in self.low_parts.with(x - hx, o - ho) {
            let board = Board {
                x: high.x | b.x,
                o: high.o | b.o,
            };
            let status = self.status_of(board);
            if status == Status::Unused {
                continue;
            }
            let pos = base + part as u64;
            let open = status == Status::Open;
            visitor.visit(TierPosition {
                index: pos,
                status,
                children: Children {
                    pow3: &self.pow3,
                    pos,
                    digit: if t.is_multiple_of(2) { 1 } else { 2 },
                    empty: if open { full & !(board.x | board.o) } else { 0 },
                },
            });
        }
    }

    fn tier_range(&self, _t: u32) -> Option<std::ops::Range<u64>> {
        None
    }

    fn tier_of(&self, pos: u64) -> Option<u32> {
        let b = self.board(pos);
        Some((b.x | b.o).count_ones())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tiers keep the engine's contract on every board of small games (each used board
    /// once, in its tier, with the rules' status and children; moves to the next tier).
    #[test]
    fn the_tiers_keep_the_contract() {
        for (r, c, k) in [(3, 3, 3), (2, 3, 2), (1, 4, 2), (2, 2, 2)] {
            let g = TicTacToe::new(r, c, k).unwrap();
            retrodb_core::game::check_tiers(&g).unwrap();
            assert_eq!(retrodb_core::Game::size(&g), 3u64.pow(r * c));
        }
    }

    /// A board larger than a unit's low cells is split into units that keep the contract too.
    #[test]
    fn units_split_a_large_board() {
        let g = TicTacToe::new(3, 4, 3).unwrap();
        assert_eq!(g.tier_units(5), 9);
        retrodb_core::game::check_tiers(&g).unwrap();
    }
}
