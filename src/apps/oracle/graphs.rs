//! Small simple graphs for the sweep: every connected graph on `k` vertices up to isomorphism,
//! graph6 text (the format `nauty-geng` prints), automorphisms, and terminal pairs up to them.
//!
//! **graph6**, as implemented here: the first byte is `n + 63` (`n <= 62`); then the bits
//! `x(i, j)` of the upper triangle, for `j = 1..n` and `i = 0..j` in that order (1 = edge), are
//! padded with zeros to a multiple of six and written six to a byte, most significant first, each
//! byte `63 + value`. So `Bw` is the triangle: `B` = 3 vertices, `w` = 63 + 0b111000. An optional
//! `>>graph6<<` header is accepted.
//!
//! **Generation**: every connected graph on `k` vertices has a vertex whose removal leaves it
//! connected (a leaf of a spanning tree), so the connected graphs on `k` vertices are the
//! connected graphs on `k - 1` vertices plus a new vertex joined to a non-empty subset. Each
//! candidate is put in canonical form — the relabelling whose graph6 bit string is largest, found
//! by trying all `k!` permutations — and duplicates dropped.
//!
//! The invariant: a [`Graph`] is simple (no loops, no parallel edges) and its adjacency is
//! symmetric; vertices are `0..n` with `n <= 62`.

use std::collections::HashSet;

use crate::Error;
use crate::apps::error::{AppError, Result};

/// The largest vertex count graph6's one-byte size field holds, and so the largest [`Graph`].
pub const MAX_VERTICES: usize = 62;

/// The largest `k` for which [`connected_graphs`] enumerates (by `k!` permutations per
/// candidate; 853 graphs for `k = 7`).
pub const MAX_GENERATE: usize = 7;

/// Why a graph or a graph6 text was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct GraphError(pub String);

/// A simple undirected graph on `0..n`, as neighbour bit sets.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Graph {
    n: usize,
    adj: Vec<u64>,
}

impl Graph {
    /// The graph with `n` vertices and no edges.
    pub fn empty(n: usize) -> Result<Graph, GraphError> {
        if n > MAX_VERTICES {
            return Err(GraphError(format!(
                "{n} vertices is more than the {MAX_VERTICES} supported"
            )));
        }
        Ok(Graph { n, adj: vec![0; n] })
    }

    /// A graph from an edge list; loops, parallel edges and ends out of range are refused.
    pub fn from_edges(n: usize, edges: &[(usize, usize)]) -> Result<Graph, GraphError> {
        let mut g = Graph::empty(n)?;
        for &(u, v) in edges {
            if u >= n || v >= n {
                return Err(GraphError(format!("edge {u} {v} has an end not below {n}")));
            }
            if u == v {
                return Err(GraphError(format!("loop at vertex {u}")));
            }
            if g.has_edge(u, v) {
                return Err(GraphError(format!("edge {u} {v} appears twice")));
            }
            g.set_edge(u, v);
        }
        Ok(g)
    }

    pub fn vertices(&self) -> usize {
        self.n
    }

    pub fn has_edge(&self, u: usize, v: usize) -> bool {
        self.adj[u] >> v & 1 == 1
    }

    fn set_edge(&mut self, u: usize, v: usize) {
        self.adj[u] |= 1 << v;
        self.adj[v] |= 1 << u;
    }

    /// The neighbours of `v` as a bit set.
    pub fn neighbours(&self, v: usize) -> u64 {
        self.adj[v]
    }

    pub fn degree(&self, v: usize) -> u32 {
        self.adj[v].count_ones()
    }

    /// The edges `(u, v)` with `u < v`, ordered by `u`, then `v`.
    pub fn edges(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for u in 0..self.n {
            for v in u + 1..self.n {
                if self.has_edge(u, v) {
                    out.push((u, v));
                }
            }
        }
        out
    }

    pub fn edge_count(&self) -> usize {
        self.adj
            .iter()
            .map(|a| a.count_ones() as usize)
            .sum::<usize>()
            / 2
    }

    /// Connected (the graph on no vertices counts as connected, like on one).
    pub fn is_connected(&self) -> bool {
        if self.n == 0 {
            return true;
        }
        let mut seen = 1u64;
        let mut frontier = 1u64;
        while frontier != 0 {
            let v = frontier.trailing_zeros() as usize;
            frontier &= frontier - 1;
            let new = self.adj[v] & !seen;
            seen |= new;
            frontier |= new;
        }
        seen.count_ones() as usize == self.n
    }

