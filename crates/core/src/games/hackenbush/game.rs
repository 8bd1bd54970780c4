//! The rules of Hackenbush as a [`Game`] and a [`Tiered`] game: a position is a grounded edge
//! set and the player to move, a move removes one of the mover's edges and whatever falls with
//! it, and the parents undo exactly that.
//!
//! The invariant: every child and parent produced is a grounded set, so it has a rank in `sets`.

use std::fmt::Write as _;

use super::{Hackenbush, TIER_UNIT, bits, outcome_class};
use crate::base::error::Result;
use crate::game::{
    Annotations, Game, Move, Notation, Omissions, PositionError, Status, TierPosition, TierVisitor,
    Tiered, Value,
};

impl Game for Hackenbush {
    fn spec(&self) -> String {
        self.spec.clone()
    }

    fn size(&self) -> u64 {
        2 * self.sets.len() as u64
    }

    fn status(&self, pos: u64) -> Status {
        if pos < self.size() {
            Status::Open
        } else {
            Status::Unused
        }
    }

    #[inline]
    fn for_each_child(&self, pos: u64, f: impl FnMut(u64)) {
        self.children(self.set_of(pos), Self::right_to_move(pos))
            .for_each(f);
    }

    /// The parents of set S (mover m) are the sets T = S + e + D, mover m', where e is an edge
    /// m' may remove that touches the ground or a vertex of S, and D is what hangs from e alone:
    /// empty when both ends of e are vertices of S (or the ground), otherwise any edge set
    /// joined to e's far end w through edges that avoid S's vertices (removing e makes exactly D
    /// fall). Each pair (T, e) is produced once: e is the only edge of T - S touching S's
    /// vertices, so T determines e.
    fn for_each_parent(&self, pos: u64, mut f: impl FnMut(u64)) {
        let set = self.set_of(pos);
        let parent_right = !Self::right_to_move(pos);
        let touch = self.touch(set);
        let v0 = self.vertices(set);
        let pool = self.all & !touch;
        let mut emit = |t: u64| f(self.rank_of(t, parent_right));
        for e in bits(self.removable[parent_right as usize] & touch & !set) {
            let far = self.ends[e] & !v0;
            if far == 0 {
                emit(set | 1 << e);
            } else {
                // The edges sharing an end with e: those at its near end touch S's vertices and
                // are outside the pool, so the candidates are the pool's edges at w.
                self.rooted_sets(pool, self.adjacent[e], set | 1 << e, 0, &mut emit);
            }
        }
    }

    fn max_children(&self) -> u64 {
        self.max_children
    }
}

impl Notation for Hackenbush {
    fn parse_position(&self, text: &str) -> Result<u64, PositionError> {
        self.read_position(text)
    }

    fn position_text(&self, pos: u64) -> String {
        let mover = if Self::right_to_move(pos) { "R" } else { "L" };
        format!("{}/{mover}", self.describe_set(self.set_of(pos)))
    }

    /// The edge the move removes (its place in the graph file).
    fn move_id(&self, name: &str) -> Option<u64> {
        name.strip_prefix('e')?.parse().ok()
    }

    fn moves(&self, pos: u64) -> Vec<Move> {
        let set = self.set_of(pos);
        let right = Self::right_to_move(pos);
        bits(set & self.removable[right as usize])
            .map(|e| Move {
                name: format!("e{e}"),
                child: self.rank_of(self.grounded(set & !(1 << e)), !right),
            })
            .collect()
    }

    fn render(&self, pos: u64) -> Option<String> {
        let set = self.set_of(pos);
        let mut s = format!(
            "{} to move; edges present:\n",
            if Self::right_to_move(pos) {
                "Right (red)"
            } else {
                "Left (blue)"
            }
        );
        for i in bits(set) {
            let e = self.edges[i];
            let _ = writeln!(s, "  e{i}  {}-{}  {}", e.u, e.v, e.colour.name());
        }
        Some(s)
    }

    fn annotate(
        &self,
        pos: u64,
        stored: &dyn Fn(u64) -> Result<Option<Value>>,
    ) -> Result<Annotations> {
        let mut a = Annotations::default();
        let base = pos & !1;
        if let (Some(l), Some(r)) = (stored(base)?, stored(base | 1)?)
            && let Some(c) = outcome_class(l, r)
        {
            a.push("outcome", c.to_string());
        }
        if let Some(v) = self.game_value(pos) {
            a.push("game_value", v.to_string());
        }
        Ok(a)
    }
}

impl Omissions for Hackenbush {}

impl Tiered for Hackenbush {
    /// Finite and ended by the player who cannot move: never drawn.
    const DRAWS: bool = false;

    /// Tier `t` holds the sets with `t` edges gone. A move removes one edge *and* whatever
    /// falls with it, so the number of edges gone does not rise by exactly one per move (no
    /// [`Tiered::tier_range`]), but it strictly rises along every move, which is what tiers ask.
    fn tier_count(&self) -> u32 {
        self.edges.len() as u32 + 1
    }

    /// Units are runs of `TIER_UNIT` consecutive sets; each keeps the sets of its tier.
    fn tier_units(&self, _t: u32) -> u64 {
        self.sets.len().div_ceil(TIER_UNIT) as u64
    }

    #[inline(always)]
    fn visit_tier(&self, t: u32, unit: u64, v: &mut impl TierVisitor) {
        let present = (self.edges.len() as u32).checked_sub(t);
        let start = (unit as usize)
            .saturating_mul(TIER_UNIT)
            .min(self.sets.len());
        let end = (start + TIER_UNIT).min(self.sets.len());
        for (k, &set) in self.sets[start..end].iter().enumerate() {
            if Some(set.count_ones()) != present {
                continue;
            }
            // Children come as they are read: each costs a flood and a search, and a
            // values-only solve stops at the first lost one.
            let pos = 2 * (start + k) as u64;
            v.visit_pair(
                TierPosition {
                    index: pos,
                    status: Status::Open,
                    children: self.children(set, false),
                },
                TierPosition {
                    index: pos + 1,
                    status: Status::Open,
                    children: self.children(set, true),
                },
            );
        }
    }

    fn tier_range(&self, _t: u32) -> Option<std::ops::Range<u64>> {
        None
    }

    /// The edges gone from the position's set.
    fn tier_of(&self, pos: u64) -> Option<u32> {
        let set = self.sets.get((pos / 2) as usize)?;
        Some(self.edges.len() as u32 - set.count_ones())
    }
}

impl Hackenbush {
    /// The children of set `set` with the given mover, as they are read.
    fn children(&self, set: u64, right_to_move: bool) -> Children<'_> {
        Children {
            game: self,
            set,
            edges: set & self.removable[right_to_move as usize],
            right: right_to_move,
        }
    }
}

/// The children of a position, computed as they are read: one per edge the mover may remove,
/// lowest edge first (the order of [`Game::for_each_child`]).
struct Children<'a> {
    game: &'a Hackenbush,
    set: u64,
    /// The removable edges not yet taken.
    edges: u64,
    right: bool,
}

impl Iterator for Children<'_> {
    type Item = u64;

    #[inline]
    fn next(&mut self) -> Option<u64> {
        if self.edges == 0 {
            return None;
        }
        let e = self.edges.trailing_zeros();
        self.edges &= self.edges - 1;
        let g = self.game;
        Some(g.rank_of(g.grounded(self.set & !(1 << e)), !self.right))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.edges.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Children<'_> {}
