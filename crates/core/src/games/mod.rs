//! The games, one module per family, and the registry (`registry`) that turns a game spec
//! (`hex:4`, `digraph:FILE`) into a concrete game.
//!
//! Adding a game (docs/ARCHITECTURE.md, "Adding a game"; `subtraction.rs` is the worked example):
//! a module implementing [`crate::game::Game`], [`crate::game::Notation`],
//! [`crate::game::Omissions`] (empty where the defaults do) and [`Family`] (its spec kinds and
//! how a spec is read; the rest has defaults), and one line in the list below. The list makes
//! the module, the [`AnyGame`] variant, `with_game!`, `with_tiered_game!` (for a game marked
//! `tiered`, which implements [`crate::game::Tiered`] too) and the family's entry in the
//! registry. Nothing outside `games/` names a game.
//!
//! A game from outside retrodb (docs/ARCHITECTURE.md, "Adding a game from outside") implements
//! the same traits in its own crate and is registered at run time ([`crate::register`]); its games are
//! [`AnyGame::External`], which every `with_game!` takes like the others.

/// The games retrodb knows, one line each: `Variant(module::Type) tiered` for an acyclic game
/// solved tier by tier, `plain` for the rest.
#[doc(hidden)]
#[macro_export]
macro_rules! __games {
    ($($then:tt)*) => {
        $crate::__games_do! { [
            Digraph(digraph::Digraph) plain,
            Hackenbush(hackenbush::Hackenbush) tiered,
            Cell(cell::CellGame) tiered,
            Subtraction(subtraction::Subtraction) plain,
            Explicit(explicit::Explicit) tiered,
        ] $($then)* }
    };
}

/// What [`__games!`]'s list is made into: the modules, [`AnyGame`] and the built-in families'
/// registry entries (`declare`, once, here), the arms of `with_game!` (`with`) and of
/// `with_tiered_game!` (`tiered`, the tiered games' arms gathered one entry at a time).
#[doc(hidden)]
#[macro_export]
macro_rules! __games_do {
    ([$($v:ident($m:ident::$t:ident) $k:ident,)*] declare) => {
        $(pub mod $m;)*

        /// Every game retrodb can build: one variant per built-in family, holding its concrete
        /// type, and [`AnyGame::External`] for the families registered at run time.
        pub enum AnyGame {
            $($v($m::$t),)*
            /// A game of a family registered at run time ([`crate::register`]), held behind
            /// `external::DynGame`.
            External(external::ExternalGame),
        }

        /// The registry's entries of the built-in families, in the list's order.
        fn builtin_families() -> Vec<FamilyEntry> {
            vec![$({
                let entry = FamilyEntry::of::<$m::$t>();
                if stringify!($k) == "tiered" { entry.tiered() } else { entry }
            },)*]
        }
    };
    ([$($v:ident($m:ident::$t:ident) $k:ident,)*] with ($any:expr) $g:ident ($body:expr)) => {
        match $any {
            $($crate::games::AnyGame::$v($g) => $body,)*
            $crate::games::AnyGame::External($g) => $body,
        }
    };
    ([$($list:tt)*] tiered ($any:expr) $g:ident ($body:expr) ($o:pat) ($other:expr)) => {
        $crate::__games_do!(@tiered [] [$($list)*] ($any) $g ($body) ($o) ($other))
    };
    (@tiered [$($arms:tt)*] [$v:ident($m:ident::$t:ident) tiered, $($rest:tt)*]
        ($any:expr) $g:ident ($body:expr) ($o:pat) ($other:expr)) => {
        $crate::__games_do!(@tiered [$($arms)* $crate::games::AnyGame::$v($g) => $body,]
            [$($rest)*] ($any) $g ($body) ($o) ($other))
    };
    (@tiered [$($arms:tt)*] [$v:ident($m:ident::$t:ident) plain, $($rest:tt)*]
        ($any:expr) $g:ident ($body:expr) ($o:pat) ($other:expr)) => {
        $crate::__games_do!(@tiered [$($arms)*] [$($rest)*] ($any) $g ($body) ($o) ($other))
    };
    (@tiered [$($arms:tt)*] [] ($any:expr) $g:ident ($body:expr) ($o:pat) ($other:expr)) => {
        match $any {
            $($arms)*
            $crate::games::AnyGame::External($g) if $g.is_tiered() => $body,
            $o => $other,
        }
    };
}

crate::__games!(declare);

pub(crate) mod external;
pub(crate) mod family;
pub(crate) mod registry;
pub(crate) mod source;

