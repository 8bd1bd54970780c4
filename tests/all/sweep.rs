//! `retrodb sweep shannon`, run as a user runs it: every connected graph on up to five vertices,
//! every terminal pair up to automorphism, every position of every table against Lehman.

use std::process::Output;

use retrodb::apps::oracle::graphs::connected_graphs;
use serde_json::Value as Json;

use crate::common::{fails, retrodb, retrodb_stdin, stderr, stdout};

fn json_report(out: &Output) -> Json {
    assert!(
        out.status.success(),
        "sweep failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("--json prints one JSON object")
}

#[test]
fn sweep_to_five_vertices_agrees_with_lehman_everywhere() {
    let out = retrodb(&["sweep", "shannon", "--max-vertices", "5", "--json"]);
    let report = json_report(&out);
    let rows = report["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 5);
    for (k, row) in (1..=5).zip(rows) {
        let graphs = connected_graphs(k).unwrap();
        assert_eq!(row["vertices"], k);
        assert_eq!(row["graphs"], graphs.len());
        let pairs: usize = graphs.iter().map(|g| g.terminal_pairs().len()).sum();
        assert_eq!(row["terminal_pairs"], pairs);
        let classes = ["short", "cut", "first"].map(|c| row[c].as_u64().unwrap() as usize);
        assert_eq!(
            classes.iter().sum::<usize>(),
            pairs,
            "every pair gets a class"
        );
        // Up to 10 edges: every position of every table (2·3^E each) was compared.
        let positions: u64 = graphs
            .iter()
            .map(|g| g.terminal_pairs().len() as u64 * 2 * 3u64.pow(g.edge_count() as u32))
            .sum();
        assert_eq!(row["positions_checked"], positions, "row {k}");
        assert_eq!(row["disagreements"], 0, "row {k}");
    }
    // Two vertices: one edge, first player wins. Three: the path's end pair (Cut), its
    // adjacent pair and the triangle (first player).
    assert_eq!(
        [&rows[1]["short"], &rows[1]["cut"], &rows[1]["first"]],
        [0, 0, 1]
    );
    assert_eq!(
        [&rows[2]["short"], &rows[2]["cut"], &rows[2]["first"]],
        [0, 1, 2]
    );
    // On four vertices K4 is the one graph where Short wins moving second.
    assert_eq!(rows[3]["short"], 1);
    assert_eq!(report["total"]["disagreements"], 0);
    assert_eq!(report["disagreeing"].as_array().unwrap().len(), 0);
}

#[test]
fn sweep_reads_graph6_from_stdin() {
    // K4 (one pair up to automorphism: Short wins) and the 4-cycle (adjacent pair: first player;
    // opposite pair: Cut).
    let out = retrodb_stdin(
        &["sweep", "shannon", "--graph6", "-", "--json"],
        ">>graph6<<C~\n# the 4-cycle\nCr\n",
    );
    let report = json_report(&out);
    let total = &report["total"];
    assert_eq!(total["graphs"], 2);
    assert_eq!(total["terminal_pairs"], 3);
    assert_eq!([&total["short"], &total["cut"], &total["first"]], [1, 1, 1]);
    assert_eq!(total["disagreements"], 0);
}

#[test]
fn sweep_prints_the_counts_table() {
    let out = retrodb(&["sweep", "shannon", "--max-vertices", "3"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("terminal pairs"), "{text}");
    let all = text
        .lines()
        .find(|l| l.trim_start().starts_with("all"))
        .expect("a total line");
    let words: Vec<&str> = all.split_whitespace().collect();
    // all, graphs, pairs, short, cut, first, positions, disagreements
    assert_eq!(words[1..6], ["4", "4", "0", "1", "3"], "{all}");
    assert_eq!(words[7], "0");
}

#[test]
fn bad_input_is_a_clear_error() {
    let out = retrodb(&["sweep", "shannon", "--max-vertices", "8"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--max-vertices 8"), "{err}");

    let out = retrodb_stdin(&["sweep", "shannon", "--graph6", "-"], "Bw\nC~x\n");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("<stdin>:2:"), "{err}");

    let out = retrodb_stdin(&["sweep", "shannon", "--graph6", "-"], "C?\n");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no edges"), "{err}");

    // K7 has 21 edges: its table cannot fit, and the sweep says so before solving anything.
    let out = retrodb_stdin(
        &["sweep", "shannon", "--graph6", "-", "--max-memory", "1G"],
        "F~~~w\n",
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("21 edges") && err.contains("memory limit"),
        "{err}"
    );
}

// `retrodb sweep shannon-vertex`: the vertex game's census against the memoised minimax.

/// OEIS A001349: connected graphs on 1, 2, ... unlabelled vertices.
const A001349: [u64; 10] = [1, 1, 2, 6, 21, 112, 853, 11117, 261080, 11716571];

/// Every permutation of `0..n`, by Heap's algorithm.
fn permutations(n: usize) -> Vec<Vec<usize>> {
    fn heap(k: usize, p: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if k <= 1 {
            out.push(p.clone());
            return;
        }
        for i in 0..k {
            heap(k - 1, p, out);
            let j = if k.is_multiple_of(2) { i } else { 0 };
            p.swap(j, k - 1);
        }
    }
    let mut out = Vec::new();
    heap(n, &mut (0..n).collect(), &mut out);
    out
}

/// The smallest pair of each orbit of unordered vertex pairs, trying all `n!` permutations.
fn brute_pair_reps(g: &retrodb::apps::oracle::graphs::Graph) -> Vec<(usize, usize)> {
    let n = g.vertices();
    let autos: Vec<Vec<usize>> = permutations(n)
        .into_iter()
        .filter(|p| g.is_automorphism(p))
        .collect();
    let mut reps: Vec<(usize, usize)> = (0..n)
        .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
        .map(|(a, b)| {
            autos
                .iter()
                .map(|p| (p[a].min(p[b]), p[a].max(p[b])))
                .min()
                .expect("the identity")
        })
        .collect();
    reps.sort();
    reps.dedup();
    reps
}

#[test]
fn vertex_sweep_to_five_vertices_agrees_with_the_minimax_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("pairs.txt");
    let out = retrodb(&[
        "sweep",
        "shannon-vertex",
        "--max-vertices",
        "5",
        "--engine-sample",
        "1",
        "--list",
        list.to_str().unwrap(),
        "--json",
    ]);
    let report = json_report(&out);
    let rows = report["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 5);
    let edge = json_report(&retrodb(&[
        "sweep",
        "shannon",
        "--max-vertices",
        "5",
        "--json",
    ]));
    for (k, row) in (1..=5usize).zip(rows) {
        assert_eq!(row["vertices"], k);
        assert_eq!(row["graphs"], A001349[k - 1], "row {k}");
        let graphs = connected_graphs(k).unwrap();
        let pairs: u64 = graphs.iter().map(|g| brute_pair_reps(g).len() as u64).sum();
        assert_eq!(row["terminal_pairs"], pairs, "row {k}");
        for prefix in ["", "edge_"] {
            let classes: u64 = ["short", "cut", "first"]
                .iter()
                .map(|c| row[format!("{prefix}{c}")].as_u64().unwrap())
                .sum();
            assert_eq!(classes, pairs, "every pair gets a {prefix}class");
        }
        // Every position of every table (2·3^(k-2) each) against the minimax, and against the
        // counter engine's table (every graph sampled).
        let positions = pairs * 2 * 3u64.pow(k.saturating_sub(2) as u32);
        assert_eq!(row["positions_checked"], positions, "row {k}");
        assert_eq!(row["engine_positions"], positions, "row {k}");
        assert_eq!(row["engine_graphs"], A001349[k - 1], "row {k}");
        assert_eq!(row["disagreements"], 0, "row {k}");
        // The edge classes by Lehman are the edge sweep's, whose tables were compared.
        let e = &edge["rows"][k - 1];
        for c in ["short", "cut", "first"] {
            assert_eq!(row[format!("edge_{c}")], e[c], "row {k} {c}");
        }
    }
    // Two vertices: the edge joins the terminals before a move (Short's). Three: the triangle
    // and the path's end-middle pair are adjacent (Short's); the path's ends share one cell
    // (the first player's).
    assert_eq!(
        [&rows[1]["short"], &rows[1]["cut"], &rows[1]["first"]],
        [1, 0, 0]
    );
    assert_eq!(
        [&rows[2]["short"], &rows[2]["cut"], &rows[2]["first"]],
        [2, 0, 1]
    );
    assert_eq!(report["total"]["disagreements"], 0);
    assert_eq!(report["disagreeing_pairs"], 0);

    // The list: one line per graph and pair, the pairs exactly the orbits' smallest.
    let text = std::fs::read_to_string(&list).unwrap();
    let mut by_graph: std::collections::BTreeMap<String, Vec<(usize, usize)>> = Default::default();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let w: Vec<&str> = line.split(' ').collect();
        assert_eq!(w.len(), 5, "{line}");
        assert!(["short", "cut", "first"].contains(&w[3]), "{line}");
        assert!(["short", "cut", "first"].contains(&w[4]), "{line}");
        by_graph
            .entry(w[0].to_string())
            .or_default()
            .push((w[1].parse().unwrap(), w[2].parse().unwrap()));
    }
    for k in 2..=5 {
        for g in connected_graphs(k).unwrap() {
            assert_eq!(
                by_graph.get(&g.to_graph6()),
                Some(&brute_pair_reps(&g)),
                "{}",
                g.to_graph6()
            );
        }
    }
}

#[test]
fn vertex_sweep_classes_of_small_graphs_read_from_stdin() {
    // The path of four: ends (two cells in series: Cut), end and inner vertex (adjacent: Short),
    // the two inner vertices (adjacent: Short), end and the far inner vertex (one cell between:
    // first player). The 4-cycle: adjacent (Short) and opposite corners (two one-cell paths:
    // Short).
    let out = retrodb_stdin(
        &[
            "sweep",
            "shannon-vertex",
            "--graph6",
            "-",
            "--json",
            "--engine-sample",
            "1",
        ],
        "# the path of four, then the 4-cycle\nCh\nCr\n",
    );
    let report = json_report(&out);
    let total = &report["total"];
    assert_eq!(total["graphs"], 2);
    assert_eq!(total["terminal_pairs"], 4 + 2);
    assert_eq!([&total["short"], &total["cut"], &total["first"]], [4, 1, 1]);
    assert_eq!(total["positions_checked"], 6 * 2 * 9);
    assert_eq!(total["disagreements"], 0);
}

#[test]
fn vertex_sweep_exits_non_zero_naming_a_wrong_table_value() {
    // The same run twice: honest, then with one table value flipped from outside the library.
    let args = ["sweep", "shannon-vertex", "--graph6", "-"];
    let out = retrodb_stdin(&args, "Bw\nCh\n");
    assert!(out.status.success(), "{}", stderr(&out));
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_retrodb"));
    cmd.args(args)
        .env("RETRODB_SWEEP_CORRUPT", "Ch:0:3:LL/R")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(b"Bw\nCh\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(!out.status.success());
    let text = stdout(&out);
    assert!(
        text.contains("DISAGREEMENT graph Ch terminals 0 3"),
        "{text}"
    );
    assert!(
        text.contains("LL/R: table Some(Win), minimax loss"),
        "{text}"
    );
}

#[test]
fn vertex_list_is_the_same_for_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let mut lists = Vec::new();
    for threads in ["1", "2", "2"] {
        let path = dir.path().join(format!("list-{}.txt", lists.len()));
        let out = retrodb(&[
            "--threads",
            threads,
            "sweep",
            "shannon-vertex",
            "--max-vertices",
            "7",
            "--list",
            path.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        lists.push(std::fs::read(&path).unwrap());
    }
    // 11,260 pairs on seven vertices (as for the edge sweep), 12,257 to seven, and the header.
    let lines = lists[0].iter().filter(|&&b| b == b'\n').count();
    assert_eq!(lines, 12_257 + 1);
    assert!(lists.iter().all(|l| *l == lists[0]), "the lists differ");
}

#[test]
fn vertex_sweep_bad_input_is_a_clear_error() {
    let vertex = |input: &str| {
        let out = retrodb_stdin(&["sweep", "shannon-vertex", "--graph6", "-"], input);
        assert!(!out.status.success());
        assert!(stdout(&out).is_empty(), "{}", stdout(&out));
        stderr(&out)
    };
    let err = vertex("Bw\nC~x\n");
    assert!(err.contains("<stdin>:2:"), "{err}");
    let err = vertex("Bw\nBw Bw\n");
    assert!(
        err.contains("<stdin>:2:") && err.contains("one graph6"),
        "{err}"
    );
    // Two disjoint edges: not connected.
    let err = vertex("# two edges\nCK\n");
    assert!(
        err.contains("<stdin>:2:") && err.contains("not connected"),
        "{err}"
    );
    // A path on fifteen vertices is more than the census takes.
    let path15 = retrodb::apps::oracle::graphs::Graph::from_edges(
        15,
        &(0..14).map(|v| (v, v + 1)).collect::<Vec<_>>(),
    )
    .unwrap()
    .to_graph6();
    let err = vertex(&format!("Bw\n{path15}\n"));
    assert!(
        err.contains("<stdin>:2:") && err.contains("15 vertices"),
        "{err}"
    );
    let err = fails(&["sweep", "shannon-vertex", "--max-vertices", "8"]);
    assert!(err.contains("--max-vertices 8"), "{err}");
    let err = fails(&["sweep", "shannon", "--max-vertices", "3", "--list", "x.txt"]);
    assert!(err.contains("--list"), "{err}");
}
