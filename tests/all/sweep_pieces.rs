//! The vertex census in pieces, run as a user runs it: pieces merged give the whole run's counts
//! (seven vertices from retrodb's own generator, eight from nauty's geng), the merge refuses a
//! missing, repeated or damaged piece naming it, and `scripts/census.sh` skips finished pieces.
//!
//! The eight-vertex test needs nauty's `geng` (Debian: `apt-get install nauty`; `.ci/run`
//! installs it). Without it that test prints that it was skipped and passes, so `cargo test`
//! works on a machine without nauty — unless `RETRODB_REQUIRE_NAUTY` is set (as `.ci/run` does),
//! when it fails instead.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use retrodb::apps::oracle::graphs::connected_graphs;
use serde_json::Value as Json;

use crate::common::{fails, path_str, retrodb, stderr, stdout};

fn json(out: &Output) -> Json {
    assert!(
        out.status.success(),
        "retrodb failed: {}\n{}",
        stdout(out),
        stderr(out)
    );
    serde_json::from_slice(&out.stdout).expect("--json prints one JSON object")
}

/// The graph6 lines of every connected graph on `n` vertices (retrodb's generator), one a line.
fn graph6_lines(n: usize) -> Vec<String> {
    connected_graphs(n)
        .unwrap()
        .iter()
        .map(|g| g.to_graph6())
        .collect()
}

/// `lines` (graph6) dealt round-robin into `of` piece inputs in `dir`: `input-RES.txt`.
fn deal(dir: &Path, lines: &[String], of: usize) -> Vec<PathBuf> {
    (0..of)
        .map(|r| {
            let path = dir.join(format!("input-{r}.txt"));
            let text: String = lines
                .iter()
                .skip(r)
                .step_by(of)
                .map(|l| format!("{l}\n"))
                .collect();
            std::fs::write(&path, text).unwrap();
            path
        })
        .collect()
}

/// Runs piece `res`/`of` on `input` (options `extra`), writing `out` and its list beside it.
fn run_piece(input: &Path, res: usize, of: usize, out: &Path, extra: &[&str]) -> Json {
    let list = out.with_extension("list");
    let piece = format!("{res}/{of}");
    let mut args = vec![
        "sweep",
        "shannon-vertex",
        "--graph6",
        path_str(input),
        "--piece",
        &piece,
        "--out",
        path_str(out),
        "--list",
        path_str(&list),
        "--json",
    ];
    args.extend_from_slice(extra);
    json(&retrodb(&args))
}

/// The report's figures that pieces must reproduce (everything but the seconds and digests).
fn figures(report: &Json) -> [Json; 4] {
    [
        report["rows"].clone(),
        report["total"].clone(),
        report["crossings"].clone(),
        report["disagreeing_pairs"].clone(),
    ]
}

/// The lines of a `--list` file after its header, sorted.
fn sorted_list(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines: Vec<String> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(str::to_string)
        .collect();
    lines.sort();
    lines
}

/// xxh3-64 of a file's bytes after its first `skip` lines, as a piece file writes it.
fn xxh3_after(path: &Path, skip: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let body: String = text.split_inclusive('\n').skip(skip).collect();
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(body.as_bytes()))
}

/// Runs pieces of `inputs` into `dir`, merges them and checks the merge against `whole` (the
/// report of one run over every graph, its list at `whole_list`).
fn pieces_equal_whole(dir: &Path, inputs: &[PathBuf], extra: &[&str], whole: &Json, list: &Path) {
    let of = inputs.len();
    let pieces = dir.join("pieces");
    std::fs::create_dir_all(&pieces).unwrap();
    let mut lists = Vec::new();
    for (res, input) in inputs.iter().enumerate() {
        let out = pieces.join(format!("piece-{res}.json"));
        let report = run_piece(input, res, of, &out, extra);
        // The file records the piece's input and list: counted, and hashed as they are on disk.
        let file: Json = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
        assert_eq!(file["piece"], serde_json::json!({"res": res, "of": of}));
        assert_eq!(file["input"]["xxh3"], xxh3_after(input, 0).as_str());
        assert_eq!(file["input"], report["input"]);
        let list = out.with_extension("list");
        assert_eq!(file["list"]["xxh3"], xxh3_after(&list, 1).as_str());
        assert_eq!(file["tally"]["rows"], report["rows"]);
        lists.extend(sorted_list(&list));
    }
    let merged = json(&retrodb(&[
        "sweep",
        "shannon-vertex",
        "--merge",
        path_str(&pieces),
        "--json",
    ]));
    assert_eq!(figures(&merged), figures(whole));
    assert_eq!(merged["merge"]["pieces"].as_array().unwrap().len(), of);
    assert_eq!(merged["merge"]["missing"], serde_json::json!([]));
    lists.sort();
    assert_eq!(
        lists,
        sorted_list(list),
        "the pieces' lists are the whole list"
    );
}

