//! Lookups as people ask for them: the one way `retrodb probe`, the HTTP API and the Python
//! module answer a position. A lookup is the table's probe ([`Table::probe_text`]) with its moves
//! best first ([`table::move_rank`]) and its best move, and, when asked, the principal line
//! ([`Table::line`]) and the value as a game of the position and of each move's child
//! ([`crate::games::cell::values::PositionValues`], a finished cell board worth `free_moves` to its
//! winner, at most [`VALUE_LIMIT`] positions visited for one value, and all of them within a
//! request's [`Budget`] when the server gives one).
//!
//! The invariant: every interface answers through [`Lookups`], so they agree on the order of the
//! moves, the best move, the line and the values; nothing here decides a value (that is the
//! table's), it only orders and adds.

use crate::base::budget::Budget;
use crate::base::error::{Error, LookupError, Result};
use crate::games::cell::values::PositionValues;
use crate::table::{self, Probe, Table};

/// Positions visited at most for one position's value as a game (`probe --value`, `show`,
/// HTTP `value=true`, Python `game_value`); beyond it the value is not computed.
pub const VALUE_LIMIT: usize = crate::games::cell::values::POSITION_LIMIT;

/// What a lookup adds to the probe.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ask {
    /// The principal line (tables with remoteness).
    pub line: bool,
    /// Game values (`game_value`) of the position and of each move's child, with this many free
    /// moves for the winner of a finished cell board (1 to 64).
    pub game_values: Option<u32>,
}

/// Lookups in one table with one [`Ask`]; the game values' memo is kept from one lookup to the
/// next (a batch shares the positions below its positions).
pub struct Lookups<'t, B: AsRef<[u8]> + Sync = memmap2::Mmap> {
    table: &'t Table<B>,
    line: bool,
    values: Option<PositionValues<'t>>,
}

/// Why a game has no values as games, for errors.
pub fn no_game_values(spec: &str) -> Error {
    Error::Lookup(LookupError::NoGameValues {
        spec: spec.to_string(),
    })
}

/// The free moves of a finished cell board, checked (1 to 64, as `--free-moves`).
pub fn check_free_moves(free_moves: u32) -> Result<u32> {
    if (1..=64).contains(&free_moves) {
        Ok(free_moves)
    } else {
        Err(LookupError::FreeMoves { free_moves }.into())
    }
}

impl<'t, B: AsRef<[u8]> + Sync> Lookups<'t, B> {
    /// Lookups in `table`. A line asked of a table without remoteness, game values asked of a
    /// game without them, and free moves outside 1 to 64 are [`Error::Lookup`] errors.
    pub fn new(table: &'t Table<B>, ask: &Ask) -> Result<Lookups<'t, B>> {
        if ask.line && !table.has_remoteness() {
            return Err(LookupError::NoRemoteness {
                path: table.path().display().to_string(),
                position: None,
            }
            .into());
        }
        let values = match ask.game_values {
            None => None,
            Some(c) => Some(
                PositionValues::new(table.game(), check_free_moves(c)?, VALUE_LIMIT)
                    .ok_or_else(|| no_game_values(&table.header().spec))?,
            ),
        };
        Ok(Lookups {
            table,
            line: ask.line,
            values,
        })
    }

    /// Bounds the game values of these lookups by `budget` (a request's, shared with its other
    /// work): once it is spent or cancelled, every lookup that asks a value is an error
    /// ([`crate::base::error::LookupError::WorkLimit`] or [`crate::base::error::LookupError::Cancelled`]).
    pub fn with_budget(mut self, budget: Budget) -> Self {
        if let Some(v) = self.values.as_mut() {
            v.set_budget(budget);
        }
        self
    }

    /// The lookup of one position text.
    pub fn probe(&mut self, text: &str) -> Result<Probe> {
        let p = self.table.probe_text(text)?;
        self.finish(p)
    }

    /// The lookup of one position text as asked: on a `,sym` table the position, its moves and
    /// the positions they make are on the asked board, not the stored image
    /// ([`Table::probe_as_asked`]).
    pub fn probe_as_asked(&mut self, text: &str) -> Result<Probe> {
        let p = self.table.probe_as_asked(text)?;
        self.finish(p)
    }

    /// Lookups of many position texts, in order: probed in parallel ([`Table::probe_batch`]),
    /// then ordered and added to one by one. Each answer is the lookup or why that text has
    /// none.
    pub fn probe_batch(&mut self, texts: &[String]) -> Vec<Result<Probe>> {
        self.table
            .probe_batch(texts)
            .into_iter()
            .map(|r| r.and_then(|p| self.finish(p)))
            .collect()
    }

    /// The principal line from `pos` ([`Table::line`]).
    pub fn line(&self, pos: u64) -> Result<Vec<table::LineStep>> {
        self.table.line(pos)
    }

    /// The value as a game of position `pos` (CGSuite's notation), or `None` when game values
    /// were not asked for or it would visit more than [`VALUE_LIMIT`] positions; an error when
    /// a budget ([`Lookups::with_budget`]) stopped it.
    pub fn game_value(&mut self, pos: u64) -> Result<Option<String>> {
        let Some(v) = self.values.as_mut() else {
            return Ok(None);
        };
        Ok(v.try_value(pos)?.map(|g| v.games.show(g)))
    }

    /// Moves best first, and what was asked for added.
    fn finish(&mut self, mut p: Probe) -> Result<Probe> {
        p.sort_moves_best_first();
        if self.values.is_some() {
            let set = |extra: &mut crate::game::Annotations, text: Option<String>| {
                extra.0.retain(|(k, _)| k != "game_value");
                if let Some(t) = text {
                    extra.push("game_value", t);
                }
            };
            let v = self.game_value(p.index)?;
            set(&mut p.extra, v);
            for m in p.moves.iter_mut() {
                let v = self.game_value(m.child)?;
                set(&mut m.extra, v);
            }
            if let Some(best) = p.best.as_mut() {
                let v = self.game_value(best.child)?;
                set(&mut best.extra, v);
            }
        }
        if self.line {
            p.line = Some(self.table.line(p.index)?);
        }
        Ok(p)
    }
}

/// The value as a game of one position of `game` (a finished cell board worth `free_moves` to
/// its winner), visiting at most [`VALUE_LIMIT`] positions: `Ok(None)` beyond it; a game
/// without values is an error.
pub fn game_value(
    game: &crate::games::AnyGame,
    pos: u64,
    free_moves: u32,
) -> Result<Option<String>> {
    let mut v = PositionValues::new(game, check_free_moves(free_moves)?, VALUE_LIMIT)
        .ok_or_else(|| no_game_values(&game.spec()))?;
    Ok(v.value(pos).map(|g| v.games.show(g)))
}
