//! The row kernel of a sliced game ([`crate::solve::kernels::sliced_rows`]) across ranks: the rows of one key
//! tier are independent, so rank 0 hands them out as jobs, point to point, and every rank
//! (rank 0 too, on its solving threads) decides the jobs it is given with the same kernel.
//!
//! The ranks share the table being written (the build's work file, reached through a
//! [`JobSink`] and the cells each rank maps): the rows of key tier `k + 1`, finished, are read
//! from it, and a job's words are written to it. A job is a run of consecutive rows, so its
//! words are contiguous and only its first and last word can hold cells of another job or of
//! the tier above: the rank that decides a job writes its interior words (no other rank writes
//! those bytes), and sends the two end words to rank 0, which ORs them into the file. No byte
//! is ever written by two ranks, so the ranks need no atomic operation on the shared file.
//!
//! The protocol of a key tier: a worker asks for a job (`REQUEST`, with its thread count), and
//! asks for the next one before deciding it, so its answer is usually waiting when the job is
//! done; it reports each job (`DONE`, with the end words); rank 0 answers each request with a
//! job or, when none is left (or a rank failed), `TIER_END`. Rank 0's main thread alone calls
//! the [`Comm`] (MPI's `MPI_THREAD_FUNNELED`): it serves the requests while a thread of its own
//! decides rank 0's jobs. The key tier ends with a collective on every rank: the ranks agree on
//! whether every job went well, then rank 0 reports the tiers it completes (and may make them a
//! checkpoint), and every rank learns whether to go on.
//!
//! Invariant: a key tier's jobs are handed out only after every job of the tier above is
//! reported done and agreed on by every rank, so a job reads only finished rows; and a tier is
//! reported only once every job of it is written.

use std::ops::Range;
use std::time::Duration;

use rayon::prelude::*;

use super::comm::{Comm, agree, all_gather};
use crate::base::cells::{CELLS_PER_WORD, Cells, into_plain, zeroed_words};
use crate::base::error::{Error, Result};
use crate::base::progress::Progress;
use crate::game::shape::SlicedBoard;
use crate::game::shape::sliced::Sliced;
use crate::solve::finished::{Solved, TierDone};
use crate::solve::kernels::sliced_rows::{
    KeyTiers, ROWS_PER_UNIT, RowKernel, clear_from, or_words,
};
use crate::solve::{SolveOptions, SolveStats};

mod serving;
pub(super) use serving::failed_job;

use serving::Serving;

/// Where the ranks' decided rows go: the table being written, which `solve/` does not open.
pub trait JobSink: Sync {
    /// Writes `words` as the cells' words from word `first` on: the interior words of a job,
    /// which no other job writes.
    fn write_words(&self, first: u64, words: &[u64]) -> Result<()>;
    /// ORs `bits` into the cells' word `w`: a job's first or last word (rank 0 only, one call at
    /// a time).
    fn or_word(&self, w: u64, bits: u64) -> Result<()>;
}

/// A worker asks for a job: `[REQUEST, threads]`.
const REQUEST: u64 = 0;
/// A worker reports a job: `[DONE, first row, end row, ok, probes, word, bits, word, bits]`.
const DONE: u64 = 1;
/// Rank 0 hands out a job: `[JOB, first row, end row]`.
const JOB: u64 = 2;
/// Rank 0 has no job left for this key tier: `[TIER_END]`.
const TIER_END: u64 = 3;

/// Positions of a unit: a job gives a rank one unit per thread (fewer near a key tier's end),
/// small enough that a key tier splits into many jobs and rank 0's answers come quickly.
/// The library's unit tests take 2^10, so that their small boards make many jobs for every
/// rank.
const UNIT_POSITIONS: u64 = if cfg!(test) { 1 << 10 } else { 1 << 16 };

/// How long rank 0's main thread sleeps when it has nothing to do but wait for a message or its
/// own job (it polls both: a `Comm` cannot wait for a thread).
pub(super) const POLL: Duration = Duration::from_micros(100);

/// Jobs rank 0's own thread holds at a time (one decided, one waiting), so it never waits for
/// the main thread's next poll.
pub(super) const LOCAL_DEPTH: usize = 2;

