//! Games from outside retrodb: [`DynGame`], the object-safe form of the roles a game plays
//! ([`Game`], [`Notation`], [`Omissions`], [`Family`]), implemented for every game, and
//! [`ExternalGame`], the [`super::AnyGame::External`] variant's game, which holds any game
//! behind it and plays every role by forwarding. So every place that dispatches on an
//! [`super::AnyGame`] with `with_game!` works for a game registered at run time
//! ([`super::register`]) without knowing its type; the built-in families keep variants of
//! their own, compiled per type.
//!
//! The cost is one dynamic call per position and per move (a move is handed to a
//! `&mut dyn FnMut(u64)`), and an external game has no tiers: it is solved by the counter
//! engine, which needs only the rules.

use std::any::Any;

use super::{Family, PictureStyle, Source, SpecInput, Turn};
use crate::base::error::{Error, PositionError, Result};
use crate::game::{Annotations, AskedBoard, Game, Move, Notation, Omissions, Status, Value};

/// The object-safe form of [`Game`], [`Notation`], [`Omissions`] and [`Family`] (without
/// [`Family::open`], which the registry calls on the concrete type): each method is the one of
/// the same name without the `dyn_` prefix, closures taken as `&mut dyn FnMut(u64)`.
/// Implemented for every game; a game never implements it itself.
pub trait DynGame: Send + Sync + 'static {
    fn dyn_spec(&self) -> String;
    fn dyn_size(&self) -> u64;
    fn dyn_status(&self, pos: u64) -> Status;
    fn dyn_for_each_child(&self, pos: u64, f: &mut dyn FnMut(u64));
    fn dyn_visit(&self, pos: u64, f: &mut dyn FnMut(u64)) -> Status;
    fn dyn_prepare(&self);
    fn dyn_for_each_parent(&self, pos: u64, f: &mut dyn FnMut(u64));
    fn dyn_child_count(&self, pos: u64) -> u64;
    fn dyn_max_children(&self) -> u64;
    fn dyn_impartial(&self) -> bool;

    fn dyn_parse_position(&self, text: &str) -> Result<u64, PositionError>;
    fn dyn_position_text(&self, pos: u64) -> String;
    fn dyn_moves(&self, pos: u64) -> Vec<Move>;
    fn dyn_render(&self, pos: u64) -> Option<String>;
    fn dyn_child_text(&self, pos: u64, m: &Move) -> String;
    fn dyn_stored_image(&self, text: &str, pos: u64) -> Option<String>;
    fn dyn_move_id(&self, name: &str) -> Option<u64>;
    fn dyn_asked_board(&self, text: &str, pos: u64) -> Option<AskedBoard>;
    fn dyn_annotate(
        &self,
        pos: u64,
        stored: &dyn Fn(u64) -> Result<Option<Value>>,
    ) -> Result<Annotations>;

    fn dyn_searched_run(&self, first: u64, n: u64) -> Option<Vec<bool>>;
    fn dyn_omissible(&self, pos: u64) -> Option<bool>;
    fn dyn_omissible_run(&self, first: u64, n: u64) -> Option<Vec<bool>>;

    fn dyn_input_source(&self) -> Option<&Source>;
    fn dyn_held_bytes(&self) -> u64;
    fn dyn_loading_peak(&self) -> u64;
    fn dyn_tier_words(&self) -> &'static str;
    fn dyn_valued_as_games(&self) -> bool;
    fn dyn_marked_picture(&self, pos: u64, marked: &[u64], style: PictureStyle) -> Option<String>;
    fn dyn_start_position(&self) -> Option<u64>;
    fn dyn_turn_at(&self, pos: u64) -> Turn;
    fn dyn_board_picture(&self, pos: u64, moves: &[Move]) -> String;
    fn dyn_asked_picture(&self, text: &str, pos: u64) -> Option<String>;

    /// The game as [`Any`], for [`ExternalGame::downcast_ref`].
    fn as_any(&self) -> &dyn Any;
}

