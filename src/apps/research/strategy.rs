//! Two Bridg-It strategies built on edge-disjoint spanning trees.
//!
//! - [`SpanningTreePlayer`]: the classic pairing strategy for Left moving first from the empty
//!   board. Left's graph plus one virtual edge joining the two ends splits into two edge-disjoint
//!   spanning trees; the tree holding the virtual edge is one edge short of spanning Left's real
//!   graph, and Left's first move is the edge of the other tree that completes it. From then on,
//!   whenever Right cuts an edge of one tree, Left claims an edge of the other tree that
//!   reconnects it.
//! - [`optional_moves`]: the "optional" strategy, for either player from any position. In the
//!   player's graph (own bridges doubled, empty gaps single, the opponent's bridges gone) take the
//!   component holding both ends; the strategy may play any single edge whose doubling lets that
//!   component split into two edge-disjoint spanning trees.
//!
//! The invariant of [`SpanningTreePlayer`]: with Left's claimed edges contracted, each of its two
//! disjoint sets of free edges connects every vertex — restored after each of Right's cuts by
//! exactly one claim.

use super::geometry::PlayerGraph;
use super::trees::two_spanning_trees;
use crate::apps::oracle::lehman::ForestPair;
use crate::games::cell::{EMPTY, Player};

/// Left's pairing strategy from the empty board (see the module docs).
#[derive(Clone, Debug)]
pub struct SpanningTreePlayer {
    graph: PlayerGraph,
    /// Per edge (the cells, then the virtual end-to-end edge): 0 free outside both trees, 1 or 2
    /// the tree it is in, 3 claimed by Left, 4 cut by Right.
    state: Vec<u8>,
}

const CLAIMED: u8 = 3;
const CUT: u8 = 4;

impl SpanningTreePlayer {
    /// The strategy on Bridg-It of size `n`, or `None` if Left's graph plus the virtual edge has
    /// no two edge-disjoint spanning trees (it always has; the test says so).
    pub fn new(n: u32) -> Option<SpanningTreePlayer> {
        let graph = PlayerGraph::bridgit(n, Player::Left);
        let mut edges = graph.edges.clone();
        edges.push((0, 1));
        let (t1, t2) = two_spanning_trees(graph.vertices, &edges)?;
        let mut state = vec![0u8; edges.len()];
        for e in t1 {
            state[e] = 1;
        }
        for e in t2 {
            state[e] = 2;
        }
        Some(SpanningTreePlayer { graph, state })
    }

    fn cells(&self) -> usize {
        self.graph.edges.len()
    }

    fn edge(&self, e: usize) -> (usize, usize) {
        if e == self.cells() {
            (0, 1)
        } else {
            self.graph.edges[e]
        }
    }

    /// Union-find over the vertices with Left's claimed edges and the edges of `tree` joined.
    fn components(&self, tree: u8) -> Vec<usize> {
        let mut parent: Vec<usize> = (0..self.graph.vertices).collect();
        fn find(p: &mut [usize], mut x: usize) -> usize {
            while p[x] != x {
                p[x] = p[p[x]];
                x = p[x];
            }
            x
        }
        for (e, &s) in self.state.iter().enumerate() {
            if s == CLAIMED || s == tree {
                let (u, v) = self.edge(e);
                let (a, b) = (find(&mut parent, u), find(&mut parent, v));
                parent[a] = b;
            }
        }
        (0..self.graph.vertices)
            .map(|v| find(&mut parent, v))
            .collect()
    }

    /// Left's first move: the answer to cutting the virtual edge.
    pub fn first_move(&mut self) -> Option<u32> {
        self.respond(self.cells() as u32 /* the virtual edge */)
    }

    /// Right has cut cell `cut`; Left's answer (a cell to claim), or `None` when no cell is free.
    /// A cut outside both trees, or one its tree survives, is answered with the first free
    /// cell: any claim keeps the invariant.
    pub fn respond(&mut self, cut: u32) -> Option<u32> {
        let cut = cut as usize;
        let tree = self.state[cut];
        self.state[cut] = CUT;
        if tree == 1 || tree == 2 {
            let comp = self.components(tree);
            if comp.iter().any(|&c| c != comp[0]) {
                let other = 3 - tree;
                let answer = (0..self.cells()).find(|&e| {
                    let (u, v) = self.edge(e);
                    self.state[e] == other && comp[u] != comp[v]
                })?;
                self.state[answer] = CLAIMED;
                return Some(answer as u32);
            }
        }
        let free = (0..self.cells()).find(|&e| self.state[e] < CLAIMED)?;
        self.state[free] = CLAIMED;
        Some(free as u32)
    }

    /// The cells of the two trees (without the virtual edge), for pictures and tests.
    pub fn trees(&self) -> [Vec<u32>; 2] {
        [1u8, 2].map(|t| {
            (0..self.cells() as u32)
                .filter(|&e| self.state[e as usize] == t)
                .collect()
        })
    }
}

