//! The Bridg-It game a report's table holds, and the pictures of its counterexamples.

use std::path::Path;

use super::figures::Counterexample;
use crate::apps::error::{ResearchError, Result};
use crate::base::progress::Progress;
use crate::game::Game;
use crate::games::cell::{Board, Layout, picture};
use crate::table::Table;

/// The cell game of `table`, which must be Bridg-It of size `n` (any index: every
/// configuration, or those alternation reaches with Left first, sliced or symmetric).
pub(super) fn bridgit_game(n: u32, table: &Table) -> Result<&crate::games::cell::CellGame> {
    let Some(game) = table.game().cell_game() else {
        return Err(ResearchError::NotBridgit.into());
    };
    if game.layout() != &Layout::Board(Board::Bridgit(n)) {
        return Err(ResearchError::OtherSize {
            path: table.path().display().to_string(),
            spec: game.spec(),
            n,
        }
        .into());
    }
    Ok(game)
}

/// Draws each counterexample from its own position text (so a symmetric table's stored image
/// never stands in for it), as text and, with `svg_dir`, as an SVG file
/// `bridgit-N-CLAIM.svg` there (written as every output is, [`crate::table::OutputFile`]; the
/// stale work files it removes told to `progress`).
pub(super) fn draw_counterexamples(
    n: u32,
    counterexamples: &mut [Counterexample],
    svg_dir: Option<&Path>,
    progress: &dyn Progress,
) -> Result<()> {
    let layout = Layout::Board(Board::Bridgit(n));
    let file_of = |c: &Counterexample| format!("bridgit-{n}-{}.svg", c.claim.replace('.', "-"));
    // Every picture's name is checked before the first is written, so that a refused one
    // leaves the directory as it was.
    if let Some(dir) = svg_dir {
        crate::table::output_dir(dir)?;
        for c in counterexamples.iter() {
            crate::table::check_output(&dir.join(file_of(c)), &[])?;
        }
    }
    for c in counterexamples {
        let (states, mover) =
            crate::games::cell::notation::parse_cells(&c.position, layout.cell_count())?;
        let draw = |style| picture::draw(&layout, &states, mover, &c.cells, style);
        c.picture = draw(picture::Style::Plain).unwrap_or_default();
        if let Some(dir) = svg_dir {
            let file = file_of(c);
            let svg = draw(picture::Style::Svg).unwrap_or_default();
            crate::table::write_output(&dir.join(&file), svg.as_bytes(), progress)?;
            c.svg = Some(file);
        }
    }
    Ok(())
}