impl<G: Family + Omissions + Send + 'static> DynGame for G {
    fn dyn_spec(&self) -> String {
        Game::spec(self)
    }
    fn dyn_size(&self) -> u64 {
        Game::size(self)
    }
    fn dyn_status(&self, pos: u64) -> Status {
        Game::status(self, pos)
    }
    fn dyn_for_each_child(&self, pos: u64, f: &mut dyn FnMut(u64)) {
        Game::for_each_child(self, pos, f)
    }
    fn dyn_visit(&self, pos: u64, f: &mut dyn FnMut(u64)) -> Status {
        Game::visit(self, pos, f)
    }
    fn dyn_prepare(&self) {
        Game::prepare(self)
    }
    fn dyn_for_each_parent(&self, pos: u64, f: &mut dyn FnMut(u64)) {
        Game::for_each_parent(self, pos, f)
    }
    fn dyn_child_count(&self, pos: u64) -> u64 {
        Game::child_count(self, pos)
    }
    fn dyn_max_children(&self) -> u64 {
        Game::max_children(self)
    }
    fn dyn_impartial(&self) -> bool {
        Game::impartial(self)
    }

    fn dyn_parse_position(&self, text: &str) -> Result<u64, PositionError> {
        Notation::parse_position(self, text)
    }
    fn dyn_position_text(&self, pos: u64) -> String {
        Notation::position_text(self, pos)
    }
    fn dyn_moves(&self, pos: u64) -> Vec<Move> {
        Notation::moves(self, pos)
    }
    fn dyn_render(&self, pos: u64) -> Option<String> {
        Notation::render(self, pos)
    }
    fn dyn_child_text(&self, pos: u64, m: &Move) -> String {
        Notation::child_text(self, pos, m)
    }
    fn dyn_move_id(&self, name: &str) -> Option<u64> {
        self.move_id(name)
    }
    fn dyn_stored_image(&self, text: &str, pos: u64) -> Option<String> {
        Notation::stored_image(self, text, pos)
    }
    fn dyn_asked_board(&self, text: &str, pos: u64) -> Option<AskedBoard> {
        Notation::asked_board(self, text, pos)
    }
    fn dyn_annotate(
        &self,
        pos: u64,
        stored: &dyn Fn(u64) -> Result<Option<Value>>,
    ) -> Result<Annotations> {
        Notation::annotate(self, pos, stored)
    }

    fn dyn_searched_run(&self, first: u64, n: u64) -> Option<Vec<bool>> {
        Omissions::searched_run(self, first, n)
    }
    fn dyn_omissible(&self, pos: u64) -> Option<bool> {
        Omissions::omissible(self, pos)
    }
    fn dyn_omissible_run(&self, first: u64, n: u64) -> Option<Vec<bool>> {
        Omissions::omissible_run(self, first, n)
    }

    fn dyn_input_source(&self) -> Option<&Source> {
        Family::input_source(self)
    }
    fn dyn_held_bytes(&self) -> u64 {
        Family::held_bytes(self)
    }
    fn dyn_loading_peak(&self) -> u64 {
        Family::loading_peak(self)
    }
    fn dyn_tier_words(&self) -> &'static str {
        Family::tier_words(self)
    }
    fn dyn_valued_as_games(&self) -> bool {
        Family::valued_as_games(self)
    }
    fn dyn_marked_picture(&self, pos: u64, marked: &[u64], style: PictureStyle) -> Option<String> {
        Family::marked_picture(self, pos, marked, style)
    }
    fn dyn_start_position(&self) -> Option<u64> {
        Family::start_position(self)
    }
    fn dyn_turn_at(&self, pos: u64) -> Turn {
        Family::turn_at(self, pos)
    }
    fn dyn_board_picture(&self, pos: u64, moves: &[Move]) -> String {
        Family::board_picture(self, pos, moves)
    }
    fn dyn_asked_picture(&self, text: &str, pos: u64) -> Option<String> {
        Family::asked_picture(self, text, pos)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A game of a family registered at run time, held behind [`DynGame`]: what
/// [`super::AnyGame::External`] holds. It plays every role of a game by forwarding, so the
/// generic solvers, table writers and lookups take it as they take a built-in game.
pub struct ExternalGame(Box<dyn DynGame>);

impl ExternalGame {
    /// Holds `game`.
    pub fn new<G: Family + Omissions + Send + 'static>(game: G) -> ExternalGame {
        ExternalGame(Box::new(game))
    }

    /// The game inside, if it is a `G`.
    pub fn downcast_ref<G: 'static>(&self) -> Option<&G> {
        self.0.as_any().downcast_ref()
    }
}

