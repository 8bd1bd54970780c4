//! Lehman's criterion: the value of any position of the Shannon switching game (edge version) in
//! polynomial time, by matroid union of two graphic matroids.
//!
//! ## The reduction
//!
//! Short (Left) claims edges, Cut (Right) deletes them. Claimed edges are contracted and deleted
//! edges removed; the terminals become A' and B'. If A' = B' Short has already won; if no free
//! edges join A' and B', Cut has. Otherwise only the reduced multigraph of free edges matters (the
//! past does not), and free edges that became loops are useless to both players and are dropped.
//!
//! ## The criterion
//!
//! Lehman (1964): Short moving *second* wins iff the reduced graph has a subgraph containing A'
//! and B' that is the union of two edge-disjoint spanning trees (of its own vertex set). Short
//! moving *first* wins iff the same holds after one extra A'B' edge is added.
//!
//! In matroid terms, with `N` the union of two copies of the graphic matroid (a set is independent
//! in `N` when it splits into two forests) and `e` a new A'B' edge: such a subgraph exists iff
//! `e` lies in the `N`-closure of the free edges, i.e. adding `e` does not enlarge the largest
//! pair of edge-disjoint forests. (If the subgraph `S` exists, its two trees `T1`, `T2` already
//! span `e` in both copies, so `r_N(S + e) = r_N(S)`. Conversely, when the augmenting-path search
//! below fails to insert `e`, every edge it reached has its cycle in each forest inside the
//! reached set `T`, so both `F1 ∩ T` and `F2 ∩ T` span `T`; the component of `F1 ∩ T` holding
//! the ends of `e` is then also one component of `F2 ∩ T`, and the two forests restricted to it
//! are two disjoint spanning trees of a subgraph containing A' and B'.)
//!
//! So with `p(G)` the size of the largest union of two forests of `G`:
//! - Short moving second wins iff `p(G + e) = p(G)`;
//! - Short moving first wins iff `p(G + e + e') = p(G + e)`, for a second parallel edge `e'`.
//!
//! ## The algorithm
//!
//! `p` is kept by [`ForestPair`] (`super::forests`: Edmonds' matroid-partition augmenting paths,
//! `O(m·n)` an edge), so a position costs `O(m²·n)` for `m` free edges on `n` reduced vertices.
//! [`EdgeGame::outcome`] evaluates positions with reusable buffers ([`Workspace`]).
//!
//! The invariant: a position's answer depends only on the reduced multigraph and the mover,
//! never on a table.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::forests::Dsu;
pub use super::forests::ForestPair;

use crate::game::Value;

/// What a player holds on an edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Claim {
    Free,
    /// Claimed by Short (Left): contracted.
    Short,
    /// Deleted by Cut (Right).
    Cut,
}

/// The player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Player {
    /// Left.
    Short,
    /// Right.
    Cut,
}

/// Who wins the game from the empty position, whoever starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Class {
    /// Short wins even moving second.
    Short,
    /// Cut wins even moving second.
    Cut,
    /// The player who moves first wins.
    First,
}

impl Class {
    pub const ALL: [Class; 3] = [Class::Short, Class::Cut, Class::First];

