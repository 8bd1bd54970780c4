//! The `retrodb` Python module: the library's tables, builds and games for Python programs
//! (`retrodb._retrodb`, re-exported by the package's `__init__.py`, which also defines the
//! exception classes).
//!
//! Everything here converts and delegates: answers come from `retrodb::table::Table` and
//! `retrodb::games::AnyGame` exactly as the command line and the server get them. The one
//! invariant: no Rust panic may reach Python, so every input is checked (indices against the
//! game's size and used positions, thread counts against the machine) before the library sees
//! it, and long work runs with the interpreter released.

use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyList, PyString};
use retrodb::games::AnyGame;
use retrodb::table::Table as RawTable;
use retrodb::table::lookup::{Ask, Lookups};
use retrodb::{Game as _, Notation as _, Status, Value, with_game};

mod build;
mod game;
mod positions;
mod pygame;

use game::{Game, GameRef, Position};
use positions::Positions;

/// A library error as the package's exception of its kind, with the command line's message.
fn error(e: retrodb::Error) -> PyErr {
    use retrodb::Error as E;
    // Chosen by variant, every one named, so a new variant must be given its class.
    let class = match &e {
        E::Input { .. } | E::InputWhole { .. } | E::Spec { .. } => "SpecError",
        E::Position(_) => "PositionError",
        // A table that is damaged or not a table, and a conversion the table refuses.
        E::Table { .. } | E::Convert(_) => "TableError",
        E::Memory { .. } | E::Disk { .. } | E::Build(_) | E::Mpi(_) | E::Rank { .. } => {
            "BuildError"
        }
        E::Io { .. } => "FileError",
        E::Interrupted(_) => return pyo3::exceptions::PyKeyboardInterrupt::new_err(e.to_string()),
        // A request the table or game cannot answer (a draw's line, values it has none of).
        E::Lookup(_) | E::Usage(_) => "RetrodbError",
    };
    raise(class, e.to_string())
}

/// A note of the library (a FIFO waited on, stale work files removed) on stderr as the command
/// line prints it, `retrodb: LINE`: straight to the process's stderr, as the library wrote it
/// before, since it may come from a thread that does not hold the interpreter.
fn note(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "retrodb: {line}");
}

/// Notes alone, for work that shows no progress (opening a game).
struct Notes;

impl retrodb::base::progress::Progress for Notes {
    fn stage(&self, _what: &str, _total: u64) {}
    fn advance(&self, _n: u64) {}
    fn step(&self, _what: &str) {}
    fn reach(&self, _done: u64) {}
    fn note(&self, line: &str) {
        note(line);
    }
}

/// The package's exception `class` (defined in `retrodb/__init__.py`) with `message`.
fn raise(class: &str, message: String) -> PyErr {
    Python::attach(|py| {
        let ty = py
            .import("retrodb")
            .and_then(|m| m.getattr(class))
            .and_then(|c| c.cast_into::<pyo3::types::PyType>().map_err(PyErr::from));
        match ty {
            Ok(ty) => PyErr::from_type(ty, message),
            Err(e) => e,
        }
    })
}

/// A position the caller named by an index that the game does not use, or outside it.
fn check_index(game: &AnyGame, index: u64) -> PyResult<u64> {
    let size = game.size();
    if index >= size {
        return Err(raise(
            "PositionError",
            format!(
                "index {index} is outside {} (indices 0..{size})",
                game.spec()
            ),
        ));
    }
    if with_game!(game, g => g.status(index)) == Status::Unused {
        return Err(raise(
            "PositionError",
            format!(
                "index {index} is not a position of {} (it can never arise)",
                game.spec()
            ),
        ));
    }
    Ok(index)
}

/// A position text's index in `game`, refused when it does not parse or names an unused index.
fn parse(game: &AnyGame, text: &str) -> PyResult<u64> {
    let pos = with_game!(game, g => g.parse_position(text))
        .map_err(|e| error(retrodb::Error::Position(e)))?;
    if with_game!(game, g => g.status(pos)) == Status::Unused {
        return Err(error(retrodb::Error::Position(
            retrodb::game::PositionError::new(
                text,
                format!("not a position of {} (it can never arise)", game.spec()),
            ),
        )));
    }
    Ok(pos)
}