/// Solves the tiers below `done_from` of `board` with every rank of `comm`; each rank calls it
/// with the same arguments but `cells` (its own map of the shared table, in which the tiers
/// from `done_from` up are decided), `sink` (its way to write) and `after`, which is called on
/// rank 0 only (the others' is never called), for each tier as it completes, exactly as
/// [`crate::solve::kernels::sliced_rows::solve`] calls it; its outcome is agreed by all. `None` when `after`
/// stopped the solve. The counts of the result are rank 0's (the others' are zero); the child
/// probes are every rank's.
pub fn solve(
    comm: &dyn Comm,
    board: &SlicedBoard<'_>,
    cells: &Cells<'_>,
    done_from: u32,
    sink: &dyn JobSink,
    opts: &SolveOptions,
    after: &mut dyn FnMut(TierDone<'_>) -> Result<bool>,
) -> Result<Option<Solved>> {
    let s = board.index;
    assert_eq!(cells.len(), s.size(), "cells must match the board");
    let rank = comm.rank();
    let kernel = RowKernel::new(board);
    let mut plan = KeyTiers::new(s, done_from);
    if rank == 0
        && let Some(from) = plan.clear_from
    {
        // Before any job is handed out: no rank writes these rows yet.
        clear_from(cells, from);
    }
    let progress = if rank == 0 {
        opts.begin_progress(plan.todo)
    } else {
        &crate::base::progress::Silent
    };
    let mut agreed_after = |done: TierDone<'_>| -> Result<bool> {
        let mine = if rank == 0 { after(done) } else { Ok(true) };
        let go_on = agree(comm, mine)?;
        Ok(all_gather(comm, u64::from(go_on))?[0] == 1)
    };
    let ctx = Context {
        comm,
        s,
        decider: Decider {
            rank,
            s,
            kernel: &kernel,
            cells,
            sink,
        },
    };
    let mut probes = 0u64;
    for k in (0..=plan.first_key).rev() {
        let k = k as u32;
        progress.step(&format!("key tier {k} of {}", s.key_digits() + 1));
        let step = if rank == 0 {
            ctx.serve(k, opts, progress)
        } else {
            ctx.work(k)
        };
        probes += match agree(comm, step.mine) {
            Ok(p) => p,
            // Rank 0 knows which job failed; the rank that failed says why.
            Err(e) => return Err(step.blame.unwrap_or(e)),
        };
        if !plan.finished(s, k, &mut agreed_after)? {
            return Ok(None);
        }
    }
    plan.rest(&mut agreed_after)?;
    let probes = comm.sum(probes)?;
    progress.reach(plan.todo);
    Ok(Some(Solved {
        stats: SolveStats {
            counts: if rank == 0 { cells.counts() } else { [0; 4] },
            rounds: None,
            parent_visits: 0,
            edges: None,
            child_probes: probes,
            remoteness: None,
        },
        remoteness: crate::solve::finished::Remoteness::None,
    }))
}

/// What a rank made of a key tier: its own outcome (the children it read), and on rank 0 the
/// error that names another rank's failed job, if one did.
struct Step {
    mine: Result<u64>,
    blame: Option<Error>,
}

/// A job's report: the children it read and its first and last words `(word, bits)`.
type Report = (u64, [(u64, u64); 2]);

/// What a rank's solving threads need to decide a job (no [`Comm`]: they never call it).
struct Decider<'a> {
    rank: usize,
    s: &'a Sliced,
    kernel: &'a RowKernel<'a>,
    cells: &'a Cells<'a>,
    sink: &'a dyn JobSink,
}

/// What a rank's main thread works with.
struct Context<'a> {
    comm: &'a dyn Comm,
    s: &'a Sliced,
    decider: Decider<'a>,
}

impl Decider<'_> {
    /// Decides rows `rows` with this rank's threads, writes their interior words and returns the
    /// report.
    fn run_job(&self, k: u32, rows: Range<usize>) -> Result<Report> {
        let list = &self.s.rows[rows.clone()];
        let first = list[0].start / CELLS_PER_WORD;
        let last = list.last().map_or(0, |r| r.start + r.len as u64);
        let end = last.div_ceil(CELLS_PER_WORD).max(first + 1);
        let words = zeroed_words(end - first);
        let probes: u64 = list
            .par_chunks(ROWS_PER_UNIT)
            .with_max_len(1)
            .map_init(Vec::new, |buf, chunk| {
                let mut n = 0;
                for row in chunk {
                    let (from, p) = self.kernel.decide(row, buf, self.cells);
                    n += p;
                    or_words(&words, from - first, buf);
                }
                n
            })
            .sum();
        let words = into_plain(words);
        let n = words.len();
        if n > 2 {
            self.sink
                .write_words(first + 1, &words[1..n - 1])
                .map_err(|e| Error::Rank {
                    rank: self.rank,
                    msg: format!(
                        "writing rows {}..{} of key tier {k}: {e}",
                        rows.start, rows.end
                    ),
                })?;
        }
        Ok((probes, [(first, words[0]), (end - 1, words[n - 1])]))
    }
}

