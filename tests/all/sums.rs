//! Sums of tokens on a digraph (`build --grundy`, `probe 4+9+11`): the golden files of the
//! seed's graph and two hand-checked examples (the values `retrodb dump` prints, in
//! `tests/golden/*-grundy.tsv`), checked against the queue retrograde of `engine.rs` run on the
//! explicit sum game; the command line's sums on random digraphs against the same; the table's
//! section through compress, decompress, verify and damage; and the errors, each naming what is
//! wrong with a non-zero exit.

use std::path::Path;

use retrodb::Value;
use retrodb::base::grundy::{Grundy, sum};
use retrodb::base::splitmix::SplitMix64;
use serde_json::Value as Json;

use crate::common::{fails, ok, path_str, retrodb, retrodb_stdin, stderr, stdout};
use crate::engine::{V, queue_solve};

/// The golden examples: graph file, golden dump.
const GOLDEN: [(&str, &str); 3] = [
    ("data/seed001.txt", "seed001-grundy.tsv"),
    ("data/two-cycle.txt", "two-cycle-grundy.tsv"),
    ("data/cycle-exit.txt", "cycle-exit-grundy.tsv"),
];

fn golden_text(file: &str) -> String {
    let path = format!("{}/tests/golden/{file}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn edges_of(file: &str) -> Vec<(u32, u32)> {
    let path = format!("{}/{file}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|l| l.split('#').next().unwrap().trim())
        .filter(|l| !l.is_empty())
        .map(|l| {
            let mut w = l.split_whitespace().map(|x| x.parse::<u32>().unwrap());
            (w.next().unwrap(), w.next().unwrap())
        })
        .collect()
}

/// The outcome for the player to move of every tuple of `k` tokens on the graph of `edges`
/// (`n` vertices), by the queue retrograde on the explicit sum game: index `t_0 + t_1 n + ...`.
fn product_outcomes(n: usize, edges: &[(u32, u32)], k: u32) -> Vec<V> {
    let total = n.pow(k);
    let mut out = vec![Vec::new(); n];
    for &(u, v) in edges {
        out[u as usize].push(v as usize);
    }
    let mut product = Vec::new();
    for idx in 0..total {
        let mut rest = idx;
        let t: Vec<usize> = (0..k)
            .map(|_| {
                let v = rest % n;
                rest /= n;
                v
            })
            .collect();
        let mut place = 1;
        for &v in &t {
            for &w in &out[v] {
                product.push((idx as u32, (idx - v * place + w * place) as u32));
            }
            place *= n;
        }
    }
    queue_solve(total, &product)
}

fn outcome(v: V) -> Option<Value> {
    match v {
        V::Unused => None,
        V::Win(_) => Some(Value::Win),
        V::Loss(_) => Some(Value::Loss),
        V::Draw => Some(Value::Draw),
    }
}

/// `(position, value, grundy)` of each line of a golden dump.
fn golden_rows(file: &str) -> Vec<(u64, Value, Grundy)> {
    golden_text(file)
        .lines()
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            let at = format!("tests/golden/{file}: '{line}'");
            assert_eq!(f.len(), 3, "{at}");
            let value = match f[1] {
                "win" => Value::Win,
                "loss" => Value::Loss,
                "draw" => Value::Draw,
                _ => panic!("{at}: value"),
            };
            let grundy = Grundy::parse(f[2]).unwrap_or_else(|| panic!("{at}: grundy"));
            (f[0].parse().unwrap(), value, grundy)
        })
        .collect()
}

#[test]
fn tables_say_what_the_golden_files_say() {
    let dir = tempfile::tempdir().unwrap();
    for (graph, file) in GOLDEN {
        for extra in [&[][..], &["--compress"], &["--remoteness"]] {
            let out = dir.path().join("t.rdb");
            let mut args = vec![
                "build",
                &format!("digraph:{graph}"),
                "--grundy",
                "-o",
                path_str(&out),
                "-q",
            ]
            .into_iter()
            .map(str::to_string)
            .collect::<Vec<_>>();
            args.extend(extra.iter().map(|s| s.to_string()));
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            ok(&args);
            let dump = ok(&["dump", path_str(&out)]);
            // With remoteness the dump has one more column, before the value's.
            let dump: String = dump
                .lines()
                .map(|l| {
                    let mut f: Vec<&str> = l.split('\t').collect();
                    if extra == ["--remoteness"] {
                        f.remove(2);
                    }
                    f.join("\t") + "\n"
                })
                .collect();
            assert_eq!(dump, golden_text(file), "{graph} {extra:?}");
            let v = ok(&["verify", path_str(&out)]);
            assert!(v.contains("ok"), "{v}");
        }
    }
}

