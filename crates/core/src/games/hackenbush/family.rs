//! Hackenbush as a [`Family`]: a graph file, a stalk or a tree, and the picture of the edges
//! standing.

use super::Hackenbush;
use crate::base::error::Result;
use crate::game::{Move, Notation};
use crate::games::{Family, PictureStyle, Source, SpecInput, Turn};

impl Family for Hackenbush {
    const KINDS: &'static [(&'static str, &'static str)] = &[
        (
            "hackenbush",
            "a graph file: 'u v C' per line, C one of B, R, G; vertex 0 is the ground",
        ),
        (
            "hackenbush-stalk",
            "edge colours from the ground up, e.g. BRR",
        ),
        (
            "hackenbush-tree",
            "a tree in CGSuite style, e.g. l(l;rl) (l blue, r red, e green)",
        ),
    ];

    /// Its own variant, so the solvers are compiled for it.
    fn into_any(self) -> crate::games::AnyGame {
        crate::games::AnyGame::Hackenbush(self)
    }

    fn open(spec: &SpecInput<'_>) -> Result<Hackenbush> {
        match spec.kind {
            "hackenbush-stalk" => Hackenbush::parse_stalk(spec.arg, spec.max_memory),
            "hackenbush-tree" => Hackenbush::parse_tree(spec.arg, spec.max_memory),
            _ => Hackenbush::parse_file(spec.arg, spec.bytes(spec.arg)?.bytes(), spec.max_memory),
        }
    }

    fn input_source(&self) -> Option<&Source> {
        self.source()
    }

    fn tier_words(&self) -> &'static str {
        "edges removed"
    }

    /// Positions `2k` and `2k + 1` are one edge set with Left or Right to move.
    fn valued_as_games(&self) -> bool {
        true
    }

    /// The text picture; the SVG one is the web board's ([`Family::board_picture`]).
    fn marked_picture(&self, pos: u64, _marked: &[u64], style: PictureStyle) -> Option<String> {
        match style {
            PictureStyle::Svg => None,
            _ => self.render(pos),
        }
    }

    /// Every edge standing, Left to move.
    fn start_position(&self) -> Option<u64> {
        let all = match self.edges().len() {
            64 => u64::MAX,
            n => (1u64 << n) - 1,
        };
        self.index(all, false)
    }

    fn turn_at(&self, pos: u64) -> Turn {
        let (me, other) = if Hackenbush::right_to_move(pos) {
            ("Right (red)", "Left (blue)")
        } else {
            ("Left (blue)", "Right (red)")
        };
        Turn {
            to_move: me.into(),
            opponent: other.into(),
            outcome: self
                .moves(pos)
                .is_empty()
                .then(|| format!("{me} has no edge left to cut: {other} has won")),
        }
    }

    /// The graph with each cut a clickable edge (moves are named `eK` by the edge cut).
    fn board_picture(&self, pos: u64, moves: &[Move]) -> String {
        let targets: Vec<(usize, String)> = moves
            .iter()
            .filter_map(|m| {
                let k = m.name.strip_prefix('e')?.parse().ok()?;
                Some((k, m.name.clone()))
            })
            .collect();
        self.svg(pos, &targets)
    }
}
