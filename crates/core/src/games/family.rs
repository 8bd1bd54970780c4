//! What the registry asks of a game family beyond its rules and notation: the spec kinds it
//! reads and how ([`Family::KINDS`], [`Family::open`]), the input it keeps, and what people see
//! of its positions (pictures, the start, whose turn). [`super::AnyGame`]'s methods ask this
//! trait, so nothing outside a game's own module names the game. Every method after `open` has
//! a default, for a game without a picture, an input file or a start of its own.

use super::{AnyGame, Embed, Input, InputBytes, PictureStyle, Source, Turn, source};
use crate::base::error::Result;
use crate::base::progress::Progress;
use crate::game::{Move, Notation, Omissions, Status};

/// A spec being read: its kind and argument, the memory limit, and where its input file comes
/// from (the disk, or the bytes a table embeds).
pub struct SpecInput<'a> {
    /// The whole spec, for errors (`hex:4`).
    pub spec: &'a str,
    /// What comes before the first colon, one of the family's [`Family::KINDS`].
    pub kind: &'a str,
    /// What comes after it.
    pub arg: &'a str,
    /// The memory the game may take to build its index.
    pub max_memory: u64,
    /// Whether the table keeps the input whole ([`Embed::Always`] for a table's own embedded
    /// input, or `build --embed`).
    pub embed: Embed,
    pub(super) input: Input<'a>,
    pub(super) progress: &'a dyn Progress,
}

impl<'a> SpecInput<'a> {
    /// The bytes of the input file named `file` (the part of the argument the family calls its
    /// file): mapped from the disk, after telling the progress what opening it waits for, or the
    /// bytes embedded in a table, whose spec names the file only.
    pub fn bytes(&self, file: &str) -> Result<InputBytes<'a>> {
        match self.input {
            Input::Disk => source::map_file(file, self.progress),
            Input::Embedded(b) => Ok(InputBytes::Borrowed(b)),
        }
    }
}

/// A game family as the registry knows it: a built-in one (`crates/core/src/games/mod.rs`, one line per
/// family) or one registered at run time ([`crate::register`]).
pub trait Family: Notation + Sized {
    /// The spec kinds the family reads and what their argument is, for help texts and errors:
    /// `("hex", "the side N of the N x N rhombus")`.
    const KINDS: &'static [(&'static str, &'static str)];

    /// The game a spec of one of [`Family::KINDS`] names.
    fn open(spec: &SpecInput<'_>) -> Result<Self>;

    /// The game as an [`AnyGame`]: by default [`AnyGame::External`], the variant of every family
    /// registered at run time; each built-in family has a variant of its own, so that the
    /// solvers are compiled for its type.
    fn into_any(self) -> AnyGame
    where
        Self: Omissions + Send + 'static,
    {
        AnyGame::External(super::ExternalGame::new(self))
    }

    /// The input file the game was built from, for games that read one.
    fn input_source(&self) -> Option<&Source> {
        None
    }

    /// Bytes the game holds in memory beside what a solve allocates (a digraph's arrays).
    fn held_bytes(&self) -> u64 {
        0
    }

    /// Bytes the game took at its peak while it was being loaded.
    fn loading_peak(&self) -> u64 {
        0
    }

    /// What a build's plan says of the game's sliced index (its key cells, rows and symmetry);
    /// `None` for a game without one.
    fn sliced_plan(&self) -> Option<crate::game::shape::sliced::SlicedPlan> {
        None
    }

    /// What a tier of the game counts, in words (`filled cells`).
    fn tier_words(&self) -> &'static str {
        "tier"
    }

    /// Whether a position has a value as a game ([`crate::games::cell::values`]): positions come in
    /// pairs `2k` (Left to move) and `2k + 1` (Right) of one configuration, every
    /// configuration indexed.
    fn valued_as_games(&self) -> bool {
        false
    }

    /// A picture of a position with the moves to `marked` children highlighted; `None` when
    /// the game has no picture in that style.
    fn marked_picture(&self, _pos: u64, _marked: &[u64], _style: PictureStyle) -> Option<String> {
        None
    }

    /// The position a person starts from: by default the lowest used one.
    fn start_position(&self) -> Option<u64> {
        (0..self.size()).find(|&p| self.status(p) != Status::Unused)
    }

    /// Who is to move at `pos` and, where the game is over, who has won; by default in the
    /// words of an impartial game, where the player who cannot move loses.
    fn turn_at(&self, pos: u64) -> Turn {
        Turn {
            to_move: "the player to move".into(),
            opponent: "the other player".into(),
            outcome: self
                .moves(pos)
                .is_empty()
                .then(|| format!("the token on {pos} cannot move: the player to move has lost")),
        }
    }

    /// The web board's SVG of a position, each of `moves` a clickable `<g class="move"
    /// data-move="NAME">` holding a `.mark` circle; by default the position and its neighbours
    /// as a graph.
    fn board_picture(&self, pos: u64, moves: &[Move]) -> String {
        super::digraph::neighbourhood_svg(self, pos, moves)
    }

    /// The web board's SVG of the board `text` names where the index stores another one
    /// (a symmetric image, `,sym`); `None` to draw the stored position.
    fn asked_picture(&self, _text: &str, _pos: u64) -> Option<String> {
        None
    }
}
