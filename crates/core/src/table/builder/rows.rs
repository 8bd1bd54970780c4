//! A table of a sliced board with remoteness in nibbles that leaves one mover out, restored by
//! rows instead of a position at a time: `decompress` writes the raw table so
//! ([`restore_rows`]), `research tiers` counts its positions so ([`Table::count_by_rows`]).
//!
//! Both go key tier by key tier, fullest first, as a solve goes: the tier's stored frames are
//! decoded and their bytes put in place as they are (each frame once), then the row kernel
//! decides each row's left-out class from its stored class and from the stored class of the
//! tier above (`crate::solve::kernels::sliced_remoteness`). Two key tiers are resident at a
//! time; no position is looked up alone.

use std::sync::atomic::AtomicU64;

use crate::base::cells::{self, Cells};
use crate::base::error::Result;
use crate::base::error::table::TableErrorKind;
use crate::base::progress::Progress;
use crate::game::shape::SlicedBoard;
use crate::game::{Tiered, Value};
use crate::solve::finished::AnonBytes;
use crate::solve::kernels::sliced_remoteness::{
    Nibbles, count_left_out, count_resident_bytes, nibble_words_for, restore_left_out,
    score_meaning,
};
use crate::table::read::Table;
use crate::table::write::RawWriter;

/// Puts the stored bytes of a range of positions in place: the frames it lies in that were not
/// copied before (a frame shared with a tier done before holds that tier's bytes already).
struct FrameCopier<'t, B> {
    table: &'t Table<B>,
    copied: Vec<bool>,
}

impl<'t, B: AsRef<[u8]> + Sync> FrameCopier<'t, B> {
    fn new(table: &'t Table<B>) -> Self {
        FrameCopier {
            table,
            copied: vec![false; table.frame_count()],
        }
    }

    fn copy(
        &mut self,
        range: std::ops::Range<u64>,
        cells: &[AtomicU64],
        nibbles: &[AtomicU64],
    ) -> crate::Result<()> {
        if range.is_empty() {
            return Ok(());
        }
        let f = self.table.header().frame_positions;
        let from = (range.start / f) as usize;
        let to = ((range.end - 1) / f) as usize + 1;
        let todo: Vec<usize> = (from..to).filter(|&k| !self.copied[k]).collect();
        self.table.copy_stored_frames(cells, nibbles, &todo)?;
        todo.iter().for_each(|&k| self.copied[k] = true);
        Ok(())
    }
}

/// The sliced board of a table [`restore_rows`] and [`Table::count_by_rows`] take: a one-mover
/// table of a sliced board, remoteness in nibbles, no Sprague-Grundy codes.
fn sliced_one_mover<B: AsRef<[u8]> + Sync>(table: &Table<B>) -> bool {
    let h = table.header();
    table.leaves_one_mover_out()
        && h.remoteness_encoding == crate::table::format::RemotenessEncoding::Nibbles
        && h.grundy.is_none()
}

/// Restores the raw table of `input`, a table of a sliced board with remoteness in nibbles
/// that leaves one mover out, into `writer`'s mapped cells and nibbles, a key tier at a time
/// (module docs); the counts are checked against the header's. `false` (nothing written) for a
/// table of another shape.
pub(super) fn restore_rows(
    input: &Table,
    writer: &RawWriter,
    progress: &dyn Progress,
) -> Result<bool> {
    if !sliced_one_mover(input) {
        return Ok(false);
    }
    let h = input.header();
    crate::with_tiered_game!(input.game(), g => {
        let Some(board) = g.board_shape().and_then(|b| b.sliced()) else {
            return Ok(false);
        };
        progress.stage("decompressing and restoring the left-out positions, a key tier at a time", h.size);
        let mut copier = FrameCopier::new(input);
        let mut stored = |range| copier.copy(range, writer.words(), writer.nibble_words());
        let cells = writer.cells(h.size);
        // SAFETY: the nibble words are the writer's shared mapping of its file.
        let nibbles = unsafe { Nibbles::over_file(writer.nibble_words()) };
        restore_left_out(&board, &cells, &nibbles, &mut stored, &|n| progress.advance(n))?;
        let counts = cells.counts();
        if counts != h.counts {
            return Err(input.fail(TableErrorKind::Damaged(format!(
                "its positions restored count {counts:?} (unused, win, loss, draw), its header {:?}",
                h.counts
            ))));
        }
        Ok(true)
    }, _ => Ok(false))
}

