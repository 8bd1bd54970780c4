//! Orbits of unordered vertex pairs under a graph's automorphism group, by individualisation and
//! refinement (the method of nauty and its kin), not by trying the `n!` permutations.
//!
//! **Refinement**: a colouring of the vertices is refined until stable — each round a vertex's
//! new colour is the rank of its signature (its colour, then the sorted colours of its
//! neighbours) among all signatures. The ranks depend only on the coloured graph's structure, so
//! an isomorphism between two coloured versions of the graph maps each colour class onto the
//! class of the same colour after any number of rounds.
//!
//! **Search**: an automorphism taking pair `{a, b}` to `{c, d}` is an isomorphism from the graph
//! with `{a, b}` coloured apart to the graph with `{c, d}` coloured apart. Both colourings are
//! refined in lockstep (different signature multisets: no isomorphism); while the first is not
//! discrete, the smallest vertex `v` of its first class of more than one vertex is individualised
//! against each vertex `w` of the same class in the second, and the search recurses. A discrete
//! colouring gives one candidate map, checked edge by edge. The search is complete (every
//! isomorphism agrees with the refinement, so none is pruned) and sound (only checked maps are
//! returned).
//!
//! **Orbits**: pairs are taken in increasing order. Every automorphism found is applied to all
//! pairs and merges their classes in a union-find, so classes are orbits of the group generated
//! so far; a search runs only between a new representative and a class that is not yet merged
//! with it and whose pair has the same refined invariant. A graph whose plain refinement is
//! discrete has no automorphism but the identity and needs no search at all.
//!
//! The invariant: a representative is the smallest pair `(a, b)`, `a < b`, of its orbit, and two
//! pairs share a representative exactly when an automorphism maps one onto the other.

use super::graphs::Graph;

/// A colouring: `colour[v]` for each vertex, colours `0..classes`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Colouring {
    colour: Vec<u32>,
    classes: u32,
}

impl Colouring {
    fn uniform(n: usize) -> Colouring {
        Colouring {
            colour: vec![0; n],
            classes: u32::from(n > 0),
        }
    }

    fn is_discrete(&self) -> bool {
        self.classes as usize == self.colour.len()
    }

    /// The same colouring with the vertices of `set` given a colour of their own.
    fn set_apart(&self, set: u64) -> Colouring {
        let mut c = self.clone();
        for (v, col) in c.colour.iter_mut().enumerate() {
            if set >> v & 1 == 1 {
                *col = self.classes;
            }
        }
        c.classes += 1;
        c
    }

    /// Vertices of colour `k`, as a bit set.
    fn class(&self, k: u32) -> u64 {
        self.colour
            .iter()
            .enumerate()
            .filter(|&(_, &c)| c == k)
            .fold(0, |s, (v, _)| s | 1 << v)
    }
}

