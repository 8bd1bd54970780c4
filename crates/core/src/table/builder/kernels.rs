//! The kernels a build may use, as a choice a user sees and makes (`build --plan`, `--kernel`):
//! every kernel that applies to the game and options ([`crate::solve::plan::applicable`]), each
//! with the peak memory and disk the build's own guards would compare with the limit and the
//! free disk beside the output, and the refusal of a chosen kernel that does not fit.
//!
//! Invariant: the figures are the guards' own (the tiered plan's for a kernel of the tiered
//! engine, the estimate's for the counter engine), so a kernel listed as fitting is not refused
//! for its memory or disk.

use std::path::Path;

use serde::Serialize;

use super::{BuildOptions, estimate_for, plan_tiered};
use crate::base::error::{Error, Result};
use crate::games::AnyGame;
use crate::solve::plan::{self, Kernel, Shape};

/// One kernel that applies to a build, its estimates and whether they fit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KernelPlan {
    pub kernel: Kernel,
    /// Peak memory of the build with this kernel, bytes.
    pub memory_bytes: u64,
    /// Disk the build still needs beside the output, bytes.
    pub disk_bytes: u64,
    /// Both fit: the memory the limit (`--max-memory`), the disk the free space beside the
    /// output (where the system says how much is free).
    pub fits: bool,
}

/// Every kernel that applies to a build of `game` into `out` with `opts`, from scratch, in
/// [`Kernel::ALL`]'s order, with its estimates. The engine `opts` names, if any, keeps its
/// kernels only.
pub fn kernel_plans(game: &AnyGame, out: &Path, opts: &BuildOptions) -> Vec<KernelPlan> {
    plan::applicable(Shape::of(game), opts.remoteness, true)
        .into_iter()
        .filter(|k| opts.engine.is_none_or(|e| e == k.engine()))
        .map(|k| kernel_plan(game, out, opts, k))
        .collect()
}

/// The kernel a build of `game` into `out` with `opts` uses: the one `opts` names, else the
/// fastest for the game ([`plan::choose`]) where it fits, the out-of-core one where only that
/// fits (the tiered plan's choice, [`plan_tiered`]).
pub fn default_kernel(game: &AnyGame, out: &Path, opts: &BuildOptions) -> Option<Kernel> {
    let engine = super::engine_of(game, opts);
    match opts.kernel {
        Some(k) => Some(k),
        None if engine == crate::solve::Engine::Tiered => plan_tiered(game, out, opts).kernel,
        None => plan::kernel(game, engine, opts.remoteness, true),
    }
}

/// The estimates of a build with `kernel` from scratch.
fn kernel_plan(game: &AnyGame, out: &Path, opts: &BuildOptions, kernel: Kernel) -> KernelPlan {
    let opts = BuildOptions {
        kernel: Some(kernel),
        engine: None,
        restart: true,
        ..opts.clone()
    };
    let estimate = estimate_for(game, &opts, kernel.engine());
    let (memory_bytes, mut disk_bytes) = match kernel {
        Kernel::Counter => (estimate.memory_bytes, estimate.file_bytes),
        _ => {
            let p = plan_tiered(game, out, &opts);
            (p.memory_bytes, p.disk_bytes)
        }
    };
    if opts.compress.is_some() && kernel != Kernel::SlicedFrames {
        // The compressed copy is written beside the raw table (`check_disk_for_both`); the
        // out-of-core kernel writes none.
        disk_bytes = disk_bytes.max(super::both_on_disk(game, &estimate));
    }
    let free = crate::base::memory::disk_free(crate::base::memory::dir_of(out));
    KernelPlan {
        kernel,
        memory_bytes,
        disk_bytes,
        fits: memory_bytes <= opts.max_memory && free.is_none_or(|f| disk_bytes <= f),
    }
}

/// Refuses the kernel `opts` names where it does not apply to `game` (with the kernels that do)
/// or belongs to another engine than `opts` names.
pub(super) fn check_chosen(game: &AnyGame, opts: &BuildOptions) -> Result<()> {
    let Some(kernel) = opts.kernel else {
        return Ok(());
    };
    if let Some(engine) = opts.engine.filter(|&e| e != kernel.engine()) {
        return Err(Error::Spec {
            spec: game.spec(),
            msg: format!(
                "--kernel {kernel} is a kernel of the {} engine, and --engine asks for the {} \
                 engine; give one of them",
                kernel.engine().name(),
                engine.name()
            ),
        });
    }
    plan::check_kernel(game, kernel, opts.remoteness, true)
}
