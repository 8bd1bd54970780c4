//! Where a research scan reads a position's value: a table of the board (through the cell
//! game's own index) or Lehman's criterion on Left's board graph, which decides any Bridg-It
//! position of any size with either player to move and needs no table.
//!
//! The invariant: a source answers for a position given by its cell states and mover alone, so
//! every claim reads the same values whichever source stands behind it; only a table has
//! remoteness.

use std::cell::RefCell;

use crate::apps::oracle::check::lehman_game_of;
use crate::apps::oracle::lehman::{self, Claim, EdgeGame, Workspace};
use crate::error::{Error, ResearchError, Result};
use crate::game::{Notation, Value};
use crate::games::cell::notation::text_of_states;
use crate::games::cell::{Board, CellGame, LEFT, Player, RIGHT};
use crate::table::Table;

/// The values a scan checks the claims against.
pub(super) enum Source<'a> {
    /// A table of the board, read through `game`'s index (in a symmetric table, the stored
    /// image's, which has the same value).
    Table {
        game: &'a CellGame,
        table: &'a Table,
    },
    /// Lehman's criterion: Left is Short on the board graph, Right is Cut.
    Lehman(EdgeGame),
}

thread_local! {
    /// Lehman's buffers, one set a thread (no allocation once they have grown).
    static WORKSPACE: RefCell<Workspace> = RefCell::new(Workspace::default());
}

/// Lehman's game of Bridg-It `n`: edge `i` of Left's board graph is cell `i`.
pub(super) fn lehman_game(n: u32) -> Result<EdgeGame> {
    lehman_game_of(&Board::Bridgit(n).graph(), &format!("bridgit:{n}"))
}

/// The value for `mover` of the Bridg-It position `cells` by Lehman's criterion.
pub(super) fn lehman_value(game: &EdgeGame, cells: &[u8], mover: Player) -> Result<Value> {
    let claims: Vec<Claim> = cells
        .iter()
        .map(|&s| match s {
            LEFT => Claim::Short,
            RIGHT => Claim::Cut,
            _ => Claim::Free,
        })
        .collect();
    let outcome = WORKSPACE
        .with(|ws| game.outcome(&claims, &mut ws.borrow_mut()))
        .map_err(|e| {
            Error::Research(ResearchError::NoValue {
                position: format!("{} ({e})", text_of_states(cells, mover)),
            })
        })?;
    let who = match mover {
        Player::Left => lehman::Player::Short,
        Player::Right => lehman::Player::Cut,
    };
    Ok(lehman::mover_value(outcome, who))
}

impl Source<'_> {
    /// The value for `mover` of the position `cells` (open or finished).
    pub(super) fn value(&self, cells: &[u8], mover: Player) -> Result<Value> {
        match self {
            Source::Table { game, table } => {
                let pos = game.index_of_states(cells, mover);
                table.value(pos)?.ok_or_else(|| {
                    Error::Research(ResearchError::NoValue {
                        position: game.position_text(pos),
                    })
                })
            }
            Source::Lehman(g) => lehman_value(g, cells, mover),
        }
    }

    /// The remoteness of the position `cells` with `mover` to move, when the source has it.
    pub(super) fn remoteness(&self, cells: &[u8], mover: Player) -> Result<Option<u32>> {
        match self {
            Source::Table { game, table } => {
                Ok(table.remoteness(game.index_of_states(cells, mover))?)
            }
            Source::Lehman(_) => Ok(None),
        }
    }

    /// What the figures were read from, for the report.
    pub(super) fn describe(&self) -> String {
        match self {
            Source::Table { table, .. } => table.path().display().to_string(),
            Source::Lehman(_) => "Lehman's criterion (no table)".to_string(),
        }
    }
}

/// Whether a player has joined his ends on `cells`.
pub(super) fn finished(graphs: &[super::super::geometry::PlayerGraph; 2], cells: &[u8]) -> bool {
    graphs.iter().any(|g| g.bridges_needed(cells) == Some(0))
}

#[cfg(test)]
mod tests {
    use rayon::prelude::*;

    use super::super::scan::{ClaimChecker, Detail, Findings};
    use super::*;
    use crate::game::{Game, Status};
    use crate::games::AnyGame;

    fn table(dir: &std::path::Path, n: u32) -> Table {
        let path = dir.join(format!("b{n}.rdb"));
        let game = AnyGame::open(&format!("bridgit:{n}"), u64::MAX).unwrap();
        crate::builder::build(&game, &path, &Default::default()).unwrap();
        Table::open(&path).unwrap()
    }

    /// Lehman's criterion gives the table's value at every position of Bridg-It 2 and 3 (every
    /// configuration, either player to move, finished boards included), both read through the
    /// research's sources by cell states.
    #[test]
    fn lehman_gives_the_tables_values_on_every_position_of_sizes_2_and_3() {
        let dir = tempfile::tempdir().unwrap();
        for n in [2, 3] {
            let table = table(dir.path(), n);
            let game = table.game().cell_game().unwrap();
            let by_table = Source::Table {
                game,
                table: &table,
            };
            let by_lehman = Source::Lehman(lehman_game(n).unwrap());
            let (wins, disagree) = (0..game.size())
                .into_par_iter()
                .map(|pos| {
                    let (cells, mover) = (game.states(pos), game.mover(pos));
                    let want = by_table.value(&cells, mover).unwrap();
                    let got = by_lehman.value(&cells, mover).unwrap();
                    (u64::from(want == Value::Win), u64::from(want != got))
                })
                .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
            assert_eq!(disagree, 0, "size {n}");
            assert!(wins > 0 && wins < game.size(), "size {n}: {wins} wins");
        }
    }

    /// Every figure of the claims that need values, over every position of Bridg-It 2, is the
    /// same read from the table and from Lehman's criterion (size 3's values are compared one
    /// by one above; its figures would take minutes in a debug build).
    #[test]
    fn every_values_only_figure_of_size_2_is_the_same_from_lehman_and_the_table() {
        let dir = tempfile::tempdir().unwrap();
        let n = 2;
        let table = table(dir.path(), n);
        let game = table.game().cell_game().unwrap();
        let scan = |source| {
            let scan = ClaimChecker::new(source, n, &[], Detail::ValuesOnly);
            (0..game.size())
                .into_par_iter()
                .fold(
                    || Findings::new(&[], Detail::ValuesOnly),
                    |mut f, pos| {
                        scan.position(game, pos, &mut f).unwrap();
                        f
                    },
                )
                .reduce(|| Findings::new(&[], Detail::ValuesOnly), Findings::merge)
        };
        let a = scan(Source::Table {
            game,
            table: &table,
        });
        let b = scan(Source::Lehman(lehman_game(n).unwrap()));
        let json = |f: &Findings| serde_json::to_value(&f.pops).unwrap();
        assert_eq!(json(&a), json(&b), "size {n}");
        assert_eq!(
            a.found.keys().collect::<Vec<_>>(),
            b.found.keys().collect::<Vec<_>>()
        );
        let open = (0..game.size())
            .filter(|&p| game.status(p) == Status::Open)
            .count() as u64;
        assert_eq!(a.pops[0].positions, open);
    }
}
