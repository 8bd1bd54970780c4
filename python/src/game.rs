//! The games of the Python module on their own, no table needed: `Game` (a spec's rules and
//! notation: positions parsed and written, moves, pictures), `Position` (one position of a game,
//! drawn in Jupyter) and what both hold, `GameRef` (a game of its own or a table's). A position
//! is made from a used index only, so every method answers without a panic.

use std::sync::Arc;

use pyo3::prelude::*;
use retrodb::games::{AnyGame, PictureStyle};
use retrodb::table::Table as RawTable;
use retrodb::{Game as _, Notation as _, Status, with_game};

use super::{Notes, check_index, error, parse, raise, repr};

/// A game on its own, or the game of a table.
#[derive(Clone)]
pub(crate) enum GameRef {
    Own(Arc<AnyGame>),
    Table(Arc<RawTable>),
}

impl GameRef {
    pub(crate) fn get(&self) -> &AnyGame {
        match self {
            GameRef::Own(g) => g,
            GameRef::Table(t) => t.game(),
        }
    }
}

/// A game's rules and notation, from a game spec as `retrodb build` takes it ("hex:3",
/// "bridgit:3", "digraph:data/seed001.txt", ...): positions parsed and written, their moves,
/// and pictures. No table is needed.
#[pyclass(frozen, module = "retrodb", name = "Game")]
pub(crate) struct Game {
    pub(crate) game: GameRef,
}

/// A position given as its text, its index, or a `Position` of the same game.
#[derive(FromPyObject)]
enum PositionArg<'py> {
    Index(u64),
    Text(String),
    Position(Bound<'py, Position>),
}

impl Game {
    fn index(&self, at: PositionArg<'_>) -> PyResult<u64> {
        match at {
            PositionArg::Index(i) => check_index(self.game.get(), i),
            PositionArg::Text(t) => parse(self.game.get(), &t),
            PositionArg::Position(p) => {
                let p = p.get();
                let (mine, theirs) = (self.game.get().spec(), p.game.get().spec());
                if mine != theirs {
                    return Err(raise(
                        "PositionError",
                        format!(
                            "position '{}': a position of {theirs}, not of {mine} (pass its \
                             text to have it read in {mine})",
                            retrodb::base::error::cut(&p.text())
                        ),
                    ));
                }
                Ok(p.index)
            }
        }
    }

    fn position(&self, index: u64) -> Position {
        Position {
            game: self.game.clone(),
            index,
        }
    }
}

#[pymethods]
impl Game {
    /// Builds the game a spec names (reading its input file for graph games). Raises
    /// SpecError for an unknown game or a malformed input, FileError when a file cannot be
    /// read.
    #[new]
    fn new(py: Python<'_>, spec: &str) -> PyResult<Game> {
        let game = py
            .detach(|| AnyGame::open_with(spec, retrodb::base::memory::default_limit(), &Notes))
            .map_err(error)?;
        Ok(Game {
            game: GameRef::Own(Arc::new(game)),
        })
    }

    /// The canonical game spec.
    #[getter]
    fn spec(&self) -> String {
        self.game.get().spec()
    }

    /// The number of indices the game numbers its positions with (some may be unused).
    #[getter]
    fn size(&self) -> u64 {
        self.game.get().size()
    }

    /// The position a person starts from (the empty board, every edge standing, the lowest
    /// vertex), or None.
    fn start(&self) -> Option<Position> {
        self.game.get().start().map(|i| self.position(i))
    }

    /// The position a text (or an index) names. Raises PositionError when it is malformed or
    /// can never arise.
    fn parse(&self, text: PositionArg<'_>) -> PyResult<Position> {
        Ok(self.position(self.index(text)?))
    }

    /// The canonical text of a position given by its index (or by a text in any accepted
    /// form, e.g. without the mover's suffix).
    fn text(&self, position: PositionArg<'_>) -> PyResult<String> {
        let pos = self.index(position)?;
        Ok(with_game!(self.game.get(), g => g.position_text(pos)))
    }

    /// The moves from a position, as (move name, child position text) pairs in the game's
    /// order; empty where the game is over.
    fn moves(&self, position: PositionArg<'_>) -> PyResult<Vec<(String, String)>> {
        let pos = self.index(position)?;
        Ok(moves(self.game.get(), pos)
            .into_iter()
            .map(|(name, child)| {
                (
                    name,
                    with_game!(self.game.get(), g => g.position_text(child)),
                )
            })
            .collect())
    }

    /// A text picture of a position (the board games and Hackenbush; None for a digraph).
    fn render(&self, position: PositionArg<'_>) -> PyResult<Option<String>> {
        let pos = self.index(position)?;
        Ok(self.game.get().picture(pos, &[], PictureStyle::Plain))
    }

    /// An SVG picture of a position (every game), as `retrodb show --svg` and the web board
    /// draw it.
    fn svg(&self, position: PositionArg<'_>) -> PyResult<String> {
        let pos = self.index(position)?;
        Ok(self.game.get().svg(pos))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "retrodb.Game({})",
            repr(py, &self.game.get().spec())?
        ))
    }
}

/// The moves of a used position: none where the game is over.
fn moves(game: &AnyGame, pos: u64) -> Vec<(String, u64)> {
    with_game!(game, g => match g.status(pos) {
        Status::Open => g.moves(pos).into_iter().map(|m| (m.name, m.child)).collect(),
        _ => Vec::new(),
    })
}

/// One position of a game; draws itself in Jupyter (`_repr_svg_`).
#[pyclass(frozen, module = "retrodb", name = "Position")]
pub(crate) struct Position {
    pub(crate) game: GameRef,
    pub(crate) index: u64,
}

#[pymethods]
impl Position {
    /// The position's index in its game.
    #[getter]
    fn index(&self) -> u64 {
        self.index
    }

    /// The position's text in the game's notation.
    #[getter]
    pub(crate) fn text(&self) -> String {
        with_game!(self.game.get(), g => g.position_text(self.index))
    }

    /// The game the position belongs to.
    #[getter]
    fn game(&self) -> Game {
        Game {
            game: self.game.clone(),
        }
    }

    /// "open" while the player to move has moves to choose from, else the game's end for the
    /// player to move: "win", "loss" or "draw".
    #[getter]
    fn status(&self) -> &'static str {
        match with_game!(self.game.get(), g => g.status(self.index)) {
            Status::Open => "open",
            Status::Over(v) => v.as_str(),
            // Positions are made from used indices only.
            Status::Unused => "unused",
        }
    }

    /// The moves from this position, as (move name, child position) pairs.
    fn moves(&self) -> Vec<(String, Position)> {
        moves(self.game.get(), self.index)
            .into_iter()
            .map(|(name, child)| {
                (
                    name,
                    Position {
                        game: self.game.clone(),
                        index: child,
                    },
                )
            })
            .collect()
    }

    /// A text picture (None for a digraph).
    fn render(&self) -> Option<String> {
        self.game
            .get()
            .picture(self.index, &[], PictureStyle::Plain)
    }

    /// An SVG picture.
    fn svg(&self) -> String {
        self.game.get().svg(self.index)
    }

    /// Jupyter draws the position with this.
    fn _repr_svg_(&self) -> String {
        self.svg()
    }

    fn __str__(&self) -> String {
        self.text()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "retrodb.Position({}, game={})",
            repr(py, &self.text())?,
            repr(py, &self.game.get().spec())?
        ))
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Position>().is_ok_and(|o| {
            let o = o.get();
            o.index == self.index && o.game.get().spec() == self.game.get().spec()
        })
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.game.get().spec().hash(&mut h);
        self.index.hash(&mut h);
        h.finish()
    }
}