#[test]
fn pieces_of_seven_vertices_merged_equal_the_whole_run() {
    let dir = tempfile::tempdir().unwrap();
    let lines = graph6_lines(7);
    let all = dir.path().join("all.txt");
    std::fs::write(&all, lines.join("\n") + "\n").unwrap();
    // Every graph compared with the minimax (the default to nine vertices), then one in four
    // (from six vertices up): the classes are the tables' either way.
    let sampled = ["--minimax-all-to", "6", "--minimax-sample", "4"];
    let mut rows = Vec::new();
    for (name, extra) in [("full", &[][..]), ("sampled", &sampled[..])] {
        let sub = dir.path().join(name);
        std::fs::create_dir(&sub).unwrap();
        let list = sub.join("whole.list");
        let mut args = vec![
            "sweep",
            "shannon-vertex",
            "--graph6",
            path_str(&all),
            "--list",
            path_str(&list),
            "--json",
        ];
        args.extend_from_slice(extra);
        let whole = json(&retrodb(&args));
        let row = &whole["rows"][0];
        // docs/SWEEP.md's row for seven vertices.
        let want = [
            853, 11_260, 8_647, 430, 2_183, 4_948, 2_202, 4_110, 5_324, 0,
        ];
        let keys = [
            "graphs",
            "terminal_pairs",
            "short",
            "cut",
            "first",
            "edge_short",
            "edge_cut",
            "edge_first",
            "classes_differ",
            "disagreements",
        ];
        for (k, w) in keys.iter().zip(want) {
            assert_eq!(row[*k], w, "{name}: {k}");
        }
        let inputs = deal(&sub, &lines, 3);
        pieces_equal_whole(&sub, &inputs, extra, &whole, &list);
        rows.push(row.clone());
    }
    // With the sample, some graphs but not all were compared with the minimax.
    let (full, sampled) = (&rows[0], &rows[1]);
    assert_eq!(full["minimax_graphs"], 853);
    assert_eq!(full["positions_checked"], 5_472_360);
    let some = sampled["minimax_graphs"].as_u64().unwrap();
    assert!(some > 100 && some < 400, "one graph in four: {some} of 853");
    let checked = sampled["positions_checked"].as_u64().unwrap();
    assert!(checked > 0 && checked < 5_472_360, "{checked}");
}

/// nauty's geng, if installed (see the module doc).
fn geng() -> Option<PathBuf> {
    let found = ["nauty-geng", "geng"].iter().find_map(|name| {
        let ok = Command::new(name)
            .args(["-cq", "3"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| PathBuf::from(name))
    });
    if found.is_none() {
        let why = "nauty's geng is not installed (apt-get install nauty)";
        assert!(
            std::env::var_os("RETRODB_REQUIRE_NAUTY").is_none(),
            "RETRODB_REQUIRE_NAUTY is set but {why}"
        );
        // Straight to stderr, past the test harness's capture, so the skip is seen.
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED pieces_of_eight_vertices_merged_equal_the_whole_run: {why}"
        );
    }
    found
}

