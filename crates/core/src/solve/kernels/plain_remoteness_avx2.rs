//! The row step of the plain board's kernel with remoteness (`super::plain_remoteness`) with
//! AVX2: 16 columns of a row at a time, their 32 positions (Left to move, Right to move,
//! interleaved as the engine keeps them) one vector of the engine's bytes.
//!
//! The children of 16 consecutive columns through one cell are 16 consecutive columns of a
//! finished row (a high cell) or of the same row further on (a low cell), so each cell's
//! children are two unaligned loads: Left to move's children (Right to move, one claim more)
//! lie `2 * 3^i + 1` bytes on, Right to move's `4 * 3^i - 1` bytes on, and a blend takes
//! the even lanes from the first and the odd ones from the second. Each child's byte becomes
//! the scalar kernel's key (`super::plain_remoteness::key`: the remoteness plus one when won,
//! 255 minus it when lost), masked to the columns where the cell is empty, and one byte
//! maximum per cell decides every lane.
//!
//! A row is decided from its last vector down, so the low cells' children lie in finished
//! vectors, except those of cells 0, 1 and 2 (3, 7 and 11, and 19 bytes on), which can lie in
//! the vector being decided: its step is repeated on its own result until nothing changes.
//! Those children are a claim of cells 0 to 2 further on, so after `k + 1` steps every column
//! with at most `k` of those claims ahead is final, and four steps reach every column. The
//! columns past the last whole vector (`3^low` is odd) are decided first, one at a time.
//!
//! The row is decided in the task's own buffer, padded with zeros for the loads that run past
//! its end (their lanes are masked), and copied to the engine's bytes whole.

use std::arch::x86_64::*;
use std::sync::OnceLock;

use crate::game::shape::{PlainBoard, digit_masks};

use super::bitplane::{Columns, LOW, RowFacts};
use super::plain_remoteness::{byte_of, key};

/// Lanes of a vector: 16 columns, two positions each.
const COLUMNS: usize = 16;

/// Each low cell's emptiness, a byte mask per lane, for rows of `low` low cells.
pub(super) struct EmptyMasks {
    /// Whole vectors in a row: `3^low / 16`.
    vectors: usize,
    /// `masks[v * low + i]`: lanes of vector `v` whose column has cell `i` empty.
    masks: Vec<[u8; 32]>,
}

impl EmptyMasks {
    fn new(low: u32) -> EmptyMasks {
        let columns = 3usize.pow(low);
        let vectors = columns / COLUMNS;
        let mut masks = vec![[0u8; 32]; vectors * low as usize];
        for v in 0..vectors {
            for k in 0..COLUMNS {
                let (l, r) = digit_masks((COLUMNS * v + k) as u64, low);
                for i in 0..low as usize {
                    if (l | r) >> i & 1 == 0 {
                        masks[v * low as usize + i][2 * k] = 0xFF;
                        masks[v * low as usize + i][2 * k + 1] = 0xFF;
                    }
                }
            }
        }
        EmptyMasks { vectors, masks }
    }

    /// The masks of rows of `low` low cells, made once a process.
    pub(super) fn shared(low: u32) -> &'static EmptyMasks {
        static MASKS: [OnceLock<EmptyMasks>; LOW as usize + 1] =
            [const { OnceLock::new() }; LOW as usize + 1];
        MASKS[low as usize].get_or_init(|| EmptyMasks::new(low))
    }
}

/// What a row's step reads besides its own buffer.
pub(super) struct Row<'a> {
    pub board: &'a PlainBoard<'a>,
    pub cols: &'a Columns,
    pub facts: &'a RowFacts,
    pub masks: &'a EmptyMasks,
    /// The engine's bytes (a byte a position): the finished rows are read, the row's own
    /// bytes written.
    pub rem: *mut u8,
    pub low: u32,
    pub high: u32,
}

// SAFETY: the engine's bytes are shared by a level's tasks as `decide_row` says: each writes
// only its own rows and reads only finished ones.
unsafe impl Send for Row<'_> {}
unsafe impl Sync for Row<'_> {}