    /// The class from the empty position's values with Short to move and with Cut to move;
    /// `None` for "the second player wins whoever starts", which cannot happen in this game (an
    /// extra edge of one's own never hurts), so a table showing it is wrong.
    pub fn from_values(short_to_move: Value, cut_to_move: Value) -> Option<Class> {
        match (short_to_move, cut_to_move) {
            (Value::Win, Value::Loss) => Some(Class::Short),
            (Value::Loss, Value::Win) => Some(Class::Cut),
            (Value::Win, Value::Win) => Some(Class::First),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Class::Short => "short",
            Class::Cut => "cut",
            Class::First => "first",
        }
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An edge game: a multigraph (loops allowed) with terminals `a` and `b`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EdgeGame {
    vertices: usize,
    edges: Vec<(usize, usize)>,
    a: usize,
    b: usize,
}

/// Why an [`EdgeGame`] or a position for it was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("edge game: {0}")]
pub struct EdgeGameError(pub String);

/// The state of a position after the reduction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reduced {
    /// Short's edges join the terminals.
    ShortHasWon,
    /// The edges not deleted no longer join the terminals.
    CutHasWon,
    /// Still open: the free edges on the contracted vertices `0..vertices`, loops dropped, with
    /// the merged terminals `a` and `b`.
    Open {
        vertices: usize,
        edges: Vec<(usize, usize)>,
        a: usize,
        b: usize,
    },
}

impl EdgeGame {
    /// A game on `vertices` vertices; every edge end and both terminals must be vertices, and
    /// the terminals distinct.
    pub fn new(
        vertices: usize,
        edges: Vec<(usize, usize)>,
        a: usize,
        b: usize,
    ) -> Result<EdgeGame, EdgeGameError> {
        if a >= vertices || b >= vertices {
            return Err(EdgeGameError(format!(
                "terminals {a} and {b} must be below the vertex count {vertices}"
            )));
        }
        if a == b {
            return Err(EdgeGameError(format!(
                "the terminals are the same vertex {a}"
            )));
        }
        if let Some((i, &(u, v))) = edges
            .iter()
            .enumerate()
            .find(|(_, (u, v))| *u >= vertices || *v >= vertices)
        {
            return Err(EdgeGameError(format!(
                "edge {i} ({u} {v}) has an end not below the vertex count {vertices}"
            )));
        }
        Ok(EdgeGame {
            vertices,
            edges,
            a,
            b,
        })
    }

    pub fn vertices(&self) -> usize {
        self.vertices
    }

    pub fn edges(&self) -> &[(usize, usize)] {
        &self.edges
    }

    pub fn terminals(&self) -> (usize, usize) {
        (self.a, self.b)
    }

    /// Contracts Short's edges and deletes Cut's. `claims` has one entry per edge.
    pub fn reduce(&self, claims: &[Claim]) -> Result<Reduced, EdgeGameError> {
        let mut ws = Workspace::default();
        Ok(match self.reduce_in(claims, &mut ws)? {
            Stage::ShortHasWon => Reduced::ShortHasWon,
            Stage::CutHasWon => Reduced::CutHasWon,
            Stage::Open { vertices } => Reduced::Open {
                vertices,
                edges: ws.edges,
                a: 0,
                b: 1,
            },
        })
    }

    /// [`EdgeGame::reduce`] into `ws`: an open position's free edges are left in `ws.edges`, on
    /// the contracted vertices numbered densely with the merged terminals `0` and `1`.
    fn reduce_in(&self, claims: &[Claim], ws: &mut Workspace) -> Result<Stage, EdgeGameError> {
        if claims.len() != self.edges.len() {
            return Err(EdgeGameError(format!(
                "a position needs {} edge claims, got {}",
                self.edges.len(),
                claims.len()
            )));
        }
        let dsu = &mut ws.contracted;
        dsu.reset(self.vertices);
        for (&(u, v), &c) in self.edges.iter().zip(claims) {
            if c == Claim::Short {
                dsu.union(u, v);
            }
        }
        let (ra, rb) = (dsu.find(self.a), dsu.find(self.b));
        if ra == rb {
            return Ok(Stage::ShortHasWon);
        }
        // Number the contracted vertices densely, terminals first.
        let id = &mut ws.id;
        id.clear();
        id.resize(self.vertices, usize::MAX);
        id[ra] = 0;
        id[rb] = 1;
        let mut next = 2;
        ws.edges.clear();
        let reach = &mut ws.reach;
        reach.reset(self.vertices);
        for (&(u, v), &c) in self.edges.iter().zip(claims) {
            if c != Claim::Free {
                continue;
            }
            let (ru, rv) = (dsu.find(u), dsu.find(v));
            if ru == rv {
                continue;
            }
            reach.union(ru, rv);
            for r in [ru, rv] {
                if id[r] == usize::MAX {
                    id[r] = next;
                    next += 1;
                }
            }
            ws.edges.push((id[ru], id[rv]));
        }
        if reach.find(ra) != reach.find(rb) {
            return Ok(Stage::CutHasWon);
        }
        Ok(Stage::Open { vertices: next })
    }

