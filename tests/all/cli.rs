//! The `retrodb` binary end to end: building, probing, dumping and verifying tables, and the
//! errors for bad input and damaged tables.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{retrodb, retrodb_stdin, stderr, stdout};

/// Asserts a clean failure: non-zero exit, one line on stderr containing `needle`, no panic.
fn fails_with(o: &Output, needle: &str) {
    let err = stderr(o);
    assert!(!o.status.success(), "expected failure, got success: {err}");
    assert!(!err.contains("panicked"), "panic: {err}");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "one-line error expected: {err}"
    );
    assert!(err.contains(needle), "stderr {err:?} lacks {needle:?}");
}

fn build_seed(dir: &Path, extra: &[&str]) -> PathBuf {
    let out = dir.join("seed.rdb");
    let mut args = vec![
        "build",
        "digraph:data/seed001.txt",
        "-o",
        out.to_str().unwrap(),
        "--quiet",
    ];
    args.extend_from_slice(extra);
    let o = retrodb(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = retrodb(&["verify", out.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    out
}

const SEED_ANSWER: [&str; 12] = [
    "draw", "draw", "draw", "draw", "win", "win", "loss", "loss", "loss", "win", "loss", "win",
];

#[test]
fn seed001_through_build_probe_and_dump() {
    let dir = tempfile::tempdir().unwrap();
    let table = build_seed(dir.path(), &["--remoteness"]);
    let t = table.to_str().unwrap();
    let mut args = vec!["probe", t, "--json"];
    let ids: Vec<String> = (0..12).map(|v| v.to_string()).collect();
    args.extend(ids.iter().map(String::as_str));
    let o = retrodb(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 12);
    for (v, line) in lines.iter().enumerate() {
        assert_eq!(line["position"], v.to_string());
        assert_eq!(line["value"], SEED_ANSWER[v], "vertex {v}");
    }
    // Remoteness: 11 wins by moving to 8, which loses in 2 (its moves 4 and 5 win in 1).
    assert_eq!(lines[11]["remoteness"], 3);
    assert_eq!(lines[8]["remoteness"], 2);
    assert!(
        lines[0]["remoteness"].is_null(),
        "draws have no remoteness (null)"
    );
    let moves = lines[9]["moves"].as_array().unwrap();
    let pairs: Vec<(String, String)> = moves
        .iter()
        .map(|m| {
            (
                m["position"].as_str().unwrap().to_string(),
                m["value"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        pairs,
        vec![("10".into(), "loss".into()), ("11".into(), "win".into())]
    );

    let o = retrodb(&["dump", t]);
    assert!(o.status.success());
    let dumped: Vec<String> = stdout(&o).lines().map(String::from).collect();
    let expect: Vec<String> = (0..12)
        .map(|v| {
            let r = match v {
                4 | 5 | 9 => "\t1",
                6 | 7 | 10 => "\t0",
                8 => "\t2",
                11 => "\t3",
                // Draws have no remoteness: the column is there, as `-`.
                _ => "\t-",
            };
            format!("{v}\t{}{r}", SEED_ANSWER[v])
        })
        .collect();
    assert_eq!(dumped, expect);

    let o = retrodb(&["verify", t]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("ok"));
}

#[test]
fn probe_reads_stdin_and_human_output_marks_best_moves() {
    let dir = tempfile::tempdir().unwrap();
    let table = build_seed(dir.path(), &[]);
    let o = retrodb_stdin(&["probe", table.to_str().unwrap(), "-"], "4\n\n2\n");
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.starts_with("4\twins\n"), "{text}");
    // From 4 the winning move is to 6 (lost for the opponent), not to 3 (a draw).
    assert!(
        text.contains("  * 6 -> 6\twins\t(opponent: loses)\n"),
        "{text}"
    );
    assert!(
        text.contains("    3 -> 3\tdraws\t(opponent: draws)\n"),
        "{text}"
    );
    assert!(text.contains("2\tdraws\n"), "{text}");
}

#[test]
fn probe_of_a_bad_position_fails_but_answers_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let table = build_seed(dir.path(), &[]);
    let o = retrodb(&["probe", table.to_str().unwrap(), "4", "99", "x"]);
    assert!(!o.status.success());
    assert_eq!(stdout(&o).lines().next(), Some("4\twins"));
    let err = stderr(&o);
    assert!(err.contains("'99': vertex 99 is not in the graph"), "{err}");
    assert!(
        err.contains("'x': a digraph position is a vertex id"),
        "{err}"
    );
}

#[test]
fn info_reports_counts() {
    let dir = tempfile::tempdir().unwrap();
    let table = build_seed(dir.path(), &[]);
    let o = retrodb(&["info", table.to_str().unwrap(), "--json"]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["game"], "digraph:data/seed001.txt");
    assert_eq!(
        (v["win"].as_u64(), v["loss"].as_u64(), v["draw"].as_u64()),
        (Some(4), Some(4), Some(4))
    );
    assert_eq!(v["source"], "embedded");
}

#[test]
fn the_table_answers_after_its_input_file_is_gone() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("g.txt");
    std::fs::write(&graph, "0 1\n1 2\n").unwrap();
    let table = dir.path().join("g.rdb");
    let spec = format!("digraph:{}", graph.display());
    let o = retrodb(&["build", &spec, "-o", table.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::remove_file(&graph).unwrap();
    let o = retrodb(&["verify", table.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = retrodb(&["probe", table.to_str().unwrap(), "0", "1", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let values: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with(' '))
        .map(|l| l.split('\t').nth(1).unwrap())
        .collect();
    assert_eq!(values, ["loses", "wins", "loses"]);
}

fn flip(path: &Path, at: usize) {
    let mut bytes = std::fs::read(path).unwrap();
    bytes[at] ^= 0x24;
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn verify_and_probe_refuse_damaged_tables() {
    let dir = tempfile::tempdir().unwrap();
    let good = build_seed(dir.path(), &["--remoteness"]);
    let len = std::fs::metadata(&good).unwrap().len() as usize;
    let bad = dir.path().join("bad.rdb");
    let t = bad.to_str().unwrap();

    // A payload byte (the first cells are at 4096).
    std::fs::copy(&good, &bad).unwrap();
    flip(&bad, 4096);
    fails_with(&retrodb(&["verify", t]), "fails its checksum");
    fails_with(&retrodb(&["probe", t, "0"]), "fails its checksum");

    // A header byte: the size, and a byte of the game spec.
    for at in [16, 160] {
        std::fs::copy(&good, &bad).unwrap();
        flip(&bad, at);
        fails_with(&retrodb(&["verify", t]), "header checksum mismatch");
        fails_with(&retrodb(&["probe", t, "0"]), "header checksum mismatch");
        fails_with(&retrodb(&["info", t]), "header checksum mismatch");
    }

    // Truncated, at several lengths.
    let bytes = std::fs::read(&good).unwrap();
    for cut in [0, 5, 100, 4100, len - 1] {
        std::fs::write(&bad, &bytes[..cut]).unwrap();
        let o = retrodb(&["verify", t]);
        let err = stderr(&o);
        assert!(
            !o.status.success() && !err.contains("panicked"),
            "cut {cut}: {err}"
        );
        assert!(
            err.contains("truncated") || err.contains("empty") || err.contains("not a retrodb"),
            "cut {cut}: {err}"
        );
        assert!(!retrodb(&["probe", t, "0"]).status.success());
    }

    // Not a table at all.
    fails_with(
        &retrodb(&["info", "data/seed001.txt"]),
        "not a retrodb table",
    );
}

/// Every single byte of a small table, flipped in turn: `verify` must notice, or the byte must be
/// one that no answer depends on (page padding, which verify checks is zero).
#[test]
fn every_flipped_byte_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    let good = build_seed(dir.path(), &["--remoteness"]);
    let bytes = std::fs::read(&good).unwrap();
    let bad = dir.path().join("bad.rdb");
    let mut rng = retrodb::base::splitmix::SplitMix64(99);
    for _ in 0..150 {
        let at = rng.below(bytes.len() as u64) as usize;
        let mut copy = bytes.clone();
        copy[at] ^= 1 << rng.below(8);
        std::fs::write(&bad, &copy).unwrap();
        let o = retrodb(&["verify", bad.to_str().unwrap()]);
        assert!(!o.status.success(), "flipping byte {at} went unnoticed");
        assert!(!stderr(&o).contains("panicked"));
    }
}

#[test]
fn malformed_graphs_give_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &str); 6] = [
        (
            "0 1\n2\n",
            "g.txt:2: expected an edge 'u v' but found one word '2'",
        ),
        ("0 1\n1 -2\n", "g.txt:2: negative vertex id '-2'"),
        ("# c\n0 b\n", "g.txt:2: 'b' is not a vertex id"),
        (
            "0 4294967295\n",
            "g.txt:1: vertex id 4294967295 is too large",
        ),
        ("", "g.txt: contains no edges"),
        ("# only\n# comments\n", "g.txt: contains no edges"),
    ];
    for (text, needle) in cases {
        let path = dir.path().join("g.txt");
        std::fs::write(&path, text).unwrap();
        let spec = format!("digraph:{}", path.display());
        let out = dir.path().join("g.rdb");
        let o = retrodb(&["build", &spec, "-o", out.to_str().unwrap()]);
        fails_with(&o, needle);
        assert!(!out.exists(), "no table may be left behind");
    }
    fails_with(
        &retrodb(&["build", "digraph:/no/such/file.txt"]),
        "/no/such/file.txt: No such file or directory",
    );
    fails_with(
        &retrodb(&["build", "nosuchgame:3"]),
        "unknown game 'nosuchgame'",
    );
    fails_with(&retrodb(&["build", "digraph"]), "expected KIND:ARGUMENT");
    fails_with(&retrodb(&["probe", "/no/such.rdb", "0"]), "/no/such.rdb");
}

#[test]
fn memory_limit_refuses_before_building() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("g.rdb");
    let o = retrodb(&[
        "build",
        "digraph:data/seed001.txt",
        "-o",
        out.to_str().unwrap(),
        "--max-memory",
        "100",
    ]);
    fails_with(&o, "memory limit is 100 B");
    assert!(!out.exists());
}

#[test]
fn gen_writes_a_graph_that_builds() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("r.txt");
    let o = retrodb(&[
        "gen",
        "digraph",
        "--vertices",
        "1000",
        "--edges",
        "3000",
        "--seed",
        "5",
        "-o",
        g.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines = std::fs::read_to_string(&g).unwrap().lines().count();
    assert_eq!(lines, 3001, "a comment line and 3000 edges");
    let table = dir.path().join("r.rdb");
    let spec = format!("digraph:{}", g.display());
    for threads in ["1", "2"] {
        let o = retrodb(&[
            "build",
            &spec,
            "-o",
            table.to_str().unwrap(),
            "--threads",
            threads,
            "--json",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
        assert_eq!(v["edges"], 3000);
        // The whole command's time counts reading the input and building the graph.
        let secs = |k: &str| v[k].as_f64().unwrap();
        assert!(
            secs("total_seconds") >= secs("load_seconds") + secs("solve_seconds"),
            "{v}"
        );
        let o = retrodb(&["verify", table.to_str().unwrap()]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
}

/// `wins in 3`, `loses in 2`, `draws`: a value for its player, as the demo words it.
fn value_words(value: &str, remoteness: Option<u64>) -> String {
    let word = match value {
        "win" => "wins",
        "loss" => "loses",
        _ => return "draws".to_string(),
    };
    match remoteness {
        Some(r) => format!("{word} in {r}"),
        None => word.to_string(),
    }
}

fn flipped(v: &str) -> &'static str {
    match v {
        "win" => "loss",
        "loss" => "win",
        _ => "draw",
    }
}

#[test]
fn demo_builds_and_probes_its_examples() {
    let dir = tempfile::tempdir().unwrap();
    let o = retrodb(&["demo", "--dir", dir.path().to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    // Values are for the player making the move, never "for the opponent"; times under a second
    // are in milliseconds.
    assert!(!text.contains("opponent"), "{text}");
    assert!(!text.contains(" 0.00 s"), "{text}");
    // Seed 001's answer, a vertex a line: vertex, its value for the player to move (with the
    // plies to the end), then its moves best first, each for the player making it.
    let seed = dir.path().join("seed001.rdb");
    let mut rows = 0;
    let part1 = text.split("\n2. Bridg-It").next().unwrap();
    for line in part1.lines() {
        let Some((vertex, rest)) = line.trim_start().split_once("  ") else {
            continue;
        };
        let Ok(v) = vertex.parse::<usize>() else {
            continue;
        };
        if v >= SEED_ANSWER.len() {
            continue;
        }
        let want: serde_json::Value = serde_json::from_str(
            stdout(&retrodb(&[
                "probe",
                seed.to_str().unwrap(),
                vertex,
                "--json",
            ]))
            .trim(),
        )
        .unwrap();
        assert_eq!(want["value"], SEED_ANSWER[v], "vertex {v}");
        let value = value_words(want["value"].as_str().unwrap(), want["remoteness"].as_u64());
        let mut moves: Vec<(u8, i64, String)> = want["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                let child = m["value"].as_str().unwrap();
                let r = m["remoteness"].as_u64();
                let rank = match child {
                    "loss" => (0, r.unwrap() as i64),
                    "draw" => (1, 0),
                    _ => (2, -(r.unwrap() as i64)),
                };
                let words = value_words(flipped(child), r.map(|r| r + 1));
                (
                    rank.0,
                    rank.1,
                    format!("to {} {words}", m["move"].as_str().unwrap()),
                )
            })
            .collect();
        moves.sort_by_key(|m| (m.0, m.1));
        let moves: Vec<String> = moves.into_iter().map(|m| m.2).collect();
        let (shown_value, shown_moves) = rest.trim().split_once("  ").unwrap();
        assert_eq!(shown_value.trim(), value, "vertex {v}: {line}");
        if moves.is_empty() {
            assert!(shown_moves.contains("stuck"), "{line}");
        } else {
            assert_eq!(shown_moves.trim(), moves.join(", "), "vertex {v}: {line}");
        }
        rows += 1;
    }
    assert_eq!(rows, SEED_ANSWER.len(), "{text}");
    // Bridg-It 3 is built with remoteness: the empty board's answer says in how many plies.
    let bridgit = dir.path().join("bridgit-3.rdb");
    let empty: serde_json::Value = serde_json::from_str(
        stdout(&retrodb(&[
            "probe",
            bridgit.to_str().unwrap(),
            ".............",
            "--json",
        ]))
        .trim(),
    )
    .unwrap();
    let r = empty["remoteness"]
        .as_u64()
        .expect("the demo's Bridg-It 3 has remoteness");
    assert_eq!(empty["value"], "win");
    assert!(
        text.contains(&format!(
            "Left (blue), to move, wins in {r} — 13 of 13 first moves win"
        )),
        "{text}"
    );
    for t in ["seed001.rdb", "bridgit-3.rdb"] {
        let path = dir.path().join(t);
        let o = retrodb(&["verify", path.to_str().unwrap(), "--quiet"]);
        assert!(o.status.success(), "{t}: {}", stderr(&o));
    }
}

/// The memory estimate a digraph build prints (and refuses on with `--max-memory`) is within
/// 1.5x of the peak resident memory the same build reports, on generated graphs of a million
/// edges (their input embedded in the table), dense and sparse, with and without remoteness.
#[test]
fn digraph_memory_estimate_is_near_the_measured_peak() {
    let dir = tempfile::tempdir().unwrap();
    for (vertices, edges) in [("1000000", "1000000"), ("250000", "1000000")] {
        let g = dir.path().join(format!("g{vertices}.txt"));
        let o = retrodb(&[
            "gen",
            "digraph",
            "--vertices",
            vertices,
            "--edges",
            edges,
            "--seed",
            "3",
            "-o",
            g.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        for extra in [None, Some("--remoteness")] {
            let spec = format!("digraph:{}", g.display());
            let out = dir.path().join("g.rdb");
            let mut args = vec!["build", &spec, "-o", out.to_str().unwrap(), "--json"];
            args.extend(extra);
            let o = retrodb(&args);
            assert!(o.status.success(), "{}", stderr(&o));
            let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            let (Some(peak), Some(estimate)) = (
                v["peak_rss_bytes"].as_f64(),
                v["estimated_peak_bytes"].as_f64(),
            ) else {
                panic!("no peak or estimate in {v}");
            };
            let ratio = estimate / peak;
            assert!(
                (1.0 / 1.5..=1.5).contains(&ratio),
                "{vertices} vertices, {edges} edges {extra:?}: estimate {estimate}, peak {peak}"
            );
            // The refusal uses the same estimate.
            let limit = format!("{}", (estimate * 0.9) as u64);
            let o = retrodb(&[
                "build",
                &spec,
                "-o",
                out.to_str().unwrap(),
                "--max-memory",
                &limit,
                "--quiet",
            ]);
            fails_with(&o, "memory limit");
        }
    }
}

/// Plain `retrodb bench` takes the suite's options and runs it end to end: a read bound per
/// thread count, and each case built with one thread and with two, in child processes.
#[test]
fn bench_suite_runs_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    let out = retrodb(&[
        "bench",
        "--threads",
        "2",
        "--only",
        "bridgit3",
        "--read-buffer",
        "16M",
        "--reads",
        "100000",
        "--json",
        "--work",
        work.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in ["read_rates", "compute_rates"] {
        let rates = report[key].as_array().unwrap();
        assert_eq!(rates.len(), 2, "{key}");
        assert!(
            rates
                .iter()
                .all(|r| r["per_second"].as_f64().unwrap() > 0.0)
        );
    }
    assert_eq!(report["compute_rates"][0]["buffer_bytes"], 16384);
    let rows = report["rows"].as_array().unwrap();
    let threads: Vec<u64> = rows
        .iter()
        .map(|r| r["threads"].as_u64().unwrap())
        .collect();
    assert_eq!(threads, [1, 2]);
    for r in rows {
        assert_eq!(r["spec"], "bridgit:3");
        assert_eq!(r["kernel"], "bitplane", "{r}");
        assert_eq!(r["positions"], 3_188_646);
        // A values-only build of a plain board decides many positions at once with bit
        // operations: it counts no edges and no single reads.
        assert!(r["edges"].is_null(), "{r}");
        assert_eq!(r["probes"], 0, "{r}");
        assert!(r["ns_per_probe"].is_null(), "{r}");
        let ns = r["ns_per_position"].as_f64().unwrap();
        let secs = r["solve_seconds"].as_f64().unwrap();
        assert!(
            (ns * 3_188_646.0 / 1e9 - secs).abs() < 1e-6 * secs.max(1.0),
            "{r}"
        );
        assert!(r["peak_bytes_per_position"].as_f64().unwrap() > 0.25);
    }
    assert_eq!(rows[0]["speedup"], 1.0);
    let bad = retrodb(&[
        "bench",
        "--only",
        "nothing",
        "--work",
        work.to_str().unwrap(),
    ]);
    assert!(!bad.status.success());
    assert!(
        stderr(&bad).contains("unknown case 'nothing'"),
        "{}",
        stderr(&bad)
    );
}

/// A tiered run says what it will do before it starts (tiers, memory, disk, and when resuming
/// the time left at the earlier runs' rate), then reports its first tier and its checkpoint.
#[test]
fn tiered_builds_print_their_plan_and_tiers() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("plan.rdb");
    let out = out.to_str().unwrap();
    let first = retrodb(&["build", "hex:3,start=L", "-o", out, "--tiers", "2"]);
    assert!(first.status.success(), "{}", stderr(&first));
    let err = stderr(&first);
    assert!(err.contains("this run: tiers 9 down to 8 of 10;"), "{err}");
    assert!(
        err.contains("memory ") && err.contains("disk ") && err.contains("free"),
        "{err}"
    );
    assert!(err.contains("time left: after each tier"), "{err}");
    assert!(err.contains("tier 9 of 10 done: 126 positions"), "{err}");
    assert!(
        err.contains("tier 8 of 10 done:") && err.contains(", checkpoint;"),
        "{err}"
    );
    let second = retrodb(&["build", "hex:3,start=L", "-o", out]);
    assert!(second.status.success(), "{}", stderr(&second));
    let err = stderr(&second);
    assert!(
        err.contains("this run: tiers 7 down to 0 of 10, resuming below tier 8"),
        "{err}"
    );
    let refused = retrodb(&["build", "hex:3", "-o", out, "--tiers", "0"]);
    assert!(!refused.status.success());
}

/// The kernel a build runs is named before it starts (the estimate line, and a tiered build's
/// plan line) and in `build --json`: the bit-parallel kernel for a plain board, the row kernel
/// for a sliced one, the per-position kernel for a tiered game of no known shape and for a plain
/// board resumed below a checkpoint, plain remoteness for a plain board with remoteness, the
/// counter for a digraph.
#[test]
fn builds_name_their_kernel() {
    let dir = tempfile::tempdir().unwrap();
    let seed = format!("digraph:{}/data/seed001.txt", env!("CARGO_MANIFEST_DIR"));
    for (i, (spec, extra, kernel, engine)) in [
        ("hex:3", None, "bitplane", "tiered"),
        ("hex:3,start=L,sym", None, "sliced-rows", "tiered"),
        ("hex:3,start=L", None, "per-position", "tiered"),
        ("hex:3", Some("--remoteness"), "plain-remoteness", "tiered"),
        (seed.as_str(), None, "counter", "counter"),
    ]
    .into_iter()
    .enumerate()
    {
        let out = dir.path().join(format!("k{i}.rdb"));
        let mut args = vec!["build", spec, "-o", out.to_str().unwrap()];
        args.extend(extra);
        let o = retrodb(&args);
        assert!(o.status.success(), "{spec}: {}", stderr(&o));
        let err = stderr(&o);
        let lines: Vec<&str> = err.lines().collect();
        assert!(
            lines[0].contains(&format!(", {engine} engine ({kernel} kernel), estimated")),
            "{spec}: {err}"
        );
        let plan = lines.iter().find(|l| l.starts_with("  this run: "));
        match plan {
            Some(p) => assert!(p.contains(&format!("; {kernel} kernel, memory ")), "{err}"),
            None => assert_eq!(engine, "counter", "{spec}: a tiered build's plan: {err}"),
        }
        std::fs::remove_file(&out).unwrap();
        args.push("--json");
        let o = retrodb(&args);
        assert!(o.status.success(), "{spec}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["kernel"], kernel, "{spec}: {v}");
        assert_eq!(v["engine"], engine, "{spec}: {v}");
    }
    // Resumed below a checkpoint, a plain board goes through the per-position kernel: the plan
    // line says so, and the summary.
    let out = dir.path().join("resumed.rdb");
    let out = out.to_str().unwrap();
    let first = retrodb(&["build", "hex:3", "-o", out, "--tiers", "2", "--json"]);
    assert!(first.status.success(), "{}", stderr(&first));
    let v: serde_json::Value = serde_json::from_slice(&first.stdout).unwrap();
    assert_eq!(v["kernel"], "bitplane", "{v}");
    let second = retrodb(&["build", "hex:3", "-o", out]);
    assert!(second.status.success(), "{}", stderr(&second));
    let err = stderr(&second);
    assert!(
        err.contains("resuming below tier 8") && err.contains("; per-position kernel, memory "),
        "{err}"
    );
}

/// `verify --sample N` checks N random indices, `--lehman N` compares N random positions with
/// Lehman's criterion (Bridg-It is the Shannon edge game on Left's board), and a game the
/// criterion does not decide is refused by name.
#[test]
fn verify_samples_and_compares_with_lehman() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("b.rdb");
    let o = retrodb(&[
        "build",
        "bridgit:3,start=L,sym",
        "-o",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = retrodb(&[
        "verify",
        out.to_str().unwrap(),
        "-q",
        "--sample",
        "3000",
        "--lehman",
        "5000",
        "--seed",
        "7",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("3,000 indices drawn at random (seed 7) agree"),
        "{text}"
    );
    assert!(
        text.contains(
            "5,000 random positions compared with Lehman's criterion (seed 7): 0 disagreements"
        ),
        "{text}"
    );
    let hex = dir.path().join("h.rdb");
    let o = retrodb(&["build", "hex:2", "-o", hex.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = retrodb(&["verify", hex.to_str().unwrap(), "-q", "--lehman", "10"]);
    fails_with(&o, "Lehman's criterion decides Shannon edge games");
}
