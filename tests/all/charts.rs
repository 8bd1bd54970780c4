//! The charts (`research tiers --svg`, `research chart`) against the JSON they are drawn from:
//! the numbers an SVG states in its `<desc>` equal the JSON's, its bars' heights are the JSON's
//! counts to the pixel, the shares of a complete report are the counts of its population, the
//! census' committed rows are `docs/SWEEP.md`'s table, and the committed pictures in `docs/` are
//! what the command draws from the committed reports today. Bad inputs are refused, naming
//! the file.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value as Json;

use crate::common::{fails, ok, path_str, retrodb};

/// The `<desc>` lines of an SVG: `LABEL: key=value ...` as (label, {key: value}).
fn desc(svg: &str) -> Vec<(String, BTreeMap<String, String>)> {
    let start = svg.find("<desc>").expect("a <desc>") + "<desc>".len();
    let end = svg.find("</desc>").expect("a </desc>");
    svg[start..end]
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (label, rest) = l.split_once(": ").expect("LABEL: ...");
            let fields = rest
                .split(' ')
                .filter_map(|kv| kv.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            (label.to_string(), fields)
        })
        .collect()
}

/// The value of attribute `name` in one SVG element's text.
fn attr(element: &str, name: &str) -> Option<String> {
    let at = element.find(&format!(" {name}=\""))? + name.len() + 3;
    let len = element[at..].find('"')?;
    Some(element[at..at + len].to_string())
}

/// The heights of the `<rect>`s filled with `fill`, in the order drawn, legend boxes left out.
fn bar_heights(svg: &str, fill: &str) -> Vec<f64> {
    svg.split("<rect")
        .skip(1)
        .map(|r| &r[..r.find("/>").unwrap()])
        .filter(|r| attr(r, "fill").as_deref() == Some(fill))
        .map(|r| {
            let w: f64 = attr(r, "width").unwrap().parse().unwrap();
            let h: f64 = attr(r, "height").unwrap().parse().unwrap();
            (w, h)
        })
        .filter(|&(w, h)| (w, h) != (10.0, 10.0))
        .map(|(_, h)| h)
        .collect()
}

/// Checks bar heights against counts: each `count * scale` to a pixel, the scale set by the
/// largest count.
fn assert_heights(heights: &[f64], counts: &[u64], what: &str) {
    assert_eq!(
        heights.len(),
        counts.len(),
        "{what}: bars {heights:?} for {counts:?}"
    );
    let (most, at) = counts
        .iter()
        .enumerate()
        .map(|(k, &c)| (c, k))
        .max()
        .unwrap();
    let scale = heights[at] / most as f64;
    for (h, &c) in heights.iter().zip(counts) {
        assert!(
            (h - c as f64 * scale).abs() <= 1.5,
            "{what}: a bar of {c} is {h} px high, not {} ({heights:?} for {counts:?})",
            c as f64 * scale
        );
    }
}

