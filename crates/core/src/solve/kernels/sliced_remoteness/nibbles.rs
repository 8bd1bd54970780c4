//! The remoteness nibbles a row kernel with remoteness reads and writes beside the cells.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

/// Nibbles a 64-bit word holds.
pub const NIBBLES_PER_WORD: u64 = 16;

/// The remoteness nibbles of a table, over shared atomic words (16 a word, lowest first), as
/// a build's work file maps them ([`crate::solve::tiered::TierStores::nibbles`]).
#[derive(Clone, Copy)]
pub struct Nibbles<'a> {
    words: &'a [AtomicU64],
    /// The words are a shared mapping of a file: [`Nibbles::release`] may drop their pages.
    file: bool,
}

impl<'a> Nibbles<'a> {
    /// Nibbles over words of memory.
    pub fn new(words: &'a [AtomicU64]) -> Nibbles<'a> {
        Nibbles { words, file: false }
    }

    /// Nibbles over a shared mapping of a file.
    ///
    /// # Safety
    /// `words` must lie in a writable shared mapping of a file (`MAP_SHARED`).
    pub unsafe fn over_file(words: &'a [AtomicU64]) -> Nibbles<'a> {
        Nibbles { words, file: true }
    }

    pub fn words(&self) -> &'a [AtomicU64] {
        self.words
    }

    #[inline]
    pub fn get(&self, i: u64) -> u8 {
        let w = self.words[(i / NIBBLES_PER_WORD) as usize].load(Ordering::Relaxed);
        (w >> (4 * (i % NIBBLES_PER_WORD)) & 15) as u8
    }

    /// Drops the pages wholly inside positions `range` from resident memory (a file's
    /// mapping only), as [`crate::base::cells::Cells::release`] does for cells.
    pub fn release(&self, range: std::ops::Range<u64>) {
        if !self.file || range.is_empty() {
            return;
        }
        let len = self.words.len() as u64 * NIBBLES_PER_WORD;
        let bytes = |i: u64| (i.min(len) / NIBBLES_PER_WORD) as usize * 8;
        let base = self.words.as_ptr() as usize;
        // SAFETY: the range lies inside the words, a shared file mapping (`over_file`).
        unsafe {
            crate::base::cells::release_file_pages(
                base + bytes(range.start),
                base + bytes(range.end),
            )
        }
    }

    /// Makes the nibbles from position `from` on zero.
    pub fn clear_from(&self, from: u64) {
        let first = from.div_ceil(NIBBLES_PER_WORD) as usize;
        if let Some(w) = self.words.get(from as usize / NIBBLES_PER_WORD as usize)
            && !from.is_multiple_of(NIBBLES_PER_WORD)
        {
            w.fetch_and(
                (1u64 << (4 * (from % NIBBLES_PER_WORD))) - 1,
                Ordering::Relaxed,
            );
        }
        self.words[first.min(self.words.len())..]
            .par_iter()
            .for_each(|w| w.store(0, Ordering::Relaxed));
    }
}

/// The nibble words `nibbles` holds for `size` positions.
pub fn nibble_words_for(size: u64) -> u64 {
    size.div_ceil(NIBBLES_PER_WORD)
}
