//! `retrodb research bridgit --sample N` checked against the complete scan: on Bridg-It 3 the
//! sampled report's intervals must hold the exact figures of the play population committed in
//! `docs/research/bridgit-3.json`, from a values-only table and, with the figures against the
//! table's order of options, from a table with remoteness; the same seed gives the same sample
//! from a symmetric and a plain table; the figures a table cannot give are absent, not zero;
//! counterexamples are confirmed by `retrodb probe`.

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
pub(crate) fn exact(play: &Json, name: &str) -> (u64, u64) {
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
                "pairs_agree" | "pairs_contradict" | "pairs_both_tie" => (k, "pairs"),
                "pairs_conjecture_ties" => ("pairs_conjecture_ties_table_orders", "pairs"),
                "pairs_table_ties" => ("pairs_conjecture_orders_table_ties", "pairs"),
                "equivalent_remoteness_differs" => {
                    ("equivalent_remoteness_differs", "equivalent_pairs")
                }
                _ => panic!("unknown figure {name}"),
            };
            (n(r, a), n(r, b))
        }
        _ => panic!("unknown figure {name}"),
    }
}

/// The play population of the complete size-3 report committed in `docs/`.
fn exhaustive_play() -> Json {
    exhaustive("play")
}

/// The population `name` (`all` or `play`) of the complete size-3 report committed in `docs/`.
pub(crate) fn exhaustive(name: &str) -> Json {
    let docs: Json = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/research/bridgit-3.json"),
        )
        .unwrap(),
    )
    .unwrap();
    docs["populations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap()
        .clone()
}

/// The upper-tail probability of the standard normal at `z` (Abramowitz and Stegun 7.1.26 for
/// erfc, error below 1.5e-7).
fn normal_tail(z: f64) -> f64 {
    let x = z / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    0.5 * poly * (-x * x).exp()
}