/// A worker's jobs of one key tier, for either kernel across ranks: asks rank 0 for a job
/// (the next request goes out before the job is decided, so its answer arrives meanwhile),
/// decides it with `decide` and reports it, `DONE, first row, end row, 1` and what `decide`
/// gave; until rank 0 says the tier is over. After a failure the jobs still given are reported
/// failed (`0` and `failed_reply`) without being decided, and the first failure is returned.
pub(super) fn decide_jobs(
    comm: &dyn Comm,
    threads: u64,
    failed_reply: &[u64],
    mut decide: impl FnMut(Range<usize>) -> Result<Vec<u64>>,
) -> Result<()> {
    let mut failed: Option<Error> = None;
    comm.send(0, &[REQUEST, threads])?;
    loop {
        let msg = comm.recv(0)?;
        let &[JOB, a, b] = msg.as_slice() else {
            if msg == [TIER_END] {
                break;
            }
            return Err(Error::Rank {
                rank: 0,
                msg: format!("sent {msg:?}, which is no answer to a request"),
            });
        };
        comm.send(0, &[REQUEST, threads])?;
        let mut reply = vec![DONE, a, b];
        match failed.is_none().then(|| decide(a as usize..b as usize)) {
            Some(Ok(report)) => {
                reply.push(1);
                reply.extend(report);
            }
            Some(Err(e)) => {
                failed = Some(e);
                reply.push(0);
                reply.extend(failed_reply);
            }
            None => {
                reply.push(0);
                reply.extend(failed_reply);
            }
        }
        comm.send(0, &reply)?;
    }
    failed.map_or(Ok(()), Err)
}

impl Context<'_> {
    /// A worker's key tier: jobs asked for, decided and reported until rank 0 says the tier is
    /// over.
    fn work(&self, k: u32) -> Step {
        let comm = self.comm;
        let threads = rayon::current_num_threads() as u64;
        let blame = None;
        let run = || -> Result<u64> {
            let mut probes = 0;
            decide_jobs(comm, threads, &[0; 5], |rows| {
                let (p, [(w0, b0), (w1, b1)]) = self.decider.run_job(k, rows)?;
                probes += p;
                Ok(vec![p, w0, b0, w1, b1])
            })?;
            Ok(probes)
        };
        Step { mine: run(), blame }
    }

    /// Rank 0's key tier: hands out the jobs, decides its own on a thread of its own, merges
    /// every job's end words, until every job is reported and every worker told the tier is
    /// over.
    fn serve(&self, k: u32, opts: &SolveOptions, progress: &dyn Progress) -> Step {
        let comm = self.comm;
        let ranks = comm.ranks();
        let threads = rayon::current_num_threads();
        let mut tier = Serving::new(self, k, progress);
        let outcome = std::thread::scope(|scope| -> Result<()> {
            let (job_tx, job_rx) = crossbeam::channel::unbounded::<Range<usize>>();
            let (done_tx, done_rx) = crossbeam::channel::unbounded();
            let decider = &self.decider;
            scope.spawn(move || {
                for rows in job_rx {
                    let r = decider.run_job(k, rows.clone());
                    if done_tx.send((rows, r)).is_err() {
                        break;
                    }
                }
            });
            let result = (|| -> Result<()> {
                let mut waited = None;
                loop {
                    let mut busy = false;
                    // Messages from the workers.
                    while let Some((from, msg)) = comm
                        .recv_any(false)
                        .map_err(|e| stopped(e, &tier.given, k))?
                    {
                        busy = true;
                        tier.answer(from, &msg)?;
                    }
                    // Rank 0's own jobs (the one waited for below first, if any).
                    while let Some((rows, r)) = waited.take().or_else(|| done_rx.try_recv().ok()) {
                        busy = true;
                        tier.own_done(rows, r)?;
                    }
                    if tier.own.is_none() && opts.stop.requested() {
                        tier.own = Some(Error::Interrupted("the solve was interrupted".into()));
                    }
                    let failed = tier.failed();
                    while !failed && tier.given[0].len() < LOCAL_DEPTH {
                        let Some(rows) = tier.jobs.next(threads) else {
                            break;
                        };
                        tier.given[0].push(rows.clone());
                        job_tx.send(rows).expect("rank 0's solving thread runs");
                    }
                    if tier.ended.iter().all(|&e| e) && tier.given.iter().all(Vec::is_empty) {
                        return Ok(());
                    }
                    if !busy {
                        if ranks == 1 {
                            // Alone: block for the solving thread's next result, finished at
                            // the top of the loop like any other.
                            waited = Some(done_rx.recv().expect("rank 0's solving thread runs"));
                        } else {
                            std::thread::sleep(POLL);
                        }
                    }
                }
            })();
            drop(job_tx);
            result
        });
        let mine = match (outcome, tier.own) {
            (Err(e), _) | (Ok(()), Some(e)) => Err(e),
            (Ok(()), None) => Ok(tier.probes),
        };
        Step {
            mine,
            blame: tier.blame,
        }
    }
}

