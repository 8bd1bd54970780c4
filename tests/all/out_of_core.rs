//! The out-of-core kernel (issue 46, docs/OUT_OF_CORE.md): `--kernel sliced-frames` writes the
//! table compressed as it solves, reading one key tier's loss bits; its file is the one `build`
//! then `compress` write with the same parameters, byte for byte, it answers every position of
//! the plain board as the plain build does, and a build halted, killed or damaged between key
//! tiers resumes to the same bytes or is refused naming the file.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use retrodb::base::error::Error;
use retrodb::games::AnyGame;
use retrodb::solve::plan::Kernel;
use retrodb::table::builder::{self, BuildOptions, FRAMES_DEFAULT, TierReport};
use retrodb::table::zstd::{DontCareFill, Params};
use retrodb::table::{self, Table};
use retrodb::{Game, Notation};

use super::tiered::open;
use crate::common::{listing, ok, path_str as s};

fn frames() -> BuildOptions {
    BuildOptions {
        kernel: Some(Kernel::SlicedFrames),
        ..BuildOptions::default()
    }
}

/// `spec` built (raw, the default kernel) and compressed with `params` into `dir/want.rdb`.
fn built_then_compressed(spec: &str, dir: &Path, params: Params) -> Vec<u8> {
    let raw = dir.join("raw.rdb");
    builder::build(&open(spec), &raw, &BuildOptions::default()).unwrap();
    let want = dir.join("want.rdb");
    table::compress(
        &Table::open(&raw).unwrap(),
        &want,
        Params {
            dictionary: false,
            ..params
        },
        &retrodb::base::progress::Silent,
    )
    .unwrap();
    let bytes = std::fs::read(&want).unwrap();
    std::fs::remove_file(&raw).unwrap();
    std::fs::remove_file(&want).unwrap();
    bytes
}

/// Every work file of the build gone: only the tables named are left in `dir`.
fn only(dir: &Path, names: &[&str]) {
    let mut left = listing(dir);
    left.sort();
    let mut want: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    want.sort();
    assert_eq!(left, want);
}

/// The out-of-core build writes `build` then `compress` byte for byte: at its defaults and with
/// the parameters `--compress` gives (another frame size, level and fill, both movers stored).
#[test]
fn out_of_core_tables_are_the_compressed_builds_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let other = Params {
        frame_positions: 4096,
        level: 5,
        fill: DontCareFill::Best,
        one_mover: false,
        dictionary: true,
    };
    for (spec, params) in [
        ("bridgit:2,sym", None),
        ("hex:3,sym", None),
        ("bridgit:3,sym", None),
        ("hex:4,sym", None),
        ("bridgit:3,start=R,sliced", None),
        ("hex:4,start=L,sym", None),
        ("bridgit:3,sym", Some(other)),
        ("hex:3,sliced", Some(other)),
    ] {
        let want = built_then_compressed(spec, dir.path(), params.unwrap_or(FRAMES_DEFAULT));
        let out = dir.path().join("frames.rdb");
        let opts = BuildOptions {
            compress: params,
            ..frames()
        };
        let summary = builder::build(&open(spec), &out, &opts).unwrap();
        assert_eq!(summary.kernel, Kernel::SlicedFrames, "{spec}");
        assert!(summary.complete, "{spec}");
        assert!(
            std::fs::read(&out).unwrap() == want,
            "{spec} {params:?}: the out-of-core table differs from build then compress"
        );
        only(dir.path(), &["frames.rdb"]);
        let t = Table::open(&out).unwrap();
        t.verify_checksums().unwrap();
        assert_eq!(t.header().counts, summary.counts, "{spec}");
        std::fs::remove_file(&out).unwrap();
    }
}