#[test]
fn pieces_of_eight_vertices_merged_equal_the_whole_run() {
    let Some(geng) = geng() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let run_geng = |args: &[&str], out: &Path| {
        let o = Command::new(&geng).args(args).output().unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        std::fs::write(out, &o.stdout).unwrap();
    };
    let all = dir.path().join("all.txt");
    run_geng(&["-cq", "8"], &all);
    // geng's own split, as the census of ten vertices is run.
    let inputs: Vec<PathBuf> = (0..4)
        .map(|r| {
            let p = dir.path().join(format!("input-{r}.txt"));
            run_geng(&["-cq", "8", &format!("{r}/4")], &p);
            p
        })
        .collect();
    // The minimax on one graph in eight, the engines on none: the counts are the tables'.
    let extra = [
        "--minimax-all-to",
        "7",
        "--minimax-sample",
        "8",
        "--engine-sample",
        "0",
    ];
    let list = dir.path().join("whole.list");
    let mut args = vec![
        "sweep",
        "shannon-vertex",
        "--graph6",
        path_str(&all),
        "--list",
        path_str(&list),
        "--json",
    ];
    args.extend_from_slice(&extra);
    let whole = json(&retrodb(&args));
    // docs/SWEEP.md's row for eight vertices.
    let row = &whole["rows"][0];
    let want = [
        ("graphs", 11_117),
        ("terminal_pairs", 230_505),
        ("short", 189_471),
        ("cut", 5_598),
        ("first", 35_436),
        ("edge_short", 147_800),
        ("edge_cut", 25_722),
        ("edge_first", 56_983),
        ("classes_differ", 66_709),
        ("disagreements", 0),
    ];
    for (k, w) in want {
        assert_eq!(row[k], w, "{k}");
    }
    pieces_equal_whole(dir.path(), &inputs, &extra, &whole, &list);
}

/// Three piece files of the six-vertex census in `dir/pieces` (dealt by retrodb's generator).
fn six_vertex_pieces(dir: &Path) -> Vec<PathBuf> {
    let pieces = dir.join("pieces");
    std::fs::create_dir(&pieces).unwrap();
    let inputs = deal(dir, &graph6_lines(6), 3);
    inputs
        .iter()
        .enumerate()
        .map(|(res, input)| {
            let out = pieces.join(format!("piece-{res}.json"));
            run_piece(input, res, 3, &out, &[]);
            out
        })
        .collect()
}

/// `--merge PATHS`, then `extra` options.
fn merge(paths: &[&Path], extra: &[&str]) -> Output {
    let mut args = vec!["sweep", "shannon-vertex", "--merge"];
    args.extend(paths.iter().map(|p| path_str(p)));
    args.extend_from_slice(extra);
    retrodb(&args)
}

/// The merge's error: it must fail with one line naming what is wrong.
fn refused(paths: &[&Path]) -> String {
    let out = merge(paths, &[]);
    assert!(!out.status.success(), "the merge should refuse");
    assert!(stdout(&out).is_empty(), "{}", stdout(&out));
    let err = stderr(&out);
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    err
}