/// What the optional strategy finds for one player in one position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Optional {
    /// No component of the player's graph holds both ends.
    NoComponent,
    /// There is one, but doubling no single edge of it gives two edge-disjoint spanning trees.
    NoEdge,
    /// The cells (single edges of the generating component) the strategy may claim.
    Moves(Vec<u32>),
}

impl Optional {
    pub fn moves(&self) -> &[u32] {
        match self {
            Optional::Moves(m) => m,
            _ => &[],
        }
    }

    pub fn executable(&self) -> bool {
        matches!(self, Optional::Moves(_))
    }
}

/// An edge of a generating component (local vertex ids) and the cell it comes from.
pub type CellEdge = ((usize, usize), u32);

/// The generating component of `graph`'s player in a position: its vertices (ascending) and its
/// edges as a multigraph on `0..vertices.len()`, each with the cell it comes from — own bridges
/// twice, empty gaps once. `None` when the ends lie in different components.
pub fn generating_component(
    graph: &PlayerGraph,
    cells: &[u8],
) -> Option<(Vec<usize>, Vec<CellEdge>)> {
    let own = graph.player.cell();
    let usable = |i: usize| cells[i] == own || cells[i] == EMPTY;
    let mut seen = vec![false; graph.vertices];
    seen[0] = true;
    let mut stack = vec![0usize];
    while let Some(u) = stack.pop() {
        for (i, &(a, b)) in graph.edges.iter().enumerate() {
            if usable(i) && (a == u || b == u) {
                let w = if a == u { b } else { a };
                if !seen[w] {
                    seen[w] = true;
                    stack.push(w);
                }
            }
        }
    }
    if !seen[1] {
        return None;
    }
    let vertices: Vec<usize> = (0..graph.vertices).filter(|&v| seen[v]).collect();
    let local = |v: usize| {
        vertices
            .binary_search(&v)
            .expect("a vertex of the component")
    };
    let mut edges = Vec::new();
    for (i, &(a, b)) in graph.edges.iter().enumerate() {
        if usable(i) && seen[a] {
            let e = ((local(a), local(b)), i as u32);
            edges.push(e);
            if cells[i] == own {
                edges.push(e);
            }
        }
    }
    Some((vertices, edges))
}

