//! Every encoding written into memory ([`crate::table::write::Seekable`] over a
//! `Cursor<Vec<u8>>`) through the same writer as a table file: the bytes equal the file's, and
//! [`Table`] over the `Vec` answers every position as the solve decided it — raw, zstd, and
//! zstd with one mover left out.

use std::io::Cursor;

use super::*;
use crate::base::cells::{self, Cells};
use crate::base::progress::Silent;
use crate::table::builder::convert::write_compressed;
use crate::table::write::{GameFields, RawFields, Seekable, TableFile, write_raw};
use crate::table::zstd::{DontCareFill, Params};
use crate::table::{Table, compress};

/// The codes of every position of `game`, by the counter engine.
fn solved(game: &AnyGame) -> Vec<u8> {
    let size = game.size();
    let words = cells::zeroed_words(size);
    let c = Cells::new(&words, size);
    solve::erased::counter(game, &c, &solve::SolveOptions::default());
    (0..size).map(|i| c.get(i)).collect()
}

/// Checks that `t` answers every position of its game as `codes` and `reference` (remoteness).
fn answers_as_solved<B: AsRef<[u8]> + Sync>(t: &Table<B>, codes: &[u8], reference: &Table) {
    let mut cursor = t.cursor();
    for (pos, &code) in codes.iter().enumerate() {
        let pos = pos as u64;
        let want = (cells::value(code), reference.remoteness(pos).unwrap());
        assert_eq!(
            t.code(pos).unwrap(),
            code,
            "{} position {pos}",
            t.path().display()
        );
        assert_eq!(t.remoteness(pos).unwrap(), want.1, "position {pos}");
        assert_eq!(t.value_and_remoteness(pos).unwrap(), want, "position {pos}");
        assert_eq!(
            cursor.value_and_remoteness(pos).unwrap(),
            want,
            "position {pos}"
        );
    }
    assert!(
        t.value(codes.len() as u64).is_err(),
        "past the last position"
    );
    t.verify_checksums_with(&Silent).unwrap();
}

/// A table in memory from `write`, which writes into the sink it is given.
fn in_memory(write: impl FnOnce(TableFile<Seekable<Cursor<Vec<u8>>>>) -> Vec<u8>) -> Vec<u8> {
    write(TableFile::over(Seekable::new(
        "memory.rdb",
        Cursor::new(Vec::new()),
    )))
}

/// Builds `spec` (with remoteness or not) as a file, writes the same raw table and its
/// compressed forms into memory and compares each with the file the file path writes and with
/// the solve; returns the remoteness' encoding and whether one mover was left out.
fn every_encoding_in_memory(spec: &str, remoteness: bool) -> (RemotenessEncoding, bool) {
    let dir = tempfile::tempdir().unwrap();
    let game = AnyGame::open(spec, u64::MAX).unwrap();
    let codes = solved(&game);
    let out = dir.path().join("raw.rdb");
    let opts = BuildOptions {
        remoteness,
        ..BuildOptions::default()
    };
    build(&game, &out, &opts).unwrap();
    let file = Table::open(&out).unwrap();
    let h = file.header();
    let section =
        |s: crate::table::format::Section| &file.bytes()[s.offset as usize..s.end() as usize];

    // Raw: the sections as the build wrote them, assembled again in memory.
    let fields = GameFields::from_header(h, file.bytes());
    let raw = in_memory(|sink| {
        let fields = RawFields {
            game: &fields,
            size: h.size,
            counts: h.counts,
            rounds: h.rounds,
            rem: h.remoteness_encoding,
            grundy: None,
        };
        write_raw(sink, &fields, section(h.cells), section(h.remoteness))
            .unwrap()
            .into_inner()
    });
    assert!(
        raw == file.bytes(),
        "{spec}: the raw table in memory is the file"
    );
    let t = Table::from_bytes(&out, raw, 0).unwrap();
    answers_as_solved(&t, &codes, &file);

    // Compressed, several frames, with one mover left out where the game allows it.
    let omits = with_game!(&game, g => crate::game::Omissions::omissible(g, 0).is_some());
    for one_mover in [false, true] {
        if one_mover && (remoteness || !omits) {
            continue;
        }
        let params = Params {
            frame_positions: 64,
            fill: DontCareFill::Best,
            one_mover,
            ..Params::default()
        };
        let path = dir.path().join(format!("zstd-{one_mover}.rdb"));
        compress(&file, &path, params, &Silent).unwrap();
        let zstd = in_memory(|sink| {
            write_compressed(&file, sink, params, &Silent)
                .unwrap()
                .into_inner()
        });
        assert!(
            zstd == std::fs::read(&path).unwrap(),
            "{spec}: the compressed table in memory (one mover left out: {one_mover}) is the file"
        );
        let t = Table::from_bytes(&path, zstd, 1 << 20).unwrap();
        assert!(t.is_compressed());
        answers_as_solved(&t, &codes, &file);
    }
    (h.remoteness_encoding, omits && !remoteness)
}

#[test]
fn hex_in_memory_as_in_files() {
    let none = (RemotenessEncoding::None, true);
    assert_eq!(every_encoding_in_memory("hex:2", false), none);
    assert_eq!(every_encoding_in_memory("hex:3", false), none);
    let nibbles = (RemotenessEncoding::Nibbles, false);
    assert_eq!(every_encoding_in_memory("hex:3", true), nibbles);
}

#[test]
fn a_digraph_in_memory_as_in_files() {
    let seed = concat!(
        "digraph:",
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/seed001.txt"
    );
    assert_eq!(
        every_encoding_in_memory(seed, false),
        (RemotenessEncoding::None, false)
    );
    let (encoding, _) = every_encoding_in_memory(seed, true);
    assert!(matches!(encoding, RemotenessEncoding::Bytes(_)));
}

#[test]
fn bridgit_in_memory_as_in_files() {
    every_encoding_in_memory("bridgit:2", false);
    every_encoding_in_memory("bridgit:2", true);
}