use crate::base::error::{Error, Result};
use crate::base::progress::{Progress, Silent};
use crate::game::{Game, Notation};
pub use external::ExternalGame;
pub use family::{Family, SpecInput};
use registry::open_kind;
pub(crate) use registry::register_entry;
pub use registry::{FamilyEntry, is_registered, kinds, tiered_kinds};
pub use source::{Embed, InputBytes, Source};

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

/// Runs `$body` with `$g` bound to the concrete game inside an [`AnyGame`], so generic code
/// (solvers, table writers) is compiled once per game type with no dynamic dispatch in loops.
#[macro_export]
macro_rules! with_game {
    ($any:expr, $g:ident => $body:expr) => {
        $crate::__games!(with ($any) $g ($body))
    };
}

/// Like `with_game!` for the games that implement [`crate::game::Tiered`] (the acyclic ones):
/// `$body` with `$g` bound to the tiered game, or `$other` with `$o` bound to the [`AnyGame`]
/// for the rest (the built-in games not marked `tiered`, and an [`AnyGame::External`] whose
/// family was registered without tiers). An external game with tiers is taken as
/// [`ExternalGame`], which walks its tiers through a dynamic call a position: the engines solve
/// it through the kernels made for its type instead (`solve::erased`).
#[macro_export]
macro_rules! with_tiered_game {
    ($any:expr, $g:ident => $body:expr, $o:pat => $other:expr) => {
        $crate::__games!(tiered ($any) $g ($body) ($o) ($other))
    };
}

/// Where a file-backed game reads its input from.
#[derive(Clone, Copy)]
pub enum Input<'a> {
    /// Read the file named in the spec.
    Disk,
    /// Bytes embedded in a table; the spec's path is only a name.
    Embedded(&'a [u8]),
}

impl AnyGame {
    /// The game of a family from outside ([`AnyGame::External`]), for the engines that solve it
    /// through its own kernels; `None` for a built-in family's.
    pub fn external(&self) -> Option<&ExternalGame> {
        match self {
            AnyGame::External(g) => Some(g),
            _ => None,
        }
    }

    /// Builds the game a spec names, reading its input file from disk.
    pub fn open(spec: &str, max_memory: u64) -> Result<AnyGame> {
        Self::open_with(spec, max_memory, &Silent)
    }

    /// [`AnyGame::open`], telling `progress` what reading the input waits for (a named FIFO's
    /// writer) before it waits.
    pub fn open_with(spec: &str, max_memory: u64, progress: &dyn Progress) -> Result<AnyGame> {
        Self::read(spec, Input::Disk, max_memory, progress, Embed::UpToLimit)
    }

    /// [`AnyGame::open_with`] for a build that keeps the input as `embed` says (`build
    /// --embed`: [`Embed::Always`]).
    pub fn open_to_build(
        spec: &str,
        max_memory: u64,
        progress: &dyn Progress,
        embed: Embed,
    ) -> Result<AnyGame> {
        Self::read(spec, Input::Disk, max_memory, progress, embed)
    }

    pub fn load(spec: &str, input: Input<'_>, max_memory: u64) -> Result<AnyGame> {
        Self::read(spec, input, max_memory, &Silent, Embed::UpToLimit)
    }

    fn read(
        spec: &str,
        input: Input<'_>,
        max_memory: u64,
        progress: &dyn Progress,
        embed: Embed,
    ) -> Result<AnyGame> {
        let (kind, arg) = spec.split_once(':').ok_or_else(|| Error::Spec {
            spec: spec.to_string(),
            msg: format!("expected KIND:ARGUMENT, with KIND one of {}", kind_list()),
        })?;
        let reading = SpecInput {
            spec,
            kind,
            arg,
            max_memory,
            // The bytes a table embeds stay embedded when it is compressed or rewritten.
            embed: match input {
                Input::Embedded(_) => Embed::Always,
                Input::Disk => embed,
            },
            input,
            progress,
        };
        open_kind(&reading).unwrap_or_else(|| {
            Err(Error::Spec {
                spec: spec.to_string(),
                msg: format!("unknown game '{kind}'; known games: {}", kind_list()),
            })
        })
    }

    /// The input file the game was built from, for games that read one.
    pub fn source(&self) -> Option<&Source> {
        with_game!(self, g => g.input_source())
    }

    pub fn spec(&self) -> String {
        with_game!(self, g => g.spec())
    }

    /// Bytes the game holds in memory beside what a solve allocates: a digraph's arrays. (The
    /// cell games' and Hackenbush's tables are small, or counted by their kernels' estimates.)
    /// The input file's bytes a game keeps to embed in its table are not counted here.
    pub fn resident_bytes(&self) -> u64 {
        with_game!(self, g => g.held_bytes())
    }

