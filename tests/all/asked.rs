//! A `,sym` table answers on the board as asked (`Table::probe_as_asked`): for every position
//! alternation reaches, the same position text, moves (names, the positions they make, values,
//! remoteness) and value as the alternation index, which holds every board itself.

use retrodb::games::AnyGame;
use retrodb::table::builder::{self, BuildOptions};
use retrodb::table::{Probe, Table};
use retrodb::{Game, Notation};

use super::tiered::open;

/// A move as (name, position it makes, value, remoteness).
type MoveEssence = (String, String, String, Option<u32>);

/// What a probe says that must not depend on how the index stores the board.
fn essence(p: &Probe) -> (String, String, Option<u32>, Vec<MoveEssence>) {
    (
        p.position.clone(),
        p.value.to_string(),
        p.remoteness,
        p.moves
            .iter()
            .map(|m| {
                (
                    m.name.clone(),
                    m.position.clone(),
                    m.value.to_string(),
                    m.remoteness,
                )
            })
            .collect(),
    )
}

#[test]
fn symmetric_tables_answer_on_the_asked_board() {
    let dir = tempfile::tempdir().unwrap();
    for (spec, every) in [("bridgit:3,start=L", 3), ("hex:3,start=L", 1)] {
        let opts = BuildOptions {
            remoteness: true,
            ..BuildOptions::default()
        };
        let plain = dir.path().join("alt.rdb");
        builder::build(&open(spec), &plain, &opts).unwrap();
        let sym = dir.path().join("sym.rdb");
        builder::build(&open(&format!("{spec},sym")), &sym, &opts).unwrap();
        let (plain, sym) = (Table::open(&plain).unwrap(), Table::open(&sym).unwrap());
        let AnyGame::Cell(g) = plain.game() else {
            panic!("{spec} is a cell game");
        };
        let (mut checked, mut mapped) = (0, 0);
        for pos in (0..g.size()).step_by(every) {
            let text = g.position_text(pos);
            let want = plain.probe_text(&text).unwrap();
            let got = sym.probe_as_asked(&text).unwrap();
            assert_eq!(essence(&got), essence(&want), "{spec}: {text}");
            // The image is named exactly when the table holds another board.
            let stored = sym.probe(got.index).unwrap().position;
            assert_eq!(
                got.stored_image.as_deref(),
                (stored != want.position).then_some(stored.as_str()),
                "{spec}: {text}"
            );
            checked += 1;
            mapped += got.stored_image.is_some() as u32;
        }
        // Both kinds were met: boards held as they are and boards held as another image.
        assert!(
            mapped > 0 && mapped < checked,
            "{spec}: {mapped} of {checked}"
        );
    }
}

/// Elsewhere the answer is `probe_text`'s, and a text that is no position is refused as such.
#[test]
fn other_tables_answer_as_probe_text_does() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("seed.rdb");
    let opts = BuildOptions {
        remoteness: true,
        ..BuildOptions::default()
    };
    builder::build(&open("digraph:data/seed001.txt"), &out, &opts).unwrap();
    let t = Table::open(&out).unwrap();
    for v in ["0", "4", "8", "11"] {
        let got = t.probe_as_asked(v).unwrap();
        assert_eq!(essence(&got), essence(&t.probe_text(v).unwrap()), "{v}");
        assert_eq!(got.stored_image, None);
    }
    let e = t.probe_as_asked("no such vertex").unwrap_err();
    assert!(matches!(e, retrodb::Error::Position(_)), "{e}");
}
