//! Building tables: the engine choice, estimates, the memory and disk guards, the solve itself,
//! the checkpoints a tiered build resumes from, and compression as an option of the build.
//!
//! This layer drives the others: it asks [`crate::solve`] to decide cells that live in a table
//! file being written by [`crate::table`], and neither of those knows about the other. The
//! invariant: a build takes the output's lock ([`OutputLock`]) before it touches the output or
//! any work file beside it (`.NAME.tmp-PID`, `.NAME.partial*`, `.NAME.raw`), and holds it until
//! the table is under its final name or the build has failed.

mod checkpoint;
pub(crate) mod convert;
pub mod distributed;
pub mod generate;
pub(crate) mod kernels;
mod plan;
pub mod report;
pub(crate) mod rows;
pub mod threads;
mod tiered;

use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use crate::base::error::{Error, Result};
use crate::base::progress::{Progress, Silent};
use crate::base::remoteness::max_finite;
use crate::game::Game as _;
use crate::games::{AnyGame, Embed};
use crate::solve::{self, SolveOptions, SolveStats};
use crate::table::format::{RemotenessEncoding, remoteness_bytes};
use crate::table::workfiles::sibling;
use crate::table::write::{GameFields, GrundyBytes, RawWriter};
use crate::table::{OutputLock, raw_sibling, zstd::Params};
use crate::with_game;

pub use checkpoint::{Checkpoint, Identity};
pub use kernels::{KernelPlan, default_kernel, kernel_plans};
pub use plan::BuildPlan;
use plan::Run;
pub use tiered::frames::{FRAMES_DEFAULT, frames_params};
pub use tiered::{TierReport, TieredPlan, plan_tiered};

/// How to build a table.
#[derive(Clone)]
pub struct BuildOptions {
    pub remoteness: bool,
    /// Where the solve reports its progress, and the build its notes (stale work files
    /// removed); `None`: nowhere.
    pub progress: Option<std::sync::Arc<dyn Progress>>,
    /// Bytes the build may use; larger builds are refused before allocating.
    pub max_memory: u64,
    /// The engine; `None` picks the game's default ([`solve::Engine::default_for`]).
    pub engine: Option<solve::Engine>,
    /// The kernel (`--kernel`), which names its engine; `None` picks the fastest that applies
    /// ([`solve::plan::choose`]). One that does not apply, or does not fit, is refused.
    pub kernel: Option<solve::plan::Kernel>,
    /// Tiered engine: solve at most this many tiers in this run, then stop, leaving the work
    /// files for a later run to resume from.
    pub stop_after_tiers: Option<u32>,
    /// Tiered engine: a finished tier becomes a checkpoint (its work written to disk and named
    /// in the checkpoint file) when at least this long has passed since the last one; zero makes
    /// every tier one. The tier where `stop_after_tiers` stops always is.
    pub checkpoint_every: std::time::Duration,
    /// Tiered engine: called after each tier (for progress lines in logs).
    pub on_tier: Option<OnTier>,
    /// Checked while solving; once set, the build stops and fails with
    /// [`Error::Interrupted`] (a tiered build's work files stay for a later run to resume).
    pub stop: solve::Stop,
    /// Write the table compressed with these parameters: solved into the raw table beside the
    /// output ([`raw_sibling`]), compressed into the output, the raw one removed. A build that
    /// stops early (`stop_after_tiers`) is not compressed.
    pub compress: Option<Params>,
    /// Where to report the compression, which begins once the solve is over (`None`:
    /// nowhere).
    pub compress_progress: Option<std::sync::Arc<dyn Progress>>,
    /// Tiered engine: called after each tier's checkpoint decision (after [`Self::on_tier`]);
    /// returning true stops the build there as [`Self::stop`] would, its work files kept. Tests
    /// use it to cut a build at a chosen tier, the way a crash would.
    pub halt_after_tier: Option<HaltAfterTier>,
    /// Tiered engine: discard a checkpoint beside the output that this build may not resume
    /// (another game, input file or options) and start over, instead of refusing.
    pub restart: bool,
    /// Also label every position with its generalized Sprague-Grundy value and store the
    /// values in the table (impartial games: digraphs), so that sums of tokens can be answered
    /// (docs/SUMS.md).
    pub grundy: bool,
    /// Whether the table keeps the game's input file whatever its size (`--embed`); the game
    /// must have been opened with the same ([`AnyGame::open_to_build`]). The default embeds
    /// inputs up to 64 MiB and refers to larger ones by absolute path.
    pub embed: Embed,
}

