//! A build's plan: the options checked against the game and the output, the engine and the
//! kernel chosen, the tiered run (which tiers, below which checkpoint) and the memory and disk it
//! needs, worked out once by [`BuildPlan::make`] under the output's lock and carried to the run
//! ([`super::build_planned`]), which dispatches once on its kernel.
//!
//! Invariant: a plan is made once per build (`counts` counts them in tests), before
//! anything is written, and the run does what it says; the lock it holds keeps another build from
//! changing the checkpoint it read.

use std::path::{Path, PathBuf};

use super::checkpoint;
use super::tiered::{TieredPlan, plan_with_kernel};
use super::{BuildEstimate, BuildOptions, engine_of, estimate_for};
use crate::base::error::{BuildError, Error, Result, human_bytes};
use crate::games::AnyGame;
use crate::solve::plan::{Kernel, TieredKernel};
use crate::solve::{self, Engine};
use crate::table::{OutputLock, raw_sibling};

/// What a build will do, worked out before it starts ([`BuildPlan::make`]).
pub struct BuildPlan<'g> {
    /// The engine that solves.
    pub engine: Engine,
    /// The kernel that decides this run's positions.
    pub kernel: Kernel,
    /// Where the solve writes: the output, or the raw table beside it when the table is
    /// compressed afterwards.
    pub solved_into: PathBuf,
    /// Whether the raw table is compressed into the output after the solve (`--compress`,
    /// except with the out-of-core kernel, which writes it compressed itself).
    pub compress_after: bool,
    /// The estimate of a build from scratch (the line a front end prints before it).
    pub estimate: BuildEstimate,
    /// A tiered build's run: its tiers, the checkpoint it resumes, its memory and disk.
    pub tiered: Option<TieredPlan>,
    /// The kernel as the engine runs it.
    pub(super) run: Run<'g>,
    /// What the run needs of memory and disk, checked when it starts ([`Self::check_fits`]),
    /// after a front end has shown the plan.
    needs: Needs,
    /// The build's output.
    output: PathBuf,
    /// The lock of [`Self::solved_into`], held from planning to the end of the solve.
    pub(super) lock: OutputLock,
}

/// The kernel of a plan as a value the engines run.
pub(super) enum Run<'g> {
    Counter,
    Tiered(TieredKernel<'g>),
}

impl<'g> BuildPlan<'g> {
    /// The plan of a build of `game` into `out` with `opts`, once every option is checked: the
    /// output is no input of the game and no other build's, a game from outside keeps the
    /// contract on a sample, the engine and the kernel apply, and a checkpoint beside the output
    /// belongs to this build. Whether memory and disk hold the run is checked when it starts
    /// ([`super::build_planned`]), so a front end can show a plan that does not fit.
    pub fn make(game: &'g AnyGame, out: &Path, opts: &BuildOptions) -> Result<BuildPlan<'g>> {
        #[cfg(test)]
        counts::count(&counts::BUILD_PLANS);
        super::refuse_writing_the_input(game, out)?;
        check_contract(game)?;
        let engine = engine_of(game, opts);
        super::check_options_for(game, opts, engine)?;
        let estimate = estimate_for(game, opts, engine);
        match engine {
            Engine::Tiered => Self::tiered(game, out, opts, estimate),
            Engine::Counter => Self::counter(game, out, opts, estimate),
        }
    }

    /// Refuses a run whose memory does not fit the limit or whose disk (with the compressed copy
    /// beside the raw table, where the build compresses) is not free beside the output: the
    /// run's first step, before it writes anything.
    pub(crate) fn check_fits(&self, game: &AnyGame, opts: &BuildOptions) -> Result<()> {
        if self.compress_after {
            super::check_disk_for_both(game, &self.output, &self.estimate)?;
        }
        self.needs.check(game, opts, &self.solved_into, self.kernel)
    }

    /// The counter engine's plan: its memory and the table's disk.
    fn counter(
        game: &'g AnyGame,
        out: &Path,
        opts: &BuildOptions,
        estimate: BuildEstimate,
    ) -> Result<BuildPlan<'g>> {
        let compress_after = opts.compress.is_some();
        let solved_into = solved_into(out, compress_after);
        let lock = lock(&solved_into, opts)?;
        let what = format!(
            "solving {} ({} positions) with the {} engine",
            game.spec(),
            game.size(),
            Engine::Counter.name()
        );
        let needs = Needs {
            what,
            memory: estimate.memory_bytes,
            disk: estimate.file_bytes,
            compressed_copy: compress_after.then(|| super::both_on_disk(game, &estimate)),
        };
        Ok(BuildPlan {
            engine: Engine::Counter,
            kernel: Kernel::Counter,
            solved_into,
            compress_after,
            estimate,
            tiered: None,
            run: Run::Counter,
            needs,
            output: out.to_path_buf(),
            lock,
        })
    }

