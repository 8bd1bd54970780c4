//! Golden files of published positions: every position of Hex 3 (`hex:3`), Bridg-It 2
//! (`bridgit:2`) and seed 001's digraph (`digraph:data/seed001.txt`) with its value and
//! remoteness, in `tests/golden/*.csv` (`position,value,remoteness`, in index order; a draw's
//! remoteness is `-`, as `retrodb dump` prints it).
//!
//! Two checks. The tables built now, by each engine that applies, say exactly what the files say.
//! And the files say what answers that use none of retrodb's engines say: a memoised minimax over
//! each board's moves, and for seed 001 the values its figures show and the queue-based
//! retrograde `engine.rs` checks the engine against. A file that drifted from the truth fails the
//! second check; a table that drifted from the file fails the first.

use std::collections::{HashMap, HashSet};

use retrodb::games::AnyGame;
use retrodb::{Game, Notation, Status, Value};

use crate::common::{path_str, retrodb, stderr, stdout};
use crate::engine::{V, queue_solve, seed001_edges};

/// The game, its golden file, and the engines that build it.
const GOLDEN: [(&str, &str, &[&str]); 3] = [
    ("hex:3", "hex-3.csv", &["tiered", "counter"]),
    ("bridgit:2", "bridgit-2.csv", &["tiered", "counter"]),
    ("digraph:data/seed001.txt", "seed001.csv", &["counter"]),
];

const HEADER: &str = "position,value,remoteness";

/// One line of a golden file.
#[derive(Debug)]
struct Row {
    position: String,
    value: Value,
    /// `None` for a draw.
    remoteness: Option<u32>,
}

fn golden_text(file: &str) -> String {
    let path = format!("{}/tests/golden/{file}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The rows of a golden file, its header checked.
fn rows(file: &str) -> Vec<Row> {
    let text = golden_text(file);
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(HEADER), "{file}: the header");
    lines
        .enumerate()
        .map(|(k, line)| {
            let at = format!("tests/golden/{file}:{}: '{line}'", k + 2);
            let fields: Vec<&str> = line.split(',').collect();
            let [position, value, remoteness] = fields[..] else {
                panic!("{at}: three fields expected");
            };
            let value = match value {
                "win" => Value::Win,
                "loss" => Value::Loss,
                "draw" => Value::Draw,
                _ => panic!("{at}: no value"),
            };
            let remoteness = match (value, remoteness) {
                (Value::Draw, "-") => None,
                (Value::Draw, _) => panic!("{at}: a draw has no remoteness"),
                (_, r) => Some(r.parse().unwrap_or_else(|_| panic!("{at}: no remoteness"))),
            };
            Row {
                position: position.to_string(),
                value,
                remoteness,
            }
        })
        .collect()
}

#[test]
fn tables_say_what_the_golden_files_say() {
    for (spec, file, engines) in GOLDEN {
        let text = golden_text(file);
        let want: Vec<&str> = text.lines().skip(1).collect();
        for engine in engines {
            let dir = tempfile::tempdir().unwrap();
            let table = dir.path().join("t.rdb");
            let table = path_str(&table);
            let o = retrodb(&[
                "build",
                spec,
                "-o",
                table,
                "--remoteness",
                "--engine",
                engine,
                "--quiet",
            ]);
            assert!(o.status.success(), "build {spec}: {}", stderr(&o));
            let o = retrodb(&["dump", table]);
            assert!(o.status.success(), "dump {spec}: {}", stderr(&o));
            let dump = stdout(&o);
            let got: Vec<String> = dump.lines().map(|l| l.replace('\t', ",")).collect();
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g, w, "{spec} ({engine}), tests/golden/{file}:{}", k + 2);
            }
            assert_eq!(got.len(), want.len(), "{spec} ({engine}): rows");
        }
    }
}

