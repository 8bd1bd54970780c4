//! A game written in Python, read into a move graph: `retrodb.build(game, path)` with a game
//! object instead of a spec. The object gives `name`, `size` and two batched callbacks on NumPy
//! arrays, `status(positions) -> codes` (uint8: `retrodb.OPEN`, `WIN`, `LOSS`, `DRAW`, `UNUSED`)
//! and `children(positions) -> (counts, children)` (uint32 and uint64, the open positions'
//! children concatenated), and optionally `tier(positions) -> tiers` (uint32, every move to a
//! higher tier: the tiered engine solves it); retrodb asks them over every index in batches and
//! holds the graph in
//! native memory ([`retrodb::games::explicit::MoveGraph`]), which the engine solves like any
//! game (`graph:NAME,N`).
//!
//! Invariant: every answer is checked before it is kept (its type, its length, every child
//! below `size` and used, every open position with children), and a callback that breaks one
//! or raises is reported naming the callback and the position, with the Python exception as
//! the cause; nothing is written before the graph is whole.

use pyo3::buffer::{Element, PyBuffer};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use retrodb::games::AnyGame;
use retrodb::games::explicit::{Explicit, MAX_POSITIONS, MoveGraph, OPEN, UNUSED};

use crate::raise;

/// Positions a callback is asked about at once.
const BATCH: u64 = 1 << 20;

/// Positions asked about a second time, to see that the answers do not change.
const SAMPLE: u64 = 4096;

/// The game's error: `GameError` naming the callback, the Python exception (if any) its cause.
fn game_error(py: Python<'_>, what: String, cause: Option<PyErr>) -> PyErr {
    let e = raise("GameError", what);
    if let Some(c) = cause {
        e.set_cause(py, Some(c));
    }
    e
}

/// The elements of `obj`, an array of `T` (`dtype`, for the message) and `len` long, as
/// `callback`'s answer for the batch from `first`.
fn array<T: Element + Copy>(
    obj: &Bound<'_, PyAny>,
    len: Option<usize>,
    callback: &str,
    dtype: &str,
    first: u64,
) -> PyResult<Vec<T>> {
    let py = obj.py();
    let bad = |why: String| {
        game_error(
            py,
            format!("{callback} (the batch from position {first}): {why}"),
            None,
        )
    };
    let buffer = PyBuffer::<T>::get(obj).map_err(|_| {
        let ty = obj
            .getattr("dtype")
            .map(|d| d.to_string())
            .unwrap_or_else(|_| obj.get_type().to_string());
        bad(format!("expected a NumPy array of {dtype}, got {ty}"))
    })?;
    let v = buffer.to_vec(py)?;
    match len {
        Some(n) if v.len() != n => Err(bad(format!(
            "expected {n} {dtype} values, one a position, got {}",
            v.len()
        ))),
        _ => Ok(v),
    }
}

/// Calls `callback` of `game` with `positions`, naming it and the batch where it raises.
fn call<'py>(
    game: &Bound<'py, PyAny>,
    callback: &str,
    positions: &Bound<'py, PyAny>,
    first: u64,
) -> PyResult<Bound<'py, PyAny>> {
    let py = game.py();
    game.call_method1(callback, (positions,)).map_err(|e| {
        // Ctrl-C while the callback runs is the user's, not the game's.
        if e.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py) {
            return e;
        }
        game_error(
            py,
            format!("{callback} raised an exception on the batch from position {first}"),
            Some(e),
        )
    })
}

