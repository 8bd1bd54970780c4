//! The cell games as a [`Family`]: the four spec kinds one core reads, and the board pictures.

use super::{CellGame, notation, picture};
use crate::base::error::Result;
use crate::game::shape::sliced::SlicedPlan;
use crate::game::{Game, Move, Notation, Status};
use crate::games::{Family, PictureStyle, Source, SpecInput, Turn};

impl Family for CellGame {
    fn sliced_plan(&self) -> Option<SlicedPlan> {
        let s = self.sliced()?;
        Some(SlicedPlan {
            key_cells: s.key_digits(),
            low_cells: s.low_digits(),
            rows: s.rows.len() as u64,
            symmetries: if s.symmetric { s.group.len() } else { 0 },
            without_symmetry: match s.first {
                Some(first) => super::alternation::Alternation::new(self.cells, first).size(),
                None => super::PlainIndex::new(self.cells).size(),
            },
        })
    }

    const KINDS: &'static [(&'static str, &'static str)] = &[
        (
            "shannon",
            "a graph file: 'u v' per edge and 'terminals A B'; cells are the edges",
        ),
        (
            "shannon-vertex",
            "a graph file as for shannon; cells are the non-terminal vertices",
        ),
        (
            "bridgit",
            "the board size N (3: 13 cells; 5, the commercial board: 41)",
        ),
        ("hex", "the side N of the N x N rhombus"),
    ];

    /// Its own variant, so the solvers are compiled for it.
    fn into_any(self) -> crate::games::AnyGame {
        crate::games::AnyGame::Cell(self)
    }

    fn open(spec: &SpecInput<'_>) -> Result<CellGame> {
        // A graph's spec may end in ',sliced', ',sym' or ',start=L': the file is what comes
        // before.
        let file = match spec.kind {
            "shannon" | "shannon-vertex" => {
                notation::split_start(spec.spec, notation::split_sliced(spec.arg).0)?.0
            }
            _ => spec.arg,
        };
        CellGame::load(spec.kind, spec.arg, || spec.bytes(file), spec.max_memory)
    }

    fn input_source(&self) -> Option<&Source> {
        self.source()
    }

    fn tier_words(&self) -> &'static str {
        "filled cells"
    }

    /// Every configuration of a table without a fixed first mover has a value as a game.
    fn valued_as_games(&self) -> bool {
        self.start().is_none()
    }

    fn marked_picture(&self, pos: u64, marked: &[u64], style: PictureStyle) -> Option<String> {
        let cells: Vec<u32> = marked
            .iter()
            .filter_map(|&child| self.claimed_cell(pos, child))
            .collect();
        self.picture(pos, &cells, style)
    }

    /// The empty board, with the first mover's turn where the index fixes one.
    fn start_position(&self) -> Option<u64> {
        let empty = ".".repeat(self.cells() as usize);
        ["", "/L", "/R"].iter().find_map(|suffix| {
            self.parse_position(&format!("{empty}{suffix}"))
                .ok()
                .filter(|&p| self.status(p) != Status::Unused)
        })
    }

    fn turn_at(&self, pos: u64) -> Turn {
        let mover = self.mover(pos);
        let (l, r) = self.masks(pos);
        Turn {
            to_move: picture::player_name(mover).into(),
            opponent: picture::player_name(mover.other()).into(),
            outcome: self.winner(l, r).map(|w| picture::won_text(w).into()),
        }
    }

    fn board_picture(&self, pos: u64, moves: &[Move]) -> String {
        let targets: Vec<(u32, String)> = moves
            .iter()
            .filter_map(|m| self.claimed_cell(pos, m.child).map(|c| (c, m.name.clone())))
            .collect();
        picture::board_svg(self.layout(), &self.states(pos), self.mover(pos), &targets)
    }

    fn asked_picture(&self, text: &str, pos: u64) -> Option<String> {
        self.asked_svg(text, pos)
    }
}
