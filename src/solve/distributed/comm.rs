//! The collective operations a distributed solve needs, and a transport that runs the ranks as
//! threads of one process.
//!
//! A distributed solve talks to the other ranks only through [`Comm`]: an all-to-all exchange of
//! `u64` messages with per-rank counts (the bulk-synchronous step of every round) and sums over
//! all ranks (termination, totals). [`LocalComm`] implements it with crossbeam channels between
//! threads, so the distributed engines run and are tested without any MPI library; the `mpi`
//! cargo feature adds [`super::mpi::MpiComm`] over rsmpi.
//!
//! The invariant: every rank calls the collectives in the same order, and each returns the same
//! answer on every rank; a rank that stops (its thread or process dies) makes the others' next
//! collective fail with an error that names it, instead of hanging.

use std::sync::atomic::{AtomicU64, Ordering};

use crossbeam::channel::{Receiver, Sender, unbounded};

use crate::error::{Error, Result};

/// The collectives of a distributed solve.
pub trait Comm {
    /// This rank, `0..ranks()`.
    fn rank(&self) -> usize;
    /// How many ranks take part.
    fn ranks(&self) -> usize;
    /// All-to-all: `out[j]` goes to rank `j`; returns what each rank sent here, by sender.
    fn exchange(&self, out: Vec<Vec<u64>>) -> Result<Vec<Vec<u64>>>;
    /// The sum of `x` over all ranks, on every rank.
    fn sum(&self, x: u64) -> Result<u64>;
    /// The largest `x` over all ranks, on every rank.
    fn max(&self, x: u64) -> Result<u64>;
    /// Message bytes this rank has sent to other ranks so far (not counting its own share).
    fn bytes_sent(&self) -> u64;
}

/// Every rank's `x`, by rank, through an exchange.
pub fn all_gather(comm: &dyn Comm, x: u64) -> Result<Vec<u64>> {
    let got = comm.exchange(vec![vec![x]; comm.ranks()])?;
    got.into_iter()
        .enumerate()
        .map(|(rank, v)| match v.as_slice() {
            [x] => Ok(*x),
            _ => Err(Error::Rank {
                rank,
                msg: format!("sent {} values where one was expected", v.len()),
            }),
        })
        .collect()
}

/// One rank of a group of threads that exchange messages through channels.
pub struct LocalComm {
    rank: usize,
    /// `to[j]`: the channel from this rank to rank `j`.
    to: Vec<Sender<Vec<u64>>>,
    /// `from[i]`: the channel from rank `i` to this rank.
    from: Vec<Receiver<Vec<u64>>>,
    sent: AtomicU64,
}

impl LocalComm {
    /// The ranks of a group of `ranks` (at least one), each to be moved to its own thread.
    pub fn group(ranks: usize) -> Vec<LocalComm> {
        assert!(ranks > 0, "a group needs a rank");
        // channels[i][j] carries rank i's messages to rank j; a pair's messages stay in order,
        // so the k-th exchange reads exactly the k-th message of every sender.
        let mut senders: Vec<Vec<Sender<Vec<u64>>>> = (0..ranks).map(|_| Vec::new()).collect();
        let mut receivers: Vec<Vec<Receiver<Vec<u64>>>> = (0..ranks).map(|_| Vec::new()).collect();
        for sender in senders.iter_mut() {
            for receiver in receivers.iter_mut() {
                let (s, r) = unbounded();
                sender.push(s);
                receiver.push(r);
            }
        }
        senders
            .into_iter()
            .zip(receivers)
            .enumerate()
            .map(|(rank, (to, from))| LocalComm {
                rank,
                to,
                from,
                sent: AtomicU64::new(0),
            })
            .collect()
    }
}

impl Comm for LocalComm {
    fn rank(&self) -> usize {
        self.rank
    }

    fn ranks(&self) -> usize {
        self.to.len()
    }

