//! Checksums of finished tiers' cells, so a resumed build can tell that the cells it continues
//! from are the ones its checkpoint recorded.
//!
//! A tier's digest covers exactly the cells of that tier's positions (never a neighbour tier's
//! cells that share a byte or a word), and is the same whatever the thread count; the digest of
//! several tiers is the wrapping sum of theirs, so a checkpoint adds the tiers finished since the
//! last one to the last one's digest.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;
use xxhash_rust::xxh3::{Xxh3, xxh3_64_with_seed};

use crate::base::cells::Cells;
use crate::game::{TierPosition, TierVisitor, Tiered};

/// Words hashed as one piece of a contiguous tier.
const PIECE_WORDS: u64 = 1 << 14;

/// The digest of tiers `tiers` (see the module docs).
pub fn tiers_digest<G: Tiered>(game: &G, cells: &Cells<'_>, tiers: std::ops::Range<u32>) -> u64 {
    tiers.fold(0u64, |sum, t| sum.wrapping_add(tier_digest(game, cells, t)))
}

/// The digest of tier `t`'s cells.
///
/// In the sliced index a tier's positions are spread over the rows of thirteen key tiers, and
/// tiers complete a key tier at a time (docs/SLICES.md): there, the digest of tier `t` is that
/// of the contiguous cells of the key tier it is the first to complete (`t - low cells`, and key
/// tier 0 for tier `low cells`), and 0 for the tiers that complete with no key tier of their
/// own. A checkpoint's sum over the finished tiers covers the same cells either way.
pub fn tier_digest<G: Tiered>(game: &G, cells: &Cells<'_>, t: u32) -> u64 {
    if let Some(board) = game.board_shape().and_then(|b| b.sliced()) {
        let s = board.index;
        let low = s.low_digits();
        let Some(k) = t.checked_sub(low).filter(|&k| k <= s.key_digits()) else {
            return 0;
        };
        let Some(rows) = s.tier_rows.get(k as usize).filter(|r| !r.is_empty()) else {
            return 0;
        };
        let first = &s.rows[rows.start];
        let last = &s.rows[rows.end - 1];
        return range_digest(cells, first.start..last.start + last.len as u64, t);
    }
    if let Some(range) = game.tier_range(t) {
        return range_digest(cells, range, t);
    }
    let seed = |piece: u64| (u64::from(t) << 40) ^ piece;
    (0..game.tier_units(t))
        .into_par_iter()
        .map(|unit| {
            let mut d = UnitDigest {
                cells: *cells,
                hash: Xxh3::with_seed(seed(unit)),
                buf: Vec::with_capacity(4096),
            };
            game.visit_tier(t, unit, &mut d);
            d.hash.update(&d.buf);
            d.hash.digest()
        })
        .reduce(|| 0, u64::wrapping_add)
}

/// The digest of the cells `range` (of tier `t`), hashed in pieces of [`PIECE_WORDS`] words.
fn range_digest(cells: &Cells<'_>, range: std::ops::Range<u64>, t: u32) -> u64 {
    let range = range.start..range.end.min(cells.len());
    words_digest(cells.words(), 2, range, t, |r| cells.release(r))
}

/// The digest of positions `range` of `words` holding `bits` bits a position (lowest first),
/// whole words as they are and a word shared with a neighbour range position by position.
/// `release` is given each piece's positions once hashed: a checkpoint of a table's work file
/// drops them from resident memory again (they had been released as they were written, and a
/// digest that kept them doubled the row kernel's peak).
fn words_digest(
    words: &[AtomicU64],
    bits: u64,
    range: std::ops::Range<u64>,
    t: u32,
    release: impl Fn(std::ops::Range<u64>) + Sync,
) -> u64 {
    let seed = |piece: u64| (u64::from(t) << 40) ^ piece;
    let per_word = 64 / bits;
    let (start, end) = (range.start, range.end);
    let first = start / per_word;
    let last = end.div_ceil(per_word);
    let get = |i: u64| {
        (words[(i / per_word) as usize].load(Ordering::Relaxed) >> (bits * (i % per_word))
            & ((1 << bits) - 1)) as u8
    };
    (0..(last - first).div_ceil(PIECE_WORDS))
        .into_par_iter()
        .map(|k| {
            let w0 = first + k * PIECE_WORDS;
            let mut bytes = Vec::with_capacity(PIECE_WORDS as usize * 8);
            for w in w0..(w0 + PIECE_WORDS).min(last) {
                let lo = w * per_word;
                let hi = lo + per_word;
                if lo >= start && hi <= end {
                    let word = words[w as usize].load(Ordering::Relaxed);
                    bytes.extend_from_slice(&word.to_le_bytes());
                } else {
                    // A word shared with a neighbour tier: this tier's positions one by one.
                    bytes.extend((lo.max(start)..hi.min(end)).map(get));
                }
            }
            let (lo, hi) = (w0 * per_word, (w0 + PIECE_WORDS).min(last) * per_word);
            release(lo.max(start)..hi.min(end));
            xxh3_64_with_seed(&bytes, seed(w0))
        })
        .reduce(|| 0, u64::wrapping_add)
}

/// The digest of the remoteness nibbles of the tiers `tiers` of a game in the sliced index
/// (the key tiers they complete, as [`tier_digest`] takes their cells); 0 for other games.
pub fn tiers_nibbles_digest<G: Tiered>(
    game: &G,
    nibbles: &crate::solve::kernels::sliced_remoteness::Nibbles<'_>,
    tiers: std::ops::Range<u32>,
) -> u64 {
    let Some(board) = game.board_shape().and_then(|b| b.sliced()) else {
        return 0;
    };
    let s = board.index;
    let low = s.low_digits();
    tiers
        .filter_map(|t| Some((t, t.checked_sub(low).filter(|&k| k <= s.key_digits())?)))
        .map(|(t, k)| {
            let r = crate::solve::kernels::sliced_rows::key_tier_cells(s, k as usize);
            // Seeded apart from the cells' digest of the same tier.
            words_digest(nibbles.words(), 4, r, t | 1 << 23, |r| nibbles.release(r))
        })
        .fold(0u64, u64::wrapping_add)
}

/// Hashes the codes of the positions a tier walk lists, in the order it lists them.
struct UnitDigest<'a> {
    cells: Cells<'a>,
    hash: Xxh3,
    buf: Vec<u8>,
}

impl TierVisitor for UnitDigest<'_> {
    fn visit<I: ExactSizeIterator<Item = u64>>(&mut self, p: TierPosition<I>) {
        self.buf.push(self.cells.get(p.index));
        if self.buf.len() == self.buf.capacity() {
            self.hash.update(&self.buf);
            self.buf.clear();
        }
    }
}
