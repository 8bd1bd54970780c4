//! The plain C peer programs of `benches/peers/` (the floor `scripts/bench-peers.sh` measures
//! retrodb against) give retrodb's answers: `hex_peer` (plain and `-DREMOTENESS`) on every
//! position of `hex:2` and `hex:3`, value and remoteness, and `digraph_queue` on every vertex of
//! the seed's graph and of graphs its own generator writes. The peers are compiled with the
//! system's C compiler (`cc`, else `gcc`; with OpenMP when it has it) into a temporary
//! directory; without a C compiler the tests say so and pass.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value as Json;

use crate::common::{ok, path_str};

/// The first of `cc` and `gcc` that runs.
fn c_compiler() -> Option<&'static str> {
    ["cc", "gcc"].into_iter().find(|c| {
        Command::new(c)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// Compiles `benches/peers/SOURCE` with `defines` into `dir/name`: with `-fopenmp` first and,
/// if the compiler refuses it, without (the pragmas are then ignored and the peer runs on one
/// thread).
fn compile(cc: &str, dir: &Path, source: &str, name: &str, defines: &[&str]) -> PathBuf {
    let src = format!("{}/benches/peers/{source}", env!("CARGO_MANIFEST_DIR"));
    let exe = dir.join(name);
    let mut last = String::new();
    for openmp in [true, false] {
        let mut cmd = Command::new(cc);
        cmd.args(["-O2", "-std=c11"]).args(defines);
        if openmp {
            cmd.arg("-fopenmp");
        }
        let out = cmd
            .arg("-o")
            .arg(&exe)
            .arg(&src)
            .output()
            .expect("the C compiler runs");
        if out.status.success() {
            return exe;
        }
        last = String::from_utf8_lossy(&out.stderr).into_owned();
    }
    panic!("{cc} could not compile {src}:\n{last}");
}

/// Runs a peer, which must succeed, and returns its standard output.
fn run(exe: &Path, args: &[&str]) -> String {
    let out = Command::new(exe)
        .args(args)
        .env("OMP_NUM_THREADS", "2")
        .output()
        .expect("the peer runs");
    assert!(
        out.status.success(),
        "{} {args:?} failed: {}",
        exe.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("the peer prints text")
}

/// The number after `key` in a peer's line of `key value` pairs.
fn field(line: &str, key: &str) -> u64 {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words
        .iter()
        .position(|w| *w == key)
        .unwrap_or_else(|| panic!("no {key} in {line:?}"));
    words[at + 1]
        .parse()
        .unwrap_or_else(|_| panic!("{key} is not a number in {line:?}"))
}

/// The 2-bit code of position `i` in a peer's table (retrodb's cells layout).
fn code(cells: &[u8], i: usize) -> u8 {
    (cells[i / 4] >> (2 * (i % 4))) & 3
}

fn value_code(value: &str) -> u8 {
    match value {
        "win" => 1,
        "loss" => 2,
        "draw" => 3,
        other => panic!("retrodb dump printed the value {other:?}"),
    }
}

/// The last line of `retrodb build ... --json`.
fn build_json(args: &[&str]) -> Json {
    let out = ok(args);
    serde_json::from_str(out.lines().last().expect("build --json prints a line"))
        .expect("build --json prints JSON")
}

fn counts(report: &Json) -> [u64; 4] {
    let c = report["counts"].as_array().expect("counts");
    std::array::from_fn(|i| c[i].as_u64().expect("a count"))
}

/// The index of a cell game's position as `retrodb dump` prints it (`..L.R..../L`), computed
/// from the text by docs/NOTATION.md: mover (0 Left, 1 Right) + 2 * sum d_c 3^c.
fn cell_index(position: &str) -> usize {
    let (board, mover) = position.split_once('/').expect("dump prints the mover");
    let config = board.chars().rev().fold(0usize, |acc, ch| {
        3 * acc
            + match ch {
                '.' => 0,
                'L' => 1,
                'R' => 2,
                other => panic!("cell {other:?} in {position:?}"),
            }
    });
    let mover = match mover {
        "L" => 0,
        "R" => 1,
        other => panic!("mover {other:?} in {position:?}"),
    };
    mover + 2 * config
}

#[test]
fn hex_peer_agrees_with_retrodb_on_every_position() {
    let Some(cc) = c_compiler() else {
        eprintln!("skipped: no C compiler (cc or gcc) to build benches/peers/hex_peer.c");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let plain = compile(cc, dir.path(), "hex_peer.c", "hex_peer", &[]);
    let rem = compile(
        cc,
        dir.path(),
        "hex_peer.c",
        "hex_peer_rem",
        &["-DREMOTENESS"],
    );
    let mut compared = 0;
    for n in [2u32, 3] {
        let size = 2 * 3usize.pow(n * n);
        let spec = format!("hex:{n}");
        let out = dir.path().join(format!("hex{n}.peer"));
        let out_rem = dir.path().join(format!("hex{n}-rem.peer"));
        let line = run(&plain, &[&n.to_string(), path_str(&out)]);
        let lines = run(&rem, &[&n.to_string(), path_str(&out_rem)]);
        let cells = std::fs::read(&out).unwrap();
        let rem_bytes = std::fs::read(format!("{}.rem", out_rem.display())).unwrap();
        assert_eq!(cells.len(), size.div_ceil(4));
        assert_eq!(rem_bytes.len(), size);
        assert_eq!(
            std::fs::read(&out_rem).unwrap(),
            cells,
            "{spec}: the two builds of the peer disagree"
        );
        assert!(
            line.starts_with(&format!("{spec} positions {size} ")),
            "{line}"
        );
        let (first, second) = lines.split_once('\n').expect("two lines with -DREMOTENESS");
        assert_eq!(field(first, "win"), field(&line, "win"));
        assert_eq!(field(first, "loss"), field(&line, "loss"));

        // retrodb with remoteness (the engine's remoteness kernel) and without (its
        // values-only kernel): every position against the peer's.
        let t = dir.path().join(format!("hex{n}.rdb"));
        let report = build_json(&["build", &spec, "--remoteness", "--json", "-o", path_str(&t)]);
        let [unused, win, loss, draw] = counts(&report);
        assert_eq!((unused, draw), (0, 0));
        assert_eq!((field(&line, "win"), field(&line, "loss")), (win, loss));
        assert_eq!(report["positions"].as_u64(), Some(size as u64));
        let mut seen = vec![false; size];
        let mut top = 0;
        for row in ok(&["dump", path_str(&t)]).lines() {
            let mut w = row.split('\t');
            let (position, value, remoteness) = (w.next().unwrap(), w.next().unwrap(), w.next());
            let i = cell_index(position);
            assert!(!seen[i], "{spec}: {position} dumped twice");
            seen[i] = true;
            assert_eq!(
                code(&cells, i),
                value_code(value),
                "{spec} {position}: value"
            );
            let r: u8 = remoteness.expect("a remoteness").parse().unwrap();
            assert_eq!(rem_bytes[i], r, "{spec} {position}: remoteness");
            top = top.max(r);
            compared += 1;
        }
        assert!(seen.iter().all(|&s| s), "{spec}: dump misses positions");
        let rounds = u64::from(top) + 1;
        assert_eq!(second.trim(), format!("rounds {rounds}"));
        assert_eq!(report["rounds"].as_u64(), Some(rounds));

        let t = dir.path().join(format!("hex{n}-values.rdb"));
        ok(&["build", &spec, "-o", path_str(&t)]);
        let mut rows = 0;
        for row in ok(&["dump", path_str(&t)]).lines() {
            let (position, value) = row.split_once('\t').unwrap();
            assert_eq!(code(&cells, cell_index(position)), value_code(value));
            rows += 1;
        }
        assert_eq!(rows, size);
    }
    assert_eq!(compared, 162 + 39_366);
}

/// The edges of a graph file (`#` comments and blank lines skipped).
fn edges_of(path: &Path) -> Vec<(u64, u64)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| l.split('#').next().unwrap().trim())
        .filter(|l| !l.is_empty())
        .map(|l| {
            let mut w = l.split_whitespace().map(|x| x.parse::<u64>().unwrap());
            (w.next().unwrap(), w.next().unwrap())
        })
        .collect()
}

/// Solves `graph` with the peer and with retrodb and compares every vertex; returns the peer's
/// win, loss and draw counts. The peer counts an id no edge touches as a lost vertex, retrodb
/// leaves it out of its positions (`counts[0]`, unused): checked here too.
fn digraph_agrees(peer: &Path, dir: &Path, graph: &Path) -> [u64; 3] {
    let name = graph.file_name().unwrap().to_string_lossy().into_owned();
    let out = dir.join(format!("{name}.peer"));
    let line = run(peer, &[path_str(graph), path_str(&out)]);
    let cells = std::fs::read(&out).unwrap();
    let edges = edges_of(graph);
    let touched: HashSet<u64> = edges.iter().flat_map(|&(u, v)| [u, v]).collect();
    let n = touched.iter().max().unwrap() + 1;
    assert_eq!(field(&line, "vertices"), n, "{line}");
    assert_eq!(field(&line, "edges"), edges.len() as u64, "{line}");
    assert_eq!(cells.len() as u64, n.div_ceil(4));

    let t = dir.join(format!("{name}.rdb"));
    let spec = format!("digraph:{}", path_str(graph));
    let report = build_json(&["build", &spec, "--json", "-o", path_str(&t)]);
    let [unused, win, loss, draw] = counts(&report);
    let peer = [
        field(&line, "win"),
        field(&line, "loss"),
        field(&line, "draw"),
    ];
    assert_eq!(peer, [win, loss + unused, draw], "{name}: {line}");
    assert_eq!(report["positions"].as_u64(), Some(n));

    let mut dumped = HashSet::new();
    for row in ok(&["dump", path_str(&t)]).lines() {
        let (vertex, value) = row.split_once('\t').unwrap();
        let v: u64 = vertex.parse().unwrap();
        assert_eq!(
            code(&cells, v as usize),
            value_code(value),
            "{name}: vertex {v}"
        );
        dumped.insert(v);
    }
    assert_eq!(
        dumped, touched,
        "{name}: retrodb's positions are the ids the edges use"
    );
    for v in (0..n).filter(|v| !touched.contains(v)) {
        assert_eq!(
            code(&cells, v as usize),
            2,
            "{name}: untouched {v} is lost for the peer"
        );
    }
    assert_eq!(dumped.len() as u64, n - unused);
    peer
}

#[test]
fn digraph_queue_agrees_with_retrodb_on_every_vertex() {
    let Some(cc) = c_compiler() else {
        eprintln!("skipped: no C compiler (cc or gcc) to build benches/peers/digraph_queue.c");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let peer = compile(cc, dir.path(), "digraph_queue.c", "digraph_queue", &[]);

    // The seed's graph: 4 wins, 4 losses, 4 draws (docs/NOTATION.md).
    let seed = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/seed001.txt");
    assert_eq!(digraph_agrees(&peer, dir.path(), &seed), [4, 4, 4]);

    // The generator: M edges over N ids, none out of a sink (id % 100 < SINKPCT), the same file
    // for the same arguments. The first graph has many draws; the second more ids than its
    // edges touch, which the peer counts as lost.
    for (n, m, seed, pct) in [(2000u64, 8000usize, 11u64, 5u64), (3000, 1500, 3, 40)] {
        let graph = dir.path().join(format!("gen-{n}-{m}-{seed}-{pct}.txt"));
        let again = dir.path().join("again.txt");
        for out in [&graph, &again] {
            let (n, m, seed, pct) = (
                n.to_string(),
                m.to_string(),
                seed.to_string(),
                pct.to_string(),
            );
            run(&peer, &["--gen", &n, &m, &seed, path_str(out), &pct]);
        }
        assert_eq!(
            std::fs::read(&graph).unwrap(),
            std::fs::read(&again).unwrap(),
            "the generator is deterministic"
        );
        let edges = edges_of(&graph);
        assert_eq!(edges.len(), m);
        assert!(edges.iter().all(|&(u, v)| u < n && v < n && u % 100 >= pct));
        let [win, loss, draw] = digraph_agrees(&peer, dir.path(), &graph);
        assert!(win > 0 && loss > 0, "{graph:?}: {win} {loss} {draw}");
        if pct == 5 {
            assert!(draw > 100, "{graph:?}: {draw} draws");
        }
    }
}
