//! The cell games through the binary: published facts about Bridg-It, Hex and small Shannon
//! games checked by `build` + `probe`, the refusals of bad input, and `show`.

use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use crate::common::{fails, ok, retrodb};

/// Builds a table into the temporary directory, checks it with `verify`, and returns its path.
fn build(dir: &Path, spec: &str) -> PathBuf {
    let out = dir.join(format!("{}.rdb", spec.replace(['/', ':', '.'], "_")));
    ok(&["build", spec, "-o", out.to_str().unwrap(), "--quiet"]);
    ok(&["verify", out.to_str().unwrap(), "--quiet"]);
    out
}

fn probe(table: &Path, position: &str) -> Json {
    let text = ok(&["probe", table.to_str().unwrap(), position, "--json"]);
    serde_json::from_str(text.trim()).unwrap()
}

/// The names of the moves that win (the child is lost for its mover).
fn winning_moves(answer: &Json) -> Vec<String> {
    answer["moves"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["value"] == "loss")
        .map(|m| m["move"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn bridgit_first_player_wins_with_every_first_move() {
    let dir = tempfile::tempdir().unwrap();
    for (n, cells) in [(2, 5), (3, 13)] {
        let table = build(dir.path(), &format!("bridgit:{n}"));
        let empty = ".".repeat(cells);
        for mover in ["/L", "/R"] {
            let answer = probe(&table, &format!("{empty}{mover}"));
            assert_eq!(answer["value"], "win", "bridgit:{n} {mover}");
            assert_eq!(answer["moves"].as_array().unwrap().len(), cells);
            assert_eq!(
                winning_moves(&answer).len(),
                cells,
                "bridgit:{n} {mover}: every first move wins"
            );
        }
        let verified = ok(&["verify", table.to_str().unwrap(), "--quiet"]);
        assert!(verified.contains("ok"), "{verified}");
    }
}

/// The published fact for Hex 4x4: exactly the four cells of the short diagonal win as openings.
/// (86M positions: the largest table the tests build, and verify, in about a minute.)
#[test]
fn hex_4_wins_exactly_on_the_short_diagonal() {
    let dir = tempfile::tempdir().unwrap();
    let table = build(dir.path(), "hex:4");
    let empty = ".".repeat(16);
    let answer = probe(&table, &empty);
    assert_eq!(answer["value"], "win");
    let mut wins = winning_moves(&answer);
    wins.sort();
    assert_eq!(wins, ["12(3,0)", "3(0,3)", "6(1,2)", "9(2,1)"]);
    // The colour-swapping reflection maps the short diagonal onto itself.
    let mut right = winning_moves(&probe(&table, &format!("{empty}/R")));
    right.sort();
    assert_eq!(right, wins);
}

#[test]
fn hex_3_has_exactly_five_winning_openings() {
    let dir = tempfile::tempdir().unwrap();
    let table = build(dir.path(), "hex:3");
    let answer = probe(&table, ".........");
    assert_eq!(answer["value"], "win");
    let mut wins = winning_moves(&answer);
    wins.sort();
    // The short diagonal (0,2), (1,1), (2,0), plus (0,1) and (2,1).
    assert_eq!(wins, ["1(0,1)", "2(0,2)", "4(1,1)", "6(2,0)", "7(2,1)"]);
    // Right moving first on the transposed board: the transposed cells win.
    let mut right = winning_moves(&probe(&table, "........./R"));
    right.sort();
    assert_eq!(right, ["2(0,2)", "3(1,0)", "4(1,1)", "5(1,2)", "6(2,0)"]);
}

#[test]
fn small_graphs_have_their_known_classes() {
    let dir = tempfile::tempdir().unwrap();
    // (file, edges, class): Short wins = Short wins moving first and second, and so on.
    for (file, edges, class) in [
        ("edge", 1, "first player wins"),
        ("parallel", 2, "Short wins"),
        ("path", 2, "Cut wins"),
        ("triangle", 3, "first player wins"),
        ("square", 4, "Cut wins"),
        ("k4", 6, "Short wins"),
        ("k4-minus-ab", 5, "first player wins"),
    ] {
        let table = build(dir.path(), &format!("shannon:data/shannon/{file}.txt"));
        let empty = ".".repeat(edges);
        let short_first = probe(&table, &format!("{empty}/L"))["value"].clone();
        let cut_first = probe(&table, &format!("{empty}/R"))["value"].clone();
        let found = match (short_first.as_str().unwrap(), cut_first.as_str().unwrap()) {
            ("win", "loss") => "Short wins",
            ("loss", "win") => "Cut wins",
            ("win", "win") => "first player wins",
            ("loss", "loss") => "second player wins",
            other => panic!("{file}: {other:?}"),
        };
        assert_eq!(found, class, "{file}");
    }
    // The vertex game on the path A-C-B has one cell, C: whoever moves first takes it.
    let table = build(dir.path(), "shannon-vertex:data/shannon/path.txt");
    assert_eq!(probe(&table, "./L")["value"], "win");
    assert_eq!(probe(&table, "./R")["value"], "win");
    assert_eq!(probe(&table, "R/L")["value"], "loss");
}

#[test]
fn tables_answer_without_the_graph_file() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("tri.txt");
    std::fs::copy("data/shannon/triangle.txt", &graph).unwrap();
    let spec = format!("shannon:{}", graph.display());
    let table = build(dir.path(), &spec);
    std::fs::remove_file(&graph).unwrap();
    assert_eq!(probe(&table, ".../L")["value"], "win");
}

#[test]
fn malformed_graph_files_are_refused_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    for (text, want) in [
        (
            "terminals 0 1\n0 1\n0 1 2\n",
            ":3: expected an edge 'u v' or 'terminals A B'",
        ),
        ("0 1\n1 2\n", ": no 'terminals A B' line"),
        ("terminals 0 9\n0 1\n", ":1: terminal 9 is out of range"),
        ("terminals 2 2\n0 2\n", ":1: the terminals must differ"),
        ("terminals 0 1\n0 one\n", ":2: 'one' is not a vertex id"),
    ] {
        let file = dir.path().join("bad.txt");
        std::fs::write(&file, text).unwrap();
        for kind in ["shannon", "shannon-vertex"] {
            let spec = format!("{kind}:{}", file.display());
            let err = fails(&[
                "build",
                &spec,
                "-o",
                dir.path().join("x.rdb").to_str().unwrap(),
            ]);
            assert!(
                err.contains(&format!("{}{want}", file.display())),
                "{kind} on {text:?}: {err}"
            );
        }
    }
    let err = fails(&["build", "shannon:no/such/file.txt"]);
    assert!(err.contains("no/such/file.txt"), "{err}");
}

#[test]
fn games_too_big_fail_at_once_with_estimate_and_limit() {
    let err = fails(&["build", "bridgit:5", "--max-memory", "4G"]);
    assert!(
        err.contains("bridgit:5") && err.contains("41 cells"),
        "{err}"
    );
    assert!(err.contains("4.00 GiB") && err.contains("bytes"), "{err}");
    // bridgit:4 numbers its positions but needs terabytes: refused before allocating.
    let err = fails(&["build", "bridgit:4", "--max-memory", "4G"]);
    assert!(
        err.contains("needs about") && err.contains("4.00 GiB"),
        "{err}"
    );
}

#[test]
fn bad_positions_are_refused_naming_the_text() {
    let dir = tempfile::tempdir().unwrap();
    let table = build(dir.path(), "hex:2");
    let out = retrodb(&["probe", table.to_str().unwrap(), "LL.."]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("'LL..'") && err.contains("add '/L' or '/R'"),
        "{err}"
    );
}

#[test]
fn show_draws_boards_and_writes_svg() {
    let dir = tempfile::tempdir().unwrap();
    let text = ok(&["show", "bridgit:2", "L.R../L"]);
    assert!(text.contains(" 1 o---o . o"), "{text}");
    assert!(text.contains(" 2   x---x"), "{text}");
    assert!(
        !text.contains('\x1b'),
        "no colour when stdout is not a terminal"
    );
    let svg = dir.path().join("hex.svg");
    let text = ok(&[
        "show",
        "hex:3",
        "L...R..../L",
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert!(text.contains(" 0 \\ L . . \\"), "{text}");
    let doc = std::fs::read_to_string(&svg).unwrap();
    assert!(doc.starts_with("<svg") && doc.matches("<polygon").count() == 9);
    // The commercial board is too large to solve but not to draw.
    let big = ok(&["show", "bridgit:5", &".".repeat(41)]);
    assert!(big.contains("columns 0 and 10"), "{big}");
    let err = fails(&["show", "hex:3", "L.."]);
    assert!(err.contains("has 3 cells but this game has 9"), "{err}");
}

#[test]
fn probe_show_marks_the_winning_moves() {
    let dir = tempfile::tempdir().unwrap();
    let table = build(dir.path(), "hex:3");
    let text = ok(&["probe", table.to_str().unwrap(), ".........", "--show"]);
    assert!(text.contains(" 0 \\ . * * \\"), "{text}");
    assert!(text.contains("  1 \\ . * . \\"), "{text}");
    assert!(text.contains("   2 \\ * * . \\"), "{text}");
    assert!(text.contains("5 move(s)"), "{text}");
}

#[test]
fn dump_lists_every_position_of_a_one_edge_game() {
    let dir = tempfile::tempdir().unwrap();
    let table = build(dir.path(), "shannon:data/shannon/edge.txt");
    let text = ok(&["dump", table.to_str().unwrap()]);
    // Index order: mover bit, then the edge's digit (empty, Left's, Right's).
    assert_eq!(
        text,
        "./L\twin\n./R\twin\nL/L\twin\nL/R\tloss\nR/L\tloss\nR/R\twin\n"
    );
    let shown = ok(&["show", "shannon:data/shannon/edge.txt", "R/L"]);
    assert!(
        shown.contains("edge (0-1)") && shown.contains("Right"),
        "{shown}"
    );
}
