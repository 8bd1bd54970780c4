//! The games, one module per family, and the registry that turns a game spec (`hex:4`,
//! `digraph:FILE`) into a concrete game.
//!
//! Adding a game (docs/ARCHITECTURE.md, "Adding a game"; `subtraction.rs` is the worked example):
//! a module implementing [`crate::game::Game`], [`crate::game::Notation`] and
//! [`crate::game::Omissions`] (empty where the defaults do), and in this file its `pub mod`, a
//! variant of [`AnyGame`], an arm in `with_game!` (and in `with_tiered_game!` for an acyclic
//! game, which implements [`crate::game::Tiered`] too), its kinds in [`KINDS`] and an arm in
//! `AnyGame::read`. [`AnyGame`]'s other methods have defaults for games without a picture, a
//! source file or a start of their own. Nothing outside `games/` names a game.

pub mod cell;
pub mod digraph;
pub mod hackenbush;
pub mod source;
pub mod subtraction;

use crate::error::{Error, Result};
use crate::game::{Game, Notation};
use crate::progress::{Progress, Silent};
pub use source::{InputBytes, Source};

/// Who is to move at a position and, where the game is over, who has won: in words, for people
/// (the web board's line under its picture, its sides to play).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Turn {
    /// The player to move: `Left (L, blue)` on a board, `the player to move` on a digraph.
    pub to_move: String,
    /// The other player.
    pub opponent: String,
    /// Where the game is over: who has won and how (`Left (L, blue) has won: its sides are
    /// joined`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
}

/// Every game retrodb knows, as one concrete type per family.
pub enum AnyGame {
    Digraph(digraph::Digraph),
    /// `hackenbush:FILE`, `hackenbush-stalk:BRR` and `hackenbush-tree:l(l;rl)`.
    Hackenbush(hackenbush::Hackenbush),
    /// `shannon`, `shannon-vertex`, `bridgit` and `hex`: one core, so one variant.
    Cell(cell::CellGame),
    /// `subtract:N,MOVES`: the worked example of adding a game.
    Subtraction(subtraction::Subtraction),
}

/// Runs `$body` with `$g` bound to the concrete game inside an [`AnyGame`], so generic code
/// (solvers, table writers) is compiled once per game type with no dynamic dispatch in loops.
#[macro_export]
macro_rules! with_game {
    ($any:expr, $g:ident => $body:expr) => {
        match $any {
            $crate::games::AnyGame::Digraph($g) => $body,
            $crate::games::AnyGame::Hackenbush($g) => $body,
            $crate::games::AnyGame::Cell($g) => $body,
            $crate::games::AnyGame::Subtraction($g) => $body,
        }
    };
}

/// Like `with_game!` for the games that implement [`crate::game::Tiered`] (the acyclic ones):
/// `$body` with `$g` bound to the tiered game, or `$other` with `$o` bound to the [`AnyGame`]
/// for the rest.
#[macro_export]
macro_rules! with_tiered_game {
    ($any:expr, $g:ident => $body:expr, $o:pat => $other:expr) => {
        match $any {
            $crate::games::AnyGame::Hackenbush($g) => $body,
            $crate::games::AnyGame::Cell($g) => $body,
            $o => $other,
        }
    };
}

/// The game families and what their argument is, for help texts and errors.
pub const KINDS: &[(&str, &str)] = &[
    ("digraph", "an edge-list file: 'u v' per line"),
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
    (
        "subtract",
        "a heap and the amounts a move may take, e.g. 20,1,3,4",
    ),
];

/// Where a file-backed game reads its input from.
pub enum Input<'a> {
    /// Read the file named in the spec.
    Disk,
    /// Bytes embedded in a table; the spec's path is only a name.
    Embedded(&'a [u8]),
}

impl AnyGame {
    /// Builds the game a spec names, reading its input file from disk.
    pub fn open(spec: &str, max_memory: u64) -> Result<AnyGame> {
        Self::open_with(spec, max_memory, &Silent)
    }

    /// [`AnyGame::open`], telling `progress` what reading the input waits for (a named FIFO's
    /// writer) before it waits.
    pub fn open_with(spec: &str, max_memory: u64, progress: &dyn Progress) -> Result<AnyGame> {
        Self::read(spec, Input::Disk, max_memory, progress)
    }

    pub fn load(spec: &str, input: Input<'_>, max_memory: u64) -> Result<AnyGame> {
        Self::read(spec, input, max_memory, &Silent)
    }

