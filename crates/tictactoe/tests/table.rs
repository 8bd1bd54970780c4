//! Tic-tac-toe's tables through retrodb's public API: built, probed (every board against a
//! minimax written in the tests), verified, compressed, reopened through the registry, and
//! served over HTTP and run through retrodb's command line by the crate's binary.

mod common;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::Duration;

use retrodb_core::base::progress::Silent;
use retrodb_core::games::AnyGame;
use retrodb_core::table::builder::{self, BuildOptions};
use retrodb_core::table::{self, Table};
use retrodb_core::{Value, with_game};

use common::{Rules, text, tictactoe};

fn register() {
    retrodb_tictactoe::register().unwrap();
}

/// Builds `spec`'s table in a fresh directory and checks every board of the size against the
/// minimax: a reachable board's value, an unreachable one refused.
fn check_against_minimax(spec: &str, rules: Rules) {
    register();
    let game = AnyGame::open(spec, u64::MAX).unwrap();
    assert!(matches!(game, AnyGame::External(_)));
    assert_eq!(game.spec(), spec);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ttt.rdb");
    builder::build(&game, &path, &BuildOptions::default()).unwrap();
    // Reopened from the file: the registry rebuilds the game from the spec in its header.
    let t = Table::open(&path).unwrap();
    assert_eq!(t.header().spec, spec);
    let mut memo = HashMap::new();
    let mut reachable = 0;
    for mut board in rules.boards() {
        let name = rules.text(&board);
        match rules.mover(&board) {
            Some(_) => {
                reachable += 1;
                let want = rules.value(&mut board, &mut memo);
                assert_eq!(t.probe_text(&name).unwrap().value, want, "{spec} {name}");
            }
            None => assert!(t.probe_text(&name).is_err(), "{spec} {name}"),
        }
    }
    assert!(reachable > 0);
}

#[test]
fn every_board_has_its_minimax_value() {
    check_against_minimax(
        "ttt:3x3,3",
        Rules {
            rows: 3,
            cols: 3,
            k: 3,
        },
    );
    check_against_minimax(
        "ttt:2x4,3",
        Rules {
            rows: 2,
            cols: 4,
            k: 3,
        },
    );
    check_against_minimax(
        "ttt:3x2,2",
        Rules {
            rows: 3,
            cols: 2,
            k: 2,
        },
    );
}

/// Registered with its tiers, the game is built by the tiered engine, and its file, values and
/// remoteness, is byte for byte the counter engine's.
#[test]
fn the_tiered_engine_builds_it_as_the_counter_engine_does() {
    register();
    let dir = tempfile::tempdir().unwrap();
    for spec in ["ttt:3x3,3", "ttt:3x4,3"] {
        let game = AnyGame::open(spec, u64::MAX).unwrap();
        for remoteness in [false, true] {
            let tiered = dir.path().join("tiered.rdb");
            let opts = BuildOptions {
                remoteness,
                ..BuildOptions::default()
            };
            let s = builder::build(&game, &tiered, &opts).unwrap();
            assert_eq!(s.engine, retrodb_core::solve::Engine::Tiered, "{spec}");
            assert_eq!(s.kernel.name(), "per-position", "{spec}");
            let counter = dir.path().join("counter.rdb");
            let opts = BuildOptions {
                engine: Some(retrodb_core::solve::Engine::Counter),
                ..opts
            };
            builder::build(&game, &counter, &opts).unwrap();
            assert!(
                std::fs::read(&tiered).unwrap() == std::fs::read(&counter).unwrap(),
                "{spec} remoteness {remoteness}: the files differ"
            );
        }
    }
}

