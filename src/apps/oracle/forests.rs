//! Two edge-disjoint forests of a multigraph, kept as large as possible together as edges are
//! added: the matroid partition behind Lehman's criterion (`super::lehman`) and the research
//! report's spanning trees.
//!
//! [`ForestPair`] inserts edges one at a time by Edmonds' matroid-partition augmenting paths:
//! from the new edge, a breadth-first search over edges where `y -> z` means "`y` enters the
//! forest holding `z`, which `z` leaves" (`z` on the cycle `y` closes there), ending at an edge
//! that joins two trees of a forest it is not in. Shortest paths keep both forests acyclic after
//! the exchange. Each insertion costs `O(m·n)`.
//!
//! The invariant: after every [`ForestPair::push`], the two forests are disjoint, acyclic, and
//! their union is as large as any pair of disjoint forests of the edges pushed so far.

use std::collections::VecDeque;

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
pub(crate) struct Dsu(Vec<usize>);

impl Dsu {
    pub(crate) fn new(n: usize) -> Dsu {
        Dsu((0..n).collect())
    }

    /// Makes every one of `0..n` its own set, keeping the buffer.
    pub(crate) fn reset(&mut self, n: usize) {
        self.0.clear();
        self.0.extend(0..n);
    }

    pub(crate) fn find(&mut self, mut x: usize) -> usize {
        while self.0[x] != x {
            self.0[x] = self.0[self.0[x]];
            x = self.0[x];
        }
        x
    }

    /// Joins the sets of `x` and `y`; false if they were already one.
    pub(crate) fn union(&mut self, x: usize, y: usize) -> bool {
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

    }
}
