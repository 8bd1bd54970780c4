//! The sliced index (docs/SLICES.md), with and without symmetry, against the alternation index
//! and the plain build of every configuration: the same value for every position.

use retrodb::games::AnyGame;
use retrodb::table;
use retrodb::table::builder::{self, BuildOptions};
use retrodb::{Game, Notation, Omissions};

use super::tiered::open;

/// The sliced index, with and without symmetry, against the alternation index and the plain
/// build of every configuration with either player to move: the same value for every position
/// (found by its text, so the lookup maps it to its row's canonical key), the contract on every
/// index, and fewer positions with symmetry where the board has any.
#[test]
fn sliced_and_symmetric_tables_agree_with_the_alternation_index() {
    use retrodb::game::check_round_trip;
    use retrodb::table::Table;
    let dir = tempfile::tempdir().unwrap();
    for (spec, every) in [
        ("hex:3,start=L", 1),
        ("hex:3,start=R", 1),
        ("bridgit:2,start=L", 1),
        ("bridgit:3,start=L", 1),
        ("bridgit:3,start=R", 1),
        ("hex:4,start=L", 101),
        ("shannon:data/shannon/k4.txt,start=L", 1),
        ("shannon-vertex:data/shannon/grid3x4.txt,start=R", 7),
    ] {
        let every: usize = every;
        let plain = dir.path().join("alt.rdb");
        builder::build(&open(spec), &plain, &BuildOptions::default()).unwrap();
        let reference = Table::open(&plain).unwrap();
        let AnyGame::Cell(r) = reference.game() else {
            panic!("{spec} is a cell game");
        };
        let size = r.size();
        // The plain build (both movers, every configuration) of the same board agrees on every
        // position alternation reaches.
        let base = spec.split(",start=").next().unwrap();
        let full = dir.path().join("plain.rdb");
        builder::build(&open(base), &full, &BuildOptions::default()).unwrap();
        let full = Table::open(&full).unwrap();
        let AnyGame::Cell(f) = full.game() else {
            panic!("{base} is a cell game");
        };
        // `t` (of game `g`) answers every position of the reference as the reference does: by
        // its cells and mover (every position of the small boards, every `every / 2`th of
        // the large ones), and a spread of them by text.
        let agrees = |t: &Table, g: &retrodb::games::cell::CellGame, name: &str| {
            for pos in (0..size).step_by(every.div_ceil(2)) {
                let (l, rr) = r.masks(pos);
                let got = g
                    .try_index(l, rr, r.mover(pos))
                    .map(|i| t.value(i).unwrap())
                    .unwrap_or_else(|| panic!("{name}: no index for {}", r.position_text(pos)));
                assert_eq!(
                    got,
                    reference.value(pos).unwrap(),
                    "{name}: {}",
                    r.position_text(pos)
                );
            }
            for pos in (0..size).step_by(every) {
                let text = r.position_text(pos);
                let got = t.locate(&text).map(|(_, v)| v).ok();
                assert_eq!(got, reference.value(pos).unwrap(), "{name}: {text}");
            }
        };
        agrees(&full, f, base);
        for suffix in [",sliced", ",sym"] {
            let other = format!("{spec}{suffix}");
            let game = open(&other);
            let out = dir.path().join("sliced.rdb");
            let summary = builder::build(&game, &out, &BuildOptions::default()).unwrap();
            assert!(summary.complete, "{other}");
            let table = Table::open(&out).unwrap();
            let AnyGame::Cell(g) = table.game() else {
                panic!("{other} is a cell game");
            };
            if every == 1 {
                check_round_trip(g, 0..g.size()).unwrap_or_else(|e| panic!("{other}: {e}"));
                // The row-by-row rules agree with the rules one position at a time.
                let searched = g.searched_run(0, g.size()).expect("a sliced game");
                for (pos, &s) in searched.iter().enumerate() {
                    let want =
                        retrodb::game::by_rules(g, pos as u64) == retrodb::game::Rules::Search;
                    assert_eq!(s, want, "{other}: index {pos}");
                }
            }
            // A compressed copy (don't-care cells filled from the row-by-row rules) answers
            // the same.
            let z = dir.path().join("sliced-z.rdb");
            table::compress(
                &table,
                &z,
                quick_compression(),
                &retrodb::base::progress::Silent,
            )
            .unwrap();
            let zt = Table::open(&z).unwrap();
            for pos in (0..g.size()).step_by(every) {
                assert_eq!(
                    zt.value(pos).unwrap(),
                    table.value(pos).unwrap(),
                    "{other}: {pos}"
                );
            }
            match (suffix, spec.starts_with("shannon")) {
                (",sliced", _) | (_, true) => assert_eq!(g.size(), size, "{other}"),
                _ => assert!(
                    g.size() * 3 < size * 2,
                    "{other}: symmetry saves a third at least"
                ),
            }
            agrees(&table, g, &other);
        }
    }
}

