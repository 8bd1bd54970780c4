//! The labelling against answers that use no labelling: the counter engine on the explicit
//! sum (product) game of two and three tokens, plain Sprague-Grundy numbers (mex by a memoised
//! recursion) on acyclic graphs, and the single-token values of the counter engine.

use super::*;
use crate::base::grundy::{Grundy, check_local, sum, winning_moves};
use crate::base::splitmix::SplitMix64;
use crate::game::Notation;
use crate::game::Value;
use crate::games::Source;
use crate::games::digraph::Digraph;
use proptest::prelude::*;

/// A small random digraph: `n` vertices, up to `2n + 2` edges (loops and repeated edges
/// possible), some vertices without moves; vertices no edge touches are unused.
fn small_graph(seed: u64, max_n: u64) -> (u64, Vec<(u32, u32)>) {
    let mut rng = SplitMix64(seed);
    let n = 1 + rng.below(max_n);
    let m = rng.below(2 * n + 3);
    let sinks = rng.below(n.div_ceil(2) + 1);
    let mut edges = Vec::new();
    for _ in 0..m {
        let u = rng.below(n);
        let v = rng.below(n);
        // Sinks have no out-edge (unless the graph has nothing else).
        if u < sinks && n > sinks {
            continue;
        }
        // Some graphs without loops or repeated edges, so those cases come up both ways.
        if seed.is_multiple_of(3) && (u == v || edges.contains(&(u as u32, v as u32))) {
            continue;
        }
        edges.push((u as u32, v as u32));
    }
    (n, edges)
}

fn digraph(n: u64, edges: &[(u32, u32)]) -> Digraph {
    Digraph::from_edges(Source::of("g.txt", &[]), n, edges)
}

fn label_of(g: &Digraph) -> Labels {
    label(g, &SolveOptions::default(), None).unwrap()
}

/// The counter engine's values of every position of `g` (`None`: unused).
fn counter_values<G: Game>(g: &G) -> Vec<Option<Value>> {
    let words = cells::zeroed_words(cells::words_for(g.size()));
    let c = cells::Cells::new(&words, g.size());
    super::super::counter::solve(g, &c, &SolveOptions::default());
    (0..g.size()).map(|p| cells::value(c.get(p))).collect()
}

/// The sum of `k` tokens on `g` as a digraph of its own: position `t_0 + t_1 n + ...`, a
/// move moves one token along an edge of `g`. Only tuples of used vertices have edges.
fn product(g: &Digraph, k: u32) -> Digraph {
    let n = g.size();
    let used: Vec<bool> = (0..n).map(|v| g.status(v) != Status::Unused).collect();
    let mut edges = Vec::new();
    for idx in 0..n.pow(k) {
        let t = tuple(idx, n, k);
        if !t.iter().all(|&v| used[v as usize]) {
            continue;
        }
        for i in 0..k as usize {
            g.for_each_child(t[i], |c| {
                let mut s = t.clone();
                s[i] = c;
                edges.push((idx as u32, index(&s, n) as u32));
            });
        }
    }
    digraph(n.pow(k), &edges)
}

fn tuple(mut idx: u64, n: u64, k: u32) -> Vec<u64> {
    (0..k)
        .map(|_| {
            let v = idx % n;
            idx /= n;
            v
        })
        .collect()
}

fn index(t: &[u64], n: u64) -> u64 {
    t.iter().rev().fold(0, |a, &v| a * n + v)
}

/// What the comparison of one graph met, summed over all graphs (so a test can insist that
/// every case of the sum rule came up).
#[derive(Default, Debug)]
struct Seen {
    sums: u64,
    won: u64,
    lost: u64,
    drawn: u64,
    one_infinite_won: u64,
    one_infinite_drawn: u64,
    two_infinite: u64,
    nonempty_reach: u64,
    finite_reversal: u64,
}

