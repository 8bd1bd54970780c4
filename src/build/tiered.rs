//! A tiered build: its plan (which tiers this run solves, the memory and disk it needs), and
//! the run itself through work files beside the output, with a checkpoint where a later run can
//! resume ([`super::checkpoint`]).
//!
//! Invariant: the work files are touched only while the output's lock is held, and a tier is
//! named in a checkpoint only once everything it needs is synced to disk.

use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use super::checkpoint::{self, Checkpoint, Found, Identity};
use super::{BuildOptions, BuildSummary, interrupted};
use crate::cells::Cells;
use crate::error::{Error, Result};
use crate::game::Tiered;
use crate::games::AnyGame;
use crate::solve::plan::{self, Kernel};
use crate::solve::{self, SolveOptions, SolveStats};
use crate::table::OutputLock;
use crate::table::workfiles::sibling;
use crate::table::write::{GameFields, RawWriter};
use crate::with_tiered_game;

/// What a run of a tiered build will do, worked out before it starts (from the game, the
/// options and the checkpoint beside the output).
#[derive(Clone, Debug, Serialize)]
pub struct TieredPlan {
    pub tiers: u32,
    /// The kernel this run solves with ([`solve::plan::choose`]); `None` for a game the tiered
    /// engine cannot solve.
    pub kernel: Option<Kernel>,
    /// The checkpoint this run resumes below, if any.
    pub resumed: Option<Checkpoint>,
    /// A checkpoint beside the output that this build may not resume, and why (what differs);
    /// the build is refused unless [`BuildOptions::restart`] discards it.
    pub refused: Option<String>,
    /// Tiers from here up are finished.
    pub done_from: u32,
    /// This run solves tiers `lowest..done_from`, top down.
    pub lowest: u32,
    /// Positions left to solve after this checkpoint (all the tiers below it).
    pub positions_left: u64,
    /// Peak memory of this run, bytes.
    pub memory_bytes: u64,
    /// Disk this run still needs for its work files, bytes (beyond what they hold already).
    pub disk_bytes: u64,
    /// Free disk beside the output, where the system says.
    pub disk_free: Option<u64>,
    /// Seconds the rest of the build would take at the rate of the earlier runs.
    pub seconds_left: Option<f64>,
}

/// The plan of a tiered build of `game` into `out` (see [`TieredPlan`]).
pub fn plan_tiered(game: &AnyGame, out: &Path, opts: &BuildOptions) -> TieredPlan {
    let size = game.size();
    let tiers = with_tiered_game!(game, g => g.tier_count(), _ => 0);
    let (mut resumed, refused) = match checkpoint::read(out, &Identity::of(game, opts.remoteness)) {
        _ if opts.restart => (None, None),
        Found::Nothing => (None, None),
        Found::Resume(c) => (Some(c).filter(|m| m.tier < tiers), None),
        Found::Differs(why) => (None, Some(why)),
    };
    let done_from = resumed.as_ref().map_or(tiers, |m| m.tier);
    let lowest = done_from.saturating_sub(opts.stop_after_tiers.unwrap_or(tiers));
    // Memory: the cells of this run's tiers (of a tier and its child tier where tiers are
    // index ranges, else all of them) and, with remoteness, a byte per index. Disk: the cells
    // from this run's lowest tier up and, with remoteness, the table's remoteness section and
    // the checkpoints' files (a new one is written before the previous one is deleted).
    let solving = lowest..done_from;
    let fresh = done_from == tiers;
    let kernel = plan::kernel(game, solve::Engine::Tiered, opts.remoteness, fresh);
    let memory_bytes = match kernel {
        Some(k) => with_tiered_game!(game, g => {
            plan::tiered_memory(k, g, solving.clone(), opts.remoteness)
                .saturating_add(solve::PROCESS_BYTES)
        }, _ => 0),
        None => 0,
    };
    let cells_on_disk = with_tiered_game!(game, g => g.tier_range(lowest), _ => None)
        .map_or(size, |r| size - r.start)
        .div_ceil(4);
    let disk_all = match kernel {
        // The row kernel keeps remoteness in the work file: nibbles of every position, written
        // in place (no checkpoint files).
        Some(Kernel::SlicedRemoteness) => cells_on_disk.saturating_add(
            crate::table::format::remoteness_len(size, crate::table::format::REM_NIBBLES),
        ),
        _ if opts.remoteness => cells_on_disk.saturating_add(size.saturating_mul(3)),
        _ => cells_on_disk,
    };
    let rem_file = resumed.as_ref().map(|m| checkpoint::rem_path(out, m.tier));
    let have = [Some(sibling(out, "partial")), rem_file]
        .iter()
        .flatten()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| {
            use std::os::unix::fs::MetadataExt;
            m.blocks() * 512
        })
        .sum::<u64>();
    // Where tiers are ranges, the finished ones are exactly the indices from `done_from`'s on.
    let solved = match with_tiered_game!(game, g => g.tier_range(done_from), _ => None) {
        Some(r) if resumed.is_some() => size - r.start,
        _ => resumed.as_ref().map_or(0, |m| m.solved),
    };
    if let Some(m) = resumed.as_mut() {
        m.solved = solved;
    }
    let positions_left = size.saturating_sub(solved);
    let seconds_left = resumed
        .as_ref()
        .filter(|m| m.timed > 0 && m.seconds > 0.0)
        .map(|m| positions_left as f64 * m.seconds / m.timed as f64);
    TieredPlan {
        tiers,
        kernel,
        resumed,
        refused,
        done_from,
        lowest,
        positions_left,
        memory_bytes,
        disk_bytes: disk_all.saturating_sub(have),
        disk_free: crate::memory::disk_free(crate::memory::dir_of(out)),
        seconds_left,
    }
}

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