    /// `(Short wins moving first, Short wins moving second)` from the position `claims`, with the
    /// buffers of `ws` (no allocation once they have grown).
    pub fn outcome(
        &self,
        claims: &[Claim],
        ws: &mut Workspace,
    ) -> Result<(bool, bool), EdgeGameError> {
        Ok(match self.reduce_in(claims, ws)? {
            Stage::ShortHasWon => (true, true),
            Stage::CutHasWon => (false, false),
            Stage::Open { vertices } => {
                let Workspace { edges, pair, .. } = ws;
                short_wins_in(pair, vertices, edges, 0, 1)
            }
        })
    }

    /// The value of a position for the player to move.
    pub fn value(&self, claims: &[Claim], mover: Player) -> Result<Value, EdgeGameError> {
        let outcome = self.outcome(claims, &mut Workspace::default())?;
        Ok(mover_value(outcome, mover))
    }

    /// The class of the empty position.
    pub fn class(&self) -> Class {
        class_of(short_wins(self.vertices, &self.edges, self.a, self.b))
    }
}

/// The class of a position where Short wins moving first and moving second as `outcome` says.
fn class_of((first, second): (bool, bool)) -> Class {
    match (first, second) {
        (_, true) => Class::Short,
        (false, _) => Class::Cut,
        (true, false) => Class::First,
    }
}

/// The classes of one graph's edge games, for any terminal pair: the graph's edges go into the
/// forests once, and each pair pushes its two extra A-B edges into a copy. The size of the
/// largest pair of forests depends only on the edges pushed, not their order, and the pushes are
/// [`short_wins`]'s, so each class is the one [`EdgeGame::class`] gives; a census asks it for
/// every pair of millions of graphs.
#[derive(Clone, Debug)]
pub struct EdgeClasses {
    vertices: usize,
    base: ForestPair,
}

impl EdgeClasses {
    /// The graph on `vertices` vertices with `edges`, every end a vertex.
    pub fn new(vertices: usize, edges: &[(usize, usize)]) -> Result<EdgeClasses, EdgeGameError> {
        if let Some(&(u, v)) = edges.iter().find(|(u, v)| *u >= vertices || *v >= vertices) {
            return Err(EdgeGameError(format!(
                "edge ({u} {v}) has an end not below the vertex count {vertices}"
            )));
        }
        let mut base = ForestPair::new(vertices);
        for &(u, v) in edges {
            base.push(u, v);
        }
        Ok(EdgeClasses { vertices, base })
    }

