//! Tables that change under their readers, and files that are not tables (issue 44): a table
//! truncated or rewritten in place while open is an error naming the file, never SIGBUS or an
//! answer from the new bytes; a FIFO given as a table is refused at once instead of waiting for
//! a writer; a CPU without the build's instructions is told so.

use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use retrodb::table::Table;

use crate::common::{ok, stderr};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Builds `spec` into `dir/name` (with `extra` options) and returns its path.
fn build(dir: &Path, name: &str, spec: &str, extra: &[&str]) -> std::path::PathBuf {
    let out = dir.join(name);
    let mut args = vec!["build", spec, "-o", s(&out), "--quiet"];
    args.extend_from_slice(extra);
    ok(&args);
    out
}

/// `cp small big`: the file truncated, then written, in place (the same inode).
fn copy_in_place(from: &Path, to: &Path) {
    let bytes = std::fs::read(from).unwrap();
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(to)
        .unwrap();
    f.write_all(&bytes).unwrap();
}

/// Through the library, a raw and a compressed table: after a smaller table is copied over the
/// file, a lookup that reaches past its new end is an error that names the file and says it
/// changed (before the guard, the process died of SIGBUS), and so is every lookup after it.
#[test]
fn a_table_truncated_under_its_reader_is_an_error_not_a_signal() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let small = build(d, "small.rdb", "bridgit:2", &[]);
    for (name, extra) in [("raw.rdb", &[][..]), ("z.rdb", &["--compress"][..])] {
        let path = build(d, name, "bridgit:3", extra);
        let table = Table::open(&path).unwrap();
        let h = table.header();
        let (mid, last) = (h.size / 2, h.size - 1);
        // Not in the same compressed frame as `last` (a decoded frame is kept in memory, and
        // answers from it are the table's as it was opened).
        assert!(!h.encoding.is_zstd() || mid / h.frame_positions != last / h.frame_positions);
        let before = table.probe_text(&table.position_text(mid));
        assert!(before.is_ok(), "{name}: {before:?}");
        copy_in_place(&small, &path);
        // A position far from the first page: its bytes are past the new end.
        let probed = table.value(last);
        let e = probed
            .expect_err(&format!("{name}: a truncated table gives no value"))
            .to_string();
        assert!(
            e.contains(name) && e.contains("changed on disk") && e.contains("truncated"),
            "{name}: {e}"
        );
        // Every later lookup, even of bytes still there, is the same error.
        let first = table.value(0).expect_err("a changed table answers nothing");
        assert_eq!(first.to_string(), e);
        assert!(table.check_unchanged().is_err());
    }
}

/// A table rewritten in place at its own length raises no signal; `check_unchanged` (which
/// the server, Python and `probe -` call) sees it, and lookups refuse from then on.
#[test]
fn a_table_rewritten_in_place_is_seen_by_the_check() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let a = build(d, "a.rdb", "bridgit:3", &[]);
    let b = build(d, "b.rdb", "bridgit:3", &["--remoteness"]);
    let table = Table::open(&a).unwrap();
    assert!(table.check_unchanged().is_ok());
    // Another table's bytes, cut to the same length: same inode, same size, new contents.
    let mut other = std::fs::read(&b).unwrap();
    other.resize(std::fs::metadata(&a).unwrap().len() as usize, 0);
    std::thread::sleep(Duration::from_millis(20));
    std::fs::write(&a, &other).unwrap();
    let e = table.check_unchanged().expect_err("rewritten in place");
    assert!(e.to_string().contains("written in place"), "{e}");
    assert!(table.value(0).is_err());
}