/// The golden values give every sum of one, two and three tokens the outcome the queue
/// retrograde finds on the sum game, and each single token its seed-figure value (the dump's
/// value column, itself checked in `golden.rs` for the seed).
#[test]
fn golden_files_agree_with_the_product_solve() {
    for (graph, file) in GOLDEN {
        let rows = golden_rows(file);
        let edges = edges_of(graph);
        let n = rows.iter().map(|r| r.0 as usize + 1).max().unwrap();
        assert_eq!(rows.len(), n, "{file}: every vertex listed");
        let grundy: Vec<Grundy> = rows.iter().map(|r| r.2.clone()).collect();
        for (k, (pos, value, g)) in rows.iter().enumerate() {
            assert_eq!(*pos as usize, k);
            assert_eq!(g.value(), *value, "{file}: vertex {pos}");
        }
        let mut seen = std::collections::HashSet::new();
        for k in 1..=3u32 {
            let truth = product_outcomes(n, &edges, k);
            for (idx, want) in truth.iter().enumerate() {
                let t: Vec<usize> = (0..k).map(|i| idx / n.pow(i) % n).collect();
                let values: Vec<Grundy> = t.iter().map(|&v| grundy[v].clone()).collect();
                let got = sum(&values).value();
                assert_eq!(Some(got), outcome(*want), "{file}: tokens {t:?} {values:?}");
                seen.insert(got);
            }
        }
        if file.starts_with("seed001") {
            assert_eq!(seen.len(), 3, "{file}: every outcome among its sums");
        }
    }
}

/// A random digraph of `n` vertices as an edge list (loops and repeated edges possible; some
/// vertices without moves).
fn random_graph(seed: u64) -> (usize, Vec<(u32, u32)>) {
    let mut rng = SplitMix64(seed);
    let n = 4 + rng.below(10) as usize;
    let sinks = rng.below(3) as usize;
    let m = n + rng.below(2 * n as u64) as usize;
    let mut edges = Vec::new();
    for _ in 0..m {
        let u = sinks + rng.below((n - sinks) as u64) as usize;
        let v = rng.below(n as u64) as usize;
        edges.push((u as u32, v as u32));
    }
    // Every vertex is used: a last edge into each.
    for v in 0..n {
        if !edges
            .iter()
            .any(|&(a, b)| a as usize == v || b as usize == v)
        {
            edges.push((((v + 1) % n).max(sinks) as u32, v as u32));
        }
    }
    (n, edges)
}