/// A message to or from a rank that failed because the rank stopped (a worker may ask for its
/// next job before it ends its current one, so rank 0 can find it gone when answering):
/// [`died`], naming the jobs it held; other errors as they are.
fn stopped(e: Error, given: &[Vec<Range<usize>>], k: u32) -> Error {
    match e {
        Error::Rank { rank, .. } => died(rank, &given[rank], k),
        e => e,
    }
}

/// The error of a rank whose messages stopped (LocalComm; under MPI the launcher stops the job
/// and names the rank), with the jobs it held.
fn died(rank: usize, held: &[Range<usize>], k: u32) -> Error {
    let jobs: Vec<String> = held
        .iter()
        .map(|r| format!("rows {}..{}", r.start, r.end))
        .collect();
    Error::Rank {
        rank,
        msg: if jobs.is_empty() {
            format!("stopped during key tier {k}; the build stopped")
        } else {
            format!(
                "stopped while deciding {} of key tier {k}; the build stopped",
                jobs.join(" and ")
            )
        },
    }
}

/// The positions of rows `rows`.
pub(super) fn positions(s: &Sliced, rows: &Range<usize>) -> u64 {
    s.rows[rows.clone()].iter().map(|r| r.len as u64).sum()
}

/// A run of rows (a key tier's, or a batch of them) as units of about [`UNIT_POSITIONS`]
/// positions, handed out in order.
pub(super) struct Jobs {
    /// Unit `i` is rows `bounds[i]..bounds[i + 1]`.
    bounds: Vec<usize>,
    next: usize,
    ranks: usize,
}

impl Jobs {
    pub(super) fn new(s: &Sliced, range: Range<usize>, ranks: usize) -> Jobs {
        let mut bounds = vec![range.start];
        let mut size = 0u64;
        for i in range.clone() {
            size += s.rows[i].len as u64;
            if size >= UNIT_POSITIONS {
                bounds.push(i + 1);
                size = 0;
            }
        }
        if *bounds.last().expect("a first bound") != range.end {
            bounds.push(range.end);
        }
        Jobs {
            bounds,
            next: 0,
            ranks,
        }
    }

    /// Whether every unit is given.
    pub(super) fn is_empty(&self) -> bool {
        self.next + 1 >= self.bounds.len()
    }

    /// The next job for a rank of `threads` threads: a unit a thread, fewer as the units run
    /// out (so the last jobs are small and the ranks finish together); `None` when every unit
    /// is given.
    pub(super) fn next(&mut self, threads: usize) -> Option<Range<usize>> {
        let left = self.bounds.len() - 1 - self.next;
        if left == 0 {
            return None;
        }
        let n = threads.min(left.div_ceil(2 * self.ranks)).max(1);
        let rows = self.bounds[self.next]..self.bounds[self.next + n];
        self.next += n;
        Some(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::cells::zeroed_words;
    use crate::game::{Game, Tiered};
    use crate::games::AnyGame;
    use crate::solve::distributed::comm::run_local;
    use std::sync::atomic::Ordering;

    /// Writes into plain atomic words shared by the thread ranks (as a file shared by
    /// processes would be).
    struct Words<'a>(&'a [std::sync::atomic::AtomicU64]);

    /// A sink that fails (or panics, as a rank that dies) at its third write.
    struct Failing {
        writes: std::sync::atomic::AtomicU64,
        panic: bool,
    }

    impl JobSink for Failing {
        fn write_words(&self, _: u64, _: &[u64]) -> Result<()> {
            if self.writes.fetch_add(1, Ordering::Relaxed) == 2 {
                if self.panic {
                    panic!("rank dies");
                }
                return Err(Error::Usage("disk full".into()));
            }
            Ok(())
        }

        fn or_word(&self, _: u64, _: u64) -> Result<()> {
            Ok(())
        }
    }

    impl JobSink for Words<'_> {
        fn write_words(&self, first: u64, words: &[u64]) -> Result<()> {
            for (i, &w) in words.iter().enumerate() {
                self.0[first as usize + i].store(w, Ordering::Relaxed);
            }
            Ok(())
        }

        fn or_word(&self, w: u64, bits: u64) -> Result<()> {
            self.0[w as usize].fetch_or(bits, Ordering::Relaxed);
            Ok(())
        }
    }