#[test]
fn the_merge_refuses_a_missing_repeated_or_damaged_piece() {
    let dir = tempfile::tempdir().unwrap();
    let p = six_vertex_pieces(dir.path());
    let all: Vec<&Path> = p.iter().map(PathBuf::as_path).collect();
    let whole = json(&merge(&all, &["--json"]));
    assert_eq!(whole["total"]["graphs"], 112);
    assert_eq!(whole["total"]["terminal_pairs"], 879);

    // Missing: named; a partial merge names it too, and counts the others.
    let err = refused(&[&p[0], &p[2]]);
    assert!(err.contains("1 of the 3 pieces are missing: 1/3"), "{err}");
    let out = merge(&[&p[0], &p[2]], &["--partial"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("missing: 1/3"), "{}", stdout(&out));
    assert!(stdout(&out).contains("2 of 3 pieces"), "{}", stdout(&out));

    // Repeated: the same piece in two files (a copy), both named.
    let copy = dir.path().join("copy-of-0.json");
    std::fs::copy(&p[0], &copy).unwrap();
    let err = refused(&[&p[0], &p[1], &p[2], &copy]);
    assert!(err.contains("piece 0/3 is given twice"), "{err}");
    assert!(
        err.contains(path_str(&p[0])) && err.contains(path_str(&copy)),
        "{err}"
    );

    // Damaged: a count changed (the checksum no longer matches), cut short, not JSON at all.
    let text = std::fs::read_to_string(&p[1]).unwrap();
    let changed = text.replacen("\"short\": ", "\"short\": 1", 1);
    assert_ne!(changed, text);
    let cut = &text[..text.len() / 2];
    for (what, bad) in [("changed", &changed[..]), ("cut", cut), ("text", "piece\n")] {
        let path = dir.path().join(format!("{what}.json"));
        std::fs::write(&path, bad).unwrap();
        let err = refused(&[&p[0], &path, &p[2]]);
        assert!(
            err.contains(&format!("piece file {} is damaged", path_str(&path))),
            "{err}"
        );
    }
    // A piece of another split.
    let input = dir.path().join("input-0.txt");
    let other = dir.path().join("other.json");
    run_piece(&input, 0, 4, &other, &[]);
    let err = refused(&[&p[0], &p[1], &p[2], &other]);
    assert!(
        err.contains("is piece 0/4") && err.contains("is one of 3"),
        "{err}"
    );
    // Pieces run with other options.
    let sampled = dir.path().join("sampled.json");
    run_piece(&input, 0, 3, &sampled, &["--engine-sample", "2"]);
    let err = refused(&[&sampled, &p[1], &p[2]]);
    assert!(err.contains("--engine-sample 2"), "{err}");
    // A piece of another vertex count.
    let five = dir.path().join("five.txt");
    std::fs::write(&five, graph6_lines(5).join("\n") + "\n").unwrap();
    let other_size = dir.path().join("five.json");
    run_piece(&five, 2, 3, &other_size, &[]);
    let err = refused(&[&p[0], &p[1], &other_size]);
    assert!(
        err.contains("has graphs of 5 vertices") && err.contains("of 6"),
        "{err}"
    );
    // Nothing to merge.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    assert!(refused(&[&empty]).contains("no piece files"));
}

#[test]
fn a_piece_is_refused_before_any_work_when_its_file_exists_or_its_spec_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("graphs.txt");
    std::fs::write(&input, "Bw\nCh\n").unwrap();
    let out = dir.path().join("piece.json");
    std::fs::write(&out, "finished before\n").unwrap();
    let args = |piece: &'static str, out: &Path| -> Vec<String> {
        [
            "sweep",
            "shannon-vertex",
            "--graph6",
            path_str(&input),
            "--piece",
            piece,
            "--out",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([path_str(out).to_string()])
        .collect()
    };
    let run = |a: Vec<String>| fails(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let err = run(args("0/2", &out));
    assert!(
        err.contains("exists") && err.contains(path_str(&out)),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "finished before\n");
    let fresh = dir.path().join("fresh.json");
    for bad in ["2/2", "1", "a/3", "1/0"] {
        let err = run(args(bad, &fresh));
        assert!(err.contains("is not a piece RES/MOD"), "{bad}: {err}");
    }
    // A piece holds graphs of one vertex count.
    let err = run(args("0/2", &fresh));
    assert!(
        err.contains("one vertex count") && err.contains("[3, 4]"),
        "{err}"
    );
    assert!(!fresh.exists());
    // --out without --piece; --merge with graphs, or with a --list it would not write.
    assert!(
        fails(&[
            "sweep",
            "shannon-vertex",
            "--graph6",
            "-",
            "--out",
            "x.json"
        ])
        .contains("--piece")
    );
    assert!(
        fails(&["sweep", "shannon-vertex", "--graph6", "-", "--merge", "x"]).contains("--merge")
    );
    let err = fails(&["sweep", "shannon-vertex", "--merge", "x", "--list", "l.txt"]);
    assert!(err.contains("--list"), "{err}");
}

/// Runs scripts/census.sh N MOD DIR with this binary and a stand-in for geng that deals the
/// graph6 lines of `graphs` round-robin (`RES/MOD` as geng takes it).
fn census_script(dir: &Path, graphs: &Path, n: usize, of: usize) -> Output {
    let geng = dir.join("geng");
    std::fs::write(
        &geng,
        format!(
            "#!/usr/bin/env bash\n# geng -cq N RES/MOD, from a file\nres=\"${{3%/*}}\"; of=\"${{3#*/}}\"\n\
             awk -v r=\"$res\" -v m=\"$of\" '(NR - 1) % m == r' '{}'\n",
            path_str(graphs)
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&geng, std::fs::Permissions::from_mode(0o755)).unwrap();
    Command::new("bash")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/census.sh"))
        .args([
            n.to_string(),
            of.to_string(),
            path_str(&dir.join("pieces")).to_string(),
        ])
        .env("RETRODB", env!("CARGO_BIN_EXE_retrodb"))
        .env("GENG", &geng)
        .env_remove("CENSUS_ARGS")
        .env_remove("LIST_DIR")
        .output()
        .unwrap()
}

#[test]
fn the_census_script_skips_finished_pieces_and_refuses_a_damaged_one() {
    let dir = tempfile::tempdir().unwrap();
    let graphs = dir.path().join("graphs6.txt");
    std::fs::write(&graphs, graph6_lines(6).join("\n") + "\n").unwrap();
    let pieces = dir.path().join("pieces");
    let piece = |r: usize| pieces.join(format!("piece-{r}-of-3.json"));

    let out = census_script(dir.path(), &graphs, 6, 3);
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    let ran = |out: &Output| -> Vec<String> {
        stdout(out)
            .lines()
            .filter_map(|l| l.strip_prefix("census.sh: piece "))
            .map(|l| l.split(' ').next().unwrap().to_string())
            .collect()
    };
    assert_eq!(ran(&out), ["0/3", "1/3", "2/3"]);
    let census = || -> Json {
        serde_json::from_slice(&std::fs::read(dir.path().join("census.json")).unwrap()).unwrap()
    };
    let first = census();
    assert_eq!(first["total"]["graphs"], 112);
    assert_eq!(first["total"]["terminal_pairs"], 879);
    assert_eq!(first["total"]["disagreements"], 0);

    // Piece 1 lost (a stopped run leaves no file): the next run does it alone.
    let kept: Vec<(std::time::SystemTime, Vec<u8>)> = [0, 2]
        .iter()
        .map(|&r| {
            let p = piece(r);
            (
                std::fs::metadata(&p).unwrap().modified().unwrap(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    std::fs::remove_file(piece(1)).unwrap();
    let out = census_script(dir.path(), &graphs, 6, 3);
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    assert_eq!(ran(&out), ["1/3"]);
    assert!(
        stdout(&out).contains("2 were done before this run"),
        "{}",
        stdout(&out)
    );
    for (r, (modified, bytes)) in [0, 2].iter().zip(&kept) {
        let p = piece(*r);
        assert_eq!(
            std::fs::metadata(&p).unwrap().modified().unwrap(),
            *modified
        );
        assert_eq!(&std::fs::read(&p).unwrap(), bytes);
    }
    assert_eq!(figures(&census()), figures(&first));
    // Each run of a piece left its times: three, then one more.
    let times = std::fs::read_to_string(pieces.join("times.tsv")).unwrap();
    assert_eq!(times.lines().count(), 1 + 4, "{times}");

    // A damaged piece stops the script before any work, naming the file.
    let text = std::fs::read_to_string(piece(2)).unwrap();
    std::fs::write(piece(2), text.replacen("\"cut\": ", "\"cut\": 9", 1)).unwrap();
    std::fs::remove_file(piece(0)).unwrap();
    let out = census_script(dir.path(), &graphs, 6, 3);
    assert!(!out.status.success());
    assert!(ran(&out).is_empty(), "{}", stdout(&out));
    assert!(
        stderr(&out).contains(&format!("piece file {} is damaged", path_str(&piece(2)))),
        "{}",
        stderr(&out)
    );
    assert!(!piece(0).exists());
}