    /// The class of the empty position with terminals `a` and `b`.
    pub fn class(&self, a: usize, b: usize) -> Result<Class, EdgeGameError> {
        if a >= self.vertices || b >= self.vertices || a == b {
            return Err(EdgeGameError(format!(
                "terminals {a} and {b} must be two distinct vertices below the vertex count {}",
                self.vertices
            )));
        }
        let mut pair = self.base.clone();
        let grew_e = pair.push(a, b);
        let grew_e2 = pair.push(a, b);
        Ok(class_of((!grew_e2, !grew_e)))
    }
}

/// The value for `mover` of a position where Short wins moving first and moving second as
/// `outcome` says.
pub fn mover_value((short_first, short_second): (bool, bool), mover: Player) -> Value {
    match mover {
        Player::Short if short_first => Value::Win,
        Player::Short => Value::Loss,
        Player::Cut if short_second => Value::Loss,
        Player::Cut => Value::Win,
    }
}

/// Reusable buffers of [`EdgeGame::outcome`].
#[derive(Clone, Debug, Default)]
pub struct Workspace {
    contracted: Dsu,
    reach: Dsu,
    id: Vec<usize>,
    edges: Vec<(usize, usize)>,
    pair: ForestPair,
}

/// A position after the reduction, its free edges in the workspace.
enum Stage {
    ShortHasWon,
    CutHasWon,
    Open { vertices: usize },
}

/// `(Short wins moving first, Short wins moving second)` on the multigraph with no edge claimed.
pub fn short_wins(vertices: usize, edges: &[(usize, usize)], a: usize, b: usize) -> (bool, bool) {
    short_wins_in(&mut ForestPair::new(vertices), vertices, edges, a, b)
}

/// [`short_wins`] with the buffers of `pair`.
fn short_wins_in(
    pair: &mut ForestPair,
    vertices: usize,
    edges: &[(usize, usize)],
    a: usize,
    b: usize,
) -> (bool, bool) {
    pair.clear(vertices);
    for &(u, v) in edges {
        pair.push(u, v);
    }
    let grew_e = pair.push(a, b);
    let grew_e2 = pair.push(a, b);
    (!grew_e2, !grew_e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    fn class_of(vertices: usize, edges: &[(usize, usize)]) -> Class {
        EdgeGame::new(vertices, edges.to_vec(), 0, 1)
            .unwrap()
            .class()
    }

    #[test]
    fn known_small_graphs() {
        assert_eq!(class_of(2, &[(0, 1)]), Class::First);
        assert_eq!(class_of(2, &[(0, 1), (0, 1)]), Class::Short);
        assert_eq!(class_of(3, &[(0, 2), (2, 1)]), Class::Cut);
        assert_eq!(class_of(3, &[(0, 1), (0, 2), (2, 1)]), Class::First);
        assert_eq!(class_of(4, &[(0, 2), (2, 1), (1, 3), (3, 0)]), Class::Cut);
        let k4 = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)];
        assert_eq!(class_of(4, &k4), Class::Short);
        assert_eq!(class_of(4, &k4[1..]), Class::First);
    }

    #[test]
    fn positions_reduce_by_contracting_and_deleting() {
        // Path 0-2-1: Short holding 0-2 with Cut to move: Cut deletes 2-1 and wins.
        let g = EdgeGame::new(3, vec![(0, 2), (2, 1)], 0, 1).unwrap();
        use Claim::*;
        assert_eq!(g.value(&[Short, Free], Player::Cut).unwrap(), Value::Win);
        assert_eq!(g.value(&[Short, Free], Player::Short).unwrap(), Value::Win);
        assert_eq!(g.reduce(&[Short, Short]).unwrap(), Reduced::ShortHasWon);
        assert_eq!(g.reduce(&[Free, Cut]).unwrap(), Reduced::CutHasWon);
        assert_eq!(g.value(&[Free, Cut], Player::Short).unwrap(), Value::Loss);
        assert_eq!(g.value(&[Short, Short], Player::Cut).unwrap(), Value::Loss);
        assert!(g.reduce(&[Free]).is_err());
    }

    #[test]
    fn edge_classes_of_a_graph_are_each_pairs_class() {
        // Every pair of K4 (two spanning trees: Short's), of K4 less an edge, of the 5-cycle
        // with a chord and of the path of four.
        let graphs: [(usize, &[(usize, usize)]); 4] = [
            (4, &[(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]),
            (4, &[(0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]),
            (5, &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 0), (0, 2)]),
            (4, &[(0, 1), (1, 2), (2, 3)]),
        ];
        let mut seen = std::collections::HashSet::new();
        for (n, edges) in graphs {
            let classes = EdgeClasses::new(n, edges).unwrap();
            for a in 0..n {
                for b in a + 1..n {
                    let want = EdgeGame::new(n, edges.to_vec(), a, b).unwrap().class();
                    assert_eq!(classes.class(a, b).unwrap(), want, "{edges:?} {a} {b}");
                    // Asked again, after other pairs: the same.
                    assert_eq!(classes.class(a, b).unwrap(), want);
                    seen.insert(want);
                }
            }
        }
        assert_eq!(seen.len(), 3, "every class occurs: {seen:?}");
        assert!(EdgeClasses::new(3, &[(0, 3)]).is_err());
        let p3 = EdgeClasses::new(3, &[(0, 1), (1, 2)]).unwrap();
        assert!(p3.class(1, 1).is_err() && p3.class(0, 3).is_err());
    }

