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
//! [`ForestPair`] keeps two edge-disjoint forests and inserts edges one at a time by Edmonds'
//! matroid-partition augmenting paths: from the new edge, a breadth-first search over edges where
//! `y -> z` means "`y` enters the forest holding `z`, which `z` leaves" (`z` on the cycle `y`
//! closes there), ending at an edge that joins two trees of a forest it is not in. Shortest paths
//! keep both forests acyclic after the exchange. Each insertion costs `O(m·n)`; a position costs
//! `O(m²·n)` for `m` free edges on `n` reduced vertices.
//!
//! The invariant: after every [`ForestPair::push`], the two forests are disjoint, acyclic, and
//! their union is as large as any pair of disjoint forests of the edges pushed so far.

use std::collections::VecDeque;
use std::fmt;

use serde::Serialize;

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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
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
        let (first, second) = short_wins(self.vertices, &self.edges, self.a, self.b);
        match (first, second) {
            (_, true) => Class::Short,
            (false, _) => Class::Cut,
            (true, false) => Class::First,
        }
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

/// Two edge-disjoint forests over a growing edge list, kept as large as possible together.
///
/// The search buffers live in the value and are reused: after [`ForestPair::clear`], pushing
/// the edges of the next position allocates nothing once the buffers have grown to size.
#[derive(Clone, Debug, Default)]
pub struct ForestPair {
    vertices: usize,
    edges: Vec<(usize, usize)>,
    /// Per edge: `0` in neither forest, `1` or `2` the forest holding it.
    owner: Vec<u8>,
    size: usize,
    /// The two forests rooted for path queries, rebuilt at each push.
    rooted: [Rooted; 2],
    /// Per edge of the search: `(y, f)` when `y` enters forest `f` in place of this edge.
    label: Vec<Option<(usize, u8)>>,
    seen: Vec<bool>,
    queue: VecDeque<usize>,
    path: Vec<usize>,
    /// Adjacency of one forest, by vertex: `adj[start[w]..start[w + 1]]`.
    start: Vec<usize>,
    adj: Vec<(usize, usize)>,
    stack: Vec<usize>,
}

/// One forest rooted for path queries.
#[derive(Clone, Debug, Default)]
struct Rooted {
    /// Per vertex: the edge to its parent (`usize::MAX` at a root).
    parent_edge: Vec<usize>,
    parent: Vec<usize>,
    depth: Vec<usize>,
    root: Vec<usize>,
}

impl ForestPair {
    pub fn new(vertices: usize) -> ForestPair {
        ForestPair {
            vertices,
            ..ForestPair::default()
        }
    }

    /// Empties the pair for a graph on `vertices` vertices, keeping the buffers.
    pub fn clear(&mut self, vertices: usize) {
        self.vertices = vertices;
        self.edges.clear();
        self.owner.clear();
        self.size = 0;
    }

    /// Edges in the two forests together.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The edges (indices in push order) of forest `f` (`1` or `2`).
    pub fn forest(&self, f: u8) -> Vec<usize> {
        (0..self.edges.len())
            .filter(|&i| self.owner[i] == f)
            .collect()
    }