fn read_json(path: &Path) -> Json {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn u(v: &Json) -> u64 {
    v.as_u64().expect("a count")
}

#[test]
fn the_tiers_chart_holds_the_json_counts() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("hex3.rdb");
    let svg_path = dir.path().join("hex3.svg");
    ok(&[
        "build",
        "hex:3",
        "--remoteness",
        "-o",
        path_str(&table),
        "-q",
    ]);
    let json = ok(&[
        "research",
        "tiers",
        "--table",
        path_str(&table),
        "--json",
        "--svg",
        path_str(&svg_path),
        "-q",
    ]);
    let depth: Json = serde_json::from_str(&json).unwrap();
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    assert!(
        svg.contains("<title>hex:3: positions by tier"),
        "{svg:.300}"
    );
    assert!(
        !svg.contains(path_str(dir.path())),
        "the SVG names a machine path"
    );

    // The numbers stated: every tier's, then the remoteness of every tier together.
    let lines = desc(&svg);
    let tiers = depth["tiers"].as_array().unwrap();
    let mut by_remoteness: BTreeMap<usize, (u64, u64)> = BTreeMap::new();
    for (k, t) in tiers.iter().enumerate() {
        let (label, f) = &lines[k];
        assert_eq!(label, &format!("tier {}", t["tier"]));
        for key in ["positions", "wins", "losses", "draws"] {
            assert_eq!(f[key], t[key].to_string(), "tier {k} {key}");
        }
        for (r, n) in t["win_remoteness"].as_array().unwrap().iter().enumerate() {
            by_remoteness.entry(r).or_default().0 += u(n);
        }
        for (r, n) in t["loss_remoteness"].as_array().unwrap().iter().enumerate() {
            by_remoteness.entry(r).or_default().1 += u(n);
        }
    }
    let stated: Vec<(String, u64, u64)> = lines[tiers.len()..]
        .iter()
        .map(|(l, f)| {
            (
                l.clone(),
                f["wins"].parse().unwrap(),
                f["losses"].parse().unwrap(),
            )
        })
        .collect();
    let expected: Vec<(String, u64, u64)> = by_remoteness
        .iter()
        .filter(|(_, (w, l))| w + l > 0)
        .map(|(r, &(w, l))| (format!("remoteness {r}"), w, l))
        .collect();
    assert_eq!(stated, expected);
    assert_eq!(
        stated.iter().map(|s| s.1).sum::<u64>(),
        u(&depth["total"]["wins"])
    );

    // The picture: the wins' bars (tiers first, then remoteness) and the losses' are the counts.
    let wins: Vec<u64> = tiers
        .iter()
        .map(|t| u(&t["wins"]))
        .filter(|&n| n > 0)
        .collect();
    let losses: Vec<u64> = tiers
        .iter()
        .map(|t| u(&t["losses"]))
        .filter(|&n| n > 0)
        .collect();
    let win_bars = bar_heights(&svg, "#2E7D32");
    let loss_bars = bar_heights(&svg, "#C62828");
    assert_heights(&win_bars[..wins.len()], &wins, "wins by tier");
    assert_heights(&loss_bars[..losses.len()], &losses, "losses by tier");
    let r_wins: Vec<u64> = expected.iter().map(|e| e.1).filter(|&n| n > 0).collect();
    let r_losses: Vec<u64> = expected.iter().map(|e| e.2).filter(|&n| n > 0).collect();
    assert_heights(&win_bars[wins.len()..], &r_wins, "wins by remoteness");
    assert_heights(
        &loss_bars[losses.len()..],
        &r_losses,
        "losses by remoteness",
    );

    // The same chart from the JSON as from the table.
    let json_path = dir.path().join("hex3.json");
    std::fs::write(&json_path, &json).unwrap();
    let again = dir.path().join("again.svg");
    ok(&[
        "research",
        "chart",
        "--out",
        path_str(&again),
        path_str(&json_path),
    ]);
    assert_eq!(std::fs::read_to_string(&again).unwrap(), svg);
}

#[test]
fn a_values_only_table_draws_its_tiers_without_remoteness() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("b2.rdb");
    let svg_path = dir.path().join("b2.svg");
    ok(&["build", "bridgit:2", "-o", path_str(&table), "-q"]);
    let json = ok(&[
        "research",
        "tiers",
        "--table",
        path_str(&table),
        "--json",
        "--svg",
        path_str(&svg_path),
        "-q",
    ]);
    let depth: Json = serde_json::from_str(&json).unwrap();
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    let lines = desc(&svg);
    assert_eq!(lines.len(), depth["tiers"].as_array().unwrap().len());
    assert!(
        lines.iter().all(|(l, _)| l.starts_with("tier ")),
        "{lines:?}"
    );
    assert!(
        !svg.contains("remoteness"),
        "a values-only table has no remoteness panel"
    );
}

/// What a complete report's population says of a share, counted here from its fields.
fn complete_share(pop: &Json, name: &str) -> (u64, u64) {
    let o = &pop["optional"];
    let ranking = |variant: &str| {
        pop["ranking"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["variant"] == variant && r["mover"] == "left")
            .unwrap()
            .clone()
    };
    let won = u(&o["mover_executable_won"]) + u(&o["won_not_executable"]);
    match name {
        "mover_wins" => (won, u(&pop["positions"])),
        "optional.neither" => (u(&o["neither"]), u(&pop["positions"])),
        "optional.won_not_executable" => (u(&o["won_not_executable"]), won),
        "ranking.stated.left.win_below_loss" => {
            let r = ranking("stated");
            (u(&r["win_below_loss_positions"]), u(&r["positions"]))
        }
        "ranking.reversed.left.win_below_loss" => {
            let r = ranking("reversed");
            (u(&r["win_below_loss_positions"]), u(&r["positions"]))
        }
        "ranking.reversed.left.top_has_win" => {
            let r = ranking("reversed");
            (u(&r["top_has_win"]), u(&r["with_winning_option"]))
        }
        other => panic!("no share {other}"),
    }
}

const REPORTS: [&str; 5] = [
    "docs/research/bridgit-2.json",
    "docs/research/bridgit-3.json",
    "docs/research/bridgit-4-all-lehman.json",
    "docs/research/bridgit-5-all-lehman.json",
    "docs/research/bridgit-6-all-lehman.json",
];

