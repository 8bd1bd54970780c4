//! The row kernel's bit work: packing and spreading bits (`pext`/`pdep` where the CPU has
//! them), reading a row's loss bits out of the cells, and the low children of a row's columns
//! folded a word at a time ([`low_children`]).

use super::*;

/// Low digits whose moves reach at least a word on: below this, a move can land in the same
/// word (`2 * 3^3 = 54 < 64`).
pub(super) const NEAR: usize = 4;

/// The bits of `x` at the set bits of `mask`, packed low (BMI2's `pext`).
///
/// `V3` is true only in code compiled for x86-64-v3 and run where the CPU has it (see
/// [`decide_row`](super::decide_row)): then one instruction, else a loop over the mask's bits.
#[inline(always)]
pub(in crate::solve::kernels) fn pext<const V3: bool>(x: u64, mask: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if V3 {
        // SAFETY: `V3` code runs only on a CPU with BMI2 (checked once a solve).
        return unsafe { std::arch::x86_64::_pext_u64(x, mask) };
    }
    {
        let (mut out, mut m, mut k) = (0u64, mask, 0);
        while m != 0 {
            let b = m.trailing_zeros();
            out |= (x >> b & 1) << k;
            k += 1;
            m &= m - 1;
        }
        out
    }
}

/// The low bits of `x` spread to the set bits of `mask` (BMI2's `pdep`).
///
/// `V3` is true only in code compiled for x86-64-v3 and run where the CPU has it (see
/// [`decide_row`](super::decide_row)): then one instruction, else a loop over the mask's bits.
#[inline(always)]
pub(super) fn pdep<const V3: bool>(x: u64, mask: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if V3 {
        // SAFETY: `V3` code runs only on a CPU with BMI2 (checked once a solve).
        return unsafe { std::arch::x86_64::_pdep_u64(x, mask) };
    }
    {
        let (mut out, mut m, mut k) = (0u64, mask, 0);
        while m != 0 {
            let b = m.trailing_zeros();
            out |= (x >> k & 1) << b;
            k += 1;
            m &= m - 1;
        }
        out
    }
}

/// A reader of a bit stream, `n` bits at a time (`1 <= n <= 64`). The stream ends in a zero
/// word past its last bit ([`Packer::finish`], [`loss_bits`]), so a read never needs a test.
pub(super) struct Bits<'a> {
    pub(super) src: &'a [u64],
    pub(super) at: usize,
}

impl Bits<'_> {
    #[inline(always)]
    pub(super) fn take(&mut self, n: u32) -> u64 {
        debug_assert!((1..=64).contains(&n));
        let (q, r) = (self.at / 64, (self.at % 64) as u32);
        let pair = self.src[q] as u128 | (self.src[q + 1] as u128) << 64;
        self.at += n as usize;
        (pair >> r) as u64 & (u64::MAX >> (64 - n))
    }
}

/// A writer of a bit stream.
pub(super) struct Packer<'a> {
    pub(super) out: &'a mut Vec<u64>,
    pub(super) acc: u64,
    pub(super) n: u32,
}

impl Packer<'_> {
    #[inline(always)]
    pub(super) fn put(&mut self, bits: u64, n: u32) {
        if n == 0 {
            return;
        }
        self.acc |= bits << self.n;
        if self.n + n >= 64 {
            self.out.push(self.acc);
            let used = 64 - self.n;
            self.acc = if used == 64 { 0 } else { bits >> used };
            self.n = self.n + n - 64;
        } else {
            self.n += n;
        }
    }

    /// Writes the last bits, then a zero word (for [`Bits`]).
    pub(super) fn finish(self) {
        if self.n > 0 {
            self.out.push(self.acc);
        }
        self.out.push(0);
    }
}

/// The loss bits (bit 1 of each cell) of cells `start..start + len`, packed from bit
/// `start % 32` of `out[0]` on (the cells before `start` in its word come along).
#[inline(always)]
pub(super) fn loss_bits<const V3: bool>(
    cells: &Cells<'_>,
    start: u64,
    len: u64,
    out: &mut Vec<u64>,
) {
    out.clear();
    let words = cells.words();
    let (first, last) = (
        start / CELLS_PER_WORD,
        (start + len).div_ceil(CELLS_PER_WORD),
    );
    let mut p = Packer { out, acc: 0, n: 0 };
    for w in &words[first as usize..last as usize] {
        p.put(
            pext::<V3>(w.load(Ordering::Relaxed), 0xAAAA_AAAA_AAAA_AAAA),
            32,
        );
    }
    p.finish();
}

/// Bit `phase + at[i]` of `src` for each `i`, packed into `out` (cleared first).
#[inline(always)]
pub(super) fn gather(src: &[u64], phase: usize, at: &[u32], out: &mut Vec<u64>) {
    out.clear();
    let bit = |o: u32| {
        let k = phase + o as usize;
        src[k / 64] >> (k % 64) & 1
    };
    let mut chunks = at.chunks_exact(64);
    for chunk in &mut chunks {
        let mut acc = 0u64;
        for (i, &o) in chunk.iter().enumerate() {
            acc |= bit(o) << i;
        }
        out.push(acc);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut acc = 0u64;
        for (i, &o) in rest.iter().enumerate() {
            acc |= bit(o) << i;
        }
        out.push(acc);
    }
    // The zero word [`Bits`] reads past the end.
    out.push(0);
}

