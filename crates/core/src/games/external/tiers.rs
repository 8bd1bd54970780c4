//! The tiers of a game from outside: [`TierFns`], [`Tiered`]'s methods instantiated for the
//! family's type when its game is opened, through which [`ExternalGame`] plays the role. The
//! walk of a tier hands each position on through a `dyn FnMut`: fine for the checks, digests and
//! plans that walk tiers, while the kernels solve the game through their own instances
//! (`solve::erased`).

use std::any::Any;
use std::ops::Range;

use super::ExternalGame;
use crate::game::shape::BoardShape;
use crate::game::{Status, TierPosition, TierVisitor, Tiered};

/// One position of a tier as the erased walk hands it on: index, status, children.
type Visit<'v> = &'v mut dyn FnMut(u64, Status, &mut dyn ExactSizeIterator<Item = u64>);

/// [`Tiered`]'s methods for one family's type, taking its game as [`Any`].
#[derive(Clone, Copy)]
pub(crate) struct TierFns {
    tier_count: fn(&dyn Any) -> u32,
    tier_units: fn(&dyn Any, u32) -> u64,
    visit_tier: fn(&dyn Any, u32, u64, Visit<'_>),
    tier_range: fn(&dyn Any, u32) -> Option<Range<u64>>,
    tier_of: fn(&dyn Any, u64) -> Option<u32>,
    board_shape: fn(&dyn Any) -> Option<BoardShape<'_>>,
}

/// The game `g` is, for the methods made for its type.
fn game<G: 'static>(g: &dyn Any) -> &G {
    g.downcast_ref()
        .expect("a family's tiers are asked of its own games")
}

fn board_shape<G: Tiered + 'static>(g: &dyn Any) -> Option<BoardShape<'_>> {
    game::<G>(g).board_shape()
}

fn visit_tier<G: Tiered + 'static>(g: &dyn Any, t: u32, unit: u64, visit: Visit<'_>) {
    /// Hands each position of the walk on to `visit`.
    struct Erase<'v, 'w>(&'v mut Visit<'w>);
    impl TierVisitor for Erase<'_, '_> {
        fn visit<I: ExactSizeIterator<Item = u64>>(&mut self, mut p: TierPosition<I>) {
            (self.0)(p.index, p.status, &mut p.children)
        }
    }
    let mut visit = visit;
    game::<G>(g).visit_tier(t, unit, &mut Erase(&mut visit))
}

impl TierFns {
    /// The methods of family `G`.
    pub(crate) fn of<G: Tiered + 'static>() -> TierFns {
        TierFns {
            tier_count: |g| game::<G>(g).tier_count(),
            tier_units: |g, t| game::<G>(g).tier_units(t),
            visit_tier: visit_tier::<G>,
            tier_range: |g, t| game::<G>(g).tier_range(t),
            tier_of: |g, p| game::<G>(g).tier_of(p),
            board_shape: board_shape::<G>,
        }
    }
}

impl ExternalGame {
    fn tier_fns(&self) -> &TierFns {
        self.tiers
            .as_ref()
            .expect("with_tiered_game! takes an external game with tiers only")
    }
}

impl Tiered for ExternalGame {
    fn tier_count(&self) -> u32 {
        (self.tier_fns().tier_count)(self.as_any())
    }
    fn tier_units(&self, t: u32) -> u64 {
        (self.tier_fns().tier_units)(self.as_any(), t)
    }
    fn visit_tier(&self, t: u32, unit: u64, visitor: &mut impl TierVisitor) {
        (self.tier_fns().visit_tier)(self.as_any(), t, unit, &mut |index, status, children| {
            visitor.visit(TierPosition {
                index,
                status,
                children,
            })
        })
    }
    fn tier_range(&self, t: u32) -> Option<Range<u64>> {
        (self.tier_fns().tier_range)(self.as_any(), t)
    }
    fn tier_of(&self, pos: u64) -> Option<u32> {
        (self.tier_fns().tier_of)(self.as_any(), pos)
    }
    fn board_shape(&self) -> Option<BoardShape<'_>> {
        (self.tier_fns().board_shape)(self.as_any())
    }
}