/// What [`BuildOptions::on_tier`] calls.
pub type OnTier = std::sync::Arc<dyn Fn(&TierReport) + Send + Sync>;

/// What [`BuildOptions::halt_after_tier`] calls: true stops the build.
pub type HaltAfterTier = std::sync::Arc<dyn Fn(&TierReport) -> bool + Send + Sync>;

/// The default [`BuildOptions::checkpoint_every`]: an interruption loses at most about a
/// minute of work besides the tier in progress, and builds of a few minutes pay for a few
/// write-backs only.
pub const CHECKPOINT_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

impl BuildOptions {
    /// Where the build reports: [`Self::progress`], or [`Silent`].
    pub(crate) fn progress(&self) -> &dyn Progress {
        self.progress.as_deref().unwrap_or(&Silent)
    }

    /// The solve's options of this build: its remoteness, progress and stop.
    pub(crate) fn solve_options(&self) -> SolveOptions {
        SolveOptions {
            remoteness: self.remoteness,
            progress: self.progress.clone(),
            stop: self.stop.clone(),
        }
    }
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            remoteness: false,
            progress: None,
            max_memory: crate::base::memory::default_limit(),
            engine: None,
            kernel: None,
            stop_after_tiers: None,
            checkpoint_every: CHECKPOINT_EVERY,
            on_tier: None,
            stop: solve::Stop::default(),
            compress: None,
            compress_progress: None,
            halt_after_tier: None,
            restart: false,
            grundy: false,
            embed: Embed::UpToLimit,
        }
    }
}

/// What a build did.
#[derive(Clone, Debug, Serialize)]
pub struct BuildSummary {
    pub spec: String,
    pub path: String,
    pub positions: u64,
    /// `[unused, win, loss, draw]`.
    pub counts: [u64; 4],
    /// Retrograde rounds, where the engine followed them (not in a values-only tiered build).
    pub rounds: Option<u32>,
    /// Edges of the game graph, where the engine enumerated them all.
    pub edges: Option<u64>,
    pub parent_visits: u64,
    /// Children read to decide their parents (tiered engine).
    pub child_probes: u64,
    pub engine: solve::Engine,
    /// The kernel that decided this run's positions ([`solve::plan::Kernel`]).
    pub kernel: solve::plan::Kernel,
    /// Tiered builds: the tier this run continued below, when it resumed an interrupted build.
    pub resumed_from_tier: Option<u32>,
    /// False when the build stopped early (`stop_after_tiers`); `path` is then the work file
    /// and rerunning the build resumes it.
    pub complete: bool,
    pub solve_seconds: f64,
    /// Seconds of the whole build: here from the call on; the command line's summary counts
    /// from before it read the input.
    pub total_seconds: f64,
    pub file_bytes: u64,
    /// Seconds spent compressing, for a build written compressed.
    pub compress_seconds: Option<f64>,
    /// The generalized Sprague-Grundy labelling, for a build asked for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grundy: Option<GrundySummary>,
}

/// What the generalized Sprague-Grundy labelling of a build did.
#[derive(Clone, Debug, Serialize)]
pub struct GrundySummary {
    /// The largest finite value (`None` when every position is infinite).
    pub largest: Option<u32>,
    /// Positions of infinite value.
    pub infinite: u64,
    /// Distinct reach sets among them.
    pub reach_sets: u64,
    /// Stages run (stage 0 is the solve): one per finite value, and a last one that labels
    /// none where positions were still open after the largest value.
    pub stages: u32,
    /// Parent edges walked by the labelling.
    pub parent_visits: u64,
    /// Seconds of the labelling alone (it is part of `solve_seconds`).
    pub seconds: f64,
    /// Each stage after the solve: its value, the positions open at its start, those it
    /// labelled and found infinite, its parent visits and seconds.
    pub per_stage: Vec<crate::base::grundy::StageReport>,
}

