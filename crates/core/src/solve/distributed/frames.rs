//! The out-of-core kernel ([`crate::solve::kernels::sliced_frames`]) across ranks: rank 0 runs
//! the kernel's own solve, and the rows of each batch are decided by every rank, as jobs rank 0
//! hands out (the protocol of [`super::sliced`]).
//!
//! A worker reads a job's key children from the loss plane of the key tier above, a work file
//! every rank maps, and sends the job's cells back to rank 0 with its report (two bits a
//! position: a job of 2^16 positions a thread is 16 KiB a thread). Rank 0 ORs them into its
//! window, so that the batch is then exactly what its own threads would have decided: it writes
//! the loss plane, counts, and compresses the frames, in index order, as the single-process
//! build does. So the table is the single-process one byte for byte, each rank holds only the
//! plane it reads and its jobs, and the planes and the table are written by rank 0 alone.
//!
//! The protocol, per key tier: a worker asks for a job (`REQUEST`, with its thread count) and
//! asks for the next before it decides one; it reports each (`DONE`, with the job's cells);
//! rank 0 answers each request with a job of the batch it is deciding, keeps the request while
//! the batch has no job left and the next batch is not yet begun, and answers `TIER_END` when
//! the key tier's rows are all decided (or one failed). Then two collectives: the ranks agree on
//! whether every job went well, and on what rank 0's end of the key tier gave (its checkpoint
//! and reports: go on, stop, or fail).
//!
//! Invariant: a worker holds exactly one unanswered request while a key tier's jobs go on, and
//! none after `TIER_END`; a key tier's jobs are handed out only after the plane of the tier
//! above is written whole, and rank 0 writes a plane only between its batches, while no job of
//! the key tier that reads it is out.

use std::cell::RefCell;
use std::ops::Range;
use std::sync::atomic::AtomicU64;

use super::comm::{Comm, agree, all_gather};
use super::sliced::{Jobs, LOCAL_DEPTH, POLL, positions};
use crate::base::cells::{CELLS_PER_WORD, into_plain, zeroed_words};
use crate::base::error::{Error, Result};
use crate::base::progress::Progress;
use crate::game::shape::SlicedBoard;
use crate::solve::SolveOptions;
use crate::solve::kernels::sliced_frames::{Batch, LossPlanes, RowDeciders};
use crate::solve::kernels::sliced_rows::{KeyTiers, RowKernel};

/// A worker asks for a job: `[REQUEST, threads]`.
const REQUEST: u64 = 0;
/// A worker reports a job: `[DONE, first row, end row, ok, probes, first word, words...]` (the
/// job's cells from the table's word `first word` on; none when it failed).
const DONE: u64 = 1;
/// Rank 0 hands out a job: `[JOB, first row, end row]`.
const JOB: u64 = 2;
/// Rank 0 has no job left for this key tier: `[TIER_END]`.
const TIER_END: u64 = 3;

/// Rank 0's deciders: its own threads and every worker.
pub struct Ranks<'c> {
    comm: &'c dyn Comm,
    state: RefCell<State>,
}

/// What rank 0 keeps between batches: the workers' requests it has not answered, and the
/// first failure of the key tier.
struct State {
    /// The thread counts of the workers whose request waits for a job, by rank (`None`: no
    /// request is waiting; the worker is deciding or its request is on the way).
    waiting: Vec<Option<usize>>,
    /// Per rank, the jobs given and not yet reported (rank 0's own included).
    given: Vec<Vec<Range<usize>>>,
    /// A worker's failed job, naming it.
    blame: Option<Error>,
}