/// JSON, as the command line prints it, turned into Python objects (objects become dicts).
fn json_to_py<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    use serde_json::Value as J;
    Ok(match v {
        J::Null => py.None().into_bound(py),
        J::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        J::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => u.into_pyobject(py)?.into_any(),
            (_, Some(i), _) => i.into_pyobject(py)?.into_any(),
            (_, _, f) => f.unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        J::String(s) => PyString::new(py, s).into_any(),
        J::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(json_to_py(py, item)?)?;
            }
            list.into_any()
        }
        J::Object(map) => {
            let dict = PyDict::new(py);
            for (k, item) in map {
                dict.set_item(k, json_to_py(py, item)?)?;
            }
            dict.into_any()
        }
    })
}

fn serialized<'py>(py: Python<'py>, value: &impl serde::Serialize) -> PyResult<Bound<'py, PyAny>> {
    let v = serde_json::to_value(value)
        .map_err(|e| raise("RetrodbError", format!("cannot convert an answer: {e}")))?;
    json_to_py(py, &v)
}

/// A string as Python writes it in a repr (`'hex:3'`).
fn repr(py: Python<'_>, text: &str) -> PyResult<String> {
    Ok(PyString::new(py, text).repr()?.to_str()?.to_owned())
}

/// Interned `"win"`, `"loss"`, `"draw"`: a batch answer holds three string objects, however
/// long it is.
fn value_str(py: Python<'_>, v: Value) -> Bound<'_, PyString> {
    match v {
        Value::Win => pyo3::intern!(py, "win").clone(),
        Value::Loss => pyo3::intern!(py, "loss").clone(),
        Value::Draw => pyo3::intern!(py, "draw").clone(),
    }
}

/// A table opened for lookups (`retrodb.open(path)`). Lookups take positions (texts in the
/// game's notation, or `Position` objects of the table's game) and answer for the player to
/// move: "win", "loss" or "draw". `close()` (or leaving a `with` block) lets the table go.
#[pyclass(frozen, module = "retrodb", name = "Table")]
struct Table {
    /// `None` once closed.
    inner: RwLock<Option<Arc<RawTable>>>,
    path: PathBuf,
}

/// Opens a table file (raw or compressed) for lookups. Raises TableError when the file is not a
/// table or is damaged, FileError when it cannot be read.
#[pyfunction]
fn open(py: Python<'_>, path: PathBuf) -> PyResult<Table> {
    let t = py.detach(|| RawTable::open(&path)).map_err(error)?;
    Ok(Table {
        inner: RwLock::new(Some(Arc::new(t))),
        path,
    })
}

/// The type name of a Python object, for messages.
fn type_name(item: &Bound<'_, PyAny>) -> String {
    item.get_type().name().map_or("?".into(), |n| n.to_string())
}

/// A position as a table's lookups take it: a text, or a `Position` of the table's game (whose
/// text is used). A `Position` of another game is a PositionError; anything else a TypeError.
fn position_text(table: &RawTable, what: &str, item: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(s) = item.cast::<PyString>() {
        return Ok(s.to_str()?.to_owned());
    }
    if let Ok(p) = item.cast::<Position>() {
        let p = p.get();
        let (mine, theirs) = (table.game().spec(), p.game.get().spec());
        if mine != theirs {
            return Err(raise(
                "PositionError",
                format!(
                    "position '{}': a position of {theirs}, not of the table's game {mine} \
                     (pass its text to have it read in {mine})",
                    retrodb::base::error::cut(
                        &with_game!(p.game.get(), g => g.position_text(p.index))
                    )
                ),
            ));
        }
        return Ok(with_game!(p.game.get(), g => g.position_text(p.index)));
    }
    Err(PyTypeError::new_err(format!(
        "{what} takes a position text (str) or a Position, got {}",
        type_name(item)
    )))
}

/// A position error in a batch's answer, as the HTTP batch reports one (docs/PYTHON.md):
/// `{"position": text, "error": "bad_position", "detail": message}`.
fn bad_item<'py>(py: Python<'py>, text: &str, detail: &str) -> PyResult<Bound<'py, PyAny>> {
    let d = PyDict::new(py);
    d.set_item("position", text)?;
    d.set_item("error", "bad_position")?;
    d.set_item("detail", detail)?;
    Ok(d.into_any())
}

impl Table {
    /// The open table, or ValueError once it is closed; TableError when its file has changed
    /// on disk since it was opened (one `fstat` a call: a file truncated under the map would
    /// otherwise read zeros, and one written in place another table's bytes).
    /// The value of a position the table answers for, `None` for one it does not hold (see
    /// `__contains__`); a wrong type raises TypeError and a damaged table TableError.
    fn held(
        &self,
        py: Python<'_>,
        what: &str,
        position: &Bound<'_, PyAny>,
    ) -> PyResult<Option<Value>> {
        let t = self.get()?;
        let text = match position_text(&t, what, position) {
            Ok(text) => text,
            Err(e) if e.is_instance_of::<PyTypeError>(py) => return Err(e),
            // A Position of another game.
            Err(_) => return Ok(None),
        };
        match py.detach(|| t.locate(&text)) {
            Ok((_, v)) => Ok(Some(v)),
            Err(retrodb::Error::Position(_)) => Ok(None),
            Err(e) => Err(error(e)),
        }
    }