/// What a build of `game` with `opts` is expected to take before it starts.
#[derive(Clone, Debug, Serialize)]
pub struct BuildEstimate {
    pub engine: solve::Engine,
    /// The kernel of a build from scratch; `None` when the engine cannot solve the game.
    pub kernel: Option<solve::plan::Kernel>,
    /// Peak memory of the solve, in bytes (what the memory guard compares with the limit).
    pub memory_bytes: u64,
    /// The raw table file's size (cells and remoteness; the header and checksums are small).
    pub file_bytes: u64,
}

/// The engine and kernel a build from scratch would use and its memory and disk needs.
pub fn estimate(game: &AnyGame, opts: &BuildOptions) -> BuildEstimate {
    estimate_for(game, opts, engine_of(game, opts))
}

/// [`estimate`] with the build's engine, worked out once ([`engine_of`]).
fn estimate_for(game: &AnyGame, opts: &BuildOptions, engine: solve::Engine) -> BuildEstimate {
    let size = game.size();
    let rem = if opts.remoteness {
        rem_encoding_for(game, 0).section_len(size)
    } else {
        0
    };
    // The labelling runs after the solve, its cells kept: its arrays come on top.
    let (grundy_memory, grundy_file) = if opts.grundy {
        (
            solve::grundy::memory_estimate(size, with_game!(game, g => g.max_children())),
            size.saturating_mul(2),
        )
    } else {
        (0, 0)
    };
    let mut kernel = opts
        .kernel
        .or_else(|| solve::plan::kernel(game, engine, opts.remoteness, true));
    let mut memory_bytes = process_peak(game, opts, kernel, grundy_memory);
    // As the tiered plan chooses (`plan_with_kernel`, which also weighs the disk): out of core
    // where the row kernel's memory does not fit and the out-of-core kernel's does.
    if opts.kernel.is_none() && kernel == Some(solve::plan::Kernel::SlicedRows) {
        let frames = Some(solve::plan::Kernel::SlicedFrames);
        let out_of_core = process_peak(game, opts, frames, grundy_memory);
        if memory_bytes > opts.max_memory && out_of_core <= opts.max_memory {
            (kernel, memory_bytes) = (frames, out_of_core);
        }
    }
    BuildEstimate {
        engine,
        kernel,
        memory_bytes,
        file_bytes: size
            .div_ceil(4)
            .saturating_add(rem)
            .saturating_add(grundy_file),
    }
}

/// The peak memory of a whole build of `game`: the larger of the game's load and the solve.
/// The solve's is the engine's estimate (and the labelling's, `grundy_memory`) beside what the
/// game keeps (a digraph's arrays) and the input file's bytes an embedding table holds three
/// times over: the game's copy, the table writer's, and the header encoded from it at the end.
/// Without the game's share, a 1M-vertex, 1M-edge digraph was estimated at 18.6 MiB against a
/// peak of 71 MiB.
fn process_peak(
    game: &AnyGame,
    opts: &BuildOptions,
    kernel: Option<solve::plan::Kernel>,
    grundy_memory: u64,
) -> u64 {
    let embedded = game
        .source()
        .and_then(|s| s.bytes.as_ref())
        .map_or(0, |b| b.len() as u64);
    // A game the tiered engine cannot solve has no kernel of it: the counter engine's figure.
    let kernel = kernel.unwrap_or(solve::plan::Kernel::Counter);
    let solving = solve::plan::kernel_memory(kernel, game, opts.remoteness)
        .saturating_add(solve::PROCESS_BYTES)
        .saturating_add(grundy_memory)
        .saturating_add(game.resident_bytes())
        .saturating_add(embedded.saturating_mul(3));
    let loading = solve::PROCESS_BYTES.saturating_add(game.load_peak_bytes());
    solving.max(loading)
}

/// The engine of the kernel `opts` asks for, else the engine it asks for, else the game's
/// default. A build works it out once and hands it on.
fn engine_of(game: &AnyGame, opts: &BuildOptions) -> solve::Engine {
    opts.kernel
        .map(solve::plan::Kernel::engine)
        .or(opts.engine)
        .unwrap_or_else(|| solve::Engine::default_for(game))
}

/// Refuses options that do not apply to `game` before anything is done (a front end calls it
/// before printing a plan; [`build`] calls it too).
pub fn check_options(game: &AnyGame, opts: &BuildOptions) -> Result<()> {
    check_options_for(game, opts, engine_of(game, opts))
}

