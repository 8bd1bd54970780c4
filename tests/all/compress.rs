//! Compressed tables answer exactly as the raw tables they come from, convert back byte for
//! byte, and refuse to answer from damaged bytes.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{retrodb, retrodb_stdin};

use retrodb::Notation;
use retrodb::base::splitmix::SplitMix64;
use retrodb::table::Table;

fn ok(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Small instances of every game, as specs (graph files written into `dir`).
fn specs(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = [
        "digraph:data/seed001.txt",
        "bridgit:2",
        "hex:3",
        "shannon:data/shannon/k4.txt",
        "shannon-vertex:data/shannon/square.txt",
        "hackenbush-stalk:BRRGB",
        "hackenbush-tree:l(l;rl)",
        "hackenbush:data/hackenbush-house.txt",
    ]
    .map(String::from)
    .to_vec();
    let mut rng = SplitMix64(11);
    for k in 0..3 {
        let path = dir.join(format!("g{k}.txt"));
        let n = 300 + 200 * k;
        let text: String = (0..3 * n)
            .map(|_| {
                let u = 40 + rng.below(n - 40);
                format!("{u} {}\n", rng.below(n))
            })
            .collect();
        std::fs::write(&path, text).unwrap();
        out.push(format!("digraph:{}", path.display()));
    }
    out
}

fn build(spec: &str, out: &Path, extra: &[&str]) {
    let mut args = vec!["build", spec, "-o", out.to_str().unwrap(), "--quiet"];
    args.extend_from_slice(extra);
    ok(&retrodb(&args));
    ok(&retrodb(&["verify", out.to_str().unwrap(), "--quiet"]));
}

fn compress(raw: &Path, out: &Path, frame: u64) {
    ok(&retrodb(&[
        "compress",
        raw.to_str().unwrap(),
        out.to_str().unwrap(),
        "--frame-positions",
        &frame.to_string(),
        "--quiet",
    ]));
}

/// `compress` at level 3 in frames of `frame` positions, with `extra` options (the
/// dictionaries' tests: small and quick).
fn compress_fast(raw: &Path, out: &Path, frame: &str, extra: &[&str]) {
    let _ = std::fs::remove_file(out);
    let mut args = vec![
        "compress",
        raw.to_str().unwrap(),
        out.to_str().unwrap(),
        "--frame-positions",
        frame,
        "--level",
        "3",
        "--quiet",
    ];
    args.extend_from_slice(extra);
    ok(&retrodb(&args));
}

/// The bytes of a compressed table's `stream` decoded by stock zstd with the dictionary at
/// `dictionary` (both sections of the file's `bytes`).
fn stock_zstd(bytes: &[u8], stream: (u64, u64), dictionary: (u64, u64)) -> Vec<u8> {
    let at = |(from, to): (u64, u64)| &bytes[from as usize..to as usize];
    let mut decoder = zstd::stream::Decoder::with_dictionary(at(stream), at(dictionary)).unwrap();
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut decoder, &mut out).unwrap();
    out
}

#[test]
fn compressed_tables_answer_like_raw_ones_and_decompress_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    for spec in specs(dir.path()) {
        for remoteness in [false, true] {
            let raw = dir.path().join("raw.rdb");
            let extra: &[&str] = if remoteness { &["--remoteness"] } else { &[] };
            build(&spec, &raw, extra);
            for frame in [32, 96, 1 << 16] {
                let z = dir.path().join("z.rdb");
                compress(&raw, &z, frame);
                let (r, c) = (Table::open(&raw).unwrap(), Table::open(&z).unwrap());
                assert!(c.is_compressed());
                for pos in 0..r.header().size {
                    assert_eq!(r.value(pos).unwrap(), c.value(pos).unwrap(), "{spec} {pos}");
                    assert_eq!(
                        r.remoteness(pos).unwrap(),
                        c.remoteness(pos).unwrap(),
                        "{spec} {pos}"
                    );
                }
                let all: Vec<u64> = (0..r.header().size).rev().collect();
                let batch = c.values(&all);
                for (&pos, v) in all.iter().zip(batch) {
                    assert_eq!(v.unwrap(), r.value(pos).unwrap());
                }
                // The commands that read tables work on both kinds alike.
                let (zs, rs) = (z.to_str().unwrap(), raw.to_str().unwrap());
                assert_eq!(ok(&retrodb(&["dump", zs])), ok(&retrodb(&["dump", rs])));
                ok(&retrodb(&["verify", zs]));
                let back = dir.path().join("back.rdb");
                ok(&retrodb(&[
                    "decompress",
                    zs,
                    back.to_str().unwrap(),
                    "--quiet",
                ]));
                assert!(
                    std::fs::read(&back).unwrap() == std::fs::read(&raw).unwrap(),
                    "{spec}: decompress must give back the raw table exactly"
                );
            }
        }
    }
}

