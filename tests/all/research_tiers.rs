//! `retrodb research tiers` against answers that use no tier walk: every index of the table
//! looked up one by one (`Table::value`, `Table::remoteness`) and put in the tier its position
//! text says (filled cells; Hackenbush: edges removed), and for `hex:3` and `bridgit:2` the
//! published positions of `tests/golden/`, which use no code of retrodb at all. The totals are
//! the header's counts, the figures do not depend on the thread count nor on the table's
//! encoding, and damaged tables and games without tiers are refused.

use std::collections::BTreeMap;
use std::path::Path;

use retrodb::table::Table;
use serde_json::Value as Json;

use crate::common::{fails, ok, path_str, retrodb};

/// One tier's counts: positions, wins, losses, draws, and wins and losses by remoteness.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Counts {
    positions: u64,
    wins: u64,
    losses: u64,
    draws: u64,
    win_remoteness: BTreeMap<u64, u64>,
    loss_remoteness: BTreeMap<u64, u64>,
}

impl Counts {
    fn count(&mut self, value: &str, remoteness: Option<u64>) {
        self.positions += 1;
        let histogram = match value {
            "win" => {
                self.wins += 1;
                &mut self.win_remoteness
            }
            "loss" => {
                self.losses += 1;
                &mut self.loss_remoteness
            }
            "draw" => {
                self.draws += 1;
                return;
            }
            v => panic!("value {v}"),
        };
        if let Some(r) = remoteness {
            *histogram.entry(r).or_default() += 1;
        }
    }
}

/// The tier of a cell game's position text: its filled cells.
fn filled_cells(text: &str) -> usize {
    let board = text.split('/').next().unwrap();
    board.chars().filter(|&c| c == 'L' || c == 'R').count()
}

/// The tier of a Hackenbush position text: the edges removed.
fn edges_removed(text: &str) -> usize {
    let board = text.split('/').next().unwrap();
    board.chars().filter(|&c| c == '.').count()
}

/// Every index of the table looked up alone, in the tier its text says.
fn direct(path: &Path, tier_of: fn(&str) -> usize) -> BTreeMap<usize, Counts> {
    let t = Table::open(path).unwrap();
    let mut tiers: BTreeMap<usize, Counts> = BTreeMap::new();
    for pos in 0..t.header().size {
        let Some(v) = t.value(pos).unwrap() else {
            continue;
        };
        let r = t.remoteness(pos).unwrap().map(u64::from);
        tiers
            .entry(tier_of(&t.position_text(pos)))
            .or_default()
            .count(v.as_str(), r);
    }
    tiers
}

/// The published positions of a golden file, each in the tier its text says.
fn golden(name: &str) -> BTreeMap<usize, Counts> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    let text = std::fs::read_to_string(path).unwrap();
    let mut tiers: BTreeMap<usize, Counts> = BTreeMap::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let r = (f[2] != "-").then(|| f[2].parse().unwrap());
        tiers.entry(filled_cells(f[0])).or_default().count(f[1], r);
    }
    tiers
}

/// A histogram of the JSON (entry `r`: the count at remoteness `r`) as its nonzero entries.
fn histogram(j: &Json) -> BTreeMap<u64, u64> {
    j.as_array()
        .unwrap()
        .iter()
        .enumerate()
        .filter(|(_, n)| n.as_u64().unwrap() > 0)
        .map(|(r, n)| (r as u64, n.as_u64().unwrap()))
        .collect()
}

fn counts_of(j: &Json) -> Counts {
    let n = |k: &str| j[k].as_u64().unwrap();
    Counts {
        positions: n("positions"),
        wins: n("wins"),
        losses: n("losses"),
        draws: n("draws"),
        win_remoteness: histogram(&j["win_remoteness"]),
        loss_remoteness: histogram(&j["loss_remoteness"]),
    }
}

