//! Where a research scan reads a position's value: a table of the board (through the cell
//! game's own index) or Lehman's criterion on Left's board graph, which decides any Bridg-It
//! position of any size with either player to move and needs no table.
//!
//! The invariant: a source answers for a position given by its cell states and mover alone, so
//! every claim reads the same values whichever source stands behind it; only a table has
//! remoteness.

use std::cell::RefCell;

use crate::error::{Error, OracleError, ResearchError, Result};
use crate::game::{Notation, Value};
use crate::games::cell::notation::text_of_states;
use crate::games::cell::{Board, CellGame, LEFT, Player, RIGHT};
use crate::oracle::lehman::{self, Claim, EdgeGame, Workspace};
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
    let graph = Board::Bridgit(n).graph();
    let edges = graph
        .edges
        .iter()
        .map(|&(u, v)| (u as usize, v as usize))
        .collect();
    EdgeGame::new(
        graph.vertices as usize,
        edges,
        graph.a as usize,
        graph.b as usize,
    )
    .map_err(|e| {
        Error::Oracle(OracleError::Unsupported {
            spec: format!("bridgit:{n}"),
            reason: e.to_string(),
        })
    })
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
