//! Where a research scan reads a position's value: a table of the board (through the cell
//! game's own index) or Lehman's criterion on Left's board graph, which decides any Bridg-It
//! position of any size with either player to move and needs no table.
//!
//! The invariant: a source answers for a position given by its cell states and mover alone, so
//! every claim reads the same values whichever source stands behind it; only a table has
//! remoteness. A table's values can be checked against Lehman's criterion as they are read
//! ([`LehmanCheck`]): a report from a table whose values disagree is refused.

use std::cell::RefCell;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use super::figures::LehmanFigures;
use crate::apps::error::{AppError, ResearchError, Result};
use crate::apps::oracle::check::lehman_game_of;
use crate::apps::oracle::lehman::{self, Claim, EdgeGame, Workspace};
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
        /// Every value read compared with Lehman's criterion, when given.
        check: Option<&'a LehmanCheck>,
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
            AppError::Research(ResearchError::NoValue {
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
            Source::Table { game, table, check } => {
                let pos = game.index_of_states(cells, mover);
                let value = table.value(pos)?.ok_or_else(|| {
                    AppError::Research(ResearchError::NoValue {
                        position: game.position_text(pos),
                    })
                })?;
                if let Some(check) = check {
                    check.compare(pos, cells, mover, value)?;
                }
                Ok(value)
            }
            Source::Lehman(g) => lehman_value(g, cells, mover),
        }
    }

    /// The remoteness of the position `cells` with `mover` to move, when the source has it.
    pub(super) fn remoteness(&self, cells: &[u8], mover: Player) -> Result<Option<u32>> {
        match self {
            Source::Table { game, table, .. } => {
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

/// A table's values compared with Lehman's criterion as a scan reads them: how many, how many
/// disagree, and the disagreeing position of the smallest index (the same whichever thread
/// found it first). Lehman's criterion needs no table, so a research report need not trust one.
pub(super) struct LehmanCheck {
    game: EdgeGame,
    values: AtomicU64,
    disagreements: AtomicU64,
    /// The table's index, the position, the table's value and Lehman's.
    first: Mutex<Option<(u64, String, Value, Value)>>,
}

impl LehmanCheck {
    /// A check of a table of Bridg-It `n`.
    pub(super) fn new(n: u32) -> Result<Self> {
        Ok(Self::of(lehman_game(n)?))
    }

    /// A check by the Lehman game `game` (a test gives another board's).
    fn of(game: EdgeGame) -> Self {
        LehmanCheck {
            game,
            values: AtomicU64::new(0),
            disagreements: AtomicU64::new(0),
            first: Mutex::new(None),
        }
    }

    /// Compares `value`, the table's value at its index `pos` of the position `cells` with
    /// `mover` to move, with Lehman's. A disagreement is counted, not returned: the scan goes
    /// on, and [`LehmanCheck::figures`] refuses the report.
    pub(super) fn compare(
        &self,
        pos: u64,
        cells: &[u8],
        mover: Player,
        value: Value,
    ) -> Result<()> {
        let lehman = lehman_value(&self.game, cells, mover)?;
        self.values.fetch_add(1, Ordering::Relaxed);
        if lehman != value {
            self.disagreements.fetch_add(1, Ordering::Relaxed);
            let text = text_of_states(cells, mover);
            let mut first = self.first.lock().unwrap_or_else(|e| e.into_inner());
            // Two boards a symmetry maps onto one index: the smaller text, for a fixed answer.
            if first.as_ref().is_none_or(|f| (pos, &text) < (f.0, &f.1)) {
                *first = Some((pos, text, value, lehman));
            }
        }
        Ok(())
    }

    /// The check's figures for the report (`what`: which values were compared), or the
    /// refusal naming `table` when any value disagreed with Lehman's.
    pub(super) fn figures(&self, table: &Table, what: &str) -> Result<LehmanFigures> {
        let values = self.values.load(Ordering::Relaxed);
        let disagreements = self.disagreements.load(Ordering::Relaxed);
        let first = self.first.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, position, table_value, lehman)) = first.as_ref() {
            return Err(ResearchError::NotLehman {
                path: table.path().display().to_string(),
                disagreements,
                values,
                position: position.clone(),
                table: *table_value,
                lehman: *lehman,
            }
            .into());
        }
        Ok(LehmanFigures {
            compared: what.to_string(),
            values,
            disagreements,
        })
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
        crate::table::builder::build(&game, &path, &Default::default()).unwrap();
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
                check: None,
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
            check: None,
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

    /// A table checked against Lehman's criterion of its own board: every value read is
    /// compared and none disagrees. Checked against the criterion of a board whose far end
    /// moved (so the table is "wrong" for it): every disagreement is counted, the report is
    /// refused, and the refusal names the table and the smallest disagreeing position.
    #[test]
    fn a_table_that_disagrees_with_lehman_is_refused_with_the_first_position() {
        let dir = tempfile::tempdir().unwrap();
        let n = 2;
        let table = table(dir.path(), n);
        let game = table.game().cell_game().unwrap();
        let read_all = |check: &LehmanCheck| {
            let source = Source::Table {
                game,
                table: &table,
                check: Some(check),
            };
            (0..game.size()).into_par_iter().for_each(|pos| {
                source.value(&game.states(pos), game.mover(pos)).unwrap();
            });
        };
        let right = LehmanCheck::new(n).unwrap();
        read_all(&right);
        let f = right.figures(&table, "every position").unwrap();
        assert_eq!((f.values, f.disagreements), (game.size(), 0));

        let mut graph = Board::Bridgit(n).graph();
        graph.b = (0..graph.vertices)
            .find(|&v| v != graph.a && v != graph.b)
            .unwrap();
        let moved = lehman_game_of(&graph, "moved").unwrap();
        // The disagreements counted one by one, by the two criteria (the table equals its own
        // board's criterion, tested above).
        let own = lehman_game(n).unwrap();
        let (want, first) = (0..game.size())
            .filter(|&pos| {
                let (cells, mover) = (game.states(pos), game.mover(pos));
                lehman_value(&own, &cells, mover).unwrap()
                    != lehman_value(&moved, &cells, mover).unwrap()
            })
            .fold((0u64, None), |(k, f), pos| (k + 1, f.or(Some(pos))));
        assert!(want > 0, "moving the end changes some value");
        let wrong = LehmanCheck::of(moved);
        read_all(&wrong);
        let err = wrong.figures(&table, "every position").unwrap_err();
        let first = first.unwrap();
        match &err {
            AppError::Research(ResearchError::NotLehman {
                disagreements,
                values,
                position,
                ..
            }) => {
                assert_eq!((*disagreements, *values), (want, game.size()));
                assert_eq!(
                    position,
                    &text_of_states(&game.states(first), game.mover(first))
                );
            }
            e => panic!("{e}"),
        }
        let text = err.to_string();
        assert!(text.contains(&table.path().display().to_string()), "{text}");
        assert!(
            text.contains(&format!("{want} of the {}", game.size())),
            "{text}"
        );
    }
}
