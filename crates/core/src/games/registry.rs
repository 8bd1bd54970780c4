//! The game families a program knows, by spec kind: filled at first use with the built-in
//! families (`games/mod.rs`'s list), and open to more at run time through [`crate::register`] — the
//! same entry ([`FamilyEntry::of`]) either way. [`super::AnyGame::open`] asks it which family
//! reads a spec's kind; a table's header names its spec, so a table of a family this program has
//! not registered says which family is missing ([`crate::base::error::table::TableErrorKind`]'s
//! `FamilyNotRegistered`).

use std::any::TypeId;
use std::sync::{LazyLock, RwLock};

use super::{AnyGame, ExternalGame, Family, SpecInput};
use crate::base::error::{Error, Result};
use crate::game::Omissions;

/// What the registry keeps of one family: its spec kinds and how a spec of them is read into
/// an [`AnyGame`].
#[derive(Clone, Copy)]
pub struct FamilyEntry {
    /// The family's type, so that registering it again changes nothing.
    type_id: TypeId,
    /// The family's type name, for messages.
    name: &'static str,
    kinds: &'static [(&'static str, &'static str)],
    open: fn(&SpecInput<'_>) -> Result<AnyGame>,
    tiered: bool,
    /// A family from outside: its kernels, instantiated for its type ([`crate::register`]).
    solvers: Option<super::external::Solvers>,
}

impl FamilyEntry {
    /// The entry of family `G`: its [`Family::KINDS`], read by [`Family::open`] and held as
    /// [`Family::into_any`] says (a built-in family's own variant, else
    /// [`AnyGame::External`]).
    pub fn of<G: Family + Omissions + Send + 'static>() -> FamilyEntry {
        FamilyEntry {
            type_id: TypeId::of::<G>(),
            name: std::any::type_name::<G>(),
            kinds: G::KINDS,
            open: |spec| G::open(spec).map(G::into_any),
            tiered: false,
            solvers: None,
        }
    }

    /// The entry of family `G` from outside, with tiers: its games are
    /// [`AnyGame::External`] with tiers, which the tiered engine solves.
    pub(crate) fn tiered_of<G: Family + Omissions + crate::game::Tiered + Send + 'static>()
    -> FamilyEntry {
        FamilyEntry {
            open: |spec| G::open(spec).map(|g| AnyGame::External(ExternalGame::with_tiers(g))),
            tiered: true,
            ..Self::of::<G>()
        }
    }

    /// The entry with the family's kernels (`solve::erased::Solvers`).
    pub(crate) fn with_solvers(self, solvers: super::external::Solvers) -> FamilyEntry {
        FamilyEntry {
            solvers: Some(solvers),
            ..self
        }
    }

    /// A built-in family solved tier by tier (it implements [`crate::game::Tiered`] and
    /// `with_tiered_game!` has its arm).
    pub(crate) fn tiered(self) -> FamilyEntry {
        FamilyEntry {
            tiered: true,
            ..self
        }
    }

    /// The spec kinds the family reads and what their argument is.
    pub fn kinds(&self) -> &'static [(&'static str, &'static str)] {
        self.kinds
    }

    /// The family's type name (`retrodb::games::subtraction::Subtraction`).
    pub fn name(&self) -> &'static str {
        self.name
    }
}

static REGISTRY: LazyLock<RwLock<Vec<FamilyEntry>>> =
    LazyLock::new(|| RwLock::new(super::builtin_families()));

fn entries() -> Vec<FamilyEntry> {
    REGISTRY.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Registers the family of `entry` ([`crate::register`], [`crate::register_tiered`]):
/// registering a family again changes nothing; a kind another family already reads is refused.
pub(crate) fn register_entry(entry: FamilyEntry) -> Result<()> {
    let mut all = REGISTRY.write().unwrap_or_else(|e| e.into_inner());
    if all.iter().any(|e| e.type_id == entry.type_id) {
        return Ok(());
    }
    for (kind, _) in entry.kinds {
        if kind.is_empty() || kind.contains(':') {
            return Err(Error::Spec {
                spec: kind.to_string(),
                msg: format!(
                    "family {}: a spec kind is a non-empty word without ':'",
                    entry.name
                ),
            });
        }
        if let Some(other) = all.iter().find(|e| e.kinds.iter().any(|(k, _)| k == kind)) {
            return Err(Error::Spec {
                spec: kind.to_string(),
                msg: format!(
                    "family {} cannot be registered: family {} reads this kind already",
                    entry.name, other.name
                ),
            });
        }
    }
    all.push(entry);
    Ok(())
}

/// Whether a registered family reads spec kind `kind` (`hex`, `subtract`).
pub fn is_registered(kind: &str) -> bool {
    entries()
        .iter()
        .any(|e| e.kinds.iter().any(|(k, _)| *k == kind))
}

/// The spec kinds of every registered family and what their argument is, for help texts and
/// errors: the built-in families' first, then the others in the order they were registered.
pub fn kinds() -> impl Iterator<Item = &'static (&'static str, &'static str)> {
    entries().into_iter().flat_map(|e| e.kinds.iter())
}

/// The spec kinds of the families solved tier by tier (with a tier walk), for the messages of
/// what reads tiers.
pub fn tiered_kinds() -> impl Iterator<Item = &'static str> {
    entries()
        .into_iter()
        .filter(|e| e.tiered)
        .flat_map(|e| e.kinds.iter().map(|(kind, _)| *kind))
}

/// Whether the family that reads spec kind `kind` is `G` (`false` for a kind no registered
/// family reads).
pub fn read_by<G: 'static>(kind: &str) -> bool {
    entries()
        .iter()
        .find(|e| e.kinds.iter().any(|(k, _)| *k == kind))
        .is_some_and(|e| e.type_id == TypeId::of::<G>())
}

/// The game a spec names, by the family that reads its kind; `None` for a kind no registered
/// family reads. The registry is not locked while the family reads the spec.
pub(super) fn open_kind(spec: &SpecInput<'_>) -> Option<Result<AnyGame>> {
    let entry = entries()
        .into_iter()
        .find(|e| e.kinds.iter().any(|(k, _)| *k == spec.kind))?;
    Some((entry.open)(spec).map(|mut game| {
        if let AnyGame::External(g) = &mut game {
            g.set_solvers(entry.solvers);
        }
        game
    }))
}

#[cfg(test)]
mod tests;