    fn read(
        spec: &str,
        input: Input<'_>,
        max_memory: u64,
        progress: &dyn Progress,
    ) -> Result<AnyGame> {
        let (kind, arg) = spec.split_once(':').ok_or_else(|| Error::Spec {
            spec: spec.to_string(),
            msg: format!("expected KIND:ARGUMENT, with KIND one of {}", kind_list()),
        })?;
        // Cell games may end in ',start=L': the file is what comes before.
        let file = match kind {
            "shannon" | "shannon-vertex" => cell::split_start(spec, cell::split_sliced(arg).0)?.0,
            _ => arg,
        };
        let bytes = || -> Result<InputBytes<'_>> {
            match input {
                Input::Disk => source::map_file(file, progress),
                Input::Embedded(b) => Ok(InputBytes::Borrowed(b)),
            }
        };
        match kind {
            "digraph" => Ok(AnyGame::Digraph(digraph::Digraph::parse(
                arg,
                &bytes()?,
                max_memory,
            )?)),
            "hackenbush" => Ok(AnyGame::Hackenbush(hackenbush::Hackenbush::parse_file(
                arg,
                bytes()?.bytes(),
                max_memory,
            )?)),
            "hackenbush-stalk" => Ok(AnyGame::Hackenbush(hackenbush::Hackenbush::parse_stalk(
                arg, max_memory,
            )?)),
            "hackenbush-tree" => Ok(AnyGame::Hackenbush(hackenbush::Hackenbush::parse_tree(
                arg, max_memory,
            )?)),
            "shannon" | "shannon-vertex" | "bridgit" | "hex" => Ok(AnyGame::Cell(
                cell::CellGame::load(kind, arg, bytes, max_memory)?,
            )),
            "subtract" => Ok(AnyGame::Subtraction(subtraction::Subtraction::parse(
                spec, arg,
            )?)),
            _ => Err(Error::Spec {
                spec: spec.to_string(),
                msg: format!("unknown game '{kind}'; known games: {}", kind_list()),
            }),
        }
    }

    /// The input file the game was built from, for games that read one.
    pub fn source(&self) -> Option<&Source> {
        match self {
            AnyGame::Digraph(g) => Some(g.source()),
            AnyGame::Hackenbush(g) => g.source(),
            AnyGame::Cell(g) => g.source(),
            _ => None,
        }
    }

    pub fn spec(&self) -> String {
        with_game!(self, g => g.spec())
    }

    /// Bytes the game holds in memory beside what a solve allocates: a digraph's arrays. (The
    /// cell games' and Hackenbush's tables are small, or counted by their kernels' estimates.)
    /// The input file's bytes a game keeps to embed in its table are not counted here.
    pub fn resident_bytes(&self) -> u64 {
        match self {
            AnyGame::Digraph(g) => g.resident_bytes(),
            _ => 0,
        }
    }

    /// Bytes the game took at its peak while it was being loaded: a digraph's edge list beside
    /// the arrays made from it ([`digraph::Digraph::memory_estimate`]), plus, for an input small
    /// enough to embed in the table, the mapped file's pages and the copy kept of them.
    pub fn load_peak_bytes(&self) -> u64 {
        match self {
            AnyGame::Digraph(g) => {
                let kept = g.source().bytes.as_ref().map_or(0, |b| b.len() as u64);
                digraph::Digraph::memory_estimate(g.size(), g.edge_count()) + 2 * kept
            }
            _ => 0,
        }
    }

    pub fn size(&self) -> u64 {
        with_game!(self, g => g.size())
    }

    /// What a tier of the game counts, in words (`filled cells`, `edges removed`; `tier` for
    /// games without a meaning of their own).
    pub fn tier_meaning(&self) -> &'static str {
        match self {
            AnyGame::Cell(_) => "filled cells",
            AnyGame::Hackenbush(_) => "edges removed",
            _ => "tier",
        }
    }

    /// The cell game inside, for the clients that read only cell games (play, Lehman's
    /// criterion, board values, the Bridg-It research); `None` for every other game.
    pub fn cell_game(&self) -> Option<&cell::CellGame> {
        match self {
            AnyGame::Cell(g) => Some(g),
            _ => None,
        }
    }
}

/// How [`AnyGame::picture`] and [`picture`] draw: plain text, text with ANSI colours, or SVG.
pub use cell::picture::Style as PictureStyle;

impl AnyGame {
    /// A picture of a position with the cells of the moves to `marked` children highlighted;
    /// `None` when the game has no picture in that style.
    pub fn picture(&self, pos: u64, marked: &[u64], style: PictureStyle) -> Option<String> {
        match self {
            AnyGame::Cell(g) => {
                let cells: Vec<u32> = marked
                    .iter()
                    .filter_map(|&child| g.claimed_cell(pos, child))
                    .collect();
                g.picture(pos, &cells, style)
            }
            AnyGame::Hackenbush(g) => match style {
                PictureStyle::Svg => None,
                _ => g.render(pos),
            },
            _ => None,
        }
    }
}

impl AnyGame {
    /// The position a person starts from: the empty board of a cell game (the first mover's
    /// turn), every edge standing in Hackenbush, the lowest used vertex of a digraph.
    pub fn start(&self) -> Option<u64> {
        match self {
            AnyGame::Cell(g) => {
                let empty = ".".repeat(g.cells() as usize);
                ["", "/L", "/R"].iter().find_map(|suffix| {
                    g.parse_position(&format!("{empty}{suffix}"))
                        .ok()
                        .filter(|&p| g.status(p) != crate::game::Status::Unused)
                })
            }
            AnyGame::Hackenbush(g) => {
                let all = match g.edges().len() {
                    64 => u64::MAX,
                    n => (1u64 << n) - 1,
                };
                g.index(all, false)
            }
            other => with_game!(other, g => (0..g.size())
                .find(|&p| g.status(p) != crate::game::Status::Unused)),
        }
    }