/// The tiers `research tiers --json` reports with any position, and checks of the report as a
/// whole: the longest win and loss of each tier are its histograms' last entries, the tiers
/// add up to the total, and the total is what `info` says the header holds.
fn reported(path: &Path, extra: &[&str]) -> BTreeMap<usize, Counts> {
    let mut args = vec!["research", "tiers", "--table", path_str(path), "--json"];
    args.extend(extra);
    let j: Json = serde_json::from_str(&ok(&args)).unwrap();
    let mut tiers = BTreeMap::new();
    let mut sum = Counts::default();
    for (k, t) in j["tiers"].as_array().unwrap().iter().enumerate() {
        assert_eq!(t["tier"].as_u64().unwrap(), k as u64, "tiers in order");
        let c = counts_of(t);
        let last = |h: &BTreeMap<u64, u64>| h.keys().next_back().copied();
        assert_eq!(t["longest_win"].as_u64(), last(&c.win_remoteness));
        assert_eq!(t["longest_loss"].as_u64(), last(&c.loss_remoteness));
        sum.positions += c.positions;
        sum.wins += c.wins;
        sum.losses += c.losses;
        sum.draws += c.draws;
        for (r, n) in &c.win_remoteness {
            *sum.win_remoteness.entry(*r).or_default() += n;
        }
        for (r, n) in &c.loss_remoteness {
            *sum.loss_remoteness.entry(*r).or_default() += n;
        }
        if c.positions > 0 {
            tiers.insert(k, c);
        } else {
            assert_eq!(c, Counts::default(), "an empty tier counts nothing");
        }
    }
    assert_eq!(counts_of(&j["total"]), sum, "the tiers add up to the total");
    let info: Json = serde_json::from_str(&ok(&["info", path_str(path), "--json"])).unwrap();
    for (a, b) in [
        ("positions", "positions"),
        ("wins", "win"),
        ("losses", "loss"),
        ("draws", "draw"),
    ] {
        assert_eq!(j["total"][a], info[b], "{}: {a}", path.display());
    }
    assert_eq!(j["game"], info["game"]);
    assert_eq!(
        j["remoteness"].as_bool().unwrap(),
        info["remoteness_bytes"].as_f64().unwrap() > 0.0
    );
    tiers
}

fn build(dir: &Path, spec: &str, extra: &[&str]) -> std::path::PathBuf {
    let name: String = spec
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let out = dir.join(format!("{name}{}.rdb", extra.concat()));
    let mut args = vec!["build", spec, "-o", path_str(&out), "--quiet"];
    args.extend(extra);
    ok(&args);
    out
}

#[test]
fn tiers_equal_a_direct_count_and_the_published_positions() {
    let dir = tempfile::tempdir().unwrap();
    for (spec, golden_file) in [
        ("hex:3", Some("hex-3.csv")),
        ("bridgit:2", Some("bridgit-2.csv")),
        ("hex:3,start=L,sym", None),
        ("bridgit:3,start=L,sliced", None),
        ("bridgit:3,start=R,sym", None),
        ("shannon:data/shannon/k4.txt,start=L", None),
    ] {
        let t = build(dir.path(), spec, &["--remoteness"]);
        let got = reported(&t, &[]);
        assert_eq!(got, direct(&t, filled_cells), "{spec}: the direct count");
        if let Some(g) = golden_file {
            assert_eq!(got, golden(g), "{spec}: the published positions");
        }
        // A position at each remoteness of the table's longest: more than one tier counted.
        assert!(got.len() > 3, "{spec}: {} tiers", got.len());
    }
    // Hackenbush: a tier is the edges removed.
    let t = build(
        dir.path(),
        "hackenbush:data/hackenbush-house.txt",
        &["--remoteness"],
    );
    assert_eq!(reported(&t, &[]), direct(&t, edges_removed));
}

#[test]
fn a_table_without_remoteness_gives_values_by_tier() {
    let dir = tempfile::tempdir().unwrap();
    for spec in ["hex:3", "bridgit:3,start=L,sym"] {
        let t = build(dir.path(), spec, &[]);
        let got = reported(&t, &[]);
        assert_eq!(got, direct(&t, filled_cells), "{spec}");
        assert!(got.values().all(|c| c.win_remoteness.is_empty()));
        let text = ok(&["research", "tiers", "--table", path_str(&t)]);
        assert!(text.contains("the table has no remoteness"), "{text}");
        assert!(!text.contains("by remoteness"), "{text}");
    }
}

#[test]
fn tiers_do_not_depend_on_the_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let t = build(dir.path(), "hex:3,start=L,sliced", &["--remoteness"]);
    let run = |threads: &str| {
        ok(&[
            "research",
            "tiers",
            "--table",
            path_str(&t),
            "--json",
            "--threads",
            threads,
        ])
    };
    let one = run("1");
    for threads in ["2", "5"] {
        assert_eq!(run(threads), one, "{threads} threads");
    }
}

