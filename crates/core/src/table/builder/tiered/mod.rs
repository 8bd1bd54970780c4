//! A tiered build: its plan (which tiers this run solves, the memory and disk it needs:
//! `plan.rs`), and the run itself through work files beside the output, with a checkpoint where
//! a later run can resume ([`super::checkpoint`]); the plain board's kernel with remoteness
//! streams its nibbles into the table while it solves (`streaming.rs`).
//!
//! Invariant: the work files are touched only while the output's lock is held, and a tier is
//! named in a checkpoint only once everything it needs is synced to disk.

use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use super::checkpoint::{self, Checkpoint, Identity};
use super::{BuildOptions, BuildSummary, interrupted};
use crate::base::cells::Cells;
use crate::base::error::{Error, Result};
use crate::games::AnyGame;
use crate::solve::plan::{Kernel, RemStore, TieredKernel};
use crate::solve::{self, SolveOptions, SolveStats};
use crate::table::OutputLock;
use crate::table::write::{GameFields, RawWriter};
use crate::with_tiered_game;

pub(crate) mod frames;
mod plan;
mod streaming;

pub(crate) use plan::plan_with_kernel;
pub use plan::{TieredPlan, plan_tiered};
use streaming::NibbleStream;

/// After each tier of a tiered build: how it went and what is left.
#[derive(Clone, Debug, Serialize)]
pub struct TierReport {
    pub tier: u32,
    pub tiers: u32,
    /// Positions of this tier, and the seconds it took.
    pub positions: u64,
    pub seconds: f64,
    /// Positions of all finished tiers (earlier runs' too), and those below this tier.
    pub solved: u64,
    pub left: u64,
    /// Seconds the rest would take at this run's rate so far.
    pub seconds_left: f64,
    /// This tier was made a checkpoint.
    pub checkpoint: bool,
}

/// What solves a tiered build's tiers in place of the single-process engine (the build across
/// ranks, [`super::distributed`]): called once with the cells (the work file's map), the tier the
/// run starts below (the tier count for a fresh run), the solve's options and the callback that
/// reports each finished tier and may make it a checkpoint, which it must call exactly as
/// [`solve::tiered::solve_tiers`] does. Values only.
pub(crate) type TierSolver<'s> = dyn FnMut(
        &Cells<'_>,
        u32,
        &SolveOptions,
        &mut dyn FnMut(solve::finished::TierDone<'_>) -> Result<bool>,
    ) -> Result<Option<solve::finished::Solved>>
    + 's;

/// How a build across ranks ([`super::distributed`]) solves, whichever kernel the plan takes:
/// `cells` for the kernels that write the table's cells, `frames` for the out-of-core kernel.
pub(crate) struct Across<'a, 's> {
    pub cells: &'a mut TierSolver<'s>,
    pub frames: frames::FramesAcross<'a>,
}