    /// Adds the edge `u v`; true if the forests grew to take it (possibly after exchanges).
    pub fn push(&mut self, u: usize, v: usize) -> bool {
        assert!(
            u < self.vertices && v < self.vertices,
            "edge end out of range"
        );
        self.edges.push((u, v));
        self.owner.push(0);
        let x = self.edges.len() - 1;
        if u == v {
            return false;
        }
        self.root(1);
        self.root(2);
        let m = self.edges.len();
        self.label.clear();
        self.label.resize(m, None);
        self.seen.clear();
        self.seen.resize(m, false);
        self.seen[x] = true;
        self.queue.clear();
        self.queue.push_back(x);
        let mut found = None;
        'search: while let Some(y) = self.queue.pop_front() {
            let (p, q) = self.edges[y];
            for f in [1u8, 2] {
                if self.owner[y] == f {
                    continue;
                }
                let t = &self.rooted[f as usize - 1];
                if t.root[p] != t.root[q] {
                    found = Some((y, f));
                    break 'search;
                }
                t.path(p, q, &mut self.path);
                for &z in &self.path {
                    if !self.seen[z] {
                        self.seen[z] = true;
                        self.label[z] = Some((y, f));
                        self.queue.push_back(z);
                    }
                }
            }
        }
        let Some((y, f)) = found else {
            return false;
        };
        self.augment(y, f);
        self.size += 1;
        debug_assert!(self.is_valid());
        true
    }

    /// Puts `y` into forest `f`, then walks the labels back: each edge takes the place of the
    /// one it displaced.
    fn augment(&mut self, y: usize, f: u8) {
        let mut cur = y;
        let mut into = f;
        loop {
            let next = self.label[cur];
            self.owner[cur] = into;
            match next {
                Some((prev, g)) => {
                    cur = prev;
                    into = g;
                }
                None => break,
            }
        }
    }

    /// Roots forest `f` into `self.rooted[f - 1]`.
    fn root(&mut self, f: u8) {
        let n = self.vertices;
        // The forest's adjacency, by counting sort on the vertex.
        self.start.clear();
        self.start.resize(n + 2, 0);
        for (i, &(u, v)) in self.edges.iter().enumerate() {
            if self.owner[i] == f {
                self.start[u + 2] += 1;
                self.start[v + 2] += 1;
            }
        }
        for w in 2..n + 2 {
            self.start[w] += self.start[w - 1];
        }
        self.adj.clear();
        self.adj.resize(self.start[n + 1], (0, 0));
        for (i, &(u, v)) in self.edges.iter().enumerate() {
            if self.owner[i] == f {
                self.adj[self.start[u + 1]] = (v, i);
                self.start[u + 1] += 1;
                self.adj[self.start[v + 1]] = (u, i);
                self.start[v + 1] += 1;
            }
        }
        let r = &mut self.rooted[f as usize - 1];
        for buf in [&mut r.parent_edge, &mut r.parent, &mut r.root] {
            buf.clear();
            buf.resize(n, usize::MAX);
        }
        r.depth.clear();
        r.depth.resize(n, 0);
        let stack = &mut self.stack;
        stack.clear();
        for s in 0..n {
            if r.root[s] != usize::MAX {
                continue;
            }
            r.root[s] = s;
            stack.push(s);
            while let Some(w) = stack.pop() {
                for &(t, e) in &self.adj[self.start[w]..self.start[w + 1]] {
                    if r.root[t] == usize::MAX {
                        r.root[t] = s;
                        r.parent[t] = w;
                        r.parent_edge[t] = e;
                        r.depth[t] = r.depth[w] + 1;
                        stack.push(t);
                    }
                }
            }
        }
    }

    /// Both forests acyclic and disjoint, and `size` their total.
    fn is_valid(&self) -> bool {
        let mut total = 0;
        for f in [1u8, 2] {
            let mut dsu = Dsu::new(self.vertices);
            for (i, &(u, v)) in self.edges.iter().enumerate() {
                if self.owner[i] == f {
                    total += 1;
                    if !dsu.union(u, v) {
                        return false;
                    }
                }
            }
        }
        total == self.size
    }
}

impl Rooted {
    /// The edges of the tree path between `u` and `v` (same tree), into `out`.
    fn path(&self, mut u: usize, mut v: usize, out: &mut Vec<usize>) {
        out.clear();
        while self.depth[u] > self.depth[v] {
            out.push(self.parent_edge[u]);
            u = self.parent[u];
        }
        while self.depth[v] > self.depth[u] {
            out.push(self.parent_edge[v]);
            v = self.parent[v];
        }
        while u != v {
            out.push(self.parent_edge[u]);
            out.push(self.parent_edge[v]);
            u = self.parent[u];
            v = self.parent[v];
        }
    }
}

/// Union-find with path halving.
#[derive(Clone, Debug, Default)]
struct Dsu(Vec<usize>);

impl Dsu {
    fn new(n: usize) -> Dsu {
        Dsu((0..n).collect())
    }

    /// Makes every one of `0..n` its own set, keeping the buffer.
    fn reset(&mut self, n: usize) {
        self.0.clear();
        self.0.extend(0..n);
    }

    fn find(&mut self, mut x: usize) -> usize {
        while self.0[x] != x {
            self.0[x] = self.0[self.0[x]];
            x = self.0[x];
        }
        x
    }

    /// Joins the sets of `x` and `y`; false if they were already one.
    fn union(&mut self, x: usize, y: usize) -> bool {
        let (rx, ry) = (self.find(x), self.find(y));
        if rx == ry {
            return false;
        }
        self.0[rx] = ry;
        true
    }
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
    fn bad_games_are_refused() {
        assert!(EdgeGame::new(2, vec![(0, 1)], 0, 0).is_err());
        assert!(EdgeGame::new(2, vec![(0, 1)], 0, 2).is_err());
        assert!(EdgeGame::new(2, vec![(0, 5)], 0, 1).is_err());
    }

    /// The largest union of two disjoint forests, by trying every split of the edges.
    fn brute_packing(vertices: usize, edges: &[(usize, usize)]) -> usize {
        let m = edges.len();
        let mut best = 0;
        let mut split = vec![0u8; m];
        loop {
            let mut ok = true;
            let mut count = 0;
            for f in 1..=2u8 {
                let mut dsu = Dsu::new(vertices);
                for (i, &(u, v)) in edges.iter().enumerate() {
                    if split[i] == f {
                        count += 1;
                        ok &= dsu.union(u, v);
                    }
                }
            }
            if ok {
                best = best.max(count);
            }
            // Next split in base 3.
            let mut i = 0;
            while i < m && split[i] == 2 {
                split[i] = 0;
                i += 1;
            }
            if i == m {
                return best;
            }
            split[i] += 1;
        }
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
        fn packing_is_maximum((n, edges) in multigraph()) {
            let mut pair = ForestPair::new(n);
            for (i, &(u, v)) in edges.iter().enumerate() {
                pair.push(u, v);
                prop_assert!(pair.is_valid());
                prop_assert_eq!(pair.size(), brute_packing(n, &edges[..=i]));
            }
        }

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
