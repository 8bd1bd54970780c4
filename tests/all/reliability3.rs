//! The command-line defects of the third reliability round (issue 44), one test each: outputs
//! that are not regular files, overflowing subtraction moves, numeric options out of range,
//! unbounded input lines, and messages that named the wrong command, range or cause. Each runs
//! the binary; each failed on the binary before its fix.

use std::os::unix::fs::FileTypeExt;
use std::os::unix::process::ExitStatusExt;
use std::process::Output;

use crate::common::{path_str, retrodb, stderr, stdout};

mod watched;
use watched::{fifo, peak_after, waiting};

/// Asserts a clean failure (exit 1, no panic, no signal) whose one-line message contains every
/// one of `needles`.
fn fails_with(o: &Output, needles: &[&str]) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(1), "expected exit 1: {err}");
    assert!(
        !err.contains("panicked") && o.status.signal().is_none(),
        "{err}"
    );
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "one line expected: {err}"
    );
    for n in needles {
        assert!(err.contains(n), "{err:?} lacks {n:?}");
    }
}

/// Every command that writes a file refuses an output that exists and is not a regular file
/// (a FIFO, a link to one, a directory) and leaves it as it was: `gen digraph -o` replaced a
/// FIFO with a regular file and said "wrote ..."; `show --svg`, `sweep --list`, the research
/// pictures and the benchmark's input wrote into a FIFO (or waited for a reader forever).
#[test]
fn outputs_that_are_not_regular_files_are_refused_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let target = d.join("out.fifo");
    let mut reader = fifo(&target);
    let link = d.join("link");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let sub = d.join("sub");
    std::fs::create_dir(&sub).unwrap();
    let (t, l) = (path_str(&target), path_str(&link));
    let generate = |o: &str| {
        retrodb(&[
            "gen",
            "digraph",
            "--vertices",
            "10",
            "--edges",
            "20",
            "-o",
            o,
        ])
    };
    for o in [t, l] {
        fails_with(&generate(o), &[o, "exists and is not a regular file"]);
        fails_with(
            &retrodb(&["show", "bridgit:2", ".....", "--svg", o]),
            &[o, "exists and is not a regular file"],
        );
        fails_with(
            &retrodb(&[
                "sweep",
                "shannon-vertex",
                "--max-vertices",
                "3",
                "--list",
                o,
            ]),
            &[o, "exists and is not a regular file"],
        );
    }
    fails_with(
        &generate(path_str(&sub)),
        &["sub: is a directory, not a file"],
    );
    // The research pictures: one of the files `research late` draws is a FIFO.
    let pics = d.join("pics");
    std::fs::create_dir(&pics).unwrap();
    let picture = pics.join("bridgit-2-order-stated-ranked-above-but-worse.svg");
    let mut picture_reader = fifo(&picture);
    fails_with(
        &retrodb(&[
            "research",
            "late",
            "--size",
            "2",
            "--exact-to",
            "4",
            "--svg-dir",
            path_str(&pics),
        ]),
        &[path_str(&picture), "exists and is not a regular file"],
    );
    // The benchmark suite's Shannon graph, written into its work directory.
    let work = d.join("work");
    std::fs::create_dir(&work).unwrap();
    let grid = work.join("grid3x4.txt");
    let mut grid_reader = fifo(&grid);
    fails_with(
        &retrodb(&[
            "bench",
            "--work",
            path_str(&work),
            "--only",
            "shannon18",
            "--read-buffer",
            "64K",
            "--reads",
            "1000",
        ]),
        &[path_str(&grid), "exists and is not a regular file"],
    );
    for (path, r) in [
        (&target, &mut reader),
        (&picture, &mut picture_reader),
        (&grid, &mut grid_reader),
    ] {
        let kind = std::fs::symlink_metadata(path).unwrap().file_type();
        assert!(kind.is_fifo(), "{} was replaced", path.display());
        assert_eq!(waiting(r), 0, "{} was written into", path.display());
    }
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    // Only what the test made is left: no temporary file, no lock.
    assert_eq!(
        crate::common::listing(d),
        ["link", "out.fifo", "pics", "sub", "work"]
    );
    assert_eq!(
        crate::common::listing(&pics).len(),
        1,
        "{:?}",
        crate::common::listing(&pics)
    );
    assert_eq!(crate::common::listing(&work), ["grid3x4.txt"]);
    // A regular file is still replaced whole, through a temporary name.
    let plain = d.join("plain.txt");
    std::fs::write(&plain, "old").unwrap();
    let o = generate(path_str(&plain));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        std::fs::read_to_string(&plain)
            .unwrap()
            .starts_with("# random digraph")
    );
    let o = retrodb(&[
        "show",
        "bridgit:2",
        ".....",
        "--svg",
        path_str(&plain),
        "--no-value",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read_to_string(&plain).unwrap().contains("<svg"));
    assert!(stdout(&o).contains("wrote"));
}