/// A tiered build's run with a kernel that writes the table's cells, through work files beside
/// the file `plan` solves into (`out`): `.NAME.partial` holds the cells (a shared mapping: the
/// table being written), `.NAME.partial-rem.T` the remoteness a run resumed below tier `T`
/// starts from, `.NAME.partial-tier` names the checkpoint. While solving, the engine keeps
/// remoteness in anonymous memory (two tiers of it where the game has slots). `solver`, where
/// given, solves the tiers in place of the single-process engine (the build across ranks).
///
/// A finished tier becomes a checkpoint when [`BuildOptions::checkpoint_every`] has passed since
/// the last one (and where `stop_after_tiers` stops): its remoteness is written to a new work
/// file and synced, the cells are synced, the checkpoint file names the tier with the size and
/// xxh3 of that remoteness, and only then is the previous checkpoint's file deleted; so a build
/// interrupted at any moment resumes below the last checkpoint, and a damaged work file is
/// refused by name. Syncing after every tier cost a short build a fifth of its time in faults on
/// pages the write-back had made read-only (hex:4: 4.1 s against 3.2 s), and first touches of a
/// file-backed remoteness map serialised the two threads on page faults (docs/TIERED.md).
///
/// The plan's lock makes the work files this build's alone while it runs.
pub(super) fn build_cells(
    game: &AnyGame,
    opts: &BuildOptions,
    plan: &super::BuildPlan<'_>,
    kernel: &TieredKernel<'_>,
    started: Instant,
    solver: Option<&mut TierSolver<'_>>,
) -> Result<BuildSummary> {
    let spec = game.spec();
    let size = game.size();
    let out = plan.solved_into.as_path();
    let tiered = plan.tiered.as_ref().expect("a tiered plan");
    let (tiers, done_from) = (tiered.tiers, tiered.done_from);
    let resumed = tiered.resumed.clone();
    let lock = &plan.lock;
    let identity = Identity::of(game, opts);
    if resumed.is_none() {
        // A fresh start: whatever the work files held belongs to no finished tier.
        let _ = std::fs::remove_file(checkpoint::path(out));
        checkpoint::remove_rem_files(out, None);
    }
    let store = kernel.remoteness(opts.remoteness);
    let fresh = resumed.is_none();
    let writer = open_writer(out, lock, game, fresh, store)?;
    let cells_path = writer.path().to_path_buf();
    let solve_start = Instant::now();
    let stats = {
        let cells = writer.cells(size);
        // SAFETY: the words are the writer's shared mapping of its work file (or empty).
        let nibbles =
            unsafe { solve::kernels::sliced_remoteness::Nibbles::over_file(writer.nibble_words()) };
        let in_file = store == RemStore::Nibbles;
        // The finished tiers' cells, and their nibbles where the work file holds them.
        let digest = |tiers: std::ops::Range<u32>| {
            finished_digest(game, &cells, in_file.then_some(&nibbles), tiers)
        };
        let sopts = opts.solve_options();
        let mut tiers_done = TiersDone::start(
            (out, opts),
            &writer,
            &identity,
            &digest,
            (size, tiers),
            resumed.as_ref(),
            solve_start,
        )?;
        let mut checkpoint = |done: solve::finished::TierDone<'_>| tiers_done.tier_done(done);
        let stores = WorkStores {
            out,
            resumed: resumed.as_ref(),
            nibbles: in_file.then_some(&nibbles),
            stream: (store == RemStore::Streamed).then_some(NibbleStream(&writer)),
        };
        let solved = match solver {
            Some(solve) => solve(&cells, done_from, &sopts, &mut checkpoint),
            None => solve::erased::tiers(
                game,
                kernel,
                &cells,
                done_from,
                &stores,
                &sopts,
                &mut checkpoint,
            ),
        };
        solved.map_err(|e| match e {
            Error::Interrupted(_) => interrupted(&spec, Some(out)),
            e => e,
        })?
    };
    let solve_seconds = solve_start.elapsed().as_secs_f64();
    let run = RunFacts {
        spec: &spec,
        size,
        kernel: kernel.kernel(),
        resumed_from_tier: resumed.as_ref().map(|m| m.tier),
        solve_seconds,
        started,
    };
    let Some(solved) = stats else {
        writer.flush()?;
        let path = cells_path.display().to_string();
        return Ok(run.summary(&SolveStats::default(), path, false, 0));
    };
    let (stats, file_bytes) = write_table(game, writer, solved)?;
    checkpoint::remove_rem_files(out, None);
    let _ = std::fs::remove_file(checkpoint::path(out));
    Ok(run.summary(&stats, out.display().to_string(), true, file_bytes))
}

/// The digest of the finished `tiers`' cells, and of their nibbles where the work file holds
/// them (`nibbles`).
fn finished_digest(
    game: &AnyGame,
    cells: &Cells<'_>,
    nibbles: Option<&solve::kernels::sliced_remoteness::Nibbles<'_>>,
    tiers: std::ops::Range<u32>,
) -> u64 {
    with_tiered_game!(game, g => {
        let sum = solve::digest::tiers_digest(g, cells, tiers.clone());
        match nibbles {
            Some(n) => sum.wrapping_add(solve::digest::tiers_nibbles_digest(g, n, tiers)),
            None => sum,
        }
    }, _ => 0)
}

/// What a run's solve keeps in the build's work files and where it starts: the nibbles of the
/// work file (the row kernel with remoteness), its stream (the plain board's kernel with
/// remoteness), and the checkpoint it resumes below.
struct WorkStores<'w, 'a> {
    out: &'w Path,
    resumed: Option<&'w Checkpoint>,
    nibbles: Option<&'w solve::kernels::sliced_remoteness::Nibbles<'a>>,
    stream: Option<NibbleStream<'w>>,
}

impl solve::tiered::TierStores for WorkStores<'_, '_> {
    fn nibbles(&self) -> Option<&solve::kernels::sliced_remoteness::Nibbles<'_>> {
        self.nibbles
    }

    fn stream(&self) -> Option<&dyn solve::kernels::plain_remoteness_streamed::RemotenessStream> {
        self.stream
            .as_ref()
            .map(|s| s as &dyn solve::kernels::plain_remoteness_streamed::RemotenessStream)
    }

    /// The checkpoint's remoteness, read into the engine's memory and checked against the
    /// checkpoint's sum.
    fn resume(&self, engine_bytes: &mut [u8]) -> Result<()> {
        match self.resumed {
            Some(m) => checkpoint::read_rem(self.out, m, engine_bytes),
            None => Ok(()),
        }
    }

    fn rounds_before(&self) -> u32 {
        self.resumed.map_or(0, |m| m.rounds)
    }
}

