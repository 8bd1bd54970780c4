//! The plain board's kernel with remoteness (`super::plain_remoteness`) with its remoteness handed to
//! a stream while it solves (a build's table file): a thread of its own hands each block of
//! positions to the stream once the solve has made them final.
//!
//! Invariant: a block is read from the engine's bytes only after the solve reports a tier that
//! leaves every position of it final (`super::plain_remoteness::final_tiers`).

use std::ops::Range;

use crate::base::cells::Cells;
use crate::game::shape::PlainBoard;
use crate::solve::SolveOptions;
use crate::solve::finished::{AnonBytes, Remoteness, Solved, TierDone};

/// Where the plain board's kernel with remoteness hands its remoteness while it solves, in
/// blocks of consecutive positions; the caller (a build) implements it over its table file,
/// in the table's encoding.
pub trait RemotenessStream: Sync {
    /// Positions a block holds (the last block may hold fewer); even.
    fn block_positions(&self) -> u64;

    /// Called once before the first block, while the solve starts.
    fn begin(&self) -> crate::Result<()>;

    /// Block `k`, final: `engine_bytes` are its positions' remoteness as the engine keeps it
    /// (`2 * (remoteness + 1) + lost`, 0 for none). `scratch` is the caller's to reuse.
    fn write_block(
        &self,
        k: usize,
        engine_bytes: &[u8],
        scratch: &mut Vec<u8>,
    ) -> crate::Result<()>;

    /// Blocks `blocks` (consecutive) are written: they may go to the disk.
    fn written(&self, blocks: Range<usize>);

    /// The solve is over: the cells of `positions` are final and may go to the disk.
    fn solved(&self, positions: Range<u64>);
}