/// [`check_options`] for a build with `engine`.
fn check_options_for(game: &AnyGame, opts: &BuildOptions, engine: solve::Engine) -> Result<()> {
    kernels::check_chosen(game, opts)?;
    if opts.grundy {
        refuse_grundy(game, engine)?;
    }
    refuse_embedding_too_much(game)
}

/// The most input a table's header holds (its length is a 32-bit field; the rest of the header
/// is a few kilobytes at most).
const MAX_EMBEDDED: u64 = u32::MAX as u64 - (1 << 20);

/// `--embed` of an input the header cannot hold.
fn refuse_embedding_too_much(game: &AnyGame) -> Result<()> {
    match game.source() {
        Some(s) if s.bytes.is_some() && s.len > MAX_EMBEDDED => Err(Error::Usage(format!(
            "--embed: {} is {} bytes, more than a table's header holds ({MAX_EMBEDDED}); build \
             without --embed to refer to it by path",
            s.name, s.len
        ))),
        _ => Ok(()),
    }
}

/// Solves `game` and writes its table to `out`, raw or compressed as `opts` asks: its plan
/// made ([`BuildPlan::make`]) and run ([`build_planned`]).
pub fn build(game: &AnyGame, out: &Path, opts: &BuildOptions) -> Result<BuildSummary> {
    build_planned(game, out, opts, BuildPlan::make(game, out, opts)?)
}

/// Runs a build as `plan` says: `plan` is [`BuildPlan::make`]'s for the same game, output and
/// options (a front end shows it before the run).
pub fn build_planned(
    game: &AnyGame,
    out: &Path,
    opts: &BuildOptions,
    plan: BuildPlan<'_>,
) -> Result<BuildSummary> {
    let started = Instant::now();
    plan.check_fits(game, opts)?;
    let raw = plan.compress_after.then(|| plan.solved_into.clone());
    let result = run(game, opts, plan, started, None);
    let Some(raw) = raw else {
        return result;
    };
    let params = opts
        .compress
        .expect("a plan compresses where the options do");
    let result = result.and_then(|mut s| {
        if !s.complete {
            return Ok(s);
        }
        opts.stop.check().map_err(|_| interrupted(&s.spec, None))?;
        let started = Instant::now();
        // Held while compressing: the raw table is this process's work, not a dead one's.
        let _raw = OutputLock::acquire(&raw, opts.progress())?;
        let t = crate::table::Table::open(&raw)?;
        let progress = opts.compress_progress.as_deref().unwrap_or(&Silent);
        s.file_bytes = crate::table::compress(&t, out, params, progress)?;
        s.compress_seconds = Some(started.elapsed().as_secs_f64());
        s.path = out.display().to_string();
        s.total_seconds += started.elapsed().as_secs_f64();
        Ok(s)
    });
    let _ = std::fs::remove_file(&raw);
    result
}

/// The one dispatch on a plan's kernel: the counter engine, the out-of-core kernel (which
/// writes the table compressed itself), or the tiered engine's kernels that write cells.
/// `across` solves the tiers across ranks ([`distributed`]). The plan, and so its lock, ends
/// with the run.
pub(crate) fn run(
    game: &AnyGame,
    opts: &BuildOptions,
    plan: BuildPlan<'_>,
    started: Instant,
    across: Option<tiered::Across<'_, '_>>,
) -> Result<BuildSummary> {
    let (cells, frames) = match across {
        Some(a) => (Some(a.cells), Some(a.frames)),
        None => (None, None),
    };
    match &plan.run {
        Run::Counter => build_counter(game, opts, &plan, started),
        Run::Tiered(k) if k.kernel() == solve::plan::Kernel::SlicedFrames => {
            tiered::frames::build(game, &plan.solved_into, opts, k, started, frames)
        }
        Run::Tiered(k) => tiered::build_cells(game, opts, &plan, k, started, cells),
    }
}