#[test]
fn the_shares_chart_holds_the_reports_shares() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("shares.svg");
    let mut args = vec!["research", "chart", "--out", path_str(&out)];
    args.extend(REPORTS);
    ok(&args);
    let svg = std::fs::read_to_string(&out).unwrap();
    let lines = desc(&svg);
    let mut checked = 0;
    for path in REPORTS {
        let report = read_json(&Path::new(env!("CARGO_MANIFEST_DIR")).join(path));
        let size = u(&report["size"]);
        let sample = &report["sample"];
        for (label, f) in &lines {
            let Some(name) = label.strip_prefix(&format!("size {size} ")) else {
                continue;
            };
            let (count, of) = (
                f["count"].parse::<u64>().unwrap(),
                f["of"].parse::<u64>().unwrap(),
            );
            let num = |k: &str| f[k].parse::<f64>().unwrap();
            if sample.is_null() {
                let pop = report["populations"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|p| p["name"] == "all")
                    .unwrap();
                assert_eq!((count, of), complete_share(pop, name), "size {size} {name}");
                let exact = count as f64 / of as f64;
                assert_eq!(
                    (num("share"), num("low"), num("high")),
                    (exact, exact, exact)
                );
            } else {
                let p = sample["proportions"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|p| p["name"] == name)
                    .unwrap();
                assert_eq!(
                    (count, of),
                    (u(&p["count"]), u(&p["of"])),
                    "size {size} {name}"
                );
                let s = &p["share"];
                let want = (
                    s["value"].as_f64().unwrap(),
                    s["low"].as_f64().unwrap(),
                    s["high"].as_f64().unwrap(),
                );
                assert_eq!(
                    (num("share"), num("low"), num("high")),
                    want,
                    "size {size} {name}"
                );
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 5 * 6, "every default share at every size");
    // A point per share and size, each drawn as a disc and its ring.
    assert_eq!(svg.matches("<circle").count(), 2 * 5 * 6);
}

#[test]
fn the_census_chart_holds_the_sweep_rows_and_the_committed_rows_are_sweeps() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("sweep6.json");
    std::fs::write(
        &report,
        ok(&["sweep", "shannon-vertex", "--max-vertices", "6", "--json"]),
    )
    .unwrap();
    let out = dir.path().join("census.svg");
    ok(&[
        "research",
        "chart",
        "--out",
        path_str(&out),
        path_str(&report),
    ]);
    let svg = std::fs::read_to_string(&out).unwrap();
    let rows = read_json(&report)["rows"].as_array().unwrap().clone();
    let lines = desc(&svg);
    let with_pairs: Vec<&Json> = rows
        .iter()
        .filter(|r| u(&r["terminal_pairs"]) > 0)
        .collect();
    assert_eq!(lines.len(), with_pairs.len());
    let keys = [
        "short",
        "cut",
        "first",
        "edge_short",
        "edge_cut",
        "edge_first",
    ];
    for ((label, f), row) in lines.iter().zip(&with_pairs) {
        assert_eq!(label, &format!("vertices {}", row["vertices"]));
        assert_eq!(f["pairs"], row["terminal_pairs"].to_string());
        for k in keys {
            assert_eq!(f[k], row[k].to_string(), "{label} {k}");
        }
    }
    // The committed rows of 1 to 9 vertices: a fresh sweep's to 6, SWEEP.md's table for all.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    if !root.join("docs/census").exists() {
        eprintln!("SKIPPED the committed census rows: docs/census/ is not in the package");
        return;
    }
    let committed = read_json(&root.join("docs/census/sequences.json"))["rows"]
        .as_array()
        .unwrap()
        .clone();
    for (fresh, kept) in rows.iter().zip(&committed) {
        for k in ["vertices", "graphs", "terminal_pairs"].iter().chain(&keys) {
            assert_eq!(fresh[k], kept[k], "{k} of {} vertices", fresh["vertices"]);
        }
    }
    let sweep_md = std::fs::read_to_string(root.join("docs/SWEEP.md")).unwrap();
    let ten = &read_json(&root.join("docs/census/vertex10/census.json"))["rows"][0];
    let table_rows = [
        ("connected graphs (OEIS A001349)", "graphs"),
        ("terminal pairs up to automorphism", "terminal_pairs"),
        ("Short (the connector) wins even moving second", "short"),
        ("Cut wins even moving second", "cut"),
        ("the first player wins", "first"),
        (
            "edge version (Lehman): Short wins moving second",
            "edge_short",
        ),
        ("edge version: Cut wins moving second", "edge_cut"),
        ("edge version: the first player wins", "edge_first"),
    ];
    for (title, key) in table_rows {
        let line = sweep_md
            .lines()
            .find(|l| l.starts_with(&format!("| {title} |")))
            .unwrap_or_else(|| panic!("SWEEP.md's row {title}"));
        let terms: Vec<u64> = line
            .trim_end_matches('|')
            .rsplit('|')
            .next()
            .unwrap()
            .split(',')
            .map(|t| t.trim().parse().unwrap())
            .collect();
        let mut kept: Vec<u64> = committed.iter().map(|r| u(&r[key])).collect();
        kept.push(u(&ten[key]));
        assert_eq!(kept, terms, "{key}");
    }
}

