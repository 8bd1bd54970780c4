//! The operations a distributed solve needs, and a transport that runs the ranks as threads of
//! one process.
//!
//! A distributed solve talks to the other ranks only through [`Comm`]: collectives (an
//! all-to-all exchange of `u64` messages with per-rank counts, the bulk-synchronous step of
//! every round; sums and maxima over all ranks) and point-to-point messages (a scheduler's
//! requests and answers: [`Comm::send`], [`Comm::recv`], [`Comm::recv_any`]). [`LocalComm`]
//! implements it with crossbeam channels between threads, so the distributed engines run and are
//! tested without any MPI library; the `mpi` cargo feature adds `super::mpi::MpiComm` over
//! rsmpi.
//!
//! The invariant: every rank calls the collectives in the same order, and each returns the same
//! answer on every rank; point-to-point messages from one rank to another arrive in the order
//! they were sent, and never match a collective. A rank that stops (its thread or process dies)
//! makes the others' next collective or receive from it fail with an error that names it,
//! instead of hanging.

use std::sync::atomic::{AtomicU64, Ordering};

use crossbeam::channel::{Receiver, Sender, unbounded};

use crate::base::error::{Error, Result};

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
    /// Sends `msg` to rank `to` (another rank), point to point.
    fn send(&self, to: usize, msg: &[u64]) -> Result<()>;
    /// The next point-to-point message from rank `from`, waiting for it.
    fn recv(&self, from: usize) -> Result<Vec<u64>>;
    /// The next point-to-point message from any other rank, with its sender: waiting for one when
    /// `wait`, else `None` when none has arrived.
    fn recv_any(&self, wait: bool) -> Result<Option<(usize, Vec<u64>)>>;
}

/// `step`'s outcome on this rank, agreed by all: when any rank failed, every rank returns an
/// error (its own, or one naming the first rank that failed).
/// A rank that cannot take part (it stopped) gets its own error back where it has one: it
/// explains more than the stopped rank does.
pub fn agree<T>(comm: &dyn Comm, step: Result<T>) -> Result<T> {
    let failed = match all_gather(comm, u64::from(step.is_err())) {
        Ok(f) => f,
        Err(e) => return Err(step.err().unwrap_or(e)),
    };
    match step {
        Err(e) => Err(e),
        Ok(v) => match failed.iter().position(|&f| f == 1) {
            None => Ok(v),
            Some(rank) => Err(Error::Rank {
                rank,
                msg: "failed (its message says why); the build stopped".into(),
            }),
        },
    }
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
    /// The same for point-to-point messages, apart so that they never meet a collective's.
    p2p_to: Vec<Sender<Vec<u64>>>,
    p2p_from: Vec<Receiver<Vec<u64>>>,
    sent: AtomicU64,
}

/// The channels between every ordered pair of `ranks` ranks: `(senders[i][j], receivers[j][i])`
/// carry rank `i`'s messages to rank `j`, in order.
#[allow(clippy::type_complexity)]
fn pair_channels(ranks: usize) -> (Vec<Vec<Sender<Vec<u64>>>>, Vec<Vec<Receiver<Vec<u64>>>>) {
    let mut senders: Vec<Vec<Sender<Vec<u64>>>> = (0..ranks).map(|_| Vec::new()).collect();
    let mut receivers: Vec<Vec<Receiver<Vec<u64>>>> = (0..ranks).map(|_| Vec::new()).collect();
    for sender in senders.iter_mut() {
        for receiver in receivers.iter_mut() {
            let (s, r) = unbounded();
            sender.push(s);
            receiver.push(r);
        }
    }
    (senders, receivers)
}

impl LocalComm {
    /// The ranks of a group of `ranks` (at least one), each to be moved to its own thread.
    pub fn group(ranks: usize) -> Vec<LocalComm> {
        assert!(ranks > 0, "a group needs a rank");
        // A pair's messages stay in order, so the k-th exchange reads exactly the k-th message
        // of every sender.
        let (senders, receivers) = pair_channels(ranks);
        let (p2p_senders, p2p_receivers) = pair_channels(ranks);
        senders
            .into_iter()
            .zip(receivers)
            .zip(p2p_senders.into_iter().zip(p2p_receivers))
            .enumerate()
            .map(|(rank, ((to, from), (p2p_to, p2p_from)))| LocalComm {
                rank,
                to,
                from,
                p2p_to,
                p2p_from,
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

    fn send(&self, to: usize, msg: &[u64]) -> Result<()> {
        assert_ne!(to, self.rank, "a rank sends to another");
        self.sent.fetch_add(msg.len() as u64 * 8, Ordering::Relaxed);
        self.p2p_to[to].send(msg.to_vec()).map_err(|_| Error::Rank {
            rank: to,
            msg: "stopped (its channel is closed)".into(),
        })
    }

    fn recv(&self, from: usize) -> Result<Vec<u64>> {
        self.p2p_from[from].recv().map_err(|_| Error::Rank {
            rank: from,
            msg: "stopped before it answered (its channel is closed)".into(),
        })
    }

    fn recv_any(&self, wait: bool) -> Result<Option<(usize, Vec<u64>)>> {
        let stopped = |rank| Error::Rank {
            rank,
            msg: "stopped before it reported (its channel is closed)".into(),
        };
        let others: Vec<usize> = (0..self.ranks()).filter(|&i| i != self.rank).collect();
        if others.is_empty() {
            assert!(!wait, "a single rank waits for nobody");
            return Ok(None);
        }
        if !wait {
            for &i in &others {
                match self.p2p_from[i].try_recv() {
                    Ok(msg) => return Ok(Some((i, msg))),
                    Err(crossbeam::channel::TryRecvError::Empty) => {}
                    Err(crossbeam::channel::TryRecvError::Disconnected) => {
                        return Err(stopped(i));
                    }
                }
            }
            return Ok(None);
        }
        // A closed channel is ready too: a rank that stopped is named, not waited for.
        let mut select = crossbeam::channel::Select::new();
        for &i in &others {
            select.recv(&self.p2p_from[i]);
        }
        let op = select.select();
        let i = others[op.index()];
        op.recv(&self.p2p_from[i])
            .map(|msg| Some((i, msg)))
            .map_err(|_| stopped(i))
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