    /// Reads one graph6 string (without its line break).
    pub fn from_graph6(text: &str) -> Result<Graph, GraphError> {
        let text = text.strip_prefix(">>graph6<<").unwrap_or(text);
        let bytes = text.as_bytes();
        let bad =
            |msg: String| GraphError(format!("graph6 '{}': {msg}", crate::base::error::cut(text)));
        let (&first, body) = bytes
            .split_first()
            .ok_or_else(|| bad("empty text".into()))?;
        if first == 126 {
            return Err(bad(format!(
                "more than {MAX_VERTICES} vertices is not supported"
            )));
        }
        if !(63..=125).contains(&first) {
            return Err(bad(format!(
                "the first byte {first:?} is not a vertex count (63..=125 for 0..=62 vertices)"
            )));
        }
        let n = (first - 63) as usize;
        let bits = n * n.saturating_sub(1) / 2;
        let want = bits.div_ceil(6);
        if body.len() != want {
            return Err(bad(format!(
                "{n} vertices need {want} edge bytes after the first, found {}",
                body.len()
            )));
        }
        if let Some(&b) = body.iter().find(|b| !(63..=126).contains(*b)) {
            return Err(bad(format!(
                "byte {b:?} is outside the graph6 range 63..=126"
            )));
        }
        let bit = |k: usize| (body[k / 6] - 63) >> (5 - k % 6) & 1 == 1;
        if (bits..want * 6).any(bit) {
            return Err(bad(
                "the padding bits after the last edge bit are not zero".into()
            ));
        }
        let mut g = Graph::empty(n).map_err(|e| bad(e.0))?;
        let mut k = 0;
        for j in 1..n {
            for i in 0..j {
                if bit(k) {
                    g.set_edge(i, j);
                }
                k += 1;
            }
        }
        Ok(g)
    }

    pub fn to_graph6(&self) -> String {
        let mut out = vec![self.n as u8 + 63];
        let mut acc = 0u8;
        let mut filled = 0;
        for j in 1..self.n {
            for i in 0..j {
                acc = acc << 1 | self.has_edge(i, j) as u8;
                filled += 1;
                if filled == 6 {
                    out.push(acc + 63);
                    acc = 0;
                    filled = 0;
                }
            }
        }
        if filled > 0 {
            out.push((acc << (6 - filled)) + 63);
        }
        String::from_utf8(out).expect("graph6 bytes are ASCII")
    }

    /// The graph with vertex `v` renamed `perm[v]`.
    pub fn relabel(&self, perm: &[usize]) -> Graph {
        let mut g = Graph {
            n: self.n,
            adj: vec![0; self.n],
        };
        for (u, v) in self.edges() {
            g.set_edge(perm[u], perm[v]);
        }
        g
    }

    /// Whether `perm` (a permutation of the vertices) maps edges onto edges.
    pub fn is_automorphism(&self, perm: &[usize]) -> bool {
        perm.len() == self.n && self.relabel(perm) == *self
    }

    /// An automorphism sending each `from` to its `to`, if there is one (backtracking search,
    /// fixing prescribed vertices first, then neighbours of vertices already placed).
    pub fn find_automorphism(&self, prescribed: &[(usize, usize)]) -> Option<Vec<usize>> {
        let mut found = None;
        self.search(prescribed, &mut |p| {
            found = Some(p.to_vec());
            false
        });
        found
    }

    /// Every automorphism. Their number can be as large as `n!`: for small graphs and tests.
    pub fn automorphisms(&self) -> Vec<Vec<usize>> {
        let mut all = Vec::new();
        self.search(&[], &mut |p| {
            all.push(p.to_vec());
            true
        });
        all
    }

