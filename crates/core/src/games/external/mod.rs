//! Games from outside retrodb: [`ExternalGame`], the [`super::AnyGame::External`] variant's
//! game, which holds a game of a family registered at run time ([`crate::register`]) behind
//! [`DynGame`] (the object-safe form of the roles a game plays, `dyn_game.rs`) and plays every
//! role by forwarding, its tiers too where the family has them (`tiers.rs`). So every place that
//! dispatches on an [`super::AnyGame`] with `with_game!` or `with_tiered_game!` works for it
//! without knowing its type.
//!
//! Forwarding costs a dynamic call per position and per move, which lookups and checks can
//! afford and the kernels cannot: the engines do not solve an external game through it but
//! through kernels instantiated for the family's own type when it was registered
//! ([`ExternalGame::solvers`], `solve::erased`), with no dynamic call in their loops.

mod dyn_game;
mod tiers;

use std::any::Any;

pub use dyn_game::DynGame;
pub(crate) use tiers::TierFns;

use super::{Family, PictureStyle, Source, SpecInput, Turn};
use crate::base::error::{Error, PositionError, Result};
use crate::game::{
    Annotations, AskedBoard, Game, Move, Notation, Omissions, Rules, Status, Tiered, Value,
};

/// What the engines keep of a family registered at run time: its kernels, instantiated for its
/// type (`solve::erased::Solvers`), which this layer holds without naming.
pub type Solvers = &'static (dyn Any + Send + Sync);

/// A game of a family registered at run time, held behind `DynGame`: what
/// [`super::AnyGame::External`] holds. It plays every role of a game by forwarding, so the
/// generic table writers and lookups take it as they take a built-in game.
pub struct ExternalGame {
    game: Box<dyn DynGame>,
    /// The family's tiers, where it has them ([`Tiered`]).
    tiers: Option<TierFns>,
    /// The family's kernels, set by the registry from its entry.
    solvers: Option<Solvers>,
}

impl ExternalGame {
    /// Holds `game`, solved by the counter engine.
    pub fn new<G: Family + Omissions + Send + 'static>(game: G) -> ExternalGame {
        ExternalGame {
            game: Box::new(game),
            tiers: None,
            solvers: None,
        }
    }

    /// Holds `game`, with its tiers: solved by the tiered engine.
    pub fn with_tiers<G: Family + Omissions + Tiered + Send + 'static>(game: G) -> ExternalGame {
        ExternalGame {
            game: Box::new(game),
            tiers: Some(TierFns::of::<G>()),
            solvers: None,
        }
    }

    /// The game inside, if it is a `G`.
    pub fn downcast_ref<G: 'static>(&self) -> Option<&G> {
        self.game.as_any().downcast_ref()
    }

    /// The game inside, as [`Any`] (for the kernels instantiated for its type).
    pub fn as_any(&self) -> &dyn Any {
        self.game.as_any()
    }

    /// Whether the family has tiers: `with_tiered_game!` takes the game where it does.
    pub fn is_tiered(&self) -> bool {
        self.tiers.is_some()
    }

    /// The family's kernels, instantiated for its type when it was registered.
    pub fn solvers(&self) -> Option<Solvers> {
        self.solvers
    }

    /// Sets the kernels (the registry, from the family's entry).
    pub(crate) fn set_solvers(&mut self, solvers: Option<Solvers>) {
        self.solvers = solvers;
    }
}

impl Game for ExternalGame {
    fn spec(&self) -> String {
        self.game.dyn_spec()
    }
    fn size(&self) -> u64 {
        self.game.dyn_size()
    }
    fn status(&self, pos: u64) -> Status {
        self.game.dyn_status(pos)
    }
    fn for_each_child(&self, pos: u64, mut f: impl FnMut(u64)) {
        self.game.dyn_for_each_child(pos, &mut f)
    }
    fn visit(&self, pos: u64, mut f: impl FnMut(u64)) -> Status {
        self.game.dyn_visit(pos, &mut f)
    }
    fn prepare(&self) {
        self.game.dyn_prepare()
    }
    fn for_each_parent(&self, pos: u64, mut f: impl FnMut(u64)) {
        self.game.dyn_for_each_parent(pos, &mut f)
    }
    fn child_count(&self, pos: u64) -> u64 {
        self.game.dyn_child_count(pos)
    }
    fn max_children(&self) -> u64 {
        self.game.dyn_max_children()
    }
    fn impartial(&self) -> bool {
        self.game.dyn_impartial()
    }
}

