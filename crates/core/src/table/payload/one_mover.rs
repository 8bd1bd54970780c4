//! The one-mover omission ([`OneMover`]) as a wrapper around any payload reader: the positions
//! a game marks omissible are left out of the payload and found again by a one-ply search.
//!
//! Invariant: a left-out position is answered from its children's values alone, each read
//! through the payload inside (so from checked bytes); a left-out child is an error, never a
//! guess.

use super::{Answer, CellSource, Stored};
use crate::base::cells;
use crate::base::error::table::TableErrorKind;
use crate::game::{Game, Omissions, Rules, table_rules};
use crate::with_game;

/// The one-mover omission around any payload `P`: the positions the game marks omissible
/// ([`crate::game::Omissions::omissible`]; cell games: Right to move) are left out of `P`
/// ("don't care") and answered by the rules or else by a one-ply search over their children,
/// which are all stored (the game's contract), each read from `P`'s checked bytes; with
/// remoteness, theirs too, so a left-out position's remoteness follows from its children's
/// (docs/FORMAT.md, "One mover stored").
pub(in crate::table) struct OneMover<P>(pub P);

impl<P: CellSource> OneMover<P> {
    /// Whether the table leaves `pos` out.
    #[inline]
    fn omits(at: &Stored<'_>, pos: u64) -> bool {
        with_game!(at.game, g => g.omissible(pos)) == Some(true)
    }

    /// The code and remoteness of a position left out, by the rules or else by a one-move
    /// search over its children, each read from the payload inside. Without `remoteness` the
    /// search stops at the first lost child and gives no remoteness; with it every child is read:
    /// a win's remoteness is one more than its quickest lost child's, a loss's one more than its
    /// slowest child's (docs/FORMAT.md, "Remoteness"), a draw has none.
    fn searched(&self, at: &Stored<'_>, pos: u64, remoteness: bool) -> Answer<(u8, Option<u32>)> {
        with_game!(at.game, g => {
            match table_rules(g, pos) {
                Rules::Unused => Ok((cells::UNUSED, None)),
                Rules::Known(v, r) => Ok((cells::code(v), r.filter(|_| remoteness))),
                Rules::Search => {
                    let mut s = Search::new(remoteness);
                    g.for_each_child(pos, |c| {
                        if s.failed.is_some() || (s.lost.is_some() && !remoteness) {
                            return;
                        }
                        if Self::omits(at, c) {
                            s.failed = Some(TableErrorKind::Game(format!(
                                "position {pos} and its child {c} are both left out"
                            )));
                            return;
                        }
                        let child = if remoteness {
                            self.0.code_and_remoteness(at, c)
                        } else {
                            self.0.code(at, c).map(|code| (code, None))
                        };
                        match child {
                            Ok(child) => s.see(pos, c, child),
                            Err(e) => s.failed = Some(e),
                        }
                    });
                    s.verdict()
                }
            }
        })
    }
}

/// A one-move search's findings so far: whether a child is lost (with remoteness: the quickest
/// lost child's), whether a child is drawn, the slowest won child's remoteness, or why the search
/// failed.
#[derive(Default)]
pub(in crate::table) struct Search {
    /// Whether the children's remoteness is read and the position's asked for.
    pub remoteness: bool,
    pub lost: Option<u32>,
    drawn: bool,
    won: Option<u32>,
    pub failed: Option<TableErrorKind>,
}

impl Search {
    /// A search that reads the children's remoteness where `remoteness` says so.
    pub fn new(remoteness: bool) -> Search {
        Search {
            remoteness,
            ..Search::default()
        }
    }

    /// Takes in child `c` of `pos`: its code and remoteness (`None` unless asked for).
    pub fn see(&mut self, pos: u64, c: u64, (code, r): (u8, Option<u32>)) {
        let asked = self.remoteness;
        let decided = |r: Option<u32>| {
            if !asked {
                return Ok(0);
            }
            r.ok_or_else(|| {
                TableErrorKind::Game(format!(
                    "child {c} of position {pos} is decided but has no remoteness"
                ))
            })
        };
        match code {
            cells::LOSS => match decided(r) {
                Ok(r) => self.lost = Some(self.lost.map_or(r, |l| l.min(r))),
                Err(e) => self.failed = Some(e),
            },
            cells::WIN => match decided(r) {
                Ok(r) => self.won = Some(self.won.map_or(r, |w| w.max(r))),
                Err(e) => self.failed = Some(e),
            },
            cells::DRAW => self.drawn = true,
            _ => {}
        }
    }

    /// The position's code, and its remoteness where asked for.
    pub fn verdict(self) -> Answer<(u8, Option<u32>)> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        let code = cells::verdict(self.lost.is_some(), self.drawn);
        let r = match code {
            _ if !self.remoteness => None,
            cells::WIN => self.lost.map(|r| r + 1),
            cells::LOSS => Some(self.won.map_or(0, |r| r + 1)),
            _ => None,
        };
        Ok((code, r))
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
            return Ok(self.searched(at, pos, false)?.0);
        }
        self.0.code(at, pos)
    }

    #[inline]
    fn remoteness(&self, at: &Stored<'_>, pos: u64) -> Answer<Option<u32>> {
        if Self::omits(at, pos) {
            return Ok(self.searched(at, pos, true)?.1);
        }
        self.0.remoteness(at, pos)
    }

    #[inline]
    fn code_and_remoteness(&self, at: &Stored<'_>, pos: u64) -> Answer<(u8, Option<u32>)> {
        if Self::omits(at, pos) {
            let stored = at.header.remoteness_encoding.is_stored();
            return self.searched(at, pos, stored);
        }
        self.0.code_and_remoteness(at, pos)
    }
}
