//! How a long library operation (compressing, decompressing or verifying a table) tells its
//! caller how far it has come: a small trait of stages and the work done in each. The library
//! never draws or prints; the command line shows it with indicatif, and a caller that does not
//! care passes [`Silent`].
//!
//! The invariant: the `advance`s after a `stage` add up to at most that stage's `total` (a stage
//! of unknown length, total 0, has none).

/// Receives the progress of an operation, from any of its threads.
pub trait Progress: Sync {
    /// A new stage begins: what it does, in a few words ("compressing cells"), and how many
    /// units of work it has; 0 when that is not known (no `advance` follows).
    fn stage(&self, what: &str, total: u64);
    /// `n` more units of the current stage are done.
    fn advance(&self, n: u64);
}

/// Reports nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Silent;

impl Progress for Silent {
    fn stage(&self, _what: &str, _total: u64) {}
    fn advance(&self, _n: u64) {}
}

/// A bar the caller made and draws (a hidden one draws nothing): each stage resets it to the
/// stage's length, with the stage's words as its message.
impl Progress for indicatif::ProgressBar {
    fn stage(&self, what: &str, total: u64) {
        self.set_message(what.to_string());
        self.set_length(total);
        self.set_position(0);
    }

    fn advance(&self, n: u64) {
        self.inc(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bar_follows_the_stages() {
        let bar = indicatif::ProgressBar::hidden();
        let p: &dyn Progress = &bar;
        p.stage("checking checksums", 10);
        p.advance(4);
        assert_eq!((bar.position(), bar.length()), (4, Some(10)));
        p.stage("compressing cells", 3);
        assert_eq!((bar.position(), bar.length()), (0, Some(3)));
        assert_eq!(bar.message(), "compressing cells");
    }
}
