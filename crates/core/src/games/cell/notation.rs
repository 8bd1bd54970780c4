//! The position text of cell games and the spec suffixes that choose an index: one character
//! per cell in cell order (`.` empty, `L` Left's, `R` Right's) and then `/L` or `/R` for the
//! player to move (see docs/NOTATION.md), and `,start=L`, `,sliced` and `,sym` after a spec's
//! argument.
//!
//! The invariant: reading the text a game prints gives back the position printed (with symmetry,
//! the board stored for it), and every conversion between cell states and bitboards goes through
//! [`mask_of`].

use super::{CellGame, EMPTY, LEFT, Player, RIGHT};
use crate::base::error::{Error, Result};
use crate::game::{AskedBoard, AskedMove, Move, Notation, PositionError};

/// Reads a position's cells and player to move, for a game of `cells` cells. Whitespace between
/// cells is ignored, so boards may be written row by row.
pub fn parse_cells(text: &str, cells: u64) -> Result<(Vec<u8>, Player), PositionError> {
    let (body, suffix) = match text.trim().rsplit_once('/') {
        Some((b, s)) => (b, Some(s.trim())),
        None => (text.trim(), None),
    };
    let mut states = Vec::with_capacity(cells as usize);
    for ch in body.chars().filter(|c| !c.is_whitespace()) {
        let state = match ch {
            '.' => EMPTY,
            'L' => LEFT,
            'R' => RIGHT,
            _ => {
                return Err(PositionError::new(
                    text,
                    format!(
                        "character '{ch}' at cell {}: cells are '.' (empty), 'L' or 'R'",
                        states.len()
                    ),
                ));
            }
        };
        states.push(state);
    }
    if states.len() as u64 != cells {
        return Err(PositionError::new(
            text,
            format!("has {} cells but this game has {cells}", states.len()),
        ));
    }
    let lefts = states.iter().filter(|&&s| s == LEFT).count();
    let rights = states.iter().filter(|&&s| s == RIGHT).count();
    let mover = match suffix {
        Some("L") => Player::Left,
        Some("R") => Player::Right,
        Some(s) => {
            return Err(PositionError::new(
                text,
                format!("'/{s}': the player to move is '/L' or '/R'"),
            ));
        }
        None if lefts == rights => Player::Left,
        None if lefts == rights + 1 => Player::Right,
        None => {
            return Err(PositionError::new(
                text,
                format!(
                    "Left has {lefts} cells and Right {rights}, so the player to move does not \
                     follow from Left moving first; add '/L' or '/R'"
                ),
            ));
        }
    };
    Ok((states, mover))
}

/// Splits `ARG,start=L` (or `,start=R`) into the argument and the player who moves first; plain
/// `ARG` is every configuration with either player to move.
pub fn split_start<'a>(spec: &str, arg: &'a str) -> Result<(&'a str, Option<Player>)> {
    let Some((base, start)) = arg.rsplit_once(",start=") else {
        return Ok((arg, None));
    };
    if base.contains(",start=") {
        return Err(Error::Spec {
            spec: spec.to_string(),
            msg: "',start=' is given twice".into(),
        });
    }
    match start {
        "L" => Ok((base, Some(Player::Left))),
        "R" => Ok((base, Some(Player::Right))),
        "both" => Ok((base, None)),
        _ => Err(Error::Spec {
            spec: spec.to_string(),
            msg: format!(
                "',start={}': the first player is L, R or both",
                crate::base::error::cut(start)
            ),
        }),
    }
}

/// Splits `ARG,sym` or `ARG,sliced` into the argument and the sliced index asked for: `Some(true)`
/// for one row per symmetry class, `Some(false)` for every row, `None` for neither.
pub fn split_sliced(arg: &str) -> (&str, Option<bool>) {
    if let Some(base) = arg.strip_suffix(",sym") {
        (base, Some(true))
    } else if let Some(base) = arg.strip_suffix(",sliced") {
        (base, Some(false))
    } else {
        (arg, None)
    }
}