    /// A standalone SVG picture of a position, for every game: a cell game's board as
    /// `retrodb show --svg` draws it; Hackenbush's graph and a digraph vertex with its
    /// neighbours as the web board draws them.
    pub fn svg(&self, pos: u64) -> String {
        if let AnyGame::Cell(g) = self
            && let Some(svg) = g.picture(pos, &[], PictureStyle::Svg)
        {
            return svg;
        }
        self.board_svg(pos, &with_game!(self, g => g.moves(pos)))
    }

    /// Who is to move at `pos` and, where the game is over, who has won.
    pub fn turn(&self, pos: u64) -> Turn {
        match self {
            AnyGame::Cell(g) => {
                use cell::picture::{player_name, won_text};
                let mover = g.mover(pos);
                let (l, r) = g.masks(pos);
                Turn {
                    to_move: player_name(mover).into(),
                    opponent: player_name(mover.other()).into(),
                    outcome: g.winner(l, r).map(|w| won_text(w).into()),
                }
            }
            AnyGame::Hackenbush(g) => {
                let (me, other) = if hackenbush::Hackenbush::right_to_move(pos) {
                    ("Right (red)", "Left (blue)")
                } else {
                    ("Left (blue)", "Right (red)")
                };
                Turn {
                    to_move: me.into(),
                    opponent: other.into(),
                    outcome: g
                        .moves(pos)
                        .is_empty()
                        .then(|| format!("{me} has no edge left to cut: {other} has won")),
                }
            }
            other => Turn {
                to_move: "the player to move".into(),
                opponent: "the other player".into(),
                outcome: with_game!(other, g => g.moves(pos)).is_empty().then(|| {
                    format!("the token on {pos} cannot move: the player to move has lost")
                }),
            },
        }
    }

    /// [`AnyGame::board_svg`] of the position `text` names, stored at `pos`, drawn as asked: in
    /// an index of one board per symmetry class (`,sym`), the asked board with its own moves'
    /// names ([`crate::game::Notation::asked_board`]), else the stored position.
    pub fn board_svg_as_asked(&self, text: &str, pos: u64) -> String {
        if let AnyGame::Cell(g) = self
            && let Some(svg) = g.asked_svg(text, pos)
        {
            return svg;
        }
        self.board_svg(pos, &with_game!(self, g => g.moves(pos)))
    }

    /// The web board's SVG of a position: every game draws one, with each of `moves` (the
    /// position's moves, as [`Notation::moves`] lists them) a clickable `<g class="move"
    /// data-move="NAME">` holding a `.mark` circle for the page to colour by the move's value.
    pub fn board_svg(&self, pos: u64, moves: &[crate::game::Move]) -> String {
        match self {
            AnyGame::Cell(g) => {
                let targets: Vec<(u32, String)> = moves
                    .iter()
                    .filter_map(|m| g.claimed_cell(pos, m.child).map(|c| (c, m.name.clone())))
                    .collect();
                cell::picture::board_svg(g.layout(), &g.states(pos), g.mover(pos), &targets)
            }
            AnyGame::Hackenbush(g) => {
                // Moves are named `eK` by the edge cut.
                let targets: Vec<(usize, String)> = moves
                    .iter()
                    .filter_map(|m| {
                        let k = m.name.strip_prefix('e')?.parse().ok()?;
                        Some((k, m.name.clone()))
                    })
                    .collect();
                g.svg(pos, &targets)
            }
            other => with_game!(other, g => digraph::neighbourhood_svg(g, pos, moves)),
        }
    }
}

/// A picture of a position given by its text, without building the game's index — so boards
/// too large to solve can be drawn too. What reading the input waits for (a named FIFO's
/// writer) is told to `progress` first.
pub fn picture(
    spec: &str,
    position: &str,
    style: PictureStyle,
    progress: &dyn Progress,
) -> Result<String> {
    let (kind, arg) = spec.split_once(':').unwrap_or((spec, ""));
    let none = || {
        Error::Spec {
        spec: spec.to_string(),
        msg: "no picture for this game (pictures: shannon, shannon-vertex, bridgit, hex, hackenbush; SVG: the cell games)"
            .to_string(),
    }
    };
    if !matches!(kind, "shannon" | "shannon-vertex" | "bridgit" | "hex") {
        // Other games draw through their `render`, which needs the game built.
        let game = AnyGame::open_with(spec, crate::memory::default_limit(), progress)?;
        let pos = with_game!(&game, g => g.parse_position(position))?;
        return game.picture(pos, &[], style).ok_or_else(none);
    }
    let (layout, _) = cell::Layout::from_spec(spec, kind, arg, || source::map_file(arg, progress))?;
    let (states, mover) = cell::parse_cells(position, layout.cell_count())?;
    cell::picture::draw(&layout, &states, mover, &[], style).ok_or_else(none)
}

fn kind_list() -> String {
    KINDS.iter().map(|(k, _)| *k).collect::<Vec<_>>().join(", ")
}