/// Every configuration of the plain boards, either player to move, answers the same from the
/// out-of-core `,sym` table: every position of `bridgit:2`, `hex:3`, `bridgit:3` and `hex:4`,
/// read from the table decompressed (which answers the left-out mover by the one-move search)
/// at the position's stored image, and every 1009th of `hex:4` looked up in the compressed
/// table itself.
#[test]
fn out_of_core_tables_answer_as_the_plain_boards() {
    use rayon::prelude::*;
    let dir = tempfile::tempdir().unwrap();
    for (base, lookups) in [
        ("bridgit:2", 1),
        ("hex:3", 1),
        ("bridgit:3", 7),
        ("hex:4", 1009),
    ] {
        let full = dir.path().join("plain.rdb");
        builder::build(&open(base), &full, &BuildOptions::default()).unwrap();
        let full = Table::open(&full).unwrap();
        let AnyGame::Cell(f) = full.game() else {
            panic!("{base} is a cell game");
        };
        let spec = format!("{base},sym");
        let out = dir.path().join("frames.rdb");
        builder::build(&open(&spec), &out, &frames()).unwrap();
        let table = Table::open(&out).unwrap();
        assert!(table.is_compressed());
        let raw = dir.path().join("raw.rdb");
        table::decompress(&table, &raw, &retrodb::base::progress::Silent).unwrap();
        let raw = Table::open(&raw).unwrap();
        let AnyGame::Cell(g) = table.game() else {
            panic!("{spec} is a cell game");
        };
        let differs = (0..f.size()).into_par_iter().find_first(|&pos| {
            let (l, r) = f.masks(pos);
            let i = g.try_index(l, r, f.mover(pos)).unwrap();
            raw.value(i).unwrap() != full.value(pos).unwrap()
        });
        assert_eq!(
            differs.map(|pos| f.position_text(pos)),
            None,
            "{spec}: a configuration whose value differs"
        );
        let mut movers = std::collections::HashSet::new();
        for pos in (0..f.size()).step_by(lookups) {
            let (l, r) = f.masks(pos);
            let i = g.try_index(l, r, f.mover(pos)).unwrap();
            movers.insert(format!("{:?}", f.mover(pos)));
            assert_eq!(
                table.value(i).unwrap(),
                full.value(pos).unwrap(),
                "{spec}: {}",
                f.position_text(pos)
            );
        }
        assert_eq!(movers.len(), 2, "{spec}: both movers");
    }
}

/// A build halted after each key tier in turn (the hook that stops it as a crash would) leaves
/// its work files, and the next run resumes below that key tier and writes the same bytes.
#[test]
fn a_build_halted_after_any_key_tier_resumes_to_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    for spec in ["bridgit:3,sym", "hex:3,sym"] {
        let out = dir.path().join("t.rdb");
        let tiers = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = tiers.clone();
        let opts = BuildOptions {
            on_tier: Some(Arc::new(move |r: &TierReport| {
                seen.lock().unwrap().push(r.tier)
            })),
            ..frames()
        };
        builder::build(&open(spec), &out, &opts).unwrap();
        let want = std::fs::read(&out).unwrap();
        std::fs::remove_file(&out).unwrap();
        let tiers = tiers.lock().unwrap().clone();
        assert!(tiers.len() > 3, "{spec}: {tiers:?}");
        let mut resumed = 0;
        for &t in &tiers[..tiers.len() - 1] {
            let halt = BuildOptions {
                halt_after_tier: Some(Arc::new(move |r: &TierReport| r.tier == t)),
                ..frames()
            };
            let err = builder::build(&open(spec), &out, &halt).unwrap_err();
            assert!(matches!(err, Error::Interrupted(_)), "{spec} at {t}: {err}");
            assert!(!out.exists());
            let s = builder::build(&open(spec), &out, &frames()).unwrap();
            resumed += s.resumed_from_tier.is_some() as u32;
            assert!(
                std::fs::read(&out).unwrap() == want,
                "{spec}: halted after tier {t}, the resumed build wrote another table"
            );
            only(dir.path(), &["t.rdb"]);
            std::fs::remove_file(&out).unwrap();
        }
        assert!(resumed > 2, "{spec}: {resumed} resumed runs");
    }
}

/// SIGKILL at several moments of an out-of-core build: the next run (resuming where a
/// checkpoint was written) writes the same bytes as an uninterrupted build.
#[test]
fn a_build_killed_at_any_moment_resumes_to_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("k.rdb");
    let want_path = dir.path().join("want.rdb");
    let args = |o: &Path| {
        vec![
            "build".to_string(),
            "hex:4,sym".into(),
            "-o".into(),
            s(o).into(),
            "--kernel".into(),
            "sliced-frames".into(),
            "--quiet".into(),
        ]
    };
    let want_args = args(&want_path);
    let a: Vec<&str> = want_args.iter().map(String::as_str).collect();
    ok(&a);
    let want = std::fs::read(&want_path).unwrap();
    let kill_args = args(&out);
    let a: Vec<&str> = kill_args.iter().map(String::as_str).collect();
    let mut killed = 0;
    for ms in [30, 80, 150, 250, 400] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_retrodb"))
            .args(&a)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(ms));
        killed += child.try_wait().unwrap().is_none() as u32;
        let _ = child.kill();
        let _ = child.wait();
        ok(&a);
        assert!(
            std::fs::read(&out).unwrap() == want,
            "killed after {ms} ms, the next run wrote another table"
        );
        std::fs::remove_file(&out).unwrap();
    }
    assert!(killed > 0, "no kill landed while the build ran");
}