#[test]
fn build_compress_writes_the_compressed_table_directly() {
    let dir = tempfile::tempdir().unwrap();
    let z = dir.path().join("z.rdb");
    build(
        "digraph:data/seed001.txt",
        &z,
        &["--compress", "--remoteness"],
    );
    let info = ok(&retrodb(&["info", z.to_str().unwrap(), "--json"]));
    let v: serde_json::Value = serde_json::from_str(info.trim()).unwrap();
    assert_eq!(v["encoding"], "zstd");
    let o = ok(&retrodb(&["probe", z.to_str().unwrap(), "11", "--json"]));
    let p: serde_json::Value = serde_json::from_str(o.trim()).unwrap();
    assert_eq!(
        (p["value"].as_str(), p["remoteness"].as_u64()),
        (Some("win"), Some(3))
    );
    // No temporary files are left beside it.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["z.rdb"]);
}

/// The payload is a standard zstd seekable stream: the stock decoder reads the cells.
#[test]
fn stock_zstd_decodes_the_payload() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("raw.rdb");
    let z = dir.path().join("z.rdb");
    build("digraph:data/seed001.txt", &raw, &[]);
    compress(&raw, &z, 32);
    let t = Table::open(&z).unwrap();
    let s = t.header().cells;
    let bytes = std::fs::read(&z).unwrap();
    let cells = zstd::stream::decode_all(&bytes[s.offset as usize..s.end() as usize]).unwrap();
    assert_eq!(cells.len(), 3, "12 positions in 3 bytes");
    // Every position of seed 001 needs a search except the sinks 6, 7, 10 (don't care).
    let code = |i: usize| (cells[i / 4] >> ((i % 4) * 2)) & 3;
    for (i, want) in [3, 3, 3, 3, 1, 1, 0, 0, 2, 1, 0, 1].iter().enumerate() {
        if ![6, 7, 10].contains(&i) {
            assert_eq!(code(i), *want, "cell {i}");
        }
    }
}

