//! `retrodb research bridgit --sample N` checked against the complete scan: on Bridg-It 3 the
//! sampled report's intervals must hold the exact figures of the play population committed in
//! `docs/research/bridgit-3.json`; a values-only symmetric table and the plain table with
//! remoteness must give the same sample figure for figure; the figures a values-only scan cannot
//! give are absent, not zero; counterexamples are confirmed by `retrodb probe`.

use std::path::Path;

use crate::common;
use common::{ok, retrodb};

use serde_json::Value as Json;

fn build(dir: &Path, spec: &str, file: &str, remoteness: bool) -> String {
    let p = dir.join(file).to_str().unwrap().to_string();
    let mut args = vec!["build", spec, "-o", &p, "--quiet"];
    if remoteness {
        args.push("--remoteness");
    }
    ok(&args);
    p
}

fn sample(table: &str, n: u64, seed: u64) -> Json {
    let (n, seed) = (n.to_string(), seed.to_string());
    let args = [
        "research", "bridgit", "--size", "3", "--table", table, "--sample", &n, "--seed", &seed,
        "--json",
    ];
    serde_json::from_str(&ok(&args)).unwrap()
}

/// The exact (count, of) of a sampled proportion's name, from the complete report's play
/// population.
fn exact(play: &Json, name: &str) -> (u64, u64) {
    let n = |j: &Json, k: &str| j[k].as_u64().unwrap_or_else(|| panic!("{name}: {k}"));
    let o = &play["optional"];
    let positions = n(play, "positions");
    let won = n(o, "mover_executable_won") + n(o, "won_not_executable");
    let parts: Vec<&str> = name.split('.').collect();
    match parts[..] {
        ["mover_wins"] => (won, positions),
        ["left_wins"] => (n(play, "left_wins"), positions),
        ["optional", k] => match k {
            "mover_only" | "opponent_only" | "both" | "neither" => (n(o, k), positions),
            "executable_won" => (
                n(o, "mover_executable_won"),
                n(o, "mover_executable_won") + n(o, "mover_executable_lost"),
            ),
            "all_moves_keep" => (n(o, "won_all_moves_keep"), n(o, "mover_executable_won")),
            "some_move_keeps" => (n(o, "won_some_move_keeps"), n(o, "mover_executable_won")),
            "won_not_executable" => (n(o, "won_not_executable"), won),
            "moves_keeping_win" => (n(o, "moves_keeping_win"), n(o, "moves_from_won")),
            _ => panic!("unknown figure {name}"),
        },
        ["ranking", variant, mover, k] => {
            let r = play["ranking"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["variant"] == variant && r["mover"] == mover)
                .unwrap();
            let (a, b) = match k {
                "with_winning_option" => ("with_winning_option", "positions"),
                "top_has_win" => ("top_has_win", "with_winning_option"),
                "top_all_win" => ("top_all_win", "with_winning_option"),
                "win_below_loss" => ("win_below_loss_positions", "positions"),
                "outcome_right" | "outcome_wrong" | "outcome_tied" => (k, "outcome_pairs"),
                "equivalent_outcome_differs" => ("equivalent_outcome_differs", "equivalent_pairs"),
                _ => panic!("unknown figure {name}"),
            };
            (n(r, a), n(r, b))
        }
        _ => panic!("unknown figure {name}"),
    }
}