    /// The tiered engine's plan: the run below the checkpoint beside the file it solves into,
    /// with the kernel that fits where the options name none.
    fn tiered(
        game: &'g AnyGame,
        out: &Path,
        opts: &BuildOptions,
        estimate: BuildEstimate,
    ) -> Result<BuildPlan<'g>> {
        if let Some(why) = solve::tiered_unsupported(game) {
            return Err(Error::Spec {
                spec: game.spec(),
                msg: format!("the tiered engine cannot solve this game: {why}"),
            });
        }
        // The out-of-core kernel writes the table compressed itself, into the output (where
        // its work files are); the others solve into the raw table beside it when compressing.
        // The plan beside the raw table is read first: only where it takes the out-of-core
        // kernel is the one beside the output read instead.
        let compress = opts.compress.is_some();
        let frames = |k: &Option<TieredKernel<'_>>| {
            k.as_ref().map(TieredKernel::kernel) == Some(Kernel::SlicedFrames)
        };
        let mut solved_into = solved_into(out, compress);
        let mut lock = lock(&solved_into, opts)?;
        let (mut plan, mut chosen) = plan_with_kernel(game, &solved_into, opts);
        if compress && frames(&chosen) {
            drop(lock);
            solved_into = out.to_path_buf();
            lock = self::lock(&solved_into, opts)?;
            (plan, chosen) = plan_with_kernel(game, &solved_into, opts);
        }
        let compress_after = compress && !frames(&chosen);
        if let Some(k) = opts.kernel {
            forced_kernel_applies(game, k, &solved_into, opts, &plan)?;
        }
        if let Some(why) = &plan.refused {
            // Resuming would mix cells of another game, input or option into this table;
            // starting over silently would throw away the other build's work.
            return Err(BuildError::OtherBuild {
                checkpoint: checkpoint::path(&solved_into).display().to_string(),
                why: why.to_string(),
            }
            .into());
        }
        let kernel = chosen.ok_or_else(|| Error::Spec {
            spec: game.spec(),
            msg: "the tiered engine cannot solve this game".into(),
        })?;
        let (lowest, done_from) = (plan.lowest, plan.done_from);
        let needs = Needs {
            what: format!(
                "solving tiers {lowest}..{done_from} of {} with the tiered engine ({} kernel)",
                game.spec(),
                kernel.kernel()
            ),
            memory: plan.memory_bytes,
            disk: plan.disk_bytes,
            compressed_copy: compress_after.then(|| super::both_on_disk(game, &estimate)),
        };
        Ok(BuildPlan {
            engine: Engine::Tiered,
            kernel: kernel.kernel(),
            solved_into,
            compress_after,
            estimate,
            tiered: Some(plan),
            run: Run::Tiered(kernel),
            needs,
            output: out.to_path_buf(),
            lock,
        })
    }
}

/// Positions of a game from outside whose contract a build checks before it solves.
const CONTRACT_SAMPLE: u64 = 4096;

