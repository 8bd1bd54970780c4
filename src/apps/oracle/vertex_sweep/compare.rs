//! The comparisons of one solved pair of the vertex sweep: the table's reading of position
//! texts, every value against the minimax, and the tiered engine's table against the counter
//! engine's. A table is read through a function from index to cell code, so a deliberate fault
//! can change one value without copying the table.
//!
//! Invariant: every disagreement is counted; only the first [`EXAMPLES`] are kept as text.

use super::{EXAMPLES, IndexMap, MOVERS};
use crate::apps::error::Result;
use crate::apps::oracle::lehman::{Class, Player};
use crate::apps::oracle::vertex::{Minimax, position_text};
use crate::base::cells::{self, Cells};
use crate::game::Notation;
use crate::solve::{SolveOptions, counter};

/// One pair's disagreements: all counted, the first [`EXAMPLES`] kept.
#[derive(Default)]
pub(super) struct Notes {
    pub(super) disagreements: u64,
    pub(super) examples: Vec<String>,
}

impl Notes {
    pub(super) fn note(&mut self, text: String) {
        self.disagreements += 1;
        if self.examples.len() < EXAMPLES {
            self.examples.push(text);
        }
    }
}

/// This table's own reading of three texts, the empty positions and the one of code `other` with
/// Cut to move, against the indices other tables of its size gave them.
pub(super) fn check_texts<G: Notation>(
    game: &G,
    cells: usize,
    map: &IndexMap,
    other: usize,
    notes: &mut Notes,
) -> Result<()> {
    for (code, mover) in [(0, Player::Short), (0, Player::Cut), (other, Player::Cut)] {
        let text = position_text(cells, code, mover);
        let pos = game.parse_position(&text)?;
        let want = map.at[code][(mover == Player::Cut) as usize];
        if pos != want {
            notes.note(format!(
                "{text}: parses to index {pos}, other tables of its size to {want}"
            ));
        }
    }
    Ok(())
}

/// The index at `position` and the cell code it holds flipped between win and loss (a deliberate
/// fault, for tests).
pub(super) fn flip<G: Notation>(
    game: &G,
    position: &str,
    value: impl Fn(u64) -> u8,
) -> Result<(u64, u8)> {
    let pos = game.parse_position(position)?;
    let flipped = match value(pos) {
        cells::WIN => cells::LOSS,
        _ => cells::WIN,
    };
    Ok((pos, flipped))
}

/// The table's class: its values at the two empty positions (`None` if either is undecided or
/// the pair is no class).
pub(super) fn table_class(value: impl Fn(u64) -> u8, map: &IndexMap) -> Option<Class> {
    let empty = map.at[0];
    match (cells::value(value(empty[0])), cells::value(value(empty[1]))) {
        (Some(s), Some(c)) => Class::from_values(s, c),
        _ => None,
    }
}

/// Every position's value against the minimax, and the empty position's class against the
/// minimax's: the positions compared.
pub(super) fn against_minimax(
    value: impl Fn(u64) -> u8,
    map: &IndexMap,
    minimax: &Minimax,
    notes: &mut Notes,
) -> u64 {
    let mut positions = 0u64;
    for (code, at) in map.at.iter().enumerate() {
        for (&pos, mover) in at.iter().zip(MOVERS) {
            positions += 1;
            let want = minimax.value(code, mover);
            let got = cells::value(value(pos));
            if got != Some(want) {
                notes.note(format!(
                    "{}: table {got:?}, minimax {want}",
                    minimax.text(code, mover)
                ));
            }
        }
    }
    let table_class = table_class(value, map);
    let minimax_class = minimax.class();
    if table_class != minimax_class || table_class.is_none() {
        notes.note(format!(
            "empty position class: table {table_class:?}, minimax {minimax_class:?}"
        ));
    }
    positions
}

/// The counter engine on the same game against the tiered engine's values, every index: the
/// positions compared.
pub(super) fn against_counter<G: Notation>(
    game: &G,
    value: impl Fn(u64) -> u8,
    notes: &mut Notes,
) -> u64 {
    let size = game.size();
    let words = cells::zeroed_words(cells::words_for(size));
    let other = Cells::new(&words, size);
    counter::solve(game, &other, &SolveOptions::default());
    let mut positions = 0;
    for pos in 0..size {
        positions += 1;
        let (t, c) = (value(pos), other.get(pos));
        if t != c {
            notes.note(format!(
                "{}: tiered engine {:?}, counter engine {:?}",
                game.position_text(pos),
                cells::value(t),
                cells::value(c)
            ));
        }
    }
    positions
}
