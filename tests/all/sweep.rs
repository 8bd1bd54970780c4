//! `retrodb sweep shannon`, run as a user runs it: every connected graph on up to five vertices,
//! every terminal pair up to automorphism, every position of every table against Lehman.

use std::process::Output;

use retrodb::oracle::graphs::connected_graphs;
use serde_json::Value as Json;

use crate::common::{retrodb, retrodb_stdin};

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