/// A tiered build through work files beside `out`: `.NAME.partial` holds the cells (a shared
/// mapping: the table being written), `.NAME.partial-rem.T` the remoteness a run resumed below
/// tier `T` starts from, `.NAME.partial-tier` names the checkpoint. While solving, the engine
/// keeps remoteness in anonymous memory (two tiers of it where the game has slots).
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
/// `lock` is the output's: it makes the work files this build's alone while it runs.
pub(super) fn build(
    game: &AnyGame,
    out: &Path,
    lock: &OutputLock,
    opts: &BuildOptions,
    started: Instant,
) -> Result<BuildSummary> {
    build_with(game, out, lock, opts, started, None)
}

/// What solves a tiered build's tiers in place of the single-process engine (the build across
/// ranks, [`super::distributed`]): called once with the cells (the work file's map), the tier the
/// run starts below (the tier count for a fresh run), the solve's options and the callback that
/// reports each finished tier and may make it a checkpoint, which it must call exactly as
/// [`solve::tiered::solve_tiers`] does. Values only.
pub(super) type TierSolver<'s> = dyn FnMut(
        &Cells<'_>,
        u32,
        &SolveOptions,
        &mut dyn FnMut(solve::tiers::TierDone<'_>) -> Result<bool>,
    ) -> Result<Option<solve::tiers::Solved>>
    + 's;

