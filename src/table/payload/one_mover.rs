//! The one-mover omission ([`OneMover`]) as a wrapper around any payload reader: the positions
//! a game marks omissible are left out of the payload and found again by a one-ply search.
//!
//! Invariant: a left-out position is answered from its children's values alone, each read
//! through the payload inside (so from checked bytes); a left-out child is an error, never a
//! guess.

use super::{Answer, CellSource, Stored, code_then_remoteness};
use crate::base::cells;
use crate::base::error::table::TableErrorKind;
use crate::game::{Game, Omissions, Rules, by_rules};
use crate::with_game;

/// The one-mover omission around any payload `P`: the positions the game marks omissible
/// ([`crate::game::Omissions::omissible`]; cell games: Right to move) are left out of `P`
/// ("don't care") and answered by the rules or else by a one-ply search over their children,
/// which are all stored (the game's contract), each read from `P`'s checked bytes. A table with
/// it has no remoteness (the header refuses the pair), so remoteness is `P`'s.
pub(in crate::table) struct OneMover<P>(pub P);

impl<P: CellSource> OneMover<P> {
    /// Whether the table leaves `pos` out.
    #[inline]
    fn omits(at: &Stored<'_>, pos: u64) -> bool {
        with_game!(at.game, g => g.omissible(pos)) == Some(true)
    }

    /// The code of a position left out, by the rules or else by a one-move search.
    fn searched_code(&self, at: &Stored<'_>, pos: u64) -> Answer<u8> {
        with_game!(at.game, g => {
            match by_rules(g, pos) {
                Rules::Unused => Ok(cells::UNUSED),
                Rules::Known(v, _) => Ok(cells::code(v)),
                Rules::Search => {
                    let (mut lost, mut drawn) = (false, false);
                    let mut failed = None;
                    g.for_each_child(pos, |c| {
                        if lost || failed.is_some() {
                            return;
                        }
                        if Self::omits(at, c) {
                            failed = Some(TableErrorKind::Game(format!(
                                "position {pos} and its child {c} are both left out"
                            )));
                            return;
                        }
                        match self.0.code(at, c) {
                            Ok(cells::LOSS) => lost = true,
                            Ok(cells::DRAW) => drawn = true,
                            Ok(_) => {}
                            Err(e) => failed = Some(e),
                        }
                    });
                    match failed {
                        Some(e) => Err(e),
                        None => Ok(cells::verdict(lost, drawn)),
                    }
                }
            }
        })
    }
}

impl<P: CellSource> CellSource for OneMover<P> {
    #[inline]
    fn stored_code(&self, at: &Stored<'_>, pos: u64) -> Answer<u8> {
        self.0.stored_code(at, pos)
    }

    #[inline]
    fn stored_remoteness(
        &self,
        at: &Stored<'_>,
        pos: u64,
        stored_code: impl FnOnce() -> Answer<u8>,
    ) -> Answer<Option<u32>> {
        self.0.stored_remoteness(at, pos, stored_code)
    }

    #[inline]
    fn code(&self, at: &Stored<'_>, pos: u64) -> Answer<u8> {
        if Self::omits(at, pos) {
            return self.searched_code(at, pos);
        }
        self.0.code(at, pos)
    }

    #[inline]
    fn remoteness(&self, at: &Stored<'_>, pos: u64) -> Answer<Option<u32>> {
        self.0.remoteness(at, pos)
    }

    #[inline]
    fn code_and_remoteness(&self, at: &Stored<'_>, pos: u64) -> Answer<(u8, Option<u32>)> {
        code_then_remoteness(self, at, pos)
    }
}