/// The writer of `game`'s table through the resumable work file of `out` (its cells kept, or
/// undecided when `fresh`), with the remoteness' nibbles mapped or streamed where the kernel
/// writes them while it solves (`store`).
fn open_writer(
    out: &Path,
    lock: &OutputLock,
    game: &AnyGame,
    fresh: bool,
    store: RemStore,
) -> Result<RawWriter> {
    let writer = RawWriter::resumable(out, lock, GameFields::of(game), game.size(), fresh)?;
    match store {
        RemStore::Nibbles => writer.with_nibbles(),
        RemStore::Streamed => writer.stream_nibbles(),
        RemStore::None | RemStore::EngineBytes => Ok(writer),
    }
}

/// Writes the table of a finished solve through `writer`: the engine's remoteness turned into
/// the table's (nibbles for a board, else the engine's bytes or wider ones), unless the kernel
/// wrote it into the work file already. Returns the solve's figures and the file's size.
fn write_table(
    game: &AnyGame,
    writer: RawWriter,
    solved: solve::finished::Solved,
) -> Result<(SolveStats, u64)> {
    use crate::table::format::RemotenessEncoding;
    use solve::finished::Remoteness;
    let stats = solved.stats;
    let nibbles = RemotenessEncoding::Nibbles;
    let mut rem = solved.remoteness;
    let (writer, encoding, rem_bytes) = match &mut rem {
        // In the work file already.
        Remoteness::InStore => (writer, nibbles, &[][..]),
        // A board's bytes go into the table's nibbles in the work file, a block at a time, each
        // hashed while in the cache: one pass over the engine's bytes, half of them for the
        // disk.
        Remoteness::EngineBytes(r) if super::rem_encoding_for(game, 0) == nibbles => {
            let mut w = writer.with_nibbles()?;
            let bytes = r.bytes();
            w.fill_nibbles(|first, out| {
                let from = (2 * first).min(bytes.len() as u64) as usize;
                crate::table::format::nibbles_of_engine(&bytes[from..], out)
            });
            (w, nibbles, &[][..])
        }
        Remoteness::EngineBytes(r) => {
            crate::table::format::bytes_of_engine(r.bytes_mut());
            (writer, RemotenessEncoding::Bytes(1), r.bytes())
        }
        Remoteness::Nibbles(r) => (writer, nibbles, r.bytes()),
        Remoteness::None => (writer, RemotenessEncoding::None, &[][..]),
    };
    let file_bytes = writer.finish(stats.counts, stats.rounds, encoding, rem_bytes)?;
    Ok((stats, file_bytes))
}

/// What a tiered build's summary says of this run, whatever the solve's figures.
struct RunFacts<'a> {
    spec: &'a str,
    size: u64,
    kernel: Kernel,
    resumed_from_tier: Option<u32>,
    solve_seconds: f64,
    started: Instant,
}

impl RunFacts<'_> {
    fn summary(
        &self,
        stats: &SolveStats,
        path: String,
        complete: bool,
        file_bytes: u64,
    ) -> BuildSummary {
        BuildSummary {
            spec: self.spec.to_string(),
            path,
            positions: self.size,
            counts: stats.counts,
            rounds: stats.rounds,
            edges: stats.edges,
            parent_visits: 0,
            child_probes: stats.child_probes,
            engine: solve::Engine::Tiered,
            kernel: self.kernel,
            resumed_from_tier: self.resumed_from_tier,
            complete,
            solve_seconds: self.solve_seconds,
            total_seconds: self.started.elapsed().as_secs_f64(),
            file_bytes,
            compress_seconds: None,
            grundy: None,
        }
    }
}

/// What a tiered build does after each finished tier ([`build_with`]'s callback to the solve):
/// counts it, makes it a checkpoint when it is time (the tier's remoteness to a file of its own,
/// the cells synced, the checkpoint naming both, then the previous one's file deleted), reports
/// it, and says whether to go on (`--stop-after-tiers`).
struct TiersDone<'a> {
    out: &'a Path,
    opts: &'a BuildOptions,
    writer: &'a RawWriter,
    identity: &'a Identity,
    /// The digest of the finished tiers' cells (and nibbles where the work file holds them).
    digest: &'a dyn Fn(std::ops::Range<u32>) -> u64,
    size: u64,
    tiers: u32,
    /// Tiers this run may still finish.
    budget: Option<u32>,
    /// The digest of the finished tiers from `cells_sum_from` up, as the last checkpoint has it.
    cells_sum: u64,
    cells_sum_from: u32,
    /// When the last checkpoint was written (or this run started), and this tier started.
    checkpoint_at: Instant,
    tier_start: Instant,
    solve_start: Instant,
    /// Positions of the finished tiers, over all runs; and at this run's start, with the
    /// positions and seconds the estimate of what is left is made from.
    solved: u64,
    solved_before: u64,
    timed_before: u64,
    seconds_before: f64,
}