/// A task's scratch for [`decide_row`].
pub(super) struct Scratch {
    /// The row's bytes, then zeros past its end.
    buf: Vec<u8>,
    /// Columns where Left (Right) has won, a bit each.
    left_won: Vec<u64>,
    right_won: Vec<u64>,
}

impl Scratch {
    pub fn new(low: u32) -> Scratch {
        let columns = 3usize.pow(low);
        // The farthest load past a column (4 * 3^(low - 1) - 1 bytes, and a vector), and the
        // four vectors past the last whole one.
        let pad = 4 * 3usize.pow(low.saturating_sub(1)) + 4 * 32;
        let words = columns.div_ceil(64);
        Scratch {
            buf: vec![0; 2 * columns + pad],
            left_won: vec![0; words],
            right_won: vec![0; words],
        }
    }
}

/// What a row's step tallies: the largest byte written and the edges of its undecided
/// positions (two a configuration and empty cell).
pub(super) struct Tally {
    pub max_byte: u8,
    pub edges: u64,
}

/// Decides every position of `row` into the engine's bytes and sets its lost positions' bits
/// in `lost` (bit `k` for the row's `k`th position; `lost` zeroed by the caller).
///
/// # Safety
/// The CPU has AVX2; `row.rem` holds the board's `2 * 3^cells` bytes; the caller owns the row
/// for this level (no other thread reads or writes its bytes) and every row of the next level
/// up is finished (written before this call, and not written while it runs).
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt,fma")]
pub(super) unsafe fn decide_row(row: &Row<'_>, r: u64, s: &mut Scratch, lost: &mut [u64]) -> Tally {
    let (board, low, high) = (row.board, row.low, row.high);
    let columns = 3usize.pow(low);
    let base = r as usize * columns;
    let (hl, hr) = digit_masks(r, high);
    let (hl, hr) = (hl << low, hr << low);
    let all = (1u64 << board.cells) - 1;
    row.facts
        .won_columns(board, low, (hl, hr), &mut s.left_won, &mut s.right_won);
    let empty_high = (all >> low) & !((hl | hr) >> low);
    let edges = count_edges(row, s, empty_high);
    let steps = Steps::of(empty_high, low);
    let vectors = row.masks.vectors;
    let mut max_byte = tail_columns(row, base, s, lost, &steps);
    // The whole vectors, from the last down.
    let odd = _mm256_set1_epi16(0xFF00u16 as i16);
    let even = _mm256_set1_epi16(0x00FF);
    let mut top = _mm256_setzero_si256();
    let buf = s.buf.as_mut_ptr();
    // The four vectors after the one being decided: the columns decided one at a time and
    // the padding, at first.
    let first = buf.wrapping_add(2 * COLUMNS * vectors);
    // SAFETY: inside the buffer (its padding covers four vectors past the row).
    let mut ahead =
        unsafe { [0, 1, 2, 3].map(|k| _mm256_loadu_si256(first.add(32 * k) as *const __m256i)) };
    for v in (0..vectors).rev() {
        let at = 2 * COLUMNS * v;
        let word = s.left_won[v / 4] >> (16 * (v % 4)) & 0xFFFF;
        let left_won = expand(word as u16);
        let word = s.right_won[v / 4] >> (16 * (v % 4)) & 0xFFFF;
        let right_won = expand(word as u16);
        let over = _mm256_or_si256(left_won, right_won);
        // The lanes whose player has lost: Left to move where Right has won, Right to move
        // where Left has.
        let over_lost = _mm256_or_si256(
            _mm256_and_si256(right_won, even),
            _mm256_and_si256(left_won, odd),
        );
        let p = row.rem.wrapping_add(2 * base + at);
        let q = buf.wrapping_add(at);
        let masks = &row.masks.masks[v * low as usize..(v + 1) * low as usize];
        let mask = |i: usize| {
            // SAFETY: 32 bytes.
            unsafe { _mm256_loadu_si256(masks[i].as_ptr() as *const __m256i) }
        };
        // SAFETY: `p` and `q` as the helper asks (the caller's promise and the buffer's padding).
        let mut acc = unsafe { finished_children(p, q, v, (&steps, low), masks, odd) };
        let [next, n2, n3, n4] = ahead;
        if low > 3 {
            let k = key_v(_mm256_blendv_epi8(
                shift::<23>(next, n2),
                shift::<11>(n3, n4),
                odd,
            ));
            acc = _mm256_max_epu8(acc, _mm256_and_si256(k, mask(3)));
        }
        if low > 2 {
            let m = _mm256_and_si256(mask(2), odd);
            acc = _mm256_max_epu8(acc, _mm256_and_si256(key_v(shift::<3>(next, n2)), m));
        }
        let (m0, m1, m2) = (
            if low > 0 {
                mask(0)
            } else {
                _mm256_setzero_si256()
            },
            if low > 1 {
                mask(1)
            } else {
                _mm256_setzero_si256()
            },
            if low > 2 {
                _mm256_and_si256(mask(2), even)
            } else {
                _mm256_setzero_si256()
            },
        );
        let mut cur = _mm256_setzero_si256();
        for step in 0..4 {
            let c0 = key_v(shift::<3>(cur, next));
            let c1 = key_v(_mm256_blendv_epi8(
                shift::<7>(cur, next),
                shift::<11>(cur, next),
                odd,
            ));
            let c2 = key_v(shift::<19>(cur, next));
            let mut a = _mm256_max_epu8(acc, _mm256_and_si256(c0, m0));
            a = _mm256_max_epu8(a, _mm256_and_si256(c1, m1));
            a = _mm256_max_epu8(a, _mm256_and_si256(c2, m2));
            let new = decide(a, over, over_lost);
            let same = _mm256_movemask_epi8(_mm256_cmpeq_epi8(new, cur)) == -1;
            cur = new;
            if step > 0 && same {
                break;
            }
        }
        // SAFETY: the vector's 32 bytes, inside the buffer.
        unsafe { _mm256_storeu_si256(q as *mut __m256i, cur) };
        ahead = [cur, next, n2, n3];
        top = _mm256_max_epu8(top, cur);
        let lost_bits = _mm256_movemask_epi8(_mm256_slli_epi16(cur, 7)) as u32 as u64;
        lost[v / 2] |= lost_bits << (32 * (v % 2));
    }
    let mut tops = [0u8; 32];
    // SAFETY: 32 bytes.
    unsafe { _mm256_storeu_si256(tops.as_mut_ptr() as *mut __m256i, top) };
    max_byte = tops.iter().fold(max_byte, |m, &b| m.max(b));
    // SAFETY: the row's bytes, this task's alone (the caller's promise).
    unsafe { std::ptr::copy_nonoverlapping(s.buf.as_ptr(), row.rem.add(2 * base), 2 * columns) };
    Tally {
        max_byte,
        edges: 2 * edges,
    }
}

