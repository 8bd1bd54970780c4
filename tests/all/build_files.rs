//! The files a build writes: tables byte-identical to those of the version before the build
//! layer was split out (golden digests), one build at a time per output, and checkpoints whose
//! cells are checked when a build resumes from them.

use std::path::Path;
use std::sync::{Arc, Mutex, mpsc};

use crate::common::{retrodb, stderr};
use retrodb::game::Notation;
use retrodb::games::AnyGame;
use retrodb::solve::Engine;
use retrodb::table::builder::{self, BuildOptions};
use retrodb::table::{Table, TableErrorKind};
use retrodb::{Error, with_game};

fn open(spec: &str) -> AnyGame {
    AnyGame::open(spec, u64::MAX).unwrap()
}

fn xxh3_of(path: &Path) -> u64 {
    xxhash_rust::xxh3::xxh3_64(&std::fs::read(path).unwrap())
}

/// xxh3-64 of tables built by `retrodb build ARGS -o FILE --quiet` with a debug binary of commit
/// a51a499 (before the build layer, the raw reader and the checkpoint digests): the files were
/// kept and hashed (xxh3 and sha256, the latter in the comments) before this change was made.
/// The three plain boards with remoteness were recorded again when their tables took the
/// remoteness in nibbles (format version 5, docs/FORMAT.md): each new table's dump (every
/// position's value and remoteness) equals the old one's, and the old digests are kept in the
/// comments.
const GOLDEN: [(&[&str], u64); 6] = [
    // e00956360ddf11c247d943f4c85dadf8624b8dfd071aa1de9c46df65267ae6c1
    (&["hex:3"], HEX3),
    // 4084eee3e0907d97796eacf8d2214cb5225bc0a13be04e85ca7775863751ed79 (bytes: 0x9efec51377e431c3)
    (&["bridgit:2", "--remoteness"], 0x30fe06657a060bc0),
    // f4fe9e46ba4bca24548f58bee731fe68c8d85eb44ed2628cf46b48b4c72b91d6
    (
        &["digraph:data/seed001.txt", "--remoteness"],
        0x7c042405e344deef,
    ),
    // d0028700e48a7ddec205b7df251902490efea63fcb5ca7b1b836bffee4e1c9b9 (bytes: 0xbf0c679aa6b0f89c)
    (&["hex:3", "--compress", "--remoteness"], 0xc6578f9cbb19e3ff),
    // f30661f4838370cff3416ed4cfea3c914c3d6c419fd2695d80eeb9e6a09d22f2
    (
        &["digraph:data/seed001.txt", "--engine", "counter"],
        0x038705c923b1b458,
    ),
    // 5b7301da546700d3452e6d3856736c9164faec20146444d60db598cc4c6e1fc0 (bytes: 0xe9350895d6d34604)
    (
        &["hex:3", "--engine", "counter", "--remoteness"],
        0x32dc4ba82359d197,
    ),
];

/// `retrodb build hex:3` (see [`GOLDEN`]).
const HEX3: u64 = 0x40df6e7ef3afd13d;

#[test]
fn tables_are_byte_identical_to_the_recorded_ones() {
    let dir = tempfile::tempdir().unwrap();
    for (k, (args, digest)) in GOLDEN.iter().enumerate() {
        let out = dir.path().join(format!("t{k}.rdb"));
        let mut full = vec!["build"];
        full.extend_from_slice(args);
        full.extend(["-o", out.to_str().unwrap(), "--quiet"]);
        let o = retrodb(&full);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert_eq!(xxh3_of(&out), *digest, "{args:?}: {:#018x}", xxh3_of(&out));
    }
}