/// `probe TABLE - --sum --json` over `sums`.
fn probe_sums(table: &Path, sums: &[String]) -> Vec<Json> {
    let o = retrodb_stdin(
        &["probe", path_str(table), "-", "--sum", "--json"],
        sums.join("\n"),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// On random digraphs, raw and compressed: every sum of two tokens gets the outcome the queue
/// retrograde finds on the sum game, and its winning moves are exactly the moves to positions
/// lost for the opponent (tokens on one vertex counted once).
#[test]
fn command_line_sums_agree_with_the_product_solve() {
    let dir = tempfile::tempdir().unwrap();
    let mut outcomes = std::collections::HashSet::new();
    for seed in 0..40u64 {
        let (n, edges) = random_graph(seed);
        let file = dir.path().join("g.txt");
        let text: String = edges.iter().map(|(u, v)| format!("{u} {v}\n")).collect();
        std::fs::write(&file, text).unwrap();
        let truth = product_outcomes(n, &edges, 2);
        let pairs: Vec<(usize, usize)> = (0..n * n).map(|i| (i % n, i / n)).collect();
        let sums: Vec<String> = pairs.iter().map(|(a, b)| format!("{a}+{b}")).collect();
        let raw = dir.path().join("g.rdb");
        let packed = dir.path().join("gc.rdb");
        let spec = format!("digraph:{}", path_str(&file));
        ok(&["build", &spec, "--grundy", "-o", path_str(&raw), "-q"]);
        ok(&["compress", path_str(&raw), path_str(&packed)]);
        let answers = probe_sums(&raw, &sums);
        assert_eq!(
            probe_sums(&packed, &sums),
            answers,
            "seed {seed}: compressed"
        );
        for ((a, b), answer) in pairs.iter().zip(&answers) {
            let at = |x: usize, y: usize| x + y * n;
            let want = outcome(truth[at(*a, *b)]).unwrap();
            let what = format!("seed {seed}, {a}+{b}: {answer}");
            assert_eq!(answer["value"], want.as_str(), "{what}");
            outcomes.insert(want);
            let mut reported: Vec<(usize, usize)> = answer["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| {
                    // The sum a move leaves: the answer's, its token replaced by `to`.
                    let mut t: Vec<usize> = answer["sum"]
                        .as_str()
                        .unwrap()
                        .split('+')
                        .map(|x| x.parse().unwrap())
                        .collect();
                    let k = m["token"].as_u64().unwrap() as usize;
                    assert_eq!(t[k].to_string(), m["from"].as_str().unwrap(), "{what}");
                    t[k] = m["to"].as_str().unwrap().parse().unwrap();
                    assert!(m.get("sum").is_none(), "{what}: a move repeats the sum");
                    (t[0].min(t[1]), t[0].max(t[1]))
                })
                .collect();
            let mut winning: Vec<(usize, usize)> = Vec::new();
            for &(u, v) in &edges {
                let (u, v) = (u as usize, v as usize);
                for (moved, other) in [(a, b), (b, a)] {
                    if *moved == u && outcome(truth[at(v, *other)]) == Some(Value::Loss) {
                        winning.push((v.min(*other), v.max(*other)));
                    }
                }
            }
            for l in [&mut reported, &mut winning] {
                l.sort_unstable();
                l.dedup();
            }
            assert_eq!(reported, winning, "{what}");
        }
    }
    assert_eq!(outcomes.len(), 3, "{outcomes:?}");
}

/// The section sits beside the cells: a table with it holds the same cells as one without, is
/// written in version 6, keeps its bytes through compress and decompress, and a damaged byte of
/// it is refused by name.
#[test]
fn the_section_survives_compression_and_damage_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name);
    let spec = "digraph:data/seed001.txt";
    ok(&["build", spec, "-o", path_str(&p("plain.rdb")), "-q"]);
    ok(&["build", spec, "--grundy", "-o", path_str(&p("g.rdb")), "-q"]);
    ok(&["compress", path_str(&p("g.rdb")), path_str(&p("gc.rdb"))]);
    ok(&["decompress", path_str(&p("gc.rdb")), path_str(&p("gd.rdb"))]);
    let bytes = |name: &str| std::fs::read(p(name)).unwrap();
    assert_eq!(
        bytes("g.rdb"),
        bytes("gd.rdb"),
        "decompressed byte for byte"
    );
    let info = |name: &str| -> Json {
        serde_json::from_str(&ok(&["info", path_str(&p(name)), "--json"])).unwrap()
    };
    assert_eq!(info("g.rdb")["format_version"], 6);
    assert_eq!(info("gc.rdb")["format_version"], 6);
    assert_eq!(info("plain.rdb")["format_version"], 2);
    assert!(info("plain.rdb").get("grundy").is_none());
    assert_eq!(info("g.rdb")["grundy"]["largest_finite"], 2);
    assert_eq!(info("g.rdb")["grundy"]["reach_sets"], 3);
    // The cells: the same 8 bytes at page 1 in both raw tables.
    assert_eq!(bytes("plain.rdb")[4096..4104], bytes("g.rdb")[4096..4104]);
    for name in ["g.rdb", "gc.rdb"] {
        ok(&["verify", path_str(&p(name))]);
    }
    // The codes section of the raw table is its third page; flip a byte of it.
    let mut damaged = bytes("g.rdb");
    damaged[8192 + 9] ^= 0x01;
    std::fs::write(p("bad.rdb"), &damaged).unwrap();
    let e = fails(&["probe", path_str(&p("bad.rdb")), "2+9"]);
    assert!(e.contains("bad.rdb") && e.contains("checksum"), "{e}");
    let e = fails(&["verify", path_str(&p("bad.rdb"))]);
    assert!(e.contains("checksum"), "{e}");
    // A single probe shows the vertex's value too: refused as well.
    let o = retrodb(&["probe", path_str(&p("bad.rdb")), "8", "--json"]);
    assert!(!o.status.success());
    // In the compressed table the reach sets are the last bytes before the checksum section,
    // which holds five checksums: the cells' frame and seek table, the codes' frame and seek
    // table, the sets' one block.
    let mut damaged = bytes("gc.rdb");
    let sums_len = 5 * 8;
    let at = damaged.len() - sums_len - 3;
    damaged[at] ^= 0x40;
    std::fs::write(p("badc.rdb"), &damaged).unwrap();
    let e = fails(&["probe", path_str(&p("badc.rdb")), "2+9"]);
    assert!(e.contains("badc.rdb") && e.contains("checksum"), "{e}");
}