/// The move graph of the Python game `game`, read in batches (see the module).
pub fn read(py: Python<'_>, game: &Bound<'_, PyAny>, progress: bool) -> PyResult<AnyGame> {
    let name: String = game
        .getattr("name")
        .and_then(|n| n.extract())
        .map_err(|e| game_error(py, "the game's `name` is not a string".into(), Some(e)))?;
    let size: u64 = game
        .getattr("size")
        .and_then(|n| n.extract())
        .map_err(|e| {
            game_error(
                py,
                "the game's `size` is not a whole number".into(),
                Some(e),
            )
        })?;
    if size == 0 || size > MAX_POSITIONS {
        return Err(game_error(
            py,
            format!("size {size}: a game has from 1 to {MAX_POSITIONS} positions"),
            None,
        ));
    }
    let mut rows = Rows {
        size,
        codes: Vec::with_capacity(size as usize),
        off: vec![0],
        to: Vec::new(),
    };
    // The optional tiers: an acyclic game's, every move to a higher tier.
    let tiered = game.hasattr("tier")?;
    let mut tiers = Vec::new();
    let stderr = py.import("sys")?.getattr("stderr")?;
    let mut first = 0;
    while first < size {
        py.check_signals()?;
        let end = (first + BATCH).min(size);
        let (codes, counts, kids) = read_batch(game, first, end)?;
        rows.append(py, first, &codes, &counts, &kids)?;
        if tiered {
            let positions = arange(py, first, end)?;
            let answer = call(game, "tier", &positions, first)?;
            let len = Some((end - first) as usize);
            tiers.extend(array::<u32>(&answer, len, "tier", "uint32", first)?);
        }
        if progress {
            let line = format!("\rreading {name}: {end} of {size} positions");
            let _ = stderr.call_method1("write", (line,));
        }
        first = end;
    }
    if progress {
        let _ = stderr.call_method1("write", ("\n",));
    }
    rows.check_children(py)?;
    rows.ask_again(game)?;
    let mut graph =
        MoveGraph::new(rows.codes, rows.off, rows.to).map_err(|e| game_error(py, e, None))?;
    if tiered {
        graph = graph
            .with_tiers(tiers)
            .map_err(|e| game_error(py, format!("tier: {e}"), None))?;
    }
    Explicit::new(&name, graph)
        .map(retrodb::games::Family::into_any)
        .map_err(crate::error)
}

/// `numpy.FUNCTION(*args, dtype=numpy.uint64)`: positions as the callbacks take them.
fn uint64s<'py>(
    py: Python<'py>,
    function: &str,
    args: impl pyo3::call::PyCallArgs<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    let numpy = py.import("numpy")?;
    let kwargs = pyo3::types::PyDict::new(py);
    kwargs.set_item("dtype", numpy.getattr("uint64")?)?;
    numpy.call_method(function, args, Some(&kwargs))
}

/// The positions `first..end` as a NumPy array of uint64.
fn arange(py: Python<'_>, first: u64, end: u64) -> PyResult<Bound<'_, PyAny>> {
    uint64s(py, "arange", (first, end))
}

/// `positions` as a NumPy array of uint64.
fn positions_array<'py>(py: Python<'py>, positions: &[u64]) -> PyResult<Bound<'py, PyAny>> {
    uint64s(py, "array", (pyo3::types::PyList::new(py, positions)?,))
}

/// The batch `first..end` of `game`: its status codes and, for its open positions, their
/// children's counts and the children, each answer checked for its type and length.
fn read_batch(
    game: &Bound<'_, PyAny>,
    first: u64,
    end: u64,
) -> PyResult<(Vec<u8>, Vec<u32>, Vec<u64>)> {
    let py = game.py();
    let numpy = py.import("numpy")?;
    let positions = arange(py, first, end)?;
    let codes: Vec<u8> = array(
        &call(game, "status", &positions, first)?,
        Some((end - first) as usize),
        "status",
        "uint8",
        first,
    )?;
    if let Some(i) = codes.iter().position(|&c| c > UNUSED) {
        return Err(game_error(
            py,
            format!(
                "status: position {} has code {}, none of retrodb.OPEN, WIN, LOSS, DRAW, \
                 UNUSED (0-4)",
                first + i as u64,
                codes[i]
            ),
            None,
        ));
    }
    let open = codes.iter().filter(|&&c| c == OPEN).count();
    if open == 0 {
        return Ok((codes, Vec::new(), Vec::new()));
    }
    // The open positions of the batch, picked by NumPy from the codes checked above.
    let codes_array = numpy.call_method1("frombuffer", (PyBytes::new(py, &codes), "uint8"))?;
    let mask = numpy.call_method1("equal", (codes_array, OPEN))?;
    let asked = positions.get_item(mask)?;
    let answer = call(game, "children", &asked, first)?;
    let pair = answer
        .cast::<PyTuple>()
        .ok()
        .filter(|t| t.len() == 2)
        .ok_or_else(|| {
            let what = format!(
                "children (the batch from position {first}): expected a pair (counts, children)"
            );
            game_error(py, what, None)
        })?;
    let counts = array(&pair.get_item(0)?, Some(open), "children", "uint32", first)?;
    let kids = array::<u64>(&pair.get_item(1)?, None, "children", "uint64", first)?;
    let total: u64 = counts.iter().map(|&c| c as u64).sum();
    if total != kids.len() as u64 {
        return Err(game_error(
            py,
            format!(
                "children (the batch from position {first}): the counts add up to {total}, but \
                 {} children were given",
                kids.len()
            ),
            None,
        ));
    }
    Ok((codes, counts, kids))
}