/// Each vertex's signature in `c` — its colour, then its neighbours' colours, sorted — in one
/// buffer, `n` entries a vertex (a vertex has at most `n - 1` neighbours), with every colour plus
/// one and zeros after the signature, so that comparing two vertices' entries orders their
/// signatures as sequences (a signature that is a prefix of another comes first); and the
/// vertices in increasing order of signature. One buffer, not one vector a vertex: a census
/// refines hundreds of colourings for each of millions of graphs.
fn sorted_signatures(g: &Graph, c: &Colouring) -> (Vec<u32>, Vec<usize>) {
    let n = g.vertices();
    let mut s = vec![0u32; n * n];
    for (v, row) in s.chunks_exact_mut(n.max(1)).enumerate().take(n) {
        row[0] = c.colour[v] + 1;
        let mut k = 1;
        let mut nb = g.neighbours(v);
        while nb != 0 {
            row[k] = c.colour[nb.trailing_zeros() as usize] + 1;
            k += 1;
            nb &= nb - 1;
        }
        row[1..k].sort_unstable();
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_unstable_by(|&a, &b| s[a * n..(a + 1) * n].cmp(&s[b * n..(b + 1) * n]));
    (s, order)
}

/// One refinement round applied to `K` colourings at once; `None` when their signature multisets
/// differ (no isomorphism between them). The new colour is the signature's rank among the
/// distinct signatures.
fn refine_round<const K: usize>(g: &Graph, cs: [&Colouring; K]) -> Option<[Colouring; K]> {
    let n = g.vertices();
    let sorted = cs.map(|c| sorted_signatures(g, c));
    let sig = |k: usize, i: usize| {
        let (s, order) = &sorted[k];
        let v = order[i];
        &s[v * n..(v + 1) * n]
    };
    if (1..K).any(|k| (0..n).any(|i| sig(k, i) != sig(0, i))) {
        return None;
    }
    let mut colours = [(); K].map(|_| vec![0u32; n]);
    let mut rank = 0u32;
    for i in 0..n {
        if i > 0 && sig(0, i) != sig(0, i - 1) {
            rank += 1;
        }
        for (colour, (_, order)) in colours.iter_mut().zip(&sorted) {
            colour[order[i]] = rank;
        }
    }
    let classes = if n == 0 { 0 } else { rank + 1 };
    Some(colours.map(|colour| Colouring { colour, classes }))
}

/// `K` colourings refined until stable, in lockstep; `None` when they part.
fn refine<const K: usize>(g: &Graph, mut cs: [Colouring; K]) -> Option<[Colouring; K]> {
    loop {
        let refined = refine_round(g, cs.each_ref())?;
        // Refinement only splits classes: the same number of classes is the same partition.
        let stable = refined[0].classes == cs[0].classes;
        cs = refined;
        if stable {
            return Some(cs);
        }
    }
}

/// The refinement of one colouring.
fn refine_one(g: &Graph, c: Colouring) -> Colouring {
    let [c] = refine(g, [c]).expect("a colouring agrees with itself");
    c
}

/// An automorphism of `g` mapping each vertex of colour `k` in `c1` to one of colour `k` in `c2`,
/// if there is one (see the module doc).
fn isomorphism(g: &Graph, c1: Colouring, c2: Colouring) -> Option<Vec<usize>> {
    let [c1, c2] = refine(g, [c1, c2])?;
    if c1.is_discrete() {
        let image = c1
            .colour
            .iter()
            .map(|&k| c2.colour.iter().position(|&c| c == k))
            .collect::<Option<Vec<usize>>>()?;
        return g.is_automorphism(&image).then_some(image);
    }
    let k = (0..c1.classes)
        .find(|&k| c1.class(k).count_ones() > 1)
        .expect("a colouring that is not discrete has a class of two");
    let v = c1.class(k).trailing_zeros() as u64;
    let mut targets = c2.class(k);
    while targets != 0 {
        let w = targets.trailing_zeros() as u64;
        targets &= targets - 1;
        if let Some(image) = isomorphism(g, c1.set_apart(1 << v), c2.set_apart(1 << w)) {
            return Some(image);
        }
    }
    None
}

/// An automorphism of `g` mapping the pair `{a, b}` onto `{c, d}` (either way round), if any.
pub fn pair_automorphism(
    g: &Graph,
    (a, b): (usize, usize),
    (c, d): (usize, usize),
) -> Option<Vec<usize>> {
    let base = Colouring::uniform(g.vertices());
    isomorphism(
        g,
        base.set_apart(1 << a | 1 << b),
        base.set_apart(1 << c | 1 << d),
    )
}

/// A union-find over pair indices.
struct Classes(Vec<usize>);

impl Classes {
    fn find(&mut self, mut i: usize) -> usize {
        while self.0[i] != i {
            self.0[i] = self.0[self.0[i]];
            i = self.0[i];
        }
        i
    }

    /// Joins two classes; the smaller root stays root, so a root is its class's smallest pair.
    fn union(&mut self, i: usize, j: usize) {
        let (ri, rj) = (self.find(i), self.find(j));
        let (lo, hi) = (ri.min(rj), ri.max(rj));
        self.0[hi] = lo;
    }
}

impl Graph {
    /// One unordered terminal pair `(a, b)`, `a < b`, from each orbit of the automorphism group
    /// on pairs of distinct vertices: the smallest pair of the orbit, in increasing order (found
    /// by individualisation and refinement, [`pair_representatives`]). Here, beside the
    /// refinement, so that the graph type does not import its orbits.
    pub fn terminal_pairs(&self) -> Vec<(usize, usize)> {
        pair_representatives(self)
    }
}

/// One pair `(a, b)`, `a < b`, from each orbit of the automorphism group on unordered pairs of
/// distinct vertices — the smallest of its orbit — in increasing order.
pub fn pair_representatives(g: &Graph) -> Vec<(usize, usize)> {
    let n = g.vertices();
    let pairs: Vec<(usize, usize)> = (0..n)
        .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
        .collect();
    let plain = refine_one(g, Colouring::uniform(n));
    if plain.is_discrete() {
        return pairs; // only the identity
    }
    // The index of pair (a, b), a < b, in `pairs`.
    let index = |a: usize, b: usize| {
        let (a, b) = (a.min(b), a.max(b));
        a * (2 * n - a - 1) / 2 + (b - a - 1)
    };
    // A refined invariant of each pair: the colours of its two vertices and the class sizes, after
    // refining with the pair set apart. Pairs in one orbit have equal invariants.
    let invariant: Vec<(Vec<u32>, [u32; 2])> = pairs
        .iter()
        .map(|&(a, b)| {
            let c = refine_one(g, plain.set_apart(1 << a | 1 << b));
            let mut sizes = vec![0u32; c.classes as usize];
            for &k in &c.colour {
                sizes[k as usize] += 1;
            }
            let (x, y) = (c.colour[a], c.colour[b]);
            (sizes, [x.min(y), x.max(y)])
        })
        .collect();
    let mut classes = Classes((0..pairs.len()).collect());
    let mut reps = Vec::new();
    for i in 0..pairs.len() {
        if classes.find(i) != i {
            continue; // in the orbit of an earlier representative
        }
        reps.push(pairs[i]);
        // Roots already shown to lie outside this orbit.
        let mut apart: Vec<usize> = Vec::new();
        for j in i + 1..pairs.len() {
            let root = classes.find(j);
            if root == classes.find(i) || invariant[j] != invariant[i] || apart.contains(&root) {
                continue;
            }
            match pair_automorphism(g, pairs[i], pairs[j]) {
                Some(image) => {
                    for (p, &(a, b)) in pairs.iter().enumerate() {
                        classes.union(p, index(image[a], image[b]));
                    }
                }
                None => apart.push(root),
            }
        }
    }
    reps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refinement_splits_a_path_by_distance_from_its_ends() {
        let p4 = Graph::from_edges(4, &[(0, 1), (1, 2), (2, 3)]).unwrap();
        let c = refine_one(&p4, Colouring::uniform(4));
        assert_eq!(c.classes, 2);
        assert_eq!(c.colour[0], c.colour[3]);
        assert_eq!(c.colour[1], c.colour[2]);
        assert_ne!(c.colour[0], c.colour[1]);
    }

    #[test]
    fn pair_automorphisms_of_a_cycle() {
        let c6 = Graph::from_edges(6, &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0)]).unwrap();
        let image = pair_automorphism(&c6, (0, 2), (3, 5)).expect("a rotation or reflection");
        assert!(c6.is_automorphism(&image));
        let mut got = [image[0], image[2]];
        got.sort();
        assert_eq!(got, [3, 5]);
        // A distance-2 pair is no edge's image.
        assert!(pair_automorphism(&c6, (0, 2), (0, 1)).is_none());
    }

    #[test]
    fn regular_graphs_that_refinement_cannot_split() {
        // The Petersen graph: its automorphisms are transitive on edges and on non-edges, so two
        // orbits of pairs; refinement alone leaves every vertex one colour.
        let petersen = Graph::from_graph6("IheA@GUAo").unwrap();
        assert!(!refine_one(&petersen, Colouring::uniform(10)).is_discrete());
        assert_eq!(pair_representatives(&petersen).len(), 2);
        // K3,3 (pairs on one side, pairs across) and the 3-prism (triangle edges, rungs, the rest).
        let k33 = Graph::from_edges(
            6,
            &[
                (0, 3),
                (0, 4),
                (0, 5),
                (1, 3),
                (1, 4),
                (1, 5),
                (2, 3),
                (2, 4),
                (2, 5),
            ],
        )
        .unwrap();
        assert_eq!(pair_representatives(&k33), [(0, 1), (0, 3)]);
        let prism = Graph::from_edges(
            6,
            &[
                (0, 1),
                (1, 2),
                (2, 0),
                (3, 4),
                (4, 5),
                (5, 3),
                (0, 3),
                (1, 4),
                (2, 5),
            ],
        )
        .unwrap();
        assert_eq!(pair_representatives(&prism), [(0, 1), (0, 3), (0, 4)]);
    }
}
