//! [`DynGame`]: the object-safe form of the roles a game plays, implemented for every game by
//! forwarding each method to the one of the same name. The `forwarding_is_complete` test
//! compares the list with the traits' own, so a method added to a role and not forwarded here
//! fails the tests instead of falling back, for games from outside, on its default.

use std::any::Any;

use super::super::{Family, PictureStyle, Source, Turn};
use crate::base::error::{PositionError, Result};
use crate::game::{Annotations, AskedBoard, Game, Move, Notation, Omissions, Rules, Status, Value};

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
    fn dyn_rules_run(&self, first: u64, n: u64) -> Option<Vec<Rules>>;
    fn dyn_rules_known(&self) -> bool;
    fn dyn_omissible(&self, pos: u64) -> Option<bool>;
    fn dyn_omissible_run(&self, first: u64, n: u64) -> Option<Vec<bool>>;
    fn dyn_omissible_ranges(&self, first: u64, n: u64) -> Option<Vec<std::ops::Range<u64>>>;

    fn dyn_input_source(&self) -> Option<&Source>;
    fn dyn_held_bytes(&self) -> u64;
    fn dyn_loading_peak(&self) -> u64;
    fn dyn_sliced_plan(&self) -> Option<crate::game::shape::sliced::SlicedPlan>;
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
    fn dyn_rules_run(&self, first: u64, n: u64) -> Option<Vec<Rules>> {
        Omissions::rules_run(self, first, n)
    }
    fn dyn_rules_known(&self) -> bool {
        Omissions::rules_known(self)
    }
    fn dyn_omissible(&self, pos: u64) -> Option<bool> {
        Omissions::omissible(self, pos)
    }
    fn dyn_omissible_run(&self, first: u64, n: u64) -> Option<Vec<bool>> {
        Omissions::omissible_run(self, first, n)
    }
    fn dyn_omissible_ranges(&self, first: u64, n: u64) -> Option<Vec<std::ops::Range<u64>>> {
        Omissions::omissible_ranges(self, first, n)
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
    fn dyn_sliced_plan(&self) -> Option<crate::game::shape::sliced::SlicedPlan> {
        Family::sliced_plan(self)
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

#[cfg(test)]
mod tests {
    /// The methods of `role`'s trait in `source` (its `fn NAME` lines at one indent).
    fn methods(source: &str, role: &str) -> Vec<String> {
        let start = source
            .find(&format!("pub trait {role}"))
            .unwrap_or_else(|| panic!("no trait {role}"));
        let body = &source[start..];
        let end = body.find("\n}\n").expect("the trait's end");
        body[..end]
            .lines()
            .filter_map(|l| l.strip_prefix("    fn "))
            .map(|l| l[..l.find(['(', '<']).unwrap()].to_string())
            .collect()
    }

    /// Every method of the roles a game plays is forwarded, as `dyn_NAME` in [`super::DynGame`]
    /// and as `NAME` by [`super::super::ExternalGame`] (the tiers' by its own table): a method
    /// added to a role and forgotten here fails this test, instead of giving games from
    /// outside its default silently (three were lost that way).
    #[test]
    fn forwarding_is_complete() {
        let game = include_str!("../../game.rs");
        let family = include_str!("../family.rs");
        let here = include_str!("dyn_game.rs");
        let external = include_str!("mod.rs");
        let tiers = include_str!("tiers.rs");
        let mut checked = 0;
        for (source, role) in [
            (game, "Game"),
            (game, "Notation"),
            (game, "Omissions"),
            (family, "Family"),
        ] {
            for m in methods(source, role) {
                if role == "Family" && (m == "open" || m == "into_any") {
                    continue; // The registry calls these on the concrete type.
                }
                assert!(
                    here.contains(&format!("fn dyn_{m}(")),
                    "DynGame lacks dyn_{m}"
                );
                assert!(
                    external.contains(&format!("fn {m}(")),
                    "ExternalGame does not forward {role}::{m}"
                );
                checked += 1;
            }
        }
        for m in methods(game, "Tiered") {
            assert!(
                tiers.contains(&format!("fn {m}(")),
                "ExternalGame does not forward Tiered::{m}"
            );
            checked += 1;
        }
        assert!(checked > 35, "{checked} methods: the lists were not read");
    }
}
