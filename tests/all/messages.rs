//! Error messages that must stay precise: a damaged table reported once, lengths and padding
//! checked on open, long positions cut, non-UTF-8 input named by line, absurd sizes refused, the
//! real cause named, a byte-order mark skipped, and the summaries of finished games and
//! compressed builds. (The fault suite itself, with kills and damage, is `faults.rs`.)

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{listing, path_str, retrodb, retrodb_stdin, stderr, stdout};

/// Asserts a clean failure whose one-line message contains `needle`.
fn fails_with(o: &Output, needle: &str) {
    let err = stderr(o);
    assert!(!o.status.success(), "expected a failure: {err}");
    assert!(
        !err.contains("panicked") && o.status.signal().is_none(),
        "{err}"
    );
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "one line expected: {err}"
    );
    assert!(err.contains(needle), "{err:?} lacks {needle:?}");
}

fn hex3(dir: &Path) -> PathBuf {
    let out = dir.join("h.rdb");
    assert!(
        retrodb(&["build", "hex:3", "-o", path_str(&out), "--quiet"])
            .status
            .success()
    );
    out
}

#[test]
fn a_damaged_table_is_reported_once_not_once_per_position() {
    let dir = tempfile::tempdir().unwrap();
    let t = hex3(dir.path());
    let positions: String = stdout(&retrodb(&["dump", path_str(&t)]))
        .lines()
        .map(|l| format!("{}\n", l.split('\t').next().unwrap()))
        .collect();
    assert_eq!(positions.lines().count(), 39366);
    // A byte in the cells (they start on the second page).
    let mut bytes = std::fs::read(&t).unwrap();
    bytes[6000] ^= 0x10;
    std::fs::write(&t, bytes).unwrap();
    let o = retrodb_stdin(&["probe", path_str(&t), "-"], &positions);
    fails_with(&o, "checksum");
}

#[test]
fn padding_and_length_are_checked_on_open() {
    let dir = tempfile::tempdir().unwrap();
    let t = hex3(dir.path());
    let intact = std::fs::read(&t).unwrap();
    let bad = dir.path().join("bad.rdb");
    let mut appended = intact.clone();
    appended.extend([0u8; 8]);
    std::fs::write(&bad, &appended).unwrap();
    fails_with(
        &retrodb(&["probe", path_str(&bad), "........."]),
        "8 bytes follow the last section",
    );
    fails_with(
        &retrodb(&["dump", path_str(&bad)]),
        "follow the last section",
    );
    // The padding between the header and the cells (the header is far shorter than a page).
    let mut padded = intact.clone();
    padded[3000] = 7;
    std::fs::write(&bad, &padded).unwrap();
    fails_with(
        &retrodb(&["probe", path_str(&bad), "........."]),
        "padding bytes",
    );
    let z = dir.path().join("z.rdb");
    fails_with(
        &retrodb(&["compress", path_str(&bad), path_str(&z)]),
        "padding bytes",
    );
    assert!(!z.exists());
}

#[test]
fn long_positions_are_cut_in_messages() {
    let dir = tempfile::tempdir().unwrap();
    let t = hex3(dir.path());
    let long = format!("{}\n", "L".repeat(1 << 20));
    let o = retrodb_stdin(&["probe", path_str(&t), "-"], &long);
    fails_with(&o, "(1048576 bytes)");
    assert!(stderr(&o).len() < 300, "{}", stderr(&o).len());
}

#[test]
fn non_utf8_stdin_names_its_line_and_keeps_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let t = hex3(dir.path());
    let o = retrodb_stdin(
        &["probe", path_str(&t), "-", "--json"],
        b".........\n\xff\xfe\nL........\n",
    );
    fails_with(&o, "stdin line 2: not UTF-8");
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(out.contains("\"L......../R\""), "{out}");
}

