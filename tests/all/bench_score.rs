//! `retrodb bench --score`: the fixed workload end to end (one run a part), and the options it
//! refuses.

use crate::common::{retrodb, stderr};

/// One run a part, as JSON: every part has a rate and a spread, the score is positive and comes
/// with its range, the processor and the threads asked for.
#[test]
fn bench_score_prints_one_score_with_its_parts() {
    let out = retrodb(&[
        "--threads",
        "2",
        "bench",
        "--score",
        "--runs",
        "1",
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["threads"], 2, "{r}");
    assert_eq!(r["runs"], 1, "{r}");
    assert!(!r["cpu"].as_str().unwrap().is_empty(), "{r}");
    assert!(!r["reference_machine"].as_str().unwrap().is_empty(), "{r}");
    let num = |v: &serde_json::Value, k: &str| v[k].as_f64().unwrap_or_else(|| panic!("{k}: {v}"));
    let score = num(&r, "score");
    assert!(score > 0.0, "{r}");
    assert!(
        num(&r, "score_min") <= score && score <= num(&r, "score_max"),
        "{r}"
    );
    assert!(num(&r, "spread_percent") >= 0.0, "{r}");
    let parts = r["parts"].as_array().unwrap();
    let names: Vec<&str> = parts.iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["plain", "row", "counter", "lookup", "probe"]);
    for p in parts {
        assert_eq!(p["rates"].as_array().unwrap().len(), 1, "{p}");
        let median = num(p, "median");
        assert!(median > 0.0, "{p}");
        assert!(num(p, "min") <= median && median <= num(p, "max"), "{p}");
        assert_eq!(num(p, "spread_percent"), 0.0, "{p}");
        assert!(num(p, "reference") > 0.0 && num(p, "ratio") > 0.0, "{p}");
    }
    // The build parts run the kernels they are there for.
    let kernels: Vec<&str> = parts[..3]
        .iter()
        .map(|p| p["kernel"].as_str().unwrap())
        .collect();
    assert_eq!(kernels, ["bitplane", "sliced-rows", "counter"]);
}

/// `--runs` needs `--score` and a count from 1 to 100; the suite's options do not apply to the
/// fixed workload.
#[test]
fn bench_score_refuses_bad_options() {
    let refused = |args: &[&str], needle: &str| {
        let o = retrodb(args);
        let err = stderr(&o);
        assert!(!o.status.success(), "{args:?} should fail");
        assert!(!err.contains("panicked"), "{err}");
        assert!(err.contains(needle), "{args:?}: {err:?} lacks {needle:?}");
    };
    refused(&["bench", "--runs", "3"], "--score");
    refused(&["bench", "--score", "--runs", "0"], "--runs");
    refused(&["bench", "--score", "--runs", "101"], "--runs");
    refused(&["bench", "--score", "--runs", "x"], "--runs");
    refused(&["bench", "--score", "--only", "hex4"], "--only");
    refused(&["bench", "--score", "--engine", "counter"], "--engine");
    refused(&["bench", "--score", "--work", "w"], "--work");
    refused(&["bench", "--score", "--threads", "0"], "--threads");
}
