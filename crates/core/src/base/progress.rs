//! How a long library operation (a solve, a build, compressing, decompressing or verifying a
//! table, a research scan) tells its caller how far it has come, and the few lines the person
//! waiting should read (a stale work file removed, a FIFO waited on): a small trait of stages,
//! their steps and the work done in each. The library never draws or prints; the command line
//! shows progress as bars on stderr and notes as lines there, the Python module as a line of its
//! own, and a caller that does not care passes [`Silent`].
//!
//! The invariant: within a stage, the work done (the last [`Progress::reach`], or 0, plus the
//! [`Progress::advance`]s after it) stays at most the stage's `total` (a stage of unknown
//! length, total 0, has none). Work is told in batches (a chunk of positions, a row, a frame),
//! never one position at a time, so that telling costs nothing beside the work.

/// Receives the progress of an operation, from any of its threads.
pub trait Progress: Send + Sync {
    /// A new stage begins: what it does, in a few words ("compressing cells"), or nothing ("")
    /// where its steps say it (a solve's tiers or rounds); and how many units of work it has,
    /// 0 when that is not known (no `advance` follows). The work done starts at 0.
    fn stage(&self, what: &str, total: u64);
    /// `n` more units of the current stage are done.
    fn advance(&self, n: u64);
    /// The current stage moves on to its next step (a tier, a round, a level), in a few words
    /// ("tier 3 of 9"); the work done so far stands.
    fn step(&self, what: &str);
    /// The work done in the current stage is `done`, whatever was told before: a solve that
    /// skips what a checkpoint holds, or counts once at its end what it did not count as it went.
    fn reach(&self, done: u64);
    /// A line for the person waiting, about something done on their behalf or waited for ("a
    /// FIFO: waiting for a writer"), without the program's name; it comes before the wait.
    fn note(&self, line: &str);
}

/// Reports nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Silent;

impl Progress for Silent {
    fn stage(&self, _what: &str, _total: u64) {}
    fn advance(&self, _n: u64) {}
    fn step(&self, _what: &str) {}
    fn reach(&self, _done: u64) {}
    fn note(&self, _line: &str) {}
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// A progress that keeps what it is told and checks the invariant as it goes.
    #[derive(Default)]
    pub(crate) struct Kept {
        pub total: AtomicU64,
        pub done: AtomicU64,
        pub words: Mutex<Vec<String>>,
        pub notes: Mutex<Vec<String>>,
    }

    impl Kept {
        fn check(&self) {
            let (done, total) = (
                self.done.load(Ordering::SeqCst),
                self.total.load(Ordering::SeqCst),
            );
            assert!(done <= total, "{done} done of a stage of {total}");
        }
    }

    impl Progress for Kept {
        fn stage(&self, what: &str, total: u64) {
            self.total.store(total, Ordering::SeqCst);
            self.done.store(0, Ordering::SeqCst);
            self.words.lock().unwrap().push(what.to_string());
        }
        fn advance(&self, n: u64) {
            self.done.fetch_add(n, Ordering::SeqCst);
            self.check();
        }
        fn step(&self, what: &str) {
            self.words.lock().unwrap().push(what.to_string());
        }
        fn reach(&self, done: u64) {
            self.done.store(done, Ordering::SeqCst);
            self.check();
        }
        fn note(&self, line: &str) {
            self.notes.lock().unwrap().push(line.to_string());
        }
    }

    #[test]
    #[should_panic(expected = "11 done of a stage of 10")]
    fn kept_checks_the_invariant() {
        let p = Kept::default();
        p.stage("counting", 10);
        p.advance(4);
        p.reach(3);
        p.advance(8);
    }
}