/// The committed pictures are what `research chart` draws from the committed reports today.
#[test]
fn the_pictures_in_docs_are_drawn_from_the_committed_reports() {
    let dir = tempfile::tempdir().unwrap();
    let shares: Vec<&str> = REPORTS.to_vec();
    let cases: [(&str, Vec<&str>); 4] = [
        ("docs/research/shares.svg", shares),
        (
            "docs/research/bridgit-4-tiers.svg",
            vec!["docs/research/bridgit-4-tiers.json"],
        ),
        (
            "docs/research/hex-5-tiers.svg",
            vec!["docs/research/hex-5-tiers.json"],
        ),
        (
            "docs/census/classes.svg",
            vec![
                "docs/census/sequences.json",
                "docs/census/vertex10/census.json",
            ],
        ),
    ];
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (k, (picture, inputs)) in cases.into_iter().enumerate() {
        if picture.starts_with("docs/census/") && !root.join("docs/census").exists() {
            eprintln!("SKIPPED {picture}: docs/census/ is not in the package");
            continue;
        }
        let out = dir.path().join(format!("{k}.svg"));
        let mut args = vec!["research", "chart", "--out", path_str(&out)];
        args.extend(inputs);
        ok(&args);
        let drawn = std::fs::read_to_string(&out).unwrap();
        let committed = std::fs::read_to_string(root.join(picture)).unwrap();
        assert!(
            drawn == committed,
            "{picture} is not what `retrodb {}` draws today",
            args.join(" ")
        );
    }
}

#[test]
fn charts_refuse_what_they_cannot_draw_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.svg");
    let out = path_str(&out);
    // Reports of two kinds.
    let e = fails(&[
        "research",
        "chart",
        "--out",
        out,
        "docs/research/bridgit-2.json",
        "docs/research/hex-5-tiers.json",
    ]);
    assert!(
        e.contains("docs/research/bridgit-2.json and docs/research/hex-5-tiers.json")
            && e.contains("one kind"),
        "{e}"
    );
    // Two reports of one size.
    let e = fails(&[
        "research",
        "chart",
        "--out",
        out,
        "docs/research/bridgit-4-all-lehman.json",
        "docs/research/bridgit-4-all-lehman.json",
    ]);
    assert!(e.contains("two reports of size 4"), "{e}");
    // A report without the population asked.
    let e = fails(&[
        "research",
        "chart",
        "--out",
        out,
        "docs/research/bridgit-4-play-lehman.json",
    ]);
    assert!(
        e.contains("docs/research/bridgit-4-play-lehman.json") && e.contains("no population 'all'"),
        "{e}"
    );
    // A share no report has.
    let e = fails(&[
        "research",
        "chart",
        "--out",
        out,
        "--shares",
        "no.such",
        "docs/research/bridgit-2.json",
    ]);
    assert!(e.contains("no share 'no.such'"), "{e}");
    // A missing file, a file that is not JSON, JSON of another kind.
    let e = fails(&["research", "chart", "--out", out, "missing/none.json"]);
    assert!(e.contains("missing/none.json: No such file"), "{e}");
    let e = fails(&["research", "chart", "--out", out, "Cargo.toml"]);
    assert!(e.contains("Cargo.toml: not JSON"), "{e}");
    let e = fails(&[
        "research",
        "chart",
        "--out",
        out,
        "docs/census/vertex10/pieces/piece-00-of-64.json",
    ]);
    assert!(
        e.contains("piece-00-of-64.json") && e.contains("not a report"),
        "{e}"
    );
    // An output that is a directory, for a chart and for research tiers.
    let e = fails(&[
        "research",
        "chart",
        "--out",
        path_str(dir.path()),
        "docs/research/hex-5-tiers.json",
    ]);
    assert!(e.contains(path_str(dir.path())), "{e}");
    let table = dir.path().join("h.rdb");
    ok(&["build", "hex:2", "-o", path_str(&table), "-q"]);
    let o = retrodb(&[
        "research",
        "tiers",
        "--table",
        path_str(&table),
        "--svg",
        path_str(dir.path()),
        "-q",
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains(path_str(dir.path())));
    assert!(!Path::new(out).exists(), "nothing written");
}
