//! Hackenbush through the binary: `build` then `probe`, the seed's stalk values, outcome classes,
//! moves with their values, and clear errors for malformed input.

use std::path::Path;

use serde_json::Value as Json;

use crate::common::retrodb;

fn build(spec: &str, out: &Path) {
    let o = retrodb(&["build", spec, "-o", out.to_str().unwrap(), "--quiet"]);
    assert!(
        o.status.success(),
        "build {spec}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = retrodb(&["verify", out.to_str().unwrap(), "--quiet"]);
    assert!(
        o.status.success(),
        "verify {spec}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

fn probe_json(table: &Path, position: &str) -> Json {
    let o = retrodb(&["probe", table.to_str().unwrap(), position, "--json"]);
    assert!(
        o.status.success(),
        "probe {position}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).expect("one JSON object")
}

fn fails_with(args: &[&str], needle: &str) {
    let o = retrodb(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{args:?} should fail");
    assert!(err.contains(needle), "{args:?}: stderr was {err}");
}

#[test]
fn seed_stalks_have_their_values() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("brr.rdb");
    build("hackenbush-stalk:BRR", &t);
    // The empty position, and every stalk the seed works out, are positions of BRR.
    for (pos, value, outcome) in [
        ("...", "0", "P"),
        ("B..", "1", "L"),
        ("BR.", "1/2", "L"),
        ("BRR", "1/4", "L"),
    ] {
        for mover in ["L", "R"] {
            let j = probe_json(&t, &format!("{pos}/{mover}"));
            assert_eq!(j["game_value"], value, "{pos}: {j}");
            assert_eq!(j["outcome"], outcome, "{pos}: {j}");
            assert_eq!(j["position"], format!("{pos}/{mover}"));
        }
    }
    // Without a suffix Left moves.
    assert_eq!(probe_json(&t, "BRR")["position"], "BRR/L");
    let r = dir.path().join("r.rdb");
    build("hackenbush-stalk:R", &r);
    let j = probe_json(&r, "R/L");
    assert_eq!(j["game_value"], "-1");
    assert_eq!(j["outcome"], "R");
    assert_eq!(j["value"], "loss", "Left has no move: {j}");
    assert_eq!(probe_json(&r, "R/R")["value"], "win");
}

#[test]
fn moves_carry_their_values_so_the_right_cut_shows() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("tree.rdb");
    // A blue trunk holding a blue edge and a red-blue stalk: l(l;rl).
    build("hackenbush-tree:l(l;rl)", &t);
    let j = probe_json(&t, "BBRB/L");
    assert_eq!(j["outcome"], "L");
    let moves = j["moves"].as_array().unwrap();
    let got: Vec<(String, String, String)> = moves
        .iter()
        .map(|m| {
            (
                m["move"].as_str().unwrap().to_string(),
                m["position"].as_str().unwrap().to_string(),
                m["game_value"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    // Left may cut e0 (the trunk: everything falls), e1 or e3.
    assert_eq!(
        got,
        [
            ("e0".into(), "..../R".into(), "0".into()),
            ("e1".into(), "B.RB/R".into(), "3/4".into()),
            ("e3".into(), "BBR./R".into(), "1".into()),
        ]
    );
    // {0, 3/4, 1 | 2}: Right's only move, cutting the red edge, leaves "BB.." = 2.
    assert_eq!(j["game_value"], "3/2");

    // The human output shows the same annotations.
    let o = retrodb(&["probe", t.to_str().unwrap(), "BBRB"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.starts_with("BBRB/L\twins\toutcome=L\tgame_value=3/2\n"),
        "{text}"
    );
    assert!(
        text.contains("e3 -> BBR./R\twins\t(opponent: loses)\toutcome=L\tgame_value=1"),
        "{text}"
    );
}

#[test]
fn graph_files_build_and_probe_with_green_edges() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g.txt");
    // A green triangle on the ground with a green loop on top, and a blue edge beside it.
    std::fs::write(&g, "# test graph\n0 1 G\n1 2 G\n2 0 G\n2 2 G\n0 3 B\n").unwrap();
    let t = dir.path().join("g.rdb");
    build(&format!("hackenbush:{}", g.display()), &t);
    let j = probe_json(&t, "GGGGB/R");
    assert_eq!(j["outcome"], "L");
    // The green part and the blue edge meet only at the ground, so the value is their sum. By
    // the fusion principle the triangle and its loop are four green loops on the ground: *0.
    assert_eq!(j["game_value"], "1");
    // The triangle alone fuses to three loops: *1.
    assert_eq!(probe_json(&t, "GGG.B/R")["game_value"], "1*");
    // A component mixing green with blue has no value here; the outcome class is still given.
    let m = dir.path().join("m.txt");
    std::fs::write(&m, "0 1 G\n1 2 B\n").unwrap();
    let mt = dir.path().join("m.rdb");
    build(&format!("hackenbush:{}", m.display()), &mt);
    let j = probe_json(&mt, "GB/R");
    assert!(j.get("game_value").is_none(), "{j}");
    assert_eq!(j["outcome"], "N");
    // The table embeds its input: it answers after the file is gone.
    std::fs::remove_file(&g).unwrap();
    let j = probe_json(&t, ".GGGB/L");
    assert_eq!(j["outcome"], "L");
    // Cutting e0 leaves the path 0-2-1 with the loop: still grounded through e2.
    assert_eq!(j["moves"][0]["position"], "..GGB/R");
}

#[test]
fn malformed_input_is_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.txt");
    let bad_s = format!("hackenbush:{}", bad.display());
    let out = dir.path().join("x.rdb");
    let out_s = out.to_str().unwrap();
    std::fs::write(&bad, "0 1 B\n1 2 Y\n").unwrap();
    fails_with(
        &["build", &bad_s, "-o", out_s],
        "bad.txt:2: unknown colour 'Y'",
    );
    std::fs::write(&bad, "1 2 B\n2 3 R\n").unwrap();
    fails_with(
        &["build", &bad_s, "-o", out_s],
        "no edge touches the ground",
    );
    std::fs::write(&bad, "0 1 B\n5 6 R\n").unwrap();
    fails_with(
        &["build", &bad_s, "-o", out_s],
        "bad.txt:2: edge 5-6 is not connected to the ground",
    );
    fails_with(
        &["build", "hackenbush-tree:l(l;rl", "-o", out_s],
        "the '(' at character 2 is never closed",
    );
    fails_with(
        &["build", "hackenbush-stalk:BXR", "-o", out_s],
        "character 2 is 'X', not an edge colour",
    );
    assert!(!out.exists());

    // Bad positions name the problem and do not stop the other answers.
    let t = dir.path().join("s.rdb");
    build("hackenbush-stalk:BR", &t);
    let o = retrodb(&["probe", t.to_str().unwrap(), ".R", "BR"]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("not connected to the ground"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("BR/L\twins"));
}

#[test]
fn games_without_annotations_probe_as_before() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("seed001.rdb");
    build("digraph:data/seed001.txt", &t);
    let j = probe_json(&t, "4");
    let keys: Vec<&String> = j.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "best",
            "game_over",
            "index",
            "moves",
            "position",
            "remoteness",
            "value"
        ],
        "{j}"
    );
    for m in j["moves"].as_array().unwrap().iter().chain([&j["best"]]) {
        let keys: Vec<&String> = m.as_object().unwrap().keys().collect();
        let want = [
            "ends_game",
            "id",
            "move",
            "plies",
            "position",
            "remoteness",
            "result",
            "value",
        ];
        assert_eq!(keys, want, "{m}");
    }
    let o = retrodb(&["probe", t.to_str().unwrap(), "4"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.lines().all(|l| !l.contains('=')), "{text}");
}