impl Game for ExternalGame {
    fn spec(&self) -> String {
        self.0.dyn_spec()
    }
    fn size(&self) -> u64 {
        self.0.dyn_size()
    }
    fn status(&self, pos: u64) -> Status {
        self.0.dyn_status(pos)
    }
    fn for_each_child(&self, pos: u64, mut f: impl FnMut(u64)) {
        self.0.dyn_for_each_child(pos, &mut f)
    }
    fn visit(&self, pos: u64, mut f: impl FnMut(u64)) -> Status {
        self.0.dyn_visit(pos, &mut f)
    }
    fn prepare(&self) {
        self.0.dyn_prepare()
    }
    fn for_each_parent(&self, pos: u64, mut f: impl FnMut(u64)) {
        self.0.dyn_for_each_parent(pos, &mut f)
    }
    fn child_count(&self, pos: u64) -> u64 {
        self.0.dyn_child_count(pos)
    }
    fn max_children(&self) -> u64 {
        self.0.dyn_max_children()
    }
    fn impartial(&self) -> bool {
        self.0.dyn_impartial()
    }
}

impl Notation for ExternalGame {
    fn parse_position(&self, text: &str) -> Result<u64, PositionError> {
        self.0.dyn_parse_position(text)
    }
    fn position_text(&self, pos: u64) -> String {
        self.0.dyn_position_text(pos)
    }
    fn moves(&self, pos: u64) -> Vec<Move> {
        self.0.dyn_moves(pos)
    }
    fn render(&self, pos: u64) -> Option<String> {
        self.0.dyn_render(pos)
    }
    fn child_text(&self, pos: u64, m: &Move) -> String {
        self.0.dyn_child_text(pos, m)
    }
    fn move_id(&self, name: &str) -> Option<u64> {
        self.0.dyn_move_id(name)
    }
    fn stored_image(&self, text: &str, pos: u64) -> Option<String> {
        self.0.dyn_stored_image(text, pos)
    }
    fn asked_board(&self, text: &str, pos: u64) -> Option<AskedBoard> {
        self.0.dyn_asked_board(text, pos)
    }
    fn annotate(
        &self,
        pos: u64,
        stored: &dyn Fn(u64) -> Result<Option<Value>>,
    ) -> Result<Annotations> {
        self.0.dyn_annotate(pos, stored)
    }
}

impl Omissions for ExternalGame {
    fn searched_run(&self, first: u64, n: u64) -> Option<Vec<bool>> {
        self.0.dyn_searched_run(first, n)
    }
    fn omissible(&self, pos: u64) -> Option<bool> {
        self.0.dyn_omissible(pos)
    }
    fn omissible_run(&self, first: u64, n: u64) -> Option<Vec<bool>> {
        self.0.dyn_omissible_run(first, n)
    }
}

impl Family for ExternalGame {
    /// An external game's kinds are its own family's, which the registry keeps.
    const KINDS: &'static [(&'static str, &'static str)] = &[];

    /// Never called: the registry opens a spec with the concrete family's `open`.
    fn open(spec: &SpecInput<'_>) -> Result<ExternalGame> {
        Err(Error::Spec {
            spec: spec.spec.into(),
            msg: "an external game is opened by its own family (retrodb::games::register)".into(),
        })
    }
    fn into_any(self) -> super::AnyGame {
        super::AnyGame::External(self)
    }
    fn input_source(&self) -> Option<&Source> {
        self.0.dyn_input_source()
    }
    fn held_bytes(&self) -> u64 {
        self.0.dyn_held_bytes()
    }
    fn loading_peak(&self) -> u64 {
        self.0.dyn_loading_peak()
    }
    fn tier_words(&self) -> &'static str {
        self.0.dyn_tier_words()
    }
    fn valued_as_games(&self) -> bool {
        self.0.dyn_valued_as_games()
    }
    fn marked_picture(&self, pos: u64, marked: &[u64], style: PictureStyle) -> Option<String> {
        self.0.dyn_marked_picture(pos, marked, style)
    }
    fn start_position(&self) -> Option<u64> {
        self.0.dyn_start_position()
    }
    fn turn_at(&self, pos: u64) -> Turn {
        self.0.dyn_turn_at(pos)
    }
    fn board_picture(&self, pos: u64, moves: &[Move]) -> String {
        self.0.dyn_board_picture(pos, moves)
    }
    fn asked_picture(&self, text: &str, pos: u64) -> Option<String> {
        self.0.dyn_asked_picture(text, pos)
    }
}