    /// Calls `found` with each automorphism respecting `prescribed` until it returns false.
    fn search(&self, prescribed: &[(usize, usize)], found: &mut dyn FnMut(&[usize]) -> bool) {
        let n = self.n;
        if prescribed.iter().any(|&(v, w)| v >= n || w >= n) {
            return;
        }
        // Order: prescribed vertices, then by breadth-first search from what is placed, so each
        // new vertex usually has a placed neighbour to constrain it.
        let mut order: Vec<usize> = Vec::new();
        let mut placed = 0u64;
        for &(v, _) in prescribed {
            if placed >> v & 1 == 0 {
                placed |= 1 << v;
                order.push(v);
            }
        }
        let mut head = 0;
        while order.len() < n {
            if head == order.len() {
                let v = (0..n)
                    .find(|&v| placed >> v & 1 == 0)
                    .expect("a vertex left");
                placed |= 1 << v;
                order.push(v);
            }
            let v = order[head];
            head += 1;
            let mut fresh = self.adj[v] & !placed;
            while fresh != 0 {
                let w = fresh.trailing_zeros() as usize;
                fresh &= fresh - 1;
                placed |= 1 << w;
                order.push(w);
            }
        }
        let mut image = vec![usize::MAX; n];
        let mut used = 0u64;
        let want: Vec<Option<usize>> = order
            .iter()
            .map(|&v| prescribed.iter().find(|p| p.0 == v).map(|p| p.1))
            .collect();
        if prescribed.iter().any(|&(v, w)| {
            let at = order
                .iter()
                .position(|&o| o == v)
                .expect("prescribed vertices are placed");
            want[at] != Some(w)
        }) {
            return; // one vertex prescribed two images
        }
        self.extend(&order, &want, 0, &mut image, &mut used, found);
    }

    fn extend(
        &self,
        order: &[usize],
        want: &[Option<usize>],
        depth: usize,
        image: &mut [usize],
        used: &mut u64,
        found: &mut dyn FnMut(&[usize]) -> bool,
    ) -> bool {
        if depth == order.len() {
            return found(image);
        }
        let v = order[depth];
        let candidates: Vec<usize> = match want[depth] {
            Some(w) => vec![w],
            None => (0..self.n).collect(),
        };
        for w in candidates {
            if *used >> w & 1 == 1 || self.degree(v) != self.degree(w) {
                continue;
            }
            let consistent = order[..depth]
                .iter()
                .all(|&u| self.has_edge(u, v) == self.has_edge(image[u], w));
            if !consistent {
                continue;
            }
            image[v] = w;
            *used |= 1 << w;
            let go_on = self.extend(order, want, depth + 1, image, used, found);
            *used &= !(1 << w);
            image[v] = usize::MAX;
            if !go_on {
                return false;
            }
        }
        true
    }

    /// The canonical form: the relabelling with the largest graph6 bit string. Brute force over
    /// all permutations, so only for `n <= MAX_GENERATE`.
    pub fn canonical(&self) -> Result<Graph, GraphError> {
        if self.n > MAX_GENERATE {
            return Err(GraphError(format!(
                "canonical forms by brute force stop at {MAX_GENERATE} vertices, not {}",
                self.n
            )));
        }
        let edges = self.edges();
        let n = self.n;
        let bit = |i: usize, j: usize| {
            let (i, j) = if i < j { (i, j) } else { (j, i) };
            let index = j * (j - 1) / 2 + i;
            1u64 << (n * n.saturating_sub(1) / 2 - 1 - index)
        };
        let mut perm: Vec<usize> = (0..n).collect();
        let mut best = (0u64, perm.clone());
        loop {
            let key = edges.iter().fold(0, |k, &(u, v)| k | bit(perm[u], perm[v]));
            if key > best.0 {
                best = (key, perm.clone());
            }
            if !next_permutation(&mut perm) {
                break;
            }
        }
        Ok(self.relabel(&best.1))
    }
}

/// Steps `p` to the next permutation in lexicographic order; false after the last.
fn next_permutation(p: &mut [usize]) -> bool {
    let Some(i) = (1..p.len()).rev().find(|&i| p[i - 1] < p[i]) else {
        return false;
    };
    let j = (i..p.len())
        .rev()
        .find(|&j| p[j] > p[i - 1])
        .expect("a larger element");
    p.swap(i - 1, j);
    p[i..].reverse();
    true
}

/// Every connected simple graph on exactly `k` vertices, one per isomorphism class, in canonical
/// form, ordered by edge count and then graph6 text.
pub fn connected_graphs(k: usize) -> Result<Vec<Graph>, GraphError> {
    if k == 0 || k > MAX_GENERATE {
        return Err(GraphError(format!(
            "connected graphs are generated for 1 to {MAX_GENERATE} vertices, not {k} (give larger graphs as graph6 input)"
        )));
    }
    let mut level = vec![Graph::empty(1)?];
    for n in 2..=k {
        let mut seen = HashSet::new();
        for g in &level {
            for subset in 1u64..1 << (n - 1) {
                let mut h = Graph {
                    n,
                    adj: g.adj.clone(),
                };
                h.adj.push(0);
                for u in 0..n - 1 {
                    if subset >> u & 1 == 1 {
                        h.set_edge(u, n - 1);
                    }
                }
                seen.insert(h.canonical()?);
            }
        }
        level = seen.into_iter().collect();
    }
    let mut out: Vec<(usize, String, Graph)> = level
        .into_iter()
        .map(|g| (g.edge_count(), g.to_graph6(), g))
        .collect();
    out.sort_by(|x, y| (x.0, &x.1).cmp(&(y.0, &y.1)));
    Ok(out.into_iter().map(|t| t.2).collect())
}