/// Every heap's Grundy value in a subtraction game, by the mex over the heaps a move reaches
/// (nothing of retrodb): the reference for the overflowing amounts below.
fn grundy_reference(heap: u64, takes: &[u64]) -> Vec<u64> {
    let mut g: Vec<u64> = Vec::new();
    for n in 0..=heap {
        let reached: Vec<u64> = takes
            .iter()
            .filter(|&&t| t <= n)
            .map(|&t| g[(n - t) as usize])
            .collect();
        g.push((0..).find(|v| !reached.contains(v)).unwrap());
    }
    g
}

/// Amounts near 2^64 wrapped past the heap in the parents' arithmetic: the Grundy values came
/// out wrong (`subtract:20,1,2,2^64-1`: heap 2 + heap 1 "second player wins"; `subtract:30,2,3,
/// 2^64-2` labelled positions `inf{0}` in a game without cycles). An amount above the heap is
/// kept and never played; 0 and amounts beyond 2^64 - 1 are refused naming the move and the
/// range.
#[test]
fn subtraction_amounts_near_two_to_the_64_are_never_played() {
    let dir = tempfile::tempdir().unwrap();
    for (heap, takes, spec) in [
        (20u64, vec![1u64, 2], "subtract:20,1,2,18446744073709551615"),
        (30, vec![2, 3], "subtract:30,2,3,18446744073709551614"),
        (5, vec![1, 3, 4], "subtract:5,1,3,4,9"),
    ] {
        let out = dir.path().join("g.rdb");
        let o = retrodb(&["build", spec, "--grundy", "-o", path_str(&out), "--quiet"]);
        assert!(o.status.success(), "{spec}: {}", stderr(&o));
        let dump = stdout(&retrodb(&["dump", path_str(&out)]));
        let got: Vec<String> = dump
            .lines()
            .map(|l| l.split('\t').next_back().unwrap().to_string())
            .collect();
        let want: Vec<String> = grundy_reference(heap, &takes)
            .iter()
            .map(u64::to_string)
            .collect();
        assert_eq!(got, want, "{spec}");
        let v = stdout(&retrodb(&["verify", path_str(&out)]));
        assert!(v.contains(": ok"), "{spec}: {v}");
    }
    let out = dir.path().join("s.rdb");
    let o = retrodb(&[
        "build",
        "subtract:20,1,2,18446744073709551615",
        "--grundy",
        "-o",
        path_str(&out),
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let sum = stdout(&retrodb(&["probe", path_str(&out), "--sum", "2+1"]));
    assert!(
        sum.starts_with("2+1\tfirst player wins\tgrundy 2 + 1 = 3"),
        "{sum}"
    );
    let max = u64::MAX.to_string();
    for (spec, word) in [
        ("subtract:20,1,0", "move '0'"),
        (
            "subtract:20,1,18446744073709551616",
            "move '18446744073709551616'",
        ),
        ("subtract:20,1,-3", "move '-3'"),
    ] {
        fails_with(
            &retrodb(&["build", spec, "-o", path_str(&dir.path().join("x.rdb"))]),
            &[word, &format!("expected an amount from 1 to {max}")],
        );
    }
    fails_with(
        &retrodb(&["build", "subtract:4294967296,1"]),
        &["heap '4294967296'", "N from 0 to 4294967295"],
    );
}

/// Asserts clap's refusal of an option's value: exit 2, no panic, the first line naming the
/// option, the value and the range.
fn out_of_range(o: &Output, option: &str, value: &str, range: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "expected a usage error: {err}");
    assert!(!err.contains("panicked"), "{err}");
    let first = err.lines().next().unwrap_or("");
    for want in [
        format!("'{option} "),
        format!("'{value}'"),
        format!("not in {range}"),
    ] {
        assert!(first.contains(&want), "{first:?} lacks {want:?}");
    }
}

/// `bench probe --samples 0` panicked (index out of bounds), `--samples` and `--batch
/// 18446744073709551615` overflowed the allocation, `--samples 4294967296` tried 32 GiB, and
/// `research bridgit --sample 18446744073709551615` ran for ever: every numeric option now
/// states its range and refuses a value outside it, naming the option.
#[test]
fn numeric_options_out_of_range_are_refused_naming_the_option_and_range() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("h.rdb");
    let o = retrodb(&["build", "hex:2", "-o", path_str(&table), "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = path_str(&table);
    let huge = "18446744073709551615";
    for (args, option, value, range) in [
        (
            vec!["bench", "probe", t, "--samples", "0"],
            "--samples",
            "0",
            "1..=10000000",
        ),
        (
            vec!["bench", "probe", t, "--samples", huge],
            "--samples",
            huge,
            "1..=10000000",
        ),
        (
            vec!["bench", "probe", t, "--batch", huge],
            "--batch",
            huge,
            "1..=10000000",
        ),
        (
            vec!["bench", "probe", t, "--batch", "0"],
            "--batch",
            "0",
            "1..=10000000",
        ),
        (
            vec!["bench", "--reads", "0"],
            "--reads",
            "0",
            "1..=10000000000",
        ),
        (
            vec!["bench", "--vertices", "0"],
            "--vertices",
            "0",
            "1..=4294967295",
        ),
        (
            vec![
                "gen",
                "digraph",
                "--vertices",
                "4294967296",
                "--edges",
                "1",
                "-o",
                "x",
            ],
            "--vertices",
            "4294967296",
            "1..=4294967295",
        ),
        (
            vec!["verify", t, "--sample", "0"],
            "--sample",
            "0",
            "1..=1000000000",
        ),
        (
            vec!["verify", t, "--lehman", huge],
            "--lehman",
            huge,
            "1..=1000000000",
        ),
        (
            vec!["compress", t, "c.rdb", "--level", "99"],
            "--level",
            "99",
            "1..=22",
        ),
        (
            vec!["compress", t, "c.rdb", "--frame-positions", huge],
            "--frame-positions",
            huge,
            "32..=1073741824",
        ),
        (
            vec![
                "sweep",
                "shannon",
                "--max-vertices",
                "3",
                "--random-positions",
                huge,
            ],
            "--random-positions",
            huge,
            "0..=10000000",
        ),
        (
            vec!["research", "bridgit", "--size", "2", "--sample", huge],
            "--sample",
            huge,
            "1..=1000000000",
        ),
        (
            vec![
                "research",
                "late",
                "--size",
                "2",
                "--exact-to",
                "1",
                "--sample",
                huge,
            ],
            "--sample",
            huge,
            "0..=1000000000",
        ),
        (
            vec!["research", "late", "--size", "1", "--exact-to", "1"],
            "--size",
            "1",
            "2..=4",
        ),
        // Last: the binary before the fix tried to allocate 32 GiB here.
        (
            vec!["bench", "probe", t, "--samples", "4294967296"],
            "--samples",
            "4294967296",
            "1..=10000000",
        ),
    ] {
        out_of_range(&retrodb(&args), option, value, range);
    }
    // The bounds themselves are taken.
    let o = retrodb(&[
        "bench",
        "probe",
        t,
        "--samples",
        "1",
        "--batch",
        "1",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(report["batch_size"], 1);
    fails_with(
        &retrodb(&[
            "bench",
            "--read-buffer",
            "4",
            "--only",
            "hex4",
            "--work",
            path_str(dir.path()),
        ]),
        &["--read-buffer 4 B: expected 8 B to"],
    );
}

/// The line of the test below: 64 times the 1 MiB that `probe -` and `play` take.
const LONG_LINE: usize = 64 << 20;

/// `play` and `probe --sum -` read unbounded lines (a 300 MB line cost 298 MB): a line longer
/// than 1 MiB is now read to its end without being kept, refused with its line number, and the
/// lines after it are answered; the process's peak memory stays far below the line's length.
#[test]
fn endless_input_lines_are_refused_by_line_number_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let sums = dir.path().join("s.rdb");
    let o = retrodb(&[
        "build",
        "subtract:20,1,2",
        "--grundy",
        "-o",
        path_str(&sums),
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut input = b"2+1\n".to_vec();
    input.extend(std::iter::repeat_n(b'1', LONG_LINE));
    input.push(b'\n');
    let args = ["probe", path_str(&sums), "--sum", "-"];
    let (o, peak) = peak_after(&args, input, (false, "stdin line 2", "retrodb: "), b"3+4\n");
    fails_with(
        &o,
        &[
            "stdin line 2",
            &format!("{LONG_LINE} bytes"),
            "1.00 MiB at most",
        ],
    );
    let answers = stdout(&o);
    assert!(answers.starts_with("2+1\tfirst player wins"), "{answers}");
    assert!(answers.contains("3+4\tfirst player wins"), "{answers}");
    assert!(
        peak < (LONG_LINE / 2) as u64,
        "probe's peak memory {peak} bytes"
    );

    let board = dir.path().join("b.rdb");
    let mut input = std::iter::repeat_n(b'1', LONG_LINE).collect::<Vec<u8>>();
    input.push(b'\n');
    let args = ["play", "bridgit:2", "--table", path_str(&board)];
    let watch = (true, "line 1: ", "not a legal move");
    let (o, peak) = peak_after(&args, input, watch, b"\xff\nquit\n");
    assert!(o.status.success(), "{}", stderr(&o));
    let shown = stdout(&o);
    assert!(
        shown.contains(&format!(
            "line 1: {LONG_LINE} bytes, longer than any move; ignored"
        )),
        "{shown}"
    );
    assert!(shown.contains("line 2: not UTF-8 text; ignored"), "{shown}");
    assert!(shown.contains("stopped; position"), "{shown}");
    assert!(
        peak < (LONG_LINE / 2) as u64,
        "play's peak memory {peak} bytes"
    );
}

/// The small messages of issue 44: `research late` named `research bridgit` and "not size 2"
/// for `--exact-to 100`; `research --table` and `play --table` into a missing directory made
/// it (where `build -o` refuses); `--svg-dir /dev/null` said only "File exists"; `research
/// tiers` said the acyclic subtraction game "has no tiers"; `probe 4+9 --best` and `--show`
/// on a Grundy table dropped the flag without a word.
#[test]
fn messages_name_the_command_the_range_and_the_real_cause() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let o = retrodb(&["research", "late", "--size", "2", "--exact-to", "100"]);
    fails_with(
        &o,
        &[
            "research late: --exact-to 100",
            "bridgit:2 has; give 0 to 5",
        ],
    );
    assert!(!stderr(&o).contains("research bridgit"), "{}", stderr(&o));
    let o = retrodb(&[
        "research",
        "late",
        "--size",
        "3",
        "--exact-to",
        "2",
        "--sample-to",
        "14",
    ]);
    fails_with(
        &o,
        &[
            "research late: --sample-to 14",
            "bridgit:3 has; give 0 to 13",
        ],
    );

    let missing = d.join("missing");
    let in_missing = missing.join("x.rdb");
    for args in [
        vec![
            "research",
            "bridgit",
            "--size",
            "2",
            "--table",
            path_str(&in_missing),
        ],
        vec!["play", "bridgit:2", "--table", path_str(&in_missing)],
    ] {
        fails_with(
            &retrodb(&args),
            &[
                path_str(&in_missing),
                &format!("the directory {} does not exist", path_str(&missing)),
            ],
        );
        assert!(!missing.exists(), "{args:?} made the directory");
    }

    for args in [
        vec![
            "research",
            "late",
            "--size",
            "2",
            "--exact-to",
            "4",
            "--svg-dir",
            "/dev/null",
        ],
        vec![
            "research",
            "bridgit",
            "--size",
            "2",
            "--sample",
            "50",
            "--svg-dir",
            "/dev/null",
        ],
    ] {
        fails_with(
            &retrodb(&args),
            &["/dev/null: exists and is not a directory"],
        );
    }

    let sub = d.join("sub.rdb");
    let o = retrodb(&[
        "build",
        "subtract:20,1,2",
        "--grundy",
        "-o",
        path_str(&sub),
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = retrodb(&["research", "tiers", "--table", path_str(&sub)]);
    fails_with(
        &o,
        &[
            "research tiers takes the tables of games solved tier by tier",
            "hex:",
            "hackenbush:",
            "subtract:20,1,2 is solved without tiers",
        ],
    );
    assert!(!stderr(&o).contains("has no tiers"), "{}", stderr(&o));

    let g = d.join("g.rdb");
    let o = retrodb(&[
        "build",
        "digraph:data/seed001.txt",
        "--grundy",
        "--remoteness",
        "-o",
        path_str(&g),
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    for flag in ["--best", "--show", "--line"] {
        let o = retrodb(&["probe", path_str(&g), "4+9", flag]);
        fails_with(
            &o,
            &["sum '4+9'", &format!("{flag} applies to single positions")],
        );
        assert_eq!(stdout(&o), "", "{flag}");
    }
    // A single position beside the sum is still answered with the flag.
    let o = retrodb(&["probe", path_str(&g), "4", "4+9", "--best"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).starts_with("4\twins"), "{}", stdout(&o));
    assert!(stdout(&o).contains("  best: "), "{}", stdout(&o));
}