/// The best key of vector `v`'s children that lie in finished bytes: through its empty high
/// cells (a row of the level above, from `p`: the vector's first byte in the table) and
/// through low cells 4 on (from `q`, the vector's place in the row's buffer, stored at least
/// five vectors ago), each low cell's masked to the lanes where it is empty (`masks`).
///
/// # Safety
/// The CPU has AVX2; the loads from `p` stay inside finished rows of the table and those from
/// `q` inside the buffer (its padding covers the farthest), as [`decide_row`] promises.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn finished_children(
    p: *const u8,
    q: *const u8,
    v: usize,
    (steps, low): (&Steps, u32),
    masks: &[[u8; 32]],
    odd: __m256i,
) -> __m256i {
    let (high_steps, low_steps) = (steps.high(), steps.low(low));
    let mask = |i: usize| {
        // SAFETY: 32 bytes.
        unsafe { _mm256_loadu_si256(masks[i].as_ptr() as *const __m256i) }
    };
    let mut acc = _mm256_setzero_si256();
    for &(l_off, r_off) in high_steps {
        // SAFETY: bytes of finished rows inside the table: a row's children through a
        // high cell are a row of the level above, the same columns, and the loads stay
        // inside it (see the module's documentation); the first vector's Right children
        // are loaded from the child row's start and moved up a byte.
        let (a, b) = unsafe {
            let a = _mm256_loadu_si256(p.add(l_off) as *const __m256i);
            let b = if v == 0 {
                up_one(_mm256_loadu_si256(p.add(r_off + 1) as *const __m256i))
            } else {
                _mm256_loadu_si256(p.add(r_off) as *const __m256i)
            };
            (a, b)
        };
        acc = _mm256_max_epu8(acc, key_v(_mm256_blendv_epi8(a, b, odd)));
    }
    // Low cells whose children lie in finished vectors: those of cells 4 on in the
    // buffer, stored at least five vectors ago; cell 3's and cell 2's Right to move
    // children (35, 55 and 107 bytes on) from the last four vectors, kept in registers
    // (a load across a vector just stored would wait for the store).
    for (i, &(l_off, r_off)) in low_steps.iter().enumerate().skip(4) {
        // SAFETY: inside the buffer (its padding covers the farthest load).
        let (a, b) = unsafe {
            (
                _mm256_loadu_si256(q.add(l_off) as *const __m256i),
                _mm256_loadu_si256(q.add(r_off) as *const __m256i),
            )
        };
        let k = key_v(_mm256_blendv_epi8(a, b, odd));
        acc = _mm256_max_epu8(acc, _mm256_and_si256(k, mask(i)));
    }
    acc
}