/// [`build`], its tiers solved by `solver` when one is given.
pub(super) fn build_with(
    game: &AnyGame,
    out: &Path,
    lock: &OutputLock,
    opts: &BuildOptions,
    started: Instant,
    solver: Option<&mut TierSolver<'_>>,
) -> Result<BuildSummary> {
    let spec = game.spec();
    let size = game.size();
    let plan = plan_tiered(game, out, opts);
    let TieredPlan {
        tiers, done_from, ..
    } = plan;
    let resumed = plan.resumed.clone();
    if let Some(why) = &plan.refused {
        // Resuming would mix cells of another game, input or option into this table; starting
        // over silently would throw away the other build's work.
        return Err(crate::error::BuildError::OtherBuild {
            checkpoint: checkpoint::path(out).display().to_string(),
            why: why.to_string(),
        }
        .into());
    }
    let identity = Identity::of(game, opts.remoteness);
    let kernel = plan.kernel.ok_or_else(|| Error::Spec {
        spec: spec.clone(),
        msg: "the tiered engine cannot solve this game".into(),
    })?;
    check_resources(&spec, size, out, opts, &plan, kernel)?;
    // The remoteness a resumed run starts from, read into the engine's memory and checked
    // against the checkpoint's sum.
    let resume_rem = match &resumed {
        Some(m) => Some(|buf: &mut [u8]| checkpoint::read_rem(out, m, buf)),
        None => {
            // A fresh start: whatever the work files held belongs to no finished tier.
            let _ = std::fs::remove_file(checkpoint::path(out));
            checkpoint::remove_rem_files(out, None);
            None
        }
    };
    // The row kernel with remoteness writes its nibbles in the work file, beside the cells.
    let in_file_rem = kernel == Kernel::SlicedRemoteness;
    // The plain board's kernel with remoteness has its nibbles written while it solves.
    let streamed_rem = kernel == Kernel::PlainRemoteness && solver.is_none();
    let fresh = resumed.is_none();
    let writer = open_writer(out, lock, game, fresh, in_file_rem, streamed_rem)?;
    let cells_path = writer.path().to_path_buf();
    let solve_start = Instant::now();
    let stats = {
        let cells = writer.cells(size);
        // SAFETY: the words are the writer's shared mapping of its work file (or empty).
        let nibbles = unsafe { solve::slicedrem::Nibbles::over_file(writer.nibble_words()) };
        // The finished tiers' cells, and their nibbles where the work file holds them.
        let digest = |tiers: std::ops::Range<u32>| {
            with_tiered_game!(game, g => {
                let sum = solve::digest::tiers_digest(g, &cells, tiers.clone());
                if in_file_rem {
                    sum.wrapping_add(solve::digest::tiers_nibbles_digest(g, &nibbles, tiers))
                } else {
                    sum
                }
            }, _ => 0)
        };
        let sopts = SolveOptions {
            remoteness: opts.remoteness,
            progress: opts.progress.clone(),
            stop: opts.stop.clone(),
        };
        let mut tiers_done = TiersDone::start(
            (out, opts),
            &writer,
            &identity,
            &digest,
            (size, tiers),
            resumed.as_ref(),
            solve_start,
        )?;
        let mut checkpoint = |done: solve::tiers::TierDone<'_>| tiers_done.tier_done(done);
        let work = Work {
            writer: &writer,
            cells: &cells,
            nibbles: &nibbles,
            done_from,
            in_file_rem,
            streamed_rem,
        };
        let rounds_before = resumed.as_ref().map_or(0, |m| m.rounds);
        work.solve(
            game,
            solver,
            (rounds_before, resume_rem),
            &sopts,
            &mut checkpoint,
        )
        .map_err(|e| match e {
            Error::Interrupted(_) => interrupted(&spec, Some(out)),
            e => e,
        })?
    };
    let solve_seconds = solve_start.elapsed().as_secs_f64();
    let run = RunFacts {
        spec: &spec,
        size,
        kernel,
        resumed_from_tier: resumed.as_ref().map(|m| m.tier),
        solve_seconds,
        started,
    };
    let summary = |stats: &SolveStats, path: String, complete: bool, file_bytes: u64| {
        run.summary(stats, path, complete, file_bytes)
    };
    let Some(solved) = stats else {
        writer.flush()?;
        let partial = SolveStats::default();
        return Ok(summary(
            &partial,
            cells_path.display().to_string(),
            false,
            0,
        ));
    };
    let (stats, file_bytes) = write_table(game, writer, solved, in_file_rem || streamed_rem)?;
    checkpoint::remove_rem_files(out, None);
    let _ = std::fs::remove_file(checkpoint::path(out));
    Ok(summary(&stats, out.display().to_string(), true, file_bytes))
}

/// Where a run's solve writes and where it starts: the work file's writer, its cells and
/// nibbles, the tiers finished already, and where the kernel puts the remoteness.
struct Work<'w, 'a> {
    writer: &'w RawWriter,
    cells: &'w Cells<'a>,
    nibbles: &'w solve::slicedrem::Nibbles<'a>,
    done_from: u32,
    /// The row kernel with remoteness writes its nibbles in the work file, beside the cells.
    in_file_rem: bool,
    /// The plain board's kernel with remoteness has its nibbles written while it solves.
    streamed_rem: bool,
}