/// Every used position of a table, counted by tier, value and remoteness
/// ([`Table::count_by_rows`]).
pub struct CountsByTier {
    /// Entry `t`: the positions of tier `t` by the row kernel's score.
    by_score: Vec<[u64; 256]>,
}

impl CountsByTier {
    /// `(tier, value, remoteness, positions)` for every tier, value and remoteness some
    /// position has.
    pub fn entries(&self) -> impl Iterator<Item = (u32, Value, u32, u64)> + '_ {
        self.by_score.iter().enumerate().flat_map(|(t, scores)| {
            scores.iter().enumerate().filter_map(move |(score, &n)| {
                let (code, r) = score_meaning(score as u8);
                let v = cells::value(code)?;
                (n > 0).then_some((t as u32, v, r, n))
            })
        })
    }
}

impl<B: AsRef<[u8]> + Sync> Table<B> {
    /// Every used position of this table counted by tier (the game's [`Tiered::tier_of`]:
    /// filled cells), value and remoteness, from its rows restored in memory and counted
    /// instead of written (module docs): for a table of a sliced board with remoteness in
    /// nibbles that leaves one mover out; `None` for any other, and where that would take more
    /// memory than [`crate::base::memory::default_limit`] (noted to `progress`). The stored
    /// bytes of two key tiers are resident at a time, in anonymous memory; `progress` is
    /// advanced by the positions counted. The sums are the caller's to check against the
    /// header's counts.
    pub fn count_by_rows(&self, progress: &dyn Progress) -> Result<Option<CountsByTier>> {
        if !sliced_one_mover(self) {
            return Ok(None);
        }
        crate::with_tiered_game!(self.game(), g => self.count_rows_of(g.board_shape().and_then(|b| b.sliced()), progress),
            _ => Ok(None))
    }

    fn count_rows_of(
        &self,
        board: Option<SlicedBoard<'_>>,
        progress: &dyn Progress,
    ) -> Result<Option<CountsByTier>> {
        let Some(board) = board else {
            return Ok(None);
        };
        let need = count_resident_bytes(board.index);
        let limit = crate::base::memory::default_limit();
        if need > limit {
            progress.note(&format!(
                "counting by rows needs {} MiB of memory, {} MiB are available: each left-out position is searched instead (slower)",
                need >> 20,
                limit >> 20
            ));
            return Ok(None);
        }
        let size = self.header().size;
        let anon = |bytes: u64| {
            AnonBytes::new(bytes).map_err(|e| {
                self.fail(TableErrorKind::Other(format!(
                    "memory for the restored rows ({bytes} bytes): {e}"
                )))
            })
        };
        let cell_map = anon(cells::words_for(size) * 8)?;
        let nibble_map = anon(nibble_words_for(size) * 8)?;
        let (cell_words, nibble_words) = (cell_map.words(), nibble_map.words());
        let cells = Cells::new(cell_words, size);
        let nibbles = Nibbles::new(nibble_words);
        let mut copier = FrameCopier::new(self);
        let mut stored = |range| copier.copy(range, cell_words, nibble_words);
        // Bytes of positions no row reads again leave memory (their pages read as zero after).
        let mut discard = |range: std::ops::Range<u64>| {
            cell_map.discard((range.start / 4) as usize..(range.end / 4) as usize);
            nibble_map.discard((range.start / 2) as usize..(range.end / 2) as usize);
        };
        let by_score = count_left_out(&board, &cells, &nibbles, &mut stored, &mut discard, &|n| {
            progress.advance(n)
        })?;
        Ok(Some(CountsByTier { by_score }))
    }
}