/// The plain board's kernel with remoteness ([`super::plain_remoteness::solve_counted`]), its
/// remoteness handed to `stream` while it solves: a thread of its own hands each block to the
/// stream as soon as the solve is done with its positions, so that after the solve only the
/// last levels' blocks are left. The engine's bytes stay in memory (they are what the kernel
/// reads), so nothing the solve touches is mapped from a file.
pub(crate) fn solve_streaming(
    board: &PlainBoard<'_>,
    stream: &dyn RemotenessStream,
    cells: &Cells<'_>,
    opts: &SolveOptions,
    after: &mut impl FnMut(TierDone<'_>) -> crate::Result<bool>,
) -> crate::Result<Option<Solved>> {
    let size = cells.len();
    let rem = AnonBytes::new(size).map_err(|source| crate::Error::Io {
        path: format!("{size} bytes of anonymous memory for remoteness"),
        source,
    })?;
    // A configuration is two positions (either player to move).
    let finals = super::plain_remoteness::final_tiers(board, stream.block_positions() / 2);
    let (reports, reported) = std::sync::mpsc::channel::<u32>();
    std::thread::scope(|scope| {
        let streamer = scope.spawn(|| {
            let written = stream_blocks(stream, &rem, &finals, reported);
            if written.is_err() {
                // No table can come of this solve: stop it.
                opts.stop.request();
            }
            written
        });
        let solved =
            super::plain_remoteness::solve_counted(board, cells, &rem, opts, &mut |done| {
                // The stream may go on with the blocks this tier leaves final.
                let _ = reports.send(done.tier);
                after(done)
            });
        drop(reports);
        // The solve is over: the rest of the cells go to the disk while the last blocks are
        // written.
        stream.solved(0..size);
        streamer
            .join()
            .expect("the remoteness stream does not panic")?;
        Ok(solved?.map(|stats| Solved {
            stats,
            remoteness: Remoteness::InStore,
        }))
    })
}

/// [`solve_streaming`]'s thread: for each tier the solve reports (highest first), the blocks
/// that tier leaves final (`finals[k]`: the tier that makes block `k` so), in position order,
/// handed to `stream` from the engine's bytes `rem` and sent to the disk a run of consecutive
/// blocks at a time. Once tier 0 is reported, every block is written.
fn stream_blocks(
    stream: &dyn RemotenessStream,
    rem: &AnonBytes,
    finals: &[u32],
    reported: std::sync::mpsc::Receiver<u32>,
) -> crate::Result<()> {
    let positions = rem.len();
    let per_block = stream.block_positions() as usize;
    // The blocks in the order they become final, highest tier first.
    let mut order: Vec<usize> = (0..finals.len()).collect();
    order.sort_by_key(|&k| (std::cmp::Reverse(finals[k]), k));
    let (mut next, mut fresh, mut scratch) = (0, Vec::new(), Vec::new());
    stream.begin()?;
    for tier in reported {
        fresh.clear();
        while next < order.len() && finals[order[next]] >= tier {
            fresh.push(order[next]);
            next += 1;
        }
        fresh.sort_unstable();
        let mut run_start = 0;
        for (i, &k) in fresh.iter().enumerate() {
            let from = (k * per_block).min(positions);
            let to = (from + per_block).min(positions);
            // SAFETY: the solve reported a tier that leaves block `k`'s positions final (their
            // bytes are written no more), and the channel's message orders their writes
            // before this read.
            let bytes = unsafe { rem.final_range(from..to) };
            stream.write_block(k, bytes, &mut scratch)?;
            if i == 0 || fresh[i - 1] + 1 != k {
                run_start = k;
            }
            if fresh.get(i + 1) != Some(&(k + 1)) {
                stream.written(run_start..k + 1);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::base::cells;
    use crate::games::AnyGame;
    use crate::solve::plan::TieredKernel;
    use crate::solve::tiered::{InMemory, TierStores, solve_tiers};

    /// A stream into memory: every block's engine bytes at their place, each block once.
    struct Collect {
        per_block: u64,
        bytes: Mutex<Vec<u8>>,
        blocks: Mutex<Vec<usize>>,
    }

    impl RemotenessStream for Collect {
        fn block_positions(&self) -> u64 {
            self.per_block
        }
        fn begin(&self) -> crate::Result<()> {
            Ok(())
        }
        fn write_block(&self, k: usize, engine: &[u8], _: &mut Vec<u8>) -> crate::Result<()> {
            let at = k * self.per_block as usize;
            self.bytes.lock().unwrap()[at..at + engine.len()].copy_from_slice(engine);
            self.blocks.lock().unwrap().push(k);
            Ok(())
        }
        fn written(&self, _: Range<usize>) {}
        fn solved(&self, _: Range<u64>) {}
    }

    impl TierStores for Collect {
        fn stream(&self) -> Option<&dyn RemotenessStream> {
            Some(self)
        }
    }

    /// The streamed kernel hands the stream every block once, and the bytes it hands are the
    /// in-memory solve's; the cells are the same too.
    #[test]
    fn the_stream_gets_the_in_memory_solves_bytes() {
        let game = AnyGame::open("hex:3", u64::MAX).unwrap();
        crate::with_tiered_game!(&game, g => check(g), _ => panic!("hex has tiers"));
    }

    fn check<G: crate::game::Tiered>(g: &G) {
        let opts = SolveOptions {
            remoteness: true,
            ..Default::default()
        };
        let kernel = TieredKernel::of(g, true, true).unwrap();
        assert!(matches!(kernel, TieredKernel::PlainRemoteness(_)));
        let size = crate::game::Game::size(g);
        let tiers = crate::game::Tiered::tier_count(g);
        let solve = |stores: &dyn TierStores| {
            let words = cells::zeroed_words(cells::words_for(size));
            let c = Cells::new(&words, size);
            let solved = solve_tiers(g, &kernel, &c, tiers, stores, &opts, &mut |_| Ok(true));
            let solved = solved.unwrap().unwrap();
            (
                c.counts(),
                (0..size).map(|i| c.get(i)).collect::<Vec<_>>(),
                solved,
            )
        };
        let (counts, codes, memory) = solve(&InMemory);
        let Remoteness::EngineBytes(want) = memory.remoteness else {
            panic!("in memory, the engine's bytes")
        };
        let stream = Collect {
            per_block: 64,
            bytes: Mutex::new(vec![0; size as usize]),
            blocks: Mutex::new(Vec::new()),
        };
        let (counts_s, codes_s, streamed) = solve(&stream);
        assert!(matches!(streamed.remoteness, Remoteness::InStore));
        assert_eq!((counts, codes), (counts_s, codes_s));
        assert_eq!(&stream.bytes.lock().unwrap()[..], want.bytes());
        let mut blocks = stream.blocks.into_inner().unwrap();
        blocks.sort_unstable();
        assert_eq!(blocks, (0..size.div_ceil(64) as usize).collect::<Vec<_>>());
    }
}