/// Refuses generalized Sprague-Grundy values where they do not apply: games that are not
/// impartial, and the tiered engine (which digraphs never use anyway).
fn refuse_grundy(game: &AnyGame, engine: solve::Engine) -> Result<()> {
    let spec = game.spec();
    let why = if !with_game!(game, g => g.impartial()) {
        "generalized Sprague-Grundy values are defined for impartial games, where a player who \
         cannot move loses and both players have the same moves (digraph:FILE); this game is \
         not one"
    } else if engine != solve::Engine::Counter {
        "the generalized Sprague-Grundy labelling follows the counter engine; leave out \
         --engine tiered"
    } else {
        return Ok(());
    };
    Err(Error::Spec {
        spec,
        msg: format!("--grundy: {why}"),
    })
}

/// Refuses a build whose output, or a work file it writes beside it, is the game's input file
/// (the same file by device and inode: a hard link or a symbolic link to it counts): the table
/// would replace the input (`build digraph:in/g.txt -o in/g.txt` did).
fn refuse_writing_the_input(game: &AnyGame, out: &Path) -> Result<()> {
    use std::os::unix::fs::MetadataExt;
    let Some(source) = game.source() else {
        return Ok(());
    };
    let Ok(input) = std::fs::metadata(&source.name) else {
        return Ok(());
    };
    let raw = raw_sibling(out);
    let written = [
        out.to_path_buf(),
        sibling(out, "partial"),
        raw.clone(),
        sibling(&raw, "partial"),
    ];
    for path in &written {
        if let Ok(m) = std::fs::metadata(path)
            && (m.dev(), m.ino()) == (input.dev(), input.ino())
        {
            return Err(crate::base::error::BuildError::OverwritesInput {
                path: path.display().to_string(),
                spec: game.spec(),
                input: source.name.clone(),
            }
            .into());
        }
    }
    Ok(())
}

/// A compressed build writes the compressed table beside the raw one before removing it: both
/// must fit, checked before the solve (only the raw one was, and a disk that could not hold the
/// copy failed after the solve). The copy's size is unknown until then; it is counted as a
/// quarter of the raw cells (a half bit a position; the tables measured compress to about 0.11,
/// docs/FORMAT.md) plus the remoteness whole. What the raw table's work file holds already
/// counts as written.
fn check_disk_for_both(game: &AnyGame, out: &Path, estimate: &BuildEstimate) -> Result<()> {
    use std::os::unix::fs::MetadataExt;
    let both = both_on_disk(game, estimate);
    let have =
        std::fs::metadata(sibling(&raw_sibling(out), "partial")).map_or(0, |m| m.blocks() * 512);
    crate::base::memory::check_disk(
        format!(
            "building {} compressed (the raw table and the compressed copy beside it)",
            game.spec()
        ),
        out,
        both.saturating_sub(have),
    )
}

/// The raw table of a build (`estimate`) and its compressed copy, as [`check_disk_for_both`]
/// counts them.
fn both_on_disk(game: &AnyGame, estimate: &BuildEstimate) -> u64 {
    let raw = estimate.file_bytes;
    let cells = game.size().div_ceil(4);
    raw.saturating_add(cells / 4 + raw.saturating_sub(cells))
}

