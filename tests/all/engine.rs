//! The parallel counter-decrement engine against a simple sequential queue solver written here,
//! on random digraphs with cycles, self-loops and multi-edges, for one and several threads; and
//! the counter and tiered engines against each other (byte-identical tables, remoteness
//! included) on random Shannon multigraphs and random Hackenbush trees.

use std::collections::VecDeque;
use std::sync::OnceLock;

use proptest::prelude::*;
use retrodb::base::cells::{self, Cells, zeroed_words};
use retrodb::games::Source;
use retrodb::games::digraph::Digraph;
use retrodb::solve::{SolveOptions, counter};

/// A vertex's value with its remoteness, as the queue solver and the engine give it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum V {
    Unused,
    Win(u32),
    Loss(u32),
    Draw,
}

/// The textbook queue algorithm: sinks lose; a position with a lost child wins; a position all of
/// whose children win loses; what the queue never reaches is drawn. Processing the queue in FIFO
/// order hands out remoteness in nondecreasing order, so the first lost child found is the
/// quickest win and the last won child is the slowest loss.
pub(crate) fn queue_solve(n: usize, edges: &[(u32, u32)]) -> Vec<V> {
    let mut out_deg = vec![0usize; n];
    let mut parents = vec![Vec::new(); n];
    let mut touched = vec![false; n];
    for &(u, v) in edges {
        out_deg[u as usize] += 1;
        parents[v as usize].push(u as usize);
        touched[u as usize] = true;
        touched[v as usize] = true;
    }
    let mut val: Vec<Option<V>> = vec![None; n];
    let mut remaining = out_deg.clone();
    let mut queue = VecDeque::new();
    for v in 0..n {
        if touched[v] && out_deg[v] == 0 {
            val[v] = Some(V::Loss(0));
            queue.push_back(v);
        }
    }
    while let Some(p) = queue.pop_front() {
        match val[p] {
            Some(V::Loss(r)) => {
                for &q in &parents[p] {
                    if val[q].is_none() {
                        val[q] = Some(V::Win(r + 1));
                        queue.push_back(q);
                    }
                }
            }
            Some(V::Win(r)) => {
                for &q in &parents[p] {
                    if val[q].is_none() {
                        remaining[q] -= 1;
                        if remaining[q] == 0 {
                            val[q] = Some(V::Loss(r + 1));
                            queue.push_back(q);
                        }
                    }
                }
            }
            _ => unreachable!(),
        }
    }
    (0..n)
        .map(|v| match val[v] {
            Some(x) => x,
            None if touched[v] => V::Draw,
            None => V::Unused,
        })
        .collect()
}

fn engine_solve(n: usize, edges: &[(u32, u32)], pool: &rayon::ThreadPool) -> Vec<V> {
    let g = Digraph::from_edges(Source::of("test", b""), n as u64, edges);
    let words = zeroed_words(cells::words_for(n as u64));
    let cells = Cells::new(&words, n as u64);
    let opts = SolveOptions {
        remoteness: true,
        progress: None,
        ..Default::default()
    };
    let stats = pool.install(|| counter::solve(&g, &cells, &opts));
    let rem = stats.remoteness.expect("asked for remoteness");
    (0..n)
        .map(|v| match cells.get(v as u64) {
            cells::WIN => V::Win(rem[v]),
            cells::LOSS => V::Loss(rem[v]),
            cells::DRAW => V::Draw,
            _ => V::Unused,
        })
        .collect()
}

fn pools() -> &'static [rayon::ThreadPool] {
    static POOLS: OnceLock<Vec<rayon::ThreadPool>> = OnceLock::new();
    POOLS.get_or_init(|| {
        [1, 2, 4]
            .iter()
            .map(|&t| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(t)
                    .build()
                    .unwrap()
            })
            .collect()
    })
}