/// What the low children's pass reads of a row: its classes' columns, the ends and the key
/// children's wins, each a plane of the row's words.
pub(super) struct Plane<'a> {
    pub(super) class_a: &'a [u64],
    pub(super) class_b: &'a [u64],
    pub(super) left_won: &'a [u64],
    pub(super) right_won: &'a [u64],
    pub(super) wins: &'a [u64],
    pub(super) empty: &'a [u64],
}

/// `3^j` for every low digit, for the low children's constant offsets (a table: a `const fn`
/// called with a loop's `j` would be a loop at run time).
pub(super) const POW3: [usize; MAX_LOW as usize + 1] = {
    let mut p = [1usize; MAX_LOW as usize + 1];
    let mut j = 1;
    while j < p.len() {
        p[j] = 3 * p[j - 1];
        j += 1;
    }
    p
};

/// The bits of columns `64 w + off ..` of a padded plane, for an offset that is no multiple of
/// 64 (`3^j` and `2 * 3^j` never are), so the two words always combine.
#[inline(always)]
pub(super) fn window(src: &[u64], off: usize, w: usize) -> u64 {
    debug_assert!(!off.is_multiple_of(64));
    let (q, r) = (w + off / 64, (off % 64) as u32);
    (src[q] >> r) | (src[q + 1] << (64 - r))
}

/// The row's loss plane from its ends and key children, with `LW` low digits as a constant
/// (so every offset is one): a move into low cell `j` adds `3^j` (Left) or `2 * 3^j` (Right) to
/// the column, so the words are decided from the last down, the far digits reading finished
/// words and the near ones solved in their word by repeating its step until nothing changes
/// (their dependencies run to higher bits only, so the fixed point is the answer, reached in at
/// most `NEAR + 1` steps).
///
/// `V3`: run the copy compiled for x86-64-v3 (only where the CPU has it, as for [`pext`]).
#[inline(always)]
pub(super) fn low_children<const V3: bool, const LW: usize>(
    p: &Plane<'_>,
    loss: &mut [u64],
    words: usize,
) {
    #[cfg(target_arch = "x86_64")]
    if V3 {
        // SAFETY: `V3` code runs only on a CPU with the v3 extensions (checked once a solve).
        return unsafe { low_children_v3::<LW>(p, loss, words) };
    }
    low_children_baseline::<LW>(p, loss, words)
}

/// [`low_children`] compiled for the baseline.
#[inline(never)]
fn low_children_baseline<const LW: usize>(p: &Plane<'_>, loss: &mut [u64], words: usize) {
    low_children_body::<LW>(p, loss, words)
}

/// [`low_children`] compiled for x86-64-v3.
///
/// # Safety
/// The CPU has [`crate::base::cpu::V3_FEATURES`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt,fma")]
#[inline(never)]
unsafe fn low_children_v3<const LW: usize>(p: &Plane<'_>, loss: &mut [u64], words: usize) {
    low_children_body::<LW>(p, loss, words)
}

#[inline(always)]
fn low_children_body<const LW: usize>(p: &Plane<'_>, loss: &mut [u64], words: usize) {
    let near = LW.min(NEAR);
    let word_of = |m: &[u64], w: usize| m.get(w).copied().unwrap_or(0);
    for w in (0..words).rev() {
        let (va, vb) = (word_of(p.class_a, w), word_of(p.class_b, w));
        let (lwon, rwon) = (p.left_won[w], p.right_won[w] & !p.left_won[w]);
        let fixed = (va & !lwon & rwon) | (vb & lwon);
        let (open_a, open_b) = (va & !lwon & !rwon, vb & !lwon & !rwon);
        if open_a | open_b == 0 {
            loss[w] = fixed;
            continue;
        }
        let empty: &[u64; LW] = p.empty[w * LW..w * LW + LW]
            .try_into()
            .expect("LW masks a word");
        let mut a = p.wins[w];
        let mut b = a;
        for j in near..LW {
            a |= window(loss, POW3[j], w) & empty[j];
            b |= window(loss, 2 * POW3[j], w) & empty[j];
        }
        let next = loss[w + 1];
        for j in 0..near {
            let off = POW3[j] as u32;
            a |= (next << (64 - off)) & empty[j];
            b |= (next << (64 - 2 * off)) & empty[j];
        }
        let mut lost = fixed | (open_a & !a) | (open_b & !b);
        for _ in 0..=NEAR + 1 {
            let (mut a2, mut b2) = (a, b);
            for j in 0..near {
                let off = POW3[j] as u32;
                a2 |= (lost >> off) & empty[j];
                b2 |= (lost >> (2 * off)) & empty[j];
            }
            let l2 = fixed | (open_a & !a2) | (open_b & !b2);
            if l2 == lost {
                break;
            }
            lost = l2;
        }
        loss[w] = lost;
    }
}