/// Compares every sum of `k` tokens on `g` with the counter engine's solve of the product:
/// the outcome, and the winning moves (exactly the moves to lost positions, up to tokens on
/// the same vertex). Returns the first disagreement.
fn compare_sums(g: &Digraph, labels: &Labels, k: u32, seen: &mut Seen) -> Result<(), String> {
    let n = g.size();
    let p = product(g, k);
    let truth = counter_values(&p);
    let value = |v: u64| labels.get(v).expect("a used vertex");
    for idx in 0..n.pow(k) {
        let t = tuple(idx, n, k);
        if t.iter().any(|&v| labels.get(v).is_none()) {
            continue;
        }
        let values: Vec<Grundy> = t.iter().map(|&v| value(v)).collect();
        let got = sum(&values).value();
        let want = truth[idx as usize].ok_or("a used tuple unused in the product")?;
        if got != want {
            return Err(format!(
                "tokens {t:?} with values {values:?}: the sum rule says {got}, the product \
                 solve {want}"
            ));
        }
        seen.sums += 1;
        match want {
            Value::Win => seen.won += 1,
            Value::Loss => seen.lost += 1,
            Value::Draw => seen.drawn += 1,
        }
        match values.iter().filter(|v| !v.is_finite()).count() {
            1 if want == Value::Win => seen.one_infinite_won += 1,
            1 => seen.one_infinite_drawn += 1,
            0 => {}
            _ => seen.two_infinite += 1,
        }
        let moves = winning_moves(&t, &values, |v| {
            Ok::<_, ()>(
                g.moves(v)
                    .iter()
                    .map(|m| (m.child, value(m.child)))
                    .collect(),
            )
        })
        .unwrap();
        let mut reported: Vec<Vec<u64>> = moves
            .iter()
            .map(|&(i, c)| {
                let mut s = t.clone();
                s[i] = c;
                s.sort_unstable();
                s
            })
            .collect();
        let mut winning: Vec<Vec<u64>> = Vec::new();
        for i in 0..k as usize {
            g.for_each_child(t[i], |c| {
                let mut s = t.clone();
                s[i] = c;
                if truth[index(&s, n) as usize] == Some(Value::Loss) {
                    s.sort_unstable();
                    winning.push(s);
                }
            });
        }
        for list in [&mut reported, &mut winning] {
            list.sort_unstable();
            list.dedup();
        }
        if reported != winning {
            return Err(format!(
                "tokens {t:?} with values {values:?}: winning moves lead to {reported:?}, the \
                 product's moves to lost positions are {winning:?}"
            ));
        }
    }
    Ok(())
}

/// The labelling's own consistency on `g`: every value passes the local conditions, a
/// single token's outcome is the counter engine's, and every used position has a value.
fn check_graph(g: &Digraph, labels: &Labels, seen: &mut Seen) -> Result<(), String> {
    let single = counter_values(g);
    for v in 0..g.size() {
        let Some(value) = labels.get(v) else {
            if single[v as usize].is_some() {
                return Err(format!("vertex {v} has no value but is a position"));
            }
            continue;
        };
        let followers: Vec<Grundy> = g
            .moves(v)
            .iter()
            .map(|m| labels.get(m.child).unwrap())
            .collect();
        check_local(&value, &followers).map_err(|e| format!("vertex {v}: {e}"))?;
        if Some(value.value()) != single[v as usize] {
            return Err(format!(
                "vertex {v}: value {value} says {}, the counter engine {:?}",
                value.value(),
                single[v as usize]
            ));
        }
        if let Grundy::Infinite(k) = &value
            && !k.is_empty()
        {
            seen.nonempty_reach += 1;
        }
        if let Grundy::Finite(n) = value
            && followers
                .iter()
                .any(|f| !matches!(f, Grundy::Finite(m) if *m < n))
        {
            seen.finite_reversal += 1;
        }
    }
    Ok(())
}

#[test]
fn sums_of_two_and_three_tokens_agree_with_the_product_solve() {
    let mut seen = Seen::default();
    let graphs = 3000;
    for seed in 0..graphs {
        let (n, edges) = small_graph(seed, if seed % 2 == 0 { 6 } else { 9 });
        let g = digraph(n, &edges);
        let labels = label_of(&g);
        let report = |e: String| format!("seed {seed}, {n} vertices, edges {edges:?}: {e}");
        check_graph(&g, &labels, &mut seen).unwrap_or_else(|e| panic!("{}", report(e)));
        compare_sums(&g, &labels, 2, &mut seen).unwrap_or_else(|e| panic!("{}", report(e)));
        if n <= 6 {
            compare_sums(&g, &labels, 3, &mut seen).unwrap_or_else(|e| panic!("{}", report(e)));
        }
    }
    // Every case of the sum rule came up, many times.
    eprintln!("{seen:?}");
    let least = [
        seen.won,
        seen.lost,
        seen.drawn,
        seen.one_infinite_won,
        seen.one_infinite_drawn,
        seen.two_infinite,
        seen.nonempty_reach,
        seen.finite_reversal,
    ];
    assert!(least.iter().all(|&c| c >= 200), "{seen:?}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn random_graphs_agree_with_the_product_solve(
        n in 1u64..8,
        raw in prop::collection::vec((0u64..8, 0u64..8), 0..20),
    ) {
        let edges: Vec<(u32, u32)> =
            raw.iter().map(|&(u, v)| ((u % n) as u32, (v % n) as u32)).collect();
        let g = digraph(n, &edges);
        let labels = label_of(&g);
        let mut seen = Seen::default();
        check_graph(&g, &labels, &mut seen).map_err(TestCaseError::fail)?;
        compare_sums(&g, &labels, 2, &mut seen).map_err(TestCaseError::fail)?;
        if n <= 5 {
            compare_sums(&g, &labels, 3, &mut seen).map_err(TestCaseError::fail)?;
        }
    }
}