impl<'c> Ranks<'c> {
    /// Rank 0's deciders over `comm`.
    pub fn new(comm: &'c dyn Comm) -> Ranks<'c> {
        let ranks = comm.ranks();
        Ranks {
            comm,
            state: RefCell::new(State {
                waiting: vec![None; ranks],
                given: vec![Vec::new(); ranks],
                blame: None,
            }),
        }
    }
}

impl State {
    /// Takes in a worker's message: a request is kept until a job or the key tier's end
    /// answers it; a report's cells are ORed into `batch` (none is expected without one).
    fn take(
        &mut self,
        k: u32,
        from: usize,
        msg: &[u64],
        batch: Option<(&Batch<'_>, &dyn Progress)>,
        probes: &mut u64,
    ) -> Result<()> {
        match *msg {
            [REQUEST, t] if self.waiting[from].is_none() => {
                self.waiting[from] = Some(t as usize);
            }
            [DONE, a, b, ok, p, first, ref words @ ..] => {
                let rows = a as usize..b as usize;
                let Some(i) = self.given[from].iter().position(|r| *r == rows) else {
                    return Err(Error::Rank {
                        rank: from,
                        msg: format!("reported rows {a}..{b}, which it was not given"),
                    });
                };
                self.given[from].swap_remove(i);
                if ok == 1 {
                    // Without a batch the key tier has failed already: the cells are dropped.
                    if let Some((batch, progress)) = batch {
                        batch.or_at(first, words);
                        *probes += p;
                        progress.advance(positions(batch.kernel.board().index, &rows));
                    }
                } else if self.blame.is_none() {
                    self.blame = Some(super::sliced::failed_job(from, &rows, k));
                }
            }
            ref other => {
                return Err(Error::Rank {
                    rank: from,
                    msg: format!("sent {other:?}, which is no request or report"),
                });
            }
        }
        Ok(())
    }
}

impl RowDeciders for Ranks<'_> {
    fn decide(
        &self,
        k: u32,
        rows: Range<usize>,
        batch: &Batch<'_>,
        opts: &SolveOptions,
        progress: &dyn Progress,
    ) -> Result<u64> {
        let comm = self.comm;
        let ranks = comm.ranks();
        let s = batch.kernel.board().index;
        let threads = rayon::current_num_threads();
        let mut jobs = Jobs::new(s, rows, ranks);
        let mut st = self.state.borrow_mut();
        let mut probes = 0u64;
        let mut own: Option<Error> = None;
        std::thread::scope(|scope| -> Result<()> {
            let (job_tx, job_rx) = crossbeam::channel::unbounded::<Range<usize>>();
            let (done_tx, done_rx) = crossbeam::channel::unbounded();
            scope.spawn(move || {
                for rows in job_rx {
                    let p = batch.decide(rows.clone(), opts, progress);
                    if done_tx.send((rows, p)).is_err() {
                        break;
                    }
                }
            });
            let result = (|| -> Result<()> {
                let mut waited = None;
                loop {
                    let mut busy = false;
                    while let Some((from, msg)) = comm.recv_any(false)? {
                        busy = true;
                        st.take(k, from, &msg, Some((batch, progress)), &mut probes)?;
                    }
                    while let Some((rows, p)) = waited.take().or_else(|| done_rx.try_recv().ok()) {
                        busy = true;
                        st.given[0].retain(|g| *g != rows);
                        probes += p;
                    }
                    if own.is_none() && opts.stop.requested() {
                        own = Some(Error::Interrupted("the solve was interrupted".into()));
                    }
                    let failed = own.is_some() || st.blame.is_some();
                    if !failed {
                        while st.given[0].len() < LOCAL_DEPTH {
                            let Some(rows) = jobs.next(threads) else {
                                break;
                            };
                            st.given[0].push(rows.clone());
                            job_tx.send(rows).expect("rank 0's solving thread runs");
                        }
                        for r in 1..ranks {
                            let Some(t) = st.waiting[r] else { continue };
                            let Some(rows) = jobs.next(t) else { break };
                            comm.send(r, &[JOB, rows.start as u64, rows.end as u64])?;
                            st.waiting[r] = None;
                            st.given[r].push(rows);
                            busy = true;
                        }
                    }
                    let out = st.given.iter().all(Vec::is_empty);
                    if out && (failed || jobs.is_empty()) {
                        return Ok(());
                    }
                    if !busy {
                        if ranks == 1 {
                            waited = Some(done_rx.recv().expect("rank 0's solving thread runs"));
                        } else {
                            std::thread::sleep(POLL);
                        }
                    }
                }
            })();
            drop(job_tx);
            result
        })?;
        match own.or_else(|| st.blame.take()) {
            Some(e) => Err(e),
            None => Ok(probes),
        }
    }