#[test]
fn the_text_has_a_row_per_tier_and_the_histograms() {
    let dir = tempfile::tempdir().unwrap();
    let t = build(dir.path(), "hex:3", &["--remoteness"]);
    let text = ok(&["research", "tiers", "--table", path_str(&t)]);
    // Tier 0 of hex:3 (the empty board, either player to move): two wins in 5 plies.
    let row0 = text
        .lines()
        .find(|l| l.trim_start().starts_with("0 "))
        .unwrap();
    let cells: Vec<&str> = row0.split_whitespace().collect();
    assert_eq!(cells, ["0", "2", "2", "0", "5", "-"], "{text}");
    assert!(text.contains("wins by remoteness"), "{text}");
    assert!(text.contains("losses by remoteness"), "{text}");
    let all = text
        .lines()
        .find(|l| l.trim_start().starts_with("all"))
        .unwrap();
    assert!(all.contains("39,366"), "{all}");
}

/// A compressed table counts as the raw one it was made from: positions the rules decide,
/// stored as "don't care" (the default fill), are taken from the walk's status; a table that
/// leaves Right's positions out is restored by rows and counted (a sliced board with
/// remoteness) or read front to back, each left-out position found by a search.
#[test]
fn compressed_tables_count_as_the_raw_ones() {
    let dir = tempfile::tempdir().unwrap();
    for (spec, extra) in [
        ("hex:3", vec!["--remoteness"]),
        ("hex:3,start=L,sym", vec!["--remoteness"]),
        ("bridgit:3,start=R,sym", vec!["--remoteness"]),
        ("hex:3,start=R,sliced", vec!["--remoteness"]),
        ("bridgit:3,start=L", vec!["--remoteness"]),
        ("hackenbush-tree:l(l;rg);e(r;b)", vec!["--remoteness"]),
        ("bridgit:3,start=L,sliced", vec![]),
    ] {
        let raw = build(dir.path(), spec, &extra);
        let expect = ok(&["research", "tiers", "--table", path_str(&raw), "--json"]);
        let mut compressions = vec![vec!["--level", "3"], vec!["--fill", "stored"]];
        // Cell games: one mover left out, with and without remoteness, in frames of 32
        // positions too (a sliced board's with remoteness restored by rows and counted, the
        // others read front to back, each left-out position searched with its frame).
        if !spec.starts_with("hackenbush") {
            compressions.push(vec!["--one-mover"]);
            compressions.push(vec!["--one-mover", "--frame-positions", "32"]);
        }
        for options in compressions {
            let z = dir.path().join("z.rdb");
            let _ = std::fs::remove_file(&z);
            let mut args = vec!["compress", path_str(&raw), path_str(&z), "--quiet"];
            args.extend(&options);
            ok(&args);
            let got = ok(&["research", "tiers", "--table", path_str(&z), "--json"]);
            assert_eq!(got, expect, "{spec} compressed with {options:?}");
        }
    }
}

#[test]
fn tables_of_games_without_tiers_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = build(dir.path(), "digraph:data/seed001.txt", &["--remoteness"]);
    let e = fails(&["research", "tiers", "--table", path_str(&d)]);
    assert!(e.contains("is solved without tiers"), "{e}");
    let e = fails(&["research", "tiers", "--table", "no-such-table.rdb"]);
    assert!(e.contains("no-such-table.rdb"), "{e}");
}

/// The walk reads every position, so every flipped bit of the cells or the remoteness of a raw
/// table is refused (a checksum), never counted (compressed tables: the fault suite).
#[test]
fn a_damaged_table_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let t = build(dir.path(), "hex:3,start=L,sym", &["--remoteness"]);
    let intact = std::fs::read(&t).unwrap();
    let table = Table::open(&t).unwrap();
    let h = table.header();
    let bad = dir.path().join("bad.rdb");
    let mut cases = 0;
    for section in [h.cells, h.remoteness] {
        for k in 0..7 {
            let at = (section.offset + section.len * k / 7) as usize;
            let mut b = intact.clone();
            b[at] ^= 1 << (k % 8);
            std::fs::write(&bad, &b).unwrap();
            let out = retrodb(&["research", "tiers", "--table", path_str(&bad), "--json"]);
            assert!(
                !out.status.success(),
                "a bit flipped at byte {at} was counted"
            );
            let e = String::from_utf8_lossy(&out.stderr);
            assert!(e.contains("checksum"), "{e}");
            cases += 1;
        }
    }
    assert_eq!(cases, 14);
}