#[test]
fn thread_counts_and_sizes_beyond_reason_are_refused() {
    fails_with(
        &retrodb(&["--threads", "10000", "build", "hex:2"]),
        "--threads 10000: at most",
    );
    let o = retrodb(&["build", "hex:2", "--max-memory", "99999999999999999999T"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("larger than any machine"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn messages_name_the_real_cause() {
    let dir = tempfile::tempdir().unwrap();
    let d = path_str(dir.path());
    fails_with(&retrodb(&["probe", d, "1"]), "is not a regular file");
    fails_with(
        &retrodb(&["build", &format!("digraph:{d}")]),
        "is a directory",
    );
    fails_with(&retrodb(&["build", "digraph:"]), "names no file");
    fails_with(
        &retrodb(&["show", "bridgit:2", ".....", "--svg", d]),
        "is a directory, not a file",
    );
    fails_with(
        &retrodb(&["build", "hex:2", "-o", "/nonexistent/dir/h.rdb", "--quiet"]),
        "the directory /nonexistent/dir does not exist",
    );
}

#[test]
fn a_byte_order_mark_is_not_part_of_the_first_vertex() {
    let dir = tempfile::tempdir().unwrap();
    let plain = std::fs::read("data/seed001.txt").unwrap();
    let mut marked = b"\xEF\xBB\xBF".to_vec();
    marked.extend(&plain);
    let g = dir.path().join("g.txt");
    std::fs::write(&g, marked).unwrap();
    let t = dir.path().join("g.rdb");
    let o = retrodb(&[
        "build",
        &format!("digraph:{}", path_str(&g)),
        "-o",
        path_str(&t),
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t2 = dir.path().join("p.rdb");
    assert!(
        retrodb(&[
            "build",
            "digraph:data/seed001.txt",
            "-o",
            path_str(&t2),
            "--quiet"
        ])
        .status
        .success()
    );
    assert_eq!(
        stdout(&retrodb(&["dump", path_str(&t)])),
        stdout(&retrodb(&["dump", path_str(&t2)]))
    );
}

#[test]
fn compressing_in_place_reports_the_real_ratio() {
    let dir = tempfile::tempdir().unwrap();
    let t = hex3(dir.path());
    let o = retrodb(&["compress", path_str(&t), path_str(&t), "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(!out.contains("(100.0%"), "{out}");
    assert!(
        retrodb(&["verify", path_str(&t), "--quiet"])
            .status
            .success()
    );
}

#[test]
fn hackenbush_is_refused_before_its_positions_are_listed() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("star.txt");
    let star: String = (1..=40).map(|v| format!("0 {v} B\n")).collect();
    std::fs::write(&g, star).unwrap();
    // 2^40 grounded sets: counting stops at the limit's worth (1 MiB: 131,072 sets).
    let o = retrodb(&[
        "build",
        &format!("hackenbush:{}", path_str(&g)),
        "--max-memory",
        "1M",
    ]);
    fails_with(&o, "more than 131073 grounded edge sets");
}

#[test]
fn finished_games_say_who_has_won_and_the_legend_is_plain() {
    let o = retrodb(&["show", "bridgit:2", "LLLLL/R"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("Left (L, blue) has won"), "{out}");
    assert!(out.contains("joining columns 0 and 4"), "{out}");
    let o = retrodb(&["show", "bridgit:2", "RRRRR/L"]);
    assert!(
        stdout(&o).contains("Right (R, red) has won"),
        "{}",
        stdout(&o)
    );
    let o = retrodb(&["show", "bridgit:2", "...../L"]);
    assert!(
        stdout(&o).contains("Left (L, blue) to move"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn compressed_builds_say_what_the_time_and_the_size_are() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("b.rdb");
    let o = retrodb(&["build", "bridgit:2", "--compress", "-o", path_str(&t)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("raw table"), "{}", stderr(&o));
    assert!(stdout(&o).contains("compressed in"), "{}", stdout(&o));
    assert_eq!(listing(dir.path()), ["b.rdb"]);
}