/// The `z` whose two-sided tail is `alpha` (bisection).
fn z_of(alpha: f64) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 10.0f64);
    for _ in 0..100 {
        let mid = (lo + hi) / 2.0;
        if 2.0 * normal_tail(mid) > alpha {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Every exhaustive figure lies inside its sampled share's **simultaneous** 95% interval: the
/// report's intervals widened from 95% each to 95% for all `m` of them at once (Bonferroni:
/// `1 - 0.05/m` each; a Wilson interval recomputed from its count, a ratio interval — estimate
/// plus or minus z standard errors — scaled by the ratio of the z's). A sample of a correct
/// scan fails this with probability at most 5%, and with a fixed seed never changes. Besides,
/// at least three quarters of the figures lie inside their own 95% intervals (about 95% are
/// expected). Returns the figures' names.
pub(crate) fn assert_intervals_hold(report: &Json, play: &Json) -> Vec<String> {
    let proportions = report["sample"]["proportions"].as_array().unwrap();
    let m = proportions.len() as f64;
    let (z95, zall) = (z_of(0.05), z_of(0.05 / m));
    assert!((z95 - 1.959_964).abs() < 1e-4, "{z95}");
    let mut inside = 0;
    for p in proportions {
        let name = p["name"].as_str().unwrap();
        let (count, of) = exact(play, name);
        let truth = count as f64 / of as f64;
        let e = &p["share"];
        let (low, high) = (e["low"].as_f64().unwrap(), e["high"].as_f64().unwrap());
        let (wide_low, wide_high) = match p["interval"].as_str().unwrap() {
            "wilson" => {
                let (k, n) = (p["count"].as_f64().unwrap(), p["of"].as_f64().unwrap());
                let (phat, z2) = (k / n, zall * zall);
                let centre = (phat + z2 / (2.0 * n)) / (1.0 + z2 / n);
                let half =
                    zall / (1.0 + z2 / n) * (phat * (1.0 - phat) / n + z2 / (4.0 * n * n)).sqrt();
                (centre - half, centre + half)
            }
            "ratio" => {
                let (mid, half) = ((low + high) / 2.0, (high - low) / 2.0 * zall / z95);
                (mid - half, mid + half)
            }
            other => panic!("{name}: interval {other}"),
        };
        let eps = 1e-12;
        assert!(
            wide_low - eps <= truth && truth <= wide_high + eps,
            "{name}: exact {truth} outside the simultaneous interval [{wide_low}, {wide_high}] \
             (95%: [{low}, {high}])"
        );
        inside += usize::from(low - eps <= truth && truth <= high + eps);
    }
    eprintln!(
        "{inside} of {} exact figures inside their 95% intervals, all inside the simultaneous ones (z = {zall:.3})",
        proportions.len()
    );
    assert!(
        inside * 4 >= proportions.len() * 3,
        "only {inside} of {} exact figures inside the 95% intervals",
        proportions.len()
    );
    proportions
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect()
}

/// The figures against the table's order of options, as the sample names them per ranking.
const TABLE_ORDER: [&str; 6] = [
    "pairs_agree",
    "pairs_contradict",
    "pairs_conjecture_ties",
    "pairs_table_ties",
    "pairs_both_tie",
    "equivalent_remoteness_differs",
];

/// Whether a left-out entry is the one that needs remoteness.
fn needs_remoteness(l: &Json) -> bool {
    l["needs"].as_str().unwrap().starts_with("remoteness")
}

/// The sample's intervals hold the complete scan's figures (see [`assert_intervals_hold`]);
/// from a values-only table, the figures that need remoteness are left out.
#[test]
fn size_3_sample_intervals_hold_the_exhaustive_figures() {
    let dir = tempfile::tempdir().unwrap();
    let sym = build(dir.path(), "bridgit:3,start=L,sym", "b3s.rdb", false);
    let report = sample(&sym, 20_000, 12);
    let play = exhaustive_play();
    let s = &report["sample"];
    assert_eq!(s["positions"], 20_000);
    // Every value the sample read (each position's and its options') agreed with Lehman's.
    let check = &report["lehman_check"];
    assert!(check["values"].as_u64().unwrap() > 2 * 20_000, "{check}");
    assert_eq!(check["disagreements"], 0);
    assert_eq!(report["populations"][0]["positions"], 20_000);
    // The population's size, from the share of open boards among the draws.
    let size = play["positions"].as_f64().unwrap();
    let pop = &s["population"];
    assert!(
        pop["low"].as_f64().unwrap() <= size && size <= pop["high"].as_f64().unwrap(),
        "{pop} should hold {size}"
    );
    let names = assert_intervals_hold(&report, &play);
    assert!(names.len() >= 40);
    // What a values-only scan cannot give is absent, not zero.
    assert_eq!(s["remoteness"], false);
    for r in report["populations"][0]["ranking"].as_array().unwrap() {
        for k in [
            "pairs_agree",
            "equivalent_remoteness_differs",
            "class_ranked_refuted",
            "equivalent_class_differs",
        ] {
            assert!(r.get(k).is_none(), "{k} in a values-only report");
        }
        assert!(r["top_has_win"].as_u64().is_some());
    }
    for name in &names {
        assert!(
            !TABLE_ORDER.iter().any(|k| name.ends_with(k)),
            "{name} from a values-only table"
        );
    }
    assert!(report.get("spanning_tree").is_none());
    assert!(report["populations"][0].get("game_order").is_none());
    let left_out = s["left_out"].as_array().unwrap();
    assert!(left_out.len() >= 5);
    assert!(left_out.iter().any(needs_remoteness));
}

/// From a symmetric Left-first table with remoteness, the sample also gives the ranking
/// against the table's order of options (pairs agree / contradict / ties, 'equivalent' pairs
/// differing in remoteness), and their intervals hold the complete scan's figures; the
/// figures that need values only are those of the values-only table, drawn from the same
/// boards; the second outcome bit and the game order stay left out.
#[test]
fn size_3_sample_with_remoteness_holds_the_exhaustive_table_order_figures() {
    let dir = tempfile::tempdir().unwrap();
    let rem = build(dir.path(), "bridgit:3,start=L,sym", "b3sr.rdb", true);
    let values = build(dir.path(), "bridgit:3,start=L,sym", "b3s.rdb", false);
    let report = sample(&rem, 20_000, 12);
    let names = assert_intervals_hold(&report, &exhaustive_play());
    let s = &report["sample"];
    assert_eq!(s["remoteness"], true);
    // Each ranking's six table-order shares, each with an interval of some width.
    for variant in ["stated", "reversed"] {
        for mover in ["left", "right"] {
            for k in TABLE_ORDER {
                let name = format!("ranking.{variant}.{mover}.{k}");
                let p = s["proportions"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|p| p["name"] == name.as_str())
                    .unwrap_or_else(|| panic!("{name} missing"));
                assert_eq!(p["interval"], "ratio", "{name}: a share of pairs");
                let e = &p["share"];
                assert!(e["high"].as_f64().unwrap() > e["low"].as_f64().unwrap());
            }
        }
    }
    // The same boards as the values-only table's sample: its shares, figure for figure.
    let plain = sample(&values, 20_000, 12);
    let only = plain["sample"]["proportions"].as_array().unwrap();
    assert_eq!(names.len(), only.len() + 4 * TABLE_ORDER.len());
    for p in only {
        let q = s["proportions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|q| q["name"] == p["name"])
            .unwrap();
        assert_eq!(p, q);
    }
    assert_eq!(s["draws"], plain["sample"]["draws"]);
    // The counts behind the shares add up, and nothing needing the second bit is there.
    let n = |j: &Json, k: &str| j[k].as_u64().unwrap_or_else(|| panic!("{k}"));
    for r in report["populations"][0]["ranking"].as_array().unwrap() {
        assert_eq!(
            n(r, "pairs"),
            n(r, "pairs_agree")
                + n(r, "pairs_contradict")
                + n(r, "pairs_conjecture_ties_table_orders")
                + n(r, "pairs_conjecture_orders_table_ties")
                + n(r, "pairs_both_tie")
        );
        assert!(n(r, "equivalent_remoteness_differs") > 0);
        assert!(r.get("class_ranked_refuted").is_none());
        assert!(r.get("equivalent_class_differs").is_none());
    }
    assert!(report["populations"][0].get("game_order").is_none());
    let left_out = s["left_out"].as_array().unwrap();
    assert!(!left_out.iter().any(needs_remoteness));
    assert_eq!(
        left_out.len() + 1,
        plain["sample"]["left_out"].as_array().unwrap().len()
    );
}

/// The same seed draws the same boards whatever the table's index: a symmetric Left-first
/// table with remoteness (one row per symmetry class) and the plain table with remoteness give
/// the same figures, and each counterexample's value, remoteness and named moves are confirmed
/// by `retrodb probe` on the plain table.
#[test]
fn size_3_sample_is_the_same_from_a_symmetric_and_a_plain_table() {
    let dir = tempfile::tempdir().unwrap();
    let sym = build(dir.path(), "bridgit:3,start=L,sym", "b3s.rdb", true);
    let plain = build(dir.path(), "bridgit:3", "b3.rdb", true);
    let a = sample(&sym, 3_000, 5);
    let b = sample(&plain, 3_000, 5);
    assert_eq!(a["populations"], b["populations"]);
    assert_eq!(a["sample"], b["sample"]);
    assert_eq!(a["sample"]["remoteness"], true);
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
        assert_eq!(p["remoteness"], c["remoteness"], "{claim}");
        for m in c["moves"].as_array().unwrap() {
            let found = p["moves"]
                .as_array()
                .unwrap()
                .iter()
                .find(|pm| pm["move"] == m["move"])
                .unwrap_or_else(|| panic!("{claim}: move {} is not legal", m["move"]));
            assert_eq!(found["value"], m["value"], "{claim}: move {}", m["move"]);
            assert_eq!(
                found["remoteness"], m["remoteness"],
                "{claim}: move {}",
                m["move"]
            );
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
    let dir = tempfile::tempdir().unwrap();
    let sym = build(dir.path(), "bridgit:3,start=L,sym", "b3s.rdb", false);
    // Every configuration is sampled by Lehman's criterion, not from a table.
    let all = [
        "research",
        "bridgit",
        "--size",
        "3",
        "--table",
        &sym,
        "--sample",
        "10",
        "--population",
        "all",
    ];
    assert!(err(&all).contains("leave out --table"));
    // The complete report needs every configuration with remoteness.
    assert!(err(&["research", "bridgit", "--size", "3", "--table", &sym]).contains("--sample N"));
    // So does a table of every configuration, one per symmetry class: its scan would count
    // stored images only.
    let every_sym = build(dir.path(), "bridgit:2,sym", "b2s.rdb", true);
    let refused = err(&["research", "bridgit", "--size", "2", "--table", &every_sym]);
    assert!(
        refused.contains("the complete report needs bridgit:2"),
        "{refused}"
    );
    let right = build(dir.path(), "bridgit:2,start=R", "b2r.rdb", false);
    assert!(
        err(&[
            "research", "bridgit", "--size", "2", "--table", &right, "--sample", "5"
        ])
        .contains("Left moving first")
    );
}