/// The sample's intervals hold the complete scan's figures: every one within twice its
/// interval's half-width (about 4 standard errors), and most within the 95% interval itself
/// (the figures share one sample, so their misses come together; 95% of them on average).
#[test]
fn size_3_sample_intervals_hold_the_exhaustive_figures() {
    let dir = tempfile::tempdir().unwrap();
    let sym = build(dir.path(), "bridgit:3,start=L,sym", "b3s.rdb", false);
    let report = sample(&sym, 20_000, 12);
    let docs: Json = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/research/bridgit-3.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let play = docs["populations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "play")
        .unwrap();
    let s = &report["sample"];
    assert_eq!(s["positions"], 20_000);
    assert_eq!(report["populations"][0]["positions"], 20_000);
    // The population's size, from the share of open boards among the draws.
    let size = play["positions"].as_f64().unwrap();
    let pop = &s["population"];
    assert!(
        pop["low"].as_f64().unwrap() <= size && size <= pop["high"].as_f64().unwrap(),
        "{pop} should hold {size}"
    );
    let proportions = s["proportions"].as_array().unwrap();
    assert!(proportions.len() >= 40);
    let mut inside = 0;
    for p in proportions {
        let name = p["name"].as_str().unwrap();
        let (count, of) = exact(play, name);
        let truth = count as f64 / of as f64;
        let e = &p["share"];
        let (low, high) = (e["low"].as_f64().unwrap(), e["high"].as_f64().unwrap());
        let half = (high - low) / 2.0;
        let eps = 1e-12;
        assert!(
            low - half - eps <= truth && truth <= high + half + eps,
            "{name}: exact {truth} far outside the sample's [{low}, {high}]"
        );
        inside += usize::from(low - eps <= truth && truth <= high + eps);
    }
    assert!(
        inside * 4 >= proportions.len() * 3,
        "only {inside} of {} exact figures inside the 95% intervals",
        proportions.len()
    );
    // What a values-only scan cannot give is absent, not zero.
    for r in report["populations"][0]["ranking"].as_array().unwrap() {
        for k in [
            "pairs_agree",
            "class_ranked_refuted",
            "equivalent_class_differs",
        ] {
            assert!(r.get(k).is_none(), "{k} in a values-only report");
        }
        assert!(r["top_has_win"].as_u64().is_some());
    }
    assert!(report.get("spanning_tree").is_none());
    assert!(report["populations"][0].get("game_order").is_none());
    assert!(s["left_out"].as_array().unwrap().len() >= 4);
}

/// The same seed draws the same boards whatever the table's index: a values-only symmetric
/// table (one row per symmetry class) and the plain table with remoteness give the same
/// figures, and each counterexample's value and named moves are confirmed by `retrodb probe` on
/// the plain table.
#[test]
fn size_3_sample_is_the_same_from_a_symmetric_and_a_plain_table() {
    let dir = tempfile::tempdir().unwrap();
    let sym = build(dir.path(), "bridgit:3,start=L,sym", "b3s.rdb", false);
    let plain = build(dir.path(), "bridgit:3", "b3.rdb", true);
    let a = sample(&sym, 3_000, 5);
    let b = sample(&plain, 3_000, 5);
    assert_eq!(a["populations"], b["populations"]);
    assert_eq!(a["sample"], b["sample"]);
    assert_eq!(
        common::counterexample_positions(&a),
        common::counterexample_positions(&b)
    );
    let list = a["counterexamples"].as_array().unwrap();
    assert!(!list.is_empty());
    for c in list {
        let p: Json = serde_json::from_str(&ok(&[
            "probe",
            &plain,
            c["position"].as_str().unwrap(),
            "--json",
        ]))
        .unwrap();
        let claim = c["claim"].as_str().unwrap();
        assert_eq!(p["value"], c["value"], "{claim}");
        for m in c["moves"].as_array().unwrap() {
            let found = p["moves"]
                .as_array()
                .unwrap()
                .iter()
                .find(|pm| pm["move"] == m["move"])
                .unwrap_or_else(|| panic!("{claim}: move {} is not legal", m["move"]));
            assert_eq!(found["value"], m["value"], "{claim}: move {}", m["move"]);
        }
    }
    // A different seed draws different boards.
    assert_ne!(sample(&sym, 3_000, 6)["populations"], a["populations"]);
}

#[test]
fn sampled_research_refuses_clearly() {
    let err = |args: &[&str]| {
        let out = retrodb(args);
        assert!(!out.status.success(), "{args:?} should fail");
        String::from_utf8(out.stderr).unwrap()
    };
    assert!(err(&["research", "bridgit", "--size", "4"]).contains("--sample"));
    assert!(err(&["research", "bridgit", "--size", "3", "--sample", "10"]).contains("--table"));
    let dir = tempfile::tempdir().unwrap();
    let sym = build(dir.path(), "bridgit:3,start=L,sym", "b3s.rdb", false);
    // The complete report needs every configuration with remoteness.
    assert!(err(&["research", "bridgit", "--size", "3", "--table", &sym]).contains("--sample N"));
    let right = build(dir.path(), "bridgit:2,start=R", "b2r.rdb", false);
    assert!(
        err(&[
            "research", "bridgit", "--size", "2", "--table", &right, "--sample", "5"
        ])
        .contains("Left moving first")
    );
}