/// A build holds its output's lock from start to end: a second build of the same output, from
/// this process or another, is refused while the first runs, and the first still writes the
/// same table.
#[test]
fn a_second_concurrent_build_of_the_same_output_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("hex.rdb");
    let (started_tx, started_rx) = mpsc::channel::<()>();
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let go_rx = Mutex::new(go_rx);
    let started_tx = Mutex::new(Some(started_tx));
    let opts = BuildOptions {
        engine: Some(Engine::Tiered),
        // Pauses the first build after its first tier, its work files open.
        on_tier: Some(Arc::new(move |_r: &builder::TierReport| {
            if let Some(tx) = started_tx.lock().unwrap().take() {
                tx.send(()).unwrap();
                go_rx.lock().unwrap().recv().unwrap();
            }
        })),
        ..BuildOptions::default()
    };
    let first = {
        let out = out.clone();
        std::thread::spawn(move || builder::build(&open("hex:3"), &out, &opts))
    };
    started_rx.recv().unwrap();
    let err = builder::build(&open("hex:3"), &out, &BuildOptions::default()).unwrap_err();
    assert!(
        err.to_string()
            .contains("another retrodb process is writing it"),
        "{err}"
    );
    let o = retrodb(&["build", "hex:3", "-o", out.to_str().unwrap(), "--quiet"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("another retrodb process is writing it"),
        "{}",
        stderr(&o)
    );
    go_tx.send(()).unwrap();
    let s = first.join().unwrap().unwrap();
    assert!(s.complete);
    assert_eq!(xxh3_of(&out), HEX3, "the first build's table changed");
}

/// A flipped byte in the cells of a checkpoint's finished tiers is found when the build resumes:
/// the error names the work file, and no table is written.
#[test]
fn a_flipped_byte_in_a_checkpoints_cells_is_detected_on_resume() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("flip.rdb");
    let game = open("hex:3");
    let stop = BuildOptions {
        engine: Some(Engine::Tiered),
        stop_after_tiers: Some(4),
        ..BuildOptions::default()
    };
    assert!(!builder::build(&game, &out, &stop).unwrap().complete);
    let partial = dir.path().join(".flip.rdb.partial");
    let mut bytes = std::fs::read(&partial).unwrap();
    // A full board is in the top tier, finished before the checkpoint. The cells start at the
    // first page after the header.
    let pos = with_game!(&game, g => g.parse_position("LRLRLRLRL")).unwrap();
    let at = 4096 + (pos / 4) as usize;
    let shift = 2 * (pos % 4);
    assert_ne!((bytes[at] >> shift) & 3, 0, "the full board is decided");
    bytes[at] ^= 3 << shift;
    std::fs::write(&partial, &bytes).unwrap();
    let err = builder::build(&game, &out, &BuildOptions::default()).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("work file damaged") && text.contains(".flip.rdb.partial"),
        "{text}"
    );
    assert!(matches!(
        &err,
        Error::Table(e) if matches!(e.kind, TableErrorKind::WorkFile(_))
    ));
    assert!(!out.exists());
    // Undone, the same build resumes and writes the table every build writes.
    bytes[at] ^= 3 << shift;
    std::fs::write(&partial, &bytes).unwrap();
    let s = builder::build(&game, &out, &BuildOptions::default()).unwrap();
    assert!(s.complete && s.resumed_from_tier.is_some());
    assert_eq!(xxh3_of(&out), HEX3);
    Table::open(&out).unwrap().verify_checksums().unwrap();
}

/// The hook that stops a build at a chosen tier leaves a checkpoint the next run resumes from.
#[test]
fn the_halt_hook_stops_a_build_that_resumes_later() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("halt.rdb");
    let game = open("hex:3");
    let halt = BuildOptions {
        engine: Some(Engine::Tiered),
        checkpoint_every: std::time::Duration::ZERO,
        halt_after_tier: Some(Arc::new(|r: &builder::TierReport| r.tier == 5)),
        ..BuildOptions::default()
    };
    let err = builder::build(&game, &out, &halt).unwrap_err();
    assert!(matches!(err, Error::Interrupted(_)), "{err}");
    assert!(!out.exists());
    let s = builder::build(&game, &out, &BuildOptions::default()).unwrap();
    assert_eq!(s.resumed_from_tier, Some(5));
    assert_eq!(xxh3_of(&out), HEX3);
}
