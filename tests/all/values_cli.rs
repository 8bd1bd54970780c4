//! `retrodb values`, the value line of `retrodb show` and `probe --value` through the binary:
//! the figures printed agree with a recount from the library, and bad requests are refused with
//! a clear message.

use crate::common::{fails, ok};

use retrodb::games::AnyGame;
use serde_json::Value as Json;

#[test]
fn values_json_counts_every_tier() {
    for (spec, distinct) in [("bridgit:2", 10), ("hex:3", 43)] {
        let j: Json = serde_json::from_str(&ok(&["values", spec, "--json"])).unwrap();
        assert_eq!(j["distinct_values"], distinct, "{spec}");
        assert_eq!(j["empty_board_value"], "+-1", "{spec}");
        // Recount configurations and open ones per tier from the game's own winner test.
        let game = AnyGame::open(spec, u64::MAX).unwrap();
        let AnyGame::Cell(g) = &game else {
            unreachable!()
        };
        let cells = g.cells();
        let mut all = vec![0u64; cells as usize + 1];
        let mut open = vec![0u64; cells as usize + 1];
        for code in 0..3u64.pow(cells) {
            let (l, r) = retrodb::game::shape::digit_masks(code, cells);
            let t = (l | r).count_ones() as usize;
            all[t] += 1;
            open[t] += u64::from(g.winner(l, r).is_none());
        }
        let tiers = j["tiers"].as_array().unwrap();
        assert_eq!(tiers.len(), cells as usize + 1);
        for (t, tier) in tiers.iter().enumerate() {
            assert_eq!(tier["configurations"], all[t], "{spec} tier {t}");
            assert_eq!(tier["open"], open[t], "{spec} tier {t}");
            let d = tier["distinct_open_values"].as_u64().unwrap();
            assert!(d <= open[t] && (d > 0) == (open[t] > 0), "{spec} tier {t}");
        }
        assert_eq!(
            j["configurations"].as_u64().unwrap(),
            all.iter().sum::<u64>()
        );
    }
    // The convention scales the empty board's value.
    let j: Json =
        serde_json::from_str(&ok(&["values", "bridgit:2", "--json", "--free-moves", "3"])).unwrap();
    assert_eq!(j["empty_board_value"], "+-3");
}

#[test]
fn values_refuses_what_it_cannot_do() {
    assert!(fails(&["values", "bridgit:4"]).contains("at most 20 cells"));
    assert!(fails(&["values", "bridgit:5"]).contains("bridgit:5"));
    assert!(
        fails(&["values", "bridgit:2,start=L"])
            .contains("drop ',start=L' from the spec: bridgit:2")
    );
    let seed = format!("digraph:{}/data/seed001.txt", env!("CARGO_MANIFEST_DIR"));
    assert!(fails(&["values", &seed]).contains("only cell games"));
    assert!(fails(&["values", "bridgit:2", "--free-moves", "0"]).contains("0"));
    assert!(fails(&["values", "bridgit:x"]).contains("bridgit:x"));
}

#[test]
fn show_prints_the_value_and_probe_agrees() {
    let out = ok(&["show", "bridgit:2", "...LR/L"]);
    assert!(
        out.ends_with("value: +-1 (a finished board worth 1 to its winner)\n"),
        "{out}"
    );
    assert!(!ok(&["show", "bridgit:2", "...LR/L", "--no-value"]).contains("value:"));
    let out = ok(&["show", "hackenbush-stalk:GB", "GB"]);
    assert!(out.ends_with("value: ^*\n"), "{out}");
    let out = ok(&["show", "hex:4", "................"]);
    assert!(
        out.contains("value: not computed (more than 2000000 positions"),
        "{out}"
    );
    // probe --json --value gives the same value, and each move's value is its child's.
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("b2.rdb");
    let t = table.to_str().unwrap();
    ok(&["build", "bridgit:2", "-o", t, "--quiet"]);
    let j: Json = serde_json::from_str(&ok(&["probe", t, "...LR/L", "--json", "--value"])).unwrap();
    assert_eq!(j["game_value"], "+-1");
    for m in j["moves"].as_array().unwrap() {
        let child = m["position"].as_str().unwrap();
        let shown = ok(&["show", "bridgit:2", child]);
        let line = shown.lines().last().unwrap();
        let v = m["game_value"].as_str().unwrap();
        assert_eq!(
            line,
            format!("value: {v} (a finished board worth 1 to its winner)"),
            "{child}"
        );
    }
    // Without --value, no game_value.
    let j: Json = serde_json::from_str(&ok(&["probe", t, "...LR/L", "--json"])).unwrap();
    assert!(j.get("game_value").is_none());
}