    fn get(&self) -> PyResult<Arc<RawTable>> {
        let inner = self
            .inner
            .read()
            .map_err(|_| PyValueError::new_err("the table's lock is poisoned"))?;
        let t = inner.as_ref().map(Arc::clone).ok_or_else(|| {
            PyValueError::new_err(format!("the table {} is closed", self.path.display()))
        })?;
        t.check_unchanged().map_err(error)?;
        Ok(t)
    }
}

#[pymethods]
impl Table {
    /// Everything `retrodb probe --json` prints for one position: position, index, value,
    /// remoteness (None where there is none), game_over, the game's annotations, every move best
    /// first (its result and plies for the player making it; the child position and its value
    /// and remoteness for its own mover) and the best move.
    fn probe<'py>(
        &self,
        py: Python<'py>,
        position: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let t = self.get()?;
        let text = position_text(&t, "probe()", position)?;
        let p = py
            .detach(|| Lookups::new(&t, &Ask::default())?.probe(&text))
            .map_err(error)?;
        serialized(py, &p)
    }

    /// The best move from a position (the first of `probe()`'s moves): a dict with "move",
    /// "id", "result" and "plies" (for the player making it), "ends_game", "position", "value"
    /// and "remoteness" (for the child's mover); None where the game is over.
    fn best_move<'py>(
        &self,
        py: Python<'py>,
        position: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let t = self.get()?;
        let text = position_text(&t, "best_move()", position)?;
        let p = py
            .detach(|| Lookups::new(&t, &Ask::default())?.probe(&text))
            .map_err(error)?;
        serialized(py, &p.best)
    }

    /// The principal line from a position, on a table with remoteness: the best move ply after
    /// ply to the end of the game (the winner quickest, the loser slowest), each a dict with
    /// "move", "position", "index", "value" and "remoteness" (which falls by one a ply to 0).
    /// Empty where the game is over. Raises RetrodbError for a table without remoteness and for
    /// a draw (best play never ends).
    fn line<'py>(
        &self,
        py: Python<'py>,
        position: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let t = self.get()?;
        let text = position_text(&t, "line()", position)?;
        let steps = py
            .detach(|| {
                let lookups = Lookups::new(
                    &t,
                    &Ask {
                        line: true,
                        ..Ask::default()
                    },
                )?;
                let (pos, _) = t.locate(&text)?;
                lookups.line(pos)
            })
            .map_err(error)?;
        serialized(py, &steps)
    }

    /// The value of a position as a game, in CGSuite's notation (`{1|+-1}`, `^*`), as `retrodb
    /// probe --value` gives it: cell games' full tables (a finished board worth `free_moves`, 1
    /// to 64, to its winner) and Hackenbush. None when it would visit more than 2,000,000
    /// positions; RetrodbError for a game without values.
    #[pyo3(signature = (position, free_moves=1))]
    fn game_value(
        &self,
        py: Python<'_>,
        position: &Bound<'_, PyAny>,
        free_moves: u32,
    ) -> PyResult<Option<String>> {
        let t = self.get()?;
        let text = position_text(&t, "game_value()", position)?;
        py.detach(|| {
            let (pos, _) = t.locate(&text)?;
            retrodb::table::lookup::game_value(t.game(), pos, free_moves)
        })
        .map_err(error)
    }

    /// A sum of tokens on a digraph table built with grundy=True: `tokens` is a text such as
    /// "4+9+11" or a sequence of positions (texts, vertex ids or Positions). Everything
    /// `retrodb probe --sum --json` prints: the sum, each token's generalized Sprague-Grundy
    /// value, the outcome ("first player wins", "second player wins" or "draw"; `value` for
    /// the player to move) and every winning move.
    fn sum<'py>(&self, py: Python<'py>, tokens: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let t = self.get()?;
        let text = if let Ok(s) = tokens.cast::<PyString>() {
            s.to_str()?.to_owned()
        } else {
            let mut parts = Vec::new();
            for item in tokens.try_iter().map_err(|_| {
                PyTypeError::new_err(
                    "sum() takes a text such as '4+9+11' or a sequence of positions",
                )
            })? {
                let item = item?;
                let part = if let Ok(n) = item.extract::<u64>() {
                    n.to_string()
                } else if item.is_instance_of::<PyInt>() {
                    // Negative or beyond 2^64: no vertex id, a bad position rather than a type.
                    let shown = item.str().map_or_else(
                        |_| "an int too long to print".to_string(),
                        |s| retrodb::base::error::cut(&s.to_string_lossy()),
                    );
                    return Err(raise(
                        "PositionError",
                        format!(
                            "sum(): token {} is {shown}, not a vertex id (0 to 2^64 - 1)",
                            parts.len() + 1
                        ),
                    ));
                } else if item.is_instance_of::<PyString>() || item.cast::<Position>().is_ok() {
                    position_text(&t, "sum()", &item)?
                } else {
                    return Err(PyTypeError::new_err(format!(
                        "sum() takes positions as texts, vertex ids or Positions, got {} at item {}",
                        type_name(&item),
                        parts.len()
                    )));
                };
                parts.push(part);
            }
            parts.join("+")
        };
        let answer = py.detach(|| t.probe_sum(&text)).map_err(error)?;
        serialized(py, &answer)
    }

    /// The generalized Sprague-Grundy value of a position, on a table built with grundy=True:
    /// {"grundy": n} for a finite value, {"grundy": "inf", "reach": [...]} for an infinite one
    /// (the finite values of its followers).
    fn grundy<'py>(
        &self,
        py: Python<'py>,
        position: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let t = self.get()?;
        let text = position_text(&t, "grundy()", position)?;
        let g = py
            .detach(|| {
                let (pos, _) = t.locate(&text)?;
                t.grundy(pos)
            })
            .map_err(error)?;
        serialized(py, &g)
    }

    /// The value of a position for the player to move: "win", "loss" or "draw".
    fn value<'py>(
        &self,
        py: Python<'py>,
        position: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyString>> {
        let t = self.get()?;
        let text = position_text(&t, "value()", position)?;
        let (_, v) = py.detach(|| t.locate(&text)).map_err(error)?;
        Ok(value_str(py, v))
    }

    /// `t[position]`: the value, as `value()` (PositionError when it is not a position).
    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        position: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyString>> {
        self.value(py, position)
    }

    /// `position in t`: whether the table answers for it (a text that does not parse, or a
    /// board that can never arise, is not in it).
    fn __contains__(&self, py: Python<'_>, position: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.held(py, "in", position)?.is_some())
    }

    /// The value of a position, as `value()`, or None where the table does not answer for it
    /// (a text that does not parse, a board that can never arise, a Position of another game);
    /// a damaged table still raises TableError.
    #[pyo3(name = "get")]
    fn get_value<'py>(
        &self,
        py: Python<'py>,
        position: &Bound<'py, PyAny>,
    ) -> PyResult<Option<Bound<'py, PyString>>> {
        Ok(self.held(py, "get()", position)?.map(|v| value_str(py, v)))
    }

    /// The values of many positions, in their order, looked up in parallel with the interpreter
    /// released. A position that is not one of the game's does not stop the batch: its place
    /// holds {"position": text, "error": "bad_position", "detail": message}, as the HTTP
    /// batch answers it. A damaged table raises TableError.
    fn values<'py>(
        &self,
        py: Python<'py>,
        positions: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let t = self.get()?;
        if positions.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(
                "values() takes a sequence of positions, not one text (use value())",
            ));
        }
        // The texts are copied into one buffer, so the lookup runs without the interpreter. A
        // Position of another game is answered as a bad position in its place.
        let mut bytes: Vec<u8> = Vec::new();
        let mut ends: Vec<usize> = Vec::new();
        // Positions of another game: (place, their own text, why).
        let mut refused: Vec<(usize, String, String)> = Vec::new();
        let mut push = |item: &Bound<'py, PyAny>| -> PyResult<()> {
            let at = ends.len();
            match position_text(&t, "values()", item) {
                Ok(text) => bytes.extend_from_slice(text.as_bytes()),
                Err(e) if e.is_instance_of::<PyTypeError>(py) => {
                    return Err(PyTypeError::new_err(format!("{} (item {at})", e.value(py))));
                }
                Err(e) => {
                    let own = item
                        .cast::<Position>()
                        .map(|p| p.get().text())
                        .unwrap_or_default();
                    refused.push((at, own, e.value(py).to_string()));
                }
            }
            ends.push(bytes.len());
            Ok(())
        };
        if let Ok(list) = positions.cast::<PyList>() {
            for item in list.iter() {
                push(&item)?;
            }
        } else {
            for item in positions.try_iter()? {
                push(&item?)?;
            }
        }
        let text = std::str::from_utf8(&bytes).expect("copied from str objects");
        let mut start = 0;
        let texts: Vec<&str> = ends
            .iter()
            .map(|&end| {
                let t = &text[start..end];
                start = end;
                t
            })
            .collect();
        let answers = py.detach(|| t.values_of_texts(&texts));
        let mut refused = refused.into_iter().peekable();
        let mut values: Vec<Bound<'py, PyAny>> = Vec::with_capacity(answers.len());
        for (k, (a, text)) in answers.into_iter().zip(&texts).enumerate() {
            if refused.peek().is_some_and(|(at, _, _)| *at == k) {
                let (_, own, message) = refused.next().expect("peeked");
                values.push(bad_item(py, &own, &message)?);
                continue;
            }
            match a {
                Ok(v) => values.push(value_str(py, v).into_any()),
                Err(retrodb::Error::Position(e)) => {
                    values.push(bad_item(py, text, &e.to_string())?)
                }
                Err(e) => return Err(error(e)),
            }
        }
        PyList::new(py, values)
    }

    /// The remoteness of a position (plies to the end under best play), or None for a draw or
    /// a table built without remoteness.
    fn remoteness(&self, py: Python<'_>, position: &Bound<'_, PyAny>) -> PyResult<Option<u32>> {
        let t = self.get()?;
        let text = position_text(&t, "remoteness()", position)?;
        py.detach(|| {
            let (pos, _) = t.locate(&text)?;
            t.remoteness(pos)
        })
        .map_err(error)
    }

    /// What `retrodb info --json` prints: the game, format, encoding, value counts and sizes.
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        serialized(py, &self.get()?.info())
    }

    /// Every position of the table with its value, as (text, value) pairs in index order, read
    /// a block at a time (nothing is held beyond the block being read).
    fn positions(&self) -> PyResult<Positions> {
        Ok(Positions::new(self.get()?))
    }

    /// The table's game (the same rules and notation the table answers in).
    #[getter]
    fn game(&self) -> PyResult<Game> {
        Ok(Game {
            game: GameRef::Table(self.get()?),
        })
    }

    /// The game spec the table was built for, e.g. "hex:4".
    #[getter]
    fn spec(&self) -> PyResult<String> {
        Ok(self.get()?.header().spec.clone())
    }

    /// The table file's path.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// Whether `close()` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.inner.read().map_or(true, |t| t.is_none())
    }

    /// Lets the table go: its memory map is unmapped once nothing made from it (an iterator of
    /// `positions()`, its `game` and their Positions) holds it any more. Lookups afterwards raise
    /// ValueError. Closing twice is allowed.
    fn close(&self) {
        if let Ok(mut t) = self.inner.write() {
            t.take();
        }
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// Closes the table at the end of a `with` block; exceptions go on.
    fn __exit__(
        &self,
        _kind: &Bound<'_, PyAny>,
        _value: &Bound<'_, PyAny>,
        _traceback: &Bound<'_, PyAny>,
    ) -> bool {
        self.close();
        false
    }

    /// The number of positions (used indices) the table answers for.
    fn __len__(&self) -> PyResult<usize> {
        let t = self.get()?;
        let h = t.header();
        Ok(h.size.saturating_sub(h.counts[0]) as usize)
    }

    fn __repr__(&self) -> String {
        match self.get() {
            Ok(t) => {
                let i = t.info();
                format!(
                    "<retrodb.Table {} ({} positions, {}) at {}>",
                    i.game, i.positions, i.encoding, i.file
                )
            }
            Err(_) => format!("<retrodb.Table closed at {}>", self.path.display()),
        }
    }
}

#[pymodule]
fn _retrodb(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // `import retrodb` on a CPU without the build's instructions: an ImportError that says
    // which, not a crashed interpreter.
    // The core reads no environment variable: the module hands it RETRODB_CPU and
    // RETRODB_PRETEND_CPU_LACKS, as the command line does.
    retrodb::base::cpu::choose(retrodb::base::cpu::Choice::from_variables(|name| {
        std::env::var(name).ok()
    }));
    if let Some(message) = retrodb::base::cpu::unsupported_message() {
        return Err(pyo3::exceptions::PyImportError::new_err(message));
    }
    m.add_function(wrap_pyfunction!(open, m)?)?;
    m.add_function(wrap_pyfunction!(build::build, m)?)?;
    m.add_class::<Table>()?;
    m.add_class::<Positions>()?;
    m.add_class::<Game>()?;
    m.add_class::<Position>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