/// The plain game of `spec`: `KIND:ARG` with the index's suffixes (`,start=...`, then `,sym` or
/// `,sliced`) taken off, as written (`bridgit:4,start=L,sym` is `bridgit:4`).
pub fn plain_spec(spec: &str) -> &str {
    let Some((kind, arg)) = spec.split_once(':') else {
        return spec;
    };
    let (arg, _) = split_sliced(arg);
    let base = arg.rsplit_once(",start=").map_or(arg, |(base, _)| base);
    &spec[..kind.len() + 1 + base.len()]
}

/// The cells of `states` in state `want`, as a bitboard (at most 64 cells).
pub fn mask_of(states: &[u8], want: u8) -> u64 {
    states
        .iter()
        .enumerate()
        .filter(|&(_, &s)| s == want)
        .fold(0u64, |m, (i, _)| m | 1 << i)
}

/// Left's and Right's cells of `states` as bitboards.
pub fn masks_of_states(states: &[u8]) -> (u64, u64) {
    (mask_of(states, LEFT), mask_of(states, RIGHT))
}

/// The position text of cell states and a player to move.
pub fn text_of_states(states: &[u8], mover: Player) -> String {
    let mut s: String = states
        .iter()
        .map(|&c| match c {
            LEFT => 'L',
            RIGHT => 'R',
            _ => '.',
        })
        .collect();
    s.push('/');
    s.push(mover.letter());
    s
}

impl CellGame {
    /// The cell states of a position.
    pub fn states(&self, pos: u64) -> Vec<u8> {
        let (l, r) = self.masks(pos);
        self.states_of_masks(l, r)
    }

    /// The cell states of the configuration with Left's cells `l` and Right's cells `r`.
    pub fn states_of_masks(&self, l: u64, r: u64) -> Vec<u8> {
        (0..self.cells)
            .map(|i| {
                if l >> i & 1 == 1 {
                    LEFT
                } else if r >> i & 1 == 1 {
                    RIGHT
                } else {
                    EMPTY
                }
            })
            .collect()
    }

    /// The index of a position given by its cell states.
    pub fn index_of_states(&self, states: &[u8], mover: Player) -> u64 {
        let (l, r) = masks_of_states(states);
        self.index(l, r, mover)
    }

    /// The text of the board with Left's cells `l` and Right's `r`, `mover` to move.
    fn text_of_masks(&self, l: u64, r: u64, mover: Player) -> String {
        text_of_states(&self.states_of_masks(l, r), mover)
    }

    /// The text of the board stored at `pos`.
    pub(super) fn text_of_position(&self, pos: u64) -> String {
        let (l, r) = self.masks(pos);
        self.text_of_masks(l, r, self.mover(pos))
    }

    /// Reads a board's cells, and the player to move when the text names one, without deciding
    /// the mover from the counts (a game that holds only the positions alternation reaches
    /// decides it from its first player instead).
    fn read_board(&self, text: &str) -> Result<(u64, u64, Option<Player>), PositionError> {
        let suffixed = text.contains('/');
        let read = if suffixed {
            text.to_string()
        } else {
            format!("{text}/L")
        };
        let (states, mover) = parse_cells(&read, self.cells as u64).map_err(|mut e| {
            e.text = text.to_string();
            e
        })?;
        let (l, r) = masks_of_states(&states);
        Ok((l, r, suffixed.then_some(mover)))
    }

    /// The index of a position text ([`crate::game::Notation::parse_position`]).
    pub(super) fn read_position(&self, text: &str) -> Result<u64, PositionError> {
        let Some(first) = self.start() else {
            let (states, mover) = parse_cells(text, self.cells as u64)?;
            return Ok(self.index_of_states(&states, mover));
        };
        let (l, r, named) = self.read_board(text)?;
        let after = |t: u32| {
            if t.is_multiple_of(2) {
                first
            } else {
                first.other()
            }
        };
        let t = (l | r).count_ones();
        // Without '/L' or '/R' the mover follows from this game's first player.
        let mover = named.unwrap_or(after(t));
        self.try_index(l, r, mover).ok_or_else(|| {
            PositionError::new(
                text,
                format!(
                    "not reachable from the empty board with {} moving first (after {t} moves \
                     {} has {} cells and {} is to move); this table holds only such positions",
                    first.letter(),
                    first.letter(),
                    t.div_ceil(2),
                    after(t).letter()
                ),
            )
        })
    }