/// Edges of the row: two per undecided configuration and empty cell (high cells `empty_high`).
#[inline]
fn count_edges(row: &Row<'_>, s: &Scratch, empty_high: u64) -> u64 {
    let mut edges = 0u64;
    for (w, (&lw, &rw)) in s.left_won.iter().zip(&s.right_won).enumerate() {
        let open = row.facts.valid[w] & !(lw | rw);
        edges += open.count_ones() as u64 * empty_high.count_ones() as u64;
        for i in 0..row.low as usize {
            edges += (open & row.cols.empty_word(i, w)).count_ones() as u64;
        }
    }
    edges
}

/// A row's children as byte offsets from a position's own byte (Left's child, Right's): those
/// through its empty high cells, and through each low cell.
struct Steps {
    high: [(usize, usize); 64],
    n_high: usize,
    low: [(usize, usize); LOW as usize],
}

impl Steps {
    /// The steps of a row whose empty high cells are `empty_high`, with `low` low cells.
    #[inline]
    fn of(empty_high: u64, low: u32) -> Steps {
        let mut steps = Steps {
            high: [(0, 0); 64],
            n_high: 0,
            low: [(0, 0); LOW as usize],
        };
        let mut free = empty_high;
        while free != 0 {
            let i = free.trailing_zeros() + low;
            free &= free - 1;
            let p = 3usize.pow(i);
            steps.high[steps.n_high] = (2 * p + 1, 4 * p - 1);
            steps.n_high += 1;
        }
        for (i, step) in steps.low.iter_mut().enumerate().take(low as usize) {
            let p = 3usize.pow(i as u32);
            *step = (2 * p + 1, 4 * p - 1);
        }
        steps
    }

    fn high(&self) -> &[(usize, usize)] {
        &self.high[..self.n_high]
    }

    fn low(&self, low: u32) -> &[(usize, usize)] {
        &self.low[..low as usize]
    }
}

/// Decides the columns past the row's last whole vector, one at a time, from the last down,
/// into `s.buf` and `lost`; returns their largest byte.
#[inline]
fn tail_columns(
    row: &Row<'_>,
    base: usize,
    s: &mut Scratch,
    lost: &mut [u64],
    steps: &Steps,
) -> u8 {
    let (low, columns) = (row.low, 3usize.pow(row.low));
    let (high_steps, low_steps) = (steps.high(), steps.low(low));
    let mut max_byte = 0u8;
    for col in (COLUMNS * row.masks.vectors..columns).rev() {
        let at = 2 * col;
        let bit = |set: &[u64]| set[col / 64] >> (col % 64) & 1 == 1;
        let (left_byte, right_byte) = if bit(&s.left_won) {
            (2, 3)
        } else if bit(&s.right_won) {
            (3, 2)
        } else {
            let (cl, cr) = digit_masks(col as u64, low);
            let (mut left, mut right) = (0u8, 0u8);
            let mut e = !(cl | cr) & ((1u64 << low) - 1);
            while e != 0 {
                let (l_off, r_off) = low_steps[e.trailing_zeros() as usize];
                e &= e - 1;
                left = left.max(key(s.buf[at + l_off]));
                right = right.max(key(s.buf[at + r_off + 1]));
            }
            for &(l_off, r_off) in high_steps {
                let p = row.rem.wrapping_add(2 * base + at);
                // SAFETY: a finished row's bytes, inside the table (the caller's promise).
                unsafe {
                    left = left.max(key(*p.add(l_off)));
                    right = right.max(key(*p.add(r_off + 1)));
                }
            }
            (byte_of(left), byte_of(right))
        };
        s.buf[at] = left_byte;
        s.buf[at + 1] = right_byte;
        max_byte = max_byte.max(left_byte).max(right_byte);
        lost[at / 64] |= ((left_byte & 1) as u64 | ((right_byte & 1) as u64) << 1) << (at % 64);
    }
    max_byte
}

