//! `retrodb research bridgit`: every strategy and conjecture of this module checked against a
//! complete table of Bridg-It of one size, with the smallest counterexample of each claim.
//!
//! Positions are every open configuration of the board with either player to move — the table's
//! whole index — and, separately, those that arise in play (Left moving first, so Left to move
//! with equal counts or Right to move with one more Left cell). The invariant: every figure comes
//! from cell states and the table's values, and every counterexample carries the position text and
//! the table values that make it one, so `retrodb probe` reproduces it.
//!
//! The files: `figures` holds the reported figures, `scan` checks each claim at each position
//! against the table (the pairwise comparisons in `tally`), `spanning` plays the spanning-tree
//! strategy's lines, `sample` runs the claims that need values (and remoteness, when the table
//! has it) on a uniform random sample of the play population (for boards too large to scan
//! whole), and `text` renders a report for the terminal. `source` is where a scan reads values:
//! a table, or Lehman's criterion, which `lehman_sample` uses to sample every configuration (or
//! the play population) of sizes with no table; `late` tests the ranking in the game order on
//! late positions, building each option's canonical form from the position.

mod boards;
mod figures;
mod late;
mod lehman_sample;
mod measures;
mod sample;
mod scan;
mod spanning;
mod tally;
mod text;
mod value_source;

use std::path::Path;

use rayon::prelude::*;

use super::order::GameOrder;
use crate::apps::error::{AppError, ResearchError, Result};
use crate::base::progress::Progress;
use crate::game::Game;
use crate::table::Table;
use boards::{bridgit_game, draw_counterexamples};
pub use figures::{
    Counterexample, Estimate, LeftOut, LehmanFigures, NamedMove, OptionalFigures,
    OutcomeClassFigures, Population, Proportion, RankingFigures, Report, SampleFigures,
    SpanningTreeFigures, TableOrderFigures, ValuesSummary,
};
pub use late::{LateReport, LateTier, research_late};
pub use lehman_sample::{SamplePopulation, research_lehman};
pub use measures::exact_shares;
pub use sample::research_sample;
use scan::{ClaimChecker, Detail, Findings, RANKINGS};
use spanning::spanning_tree_lines;
pub use text::render_text;
use value_source::{LehmanCheck, Source};

/// Opens the Bridg-It table of size `n` with remoteness at `path` (default: the table cache,
/// [`crate::apps::cache`]), building it first when the file is absent (reporting to
/// `progress`).
pub fn open_or_build(
    n: u32,
    path: Option<&Path>,
    progress: std::sync::Arc<dyn Progress>,
) -> Result<(Table, bool)> {
    Ok(crate::apps::cache::open_or_build(
        &format!("bridgit:{n}"),
        path,
        progress,
    )?)
}

/// The conventions `C` the game order is tested under by default: a finished board is worth
/// 1, 2, 3 or 4 free moves to its winner.
pub const DEFAULT_CONVENTIONS: [u32; 4] = [1, 2, 3, 4];

/// Runs every check on Bridg-It of size `n` against its table, the game order under each
/// convention of `conventions` (the first gives the counterexamples). `svg_dir` receives one
/// SVG per counterexample (named `bridgit-N-CLAIM.svg`).
pub fn research(
    n: u32,
    table: &Table,
    conventions: &[u32],
    svg_dir: Option<&Path>,
) -> Result<Report> {
    research_with_progress(
        n,
        table,
        conventions,
        svg_dir,
        &crate::base::progress::Silent,
    )
}

/// [`research`], reporting the positions scanned on `progress` (one stage, no words).
pub fn research_with_progress(
    n: u32,
    table: &Table,
    conventions: &[u32],
    svg_dir: Option<&Path>,
    progress: &dyn Progress,
) -> Result<Report> {
    let game = bridgit_game(n, table)?;
    // The scan counts stored positions: a table of one per symmetry class (`bridgit:N,sym`)
    // or of the positions alternation reaches is not the population it reports on.
    if game.start().is_some() || game.sliced().is_some() || !table.has_remoteness() {
        return Err(ResearchError::NotComplete {
            path: table.path().display().to_string(),
            spec: game.spec(),
            n,
            remoteness: table.has_remoteness(),
        }
        .into());
    }
    if conventions.is_empty() || conventions.contains(&0) {
        return Err(ResearchError::Conventions.into());
    }
    let orders = conventions
        .iter()
        .map(|&c| GameOrder::new(game, c))
        .collect::<Result<Vec<_>>>()?;
    let scan = ClaimChecker::new(
        Source::Table {
            game,
            table,
            check: None,
        },
        n,
        &orders,
        Detail::Full,
    );
    let lehman = LehmanCheck::new(n)?;
    let (spanning_tree, st_loss) = spanning_tree_lines(&scan, n)?;
    const CHUNK: u64 = 1 << 12;
    let chunks = game.size().div_ceil(CHUNK);
    progress.stage("", game.size());
    let acc = (0..chunks)
        .into_par_iter()
        .map(|k| {
            let mut found = Findings::new(conventions, Detail::Full);
            let end = ((k + 1) * CHUNK).min(game.size());
            for pos in k * CHUNK..end {
                if let Some(value) = table.value(pos)? {
                    lehman.compare(pos, &game.states(pos), game.mover(pos), value)?;
                }
                scan.position(game, pos, &mut found)?;
            }
            progress.advance(end - k * CHUNK);
            Ok::<Findings, AppError>(found)
        })
        .try_reduce(
            || Findings::new(conventions, Detail::Full),
            |a, b| Ok(a.merge(b)),
        )?;
    let mut counterexamples: Vec<Counterexample> =
        st_loss.into_iter().chain(acc.found.into_values()).collect();
    let lehman_check = lehman.figures(table, "every position of the table")?;
    draw_counterexamples(n, &mut counterexamples, svg_dir, progress)?;
    Ok(Report {
        game: game.spec(),
        size: n,
        table: table.path().display().to_string(),
        lehman_check: Some(lehman_check),
        spanning_tree: Some(spanning_tree),
        game_order_same_for_every_c: Some(acc.pops.iter().all(|p| {
            let first = &p.game_order[..RANKINGS.len()];
            p.pairs_order_depends_on_c == Some(0)
                && p.game_order
                    .chunks(RANKINGS.len())
                    .all(|c| c.iter().zip(first).all(|(a, b)| a.counts() == b.counts()))
        })),
        game_values: orders
            .iter()
            .map(|o| ValuesSummary {
                free_moves: o.free_moves,
                distinct_values: o.distinct(),
            })
            .collect(),
        populations: acc.pops.to_vec(),
        sample: None,
        counterexamples,
    })
}

#[cfg(test)]
mod tests;
