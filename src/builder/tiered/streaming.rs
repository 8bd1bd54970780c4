//! The plain board's kernel with remoteness in a tiered build, its nibbles written to the table
//! while it solves: a thread of its own packs and writes each nibble block once the solve has
//! made the block's positions final.
//!
//! Invariant: a block is read from the engine's bytes only after the solve reports a tier that
//! leaves every position of it final.

use crate::base::cells::Cells;
use crate::error::{Error, Result};
use crate::game::Tiered;
use crate::games::AnyGame;
use crate::solve::{self, SolveOptions};
use crate::table::write::RawWriter;
use crate::with_tiered_game;

/// The plain board's kernel with remoteness ([`Kernel::PlainRemoteness`]), the table's nibbles
/// written while it solves: a thread of its own packs each block of the nibble section as soon
/// as the solve is done with its positions ([`solve::plainrem::final_tiers`]), hashes it,
/// writes it to `writer` and starts the disk's writes, so that after the solve only the last
/// levels' blocks, the cells and the sync are left. The engine's bytes stay in memory (they
/// are what the kernel reads), so nothing the solve touches is mapped from the file.
pub(super) fn solve_streaming(
    game: &AnyGame,
    writer: &RawWriter,
    cells: &Cells<'_>,
    opts: &SolveOptions,
    after: &mut impl FnMut(solve::tiers::TierDone<'_>) -> Result<bool>,
) -> Result<Option<solve::tiers::Solved>> {
    let shape = with_tiered_game!(game, g => g.board_shape(), _ => None);
    let board = shape
        .and_then(crate::game::shape::BoardShape::plain)
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