    #[test]
    fn bad_games_are_refused() {
        assert!(EdgeGame::new(2, vec![(0, 1)], 0, 0).is_err());
        assert!(EdgeGame::new(2, vec![(0, 1)], 0, 2).is_err());
        assert!(EdgeGame::new(2, vec![(0, 5)], 0, 1).is_err());
    }

    /// Plain minimax over the game's own rules, memoised: no contraction, no matroids.
    fn minimax(
        vertices: usize,
        edges: &[(usize, usize)],
        claims: &mut Vec<Claim>,
        mover: Player,
        memo: &mut HashMap<(Vec<Claim>, Player), Value>,
    ) -> Value {
        let joined = |claims: &[Claim], keep: fn(Claim) -> bool| {
            // Are 0 and 1 joined by the edges whose claim passes `keep`?
            let mut seen = vec![false; vertices];
            let mut stack = vec![0];
            seen[0] = true;
            while let Some(w) = stack.pop() {
                for (i, &(u, v)) in edges.iter().enumerate() {
                    if keep(claims[i]) {
                        for (s, t) in [(u, v), (v, u)] {
                            if s == w && !seen[t] {
                                seen[t] = true;
                                stack.push(t);
                            }
                        }
                    }
                }
            }
            seen[1]
        };
        if joined(claims, |c| c == Claim::Short) {
            return if mover == Player::Short {
                Value::Win
            } else {
                Value::Loss
            };
        }
        if !joined(claims, |c| c != Claim::Cut) {
            return if mover == Player::Cut {
                Value::Win
            } else {
                Value::Loss
            };
        }
        if let Some(&v) = memo.get(&(claims.clone(), mover)) {
            return v;
        }
        let (mine, next) = match mover {
            Player::Short => (Claim::Short, Player::Cut),
            Player::Cut => (Claim::Cut, Player::Short),
        };
        let mut value = Value::Loss;
        for i in 0..edges.len() {
            if claims[i] == Claim::Free {
                claims[i] = mine;
                let child = minimax(vertices, edges, claims, next, memo);
                claims[i] = Claim::Free;
                if child == Value::Loss {
                    value = Value::Win;
                    break;
                }
            }
        }
        memo.insert((claims.clone(), mover), value);
        value
    }

    fn multigraph() -> impl Strategy<Value = (usize, Vec<(usize, usize)>)> {
        (2usize..=5).prop_flat_map(|n| (Just(n), prop::collection::vec((0..n, 0..n), 0..=8)))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn every_position_matches_minimax((n, edges) in multigraph()) {
            let game = EdgeGame::new(n, edges.clone(), 0, 1).unwrap();
            let m = edges.len();
            let mut memo = HashMap::new();
            let mut claims = vec![Claim::Free; m];
            for code in 0..3u32.pow(m as u32) {
                let mut c = code;
                for slot in claims.iter_mut() {
                    *slot = [Claim::Free, Claim::Short, Claim::Cut][(c % 3) as usize];
                    c /= 3;
                }
                for mover in [Player::Short, Player::Cut] {
                    let want = minimax(n, &edges, &mut claims, mover, &mut memo);
                    prop_assert_eq!(
                        game.value(&claims, mover).unwrap(), want,
                        "edges {:?} claims {:?} mover {:?}", edges, claims, mover
                    );
                }
            }
            let empty = vec![Claim::Free; m];
            let class = Class::from_values(
                game.value(&empty, Player::Short).unwrap(),
                game.value(&empty, Player::Cut).unwrap(),
            );
            prop_assert_eq!(class, Some(game.class()));
        }
    }
}