/// A table of many frames gets a trained zstd dictionary when it pays (format version 4): the
/// file is smaller than without one, answers every position like the raw table, decompresses to
/// it byte for byte, and stock zstd decodes its cells with the dictionary's bytes; a damaged
/// dictionary is refused on open by its checksum, and `--no-dictionary` writes the version the
/// spec had before.
#[test]
fn a_trained_dictionary_shrinks_the_frames_and_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("raw.rdb");
    let (z, plain) = (dir.path().join("z.rdb"), dir.path().join("plain.rdb"));
    build("bridgit:3", &raw, &[]);
    let zs = |out: &Path, extra: &[&str]| {
        let mut args = vec!["--fill", "stored"];
        args.extend_from_slice(extra);
        compress_fast(&raw, out, "4096", &args);
    };
    zs(&z, &[]);
    zs(&plain, &["--no-dictionary"]);
    let (r, t, p) = (
        Table::open(&raw).unwrap(),
        Table::open(&z).unwrap(),
        Table::open(&plain).unwrap(),
    );
    let d = t.header().dictionary;
    assert_eq!(t.header().version, 4);
    assert!(d.len > 1024, "a dictionary of {} bytes", d.len);
    assert_eq!(d.offset, t.header().header_len);
    assert_eq!(
        (p.header().version, p.header().dictionary.len),
        (r.header().version, 0)
    );
    let (zl, pl) = (
        std::fs::metadata(&z).unwrap().len(),
        std::fs::metadata(&plain).unwrap().len(),
    );
    assert!(zl < pl, "with a dictionary {zl} bytes, without {pl}");
    let all: Vec<u64> = (0..r.header().size).collect();
    for (pos, (a, b)) in all
        .iter()
        .zip(t.values(&all).into_iter().zip(r.values(&all)))
    {
        assert_eq!(a.unwrap(), b.unwrap(), "position {pos}");
    }
    let info = ok(&retrodb(&["info", z.to_str().unwrap()]));
    assert!(info.contains("dictionary"), "{info}");
    ok(&retrodb(&["verify", z.to_str().unwrap(), "--quiet"]));
    let back = dir.path().join("back.rdb");
    ok(&retrodb(&[
        "decompress",
        z.to_str().unwrap(),
        back.to_str().unwrap(),
        "--quiet",
    ]));
    assert!(std::fs::read(&back).unwrap() == std::fs::read(&raw).unwrap());
    // Stock zstd with the dictionary's bytes decodes the cells stream: the raw cells (fill
    // `stored` keeps every value).
    let bytes = std::fs::read(&z).unwrap();
    let c = t.header().cells;
    let cells = stock_zstd(&bytes, (c.offset, c.end()), (d.offset, d.end()));
    let rc = r.header().cells;
    let raw_bytes = std::fs::read(&raw).unwrap();
    let want = &raw_bytes[rc.offset as usize..(rc.offset + r.header().size.div_ceil(4)) as usize];
    assert!(
        cells == want,
        "stock zstd's cells differ from the raw table's"
    );
    // One flipped bit in the dictionary: refused on open, naming the dictionary.
    let mut bad = bytes.clone();
    bad[(d.offset + d.len / 2) as usize] ^= 4;
    let bad_path = dir.path().join("bad.rdb");
    std::fs::write(&bad_path, &bad).unwrap();
    let o = retrodb(&["info", bad_path.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("bad.rdb") && err.contains("dictionary fails its checksum"),
        "{err}"
    );
}

/// The text of every position of table `t`.
fn all_positions(t: &Path) -> Vec<String> {
    let table = Table::open(t).unwrap();
    (0..table.header().size)
        .filter(|&p| table.value(p).unwrap().is_some())
        .map(|p| retrodb::with_game!(table.game(), g => g.position_text(p)))
        .collect()
}

/// Any single flipped byte of a compressed table is caught by `verify`, and a probe of every
/// position (through stdin) fails with a message instead of answering from it.
#[test]
fn every_flipped_byte_of_a_compressed_table_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let spec = specs(dir.path())[8].clone();
    let raw = dir.path().join("raw.rdb");
    let z = dir.path().join("z.rdb");
    build(&spec, &raw, &["--remoteness"]);
    compress(&raw, &z, 64);
    flipped_bytes_are_caught(&z, 100, 5);
}

/// The same of a table with remoteness and one mover left out: a flipped byte anywhere, its
/// remoteness stream included, fails `verify` and every probe.
#[test]
fn every_flipped_byte_of_a_one_mover_remoteness_table_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("raw.rdb");
    let z = dir.path().join("z.rdb");
    build("hex:3", &raw, &["--remoteness"]);
    let args = ["--frame-positions", "1024", "--one-mover", "--quiet"];
    let (r, o) = (raw.to_str().unwrap(), z.to_str().unwrap());
    ok(&retrodb(&[&["compress", r, o][..], &args[..]].concat()));
    flipped_bytes_are_caught(&z, 60, 7);
}

