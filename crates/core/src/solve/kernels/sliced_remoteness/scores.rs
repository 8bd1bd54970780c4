//! The score byte the row kernel with remoteness orders a position's children by (the module's
//! docs above say how), and its decoding into a cell, a remoteness and a nibble.

use crate::base::cells::{LOSS, WIN};

/// The score of a position of value `code` and nibble `n`, as its parent sees it, for every
/// `code << 4 | n` (0 for an unused index).
pub(super) const SCORE: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut n = 0;
    while n < 16 {
        // A win's remoteness is `2n - 1` (0 for `n = 0`), a loss's `2n`.
        let win_r = if n == 0 { 0 } else { 2 * n - 1 };
        t[(WIN as usize) << 4 | n] = 1 + win_r as u8;
        t[(LOSS as usize) << 4 | n] = 255 - 2 * n as u8;
        n += 1;
    }
    t
};

/// The score of a position whose best child scores `best` (0: no child, a loss at once).
#[inline(always)]
pub(super) fn score_of(best: u8) -> u8 {
    (if best >= 128 {
        257 - best as u16
    } else {
        255 - best as u16
    }) as u8
}

/// [`decode`] of every score: cell code, nibble, remoteness (score 0, never a position's,
/// reads as a win at once).
pub(super) const DECODE: [(u8, u8, u8); 256] = {
    let mut t = [(0u8, 0u8, 0u8); 256];
    let mut score = 0;
    while score < 256 {
        t[score] = if score >= 128 {
            let r = 255 - score;
            (LOSS, (r / 2) as u8, r as u8)
        } else {
            let r = if score == 0 { 0 } else { score - 1 };
            (WIN, r.div_ceil(2) as u8, r as u8)
        };
        score += 1;
    }
    t
};

/// A score's cell code, remoteness and nibble.
#[inline(always)]
pub(super) fn decode(score: u8) -> (u8, u32, u8) {
    if score >= 128 {
        let r = 255 - score as u32;
        (LOSS, r, (r / 2) as u8)
    } else {
        let r = score as u32 - 1;
        (WIN, r, r.div_ceil(2) as u8)
    }
}
