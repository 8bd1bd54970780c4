//! `retrodb research late`: the counterexamples it names (the smallest board breaking each
//! game-order claim) are confirmed by code that shares nothing with it: each value by
//! Lehman's criterion through the oracle's own parser, each option's canonical form by
//! `PositionValues` from the game's own moves, the claim by the outcome of the two options'
//! difference. On a fresh size-3 run, and on the committed size-3 and size-4 reports.

use std::path::Path;

use crate::common::ok;
use crate::research::confirm_game_order;
use crate::research_lehman::{after_move, oracle_value};

use serde_json::Value as Json;

/// Confirms every counterexample of a `research late` report of Bridg-It `n`; with `svgs`, each
/// names an SVG picture there that draws its board. Returns how many were confirmed.
fn confirm(n: u32, report: &Json, svgs: Option<&Path>) -> usize {
    let list = report["counterexamples"].as_array().unwrap();
    for c in list {
        let (claim, text) = (
            c["claim"].as_str().unwrap(),
            c["position"].as_str().unwrap(),
        );
        assert_eq!(c["in_play"], true, "{claim}");
        assert_eq!(
            oracle_value(n, text),
            c["value"],
            "{claim}: the position's value"
        );
        let children: Vec<String> = c["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                let (_, child) = after_move(text, m);
                let v = oracle_value(n, &child);
                assert_eq!(v, m["value"], "{claim}: move {}", m["move"]);
                child
            })
            .collect();
        let kind = claim.rsplit('.').next().unwrap();
        confirm_game_order(c, &children, kind);
        if let Some(dir) = svgs {
            let file = c["svg"]
                .as_str()
                .unwrap_or_else(|| panic!("{claim}: no svg"));
            let svg = std::fs::read_to_string(dir.join(file)).unwrap();
            assert!(svg.contains("<svg"), "{file}");
        }
    }
    list.len()
}

/// A fresh size-3 run names a counterexample of every game-order claim under both rankings (the
/// complete report finds all eight), each confirmed independently, its picture written.
#[test]
fn late_counterexamples_of_size_3_are_confirmed_independently() {
    let dir = tempfile::tempdir().unwrap();
    let svgs = dir.path().join("svg");
    let out = ok(&[
        "research",
        "late",
        "--size",
        "3",
        "--exact-to",
        "3",
        "--sample-to",
        "5",
        "--sample",
        "500",
        "--svg-dir",
        svgs.to_str().unwrap(),
    ]);
    let report: Json = serde_json::from_str(&out).unwrap();
    assert_eq!(confirm(3, &report, Some(&svgs)), 8);
    assert_smallest(&report);
}

/// Each counterexample comes from the tier of fewest empty cells whose figures count a failure
/// of its claim (for the ranking it names).
fn assert_smallest(report: &Json) {
    for c in report["counterexamples"].as_array().unwrap() {
        let claim = c["claim"].as_str().unwrap();
        let mut parts = claim.split('.').skip(1);
        let (variant, kind) = (parts.next().unwrap(), parts.next().unwrap());
        let fails = |f: &Json| {
            let n = |k: &str| f[k].as_u64().unwrap();
            match kind {
                "ranked-above-but-worse" => n("ranked_worse"),
                "ranked-above-but-equal" => n("ranked_equal"),
                "ranked-above-but-incomparable" => n("ranked_incomparable"),
                "equivalent-but-unequal" => n("equivalent_ordered") + n("equivalent_incomparable"),
                other => panic!("{other}"),
            }
        };
        let first = report["tiers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| {
                t["order"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|f| f["variant"] == variant && fails(f) > 0)
            })
            .unwrap_or_else(|| panic!("{claim}: no tier counts a failure"));
        let empty = c["position"].as_str().unwrap().matches('.').count() as u64;
        assert_eq!(empty, first["empty"].as_u64().unwrap(), "{claim}");
    }
}

/// The committed reports' counterexamples (docs/research/bridgit-{3,4}-late.json, pictures in
/// docs/research/late-{3,4}/) hold.
#[test]
fn committed_late_counterexamples_are_confirmed_independently() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/research");
    for n in [3, 4] {
        let file = docs.join(format!("bridgit-{n}-late.json"));
        let report: Json = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let svgs = docs.join(format!("late-{n}"));
        assert_eq!(confirm(n, &report, Some(&svgs)), 8, "{}", file.display());
        assert_smallest(&report);
    }
}
