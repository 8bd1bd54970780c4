//! Bounds on work done for someone who may stop wanting it: a [`Budget`] caps the units of work
//! (positions visited for game values) that every thread working for one request may spend
//! together, and carries [`Cancel`] flags — the request's own (set when it times out or its
//! client goes away) and the server's (set when it shuts down). Work charges the budget in
//! batches and stops at its next check once the budget is spent or a flag is set, so the cost
//! of the bound is one atomic operation a batch, and stopping takes one batch's time.
//!
//! The invariant: a budget only ever goes down and a flag only ever goes from clear to set, so
//! a stop, once seen, stays; work that has stopped returns no partial answer as a whole one.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

/// A flag that asks work to stop; clones share it.
#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Asks the work to stop (it cannot be taken back).
    pub fn cancel(&self) {
        self.0.store(true, Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Relaxed)
    }

    /// A guard that sets the flag when it is dropped: held by whatever waits for the work (a
    /// request's future, a streamed answer), so the work stops when that goes away, however
    /// it goes.
    pub fn on_drop(&self) -> CancelOnDrop {
        CancelOnDrop(self.clone())
    }
}

/// Sets its [`Cancel`] when dropped ([`Cancel::on_drop`]).
#[derive(Debug)]
pub struct CancelOnDrop(Cancel);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// Why work stopped before it finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The budget of `cap` units is spent.
    Spent { cap: u64 },
    /// A [`Cancel`] flag was set.
    Cancelled,
}

impl From<Stop> for crate::base::error::Error {
    fn from(s: Stop) -> Self {
        use crate::base::error::LookupError;
        match s {
            Stop::Spent { cap } => LookupError::WorkLimit { cap }.into(),
            Stop::Cancelled => LookupError::Cancelled.into(),
        }
    }
}

/// Units of work shared by everything done for one request, and the flags that cancel it.
/// Clones share the budget.
#[derive(Clone, Debug)]
pub struct Budget {
    remaining: Arc<AtomicU64>,
    cap: u64,
    cancels: Arc<[Cancel]>,
}

impl Budget {
    /// `cap` units, stopped early by any of `cancels`.
    pub fn new(cap: u64, cancels: impl Into<Arc<[Cancel]>>) -> Budget {
        Budget {
            remaining: Arc::new(AtomicU64::new(cap)),
            cap,
            cancels: cancels.into(),
        }
    }

    /// No bound and no flag.
    pub fn unlimited() -> Budget {
        Budget::new(u64::MAX, Vec::new())
    }

    /// The units the budget started with.
    pub fn cap(&self) -> u64 {
        self.cap
    }

    /// Spends `n` units: `Err` when fewer were left (the budget is then spent for everyone
    /// sharing it) or a flag is set.
    pub fn charge(&self, n: u64) -> Result<(), Stop> {
        self.check()?;
        let before = self
            .remaining
            .fetch_update(Relaxed, Relaxed, |r| Some(r.saturating_sub(n)))
            .expect("the update always gives a value");
        if before < n {
            return Err(Stop::Spent { cap: self.cap });
        }
        Ok(())
    }

    /// `Err` once a flag is set.
    pub fn check(&self) -> Result<(), Stop> {
        if self.is_cancelled() {
            Err(Stop::Cancelled)
        } else {
            Ok(())
        }
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancels.iter().any(Cancel::is_cancelled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_is_shared_and_stays_spent() {
        let b = Budget::new(10, Vec::new());
        let c = b.clone();
        assert_eq!(b.charge(6), Ok(()));
        assert_eq!(c.charge(6), Err(Stop::Spent { cap: 10 }));
        // Spent for every holder, even for a charge that would have fitted before.
        assert_eq!(b.charge(1), Err(Stop::Spent { cap: 10 }));
        assert_eq!(Budget::unlimited().charge(u64::MAX), Ok(()));
    }

    #[test]
    fn any_flag_cancels_and_a_dropped_guard_sets_its_flag() {
        let (own, server) = (Cancel::new(), Cancel::new());
        let b = Budget::new(100, vec![own.clone(), server.clone()]);
        assert_eq!(b.check(), Ok(()));
        server.cancel();
        assert_eq!(b.check(), Err(Stop::Cancelled));
        assert_eq!(b.charge(1), Err(Stop::Cancelled));
        let flag = Cancel::new();
        let guard = flag.on_drop();
        assert!(!flag.is_cancelled());
        drop(guard);
        assert!(flag.is_cancelled());
    }
}