#[test]
fn a_table_verifies_compresses_and_reopens_through_the_registry() {
    register();
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("ttt.rdb");
    let game = AnyGame::open("ttt:3x3,3", u64::MAX).unwrap();
    let opts = BuildOptions {
        remoteness: true,
        ..BuildOptions::default()
    };
    builder::build(&game, &raw, &opts).unwrap();
    let t = Table::open(&raw).unwrap();
    t.verify_checksums().unwrap();
    let used = t.verify_positions(&Silent).unwrap();
    assert!(used > 5000, "{used}");
    // 3 x 3 is a draw from the empty board; X wins at once from a board with two in a row.
    let start = t.probe_text(".../.../...").unwrap();
    assert_eq!((start.value, start.remoteness), (Value::Draw, None));
    assert_eq!(start.moves.len(), 9);
    let two = t.probe_text("xx./oo./...").unwrap();
    assert_eq!((two.value, two.remoteness), (Value::Win, Some(1)));
    let best = two.best.as_ref().map(|m| m.name.clone());
    assert_eq!(best.as_deref(), Some("c1"));
    let picture = with_game!(t.game(), g => retrodb_core::Notation::render(g, two.index));
    assert_eq!(picture.as_deref(), Some("xx.\noo.\n..."));

    let packed = dir.path().join("ttt-z.rdb");
    table::compress(&t, &packed, Default::default(), &Silent).unwrap();
    let z = Table::open(&packed).unwrap();
    z.verify_checksums().unwrap();
    assert_eq!(z.verify_positions(&Silent).unwrap(), used);
    for board in [".../.../...", "xx./oo./...", "xo./.x./..o", "x../.o./..."] {
        let (a, b) = (t.probe_text(board).unwrap(), z.probe_text(board).unwrap());
        assert_eq!((a.value, a.remoteness), (b.value, b.remoteness), "{board}");
    }
}

#[test]
fn the_binary_builds_probes_and_verifies_through_retrodbs_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ttt.rdb");
    let path = path.to_str().unwrap();
    let o = tictactoe(&["build", "ttt:3x3,3", "-o", path, "--quiet", "--compress"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = tictactoe(&["probe", path, ".../.../...", "xx./oo./...", "--json"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let answers: Vec<serde_json::Value> = text(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers[0]["value"], "draw");
    assert_eq!(answers[1]["value"], "win");
    let o = tictactoe(&["verify", path]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = tictactoe(&["show", "ttt:3x3,3", "x../.o./..."]);
    assert!(
        text(&o.stdout).starts_with("x..\n.o.\n...\n"),
        "{}",
        text(&o.stderr)
    );
    // A bad spec names the family's kinds among the known ones.
    let o = tictactoe(&["build", "ttt:9x9,3", "-o", path]);
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains("MxN,K"), "{}", text(&o.stderr));
}

#[test]
fn the_binary_serves_a_table_over_http() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ttt.rdb");
    let path = path.to_str().unwrap();
    let o = tictactoe(&["build", "ttt:3x3,3", "-o", path, "--quiet", "--remoteness"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let mut child = Command::new(env!("CARGO_BIN_EXE_tictactoe"))
        .args(["serve", path, "--addr", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .strip_prefix("listening on http://")
        .and_then(|r| r.split('/').next())
        .unwrap_or_else(|| panic!("no address: {line:?}"))
        .to_string();
    let get = |target: &str| -> serde_json::Value {
        let mut s = TcpStream::connect(&addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let head = format!("GET {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
        s.write_all(head.as_bytes()).unwrap();
        let mut all = String::new();
        s.read_to_string(&mut all).unwrap();
        assert!(all.starts_with("HTTP/1.1 200"), "{all}");
        let body = &all[all.find("\r\n\r\n").unwrap() + 4..];
        serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"))
    };
    let start = get("/api/v1/tables/ttt?position=.../.../...");
    assert_eq!(start["value"], "draw");
    assert_eq!(start["moves"].as_array().map(Vec::len), Some(9));
    let two = get("/api/v1/tables/ttt?position=xx./oo./...");
    assert_eq!(two["value"], "win");
    assert_eq!(two["remoteness"], 1);
    let tables = get("/api/v1/tables");
    assert!(tables.to_string().contains("ttt:3x3,3"), "{tables}");
    child.kill().unwrap();
    child.wait().unwrap();
}