/// [`key`] of each byte.
#[target_feature(enable = "avx2")]
#[inline]
fn key_v(b: __m256i) -> __m256i {
    let one = _mm256_set1_epi8(1);
    let half = _mm256_and_si256(_mm256_srli_epi16(b, 1), _mm256_set1_epi8(0x7F));
    let lost = _mm256_cmpeq_epi8(_mm256_and_si256(b, one), one);
    _mm256_xor_si256(half, lost)
}

/// [`byte_of`] of each lane's key, and the ends' bytes where the game is over (`over`): 3
/// where the player to move has lost (`over_lost`), else 2.
#[target_feature(enable = "avx2")]
#[inline]
fn decide(key: __m256i, over: __m256i, over_lost: __m256i) -> __m256i {
    let zero = _mm256_setzero_si256();
    let won = _mm256_cmpgt_epi8(zero, key);
    let neg = _mm256_sub_epi8(zero, key);
    let win = _mm256_add_epi8(neg, neg);
    let loss = _mm256_add_epi8(_mm256_add_epi8(key, key), _mm256_set1_epi8(3));
    let b = _mm256_blendv_epi8(loss, win, won);
    let ends = _mm256_sub_epi8(_mm256_set1_epi8(2), over_lost);
    _mm256_blendv_epi8(b, ends, over)
}

/// Sixteen column bits to the byte masks of their 32 lanes (column `k`: lanes `2k`, `2k + 1`).
#[target_feature(enable = "avx2")]
#[inline]
fn expand(bits: u16) -> __m256i {
    let x = _mm256_set1_epi16(bits as i16);
    let pick = _mm256_setr_epi8(
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
        1, 1,
    );
    let sel = _mm256_setr_epi8(
        1, 1, 2, 2, 4, 4, 8, 8, 16, 16, 32, 32, 64, 64, -128, -128, 1, 1, 2, 2, 4, 4, 8, 8, 16, 16,
        32, 32, 64, 64, -128, -128,
    );
    let y = _mm256_shuffle_epi8(x, pick);
    _mm256_cmpeq_epi8(_mm256_and_si256(y, sel), sel)
}

/// The 32 bytes `N..N + 32` of `cur` followed by `next` (`0 < N < 32`).
#[target_feature(enable = "avx2")]
#[inline]
fn shift<const N: i32>(cur: __m256i, next: __m256i) -> __m256i {
    // The middle: `cur`'s high half, then `next`'s low half.
    let mid = _mm256_permute2x128_si256::<0x21>(cur, next);
    match N {
        3 => _mm256_alignr_epi8::<3>(mid, cur),
        7 => _mm256_alignr_epi8::<7>(mid, cur),
        11 => _mm256_alignr_epi8::<11>(mid, cur),
        19 => _mm256_alignr_epi8::<3>(next, mid),
        23 => _mm256_alignr_epi8::<7>(next, mid),
        _ => unreachable!("no step loads {N} bytes on"),
    }
}

/// `x` moved up a byte: byte `k` of the result is byte `k - 1` of `x`, byte 0 is zero.
#[target_feature(enable = "avx2")]
#[inline]
fn up_one(x: __m256i) -> __m256i {
    let low_up = _mm256_permute2x128_si256::<0x08>(x, x);
    _mm256_alignr_epi8::<15>(x, low_up)
}