fn digraphs() -> impl Strategy<Value = (usize, Vec<(u32, u32)>)> {
    (1usize..40).prop_flat_map(|n| {
        let edge = (0..n as u32, 0..n as u32);
        (Just(n), prop::collection::vec(edge, 0..3 * n))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn engine_matches_queue_solver_for_every_thread_count((n, edges) in digraphs()) {
        let expect = queue_solve(n, &edges);
        for pool in pools() {
            let got = engine_solve(n, &edges, pool);
            prop_assert_eq!(&got, &expect, "threads {}", pool.current_num_threads());
        }
    }
}

/// The saved failing cases are found where proptest looks for them. With `main.rs` beside this
/// file, that is `tests/proptest-regressions/engine.txt`, not a file beside this one.
#[test]
fn saved_regressions_are_found() {
    use proptest::test_runner::{FailurePersistence, FileFailurePersistence};
    let saved = FileFailurePersistence::default().load_persisted_failures2(Some(file!()));
    assert!(!saved.is_empty(), "no saved cases found for {}", file!());
}

/// Large enough that the engine's chunks are split among threads: values and remoteness must not
/// depend on how the work was divided.
#[test]
fn big_random_graph_same_for_all_thread_counts() {
    let n = 200_000usize;
    let g = retrodb::games::digraph::random(n as u64, 300_000, 20_000, 7);
    let mut edges = Vec::new();
    use retrodb::Game;
    for v in 0..n as u64 {
        g.for_each_child(v, |c| edges.push((v as u32, c as u32)));
    }
    let expect = queue_solve(n, &edges);
    let draws = expect.iter().filter(|v| **v == V::Draw).count();
    let wins = expect.iter().filter(|v| matches!(v, V::Win(_))).count();
    assert!(
        draws > 0 && wins > 0,
        "the sample graph should have draws and wins"
    );
    for pool in pools() {
        assert_eq!(engine_solve(n, &edges, pool), expect);
    }
}

/// The edges of seed 001's worked example, read from `data/seed001.txt`.
pub(crate) fn seed001_edges() -> Vec<(u32, u32)> {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/seed001.txt")).unwrap();
    let edges: Vec<(u32, u32)> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut w = l.split_whitespace().map(|x| x.parse::<u32>().unwrap());
            (w.next().unwrap(), w.next().unwrap())
        })
        .collect();
    assert_eq!(edges.len(), 14);
    edges
}

#[test]
fn seed001_example_values() {
    let got = engine_solve(12, &seed001_edges(), &pools()[1]);
    let kind = |v: &V| match v {
        V::Win(_) => 'W',
        V::Loss(_) => 'L',
        V::Draw => 'D',
        V::Unused => '-',
    };
    let s: String = got.iter().map(kind).collect();
    // Vertices 0-3 draw; 4, 5, 9, 11 win; 6, 7, 8, 10 lose (seed 001's last figure).
    assert_eq!(s, "DDDDWWLLLWLW");
}

/// The table `spec` (its input `text`, if any, embedded) built by `engine`, with remoteness.
fn table_by(spec: &str, text: &str, engine: retrodb::solve::Engine) -> Vec<u8> {
    use retrodb::games::{AnyGame, Input};
    let game = AnyGame::load(spec, Input::Embedded(text.as_bytes()), u64::MAX).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.rdb");
    let opts = retrodb::table::builder::BuildOptions {
        remoteness: true,
        engine: Some(engine),
        ..retrodb::table::builder::BuildOptions::default()
    };
    retrodb::table::builder::build(&game, &out, &opts).unwrap();
    std::fs::read(&out).unwrap()
}

/// Random Hackenbush trees in the tree syntax: chains of blue, red and green edges, branching.
fn hackenbush_tree() -> impl Strategy<Value = String> {
    let edge = prop::sample::select(vec!['l', 'r', 'e']);
    let leaf = prop::collection::vec(edge, 1..3).prop_map(|v| v.into_iter().collect::<String>());
    leaf.prop_recursive(3, 9, 3, |inner| {
        (
            prop::collection::vec(prop::sample::select(vec!['l', 'r', 'e']), 1..3),
            prop::collection::vec(inner, 1..3),
        )
            .prop_map(|(run, branches)| {
                format!(
                    "{}({})",
                    run.into_iter().collect::<String>(),
                    branches.join(";")
                )
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The counter and tiered engines write the same table (values, remoteness, rounds) for
    /// the Shannon edge game on random multigraphs and terminals.
    #[test]
    fn engines_agree_on_random_shannon_graphs(
        n in 2u32..=6,
        raw in prop::collection::vec((0u32..6, 0u32..6), 1..=9),
        b in 1u32..6,
    ) {
        // An edge from terminal 0 to terminal t first, so both are vertices of the graph.
        let t = 1 + b % (n - 1);
        let mut text = format!("0 {t}\n");
        text.extend(raw.iter().map(|&(u, v)| format!("{} {}\n", u % n, v % n)));
        text.push_str(&format!("terminals 0 {t}\n"));
        let spec = "shannon:random.txt";
        let counter = table_by(spec, &text, retrodb::solve::Engine::Counter);
        let tiered = table_by(spec, &text, retrodb::solve::Engine::Tiered);
        prop_assert!(counter == tiered, "{}", text);
    }

    /// The same for random Hackenbush trees (blue, red and green edges).
    #[test]
    fn engines_agree_on_random_hackenbush_trees(tree in hackenbush_tree()) {
        let spec = format!("hackenbush-tree:{tree}");
        let counter = table_by(&spec, "", retrodb::solve::Engine::Counter);
        let tiered = table_by(&spec, "", retrodb::solve::Engine::Tiered);
        prop_assert!(counter == tiered, "{}", tree);
    }
}
