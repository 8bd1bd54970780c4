//! Each Bridg-It player's own graph and `b_L`, `b_R`: the fewest further bridges a player needs.
//!
//! A player's graph has that player's dots as vertices, the two end lines merged into two end
//! vertices (0 and 1), and one edge per cell: the bridge that player would build there. Left's
//! is the board graph of [`Board::graph`]; Right's is the same construction on the transposed
//! board (Right's dots are Left's with x and y exchanged). The invariant: edge `i` of either graph
//! is cell `i` of the position text, so cell states index edges directly.

use std::collections::VecDeque;

use crate::games::cell::{Board, EMPTY, Player};

/// One player's board graph: vertex 0 and 1 are the two ends, edge `i` is cell `i`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerGraph {
    pub player: Player,
    pub vertices: usize,
    pub edges: Vec<(usize, usize)>,
}

/// Left's dot `(x, y)` (x even, y odd) on the size-`n` board: the end columns are 0 and 1.
fn left_dot(n: u32, x: u32, y: u32) -> usize {
    if x == 0 {
        0
    } else if x == 2 * n {
        1
    } else {
        (2 + (x / 2 - 1) * n + (y - 1) / 2) as usize
    }
}

/// Left's bridge at cell `(x, y)`: horizontal when x is odd, vertical when x is even.
fn left_bridge(n: u32, x: u32, y: u32) -> (usize, usize) {
    if x % 2 == 1 {
        (left_dot(n, x - 1, y), left_dot(n, x + 1, y))
    } else {
        (left_dot(n, x, y - 1), left_dot(n, x, y + 1))
    }
}

impl PlayerGraph {
    /// The graph of `player` on Bridg-It of size `n`.
    pub fn bridgit(n: u32, player: Player) -> PlayerGraph {
        let edges = Board::Bridgit(n)
            .coordinates()
            .into_iter()
            .map(|(x, y)| match player {
                Player::Left => left_bridge(n, x, y),
                // Transposing the board turns Right's bridges into Left's.
                Player::Right => left_bridge(n, y, x),
            })
            .collect();
        PlayerGraph {
            player,
            vertices: (2 + (n - 1) * n) as usize,
            edges,
        }
    }

    /// The fewest further cells `self.player` must claim so that his cells join the two ends:
    /// his own cells cost nothing, empty cells one each, the opponent's cells are gone. `None`
    /// when no number of cells will do (the opponent has already won).
    ///
    /// A 0-1 breadth-first search: zero-cost edges go to the front of the deque.
    pub fn bridges_needed(&self, cells: &[u8]) -> Option<u32> {
        let own = self.player.cell();
        let mut adj: Vec<Vec<(usize, u32)>> = vec![Vec::new(); self.vertices];
        for (i, &(u, v)) in self.edges.iter().enumerate() {
            let cost = match cells[i] {
                s if s == own => 0,
                EMPTY => 1,
                _ => continue,
            };
            adj[u].push((v, cost));
            adj[v].push((u, cost));
        }
        let mut dist = vec![u32::MAX; self.vertices];
        let mut deque = VecDeque::from([0usize]);
        dist[0] = 0;
        while let Some(u) = deque.pop_front() {
            for &(v, c) in &adj[u] {
                let d = dist[u] + c;
                if d < dist[v] {
                    dist[v] = d;
                    if c == 0 {
                        deque.push_front(v);
                    } else {
                        deque.push_back(v);
                    }
                }
            }
        }
        (dist[1] != u32::MAX).then_some(dist[1])
    }
}

/// `b` of a player as a sort key: infinity is larger than every count.
pub fn key(b: Option<u32>) -> u32 {
    b.unwrap_or(u32::MAX)
}

/// `b` for people: a count or `inf`.
pub fn show_b(b: Option<u32>) -> String {
    b.map_or_else(|| "inf".to_string(), |k| k.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::splitmix::SplitMix64;
    use crate::games::cell::{CellGame, LEFT, Layout, RIGHT};

    fn game(n: u32) -> CellGame {
        CellGame::new(
            format!("bridgit:{n}"),
            Layout::Board(Board::Bridgit(n)),
            None,
            u64::MAX,
        )
        .unwrap()
    }

    fn mask(cells: &[u8], want: u8) -> u64 {
        cells
            .iter()
            .enumerate()
            .filter(|&(_, &s)| s == want)
            .fold(0, |m, (i, _)| m | 1 << i)
    }

    /// The fewest empty cells whose claim makes `player` the winner by the game's own rules,
    /// trying every set of that many cells.
    fn brute_force(g: &CellGame, cells: &[u8], player: Player) -> Option<u32> {
        let (l, r) = (mask(cells, LEFT), mask(cells, RIGHT));
        let empty: Vec<u32> = (0..cells.len() as u32)
            .filter(|&i| cells[i as usize] == EMPTY)
            .collect();
        let wins = |extra: u64| match player {
            Player::Left => g.left_has_won(l | extra),
            Player::Right => g.right_has_won(r | extra),
        };
        for k in 0..=empty.len() {
            let mut found = false;
            subsets(&empty, k, 0, 0, &mut |m| found |= wins(m));
            if found {
                return Some(k as u32);
            }
        }
        None
    }

    fn subsets(items: &[u32], k: usize, from: usize, acc: u64, f: &mut impl FnMut(u64)) {
        if k == 0 {
            f(acc);
            return;
        }
        for i in from..items.len() {
            if items.len() - i < k {
                break;
            }
            subsets(items, k - 1, i + 1, acc | 1 << items[i], f);
        }
    }

    #[test]
    fn left_graph_is_the_board_graph() {
        for n in 1..=5 {
            let g = Board::Bridgit(n).graph();
            let mine = PlayerGraph::bridgit(n, Player::Left);
            let theirs: Vec<(usize, usize)> = g
                .edges
                .iter()
                .map(|&(u, v)| (u as usize, v as usize))
                .collect();
            assert_eq!(mine.edges, theirs, "size {n}");
            assert_eq!(mine.vertices, g.vertices as usize);
        }
    }

    #[test]
    fn empty_board_needs_n_bridges_each() {
        for n in 1..=6 {
            let cells = vec![EMPTY; Board::Bridgit(n).cell_count() as usize];
            for p in [Player::Left, Player::Right] {
                assert_eq!(PlayerGraph::bridgit(n, p).bridges_needed(&cells), Some(n));
            }
        }
    }

    #[test]
    fn bridges_needed_equals_brute_force_on_random_positions() {
        let mut rng = SplitMix64(7);
        for n in 2..=4 {
            let g = game(n);
            let graphs = [
                PlayerGraph::bridgit(n, Player::Left),
                PlayerGraph::bridgit(n, Player::Right),
            ];
            let cells = g.cells() as usize;
            let mut infinite = [0; 2];
            for _ in 0..300 {
                // Fill each cell with probability about `density` so b spans its range.
                let density = rng.below(70);
                let states: Vec<u8> = (0..cells)
                    .map(|_| {
                        if rng.below(100) < density {
                            1 + rng.below(2) as u8
                        } else {
                            EMPTY
                        }
                    })
                    .collect();
                for (k, pg) in graphs.iter().enumerate() {
                    let fast = pg.bridges_needed(&states);
                    let slow = brute_force(&g, &states, pg.player);
                    assert_eq!(fast, slow, "size {n} {:?} {states:?}", pg.player);
                    infinite[k] += usize::from(fast.is_none());
                }
            }
            // The sample reaches both finite and infinite values for both players.
            assert!(infinite.iter().all(|&k| k > 0 && k < 300), "{infinite:?}");
        }
    }
}
