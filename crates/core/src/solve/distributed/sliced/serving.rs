//! Rank 0's bookkeeping of the key tier it serves ([`Serving`]): the jobs left, given and
//! reported, each worker's messages answered, each job's end words merged into the table.
//!
//! Invariant: a job's end words are merged once, when its report arrives, and only a job that
//! went well is merged.

use std::ops::Range;

use super::{Context, DONE, JOB, Jobs, REQUEST, Report, TIER_END, positions, stopped};
use crate::base::error::{Error, Result};
use crate::base::progress::Progress;

/// Rank 0's account of the key tier it serves: the jobs left, given and reported, and the
/// first failure.
pub(super) struct Serving<'c, 'a> {
    ctx: &'c Context<'a>,
    k: u32,
    progress: &'c dyn Progress,
    pub(super) jobs: Jobs,
    /// Per rank, the jobs given and not yet reported (rank 0's own included).
    pub(super) given: Vec<Vec<Range<usize>>>,
    /// Per rank, told the tier is over (rank 0 from the start).
    pub(super) ended: Vec<bool>,
    pub(super) probes: u64,
    /// The first failure: this rank's own error, or another rank's failed job.
    pub(super) own: Option<Error>,
    pub(super) blame: Option<Error>,
}

impl<'c, 'a> Serving<'c, 'a> {
    pub(super) fn new(ctx: &'c Context<'a>, k: u32, progress: &'c dyn Progress) -> Self {
        let ranks = ctx.comm.ranks();
        let mut ended = vec![false; ranks];
        ended[0] = true;
        Serving {
            ctx,
            k,
            progress,
            jobs: Jobs::new(ctx.s, ctx.s.tier_rows[k as usize].clone(), ranks),
            given: vec![Vec::new(); ranks],
            ended,
            probes: 0,
            own: None,
            blame: None,
        }
    }

    /// Whether a job failed, here or on another rank: no more jobs are handed out.
    pub(super) fn failed(&self) -> bool {
        self.own.is_some() || self.blame.is_some()
    }

    /// Answers a worker's message: a request with the next job (or the tier's end), a report
    /// by merging its end words (or by blaming the rank for its failure).
    pub(super) fn answer(&mut self, from: usize, msg: &[u64]) -> Result<()> {
        let (comm, k) = (self.ctx.comm, self.k);
        match *msg {
            [REQUEST, t] => {
                let job = (!self.failed())
                    .then(|| self.jobs.next(t as usize))
                    .flatten();
                match job {
                    Some(rows) => {
                        comm.send(from, &[JOB, rows.start as u64, rows.end as u64])
                            .map_err(|e| stopped(e, &self.given, k))?;
                        self.given[from].push(rows);
                    }
                    None => {
                        comm.send(from, &[TIER_END])
                            .map_err(|e| stopped(e, &self.given, k))?;
                        self.ended[from] = true;
                    }
                }
            }
            [DONE, a, b, ok, p, w0, b0, w1, b1] => {
                let rows = a as usize..b as usize;
                self.given[from].retain(|r| *r != rows);
                if ok == 1 {
                    self.done(&rows, p, [(w0, b0), (w1, b1)])?;
                } else if self.blame.is_none() {
                    self.blame = Some(failed_job(from, &rows, k));
                }
            }
            ref other => {
                return Err(Error::Rank {
                    rank: from,
                    msg: format!("sent {other:?}, which is no request"),
                });
            }
        }
        Ok(())
    }

    /// Takes in one of rank 0's own jobs, finished by its solving thread.
    pub(super) fn own_done(&mut self, rows: Range<usize>, r: Result<Report>) -> Result<()> {
        self.given[0].retain(|g| *g != rows);
        match r {
            Ok((p, ends)) => self.done(&rows, p, ends)?,
            Err(e) => {
                self.own.get_or_insert(e);
            }
        }
        Ok(())
    }

    /// A job done well: its children read counted, its end words ORed into the table.
    fn done(&mut self, rows: &Range<usize>, probes: u64, ends: [(u64, u64); 2]) -> Result<()> {
        self.probes += probes;
        for (w, bits) in ends {
            if bits != 0 {
                self.ctx.decider.sink.or_word(w, bits)?;
            }
        }
        self.progress.advance(positions(self.ctx.s, rows));
        Ok(())
    }
}

/// The error that blames rank `rank` for failing its job of `rows` of key tier `k` (the rank
/// itself says why).
pub(in crate::solve::distributed) fn failed_job(rank: usize, rows: &Range<usize>, k: u32) -> Error {
    Error::Rank {
        rank,
        msg: format!(
            "failed deciding rows {}..{} of key tier {k} (its message says why); the build \
             stopped",
            rows.start, rows.end
        ),
    }
}
