//! Two edge-disjoint spanning trees: finding them (Edmonds' matroid partition, through the Lehman
//! oracle's [`ForestPair`]) and an independent yes/no check by the Tutte–Nash-Williams partition
//! condition, used to test the first.
//!
//! The invariant: [`two_spanning_trees`] only ever answers with two edge sets that a plain
//! union-find confirms are spanning trees; the partition check shares no code with it.

use crate::apps::oracle::lehman::ForestPair;

/// Two edge-disjoint spanning trees of the multigraph on `0..vertices`, as indices into `edges`,
/// or `None` when there are none. A graph of one vertex has two empty trees.
pub fn two_spanning_trees(
    vertices: usize,
    edges: &[(usize, usize)],
) -> Option<(Vec<usize>, Vec<usize>)> {
    let mut pair = ForestPair::new(vertices);
    for &(u, v) in edges {
        pair.push(u, v);
    }
    if pair.size() != 2 * vertices.saturating_sub(1) {
        return None;
    }
    let trees = (pair.forest(1), pair.forest(2));
    debug_assert!(is_spanning_tree(vertices, edges, &trees.0));
    debug_assert!(is_spanning_tree(vertices, edges, &trees.1));
    Some(trees)
}

/// Whether the edges `chosen` form a spanning tree of `0..vertices`.
pub fn is_spanning_tree(vertices: usize, edges: &[(usize, usize)], chosen: &[usize]) -> bool {
    if chosen.len() + 1 != vertices.max(1) {
        return false;
    }
    let mut parent: Vec<usize> = (0..vertices).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    for &e in chosen {
        let (u, v) = edges[e];
        let (a, b) = (find(&mut parent, u), find(&mut parent, v));
        if a == b {
            return false;
        }
        parent[a] = b;
    }
    true
}

/// Tutte and Nash-Williams: a multigraph has two edge-disjoint spanning trees iff every partition
/// of its vertices into `p` parts has at least `2(p - 1)` edges between different parts. Checked
/// over every partition (restricted growth strings), so only for small graphs (Bell(10) ≈ 10^5).
pub fn two_trees_by_partitions(vertices: usize, edges: &[(usize, usize)]) -> bool {
    assert!(vertices <= 12, "the partition check is for small graphs");
    if vertices <= 1 {
        return true;
    }
    // Enumerate restricted growth strings: block[0] = 0, block[i] <= 1 + top[i - 1], where
    // top[i] = max(block[..=i]) is kept as the strings change (no scan of a prefix per step).
    let mut block = vec![0usize; vertices];
    let mut top = vec![0usize; vertices];
    loop {
        let parts = top[vertices - 1] + 1;
        let crossing = edges.iter().filter(|&&(u, v)| block[u] != block[v]).count();
        if crossing < 2 * (parts - 1) {
            return false;
        }
        // Next string: bump the last position that may grow, reset those after it.
        let mut i = vertices - 1;
        while block[i] > top[i - 1] {
            i -= 1;
            if i == 0 {
                return true;
            }
        }
        block[i] += 1;
        top[i] = top[i - 1].max(block[i]);
        for j in i + 1..vertices {
            block[j] = 0;
            top[j] = top[i];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::splitmix::SplitMix64;

    #[test]
    fn partition_condition_on_known_graphs() {
        assert!(!two_trees_by_partitions(2, &[]));
        assert!(two_trees_by_partitions(2, &[(0, 1), (1, 0)]));
        assert!(!two_trees_by_partitions(2, &[(0, 1)]));
        // K4 has 6 = 2 * 3 edges and two disjoint spanning paths.
        let k4 = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)];
        assert!(two_trees_by_partitions(4, &k4));
        assert!(!two_trees_by_partitions(4, &k4[1..]));
        // A 4-cycle and a chord is one edge short; loops never help.
        let c4 = [(0, 1), (1, 2), (2, 3), (3, 0), (0, 2), (2, 2), (1, 1)];
        assert!(!two_trees_by_partitions(4, &c4));
    }

    #[test]
    fn matroid_partition_agrees_with_the_partition_condition() {
        let mut rng = SplitMix64(11);
        let mut yes = 0;
        for _ in 0..3000 {
            let n = 1 + rng.below(7) as usize;
            let m = rng.below(2 * n as u64 + 3) as usize;
            let edges: Vec<(usize, usize)> = (0..m)
                .map(|_| (rng.below(n as u64) as usize, rng.below(n as u64) as usize))
                .collect();
            let found = two_spanning_trees(n, &edges);
            assert_eq!(
                found.is_some(),
                two_trees_by_partitions(n, &edges),
                "{n} {edges:?}"
            );
            if let Some((a, b)) = found {
                yes += 1;
                assert!(is_spanning_tree(n, &edges, &a) && is_spanning_tree(n, &edges, &b));
                assert!(a.iter().all(|e| !b.contains(e)));
            }
        }
        assert!(yes > 100, "only {yes} graphs had two trees");
    }
}
