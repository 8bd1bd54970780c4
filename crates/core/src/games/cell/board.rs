//! The two boards, Bridg-It (Gale) and Hex: where their cells are, the Shannon graph each one
//! is, and their symmetries.
//!
//! Coordinates follow `docs/NOTATION.md`: Bridg-It points `(x, y)` with `0 <= x, y <= 2N`, cells
//! the inner points with `x + y` even ordered by `y` then `x`; Hex cells `(r, c)` row-major. The
//! invariant: cell `i` here is cell `i` of the position text and bit `i` of the bitboards, and
//! every symmetry maps the board graph onto itself (or onto the opponent's, when it swaps colours).

use super::graph::Graph;

/// Board sizes accepted in specs (pictures work up to here; solving stops far earlier).
pub const MAX_SIDE: u32 = 32;

/// A board game and its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Board {
    /// Bridg-It on the size-N Gale board: `N*N + (N-1)*(N-1)` cells.
    Bridgit(u32),
    /// Hex on the N x N rhombus: `N*N` cells.
    Hex(u32),
}

/// A map of the board onto itself: cell `i` goes to cell `perm[i]`; when `swaps_colours` is set
/// it also turns Left's cells into Right's and back (and so the player to move).
#[derive(Clone, Debug)]
pub struct Symmetry {
    pub name: &'static str,
    pub perm: Vec<u32>,
    pub swaps_colours: bool,
}

impl Board {
    pub fn side(self) -> u32 {
        match self {
            Board::Bridgit(n) | Board::Hex(n) => n,
        }
    }

    /// The number of cells, without building the board.
    pub fn cell_count(self) -> u64 {
        match self {
            Board::Bridgit(n) => {
                let n = n as u64;
                n * n + (n - 1) * (n - 1)
            }
            Board::Hex(n) => n as u64 * n as u64,
        }
    }

    /// The coordinates of every cell in cell order: `(x, y)` for Bridg-It, `(r, c)` for Hex.
    pub fn coordinates(self) -> Vec<(u32, u32)> {
        match self {
            Board::Bridgit(n) => {
                let mut v = Vec::new();
                for y in 1..2 * n {
                    for x in 1..2 * n {
                        if (x + y) % 2 == 0 {
                            v.push((x, y));
                        }
                    }
                }
                v
            }
            Board::Hex(n) => (0..n).flat_map(|r| (0..n).map(move |c| (r, c))).collect(),
        }
    }

    /// The cell at the given coordinates, if there is one.
    pub fn cell_at(self, a: u32, b: u32) -> Option<u32> {
        match self {
            Board::Bridgit(n) => {
                let (x, y) = (a, b);
                if x == 0 || y == 0 || x >= 2 * n || y >= 2 * n || (x + y) % 2 == 1 {
                    return None;
                }
                // Rows alternate N cells (y odd) and N-1 cells (y even).
                let before = (y - 1) / 2 * (2 * n - 1) + if y % 2 == 0 { n } else { 0 };
                let within = if y % 2 == 1 { (x - 1) / 2 } else { x / 2 - 1 };
                Some(before + within)
            }
            Board::Hex(n) => (a < n && b < n).then_some(a * n + b),
        }
    }

    /// The Shannon graph the board is. Bridg-It: Left's dots (the end columns merged into
    /// terminals 0 and 1), one edge per cell — an edge game. Hex: the cells, plus terminals for
    /// Left's two sides — a vertex game.
    pub fn graph(self) -> Graph {
        let cells = self.coordinates();
        match self {
            Board::Bridgit(n) => {
                let dot = |x: u32, y: u32| -> u32 {
                    if x == 0 {
                        0
                    } else if x == 2 * n {
                        1
                    } else {
                        2 + (x / 2 - 1) * n + (y - 1) / 2
                    }
                };
                let edges = cells
                    .iter()
                    .map(|&(x, y)| {
                        if x % 2 == 1 {
                            (dot(x - 1, y), dot(x + 1, y))
                        } else {
                            (dot(x, y - 1), dot(x, y + 1))
                        }
                    })
                    .collect();
                Graph {
                    vertices: 2 + (n - 1) * n,
                    edges,
                    a: 0,
                    b: 1,
                }
            }
            Board::Hex(n) => {
                let (a, b) = (n * n, n * n + 1);
                let mut edges = Vec::new();
                for &(r, c) in &cells {
                    let me = r * n + c;
                    // Each neighbour pair once: right, down, down-left.
                    if c + 1 < n {
                        edges.push((me, me + 1));
                    }
                    if r + 1 < n {
                        edges.push((me, me + n));
                        if c > 0 {
                            edges.push((me, me + n - 1));
                        }
                    }
                    if c == 0 {
                        edges.push((a, me));
                    }
                    if c == n - 1 {
                        edges.push((me, b));
                    }
                }
                Graph {
                    vertices: n * n + 2,
                    edges,
                    a,
                    b,
                }
            }
        }
    }

