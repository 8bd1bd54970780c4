//! A digraph input too large to embed (over 64 MiB): the table refers to it by its absolute
//! path, so it opens from any working directory; `build --embed` keeps it in the table, so the
//! table answers after the input has moved; a table whose referred input is gone says which
//! file it needs and how to keep it.

use std::path::Path;
use std::process::{Command, Output};

use crate::common::{path_str, stderr, stdout};

/// Runs the binary in `dir`.
fn retrodb_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_retrodb"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn succeeds(dir: &Path, args: &[&str]) -> String {
    let o = retrodb_in(dir, args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stdout(&o)
}

/// The values of vertices 0 to 19 as `probe --json` gives them, in one run.
fn values(dir: &Path, table: &Path) -> Vec<String> {
    let vertices: Vec<String> = (0..20).map(|v| v.to_string()).collect();
    let mut args = vec!["probe", path_str(table), "--json"];
    args.extend(vertices.iter().map(String::as_str));
    succeeds(dir, &args)
        .lines()
        .map(|line| {
            let j: serde_json::Value = serde_json::from_str(line).unwrap();
            j["value"].as_str().unwrap().to_string()
        })
        .collect()
}

#[test]
fn a_large_input_is_referred_to_by_absolute_path_or_embedded_on_request() {
    let root = tempfile::tempdir().unwrap();
    let work = root.path().join("work");
    let elsewhere = root.path().join("elsewhere");
    std::fs::create_dir_all(work.join("tour")).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    succeeds(
        &work,
        &[
            "gen",
            "digraph",
            "--vertices",
            "2000000",
            "--edges",
            "5000000",
            "--seed",
            "3",
            "-o",
            "tour/big.txt",
        ],
    );
    let input_len = std::fs::metadata(work.join("tour/big.txt")).unwrap().len();
    assert!(
        input_len > 64 << 20,
        "the input must be over 64 MiB: {input_len}"
    );

    // Built with a relative path, probed from another directory.
    let referred = work.join("tour/big.rdb");
    succeeds(
        &work,
        &[
            "build",
            "digraph:tour/big.txt",
            "-o",
            "tour/big.rdb",
            "--quiet",
        ],
    );
    let info = succeeds(&elsewhere, &["info", path_str(&referred), "--json"]);
    let canonical = std::fs::canonicalize(work.join("tour/big.txt")).unwrap();
    assert!(
        info.contains(&format!("digraph:{}", canonical.display())),
        "the spec names the input by its absolute path: {info}"
    );
    let from_elsewhere = values(&elsewhere, &referred);
    assert_eq!(from_elsewhere.len(), 20);

    // Embedded on request: a table over the input's size, answering the same.
    let embedded = work.join("tour/big-embedded.rdb");
    succeeds(
        &work,
        &[
            "build",
            "digraph:tour/big.txt",
            "-o",
            "tour/big-embedded.rdb",
            "--embed",
            "--quiet",
        ],
    );
    let table_len = std::fs::metadata(&embedded).unwrap().len();
    assert!(
        table_len > input_len,
        "the input is in the table: {table_len} <= {input_len}"
    );
    let info = succeeds(&elsewhere, &["info", path_str(&embedded), "--json"]);
    assert!(
        info.contains("\"digraph:tour/big.txt\""),
        "the spec as typed: {info}"
    );

    // The input moves away: the embedded table answers as before, the other names what it needs.
    std::fs::rename(work.join("tour/big.txt"), root.path().join("moved.txt")).unwrap();
    assert_eq!(values(&elsewhere, &embedded), from_elsewhere);
    let o = retrodb_in(&elsewhere, &["probe", path_str(&referred), "0"]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains(&canonical.display().to_string()) && err.contains("--embed"),
        "the message names the file the table needs and how to keep it: {err}"
    );
    assert!(!err.contains("panicked"), "{err}");

    // A compressed copy of the embedded table still holds its input.
    let z = work.join("tour/big-embedded-z.rdb");
    succeeds(&elsewhere, &["compress", path_str(&embedded), path_str(&z)]);
    assert_eq!(values(&elsewhere, &z), from_elsewhere);
}