/// The move graph as it is read: the codes and, in compressed rows, the children.
struct Rows {
    size: u64,
    codes: Vec<u8>,
    off: Vec<u64>,
    to: Vec<u32>,
}

impl Rows {
    /// Appends the batch from `first`: every open position has children, all below the size.
    fn append(
        &mut self,
        py: Python<'_>,
        first: u64,
        codes: &[u8],
        counts: &[u32],
        kids: &[u64],
    ) -> PyResult<()> {
        let (mut k, mut at) = (0usize, 0usize);
        for (i, &code) in codes.iter().enumerate() {
            let p = first + i as u64;
            if code == OPEN {
                let n = counts[k] as usize;
                if n == 0 {
                    let what = format!(
                        "children: position {p} is open (status OPEN) but has no children; a \
                         game that is over says WIN, LOSS or DRAW"
                    );
                    return Err(game_error(py, what, None));
                }
                for &c in &kids[at..at + n] {
                    if c >= self.size {
                        let what = format!(
                            "children: position {p} has child {c}, outside 0..{} (size)",
                            self.size
                        );
                        return Err(game_error(py, what, None));
                    }
                    self.to.push(c as u32);
                }
                k += 1;
                at += n;
            }
            self.off.push(self.to.len() as u64);
        }
        self.codes.extend_from_slice(codes);
        Ok(())
    }

    /// Asks `game` again about a sample of positions spread over the index (the same every
    /// time) and refuses answers that differ from the first ones: a game whose answers change
    /// between calls (state kept between calls, randomness) would give a table of no game.
    fn ask_again(&self, game: &Bound<'_, PyAny>) -> PyResult<()> {
        let py = game.py();
        let n = self.size.min(SAMPLE);
        let sample: Vec<u64> = (0..n).map(|i| i * self.size / n).collect();
        let asked = positions_array(py, &sample)?;
        let codes: Vec<u8> = array(
            &call(game, "status", &asked, 0)?,
            Some(sample.len()),
            "status",
            "uint8",
            0,
        )?;
        let changed = |callback: &str, p: u64| {
            let what = format!(
                "{callback} answered for position {p} otherwise when asked again: a game's \
                 answers must not change between calls"
            );
            game_error(py, what, None)
        };
        for (&p, &c) in sample.iter().zip(&codes) {
            if c != self.codes[p as usize] {
                return Err(changed("status", p));
            }
        }
        let open: Vec<u64> = sample
            .into_iter()
            .filter(|&p| self.codes[p as usize] == OPEN)
            .collect();
        if open.is_empty() {
            return Ok(());
        }
        let asked = positions_array(py, &open)?;
        let answer = call(game, "children", &asked, 0)?;
        let pair = answer.cast::<PyTuple>().ok().filter(|t| t.len() == 2);
        let Some(pair) = pair else {
            return Err(changed("children", open[0]));
        };
        let counts: Vec<u32> = array(
            &pair.get_item(0)?,
            Some(open.len()),
            "children",
            "uint32",
            0,
        )?;
        let kids: Vec<u64> = array(&pair.get_item(1)?, None, "children", "uint64", 0)?;
        let mut at = 0usize;
        for (&p, &count) in open.iter().zip(&counts) {
            let row = &self.to[self.off[p as usize] as usize..self.off[p as usize + 1] as usize];
            let again = kids.get(at..at + count as usize);
            if again.is_none_or(|k| !k.iter().map(|&c| c as u32).eq(row.iter().copied())) {
                return Err(changed("children", p));
            }
            at += count as usize;
        }
        Ok(())
    }

    /// Refuses a child that status calls unused (known once every code is).
    fn check_children(&self, py: Python<'_>) -> PyResult<()> {
        for p in 0..self.codes.len() {
            for &c in &self.to[self.off[p] as usize..self.off[p + 1] as usize] {
                if self.codes[c as usize] == UNUSED {
                    let what =
                        format!("children: position {p} has child {c}, which status calls UNUSED");
                    return Err(game_error(py, what, None));
                }
            }
        }
        Ok(())
    }
}