    /// The symmetries other than the identity. Bridg-It: the dihedral group of the square; the
    /// four maps that exchange x and y also exchange the colours. Hex: the half-turn keeps the
    /// colours; the reflections in the two diagonals swap them.
    pub fn symmetries(self) -> Vec<Symmetry> {
        type Map = Box<dyn Fn(u32, u32) -> (u32, u32)>;
        let maps: Vec<(&'static str, bool, Map)> = match self {
            Board::Bridgit(n) => {
                let m = 2 * n;
                vec![
                    ("reflect x", false, Box::new(move |x, y| (m - x, y))),
                    ("reflect y", false, Box::new(move |x, y| (x, m - y))),
                    ("half-turn", false, Box::new(move |x, y| (m - x, m - y))),
                    ("transpose", true, Box::new(|x, y| (y, x))),
                    ("anti-transpose", true, Box::new(move |x, y| (m - y, m - x))),
                    ("quarter-turn", true, Box::new(move |x, y| (m - y, x))),
                    ("three-quarter-turn", true, Box::new(move |x, y| (y, m - x))),
                ]
            }
            Board::Hex(n) => {
                let m = n - 1;
                vec![
                    ("half-turn", false, Box::new(move |r, c| (m - r, m - c))),
                    ("transpose", true, Box::new(|r, c| (c, r))),
                    ("anti-transpose", true, Box::new(move |r, c| (m - c, m - r))),
                ]
            }
        };
        let cells = self.coordinates();
        maps.into_iter()
            .map(|(name, swaps_colours, f)| Symmetry {
                name,
                swaps_colours,
                perm: cells
                    .iter()
                    .map(|&(a, b)| {
                        let (a2, b2) = f(a, b);
                        self.cell_at(a2, b2)
                            .expect("a symmetry maps cells to cells")
                    })
                    .collect(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_counts_match_the_notation() {
        for (board, cells) in [
            (Board::Bridgit(1), 1),
            (Board::Bridgit(2), 5),
            (Board::Bridgit(3), 13),
            (Board::Bridgit(5), 41),
            (Board::Hex(3), 9),
            (Board::Hex(4), 16),
        ] {
            assert_eq!(board.cell_count(), cells, "{board:?}");
            assert_eq!(board.coordinates().len() as u64, cells, "{board:?}");
        }
    }

    #[test]
    fn cell_at_inverts_coordinates() {
        for board in [Board::Bridgit(2), Board::Bridgit(5), Board::Hex(4)] {
            for (i, &(a, b)) in board.coordinates().iter().enumerate() {
                assert_eq!(board.cell_at(a, b), Some(i as u32), "{board:?} ({a},{b})");
            }
        }
        assert_eq!(Board::Bridgit(3).cell_at(2, 1), None);
        assert_eq!(Board::Bridgit(3).cell_at(0, 2), None);
        assert_eq!(Board::Hex(3).cell_at(3, 0), None);
    }

    #[test]
    fn bridgit_3_cell_order_and_bridges() {
        let b = Board::Bridgit(3);
        let c = b.coordinates();
        assert_eq!(&c[..5], &[(1, 1), (3, 1), (5, 1), (2, 2), (4, 2)]);
        let g = b.graph();
        // (1,1): horizontal from the left end column (terminal 0) to dot (2,1).
        assert_eq!(g.edges[0], (0, 2));
        // (5,1): to the right end column (terminal 1).
        assert_eq!(g.edges[2], (5, 1));
        // (2,2): vertical between dots (2,1) and (2,3).
        assert_eq!(g.edges[3], (2, 3));
    }

    #[test]
    fn symmetries_are_permutations() {
        for board in [Board::Bridgit(3), Board::Hex(4)] {
            for s in board.symmetries() {
                let mut seen = s.perm.clone();
                seen.sort_unstable();
                assert_eq!(
                    seen,
                    (0..board.cell_count() as u32).collect::<Vec<_>>(),
                    "{}",
                    s.name
                );
            }
        }
    }
}
