//! A request's lookups as work off the runtime's threads, bounded and cancellable: every lookup
//! runs on a thread of its own kind — short ones on the lookup threads ([`LookupThreads`]),
//! game values and batches on Tokio's blocking pool — so a page fault of a cold table holds
//! one of those, never a runtime thread, and `/health` and the other connections stay quick. A
//! hand-off to Tokio's blocking pool cost about 40 us of CPU a lookup (a thread woken each
//! time), the lookup threads about 7 us (a thread that has just finished one looks for the
//! next before it sleeps), where the lookup itself costs a few. Game values hold a
//! value slot and batches a reservation of batch memory, each taken before the work starts and
//! given back only when the work has ended, not when its request has; and each request's work
//! carries a [`Budget`] — the positions its game values may visit, and the flags that cancel it
//! (its own, set when its future is dropped: a timeout or a client gone; the server's, set at
//! shutdown).
//!
//! The invariant: work holds its slot or reservation for as long as it runs, so the memory the
//! requests hold together is bounded by the limits however they end.

use std::sync::Arc;

use axum::http::StatusCode;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::App;
use super::error::ApiError;
use crate::base::budget::{Budget, Cancel, CancelOnDrop};

/// What a request's work holds while it runs: a value slot or a reservation of batch memory
/// (given back when dropped), and its budget.
pub(super) struct Work {
    _held: Vec<OwnedSemaphorePermit>,
    pub budget: Budget,
}

/// The grants of batch memory are counted in KiB (a semaphore counts permits in `u32`s).
const KIB: usize = 1024;

/// The semaphore of batch memory for `bytes` (at least a KiB: [`crate::apps::serve::Limits`] as
/// applied).
pub(super) fn batch_memory(bytes: usize) -> Arc<Semaphore> {
    Arc::new(Semaphore::new(bytes / KIB))
}

impl App {
    /// A budget for one request's work, and the guard that cancels it when dropped (held by
    /// the request's future or its streamed answer).
    pub(super) fn budget(&self) -> (Budget, CancelOnDrop) {
        let own = Cancel::new();
        let guard = own.on_drop();
        let budget = Budget::new(
            self.limits.max_value_positions,
            vec![own, self.stopping.clone()],
        );
        (budget, guard)
    }

    /// A value slot, waiting for one (within the request's timeout).
    pub(super) async fn value_slot(&self) -> OwnedSemaphorePermit {
        Arc::clone(&self.value_slots)
            .acquire_owned()
            .await
            .expect("the semaphore is never closed")
    }

    /// A reservation of `bytes` of batch memory (all of it when asked for more), waiting for
    /// it (within the request's timeout).
    pub(super) async fn batch_reservation(&self, bytes: usize) -> OwnedSemaphorePermit {
        let all = self.limits.max_batch_memory / KIB;
        let kib = bytes.div_ceil(KIB).clamp(1, all);
        Arc::clone(&self.batch_memory)
            .acquire_many_owned(u32::try_from(kib).unwrap_or(u32::MAX))
            .await
            .expect("the semaphore is never closed")
    }

    /// Runs `f` off the runtime's threads with the request's budget: on the lookup threads
    /// when it holds nothing (a short lookup), else on the blocking pool, holding `held` (a
    /// value slot) until `f` has returned. Dropping the returned future (the request timed
    /// out, its client went away) cancels the budget, so `f`'s lookups stop at their next
    /// check.
    pub(super) async fn blocking<T: Send + 'static>(
        self: &Arc<Self>,
        held: Option<OwnedSemaphorePermit>,
        f: impl FnOnce(&App, &Budget) -> T + Send + 'static,
    ) -> Result<T, ApiError> {
        let (budget, _cancel_when_dropped) = self.budget();
        let app = Arc::clone(self);
        let failed = |panicked: bool| {
            ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                if panicked {
                    "the server failed on this request (a bug: please report it with the request)"
                } else {
                    "the lookup did not finish (the server is stopping)"
                },
            )
        };
        if held.is_none() {
            // A short lookup: on the lookup threads, which stay awake between lookups.
            let (tx, rx) = tokio::sync::oneshot::channel();
            self.lookup_threads.run(move || {
                let _ = tx.send(f(&app, &budget));
            });
            return rx.await.map_err(|_| failed(true));
        }
        let work = Work::new(held.into_iter().collect(), budget);
        tokio::task::spawn_blocking(move || f(&app, &work.budget))
            .await
            .map_err(|e| failed(e.is_panic()))
    }
}

/// Threads for short lookups (a position and its moves): a channel feeds them, and a thread
/// that finished one lookup looks for the next a moment before it sleeps, so under a stream of
/// lookups a hand-off costs no wake-up. Long work (game values, batches) goes to Tokio's
/// blocking pool instead, so that it never holds these.
pub(super) struct LookupThreads {
    tx: crossbeam::channel::Sender<Box<dyn FnOnce() + Send>>,
}

impl LookupThreads {
    /// `threads` threads (at least one: the limits as applied).
    pub(super) fn new(threads: usize) -> LookupThreads {
        let (tx, rx) = crossbeam::channel::unbounded::<Box<dyn FnOnce() + Send>>();
        for i in 0..threads {
            let rx = rx.clone();
            let _ = std::thread::Builder::new()
                .name(format!("retrodb-lookup-{i}"))
                .spawn(move || {
                    while let Ok(job) = rx.recv() {
                        // A panic is the request's (its answer is a 500), not the thread's.
                        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                    }
                });
        }
        LookupThreads { tx }
    }

    fn run(&self, job: impl FnOnce() + Send + 'static) {
        let _ = self.tx.send(Box::new(job));
    }
}

impl Work {
    /// Work that holds `held` for as long as it lives, with `budget`.
    pub(super) fn new(held: Vec<OwnedSemaphorePermit>, budget: Budget) -> Work {
        Work {
            _held: held,
            budget,
        }
    }
}