impl Work<'_, '_> {
    /// Solves the tiers below `done_from` of `game` with `solver` when one is given, else with
    /// the kernel the plan chose; `resume` is the rounds and the engine's remoteness bytes of
    /// the finished tiers (read from the checkpoint) for the per-position kernel.
    fn solve(
        &self,
        game: &AnyGame,
        solver: Option<&mut TierSolver<'_>>,
        resume: (u32, Option<impl FnOnce(&mut [u8]) -> Result<()>>),
        sopts: &SolveOptions,
        checkpoint: &mut impl FnMut(solve::tiers::TierDone<'_>) -> Result<bool>,
    ) -> Result<Option<solve::tiers::Solved>> {
        let (cells, done_from) = (self.cells, self.done_from);
        match solver {
            Some(solve) => solve(cells, done_from, sopts, checkpoint),
            None if self.in_file_rem => {
                let board = with_tiered_game!(game, g => g.board_shape(), _ => None)
                    .and_then(crate::shape::BoardShape::sliced)
                    .expect("the row kernel with remoteness was chosen for a sliced board");
                solve::slicedrem::solve(&board, cells, self.nibbles, done_from, sopts, checkpoint)
            }
            None if self.streamed_rem => {
                solve_streaming(game, self.writer, cells, sopts, checkpoint)
            }
            None => with_tiered_game!(game, g => solve::tiered::solve_tiers(
                g,
                cells,
                done_from,
                resume.0,
                resume.1,
                sopts,
                checkpoint
            ), _ => unreachable!("build checked that the tiered engine applies")),
        }
    }
}

/// The writer of `game`'s table through the resumable work file of `out` (its cells kept, or
/// undecided when `fresh`), with the remoteness' nibbles mapped (`in_file_rem`) or streamed
/// (`streamed_rem`) where the kernel writes them while it solves.
fn open_writer(
    out: &Path,
    lock: &OutputLock,
    game: &AnyGame,
    fresh: bool,
    in_file_rem: bool,
    streamed_rem: bool,
) -> Result<RawWriter> {
    let writer = RawWriter::resumable(out, lock, GameFields::of(game), game.size(), fresh)?;
    if in_file_rem {
        writer.with_nibbles()
    } else if streamed_rem {
        writer.stream_nibbles()
    } else {
        Ok(writer)
    }
}

/// Checks that memory and disk hold the tiers `plan` solves of the game `spec` (`size`
/// positions) with `kernel`.
fn check_resources(
    spec: &str,
    size: u64,
    out: &Path,
    opts: &BuildOptions,
    plan: &TieredPlan,
    kernel: Kernel,
) -> Result<()> {
    let (lowest, done_from) = (plan.lowest, plan.done_from);
    let what = format!(
        "solving tiers {lowest}..{done_from} of {spec} with the tiered engine ({kernel} kernel)"
    );
    crate::memory::check(
        format!("{what} ({size} positions)"),
        plan.memory_bytes,
        opts.max_memory,
    )?;
    crate::memory::check_disk(what, out, plan.disk_bytes)
}

/// Writes the table of a finished solve through `writer`: the engine's remoteness turned into
/// the table's (nibbles for a board, else the engine's bytes or wider ones), unless the
/// kernel wrote the nibbles into the work file already (`nibbles_written`). Returns the solve's
/// figures and the file's size.
fn write_table(
    game: &AnyGame,
    writer: RawWriter,
    solved: solve::tiers::Solved,
    nibbles_written: bool,
) -> Result<(SolveStats, u64)> {
    let stats = solved.stats;
    let nibbles = crate::table::format::REM_NIBBLES;
    let mut rem = solved.remoteness;
    let (writer, width, rem_bytes) = match &mut rem {
        // In the work file already.
        _ if nibbles_written => (writer, nibbles, &[][..]),
        // A board's bytes go into the table's nibbles in the work file, a block at a time, each
        // hashed while in the cache: one pass over the engine's bytes, half of them for the
        // disk.
        Some(r) if solved.rem_width == 1 && super::rem_width_for(game, 0) == nibbles => {
            let mut w = writer.with_nibbles()?;
            let bytes = r.bytes();
            w.fill_nibbles(|first, out| {
                let from = (2 * first).min(bytes.len() as u64) as usize;
                solve::tiered::engine_nibbles(&bytes[from..], out)
            });
            (w, nibbles, &[][..])
        }
        Some(r) if solved.rem_width == 1 => {
            solve::tiered::table_bytes(r);
            (writer, 1, r.bytes())
        }
        Some(r) => (writer, solved.rem_width, r.bytes()),
        None => (writer, 0, &[][..]),
    };
    let file_bytes = writer.finish(stats.counts, stats.rounds, width, rem_bytes)?;
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
    fn tier_done(&mut self, done: solve::tiers::TierDone<'_>) -> Result<bool> {
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

/// The plain board's kernel with remoteness ([`Kernel::PlainRemoteness`]), the table's nibbles
/// written while it solves: a thread of its own packs each block of the nibble section as soon
/// as the solve is done with its positions ([`solve::plainrem::final_tiers`]), hashes it,
/// writes it to `writer` and starts the disk's writes, so that after the solve only the last
/// levels' blocks, the cells and the sync are left. The engine's bytes stay in memory (they
/// are what the kernel reads), so nothing the solve touches is mapped from the file.
fn solve_streaming(
    game: &AnyGame,
    writer: &RawWriter,
    cells: &Cells<'_>,
    opts: &SolveOptions,
    after: &mut impl FnMut(solve::tiers::TierDone<'_>) -> Result<bool>,
) -> Result<Option<solve::tiers::Solved>> {
    let shape = with_tiered_game!(game, g => g.board_shape(), _ => None);
    let board = shape
        .and_then(crate::shape::BoardShape::plain)
        .expect("the plain board's kernel was chosen for a plain board");
    let size = cells.len();
    let rem = solve::tiers::AnonBytes::new(size).map_err(|source| Error::Io {
        path: format!("{size} bytes of anonymous memory for remoteness"),
        source,
    })?;
    // A nibble block holds as many configurations as it has bytes.
    let finals = solve::plainrem::final_tiers(&board, crate::table::format::BLOCK as u64);
    let (reports, reported) = std::sync::mpsc::channel::<u32>();
    std::thread::scope(|scope| {
        let streamer = scope.spawn(|| {
            let written = stream_blocks(writer, &rem, &finals, reported);
            if written.is_err() {
                // No table can come of this solve: stop it.
                opts.stop.request();
            }
            written
        });
        let solved =
            solve::tiered::solve_plain_remoteness(&board, cells, &rem, opts, &mut |done| {
                // The writer may go on with the blocks this tier leaves final.
                let _ = reports.send(done.tier);
                after(done)
            });
        drop(reports);
        // The solve is over: the rest of the cells go to the disk while the last blocks are
        // written.
        writer.start_cells_writeback(0..size);
        streamer.join().expect("the nibble writer does not panic")?;
        Ok(solved?.map(|stats| solve::tiers::Solved {
            stats,
            remoteness: None,
            rem_width: crate::table::format::REM_NIBBLES,
        }))
    })
}

/// [`solve_streaming`]'s writer: for each tier the solve reports (highest first), the nibble
/// blocks that tier leaves final (`finals[k]`: the tier that makes block `k` so), in file
/// order, packed from the engine's bytes `rem`, written and sent to the disk a run of
/// consecutive blocks at a time. Once tier 0 is reported, every block is written.
fn stream_blocks(
    writer: &RawWriter,
    rem: &solve::tiers::AnonBytes,
    finals: &[u32],
    reported: std::sync::mpsc::Receiver<u32>,
) -> Result<()> {
    let positions = rem.len();
    // The blocks in the order they become final, highest tier first.
    let mut order: Vec<usize> = (0..finals.len()).collect();
    order.sort_by_key(|&k| (std::cmp::Reverse(finals[k]), k));
    let (mut next, mut fresh, mut out) = (0, Vec::new(), Vec::new());
    // The file system's journal may carry other programs' data that the commit's sync would
    // wait for (ext4 writes a file's data before the metadata that names it, other files'
    // too): a sync now, while the solve works and this file holds almost nothing, takes that
    // wait off the end.
    writer.sync_cells()?;
    for tier in reported {
        fresh.clear();
        while next < order.len() && finals[order[next]] >= tier {
            fresh.push(order[next]);
            next += 1;
        }
        fresh.sort_unstable();
        let mut run_start = 0;
        for (i, &k) in fresh.iter().enumerate() {
            let (at, len) = writer.nibble_block(k);
            let from = 2 * at as usize;
            let to = (from + 2 * len).min(positions);
            // SAFETY: the solve reported a tier that leaves block `k`'s positions final (their
            // bytes are written no more), and the channel's message orders their writes
            // before this read.
            let bytes = unsafe { rem.final_range(from..to) };
            out.resize(len, 0);
            solve::tiered::engine_nibbles(bytes, &mut out);
            writer.write_nibble_block(k, &out)?;
            if i == 0 || fresh[i - 1] + 1 != k {
                run_start = k;
            }
            // The run's cells are final too, but their pages stay with the solve (mapped):
            // starting their write-back here slowed it (TLB shootdowns), docs/BENCHMARKS.md.
            if fresh.get(i + 1) != Some(&(k + 1)) {
                writer.start_nibble_writeback(run_start..k + 1);
            }
        }
    }
    Ok(())
}