/// The counter engine's run of `plan`: solves `game` and writes its raw table.
fn build_counter(
    game: &AnyGame,
    opts: &BuildOptions,
    plan: &BuildPlan<'_>,
    started: Instant,
) -> Result<BuildSummary> {
    let spec = game.spec();
    let size = game.size();
    let out = plan.solved_into.as_path();
    let engine = plan.engine;
    let fields = if opts.grundy {
        GameFields::of(game).with_grundy()
    } else {
        GameFields::of(game)
    };
    let mut writer = RawWriter::create(out, fields, size)?;
    let solve_start = Instant::now();
    let sopts = opts.solve_options();
    let (stats, encoding, rem_bytes) = {
        let cells = writer.cells(size);
        let stats = solve::erased::counter(game, &cells, &sopts);
        // A stopped solve's cells are incomplete; the temporary file goes with the writer.
        opts.stop.check().map_err(|_| interrupted(&spec, None))?;
        let (encoding, rem_bytes) = encode_remoteness(game, &stats, &cells)?;
        (stats, encoding, rem_bytes)
    };
    let grundy =
        if opts.grundy {
            let started = Instant::now();
            // The solve is the labelling's stage 0.
            let cells = writer.cells(size);
            let labels = with_game!(game, g => solve::grundy::label(g, &sopts, Some(&cells)))
                .map_err(|e| match e {
                    Error::Interrupted(_) => interrupted(&spec, None),
                    e => e,
                })?;
            let summary = GrundySummary {
                largest: labels.finite.checked_sub(1),
                infinite: labels.infinite_count(),
                reach_sets: labels.set_count(),
                stages: labels.stages,
                parent_visits: labels.parent_visits,
                seconds: started.elapsed().as_secs_f64(),
                per_stage: labels.stage_reports.clone(),
            };
            writer.set_grundy(GrundyBytes::of(&labels));
            Some(summary)
        } else {
            None
        };
    let solve_seconds = solve_start.elapsed().as_secs_f64();
    // Rounds are recorded where the table has remoteness (a values-only tiered build does not
    // know them, and both engines write the same table).
    let rounds = stats.rounds.filter(|_| opts.remoteness);
    let file_bytes = writer.finish(stats.counts, rounds, encoding, &rem_bytes)?;
    Ok(BuildSummary {
        spec,
        path: out.display().to_string(),
        positions: size,
        counts: stats.counts,
        rounds: stats.rounds,
        edges: stats.edges,
        parent_visits: stats.parent_visits,
        child_probes: stats.child_probes,
        engine,
        kernel: solve::plan::Kernel::Counter,
        resumed_from_tier: None,
        complete: true,
        solve_seconds,
        total_seconds: started.elapsed().as_secs_f64(),
        file_bytes,
        compress_seconds: None,
        grundy,
    })
}

/// The error of a build stopped through [`BuildOptions::stop`]; a tiered build (`resumable`
/// names its output) leaves its work files for a later run.
fn interrupted(spec: &str, resumable: Option<&Path>) -> Error {
    Error::Interrupted(match resumable {
        None => format!("the build of {spec} was interrupted; no table was written"),
        Some(out) => format!(
            "the build of {spec} was interrupted; no table was written (the same build into {} \
             resumes from its last checkpoint)",
            out.display()
        ),
    })
}

/// The remoteness encoding of `game`'s tables: half a byte relative to the value for the boards
/// the solvers know, plain and sliced (a cell game's remoteness follows its value's parity and
/// stays below 29 cells, docs/FORMAT.md), else the narrowest bytes whose all-ones value exceeds
/// `max`, the largest finite remoteness.
pub(crate) fn rem_encoding_for(game: &AnyGame, max: u32) -> RemotenessEncoding {
    use solve::plan::Shape;
    if matches!(Shape::of(game), Shape::SlicedBoard | Shape::PlainBoard) {
        RemotenessEncoding::Nibbles
    } else {
        RemotenessEncoding::narrowest(max)
    }
}

/// The table's remoteness section of a solve with remoteness (the cells give the nibbles'
/// values): its encoding and bytes.
fn encode_remoteness(
    game: &AnyGame,
    stats: &SolveStats,
    cells: &crate::base::cells::Cells<'_>,
) -> Result<(RemotenessEncoding, Vec<u8>)> {
    let Some(rem) = &stats.remoteness else {
        return Ok((RemotenessEncoding::None, Vec::new()));
    };
    let encoding = rem_encoding_for(game, max_finite(rem));
    match encoding {
        RemotenessEncoding::Nibbles => {}
        RemotenessEncoding::Bytes(width) => return Ok((encoding, remoteness_bytes(rem, width))),
        RemotenessEncoding::None => return Ok((encoding, Vec::new())),
    }
    let mut out = vec![0u8; encoding.section_len(rem.len() as u64) as usize];
    for (i, &r) in rem.iter().enumerate() {
        let code = cells.get(i as u64);
        let n = crate::table::format::nibble_of(
            code,
            (r != crate::base::remoteness::NONE).then_some(r),
        )
        .ok_or_else(|| Error::Spec {
            spec: game.spec(),
            msg: format!(
                "position {i} has remoteness {r} with value code {code}, which the \
                     table's nibbles cannot hold (a loss's remoteness is even, a win's odd)"
            ),
        })?;
        out[i / 2] |= n << (4 * (i % 2));
    }
    Ok((encoding, out))
}

#[cfg(test)]
mod in_memory;
#[cfg(test)]
mod tests;