    fn cells_of(spec: &str, ranks: usize) -> (Vec<u64>, Vec<u64>) {
        let game = AnyGame::open(spec, u64::MAX).unwrap();
        let Some(g) = game.cell_game() else {
            panic!("a cell game")
        };
        let board = g
            .board_shape()
            .and_then(|b| b.sliced())
            .expect("a sliced board");
        let n = g.size();
        let single = zeroed_words(crate::base::cells::words_for(n));
        let cells = Cells::new(&single, n);
        crate::solve::kernels::sliced_rows::solve(
            &board,
            &cells,
            g.tier_count(),
            &Default::default(),
            &mut |_| Ok(true),
        )
        .unwrap();
        let shared = zeroed_words(crate::base::cells::words_for(n));
        let reported = std::sync::Mutex::new(Vec::new());
        run_local(ranks, |c| {
            let cells = Cells::new(&shared, n);
            solve(
                c,
                &board,
                &cells,
                g.tier_count(),
                &Words(&shared),
                &Default::default(),
                &mut |d| {
                    reported.lock().unwrap().push((d.tier, d.positions));
                    Ok(true)
                },
            )
            .map(|s| s.map(|s| s.stats.counts))
        })
        .unwrap();
        let tiers = reported.into_inner().unwrap();
        assert_eq!(tiers.len(), g.tier_count() as usize, "every tier once");
        assert_eq!(tiers.iter().map(|t| t.1).sum::<u64>(), n);
        (into_plain(single), into_plain(shared))
    }

    #[test]
    fn ranks_decide_the_single_process_cells() {
        for spec in [
            "hex:3,start=L,sym",
            "bridgit:2,start=R,sliced",
            "hex:4,start=L,sym",
        ] {
            for ranks in 1..=3 {
                let (want, got) = cells_of(spec, ranks);
                assert!(want == got, "{spec} on {ranks} ranks");
            }
        }
    }

    #[test]
    fn jobs_cover_a_key_tier_once_in_order() {
        let game = AnyGame::open("hex:4,start=L,sym", u64::MAX).unwrap();
        let Some(g) = game.cell_game() else { panic!() };
        let s = g.board_shape().and_then(|b| b.sliced()).unwrap().index;
        for k in 0..s.tier_rows.len() as u32 {
            let mut jobs = Jobs::new(s, s.tier_rows[k as usize].clone(), 3);
            let mut at = s.tier_rows[k as usize].start;
            let mut threads = 1;
            while let Some(rows) = jobs.next(threads) {
                assert_eq!(rows.start, at);
                assert!(rows.end > rows.start);
                at = rows.end;
                threads = threads % 4 + 1;
            }
            assert_eq!(at, s.tier_rows[k as usize].end);
        }
    }

    #[test]
    fn a_failing_or_dying_rank_stops_every_rank_and_is_named() {
        let game = AnyGame::open("hex:4,start=L,sliced", u64::MAX).unwrap();
        let Some(g) = game.cell_game() else { panic!() };
        let board = g.board_shape().and_then(|b| b.sliced()).unwrap();
        let n = g.size();
        for panic in [false, true] {
            let shared = zeroed_words(crate::base::cells::words_for(n));
            let e = run_local(3, |c| {
                let cells = Cells::new(&shared, n);
                let words = Words(&shared);
                let failing = Failing {
                    writes: Default::default(),
                    panic,
                };
                let sink: &dyn JobSink = if c.rank() == 2 { &failing } else { &words };
                solve(
                    c,
                    &board,
                    &cells,
                    g.tier_count(),
                    sink,
                    &Default::default(),
                    &mut |_| Ok(true),
                )
                .map(|_| ())
            })
            .unwrap_err()
            .to_string();
            if panic {
                // Rank 0 names the rank whose messages stopped, and the rows it held.
                assert!(e.starts_with("rank 2: stopped while deciding rows"), "{e}");
            } else {
                // Rank 0's message (run_local returns the first rank's) names the job; rank 2's
                // own says why ("writing rows ...: disk full").
                assert!(e.starts_with("rank 2: failed deciding rows"), "{e}");
            }
        }
    }
}
