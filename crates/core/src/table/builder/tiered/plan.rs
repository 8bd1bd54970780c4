//! The plan of a tiered build: which tiers this run solves, from the checkpoint beside the
//! output, and the memory, disk and time it needs, worked out before anything is written.
//!
//! Invariant: planning only reads (the checkpoint, the work files' sizes); the build acts on
//! the plan.

use std::path::Path;

use serde::Serialize;

use super::super::BuildOptions;
use super::super::checkpoint::{self, Checkpoint, Found, Identity};
use crate::game::Tiered;
use crate::games::AnyGame;
use crate::solve;
use crate::solve::plan::{Kernel, RemStore, TieredKernel};
use crate::table::workfiles::sibling;
use crate::with_tiered_game;

/// What a run of a tiered build will do, worked out before it starts (from the game, the
/// options and the checkpoint beside the output).
#[derive(Clone, Debug, Serialize)]
pub struct TieredPlan {
    pub tiers: u32,
    /// The kernel this run solves with ([`solve::plan::TieredKernel::of`]); `None` for a game the tiered
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

/// Disk a run with `kernel` needs for a game of `size` positions whose run decides
/// `cells_on_disk` bytes of cells: the cells and, with remoteness, the table's remoteness
/// section (the row kernel's nibbles in the work file) or the checkpoints' files (a new one is
/// written before the previous one is deleted). The out-of-core kernel keeps two loss planes
/// and the compressed table, counted at a quarter bit a position (one mover stored at level 3:
/// 0.08 bits a position measured on `bridgit:4,start=L,sym`, 0.17 on `hex:4,sym`).
fn kernel_disk(kernel: &TieredKernel<'_>, size: u64, cells_on_disk: u64, remoteness: bool) -> u64 {
    match kernel {
        TieredKernel::SlicedFrames(b) => {
            solve::kernels::sliced_frames::planes_bytes(b.index).saturating_add(size / 32)
        }
        k if k.remoteness(remoteness) == RemStore::Nibbles => cells_on_disk
            .saturating_add(crate::table::format::RemotenessEncoding::Nibbles.section_len(size)),
        _ if remoteness => cells_on_disk.saturating_add(size.saturating_mul(3)),
        _ => cells_on_disk,
    }
}

/// The plan of a tiered build of `game` into `out` (see [`TieredPlan`]).
pub fn plan_tiered(game: &AnyGame, out: &Path, opts: &BuildOptions) -> TieredPlan {
    plan_with_kernel(game, out, opts).0
}

/// [`plan_tiered`], and the kernel it chose as a value the solve runs
/// ([`solve::tiered::solve_tiers`]): the build chooses it here, once.
pub(crate) fn plan_with_kernel<'g>(
    game: &'g AnyGame,
    out: &Path,
    opts: &BuildOptions,
) -> (TieredPlan, Option<TieredKernel<'g>>) {
    #[cfg(test)]
    super::super::plan::counts::count(&super::super::plan::counts::TIERED_PLANS);
    let size = game.size();
    let tiers = with_tiered_game!(game, g => g.tier_count(), _ => 0);
    let (mut resumed, refused) = match checkpoint::read(out, &Identity::of(game, opts)) {
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
    let shape = solve::plan::Shape::of(game);
    let cells_on_disk = with_tiered_game!(game, g => g.tier_range(lowest), _ => None)
        .map_or(size, |r| size - r.start)
        .div_ceil(4);
    let estimate = |k: &TieredKernel<'g>| -> (u64, u64) {
        with_tiered_game!(game, g => {
            let memory = k.memory(g, solving.clone(), opts.remoteness);
            let memory = memory.saturating_add(solve::PROCESS_BYTES);
            (memory, kernel_disk(k, size, cells_on_disk, opts.remoteness))
        }, _ => (0, 0))
    };
    let free = crate::base::memory::disk_free(crate::base::memory::dir_of(out));
    let fits =
        |(memory, disk): (u64, u64)| memory <= opts.max_memory && free.is_none_or(|f| disk <= f);
    let chosen = with_tiered_game!(game, g => match opts.kernel {
        Some(k) if k.applies(shape, opts.remoteness, fresh) => TieredKernel::with(g, k),
        Some(_) => None,
        None => {
            let fastest = TieredKernel::of(g, opts.remoteness, fresh);
            // Out of core only where the row kernel does not fit and it does.
            let frames = match fastest {
                Some(TieredKernel::SlicedRows(b)) => Some(TieredKernel::SlicedFrames(b)),
                _ => None,
            };
            match (fastest, frames) {
                (Some(k), Some(f)) if !fits(estimate(&k)) && fits(estimate(&f)) => Some(f),
                (k, _) => k,
            }
        }
    }, _ => None);
    let (kernel, memory_bytes, disk_all) = match chosen {
        Some(k) => {
            let (memory, disk) = estimate(&k);
            (Some(k), memory, disk)
        }
        None => (None, 0, cells_on_disk),
    };
    let rem_file = resumed.as_ref().map(|m| checkpoint::rem_path(out, m.tier));
    let work_files = match kernel {
        Some(TieredKernel::SlicedFrames(_)) => {
            let [a, b] = super::frames::plane_paths(out);
            vec![Some(a), Some(b), Some(sibling(out, "partial-z"))]
        }
        _ => vec![Some(sibling(out, "partial")), rem_file],
    };
    let have = work_files
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
    let plan = TieredPlan {
        tiers,
        kernel: kernel.map(|k| k.kernel()),
        resumed,
        refused,
        done_from,
        lowest,
        positions_left,
        memory_bytes,
        disk_bytes: disk_all.saturating_sub(have),
        disk_free: free,
        seconds_left,
    };
    (plan, kernel)
}