/// Flips one random bit of `z` `rounds` times: each copy fails `verify` and a probe of every
/// position, with a message naming the file, never a panic.
fn flipped_bytes_are_caught(z: &Path, rounds: usize, seed: u64) {
    let dir = z.parent().unwrap();
    let positions = all_positions(z).join("\n");
    let good = std::fs::read(z).unwrap();
    let bad: PathBuf = dir.join("bad.rdb");
    let mut rng = SplitMix64(seed);
    for _ in 0..rounds {
        let at = rng.below(good.len() as u64) as usize;
        let mut copy = good.clone();
        copy[at] ^= 1 << rng.below(8);
        std::fs::write(&bad, &copy).unwrap();
        let o = retrodb(&["verify", bad.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(!o.status.success(), "byte {at}: verify passed");
        assert!(
            !err.contains("panicked") && err.contains("bad.rdb"),
            "{err}"
        );
        let o = retrodb_stdin(&["probe", bad.to_str().unwrap(), "-"], &positions);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            !o.status.success(),
            "byte {at}: probe answered from a damaged table"
        );
        assert!(
            err.contains("damaged") && !err.contains("panicked"),
            "{err}"
        );
    }
}

/// One opened table serves many threads at once, raw or compressed, with the same answers.
#[test]
fn a_table_is_shared_between_threads() {
    fn shareable<T: Send + Sync>() {}
    shareable::<Table>();
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("raw.rdb");
    let z = dir.path().join("z.rdb");
    build("bridgit:2", &raw, &["--remoteness"]);
    compress(&raw, &z, 64);
    let r = Table::open(&raw).unwrap();
    // A small cache, so threads also evict each other's frames.
    let c = Table::open_with_cache(&z, 100).unwrap();
    let size = r.header().size;
    std::thread::scope(|s| {
        for t in 0..4u64 {
            let (r, c) = (&r, &c);
            s.spawn(move || {
                let mut rng = SplitMix64(t);
                for _ in 0..20_000 {
                    let p = rng.below(size);
                    assert_eq!(r.value(p).unwrap(), c.value(p).unwrap());
                    assert_eq!(r.remoteness(p).unwrap(), c.remoteness(p).unwrap());
                }
            });
        }
    });
}

/// `compress --one-mover` leaves out the positions with Right to move and answers them by a
/// one-move search: every position's value (and remoteness, in tables with it) equals the raw
/// table's (plain, alternation, sliced and symmetric indices, both movers), `verify` passes,
/// the file is smaller than the plain compressed one on every table large enough for frames to
/// matter, and decompression gives the raw table back.
#[test]
fn one_mover_tables_answer_every_position_like_raw_ones() {
    let dir = tempfile::tempdir().unwrap();
    let rem = &["--remoteness"][..];
    let specs = [
        ("hex:3", &[][..]),
        ("hex:3", rem),
        ("bridgit:2", &[]),
        ("bridgit:2", rem),
        ("hex:3,start=L,sym", &[]),
        ("hex:3,start=L,sym", rem),
        ("hex:4,start=L,sym", &[]),
        ("hex:3,start=R,sliced", &[]),
        ("hex:3,start=R,sliced", rem),
        ("bridgit:3,start=L,sym", &[]),
        ("bridgit:3,start=L,sym", rem),
        ("bridgit:3,start=R", &[]),
        ("bridgit:3", rem),
        ("shannon:data/shannon/k4.txt", &[]),
        ("shannon:data/shannon/k4.txt", rem),
        ("shannon-vertex:data/shannon/square.txt", &[]),
    ];
    for (spec, extra) in specs {
        let raw = dir.path().join("raw.rdb");
        build(spec, &raw, extra);
        let small = Table::open(&raw).unwrap().header().size < 100_000;
        let frames: &[&str] = if small { &["32", "65536"] } else { &["65536"] };
        for &frame in frames {
            let (z, h) = (dir.path().join("z.rdb"), dir.path().join("h.rdb"));
            let path = |p: &Path| p.to_str().unwrap().to_string();
            let args = |out: &Path| {
                vec![
                    "compress".to_string(),
                    path(&raw),
                    path(out),
                    "--frame-positions".into(),
                    frame.into(),
                    // What is checked holds at any level; the default (15, with dictionaries
                    // tried) took most of this test's 70 s.
                    "--level".into(),
                    "3".into(),
                    "--quiet".into(),
                ]
            };
            let plain = args(&z);
            ok(&retrodb(
                &plain.iter().map(String::as_str).collect::<Vec<_>>(),
            ));
            let mut half = args(&h);
            half.push("--one-mover".into());
            ok(&retrodb(
                &half.iter().map(String::as_str).collect::<Vec<_>>(),
            ));
            let (r, c) = (Table::open(&raw).unwrap(), Table::open(&h).unwrap());
            assert_eq!(c.info().encoding, "zstd-one-mover");
            for pos in 0..r.header().size {
                assert_eq!(r.value(pos).unwrap(), c.value(pos).unwrap(), "{spec} {pos}");
                assert_eq!(
                    r.remoteness(pos).unwrap(),
                    c.remoteness(pos).unwrap(),
                    "{spec} {extra:?} remoteness of {pos}"
                );
            }
            // Value and remoteness in one lookup, and whole probes (every move's value and
            // remoteness: a left-out child is searched), as the raw table answers them.
            let both = Table::open(&z).unwrap();
            let json = |p: retrodb::Result<retrodb::Probe>| {
                p.map(|p| serde_json::to_value(p).unwrap()).ok()
            };
            let stride = (r.header().size / 4000).max(1) as usize;
            for pos in (0..r.header().size).step_by(stride) {
                let want = (r.value(pos).unwrap(), r.remoteness(pos).unwrap());
                assert_eq!(c.value_and_remoteness(pos).unwrap(), want, "{spec} {pos}");
                assert_eq!(
                    both.value_and_remoteness(pos).unwrap(),
                    want,
                    "{spec} {pos}"
                );
                let probe = json(r.probe(pos));
                assert_eq!(json(c.probe(pos)), probe, "{spec} {extra:?} probe of {pos}");
                assert_eq!(
                    json(both.probe(pos)),
                    probe,
                    "{spec} {extra:?} probe of {pos}"
                );
            }
            let batch: Vec<u64> = (0..r.header().size).rev().collect();
            for (pos, v) in batch.iter().zip(c.values(&batch)) {
                assert_eq!(r.value(*pos).unwrap(), v.unwrap(), "{spec} batch {pos}");
            }
            // `verify` reads every child of every position: fine on the small tables.
            if small {
                ok(&retrodb(&["verify", &path(&h), "--quiet"]));
            }
            let size = |p: &Path| std::fs::metadata(p).unwrap().len();
            // (Tiny frames all cost zstd's minimum, whatever they hold.)
            if !small {
                assert!(size(&h) < size(&z), "{spec}: {} >= {}", size(&h), size(&z));
            }
            let back = dir.path().join("back.rdb");
            ok(&retrodb(&[
                "decompress",
                &path(&h),
                &path(&back),
                "--quiet",
            ]));
            assert_eq!(std::fs::read(&raw).unwrap(), std::fs::read(&back).unwrap());
        }
    }
}

/// `--one-mover` is refused, before anything is written, for a game whose index does not say
/// who moves.
#[test]
fn one_mover_is_refused_where_it_cannot_answer() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("raw.rdb");
    let out = dir.path().join("out.rdb");
    for spec in ["digraph:data/seed001.txt", "hackenbush-stalk:BRR"] {
        build(spec, &raw, &["--remoteness"]);
        let o = retrodb(&[
            "compress",
            raw.to_str().unwrap(),
            out.to_str().unwrap(),
            "--one-mover",
        ]);
        assert!(!o.status.success(), "{spec}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("pass the turn"), "{spec}: {err}");
        assert!(!out.exists(), "{spec}: nothing written");
    }
}

/// `decompress` restores the frames front to back, a batch at a time: for every encoding —
/// values only, remoteness in nibbles and in bytes, one mover left out with and without
/// remoteness, generalized Sprague-Grundy codes, a trained dictionary — and for frames of 32
/// positions and the default, the raw table comes back byte for byte. The sliced boards' tables
/// that leave one mover out are restored a row at a time by the row kernel, their don't-care
/// positions filled with stored values, zero or the previous position's.
#[test]
fn decompress_gives_back_every_encoding_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let rem = &["--remoteness"][..];
    let cases: [(&str, &[&str], &[&str]); 12] = [
        ("hex:3", &[], &[]),
        ("hex:3", rem, &[]),
        ("digraph:data/seed001.txt", rem, &[]),
        ("hex:3", &[], &["--one-mover"]),
        ("hex:3", rem, &["--one-mover"]),
        ("bridgit:3", rem, &["--one-mover"]),
        ("hex:3,start=L,sym", rem, &["--one-mover"]),
        (
            "bridgit:3,start=R,sym",
            rem,
            &["--one-mover", "--fill", "previous"],
        ),
        (
            "hex:3,start=L,sliced",
            rem,
            &["--one-mover", "--fill", "stored"],
        ),
        (
            "bridgit:2,start=R,sliced",
            rem,
            &["--one-mover", "--fill", "zero"],
        ),
        ("digraph:data/seed001.txt", &["--grundy"], &[]),
        ("bridgit:3", rem, &["--fill", "stored"]),
    ];
    for (spec, build_args, compress_args) in cases {
        build(spec, Path::new(&p("raw.rdb")), build_args);
        let raw = std::fs::read(p("raw.rdb")).unwrap();
        for frame in ["32", "1024", "65536"] {
            let _ = std::fs::remove_file(p("z.rdb"));
            let mut args = vec![
                "compress".to_string(),
                p("raw.rdb"),
                p("z.rdb"),
                "--frame-positions".into(),
                frame.into(),
                "--level".into(),
                "3".into(),
                "--quiet".into(),
            ];
            args.extend(compress_args.iter().map(|a| a.to_string()));
            ok(&retrodb(
                &args.iter().map(String::as_str).collect::<Vec<_>>(),
            ));
            let _ = std::fs::remove_file(p("back.rdb"));
            ok(&retrodb(&[
                "decompress",
                &p("z.rdb"),
                &p("back.rdb"),
                "--quiet",
            ]));
            assert!(
                std::fs::read(p("back.rdb")).unwrap() == raw,
                "{spec} {build_args:?} {compress_args:?} frames of {frame}: not the raw table"
            );
        }
    }
    // Remoteness in bytes and a dictionary are among the cases.
    build(
        "digraph:data/seed001.txt",
        Path::new(&p("raw.rdb")),
        &["--remoteness"],
    );
    let t = Table::open(Path::new(&p("raw.rdb"))).unwrap();
    assert!(matches!(
        t.header().remoteness_encoding,
        retrodb::table::format::RemotenessEncoding::Bytes(_)
    ));
    build("bridgit:3", Path::new(&p("raw.rdb")), &[]);
    ok(&retrodb(&[
        "compress",
        &p("raw.rdb"),
        &p("d.rdb"),
        "--frame-positions",
        "1024",
        "--level",
        "3",
        "--quiet",
    ]));
    assert!(
        Table::open(Path::new(&p("d.rdb")))
            .unwrap()
            .header()
            .dictionary
            .len
            > 0
    );
    ok(&retrodb(&[
        "decompress",
        &p("d.rdb"),
        &p("d-back.rdb"),
        "--quiet",
    ]));
    assert!(std::fs::read(p("d-back.rdb")).unwrap() == std::fs::read(p("raw.rdb")).unwrap());
}