/// The value and remoteness of `pos` by plain recursion over the rules, memoised: an ended
/// position has the rules' value and remoteness 0; an open one is won iff some child is lost
/// (one more than the quickest such child), else lost (one more than the slowest child; 0
/// without a move). The boards are acyclic (a move fills a cell), so nothing is drawn.
fn minimax<G: Notation>(g: &G, pos: u64, memo: &mut HashMap<u64, (Value, u32)>) -> (Value, u32) {
    if let Some(&known) = memo.get(&pos) {
        return known;
    }
    let answer = match g.status(pos) {
        Status::Unused => panic!("{} is no position", g.position_text(pos)),
        Status::Over(v) => (v, 0),
        Status::Open => {
            let mut children = Vec::new();
            g.for_each_child(pos, |c| children.push(c));
            let answers: Vec<(Value, u32)> =
                children.into_iter().map(|c| minimax(g, c, memo)).collect();
            assert!(answers.iter().all(|&(v, _)| v != Value::Draw));
            let quickest_loss = answers
                .iter()
                .filter(|&&(v, _)| v == Value::Loss)
                .map(|&(_, r)| r)
                .min();
            match quickest_loss {
                Some(r) => (Value::Win, r + 1),
                None => (
                    Value::Loss,
                    answers.iter().map(|&(_, r)| r + 1).max().unwrap_or(0),
                ),
            }
        }
    };
    memo.insert(pos, answer);
    answer
}

#[test]
fn golden_boards_agree_with_minimax() {
    for (spec, file) in [("hex:3", "hex-3.csv"), ("bridgit:2", "bridgit-2.csv")] {
        let AnyGame::Cell(g) = AnyGame::open(spec, u64::MAX).unwrap() else {
            panic!("{spec} is a cell game");
        };
        let rows = rows(file);
        let mut memo = HashMap::new();
        let mut seen = HashSet::new();
        for row in &rows {
            let pos = g.parse_position(&row.position).unwrap();
            assert_eq!(
                g.position_text(pos),
                row.position,
                "{spec}: the text reads back"
            );
            assert!(seen.insert(pos), "{spec}: {} listed twice", row.position);
            let (value, remoteness) = minimax(&g, pos, &mut memo);
            assert_eq!(
                (row.value, row.remoteness),
                (value, Some(remoteness)),
                "{spec}: {} in tests/golden/{file}",
                row.position
            );
        }
        // Every position is listed: as many rows as indices the rules use.
        let used = (0..g.size())
            .filter(|&p| g.status(p) != Status::Unused)
            .count();
        assert_eq!(rows.len(), used, "{spec}: rows");
    }
}

/// Seed 001's figures decide its twelve vertices one ply at a time: figure 2 marks the vertices
/// without a move lost, figure 3 those that move to one of them won, figure 4 the one whose every
/// move reaches a win lost, figure 5 the last win; the rest are drawn. A vertex first marked in
/// figure `k` has remoteness `k - 2`.
const SEED001_FIGURES: [(u32, Value, Option<u32>); 12] = [
    (0, Value::Draw, None),
    (1, Value::Draw, None),
    (2, Value::Draw, None),
    (3, Value::Draw, None),
    (4, Value::Win, Some(3)),
    (5, Value::Win, Some(3)),
    (6, Value::Loss, Some(2)),
    (7, Value::Loss, Some(2)),
    (8, Value::Loss, Some(4)),
    (9, Value::Win, Some(3)),
    (10, Value::Loss, Some(2)),
    (11, Value::Win, Some(5)),
];

#[test]
fn golden_seed001_agrees_with_its_figures_and_a_queue_retrograde() {
    let rows = rows("seed001.csv");
    assert_eq!(rows.len(), SEED001_FIGURES.len());
    let queue = queue_solve(12, &seed001_edges());
    for (row, (vertex, value, figure)) in rows.iter().zip(SEED001_FIGURES) {
        assert_eq!(row.position, vertex.to_string());
        let published = (value, figure.map(|k| k - 2));
        assert_eq!((row.value, row.remoteness), published, "vertex {vertex}");
        let by_queue = match queue[vertex as usize] {
            V::Win(r) => (Value::Win, Some(r)),
            V::Loss(r) => (Value::Loss, Some(r)),
            V::Draw => (Value::Draw, None),
            V::Unused => panic!("vertex {vertex} is on an edge"),
        };
        assert_eq!(by_queue, published, "vertex {vertex}");
    }
}
