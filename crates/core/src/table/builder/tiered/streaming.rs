//! A tiered build's stream for the plain board's kernel with remoteness
//! ([`solve::kernels::plain_remoteness_streamed`]): each block of positions the solve has made final is packed into the
//! table's nibbles, hashed, written to the work file and sent to the disk, so that after the
//! solve only the last levels' blocks, the cells and the sync are left.

use std::ops::Range;

use crate::base::error::Result;
use crate::solve;
use crate::table::write::RawWriter;

/// The nibble section of a raw table's work file, written a block at a time
/// ([`RawWriter::stream_nibbles`]).
pub(super) struct NibbleStream<'w>(pub &'w RawWriter);

impl solve::kernels::plain_remoteness_streamed::RemotenessStream for NibbleStream<'_> {
    /// A nibble block holds two positions a byte.
    fn block_positions(&self) -> u64 {
        2 * crate::table::format::BLOCK as u64
    }

    /// The file system's journal may carry other programs' data that the commit's sync would
    /// wait for (ext4 writes a file's data before the metadata that names it, other files'
    /// too): a sync now, while the solve works and this file holds almost nothing, takes that
    /// wait off the end.
    fn begin(&self) -> Result<()> {
        self.0.sync_cells()
    }

    fn write_block(&self, k: usize, engine_bytes: &[u8], scratch: &mut Vec<u8>) -> Result<()> {
        let (_, len) = self.0.nibble_block(k);
        scratch.resize(len, 0);
        crate::table::format::nibbles_of_engine(engine_bytes, scratch);
        self.0.write_nibble_block(k, scratch)
    }

    /// The run's cells are final too, but their pages stay with the solve (mapped): starting
    /// their write-back here slowed it (TLB shootdowns), docs/BENCHMARKS.md.
    fn written(&self, blocks: Range<usize>) {
        self.0.start_nibble_writeback(blocks);
    }

    fn solved(&self, positions: Range<u64>) {
        self.0.start_cells_writeback(positions);
    }
}
