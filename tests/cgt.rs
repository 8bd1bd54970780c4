//! Game values of whole cell games against their tables: every configuration's canonical value
//! must give the table's outcome for both movers.

use retrodb::Value;
use retrodb::cgt::values::board_values;
use retrodb::game::Tiered;
use retrodb::games::AnyGame;
use retrodb::table::{self, BuildOptions, Table};

fn check(spec: &str, free_moves: u32) -> usize {
    let game = AnyGame::open(spec, u64::MAX).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.rdb");
    table::build(&game, &path, &BuildOptions::default()).unwrap();
    let t = Table::open(&path).unwrap();
    let AnyGame::Cell(cell) = &game else {
        panic!("{spec} is a cell game")
    };
    let board = cell.plain_board().expect("a full table is a plain board");
    let mut v = board_values(&board, free_moves);
    for (config, &g) in v.values.iter().enumerate() {
        let (left_first, left_second) = v.games.outcome(g);
        let c = config as u64;
        let l = t.value(2 * c).unwrap().unwrap();
        let r = t.value(2 * c + 1).unwrap().unwrap();
        assert_eq!(
            l == Value::Win,
            left_first,
            "{spec} config {config} Left to move: {}",
            v.games.show(g)
        );
        assert_eq!(
            r == Value::Win,
            !left_second,
            "{spec} config {config} Right to move: {}",
            v.games.show(g)
        );
    }
    let mut distinct: Vec<_> = v.values.clone();
    distinct.sort_unstable();
    distinct.dedup();
    distinct.len()
}

#[test]
fn values_give_the_tables_outcomes_for_both_movers() {
    for spec in ["bridgit:2", "hex:2", "hex:3", "bridgit:3"] {
        for c in [1, 3] {
            let n = check(spec, c);
            eprintln!("{spec}, C = {c}: {n} distinct values");
            assert!(n > 3);
        }
    }
}