    /// The board after the move: the stored board with the move's cell claimed (the child index
    /// may hold a symmetric image of it).
    pub(super) fn text_after_move(&self, pos: u64, m: &Move) -> String {
        match (self.sliced(), self.cell_of_move(&m.name)) {
            (Some(s), Some(cell)) if s.symmetric => {
                let (l, r) = self.masks(pos);
                let mover = self.mover(pos);
                let (l, r) = mover.claim(l, r, cell);
                self.text_of_masks(l, r, mover.other())
            }
            _ => self.text_of_position(m.child),
        }
    }

    /// With symmetry, the stored board when it is not the asked one.
    pub(super) fn stored_image_text(&self, text: &str, pos: u64) -> Option<String> {
        self.sliced().filter(|s| s.symmetric)?;
        let (l, r, _) = self.read_board(text).ok()?;
        (self.masks(pos) != (l, r)).then(|| self.text_of_position(pos))
    }

    /// With symmetry, where the board stored at `pos` is not the one `text` names: the asked
    /// board (Left's cells, Right's cells) and, for each stored cell, the asked cell it stands
    /// for (the inverse of the colour-keeping symmetry that takes the asked board to the stored
    /// one).
    pub(super) fn asked_cells(&self, text: &str, pos: u64) -> Option<(u64, u64, Vec<u32>)> {
        self.sliced().filter(|s| s.symmetric)?;
        let (l, r, _) = self.read_board(text).ok()?;
        let stored = self.masks(pos);
        if stored == (l, r) {
            return None;
        }
        let image = |perm: &[u32], m: u64| {
            (0..self.cells)
                .filter(|&i| m >> i & 1 == 1)
                .fold(0u64, |acc, i| acc | 1 << perm[i as usize])
        };
        let sym = self
            .symmetries()
            .into_iter()
            .find(|s| !s.swaps_colours && (image(&s.perm, l), image(&s.perm, r)) == stored)?;
        let mut to_asked = vec![0u32; self.cells as usize];
        for (asked, &to) in sym.perm.iter().enumerate() {
            to_asked[to as usize] = asked as u32;
        }
        Some((l, r, to_asked))
    }

    /// [`crate::game::Notation::asked_board`]: the asked board's text and moves, in cell order,
    /// each with the stored image's move it maps onto.
    pub(super) fn asked_board_of(&self, text: &str, pos: u64) -> Option<AskedBoard> {
        let (l, r, to_asked) = self.asked_cells(text, pos)?;
        let mover = self.mover(pos);
        let mut moves: Vec<(u32, AskedMove)> = self
            .moves(pos)
            .into_iter()
            .filter_map(|m| {
                let cell = self.cell_of_move(&m.name)?;
                let asked = *to_asked.get(cell as usize)?;
                let (l2, r2) = mover.claim(l, r, asked);
                Some((
                    asked,
                    AskedMove {
                        name: self.move_name(asked),
                        position: self.text_of_masks(l2, r2, mover.other()),
                        stored: m.name,
                    },
                ))
            })
            .collect();
        moves.sort_by_key(|(cell, _)| *cell);
        Some(AskedBoard {
            position: self.text_of_masks(l, r, mover),
            moves: moves.into_iter().map(|(_, m)| m).collect(),
        })
    }

    /// The name of the move that claims `cell`: its number and the board's label for it.
    pub(super) fn move_name(&self, cell: u32) -> String {
        format!("{cell}{}", self.labels[cell as usize])
    }

    /// The cell a move's name claims (the number it starts with), if it names one.
    pub(super) fn cell_of_move(&self, name: &str) -> Option<u32> {
        name.split(|c: char| !c.is_ascii_digit())
            .next()
            .and_then(|d| d.parse().ok())
            .filter(|&c| c < self.cells)
    }
}