/// A damaged frame — of the cells or of the remoteness, in a table that stores every position
/// or leaves one mover out (whose searches read other frames) — fails `decompress` and
/// `research tiers` cleanly: an error naming the file, no panic, no output left.
#[test]
fn a_damaged_frame_fails_decompress_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    // The plain index (both movers, and one: searches), and a sliced one left one mover out
    // (restored a row at a time).
    for (spec, extra) in [
        ("hex:3", &[][..]),
        ("hex:3", &["--one-mover"]),
        ("hex:3,start=L,sym", &["--one-mover"]),
    ] {
        build(spec, Path::new(&p("raw.rdb")), &["--remoteness"]);
        let mut args = vec![
            "compress",
            &p("raw.rdb"),
            &p("z.rdb"),
            "--frame-positions",
            "1024",
            "--level",
            "3",
            "--quiet",
        ]
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>();
        let z = p("z.rdb");
        args.extend(extra.iter().map(|a| a.to_string()));
        let _ = std::fs::remove_file(&z);
        ok(&retrodb(
            &args.iter().map(String::as_str).collect::<Vec<_>>(),
        ));
        let intact = std::fs::read(&z).unwrap();
        let h = Table::open(Path::new(&z)).unwrap().header().clone();
        for section in [h.cells, h.remoteness] {
            // A byte in the first frame and one in a middle frame.
            for at in [section.offset + 20, section.offset + section.len / 3] {
                let mut bad = intact.clone();
                bad[at as usize] ^= 0x24;
                std::fs::write(p("bad.rdb"), &bad).unwrap();
                let commands: [Vec<String>; 2] = [
                    vec![
                        "decompress".into(),
                        p("bad.rdb"),
                        p("out.rdb"),
                        "--quiet".into(),
                    ],
                    vec![
                        "research".into(),
                        "tiers".into(),
                        "--table".into(),
                        p("bad.rdb"),
                        "--json".into(),
                    ],
                ];
                for cmd in commands {
                    let o = retrodb(&cmd.iter().map(String::as_str).collect::<Vec<_>>());
                    let err = String::from_utf8_lossy(&o.stderr);
                    assert!(!o.status.success(), "{extra:?} {cmd:?}: byte {at} damaged");
                    assert!(err.contains("bad.rdb"), "{extra:?} {cmd:?}: {err}");
                    assert!(!err.contains("panicked"), "{extra:?} {cmd:?}: {err}");
                }
                assert!(!Path::new(&p("out.rdb")).exists(), "{extra:?}: output left");
            }
        }
    }
}

