//! The subtraction game `subtract:N,MOVES`, the worked example of adding a game, through the
//! binary: `build` (with remoteness), `verify`, `dump` and `probe`, against values computed here
//! by a direct recursion over heap sizes that uses nothing of retrodb.

use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use crate::common::{ok, retrodb};

/// Every heap's value and remoteness for the player to move, from 0 up: a heap is lost when
/// every move (none, at 0) leads to a won heap, and its remoteness is the longest such win plus
/// one; a won heap's is the quickest lost child plus one.
fn reference(heap: u64, takes: &[u64]) -> Vec<(&'static str, u32)> {
    let mut out: Vec<(&'static str, u32)> = Vec::new();
    for n in 0..=heap {
        let kids: Vec<(&str, u32)> = takes
            .iter()
            .filter(|&&t| t <= n)
            .map(|&t| out[(n - t) as usize])
            .collect();
        let quickest_win = kids.iter().filter(|k| k.0 == "loss").map(|k| k.1).min();
        out.push(match quickest_win {
            Some(r) => ("win", r + 1),
            None => ("loss", kids.iter().map(|k| k.1 + 1).max().unwrap_or(0)),
        });
    }
    out
}

fn build(dir: &Path, spec: &str) -> PathBuf {
    let out = dir.join("sub.rdb");
    let o = retrodb(&[
        "build",
        spec,
        "-o",
        out.to_str().unwrap(),
        "--remoteness",
        "--quiet",
    ]);
    assert!(
        o.status.success(),
        "build {spec}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    ok(&["verify", out.to_str().unwrap(), "--quiet"]);
    out
}

#[test]
fn subtraction_games_match_the_direct_recursion() {
    for (heap, takes) in [
        (30u64, vec![1u64, 3, 4]),
        (25, vec![2, 5]),
        (12, vec![1, 2]),
    ] {
        let list: Vec<String> = takes.iter().map(u64::to_string).collect();
        let spec = format!("subtract:{heap},{}", list.join(","));
        let dir = tempfile::tempdir().unwrap();
        let table = build(dir.path(), &spec);
        let want = reference(heap, &takes);
        let dumped = ok(&["dump", table.to_str().unwrap()]);
        let lines: Vec<&str> = dumped.lines().collect();
        assert_eq!(lines.len(), want.len(), "{spec}: {dumped}");
        for (n, (line, (value, rem))) in lines.iter().zip(&want).enumerate() {
            assert_eq!(*line, format!("{n}\t{value}\t{rem}"), "{spec}");
        }
        for n in [0, heap / 2, heap] {
            let o = retrodb(&["probe", table.to_str().unwrap(), &n.to_string(), "--json"]);
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            let p: Json = serde_json::from_slice(&o.stdout).expect("one JSON object");
            assert_eq!(p["value"], want[n as usize].0, "{spec} at {n}: {p}");
            assert_eq!(p["remoteness"], want[n as usize].1, "{spec} at {n}: {p}");
            let moves = p["moves"].as_array().expect("moves");
            assert_eq!(
                moves.len(),
                takes.iter().filter(|&&t| t <= n).count(),
                "{p}"
            );
        }
    }
}

/// The P-positions of the subtraction game {1, 3, 4} are the heaps 0 and 2 modulo 7, a
/// textbook figure the recursion above must reproduce.
#[test]
fn the_reference_has_the_known_period() {
    let values = reference(40, &[1, 3, 4]);
    for (n, (value, _)) in values.iter().enumerate() {
        assert_eq!(*value == "loss", n % 7 == 0 || n % 7 == 2, "heap {n}");
    }
}

#[test]
fn bad_specs_are_refused() {
    for spec in [
        "subtract:10",
        "subtract:10,0",
        "subtract:x,1",
        "subtract:10,1,y",
    ] {
        let o = retrodb(&["build", spec, "-o", "/nonexistent/never.rdb"]);
        assert!(!o.status.success(), "{spec} should fail");
    }
}
