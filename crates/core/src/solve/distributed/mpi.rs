//! [`Comm`] over MPI (rsmpi): the ranks of `mpirun -np K` (or `srun`), one process each.
//!
//! The exchange is two collectives: an all-to-all of the per-rank counts, then an all-to-all
//! with counts (`MPI_Alltoallv`) of the messages; sums and maxima are all-reduces. MPI counts
//! are 32-bit, so an exchange refuses more than `i32::MAX` messages to or from one rank (the
//! engines send batches far smaller). Point-to-point messages are `MPI_Send` and `MPI_Recv` of
//! `u64`s with tag 0 (MPI keeps the messages of one sender to one receiver in order, and never
//! matches them with a collective's).
//!
//! The invariant: MPI is initialised once per process, by [`MpiComm::init`], at the level
//! `MPI_THREAD_FUNNELED` (a rank's solving threads never call MPI; the thread that initialised it
//! makes every call), and finalised when the returned value is dropped; a rank that dies makes
//! `mpirun` stop the others (MPI's default error handler aborts the job), and the launcher names
//! the rank.

use std::sync::atomic::{AtomicU64, Ordering};

use mpi::Threading;
use mpi::collective::SystemOperation;
use mpi::datatype::{Partition, PartitionMut};
use mpi::environment::Universe;
use mpi::point_to_point::MatchedReceiveVec;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use super::comm::Comm;
use crate::base::error::{Error, MpiError, Result};

/// This process's rank of the MPI job it runs in.
pub struct MpiComm {
    world: SimpleCommunicator,
    sent: AtomicU64,
    /// Finalises MPI when dropped (after `world`).
    _universe: Universe,
}

/// The environment variables one of which an MPI launcher (`mpirun` of OpenMPI, MPICH's,
/// PMIx, `srun`) sets in each process it starts: the front end reads them for
/// [`MpiComm::init`] (the core reads no environment variable).
pub const LAUNCHER_VARIABLES: [&str; 4] = [
    "OMPI_COMM_WORLD_SIZE",
    "PMI_SIZE",
    "PMIX_RANK",
    "SLURM_PROCID",
];

impl MpiComm {
    /// Initialises MPI; an error when `launched` is false (no MPI launcher started this
    /// process: one of [`LAUNCHER_VARIABLES`] would be set) or MPI was initialised already.
    pub fn init(launched: bool) -> Result<MpiComm> {
        if !launched {
            return Err(MpiError::NoLauncher.into());
        }
        let (universe, level) =
            mpi::initialize_with_threading(Threading::Funneled).ok_or(MpiError::Initialised)?;
        if level < Threading::Funneled {
            return Err(MpiError::Threading {
                level: format!("{level:?}"),
            }
            .into());
        }
        Ok(MpiComm {
            world: universe.world(),
            sent: AtomicU64::new(0),
            _universe: universe,
        })
    }

    fn count(n: usize, what: &str) -> Result<i32> {
        i32::try_from(n).map_err(|_| {
            Error::Mpi(MpiError::Count {
                count: n,
                what: what.to_string(),
            })
        })
    }
}

impl Comm for MpiComm {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    fn ranks(&self) -> usize {
        self.world.size() as usize
    }

    fn exchange(&self, out: Vec<Vec<u64>>) -> Result<Vec<Vec<u64>>> {
        let k = self.ranks();
        assert_eq!(out.len(), k, "one message list per rank");
        let counts: Vec<i32> = out
            .iter()
            .map(|m| Self::count(m.len(), "messages"))
            .collect::<Result<_>>()?;
        let mut recv_counts = vec![0i32; k];
        self.world
            .all_to_all_into(&counts[..], &mut recv_counts[..]);
        let me = self.rank();
        let others: u64 = out
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != me)
            .map(|(_, m)| m.len() as u64 * 8)
            .sum();
        self.sent.fetch_add(others, Ordering::Relaxed);
        let displs = |c: &[i32]| -> Result<Vec<i32>> {
            let mut at = 0usize;
            c.iter()
                .map(|&n| {
                    let d = Self::count(at, "messages")?;
                    at += n as usize;
                    Ok(d)
                })
                .collect()
        };
        let send_displs = displs(&counts)?;
        let recv_displs = displs(&recv_counts)?;
        let send: Vec<u64> = out.into_iter().flatten().collect();
        let total: usize = recv_counts.iter().map(|&n| n as usize).sum();
        let mut recv = vec![0u64; total];
        {
            let send_part = Partition::new(&send[..], &counts[..], &send_displs[..]);
            let mut recv_part =
                PartitionMut::new(&mut recv[..], &recv_counts[..], &recv_displs[..]);
            self.world
                .all_to_all_varcount_into(&send_part, &mut recv_part);
        }
        let mut by_sender = Vec::with_capacity(k);
        let mut rest = recv.as_slice();
        for &n in &recv_counts {
            let (head, tail) = rest.split_at(n as usize);
            by_sender.push(head.to_vec());
            rest = tail;
        }
        Ok(by_sender)
    }

    fn sum(&self, x: u64) -> Result<u64> {
        let mut out = 0u64;
        self.world
            .all_reduce_into(&x, &mut out, SystemOperation::sum());
        Ok(out)
    }

    fn max(&self, x: u64) -> Result<u64> {
        let mut out = 0u64;
        self.world
            .all_reduce_into(&x, &mut out, SystemOperation::max());
        Ok(out)
    }

    fn bytes_sent(&self) -> u64 {
        self.sent.load(Ordering::Relaxed)
    }

    fn send(&self, to: usize, msg: &[u64]) -> Result<()> {
        Self::count(msg.len(), "values")?;
        self.sent.fetch_add(msg.len() as u64 * 8, Ordering::Relaxed);
        self.world.process_at_rank(to as i32).send(msg);
        Ok(())
    }

    fn recv(&self, from: usize) -> Result<Vec<u64>> {
        Ok(self.world.process_at_rank(from as i32).receive_vec().0)
    }

    fn recv_any(&self, wait: bool) -> Result<Option<(usize, Vec<u64>)>> {
        let got = if wait {
            Some(self.world.any_process().matched_probe())
        } else {
            self.world.any_process().immediate_matched_probe()
        };
        Ok(got.map(|probed| {
            let (msg, status) = probed.matched_receive_vec();
            (status.source_rank() as usize, msg)
        }))
    }
}