/// The row kernel with remoteness (`sliced-remoteness`) against the plain board's build with
/// remoteness (the arithmetic kernel, a byte a position): the same value and remoteness on
/// every position of the sliced and symmetric tables; the compressed copy answers the same and
/// decompresses to the raw table byte for byte; the counter engine writes the same file.
#[test]
fn the_row_kernel_with_remoteness_agrees_with_the_plain_boards() {
    use retrodb::solve::{Engine, plan::Kernel};
    use retrodb::table::Table;
    let dir = tempfile::tempdir().unwrap();
    let rem = |engine: Option<Engine>| BuildOptions {
        remoteness: true,
        engine,
        ..BuildOptions::default()
    };
    for (base, sliced, counter) in [
        (
            "bridgit:3",
            &["bridgit:3,start=L,sym", "bridgit:3,start=R,sliced"][..],
            true,
        ),
        ("hex:4", &["hex:4,start=L,sym"][..], false),
        (
            "hex:3",
            &["hex:3,start=R,sym", "hex:3,start=L,sliced"][..],
            true,
        ),
    ] {
        let full = dir.path().join("plain.rdb");
        let s = builder::build(&open(base), &full, &rem(None)).unwrap();
        assert_eq!(s.kernel, Kernel::PlainRemoteness, "{base}");
        let full = Table::open(&full).unwrap();
        let AnyGame::Cell(f) = full.game() else {
            panic!("{base} is a cell game");
        };
        for spec in sliced {
            let out = dir.path().join("rows.rdb");
            let summary = builder::build(&open(spec), &out, &rem(None)).unwrap();
            assert_eq!(summary.kernel, Kernel::SlicedRemoteness, "{spec}");
            let table = Table::open(&out).unwrap();
            assert_eq!(
                table.header().remoteness_encoding,
                retrodb::table::format::RemotenessEncoding::Nibbles
            );
            let AnyGame::Cell(g) = table.game() else {
                panic!("{spec} is a cell game");
            };
            let mut longest = 0;
            for pos in 0..g.size() {
                let (l, r) = g.masks(pos);
                let i = f
                    .try_index(l, r, g.mover(pos))
                    .unwrap_or_else(|| panic!("{base}: no index for {}", g.position_text(pos)));
                let want = (full.value(i).unwrap(), full.remoteness(i).unwrap());
                let got = (table.value(pos).unwrap(), table.remoteness(pos).unwrap());
                assert_eq!(got, want, "{spec}: {}", g.position_text(pos));
                longest = longest.max(got.1.unwrap());
            }
            assert_eq!(table.header().rounds, Some(longest + 1), "{spec}");
            let z = dir.path().join("rows-z.rdb");
            table::compress(
                &table,
                &z,
                quick_compression(),
                &retrodb::base::progress::Silent,
            )
            .unwrap();
            let zt = Table::open(&z).unwrap();
            for pos in (0..g.size()).step_by(7) {
                assert_eq!(
                    (zt.value(pos).unwrap(), zt.remoteness(pos).unwrap()),
                    (table.value(pos).unwrap(), table.remoteness(pos).unwrap()),
                    "{spec}: compressed, {pos}"
                );
            }
            let back = dir.path().join("rows-back.rdb");
            table::decompress(&zt, &back, &retrodb::base::progress::Silent).unwrap();
            assert!(
                std::fs::read(&back).unwrap() == std::fs::read(&out).unwrap(),
                "{spec}: decompressed differs from the build"
            );
            if counter {
                let c = dir.path().join("counter.rdb");
                builder::build(&open(spec), &c, &rem(Some(Engine::Counter))).unwrap();
                assert!(
                    std::fs::read(&c).unwrap() == std::fs::read(&out).unwrap(),
                    "{spec}: the counter engine wrote another table"
                );
            }
        }
    }
}