/// Plain Sprague-Grundy numbers of an acyclic graph: mex over the followers, by recursion.
fn mex_values(g: &Digraph) -> Vec<Option<u32>> {
    fn go(g: &Digraph, v: u64, memo: &mut Vec<Option<u32>>) -> u32 {
        if let Some(x) = memo[v as usize] {
            return x;
        }
        let mut seen: Vec<u32> = g.moves(v).iter().map(|m| go(g, m.child, memo)).collect();
        seen.sort_unstable();
        let mut mex = 0;
        for s in seen {
            if s == mex {
                mex += 1;
            }
        }
        memo[v as usize] = Some(mex);
        mex
    }
    let mut memo = vec![None; g.size() as usize];
    for v in 0..g.size() {
        if g.status(v) != Status::Unused {
            go(g, v, &mut memo);
        }
    }
    memo
}

#[test]
fn acyclic_graphs_get_plain_sprague_grundy_numbers() {
    let mut largest = 0;
    for seed in 0..1500u64 {
        let mut rng = SplitMix64(seed ^ 0x5EED);
        let n = 2 + rng.below(60);
        let m = rng.below(4 * n);
        // Edges from a higher id to a lower one: no cycle.
        let edges: Vec<(u32, u32)> = (0..m)
            .filter_map(|_| {
                let (a, b) = (rng.below(n), rng.below(n));
                (a != b).then(|| (a.max(b) as u32, a.min(b) as u32))
            })
            .collect();
        let g = digraph(n, &edges);
        let labels = label_of(&g);
        let want = mex_values(&g);
        for v in 0..n {
            let got = labels.get(v);
            assert_eq!(
                got,
                want[v as usize].map(Grundy::Finite),
                "seed {seed}, vertex {v}, edges {edges:?}"
            );
        }
        assert_eq!(labels.infinite_count(), 0);
        assert_eq!(
            labels.stages, labels.finite,
            "a stage per value, seed {seed}"
        );
        largest = largest.max(labels.finite);
    }
    assert!(largest >= 5, "values up to {largest} only");
}

#[test]
fn the_same_labels_with_one_thread_and_with_several() {
    for seed in 0..20u64 {
        let n = 3000;
        let g = crate::games::digraph::random(n, 4 * n, seed % 4 * 300, seed);
        let pool = |t| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .unwrap()
        };
        let one = pool(1).install(|| label_of(&g));
        let three = pool(3).install(|| label_of(&g));
        assert_eq!(
            (
                &one.codes,
                one.finite,
                &one.sets,
                one.stages,
                one.parent_visits
            ),
            (
                &three.codes,
                three.finite,
                &three.sets,
                three.stages,
                three.parent_visits
            ),
            "seed {seed}"
        );
        let mut seen = Seen::default();
        check_graph(&g, &one, &mut seen).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    }
}

/// Stage 0 handed over from the counter engine's solve gives the same labels as stage 0 run
/// by the labelling itself.
#[test]
fn a_solve_handed_over_is_stage_zero() {
    for seed in 0..400u64 {
        let g = if seed % 4 == 0 {
            crate::games::digraph::random(2000, 5000 + seed * 20, seed % 3 * 150, seed)
        } else {
            let (n, edges) = small_graph(seed, 9);
            digraph(n, &edges)
        };
        let words = cells::zeroed_words(cells::words_for(g.size()));
        let c = Cells::new(&words, g.size());
        super::super::counter::solve(&g, &c, &SolveOptions::default());
        let seeded = label(&g, &SolveOptions::default(), Some(&c)).unwrap();
        let fresh = label_of(&g);
        assert_eq!(
            (&seeded.codes, seeded.finite, &seeded.sets, seeded.stages),
            (&fresh.codes, fresh.finite, &fresh.sets, fresh.stages),
            "seed {seed}"
        );
        assert!(seeded.parent_visits <= fresh.parent_visits);
    }
}

#[test]
fn hand_checked_examples() {
    // A 2-cycle: a token there moves back and forth for ever.
    let g = digraph(2, &[(0, 1), (1, 0)]);
    let l = label_of(&g);
    assert_eq!(l.get(0), Some(Grundy::Infinite(vec![])));
    assert_eq!(l.get(1), Some(Grundy::Infinite(vec![])));
    // A 3-cycle with an exit from 2 to the sink 3: every value finite.
    let g = digraph(4, &[(0, 1), (1, 2), (2, 0), (2, 3)]);
    let l = label_of(&g);
    let got: Vec<_> = (0..4).map(|v| l.get(v).unwrap()).collect();
    assert_eq!(
        got,
        [1, 0, 2, 0].map(Grundy::Finite).to_vec(),
        "values of the cycle with an exit"
    );
    // A loop: never a finite value (the token may stay).
    let g = digraph(2, &[(0, 0), (0, 1)]);
    let l = label_of(&g);
    assert_eq!(l.get(0), Some(Grundy::Infinite(vec![0])));
}

#[test]
fn games_that_end_otherwise_are_refused() {
    let g = crate::games::AnyGame::open("hex:2", u64::MAX).unwrap();
    let crate::games::AnyGame::Cell(g) = g else {
        unreachable!()
    };
    let e = label(&g, &SolveOptions::default(), None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("is over"), "{e}");
}