/// `probe -` with a table replaced by `cp` while it reads its positions: one message naming the
/// file, exit 1, no signal (before: SIGBUS, exit 135, the answers lost).
#[test]
fn probe_survives_a_table_copied_over_while_it_reads() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let small = build(d, "small.rdb", "bridgit:2", &[]);
    let served = build(d, "served.rdb", "hex:4", &[]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_retrodb"))
        .args(["probe", s(&served), "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // Positions across the whole table, so that some fall past the copied file's end.
    let lines: String = (0..200)
        .map(|k| {
            let mut board = vec![b'.'; 16];
            board[k % 16] = b'L';
            board[(k * 7 + 3) % 16] = b'R';
            let mut t = String::from_utf8(board).unwrap();
            t.push('\n');
            t
        })
        .collect();
    stdin.write_all(lines.as_bytes()).unwrap();
    stdin.flush().unwrap();
    // The table is open once the first line has been read; positions are answered in batches,
    // at the latest when stdin ends, so the copy comes before any lookup.
    std::thread::sleep(Duration::from_millis(300));
    copy_in_place(&small, &served);
    stdin.write_all(lines.as_bytes()).unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.signal(), None, "killed by a signal");
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("served.rdb") && err.contains("changed on disk"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "one message, not one a line: {err}");
}

/// A FIFO, or anything but a regular file, given where a table is read: refused at once with
/// the path (before: every command below blocked in open() until a writer came).
#[test]
fn a_fifo_given_as_a_table_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("t.rdb");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let f = s(&fifo);
    let commands: Vec<Vec<&str>> = vec![
        vec!["probe", f, "1"],
        vec!["info", f],
        vec!["verify", f],
        vec!["dump", f],
        vec!["serve", f, "--addr", "127.0.0.1:0"],
        vec!["play", "bridgit:2", "--table", f],
        vec!["research", "tiers", "--table", f],
        vec!["research", "bridgit", "--size", "2", "--table", f],
        vec!["bench", "probe", f],
    ];
    for args in commands {
        let mut child = Command::new(env!("CARGO_BIN_EXE_retrodb"))
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        while child.try_wait().unwrap().is_none() {
            if Instant::now() > deadline {
                child.kill().unwrap();
                panic!("retrodb {args:?} still waits on the FIFO after 30 s");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = stderr(&out);
        assert!(
            err.contains("t.rdb") && err.contains("not a regular file"),
            "{args:?}: {err}"
        );
    }
}

/// A CPU without an instruction the build uses (made to look so): the command line says which,
/// and exits 1, instead of dying of SIGILL at the first such instruction.
#[test]
fn a_cpu_without_the_builds_instructions_is_told_so() {
    let out = Command::new(env!("CARGO_BIN_EXE_retrodb"))
        .arg("--version")
        .env("RETRODB_PRETEND_CPU_LACKS", "avx2,bmi2")
        .output()
        .unwrap();
    if cfg!(all(target_arch = "x86_64", target_feature = "avx2")) {
        assert_eq!(out.status.code(), Some(1));
        let err = stderr(&out);
        assert!(
            err.contains("does not have (avx2, bmi2)") && err.contains("target-cpu"),
            "{err}"
        );
    } else {
        // A build that uses neither runs anywhere: nothing to refuse.
        assert!(out.status.success(), "{}", stderr(&out));
    }
}

/// `retrodb serve` while its table file changes: a `cp` of a smaller table over it (the file
/// truncated, then written) is told on stderr and the new table served; a new table renamed over
/// it is served; a file changed into something that is no table answers 503 `table_changed`
/// naming the file. The server lives through all of it (before: SIGBUS, exit 135, every client
/// lost).
#[cfg(feature = "serve")]
#[test]
fn serve_survives_its_table_copied_over_and_serves_a_renamed_one() {
    use crate::common::server::Server;
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let small = build(d, "small.rdb", "bridgit:2", &[]);
    let hex3 = build(d, "hex3.rdb", "hex:3", &[]);
    let tables = d.join("tables");
    std::fs::create_dir(&tables).unwrap();
    let served = build(&tables, "served.rdb", "hex:4", &[]);
    let mut server = Server::start(&[s(&tables)]);
    let empty4 = "................";
    let r = server.get(&format!("/api/v1/tables/served?position={empty4}"));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["value"], "win");

    // `cp small.rdb served.rdb`: the hex:4 position now reads past the file's end.
    copy_in_place(&small, &served);
    let r = server.get(&format!("/api/v1/tables/served?position={empty4}"));
    assert_eq!(
        r.status,
        400,
        "bridgit:2 has no such position: {}",
        r.text()
    );
    let r = server.get("/api/v1/tables/served?position=.....");
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["position"], "...../L");
    assert_eq!(
        server.get("/api/v1/tables").json()["tables"][0]["game"],
        "bridgit:2"
    );

    // A new table written beside it and renamed over it, as retrodb's writers do.
    let next = tables.join(".next.rdb");
    std::fs::copy(&hex3, &next).unwrap();
    std::fs::rename(&next, &served).unwrap();
    let r = server.get("/api/v1/tables/served?position=.........");
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        server.get("/api/v1/tables").json()["tables"][0]["game"],
        "hex:3"
    );

    // Changed in place into something that is no table: 503 naming the file, until it is one.
    copy_in_place(&d.join("hex3.rdb"), &served);
    std::fs::OpenOptions::new()
        .write(true)
        .open(&served)
        .unwrap()
        .set_len(100)
        .unwrap();
    let r = server.get("/api/v1/tables/served?position=.........");
    assert_eq!(r.status, 503, "{}", r.text());
    assert_eq!(r.error(), "table_changed");
    let detail = r.json()["detail"].as_str().unwrap().to_string();
    assert!(
        detail.contains("served.rdb") && detail.contains("changed on disk"),
        "{detail}"
    );
    assert_eq!(server.get("/health").status, 200);

    let status = server.stop();
    assert_eq!(status.code(), Some(0), "{status:?}");
    let mut err = String::new();
    server
        .child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(
        err.contains("table served:") && err.contains("changed in place; serving the new file"),
        "{err}"
    );
    assert!(err.contains("was replaced; serving the new file"), "{err}");
    assert!(err.contains("cannot be served yet"), "{err}");
}