/// Refuses a game from outside that breaks the contract on a sample of its positions (spread
/// over the index, the same every time): children and parents disagree, a move leaves the
/// positions, or a move does not go to a higher tier. A wrong `for_each_parent` would otherwise
/// give a wrong table that only `verify` finds. The built-in families are checked whole by
/// their tests.
fn check_contract(game: &AnyGame) -> Result<()> {
    use crate::game::{Game, Tiered};
    let Some(g) = game.external() else {
        return Ok(());
    };
    let size = g.size();
    let n = size.min(CONTRACT_SAMPLE);
    let sample = (0..n).map(|i| {
        let (from, to) = (i * size / n, (i + 1) * size / n);
        from + crate::base::splitmix::hash(i) % (to - from).max(1)
    });
    let broken = |why: String| Error::Spec {
        spec: game.spec(),
        msg: format!(
            "the game breaks the contract of retrodb's games (docs/ARCHITECTURE.md), so its \
             table would be wrong; the first position of the sample that does: {why}"
        ),
    };
    crate::game::check_round_trip(g, sample.clone()).map_err(|e| broken(e.to_string()))?;
    if !g.is_tiered() {
        return Ok(());
    }
    for pos in sample {
        let Some(t) = g.tier_of(pos) else { continue };
        let mut wrong = None;
        g.for_each_child(pos, |c| {
            if wrong.is_none() && g.tier_of(c).is_some_and(|u| u <= t) {
                wrong = Some(c);
            }
        });
        if let Some(c) = wrong {
            return Err(broken(format!(
                "position {pos} ({}) in tier {t} moves to {c} ({}) in tier {}, not a higher one",
                crate::game::Notation::position_text(g, pos),
                crate::game::Notation::position_text(g, c),
                g.tier_of(c).unwrap_or(0)
            )));
        }
    }
    Ok(())
}

/// The output itself, or the raw table beside it when the build compresses afterwards.
fn solved_into(out: &Path, compress_after: bool) -> PathBuf {
    if compress_after {
        raw_sibling(out)
    } else {
        out.to_path_buf()
    }
}

/// The lock of the file a build solves into, once that is a file the build may write.
fn lock(solved_into: &Path, opts: &BuildOptions) -> Result<OutputLock> {
    crate::table::check_output(solved_into, &[])?;
    OutputLock::acquire(solved_into, opts.progress())
}

/// Refuses the kernel a build names (`--kernel`) where it does not apply to the run `plan`
/// makes: one that solves from scratch only, for a run that resumes a checkpoint.
fn forced_kernel_applies(
    game: &AnyGame,
    kernel: Kernel,
    out: &Path,
    opts: &BuildOptions,
    plan: &TieredPlan,
) -> Result<()> {
    let fresh = plan.resumed.is_none();
    solve::plan::check_kernel(game, kernel, opts.remoteness, fresh).map_err(|e| match e {
        Error::Spec { spec, msg } if !fresh => Error::Spec {
            spec,
            msg: format!(
                "{msg} (this build resumes below tier {} of the checkpoint {}; --restart \
                 starts over)",
                plan.done_from,
                checkpoint::path(out).display()
            ),
        },
        e => e,
    })
}

/// What a run needs: its peak memory, the disk its work files still need and, for a table
/// compressed afterwards, the raw table and the compressed copy together.
struct Needs {
    /// What the run is, for the refusal.
    what: String,
    memory: u64,
    disk: u64,
    compressed_copy: Option<u64>,
}

impl Needs {
    /// Refuses a run whose memory does not fit the limit or whose disk is not free beside
    /// `out`, saying `what` it is (and, for the kernel the options name, that kernel and both
    /// figures).
    fn check(&self, game: &AnyGame, opts: &BuildOptions, out: &Path, kernel: Kernel) -> Result<()> {
        let mut what = self.what.clone();
        let mut memory_what = format!("{what} ({} positions)", game.size());
        if opts.kernel.is_some() {
            let disk = self.disk.max(self.compressed_copy.unwrap_or(0));
            what = format!(
                "building {} with --kernel {kernel} (estimated peak memory {}, disk {})",
                game.spec(),
                human_bytes(self.memory),
                human_bytes(disk)
            );
            memory_what = what.clone();
        }
        crate::base::memory::check(memory_what, self.memory, opts.max_memory)?;
        crate::base::memory::check_disk(what, out, self.disk)
    }
}

/// What the tests count of planning on this thread: build plans made, and tiered plans (each
/// a read of the checkpoint beside the output) worked out.
#[cfg(test)]
pub(crate) mod counts {
    use std::cell::Cell;

    thread_local! {
        pub(crate) static BUILD_PLANS: Cell<u64> = const { Cell::new(0) };
        pub(crate) static TIERED_PLANS: Cell<u64> = const { Cell::new(0) };
    }

    /// Counts one in `cell`.
    pub(crate) fn count(cell: &'static std::thread::LocalKey<Cell<u64>>) {
        cell.with(|c| c.set(c.get() + 1));
    }

    /// `[build plans, tiered plans]` so far.
    pub(crate) fn now() -> [u64; 2] {
        [BUILD_PLANS.with(Cell::get), TIERED_PLANS.with(Cell::get)]
    }
}