    fn tier_decided(&self, k: u32, outcome: Result<()>) -> Result<()> {
        let comm = self.comm;
        let ended = (|| -> Result<()> {
            let mut st = self.state.borrow_mut();
            let mut probes = 0;
            // Every worker's request, received or on its way, is answered with the tier's end.
            for r in 1..comm.ranks() {
                while st.waiting[r].is_none() {
                    if let Some((from, msg)) = comm.recv_any(true)? {
                        st.take(k, from, &msg, None, &mut probes)?;
                    }
                }
                comm.send(r, &[TIER_END])?;
                st.waiting[r] = None;
            }
            Ok(())
        })();
        let blame = self.state.borrow_mut().blame.take();
        agree(comm, outcome.and(ended).and(blame.map_or(Ok(()), Err)))
    }

    fn tier_ended(&self, _: u32, outcome: Result<bool>) -> Result<bool> {
        let go_on = agree(self.comm, outcome)?;
        Ok(all_gather(self.comm, u64::from(go_on))?[0] == 1)
    }
}

/// A worker's part of a solve across ranks: decides the jobs rank 0 hands out, key tier by key
/// tier, reading the loss planes of the build's work files (`planes`, this rank's maps), until
/// rank 0 ends the solve; called with rank 0's `done_from`.
pub fn work(
    comm: &dyn Comm,
    board: &SlicedBoard<'_>,
    planes: &LossPlanes<'_>,
    done_from: u32,
) -> Result<()> {
    let s = board.index;
    let kernel = RowKernel::new(board);
    let plan = KeyTiers::new(s, done_from);
    let threads = rayon::current_num_threads() as u64;
    let opts = SolveOptions::default();
    let progress = crate::base::progress::Silent;
    for k in (0..=plan.first_key).rev() {
        let k = k as u32;
        let above = planes.above(s, k);
        let jobs = super::sliced::decide_jobs(comm, threads, &[0, 0], |rows| {
            let (p, first, words) = decide_job(&kernel, &above, rows, &opts, &progress)?;
            let mut report = vec![p, first];
            report.extend(words);
            Ok(report)
        });
        agree(comm, jobs)?;
        let go_on = agree(comm, Ok(true))?;
        if all_gather(comm, u64::from(go_on))?[0] != 1 {
            return Ok(());
        }
        // The plane of key tier `k + 1` is read by no tier left.
        planes.release((k as usize + 1) % 2, 0..usize::MAX);
    }
    Ok(())
}

/// Decides rows `rows` with this rank's threads: the children read, and the job's cells as the
/// table's words from the returned word on.
fn decide_job(
    kernel: &RowKernel<'_>,
    above: &crate::solve::kernels::sliced_frames::Plane<'_>,
    rows: Range<usize>,
    opts: &SolveOptions,
    progress: &dyn Progress,
) -> Result<(u64, u64, Vec<u64>)> {
    let s = kernel.board().index;
    let list = s.rows.get(rows.clone()).filter(|l| !l.is_empty());
    let Some(list) = list else {
        return Err(Error::Rank {
            rank: 0,
            msg: format!(
                "handed out rows {}..{}, which the index has not",
                rows.start, rows.end
            ),
        });
    };
    let first = list[0].start / CELLS_PER_WORD;
    let last = list.last().map_or(0, |r| r.start + r.len as u64);
    let end = last.div_ceil(CELLS_PER_WORD).max(first + 1);
    let words: Vec<AtomicU64> = zeroed_words(end - first);
    let batch = Batch {
        kernel,
        above,
        words: &words,
        first_word: first,
    };
    let probes = batch.decide(rows, opts, progress);
    Ok((probes, first, into_plain(words)))
}
