//! A program that has not registered tic-tac-toe (this test's process, until it does) cannot
//! rebuild the game of a tic-tac-toe table, and says which family is missing; once registered,
//! the same table opens. A process of its own, since registering lasts the process's life.

mod common;

use retrodb::games::{self, AnyGame};
use retrodb::table::Table;

use common::{text, tictactoe};

#[test]
fn a_table_of_an_unregistered_family_names_the_family() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.rdb");
    let o = tictactoe(&[
        "build",
        "ttt:3x3,3",
        "-o",
        path.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));

    assert!(!games::is_registered("ttt"));
    let e = Table::open(&path)
        .err()
        .expect("no table without the family")
        .to_string();
    let want = format!(
        "table {}: its game family `ttt` is not registered in this program \
         (retrodb::register)",
        path.display()
    );
    assert_eq!(e, want);
    let e = AnyGame::open("ttt:3x3,3", u64::MAX)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("unknown game 'ttt'"), "{e}");

    retrodb_tictactoe::register().unwrap();
    let t = Table::open(&path).unwrap();
    assert_eq!(
        t.probe_text(".../.../...").unwrap().value,
        retrodb::Value::Draw
    );
}