/// The remoteness stream gets a trained zstd dictionary of its own when it pays (format
/// version 7): on small boards of every index (plain, symmetric, sliced), both movers stored
/// and one, every position's value and remoteness equal the raw table's, `verify` passes, the
/// file is smaller than without dictionaries (bridgit:3; the smallest may come out a few bytes
/// over, the choice being a sample's estimate) and decompresses to the raw table byte for byte.
/// Stock zstd decodes the remoteness stream with the dictionary's bytes, and one flipped byte
/// anywhere in that dictionary is refused by its checksum (`info`, `verify`, `probe`), naming
/// the file.
#[test]
fn a_remoteness_dictionary_shrinks_the_remoteness_and_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let specs = [
        "hex:3",
        "bridgit:2",
        "bridgit:3",
        "hex:3,start=L,sym",
        "hex:3,start=R,sliced",
    ];
    let mut with_dictionary = 0;
    for spec in specs {
        build(spec, Path::new(&p("raw.rdb")), &["--remoteness"]);
        let r = Table::open(Path::new(&p("raw.rdb"))).unwrap();
        // Frames small enough that even hex:3 has the dozens a dictionary is trained on.
        let large = r.header().size > 100_000;
        let frame = if large { "4096" } else { "128" };
        for movers in [&[][..], &["--one-mover"]] {
            let raw = p("raw.rdb");
            let compress = |out: &str, extra: &[&str]| {
                let mut args = movers.to_vec();
                args.extend_from_slice(extra);
                compress_fast(Path::new(&raw), Path::new(out), frame, &args);
            };
            let (z, plain) = (p("z.rdb"), p("plain.rdb"));
            compress(&z, &[]);
            compress(&plain, &["--no-dictionary"]);
            let c = Table::open(Path::new(&z)).unwrap();
            let h = c.header();
            let d = h.remoteness_dictionary;
            // Tables of too few frames, or too few bytes, get none (bridgit:2); bridgit:3 must.
            assert!(
                d.len > 0 || spec != "bridgit:3",
                "{spec} {movers:?}: no remoteness dictionary"
            );
            if d.len > 0 {
                assert_eq!(h.version, 7, "{spec} {movers:?}");
                assert_eq!(d.offset, h.header_len + h.dictionary.len);
                with_dictionary += 1;
            } else {
                assert!(h.version < 7, "{spec} {movers:?}: version {}", h.version);
            }
            for pos in 0..r.header().size {
                assert_eq!(r.value(pos).unwrap(), c.value(pos).unwrap(), "{spec} {pos}");
                assert_eq!(
                    r.remoteness(pos).unwrap(),
                    c.remoteness(pos).unwrap(),
                    "{spec} {movers:?} remoteness of {pos}"
                );
            }
            ok(&retrodb(&["verify", &z, "--quiet"]));
            // The dictionaries are chosen by a sample's estimate; on the smallest tables the
            // file may come out a few bytes over.
            let len = |f: &str| std::fs::metadata(f).unwrap().len();
            assert!(
                !large || len(&z) < len(&plain),
                "{spec} {movers:?}: {} >= {}",
                len(&z),
                len(&plain)
            );
            let _ = std::fs::remove_file(p("back.rdb"));
            ok(&retrodb(&["decompress", &z, &p("back.rdb"), "--quiet"]));
            assert!(
                std::fs::read(p("back.rdb")).unwrap() == std::fs::read(p("raw.rdb")).unwrap(),
                "{spec} {movers:?}: decompress must give back the raw table exactly"
            );
            // Flipped bytes of the remoteness dictionary (first, middle, last): refused.
            let bytes = std::fs::read(&z).unwrap();
            let positions = all_positions(Path::new(&z)).join("\n");
            let flips = if d.len > 0 {
                vec![d.offset, d.offset + d.len / 2, d.end() - 1]
            } else {
                Vec::new()
            };
            for at in flips {
                let mut bad = bytes.clone();
                bad[at as usize] ^= 0x10;
                std::fs::write(p("bad.rdb"), &bad).unwrap();
                for cmd in ["info", "verify"] {
                    let o = retrodb(&[cmd, &p("bad.rdb")]);
                    let err = String::from_utf8_lossy(&o.stderr);
                    assert!(!o.status.success(), "{spec} {cmd}: byte {at}");
                    assert!(
                        err.contains("bad.rdb")
                            && err.contains("remoteness zstd dictionary fails its checksum"),
                        "{spec} {cmd}: {err}"
                    );
                }
                let o = retrodb_stdin(&["probe", &p("bad.rdb"), "-"], &positions);
                let err = String::from_utf8_lossy(&o.stderr);
                assert!(!o.status.success(), "{spec}: probe answered, byte {at}");
                assert!(
                    err.contains("bad.rdb") && !err.contains("panicked"),
                    "{err}"
                );
            }
        }
    }
    assert!(
        with_dictionary >= 2,
        "{with_dictionary} tables had a dictionary"
    );
    eprintln!("{with_dictionary} of 10 tables had a remoteness dictionary");
    // Stock zstd decodes the remoteness stream with the dictionary's bytes: with fill
    // `stored`, both movers, the raw table's nibbles.
    build("bridgit:3", Path::new(&p("raw.rdb")), &["--remoteness"]);
    let z = p("stored.rdb");
    compress_fast(
        Path::new(&p("raw.rdb")),
        Path::new(&z),
        "4096",
        &["--fill", "stored"],
    );
    let (r, t) = (
        Table::open(Path::new(&p("raw.rdb"))).unwrap(),
        Table::open(Path::new(&z)).unwrap(),
    );
    let (d, s) = (t.header().remoteness_dictionary, t.header().remoteness);
    assert!(d.len > 0);
    let bytes = std::fs::read(&z).unwrap();
    let nibbles = stock_zstd(&bytes, (s.offset, s.end()), (d.offset, d.end()));
    let raw_bytes = std::fs::read(p("raw.rdb")).unwrap();
    let rs = r.header().remoteness;
    let want = &raw_bytes[rs.offset as usize..(rs.offset + r.header().size.div_ceil(2)) as usize];
    assert!(
        nibbles == want,
        "stock zstd's remoteness differs from the raw table's"
    );
}