    /// Bytes the game took at its peak while it was being loaded: a digraph's edge list beside
    /// the arrays made from it ([`digraph::Digraph::memory_estimate`]), plus, for an input small
    /// enough to embed in the table, the mapped file's pages and the copy kept of them.
    pub fn load_peak_bytes(&self) -> u64 {
        with_game!(self, g => g.loading_peak())
    }

    pub fn size(&self) -> u64 {
        with_game!(self, g => g.size())
    }

    /// What a build's plan says of the game's sliced index ([`Family::sliced_plan`]).
    pub fn sliced_plan(&self) -> Option<crate::game::shape::sliced::SlicedPlan> {
        with_game!(self, g => g.sliced_plan())
    }

    /// What a tier of the game counts, in words (`filled cells`, `edges removed`; `tier` for
    /// games without a meaning of their own).
    pub fn tier_meaning(&self) -> &'static str {
        with_game!(self, g => g.tier_words())
    }

    /// Whether positions have values as games ([`cell::values::PositionValues`]): the full tables of
    /// cell games (no fixed start) and Hackenbush.
    pub fn valued_as_games(&self) -> bool {
        with_game!(self, g => g.valued_as_games())
    }

    /// The cell game inside, for the clients that read only cell games (play, Lehman's
    /// criterion, board values, the Bridg-It research); `None` for every other game.
    pub fn cell_game(&self) -> Option<&cell::CellGame> {
        match self {
            AnyGame::Cell(g) => Some(g),
            _ => None,
        }
    }

    /// A picture of a position with the cells of the moves to `marked` children highlighted;
    /// `None` when the game has no picture in that style.
    pub fn picture(&self, pos: u64, marked: &[u64], style: PictureStyle) -> Option<String> {
        with_game!(self, g => g.marked_picture(pos, marked, style))
    }

    /// The position a person starts from: the empty board of a cell game (the first mover's
    /// turn), every edge standing in Hackenbush, the lowest used vertex of a digraph.
    pub fn start(&self) -> Option<u64> {
        with_game!(self, g => g.start_position())
    }

    /// A standalone SVG picture of a position, for every game: a cell game's board as
    /// `retrodb show --svg` draws it; Hackenbush's graph and a digraph vertex with its
    /// neighbours as the web board draws them.
    pub fn svg(&self, pos: u64) -> String {
        self.picture(pos, &[], PictureStyle::Svg)
            .unwrap_or_else(|| self.board_svg(pos, &with_game!(self, g => g.moves(pos))))
    }

    /// Who is to move at `pos` and, where the game is over, who has won.
    pub fn turn(&self, pos: u64) -> Turn {
        with_game!(self, g => g.turn_at(pos))
    }

    /// [`AnyGame::board_svg`] of the position `text` names, stored at `pos`, drawn as asked: in
    /// an index of one board per symmetry class (`,sym`), the asked board with its own moves'
    /// names ([`crate::game::Notation::asked_board`]), else the stored position.
    pub fn board_svg_as_asked(&self, text: &str, pos: u64) -> String {
        with_game!(self, g => g.asked_picture(text, pos))
            .unwrap_or_else(|| self.board_svg(pos, &with_game!(self, g => g.moves(pos))))
    }

    /// The web board's SVG of a position: every game draws one, with each of `moves` (the
    /// position's moves, as [`Notation::moves`] lists them) a clickable `<g class="move"
    /// data-move="NAME">` holding a `.mark` circle for the page to colour by the move's value.
    pub fn board_svg(&self, pos: u64, moves: &[crate::game::Move]) -> String {
        with_game!(self, g => g.board_picture(pos, moves))
    }
}

/// How [`AnyGame::picture`] and [`picture`] draw: plain text, text with ANSI colours, or SVG.
pub use cell::picture::Style as PictureStyle;

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
        let game = AnyGame::open_with(spec, crate::base::memory::default_limit(), progress)?;
        let pos = with_game!(&game, g => g.parse_position(position))?;
        return game.picture(pos, &[], style).ok_or_else(none);
    }
    // A table's spec draws as its plain game: the picture does not depend on the first mover
    // or the index (`show bridgit:3,start=L ...` was told '3,start=L' is not a board size).
    let (arg, _) = cell::split_sliced(arg);
    let (arg, _) = cell::split_start(spec, arg)?;
    let (layout, _) = cell::Layout::from_spec(spec, kind, arg, || source::map_file(arg, progress))?;
    let (states, mover) = cell::parse_cells(position, layout.cell_count())?;
    cell::picture::draw(&layout, &states, mover, &[], style).ok_or_else(none)
}

fn kind_list() -> String {
    kinds().map(|(k, _)| *k).collect::<Vec<_>>().join(", ")
}
