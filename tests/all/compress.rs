//! Compressed tables answer exactly as the raw tables they come from, convert back byte for
//! byte, and refuse to answer from damaged bytes.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{retrodb, retrodb_stdin};

use retrodb::game::SplitMix64;
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

fn all_positions(t: &Path) -> Vec<String> {
    let table = Table::open(t).unwrap();
    (0..table.header().size)
        .filter(|&p| table.value(p).unwrap().is_some())
        .map(|p| p.to_string())
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
    let positions = all_positions(&z).join("\n");
    let good = std::fs::read(&z).unwrap();
    let bad: PathBuf = dir.path().join("bad.rdb");
    let mut rng = SplitMix64(5);
    for _ in 0..100 {
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