/// `bridgit:N,sym` and `hex:N,sym` (no `,start=`): every configuration with either player to
/// move, one per symmetry class, against the plain build of the same board with remoteness: the
/// same value and remoteness for every plain position (looked up through its canonical image,
/// by cells and mover, and a spread of them by text, which says who moves); with `,sliced`
/// too, the position count of the plain index; the contract on every index of the smallest
/// boards (on every seventh of Bridg-It 3's: the whole took 20 of this test's 30 s); and the
/// counter engine writes the same file as the row kernels.
#[test]
fn symmetric_tables_of_every_configuration_agree_with_the_plain_boards() {
    use retrodb::solve::{Engine, plan::Kernel};
    use retrodb::table::Table;
    let dir = tempfile::tempdir().unwrap();
    let opts = |remoteness: bool, engine: Option<Engine>| BuildOptions {
        remoteness,
        engine,
        ..BuildOptions::default()
    };
    for (base, every, contract, counter) in [
        ("bridgit:2", 1, Some(1), true),
        ("hex:3", 1, Some(1), true),
        ("bridgit:3", 1, Some(7), false),
        ("hex:4", 101, None, false),
    ] {
        let full = dir.path().join("plain.rdb");
        builder::build(&open(base), &full, &opts(true, None)).unwrap();
        let full = Table::open(&full).unwrap();
        let AnyGame::Cell(f) = full.game() else {
            panic!("{base} is a cell game");
        };
        for (suffix, remoteness) in [(",sym", true), (",sym", false), (",sliced", false)] {
            let spec = format!("{base}{suffix}");
            let out = dir.path().join("every.rdb");
            let summary = builder::build(&open(&spec), &out, &opts(remoteness, None)).unwrap();
            let kernel = if remoteness {
                Kernel::SlicedRemoteness
            } else {
                Kernel::SlicedRows
            };
            assert_eq!(summary.kernel, kernel, "{spec}");
            let table = Table::open(&out).unwrap();
            assert_eq!(table.header().spec, spec);
            let AnyGame::Cell(g) = table.game() else {
                panic!("{spec} is a cell game");
            };
            assert_eq!(g.start(), None, "{spec}");
            if suffix == ",sliced" {
                assert_eq!(g.size(), f.size(), "{spec}");
            } else {
                assert!(g.size() * 3 < f.size() * 2, "{spec}: symmetry saves");
            }
            if let Some(step) = contract {
                retrodb::game::check_round_trip(g, (0..g.size()).step_by(step))
                    .unwrap_or_else(|e| panic!("{spec}: {e}"));
            }
            for pos in (0..f.size()).step_by(every) {
                let (l, r) = f.masks(pos);
                let i = g
                    .try_index(l, r, f.mover(pos))
                    .unwrap_or_else(|| panic!("{spec}: no index for {}", f.position_text(pos)));
                let want = full.value(pos).unwrap();
                assert_eq!(
                    table.value(i).unwrap(),
                    want,
                    "{spec}: {}",
                    f.position_text(pos)
                );
                if remoteness {
                    let (got, want) = (table.remoteness(i).unwrap(), full.remoteness(pos).unwrap());
                    assert_eq!(got, want, "{spec}: {}", f.position_text(pos));
                }
                if pos % (7 * every as u64) == 0 {
                    let text = f.position_text(pos);
                    let (at, v) = table.locate(&text).unwrap();
                    assert_eq!((at, Some(v)), (i, want), "{spec}: {text}");
                    assert_eq!(g.mover(at), f.mover(pos), "{spec}: {text}");
                }
            }
            if counter {
                let c = dir.path().join("counter.rdb");
                builder::build(&open(&spec), &c, &opts(remoteness, Some(Engine::Counter))).unwrap();
                assert!(
                    std::fs::read(&c).unwrap() == std::fs::read(&out).unwrap(),
                    "{spec}: the counter engine wrote another table"
                );
            }
        }
    }
}

/// What these tests check of a compressed copy (the answers, the bytes back) holds at any
/// level; zstd's level 15 searched matches for a third of their time.
fn quick_compression() -> retrodb::table::zstd::Params {
    retrodb::table::zstd::Params {
        level: 3,
        ..retrodb::table::zstd::Params::default()
    }
}
