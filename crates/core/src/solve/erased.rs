//! The engines' entries for any game: a built-in family through its own variant, a family from
//! outside through [`Solvers`], the kernels instantiated for its type when it was registered
//! ([`crate::register`]). So a game from outside is solved with no dynamic call in the kernels'
//! loops, as a built-in one is; only a family registered without them (none is, through the
//! public registration) would fall back on the game's forwarding.

use std::any::Any;

use super::counter;
use super::finished::{Solved, TierDone};
use super::plan::TieredKernel;
use super::tiered::{TierStores, solve_tiers};
use super::{SolveOptions, SolveStats};
use crate::base::cells::Cells;
use crate::base::error::{Error, Result};
use crate::game::{Game, Tiered};
use crate::games::{AnyGame, ExternalGame};
use crate::{with_game, with_tiered_game};

/// What a tiered solve calls after each tier ([`solve_tiers`]'s `after`).
pub type After<'a> = &'a mut dyn FnMut(TierDone<'_>) -> Result<bool>;

/// The counter engine for one family's type.
type CounterFn = fn(&ExternalGame, &Cells<'_>, &SolveOptions) -> SolveStats;

/// The tiered engine for one family's type.
type TiersFn = fn(
    &ExternalGame,
    &TieredKernel<'_>,
    &Cells<'_>,
    u32,
    &dyn TierStores,
    &SolveOptions,
    After<'_>,
) -> Result<Option<Solved>>;

/// The kernels of one family from outside, instantiated for its type.
pub struct Solvers {
    counter: CounterFn,
    tiers: Option<TiersFn>,
}

/// The game inside `g`, of the type its solvers were made for.
fn inner<G: 'static>(g: &ExternalGame) -> &G {
    g.downcast_ref()
        .expect("a family's solvers are asked of its own games")
}

fn counter_of<G: Game + 'static>(
    g: &ExternalGame,
    cells: &Cells<'_>,
    o: &SolveOptions,
) -> SolveStats {
    counter::solve(inner::<G>(g), cells, o)
}

fn tiers_of<G: Tiered + 'static>(
    g: &ExternalGame,
    kernel: &TieredKernel<'_>,
    cells: &Cells<'_>,
    done_from: u32,
    stores: &dyn TierStores,
    o: &SolveOptions,
    mut after: After<'_>,
) -> Result<Option<Solved>> {
    solve_tiers(
        inner::<G>(g),
        kernel,
        cells,
        done_from,
        stores,
        o,
        &mut after,
    )
}

impl Solvers {
    /// The counter engine for family `G`.
    pub fn of<G: Game + 'static>() -> Solvers {
        Solvers {
            counter: counter_of::<G>,
            tiers: None,
        }
    }

    /// Both engines for family `G`, which has tiers.
    pub fn with_tiers<G: Tiered + 'static>() -> Solvers {
        Solvers {
            counter: counter_of::<G>,
            tiers: Some(tiers_of::<G>),
        }
    }
}

/// The solvers of an external game, where its family has them.
fn solvers(game: &ExternalGame) -> Option<&'static Solvers> {
    let any: &'static (dyn Any + Send + Sync) = game.solvers()?;
    any.downcast_ref()
}

/// The counter engine's solve of `game` ([`counter::solve`]).
pub fn counter(game: &AnyGame, cells: &Cells<'_>, opts: &SolveOptions) -> SolveStats {
    if let Some(g) = game.external()
        && let Some(s) = solvers(g)
    {
        return (s.counter)(g, cells, opts);
    }
    with_game!(game, g => counter::solve(g, cells, opts))
}

/// The tiered engine's solve of `game` ([`solve_tiers`]); a game without tiers is refused.
pub fn tiers(
    game: &AnyGame,
    kernel: &TieredKernel<'_>,
    cells: &Cells<'_>,
    done_from: u32,
    stores: &dyn TierStores,
    opts: &SolveOptions,
    mut after: After<'_>,
) -> Result<Option<Solved>> {
    if let Some(g) = game.external()
        && let Some(f) = solvers(g).and_then(|s| s.tiers)
    {
        return f(g, kernel, cells, done_from, stores, opts, after);
    }
    with_tiered_game!(game, g => solve_tiers(g, kernel, cells, done_from, stores, opts, &mut after),
    _ => Err(Error::Spec {
        spec: game.spec(),
        msg: "the tiered engine cannot solve this game: it has no tiers".into(),
    }))
}