impl<'a> TiersDone<'a> {
    /// The callback of a run that writes through `writer`, solving a game of `size` positions
    /// in `tiers` tiers, resumed from `resumed` when given: the finished tiers' digest
    /// (`digest`) is checked against the checkpoint's first.
    fn start(
        (out, opts): (&'a Path, &'a BuildOptions),
        writer: &'a RawWriter,
        identity: &'a Identity,
        digest: &'a dyn Fn(std::ops::Range<u32>) -> u64,
        (size, tiers): (u64, u32),
        resumed: Option<&Checkpoint>,
        solve_start: Instant,
    ) -> Result<TiersDone<'a>> {
        // The digest of the finished tiers' cells, and the lowest tier it covers: checked
        // against the checkpoint on resuming, then grown at each checkpoint.
        let mut cells_sum = 0u64;
        let mut cells_sum_from = tiers;
        if let Some(m) = resumed {
            cells_sum = digest(m.tier..tiers);
            cells_sum_from = m.tier;
            checkpoint::check_cells(writer.path(), m, cells_sum)?;
        }
        // Positions of the finished tiers and the seconds spent on them, over all runs.
        let (solved_before, timed_before, seconds_before) =
            resumed.map_or((0, 0, 0.0), |m| (m.solved, m.timed, m.seconds));
        Ok(TiersDone {
            out,
            opts,
            writer,
            identity,
            digest,
            size,
            tiers,
            budget: opts.stop_after_tiers,
            cells_sum,
            cells_sum_from,
            checkpoint_at: Instant::now(),
            tier_start: Instant::now(),
            solve_start,
            solved: solved_before,
            solved_before,
            timed_before,
            seconds_before,
        })
    }
}

impl TiersDone<'_> {
    fn tier_done(&mut self, done: solve::finished::TierDone<'_>) -> Result<bool> {
        let t = done.tier;
        let tier_seconds = self.tier_start.elapsed().as_secs_f64();
        self.solved += done.positions;
        let go_on = match self.budget.as_mut() {
            Some(b) => {
                *b = b.saturating_sub(1);
                *b > 0
            }
            None => true,
        };
        // After tier 0 the table itself is written at once: no checkpoint is needed.
        let checkpoint =
            t > 0 && (!go_on || self.checkpoint_at.elapsed() >= self.opts.checkpoint_every);
        if checkpoint {
            // The remoteness a resumed run needs goes to a file of its own, then the cells
            // (a shared mapping) are synced, then the checkpoint names both; only then is
            // the previous checkpoint's file deleted.
            let (rem_bytes, rem_sum) =
                checkpoint::write_rem(&checkpoint::rem_path(self.out, t), done.remoteness)?;
            self.writer.sync_cells()?;
            self.cells_sum = self
                .cells_sum
                .wrapping_add((self.digest)(t..self.cells_sum_from));
            self.cells_sum_from = t;
            let m = Checkpoint {
                tier: t,
                rounds: done.rounds.unwrap_or(0),
                solved: self.solved,
                timed: self.timed_before + (self.solved - self.solved_before),
                seconds: self.seconds_before + self.solve_start.elapsed().as_secs_f64(),
                rem_bytes,
                rem_sum,
                cells_sum: Some(self.cells_sum),
            };
            checkpoint::write(self.out, self.identity, &m)?;
            checkpoint::remove_rem_files(self.out, Some(t));
            self.checkpoint_at = Instant::now();
        }
        let run_solved = (self.solved - self.solved_before) as f64;
        let left = self.size.saturating_sub(self.solved);
        let report = TierReport {
            tier: t,
            tiers: self.tiers,
            positions: done.positions,
            seconds: tier_seconds,
            solved: self.solved,
            left,
            seconds_left: left as f64 * self.solve_start.elapsed().as_secs_f64()
                / run_solved.max(1.0),
            checkpoint,
        };
        if let Some(on_tier) = &self.opts.on_tier {
            on_tier(&report);
        }
        if self
            .opts
            .halt_after_tier
            .as_ref()
            .is_some_and(|halt| halt(&report))
        {
            return Err(Error::Interrupted(format!("halted after tier {t}")));
        }
        self.tier_start = Instant::now();
        Ok(go_on)
    }
}
