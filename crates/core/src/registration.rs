//! Registering a game family from outside retrodb, the one way a program adds a game: the
//! family's spec kinds go into the games' registry ([`crate::games::kinds`]) with the kernels
//! instantiated for its type ([`crate::solve::erased::Solvers`]), so its games are solved as a
//! built-in family's are, with no dynamic call in the kernels' loops. A family with tiers
//! ([`register_tiered`]) reaches the tiered engine and its kernels; one without
//! ([`register`]) the counter engine, which needs only the rules.
//!
//! The built-in families are in the same registry from the start (`games/mod.rs`'s list).

use crate::base::error::Result;
use crate::game::{Omissions, Tiered};
use crate::games::{Family, FamilyEntry, register_entry};
use crate::solve::erased::Solvers;

/// Registers game family `G`, solved by the counter engine (cycles and draws included): from
/// now on a spec of one of its kinds opens one of its games ([`crate::AnyGame::open`]) in the
/// builder, the table reader, the command line and the server. Registering a family again
/// changes nothing; a kind another family already reads is refused. Before it solves a game of
/// the family, a build checks a sample of its positions against the contract (children and
/// parents agree).
///
/// ```
/// use retrodb_core::games::{AnyGame, subtraction::Subtraction};
/// // A game of another crate registers the same way; a built-in family is registered already,
/// // and registering it again changes nothing.
/// retrodb_core::register::<Subtraction>()?;
/// let game = AnyGame::open("subtract:20,1,3,4", u64::MAX)?;
/// assert_eq!(game.size(), 21);
/// # Ok::<(), retrodb_core::Error>(())
/// ```
pub fn register<G: Family + Omissions + Send + 'static>() -> Result<()> {
    let solvers: &'static Solvers = Box::leak(Box::new(Solvers::of::<G>()));
    register_entry(FamilyEntry::of::<G>().with_solvers(solvers))
}

/// Registers game family `G`, which has tiers ([`Tiered`]: acyclic, every move to a higher
/// tier), solved by the tiered engine and the kernels its shape allows, as [`register`] says
/// otherwise. Before it solves a game of the family, a build checks a sample of its positions
/// against the contract (children and parents agree, moves go to higher tiers).
pub fn register_tiered<G: Family + Omissions + Tiered + Send + 'static>() -> Result<()> {
    let solvers: &'static Solvers = Box::leak(Box::new(Solvers::with_tiers::<G>()));
    register_entry(FamilyEntry::tiered_of::<G>().with_solvers(solvers))
}