/// A damaged work file (a loss plane, the checkpoint's data, a compressed frame) is refused by
/// name, nothing written; `--restart` (BuildOptions::restart) starts over and writes the table.
/// A checkpoint made with other compression parameters is not resumed.
#[test]
fn damaged_out_of_core_work_files_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let spec = "bridgit:3,sym";
    let out = dir.path().join("d.rdb");
    builder::build(&open(spec), &out, &frames()).unwrap();
    let want = std::fs::read(&out).unwrap();
    std::fs::remove_file(&out).unwrap();
    let halted = || {
        let halt = BuildOptions {
            halt_after_tier: Some(Arc::new(|r: &TierReport| r.tier == 6)),
            ..frames()
        };
        builder::build(&open(spec), &out, &halt).unwrap_err();
    };
    // The data file carries its key tier's number: the one the checkpoint names is the only one.
    let file = |what: &str| {
        let name = format!(".d.rdb.partial-{what}");
        let numbered: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                let n = p.file_name().unwrap().to_string_lossy();
                n.strip_prefix(&format!("{name}."))
                    .is_some_and(|t| t.parse::<u32>().is_ok())
            })
            .collect();
        match numbered.as_slice() {
            [] => dir.path().join(&name),
            [one] => one.clone(),
            more => panic!("{what}: more than one checkpoint data file: {more:?}"),
        }
    };
    for (what, at) in [
        ("loss0", 8usize),
        ("loss1", 8),
        ("frames-data", 4),
        ("z", 200),
    ] {
        halted();
        let path = file(what);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[at] ^= 0x10;
        std::fs::write(&path, &bytes).unwrap();
        match builder::build(&open(spec), &out, &frames()) {
            Err(e) => {
                let text = e.to_string();
                assert!(
                    text.contains(&format!(".d.rdb.partial-{what}")),
                    "{what}: {text}"
                );
                assert!(!out.exists());
            }
            // A plane the resumed key tier does not read is rewritten before it is read.
            Ok(_) if what.starts_with("loss") => {
                assert!(std::fs::read(&out).unwrap() == want, "{what}");
                std::fs::remove_file(&out).unwrap();
                continue;
            }
            Ok(_) => panic!("{what}: a damaged work file was resumed"),
        }
        let restart = BuildOptions {
            restart: true,
            ..frames()
        };
        builder::build(&open(spec), &out, &restart).unwrap();
        assert!(std::fs::read(&out).unwrap() == want, "{what}: restarted");
        only(dir.path(), &["d.rdb"]);
        std::fs::remove_file(&out).unwrap();
    }
    halted();
    let other = BuildOptions {
        compress: Some(Params {
            level: 7,
            ..FRAMES_DEFAULT
        }),
        ..frames()
    };
    let err = builder::build(&open(spec), &out, &other)
        .unwrap_err()
        .to_string();
    assert!(err.contains("level 7") && err.contains("level 3"), "{err}");
}

/// `verify --against`: the positions of the Left-first table answer the same from the table of
/// every configuration; a table of another board disagrees and fails.
#[test]
fn verify_against_compares_another_table_of_the_board() {
    let dir = tempfile::tempdir().unwrap();
    let (all, left, other) = (
        dir.path().join("all.rdb"),
        dir.path().join("left.rdb"),
        dir.path().join("other.rdb"),
    );
    ok(&[
        "build",
        "bridgit:3,sym",
        "-o",
        s(&all),
        "--kernel",
        "sliced-frames",
        "--quiet",
    ]);
    ok(&["build", "bridgit:3,start=L,sym", "-o", s(&left), "--quiet"]);
    ok(&["build", "hex:3,sym", "-o", s(&other), "--quiet"]);
    let text = ok(&[
        "verify",
        s(&all),
        "--against",
        s(&left),
        "--against-sample",
        "3000",
        "--quiet",
    ]);
    assert!(
        text.contains("3,000 random positions of") && text.contains(": 0 disagreements"),
        "{text}"
    );
    let o = crate::common::retrodb(&[
        "verify",
        s(&all),
        "--against",
        s(&other),
        "--against-sample",
        "50",
        "--quiet",
    ]);
    // A table of another board is refused before any position is compared.
    assert_eq!(o.status.code(), Some(1));
    let err = crate::common::stderr(&o);
    assert!(
        err.contains("hex:3,sym") && err.contains("the same game"),
        "{err}"
    );
    assert!(!crate::common::stdout(&o).contains("disagreements"));
}