impl Notation for ExternalGame {
    fn parse_position(&self, text: &str) -> Result<u64, PositionError> {
        self.game.dyn_parse_position(text)
    }
    fn position_text(&self, pos: u64) -> String {
        self.game.dyn_position_text(pos)
    }
    fn moves(&self, pos: u64) -> Vec<Move> {
        self.game.dyn_moves(pos)
    }
    fn render(&self, pos: u64) -> Option<String> {
        self.game.dyn_render(pos)
    }
    fn child_text(&self, pos: u64, m: &Move) -> String {
        self.game.dyn_child_text(pos, m)
    }
    fn move_id(&self, name: &str) -> Option<u64> {
        self.game.dyn_move_id(name)
    }
    fn stored_image(&self, text: &str, pos: u64) -> Option<String> {
        self.game.dyn_stored_image(text, pos)
    }
    fn asked_board(&self, text: &str, pos: u64) -> Option<AskedBoard> {
        self.game.dyn_asked_board(text, pos)
    }
    fn annotate(
        &self,
        pos: u64,
        stored: &dyn Fn(u64) -> Result<Option<Value>>,
    ) -> Result<Annotations> {
        self.game.dyn_annotate(pos, stored)
    }
}

impl Omissions for ExternalGame {
    fn searched_run(&self, first: u64, n: u64) -> Option<Vec<bool>> {
        self.game.dyn_searched_run(first, n)
    }
    fn rules_run(&self, first: u64, n: u64) -> Option<Vec<Rules>> {
        self.game.dyn_rules_run(first, n)
    }
    fn rules_known(&self) -> bool {
        self.game.dyn_rules_known()
    }
    fn omissible(&self, pos: u64) -> Option<bool> {
        self.game.dyn_omissible(pos)
    }
    fn omissible_run(&self, first: u64, n: u64) -> Option<Vec<bool>> {
        self.game.dyn_omissible_run(first, n)
    }
    fn omissible_ranges(&self, first: u64, n: u64) -> Option<Vec<std::ops::Range<u64>>> {
        self.game.dyn_omissible_ranges(first, n)
    }
}

impl Family for ExternalGame {
    /// An external game's kinds are its own family's, which the registry keeps.
    const KINDS: &'static [(&'static str, &'static str)] = &[];

    /// Never called: the registry opens a spec with the concrete family's `open`.
    fn open(spec: &SpecInput<'_>) -> Result<ExternalGame> {
        Err(Error::Spec {
            spec: spec.spec.into(),
            msg: "an external game is opened by its own family (retrodb::register)".into(),
        })
    }
    fn into_any(self) -> super::AnyGame {
        super::AnyGame::External(self)
    }
    fn input_source(&self) -> Option<&Source> {
        self.game.dyn_input_source()
    }
    fn held_bytes(&self) -> u64 {
        self.game.dyn_held_bytes()
    }
    fn loading_peak(&self) -> u64 {
        self.game.dyn_loading_peak()
    }
    fn sliced_plan(&self) -> Option<crate::game::shape::sliced::SlicedPlan> {
        self.game.dyn_sliced_plan()
    }
    fn tier_words(&self) -> &'static str {
        self.game.dyn_tier_words()
    }
    fn valued_as_games(&self) -> bool {
        self.game.dyn_valued_as_games()
    }
    fn marked_picture(&self, pos: u64, marked: &[u64], style: PictureStyle) -> Option<String> {
        self.game.dyn_marked_picture(pos, marked, style)
    }
    fn start_position(&self) -> Option<u64> {
        self.game.dyn_start_position()
    }
    fn turn_at(&self, pos: u64) -> Turn {
        self.game.dyn_turn_at(pos)
    }
    fn board_picture(&self, pos: u64, moves: &[Move]) -> String {
        self.game.dyn_board_picture(pos, moves)
    }
    fn asked_picture(&self, text: &str, pos: u64) -> Option<String> {
        self.game.dyn_asked_picture(text, pos)
    }
}