/// Reads graph6 text, one graph a line (blank lines and `#` comments skipped), naming the file
/// and line of a bad one.
pub fn read_graph6(name: &str, bytes: &[u8]) -> Result<Vec<Graph>> {
    let mut out = Vec::new();
    read_graph6_batches(name, bytes, usize::MAX, |batch| {
        out.extend(batch.into_iter().map(|(_, g)| g));
        Ok(())
    })?;
    Ok(out)
}

/// Reads graph6 text from `reader` as [`read_graph6`] does, handing `f` the graphs with their
/// line numbers in batches of at most `batch` (so a long stream of graphs is never all in memory);
/// a line longer than [`crate::base::lines::MAX_LINE`] is refused naming it, in bounded memory.
pub fn read_graph6_batches<R: std::io::BufRead>(
    name: &str,
    mut reader: R,
    batch: usize,
    mut f: impl FnMut(Vec<(u64, Graph)>) -> Result<()>,
) -> Result<()> {
    let mut pending = Vec::new();
    let mut raw = Vec::new();
    let mut number = 0u64;
    use crate::base::lines::{Line, MAX_LINE, read_capped};
    loop {
        let read = read_capped(&mut reader, &mut raw, MAX_LINE).map_err(|e| Error::io(name, e))?;
        number += 1;
        match read {
            Line::End => break,
            Line::Text => {}
            Line::TooLong { bytes } => {
                return Err(Error::Input {
                    file: name.to_string(),
                    line: number,
                    msg: format!(
                        "a line of {bytes} bytes, longer than any graph6 line retrodb reads ({} \
                         at most)",
                        crate::base::error::human_bytes(MAX_LINE as u64)
                    ),
                }
                .into());
            }
        }
        let bytes = if number == 1 {
            raw.strip_prefix(b"\xEF\xBB\xBF".as_slice()).unwrap_or(&raw)
        } else {
            &raw
        };
        let err = |msg: String| -> AppError {
            Error::Input {
                file: name.to_string(),
                line: number,
                msg,
            }
            .into()
        };
        let text = std::str::from_utf8(bytes).map_err(|_| err("not valid UTF-8 text".into()))?;
        let words: Vec<&str> = text
            .split('#')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        match words[..] {
            [] => continue,
            [word] => pending.push((number, Graph::from_graph6(word).map_err(|e| err(e.0))?)),
            _ => {
                return Err(err(format!(
                    "expected one graph6 string, found {} words",
                    words.len()
                )));
            }
        }
        if pending.len() >= batch {
            f(std::mem::take(&mut pending))?;
        }
    }
    if !pending.is_empty() {
        f(pending)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connected_graph_counts() {
        // OEIS A001349: connected graphs on n unlabelled vertices.
        let counts: Vec<usize> = (1..=6)
            .map(|k| connected_graphs(k).unwrap().len())
            .collect();
        assert_eq!(counts, [1, 1, 2, 6, 21, 112]);
        for k in 1..=6 {
            for g in connected_graphs(k).unwrap() {
                assert!(g.is_connected());
                assert_eq!(g.vertices(), k);
                assert_eq!(g.canonical().unwrap(), g);
            }
        }
    }

    #[test]
    fn generation_limits_are_errors() {
        assert!(connected_graphs(0).is_err());
        assert!(connected_graphs(MAX_GENERATE + 1).is_err());
    }

    #[test]
    fn graph6_known_strings() {
        let k3 = Graph::from_edges(3, &[(0, 1), (0, 2), (1, 2)]).unwrap();
        assert_eq!(k3.to_graph6(), "Bw");
        assert_eq!(Graph::from_graph6("Bw").unwrap(), k3);
        assert_eq!(Graph::from_graph6(">>graph6<<Bw").unwrap(), k3);
        // The path 0-1-2: bits x(0,1)=1, x(0,2)=0, x(1,2)=1 -> 101000 = 40 -> 'g'.
        let p3 = Graph::from_edges(3, &[(0, 1), (1, 2)]).unwrap();
        assert_eq!(p3.to_graph6(), "Bg");
        // K4: six ones -> 63 + 63 = '~'; the empty graph on 4 vertices: '?'.
        let k4 = Graph::from_edges(4, &[(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]);
        assert_eq!(k4.unwrap().to_graph6(), "C~");
        assert_eq!(Graph::empty(4).unwrap().to_graph6(), "C?");
        // The Petersen graph as nauty writes it.
        let petersen = Graph::from_graph6("IheA@GUAo").unwrap();
        assert_eq!(petersen.vertices(), 10);
        assert_eq!(petersen.edge_count(), 15);
        assert!((0..10).all(|v| petersen.degree(v) == 3));
        assert_eq!(petersen.to_graph6(), "IheA@GUAo");
        assert_eq!(Graph::from_graph6("@").unwrap().vertices(), 1);
        assert_eq!(Graph::from_graph6("?").unwrap().vertices(), 0);
    }

    #[test]
    fn graph6_round_trips_every_small_graph() {
        for k in 1..=6 {
            for g in connected_graphs(k).unwrap() {
                assert_eq!(Graph::from_graph6(&g.to_graph6()).unwrap(), g);
            }
        }
    }

    #[test]
    fn bad_graph6_is_an_error() {
        for bad in ["", "Bw?", "B", "~??~", "B\u{7f}", "Bx", "B!"] {
            assert!(Graph::from_graph6(bad).is_err(), "{bad:?} accepted");
        }
        let e = read_graph6("g.g6", b"Bw\nB\n").unwrap_err().to_string();
        assert!(e.starts_with("g.g6:2:"), "{e}");
        assert_eq!(read_graph6("g.g6", b"Bw\n\nBg\n").unwrap().len(), 2);
    }

    fn brute_automorphism_count(g: &Graph) -> usize {
        let mut perm: Vec<usize> = (0..g.vertices()).collect();
        let mut count = 0;
        loop {
            count += g.is_automorphism(&perm) as usize;
            if !next_permutation(&mut perm) {
                return count;
            }
        }
    }

    #[test]
    fn automorphisms_match_brute_force() {
        for k in 1..=6 {
            for g in connected_graphs(k).unwrap() {
                let all = g.automorphisms();
                assert!(all.iter().all(|p| g.is_automorphism(p)));
                assert_eq!(all.len(), brute_automorphism_count(&g), "{}", g.to_graph6());
            }
        }
    }

    /// The smallest pair of each orbit of unordered pairs, by applying every automorphism found
    /// among all `n!` permutations.
    fn brute_pair_reps(g: &Graph) -> Vec<(usize, usize)> {
        let n = g.vertices();
        let mut perm: Vec<usize> = (0..n).collect();
        let mut autos = Vec::new();
        loop {
            if g.is_automorphism(&perm) {
                autos.push(perm.clone());
            }
            if !next_permutation(&mut perm) {
                break;
            }
        }
        let mut reps = std::collections::BTreeSet::new();
        for a in 0..n {
            for b in a + 1..n {
                let smallest = autos
                    .iter()
                    .map(|p| (p[a].min(p[b]), p[a].max(p[b])))
                    .min()
                    .expect("the identity");
                reps.insert(smallest);
            }
        }
        reps.into_iter().collect()
    }

    #[test]
    fn terminal_pairs_are_pair_orbits() {
        let k4 = Graph::from_graph6("C~").unwrap();
        assert_eq!(k4.terminal_pairs(), [(0, 1)]);
        let c4 = Graph::from_edges(4, &[(0, 1), (1, 2), (2, 3), (3, 0)]).unwrap();
        assert_eq!(c4.terminal_pairs(), [(0, 1), (0, 2)]);
        let p3 = Graph::from_edges(3, &[(0, 1), (1, 2)]).unwrap();
        assert_eq!(p3.terminal_pairs(), [(0, 1), (0, 2)]);
        // Every connected graph to seven vertices, as generated (canonical labels) and relabelled
        // by a fixed scramble (so the smallest pairs are not always the canonical form's).
        for k in 1..=7 {
            for g in connected_graphs(k).unwrap() {
                assert_eq!(g.terminal_pairs(), brute_pair_reps(&g), "{}", g.to_graph6());
                let mut scramble: Vec<usize> = (0..k).collect();
                scramble.sort_by_key(|&v| crate::base::splitmix::hash(v as u64));
                let h = g.relabel(&scramble);
                assert_eq!(h.terminal_pairs(), brute_pair_reps(&h), "{}", h.to_graph6());
            }
        }
    }
}