    fn exchange(&self, out: Vec<Vec<u64>>) -> Result<Vec<Vec<u64>>> {
        assert_eq!(out.len(), self.ranks(), "one message list per rank");
        for (j, msgs) in out.into_iter().enumerate() {
            if j != self.rank {
                self.sent
                    .fetch_add(msgs.len() as u64 * 8, Ordering::Relaxed);
            }
            self.to[j].send(msgs).map_err(|_| Error::Rank {
                rank: j,
                msg: "stopped before the exchange (its channel is closed)".into(),
            })?;
        }
        self.from
            .iter()
            .enumerate()
            .map(|(i, r)| {
                r.recv().map_err(|_| Error::Rank {
                    rank: i,
                    msg: "stopped during the exchange (its channel is closed)".into(),
                })
            })
            .collect()
    }

    fn sum(&self, x: u64) -> Result<u64> {
        Ok(all_gather(self, x)?.into_iter().sum())
    }

    fn max(&self, x: u64) -> Result<u64> {
        Ok(all_gather(self, x)?.into_iter().max().unwrap_or(0))
    }

    fn bytes_sent(&self) -> u64 {
        self.sent.load(Ordering::Relaxed)
    }
}

/// Runs `work` on `ranks` threads, each with its rank of a [`LocalComm`] group; returns the
/// results by rank, or the first rank's error (a panicking rank is reported as an error).
pub fn run_local<T: Send>(
    ranks: usize,
    work: impl Fn(&LocalComm) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    let group = LocalComm::group(ranks);
    std::thread::scope(|s| {
        let handles: Vec<_> = group
            .into_iter()
            .map(|comm| {
                let work = &work;
                // The comm moves into the thread and is dropped when it ends, so a rank that
                // stops closes its channels and the others' collectives fail.
                s.spawn(move || work(&comm))
            })
            .collect();
        let results: Vec<Result<T>> = handles
            .into_iter()
            .enumerate()
            .map(|(rank, h)| {
                h.join().unwrap_or_else(|_| {
                    Err(Error::Rank {
                        rank,
                        msg: "panicked".into(),
                    })
                })
            })
            .collect();
        // A rank's own error explains the others' (closed channels, "rank r failed"): the
        // first error that is not about another rank, else the first.
        let mut out = Vec::with_capacity(ranks);
        let mut errors = Vec::new();
        for r in results {
            match r {
                Ok(v) => out.push(v),
                Err(e) => errors.push(e),
            }
        }
        match errors.iter().position(|e| !matches!(e, Error::Rank { .. })) {
            Some(i) => Err(errors.swap_remove(i)),
            None if !errors.is_empty() => Err(errors.swap_remove(0)),
            None => Ok(out),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exchange_delivers_by_sender_in_order() {
        let got = run_local(3, |c| {
            let mut seen = Vec::new();
            for round in 0..4u64 {
                let out = (0..c.ranks())
                    .map(|j| vec![round * 100 + c.rank() as u64 * 10 + j as u64])
                    .collect();
                seen.push(c.exchange(out)?);
            }
            Ok((seen, c.sum(c.rank() as u64 + 1)?, c.max(c.rank() as u64)?))
        })
        .unwrap();
        for (me, (seen, sum, max)) in got.into_iter().enumerate() {
            assert_eq!(sum, 6);
            assert_eq!(max, 2);
            for (round, from) in seen.into_iter().enumerate() {
                for (i, msgs) in from.into_iter().enumerate() {
                    assert_eq!(msgs, vec![round as u64 * 100 + i as u64 * 10 + me as u64]);
                }
            }
        }
    }

    #[test]
    fn a_stopped_rank_is_named() {
        let e = run_local(3, |c| {
            if c.rank() == 1 {
                return Err(Error::Usage("rank 1 gives up".into()));
            }
            c.sum(1).map(|_| ())
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("rank 1 gives up"), "{e}");
    }
}