/// The optional spanning-tree strategy for `graph`'s player in a position (see module docs).
pub fn optional_moves(graph: &PlayerGraph, cells: &[u8]) -> Optional {
    let Some((vertices, edges)) = generating_component(graph, cells) else {
        return Optional::NoComponent;
    };
    let target = 2 * (vertices.len() - 1);
    let mut pair = ForestPair::new(vertices.len());
    for &((u, v), _) in &edges {
        pair.push(u, v);
    }
    let singles = edges
        .iter()
        .filter(|&&(_, c)| cells[c as usize] == EMPTY)
        .map(|&(uv, c)| (uv, c));
    let moves: Vec<u32> = if pair.size() == target {
        // Two trees already: doubling any single edge keeps them.
        singles.map(|(_, c)| c).collect()
    } else if pair.size() + 1 == target {
        singles
            .filter(|&((u, v), _)| pair.clone().push(u, v))
            .map(|(_, c)| c)
            .collect()
    } else {
        Vec::new()
    };
    if moves.is_empty() {
        Optional::NoEdge
    } else {
        Optional::Moves(moves)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::research::trees::two_trees_by_partitions;
    use crate::base::splitmix::SplitMix64;
    use crate::games::cell::{Board, LEFT, RIGHT};

    /// Plays the strategy against every sequence of Right's replies; returns (lines, losses).
    fn all_lines(n: u32) -> (u64, u64) {
        let cells = Board::Bridgit(n).cell_count() as usize;
        let g = crate::games::cell::CellGame::new(
            format!("bridgit:{n}"),
            crate::games::cell::Layout::Board(Board::Bridgit(n)),
            None,
            u64::MAX,
        )
        .unwrap();
        let mut player = SpanningTreePlayer::new(n).expect("two trees");
        let first = player.first_move().unwrap();
        let mut states = vec![EMPTY; cells];
        states[first as usize] = LEFT;
        fn walk(
            g: &crate::games::cell::CellGame,
            player: &SpanningTreePlayer,
            states: &mut Vec<u8>,
            out: &mut (u64, u64),
        ) {
            let mask = |want: u8| {
                states
                    .iter()
                    .enumerate()
                    .filter(|&(_, &s)| s == want)
                    .fold(0u64, |m, (i, _)| m | 1 << i)
            };
            match g.winner(mask(LEFT), mask(RIGHT)) {
                Some(Player::Left) => return out.0 += 1,
                Some(Player::Right) => {
                    out.0 += 1;
                    return out.1 += 1;
                }
                None => {}
            }
            for cut in 0..states.len() {
                if states[cut] != EMPTY {
                    continue;
                }
                states[cut] = RIGHT;
                let mut p = player.clone();
                match p.respond(cut as u32) {
                    Some(answer) => {
                        assert_eq!(states[answer as usize], EMPTY, "answers a free cell");
                        states[answer as usize] = LEFT;
                        walk(g, &p, states, out);
                        states[answer as usize] = EMPTY;
                    }
                    None => {
                        // The board is full: someone has won by now.
                        walk(g, &p, states, out);
                    }
                }
                states[cut] = EMPTY;
            }
        }
        let mut out = (0, 0);
        walk(&g, &player, &mut states, &mut out);
        out
    }

    #[test]
    fn spanning_tree_strategy_never_loses_from_the_empty_board() {
        for n in 1..=3 {
            let (lines, losses) = all_lines(n);
            assert!(lines > 0);
            assert_eq!(losses, 0, "size {n}: {losses} of {lines} lines lost");
        }
    }

    /// Larger boards than the exhaustive test reaches: random reply sequences.
    #[test]
    fn spanning_tree_strategy_wins_random_games_on_larger_boards() {
        let mut rng = SplitMix64(3);
        for n in 4..=6 {
            // Size 6 has 61 cells, too many for a table index but not for the winning rule,
            // which works on bitboards of up to 64 cells.
            let links = Board::Bridgit(n).graph().edge_links();
            let cells = Board::Bridgit(n).cell_count() as usize;
            for _ in 0..300 {
                let mut p = SpanningTreePlayer::new(n).unwrap();
                let (mut left, mut right) = (0u64, 0u64);
                let first = p.first_move().unwrap();
                left |= 1 << first;
                let full = (1u64 << cells) - 1;
                loop {
                    assert!(
                        links.connects(full & !right),
                        "size {n}: Right has cut Left off"
                    );
                    if links.connects(left) {
                        break;
                    }
                    let free: Vec<u32> = (0..cells as u32)
                        .filter(|&i| (left | right) >> i & 1 == 0)
                        .collect();
                    let cut = free[rng.below(free.len() as u64) as usize];
                    right |= 1 << cut;
                    let answer = p.respond(cut).expect("a free cell remains");
                    assert_eq!((left | right) >> answer & 1, 0, "answers a free cell");
                    left |= 1 << answer;
                }
            }
        }
    }

    #[test]
    fn spanning_tree_first_move_completes_the_short_tree() {
        for n in 2..=4 {
            let mut p = SpanningTreePlayer::new(n).unwrap();
            let first = p.first_move().unwrap();
            let g = PlayerGraph::bridgit(n, Player::Left);
            // After the first claim, the two trees with it contracted span Left's graph.
            for t in p.trees() {
                let mut edges: Vec<(usize, usize)> =
                    t.iter().map(|&c| g.edges[c as usize]).collect();
                edges.push(g.edges[first as usize]);
                let mut parent: Vec<usize> = (0..g.vertices).collect();
                let mut joined = 0;
                for (u, v) in edges {
                    let (mut a, mut b) = (u, v);
                    while parent[a] != a {
                        a = parent[a];
                    }
                    while parent[b] != b {
                        b = parent[b];
                    }
                    if a != b {
                        parent[a] = b;
                        joined += 1;
                    }
                }
                assert_eq!(joined, g.vertices - 1, "size {n}");
            }
        }
    }

    fn random_position(rng: &mut SplitMix64, cells: usize) -> Vec<u8> {
        let density = rng.below(80);
        (0..cells)
            .map(|_| {
                if rng.below(100) < density {
                    1 + rng.below(2) as u8
                } else {
                    EMPTY
                }
            })
            .collect()
    }

    /// Every edge the optional strategy offers — and no other single edge — makes two
    /// edge-disjoint spanning trees of the generating component once doubled, by the
    /// Tutte–Nash-Williams partition condition.
    #[test]
    fn optional_moves_pass_the_partition_test() {
        let mut rng = SplitMix64(5);
        let mut offered = 0;
        let mut refused = 0;
        for n in 2..=3 {
            let cells = Board::Bridgit(n).cell_count() as usize;
            for _ in 0..1500 {
                let states = random_position(&mut rng, cells);
                for player in [Player::Left, Player::Right] {
                    let g = PlayerGraph::bridgit(n, player);
                    let verdict = optional_moves(&g, &states);
                    let Some((vertices, edges)) = generating_component(&g, &states) else {
                        assert_eq!(verdict, Optional::NoComponent);
                        continue;
                    };
                    let multigraph: Vec<(usize, usize)> = edges.iter().map(|&(uv, _)| uv).collect();
                    for &(uv, c) in &edges {
                        if states[c as usize] != EMPTY {
                            continue;
                        }
                        let mut doubled = multigraph.clone();
                        doubled.push(uv);
                        let ok = two_trees_by_partitions(vertices.len(), &doubled);
                        assert_eq!(
                            verdict.moves().contains(&c),
                            ok,
                            "size {n} {player:?} {states:?} cell {c}"
                        );
                        if ok {
                            offered += 1;
                        } else {
                            refused += 1;
                        }
                    }
                    if verdict.moves().is_empty() {
                        assert_eq!(verdict, Optional::NoEdge);
                    }
                }
            }
        }
        assert!(offered > 100 && refused > 100, "{offered} {refused}");
    }
}
