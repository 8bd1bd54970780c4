//! A finished table of a Shannon edge game (`shannon:FILE` or `bridgit:N`, any index) compared
//! with Lehman's criterion at random positions: the check `retrodb verify --lehman N` runs on
//! tables too large to compare whole.
//!
//! The invariant: the expected value comes from [`super::lehman`] alone (the graph, the claims
//! and the mover, read from the position text); the table is only read.

use rayon::prelude::*;

use super::lehman::EdgeGame;
use super::sweep::{Tally, add_tallies, parse_position};
use crate::apps::error::{AppError, OracleError, Result};
use crate::base::splitmix;
use crate::game::{Game, Notation, Value};
use crate::games::cell::{Board, Graph, Layout};
use crate::table::Table;

/// What [`lehman_sample`] found.
#[derive(Clone, Debug, serde::Serialize)]
pub struct LehmanReport {
    /// Positions compared (random indices; an index with no position is drawn again).
    pub checked: u64,
    pub disagreements: u64,
    /// Up to five disagreements: position, table value, Lehman's value.
    pub examples: Vec<String>,
}

/// The Lehman game of a table's game, or why it has none.
fn edge_game(table: &Table) -> Result<EdgeGame> {
    let spec = &table.header().spec;
    let refuse = || {
        AppError::Oracle(OracleError::NotEdgeGame {
            path: table.path().display().to_string(),
            spec: spec.clone(),
        })
    };
    let Some(g) = table.game().cell_game() else {
        return Err(refuse());
    };
    let graph = match g.layout() {
        Layout::Edges(graph) => graph.clone(),
        Layout::Board(b @ Board::Bridgit(_)) => b.graph(),
        _ => return Err(refuse()),
    };
    lehman_game_of(&graph, spec)
}

/// Lehman's game of a cell game's graph (Short joins its terminals, edge `i` is cell `i`), or
/// why the oracle takes none; `spec` names the game in the error.
pub fn lehman_game_of(graph: &Graph, spec: &str) -> Result<EdgeGame> {
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
        AppError::Oracle(OracleError::Unsupported {
            spec: spec.to_string(),
            reason: e.to_string(),
        })
    })
}

/// Draw `k` of a sample of `table` (`size` indices) with `seed`: the first index drawn from it
/// that holds a position (sliced and plain indices have none unused, but a table may), and its
/// value.
fn draw_position(table: &Table, size: u64, seed: u64, k: u64) -> Result<(u64, Value)> {
    let mut draw = k;
    loop {
        let pos = splitmix::hash(seed ^ splitmix::hash(draw)) % size.max(1);
        if let Some(v) = table.value(pos)? {
            return Ok((pos, v));
        }
        draw = draw.wrapping_add(splitmix::GAMMA);
    }
}

/// The tallies of draws `0..count`, each made by `one`, in parallel, as a report.
fn sample(count: u64, one: impl Fn(u64) -> Result<Tally> + Sync + Send) -> Result<LehmanReport> {
    let (checked, disagreements, examples) = (0..count)
        .into_par_iter()
        .map(one)
        .try_reduce(Tally::default, add_tallies)?;
    Ok(LehmanReport {
        checked,
        disagreements,
        examples,
    })
}

/// Compares `count` random positions of `other` (the same ones for the same `seed`) with the
/// values `table` gives the same positions, found by their text (tables of one board with other
/// indices: `bridgit:4,start=L,sym` against `bridgit:4,sym`), in parallel. A position of
/// `other` that `table` does not hold counts as a disagreement. The report's shape is
/// [`lehman_sample`]'s.
pub fn tables_sample(table: &Table, other: &Table, count: u64, seed: u64) -> Result<LehmanReport> {
    same_game(table, other)?;
    let size = other.header().size;
    let one = |k: u64| -> Result<Tally> {
        let (pos, want) = draw_position(other, size, seed, k)?;
        let text = crate::with_game!(other.game(), g => g.position_text(pos));
        Ok(match table.locate(&text) {
            Ok((_, got)) if got == want => (1, 0, Vec::new()),
            Ok((_, got)) => (1, 1, vec![format!("{text}: {got} here, {want} there")]),
            Err(e) => (1, 1, vec![format!("{text}: {e}")]),
        })
    };
    sample(count, one)
}

/// Refuses two tables of different games before any position is compared (a table of another
/// board gave a million disagreements): their specs without the index's suffixes (',start=...',
/// ',sym', ',sliced') must be one, or, for games read from a file, the files' bytes (length and
/// xxh3) the same.
fn same_game(table: &Table, other: &Table) -> Result<()> {
    let plain = |t: &Table| crate::games::cell::plain_spec(&t.header().spec).to_string();
    let (a, b) = (plain(table), plain(other));
    let kind = |s: &str| {
        s.split_once(':')
            .map_or(s.to_string(), |(k, _)| k.to_string())
    };
    let same_file = match (table.game().source(), other.game().source()) {
        (Some(x), Some(y)) => kind(&a) == kind(&b) && (x.len, x.hash) == (y.len, y.hash),
        _ => false,
    };
    if a == b || same_file {
        return Ok(());
    }
    Err(crate::Error::Usage(format!(
        "verify --against: {} is a table of {} and {} one of {}: the positions of one game \
         are compared only with a table of the same game",
        table.path().display(),
        table.header().spec,
        other.path().display(),
        other.header().spec
    ))
    .into())
}

/// Compares `count` random positions of `table` (the same ones for the same `seed`) with
/// Lehman's criterion, in parallel.
pub fn lehman_sample(table: &Table, count: u64, seed: u64) -> Result<LehmanReport> {
    let oracle = edge_game(table)?;
    let Some(g) = table.game().cell_game() else {
        unreachable!("edge_game accepts cell games only")
    };
    let size = g.size();
    let cells = g.cells() as usize;
    let one = |k: u64| -> Result<Tally> {
        let (pos, got) = draw_position(table, size, seed, k)?;
        let text = g.position_text(pos);
        // The text names the mover (`/L` or `/R`); Left is Short, the connector.
        let (claims, mover) = parse_position(&text, cells)?;
        let want = oracle.value(&claims, mover).map_err(|e| {
            crate::apps::oracle::sweep::oracle_refused(&table.header().spec, &text, e)
        })?;
        Ok(if got == want {
            (1, 0, Vec::new())
        } else {
            (1, 1, vec![format!("{text}: table {got}, Lehman {want}")])
        })
    };
    sample(count, one)
}
