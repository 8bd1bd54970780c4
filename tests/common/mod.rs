//! Running the `retrodb` binary from the integration tests, from the crate's directory so the
//! relative paths of `data/` work. Shared by the two test binaries, `tests/all/` and
//! `tests/mpi.rs`.

// tests/mpi.rs uses only some of the helpers.
#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `retrodb ARGS` with no input.
pub fn retrodb(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_retrodb"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the retrodb binary runs")
}

/// Runs `retrodb ARGS` with `input` (text, or any bytes) on its standard input.
pub fn retrodb_stdin(args: &[&str], input: impl AsRef<[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_retrodb"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the retrodb binary runs");
    let mut stdin = child.stdin.take().expect("piped stdin");
    let input = input.as_ref().to_vec();
    // Written from a thread, so a long input cannot block against a full stdout pipe.
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("retrodb finishes");
    feeder.join().expect("stdin writer");
    out
}

/// Runs `retrodb ARGS`, which must succeed, and returns its standard output.
pub fn ok(args: &[&str]) -> String {
    let out = retrodb(args);
    assert!(
        out.status.success(),
        "retrodb {args:?} failed: {}",
        stderr(&out)
    );
    stdout(&out)
}

/// Runs `retrodb ARGS`, which must fail, and returns its standard error.
pub fn fails(args: &[&str]) -> String {
    let out = retrodb(args);
    assert!(!out.status.success(), "retrodb {args:?} should fail");
    stderr(&out)
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
pub mod server;

/// A path as the `&str` a command line takes.
pub fn path_str(p: &std::path::Path) -> &str {
    p.to_str().expect("test paths are UTF-8")
}

/// The files in `dir` (names), sorted.
pub fn listing(dir: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// The `position` of every counterexample in a research report's JSON, in order.
pub fn counterexample_positions(report: &serde_json::Value) -> Vec<serde_json::Value> {
    report["counterexamples"]
        .as_array()
        .expect("a research report lists its counterexamples")
        .iter()
        .map(|c| c["position"].clone())
        .collect()
}