#[test]
fn errors_name_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name);
    let t = p("g.rdb");
    let t = path_str(&t);
    ok(&[
        "build",
        "digraph:data/seed001.txt",
        "--grundy",
        "-o",
        t,
        "-q",
    ]);
    let e = fails(&["probe", t, "4+99"]);
    assert!(
        e.contains("token 2 of the sum") && e.contains("vertex 99 is not in the graph"),
        "{e}"
    );
    let e = fails(&["probe", t, "4++9"]);
    assert!(e.contains("token 2 is empty"), "{e}");
    let e = fails(&["probe", t, "abc+1"]);
    assert!(e.contains("token 1 of the sum: 'abc'"), "{e}");
    let e = fails(&["probe", t, "--sum", "   "]);
    assert!(e.contains("an empty sum"), "{e}");
    // The good answers are printed, the bad ones named, and the exit is a failure.
    let o = retrodb(&["probe", t, "2+9", "4+99", "8"]);
    assert!(!o.status.success());
    let out = stdout(&o);
    assert!(out.starts_with("2+9\tfirst player wins"), "{out}");
    assert!(out.contains("\n8\tloses"), "{out}");
    assert!(stderr(&o).contains("4+99"), "{}", stderr(&o));

    // A digraph table without the values, and a table of a game that has none.
    let plain = p("plain.rdb");
    ok(&[
        "build",
        "digraph:data/seed001.txt",
        "-o",
        path_str(&plain),
        "-q",
    ]);
    let e = fails(&["probe", path_str(&plain), "4+9"]);
    assert!(
        e.contains("no generalized Sprague-Grundy values") && e.contains("--grundy"),
        "{e}"
    );
    let hex = p("hex.rdb");
    ok(&["build", "hex:2", "-o", path_str(&hex), "-q"]);
    let e = fails(&["probe", path_str(&hex), "--sum", "....."]);
    assert!(e.contains("impartial"), "{e}");
    // A cell game's position is never read as a sum: '+' is no part of its notation.
    let e = fails(&["probe", path_str(&hex), "..+.."]);
    assert!(!e.contains("sum"), "{e}");

    // Builds with --grundy of a game that is not impartial are refused before any work.
    let out = p("h.rdb");
    let e = fails(&["build", "hex:2", "--grundy", "-o", path_str(&out)]);
    assert!(e.contains("impartial") && e.contains("hex:2"), "{e}");
    assert!(
        !e.contains("estimated peak memory"),
        "refused before the plan: {e}"
    );
    assert!(!out.exists());
    let e = fails(&[
        "build",
        "hackenbush-stalk:BRG",
        "--grundy",
        "-o",
        path_str(&out),
    ]);
    assert!(e.contains("impartial"), "{e}");
}

/// The text answer: the outcome, the values and the sum's, and each winning move.
#[test]
fn text_answers() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("g.rdb");
    let t = path_str(&t);
    ok(&[
        "build",
        "digraph:data/seed001.txt",
        "--grundy",
        "-o",
        t,
        "-q",
    ]);
    let out = ok(&["probe", t, "2+9", "4+11", "8+6", "--sum", "4"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "2+9\tfirst player wins\tgrundy inf{2} + 2 = inf{0}",
            "  * token 1: 2 -> 9\t9+9",
            "4+11\tdraw\tgrundy inf{0} + 1 = inf{1}",
            "8+6\tsecond player wins\tgrundy 0 + 0 = 0",
            "4\tfirst player wins\tgrundy inf{0} = inf{0}",
            "  * token 1: 4 -> 6\t6",
        ]
    );
    // A single vertex without --sum is a position, with its value shown.
    let out = ok(&["probe", t, "9"]);
    assert!(out.starts_with("9\twins\tgrundy=2\n"), "{out}");
}
