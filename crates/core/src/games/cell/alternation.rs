//! The tier-major index of a cell game that holds only the configurations reachable by
//! alternation from the empty board (`,start=L` or `,start=R` in the spec).
//!
//! With `first` moving first, after `t` moves the first player has `ceil(t/2)` cells, the other
//! `floor(t/2)`, and the player to move is `first` when `t` is even. Tier `t` is the index range
//! `offset[t]..offset[t+1]`; inside it a configuration is `rank(filled) * C(t, nL) +
//! rank(Left's cells among the filled ones)`, both ranks in the combinatorial number system
//! (colex order). The invariant: `masks` and `index` are exact inverses on `0..size`, and every
//! move goes from tier `t` to tier `t + 1`, so the tiers are contiguous and solved in order.

use super::Player;

#[derive(Clone, Debug)]
pub struct Alternation {
    pub first: Player,
    cells: u32,
    /// `offset[t]`: the first index of tier `t`; `offset[cells + 1]` is the size.
    offset: Vec<u64>,
    binom: Binomials,
}

/// `C(n, k)` for `n, k <= N`, read as `binom[n][k]`.
#[derive(Clone, Debug)]
pub struct Binomials(Vec<Vec<u64>>);

impl Binomials {
    pub fn new(n: u32) -> Binomials {
        let n = n as usize;
        let mut binom = vec![vec![0u64; n + 1]; n + 1];
        for i in 0..=n {
            binom[i][0] = 1;
            for k in 1..=i {
                binom[i][k] = binom[i - 1][k - 1] + if k < i { binom[i - 1][k] } else { 0 };
            }
        }
        Binomials(binom)
    }
}

impl std::ops::Deref for Binomials {
    type Target = [Vec<u64>];

    fn deref(&self) -> &[Vec<u64>] {
        &self.0
    }
}

impl Alternation {
    pub fn new(cells: u32, first: Player) -> Alternation {
        let n = cells as usize;
        let mut a = Alternation {
            first,
            cells,
            offset: vec![0],
            binom: Binomials::new(cells),
        };
        for t in 0..=cells {
            let tier = a.binom[n][t as usize] * a.splits(t);
            a.offset.push(a.offset[t as usize] + tier);
        }
        a
    }

    pub fn size(&self) -> u64 {
        self.offset[self.cells as usize + 1]
    }

    pub fn tier_range(&self, t: u32) -> std::ops::Range<u64> {
        self.offset[t as usize]..self.offset[t as usize + 1]
    }

    /// Left's cells after `t` moves.
    #[inline]
    pub fn lefts(&self, t: u32) -> u32 {
        match self.first {
            Player::Left => t.div_ceil(2),
            Player::Right => t / 2,
        }
    }

    /// The player to move after `t` moves.
    #[inline]
    pub fn mover(&self, t: u32) -> Player {
        if t.is_multiple_of(2) {
            self.first
        } else {
            self.first.other()
        }
    }

    /// The ways to split `t` filled cells into Left's and Right's.
    #[inline]
    fn splits(&self, t: u32) -> u64 {
        self.binom[t as usize][self.lefts(t) as usize]
    }

    /// The tier of an index below `size`.
    #[inline]
    pub fn tier(&self, pos: u64) -> u32 {
        (self.offset.partition_point(|&o| o <= pos) - 1) as u32
    }

    /// Colex rank of a set: the sum of `C(c_j, j + 1)` over its elements `c_0 < c_1 < ...`.
    #[inline]
    fn rank(&self, mut set: u64) -> u64 {
        let mut r = 0;
        let mut j = 1;
        while set != 0 {
            let c = set.trailing_zeros() as usize;
            set &= set - 1;
            r += self.binom[c][j];
            j += 1;
        }
        r
    }

    /// The set of `k` elements of `0..n` with colex rank `rank`.
    #[inline]
    fn unrank(&self, k: u32, mut rank: u64, n: u32) -> u64 {
        let mut set = 0u64;
        let mut c = n as usize;
        for i in (1..=k as usize).rev() {
            c -= 1;
            while self.binom[c][i] > rank {
                c -= 1;
            }
            rank -= self.binom[c][i];
            set |= 1 << c;
        }
        set
    }

    /// The filled cells and Left's share of them (a `lefts(t)`-subset of `0..t`, the positions
    /// among the filled cells) of the configuration ranked `within` in tier `t`.
    #[inline]
    fn unrank_in_tier(&self, t: u32, within: u64) -> (u64, u64) {
        let splits = self.splits(t);
        (
            self.unrank(t, within / splits, self.cells),
            self.unrank(self.lefts(t), within % splits, t),
        )
    }

    /// The configuration after `(filled, lefts)` in tier `t`'s index order: the next `lefts` in
    /// colex order (the next larger number with as many bits), else the first `lefts` of the
    /// next filled set. Past the tier's last configuration the filled set leaves `0..cells`.
    #[inline]
    fn next_in_tier(&self, t: u32, filled: u64, lefts: u64) -> (u64, u64) {
        if let Some(next) = next_subset(lefts).filter(|&n| n >> t == 0) {
            return (filled, next);
        }
        let first = (1u64 << self.lefts(t)) - 1;
        (next_subset(filled).unwrap_or(u64::MAX), first)
    }

    /// Calls `f(pos, left, right)` on the indices `start..end` of tier `t` in order, each
    /// decoded from its predecessor rather than unranked.
    #[inline]
    pub fn walk(&self, t: u32, start: u64, end: u64, mut f: impl FnMut(u64, u64, u64, &Ranks)) {
        if start >= end {
            return;
        }
        let (mut filled, mut lefts) = self.unrank_in_tier(t, start - self.offset[t as usize]);
        let mut ranks = Ranks::new(&self.binom, t, filled);
        for pos in start..end {
            if ranks.filled != filled {
                ranks = Ranks::new(&self.binom, t, filled);
            }
            let l = deposit(lefts, filled);
            f(pos, l, filled & !l, &ranks);
            (filled, lefts) = self.next_in_tier(t, filled, lefts);
        }
    }

    /// The children's indices of the open configuration with Left's cells `l` among `ranks`'
    /// filled set, written to `out` in increasing cell order; returns how many. O(1) a child
    /// after O(filled) work, against O(filled) a child for ranking each one from scratch.
    #[inline]
    pub fn children(&self, ranks: &Ranks, l: u64, out: &mut [u64; 64]) -> usize {
        let t = ranks.t as usize;
        let filled = ranks.filled;
        if ranks.t >= self.cells {
            return 0;
        }
        let left_moves = self.mover(ranks.t) == Player::Left;
        // Left's share as positions among the filled cells, and for each insertion point p
        // (how many filled cells lie below the new one) its rank's terms below and above p.
        let (mut below, mut above) = ([0u64; 41], [0u64; 41]);
        let mut marks = [0u32; 41];
        let lefts = extract(l, filled);
        let left_at = |p: usize| lefts >> p & 1 == 1;
        let mut j = 0usize;
        // below[p]: the terms of Left's positions b < p, unchanged by the insertion.
        for p in 0..t {
            marks[p] = j as u32;
            below[p + 1] = below[p] + if left_at(p) { self.binom[p][j + 1] } else { 0 };
            j += left_at(p) as usize;
        }
        marks[t] = j as u32;
        // above[p]: the terms of Left's positions b >= p once shifted up by one, with one more
        // element below them when the new cell is Left's.
        let shift = left_moves as usize;
        for p in (0..t).rev() {
            above[p] = above[p + 1]
                + if left_at(p) {
                    self.binom[p + 1][marks[p] as usize + 1 + shift]
                } else {
                    0
                };
        }
        let base = self.offset[t + 1];
        let splits = self.splits(ranks.t + 1);
        let mut empty = !filled & ((1u64 << self.cells) - 1);
        let mut n = 0;
        while empty != 0 {
            let e = empty.trailing_zeros() as usize;
            empty &= empty - 1;
            let p = (filled & ((1u64 << e) - 1)).count_ones() as usize;
            let filled_rank = ranks.below[p] + self.binom[e][p + 1] + ranks.above[p];
            let mut lefts_rank = below[p] + above[p];
            if left_moves {
                lefts_rank += self.binom[p][marks[p] as usize + 1];
            }
            out[n] = base + filled_rank * splits + lefts_rank;
            n += 1;
        }
        n
    }

    /// Left's and Right's cells of an index below `size`.
    #[inline]
    pub fn masks(&self, pos: u64) -> (u64, u64) {
        let t = self.tier(pos);
        let within = pos - self.offset[t as usize];
        let splits = self.splits(t);
        let filled = self.unrank(t, within / splits, self.cells);
        let lefts = self.unrank(self.lefts(t), within % splits, t);
        // Left's cells are the filled cells at the positions `lefts` names.
        let l = deposit(lefts, filled);
        (l, filled & !l)
    }

    /// The index of a configuration, or `None` when alternation from the empty board does not
    /// reach its counts.
    #[inline]
    pub fn index(&self, l: u64, r: u64) -> Option<u64> {
        let filled = l | r;
        let t = filled.count_ones();
        if l & r != 0 || t > self.cells || l.count_ones() != self.lefts(t) {
            return None;
        }
        let lefts = extract(l, filled);
        Some(self.offset[t as usize] + self.rank(filled) * self.splits(t) + self.rank(lefts))
    }
}

/// The filled set of a tier-`t` configuration with the terms of its colex rank split at each
/// insertion point: `below[p]` sums `C(c_i, i + 1)` over its `p` smallest cells, `above[p]` sums
/// `C(c_i, i + 2)` over the others (their terms once one more cell lies below them).
pub struct Ranks {
    t: u32,
    filled: u64,
    below: [u64; 41],
    above: [u64; 41],
}

impl Ranks {
    fn new(binom: &Binomials, t: u32, filled: u64) -> Ranks {
        let mut r = Ranks {
            t,
            filled,
            below: [0; 41],
            above: [0; 41],
        };
        if filled == u64::MAX {
            return r;
        }
        let mut cells = [0usize; 40];
        let (mut rest, mut k) = (filled, 0);
        while rest != 0 {
            cells[k] = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            k += 1;
        }
        for (i, &c) in cells[..k].iter().enumerate() {
            r.below[i + 1] = r.below[i] + binom[c][i + 1];
        }
        for i in (0..k).rev() {
            // `C(c, i + 2)` needs `i + 2 <= cells`: an open configuration has an empty cell.
            r.above[i] = r.above[i + 1] + binom[cells[i]].get(i + 2).copied().unwrap_or(0);
        }
        r
    }
}

/// The next larger number with as many one bits (Gosper), `None` past the last 64-bit one or
/// for zero.
#[inline]
fn next_subset(x: u64) -> Option<u64> {
    if x == 0 {
        return None;
    }
    let c = x & x.wrapping_neg();
    let (r, overflow) = x.overflowing_add(c);
    if overflow || r == 0 {
        return None;
    }
    Some((((r ^ x) >> 2) / c) | r)
}

/// Spreads the low bits of `bits` over the one bits of `mask`, lowest first (bit `k` of `bits`
/// goes to the `k`-th one bit of `mask`).
#[inline]
fn deposit(mut bits: u64, mut mask: u64) -> u64 {
    let mut out = 0;
    while mask != 0 && bits != 0 {
        let low = mask & mask.wrapping_neg();
        if bits & 1 == 1 {
            out |= low;
        }
        bits >>= 1;
        mask &= mask - 1;
    }
    out
}

/// Gathers the bits of `bits` at the one bits of `mask` into the low bits, lowest first: the
/// inverse of [`deposit`].
#[inline]
fn extract(bits: u64, mut mask: u64) -> u64 {
    let (mut out, mut k) = (0, 0);
    while mask != 0 {
        let low = mask & mask.wrapping_neg();
        if bits & low != 0 {
            out |= 1 << k;
        }
        k += 1;
        mask &= mask - 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_and_index_are_inverse_and_tiers_are_contiguous() {
        for first in [Player::Left, Player::Right] {
            for cells in 0..=7 {
                let a = Alternation::new(cells, first);
                let mut seen = 0u64;
                for pos in 0..a.size() {
                    let (l, r) = a.masks(pos);
                    let t = (l | r).count_ones();
                    assert_eq!(a.tier(pos), t);
                    assert!(a.tier_range(t).contains(&pos));
                    assert_eq!(l & r, 0);
                    assert!((l | r) >> cells == 0);
                    assert_eq!(a.index(l, r), Some(pos), "{cells} cells, {first:?}: {pos}");
                    seen += 1;
                }
                // Every configuration with the alternation's counts, once.
                let mut expect = 0u64;
                for t in 0..=cells {
                    let lefts = a.lefts(t);
                    expect +=
                        a.binom[cells as usize][t as usize] * a.binom[t as usize][lefts as usize];
                }
                assert_eq!(seen, expect);
            }
        }
    }

    #[test]
    fn walks_and_ranked_children_agree_with_masks_and_index() {
        for first in [Player::Left, Player::Right] {
            for cells in 0..=8 {
                let a = Alternation::new(cells, first);
                for t in 0..=cells {
                    let range = a.tier_range(t);
                    // Walks from every start, so each one begins with an unranked position.
                    for start in range.clone() {
                        let end = (start + 7).min(range.end);
                        let mut next = start;
                        a.walk(t, start, end, |pos, l, r, ranks| {
                            assert_eq!(pos, next);
                            next += 1;
                            assert_eq!(a.masks(pos), (l, r), "{cells} cells: {pos}");
                            let mut kids = [0u64; 64];
                            let n = a.children(ranks, l, &mut kids);
                            let mut want = Vec::new();
                            let mut empty = !(l | r) & ((1u64 << cells) - 1);
                            while empty != 0 {
                                let bit = empty & empty.wrapping_neg();
                                empty &= empty - 1;
                                let (l2, r2) = match a.mover(t) {
                                    Player::Left => (l | bit, r),
                                    Player::Right => (l, r | bit),
                                };
                                want.push(a.index(l2, r2).unwrap());
                            }
                            assert_eq!(&kids[..n], &want[..], "{cells} cells, {first:?}: {pos}");
                        });
                        assert_eq!(next, end);
                    }
                }
            }
        }
        assert_eq!(next_subset(0b0111), Some(0b1011));
        assert_eq!(next_subset(0b1100), Some(0b10001));
        assert_eq!(next_subset(1 << 63), None);
        assert_eq!(deposit(0b101, 0b1101_0100), 0b0100_0100);
        assert_eq!(extract(0b0100_0100, 0b1101_0100), 0b101);
    }

    #[test]
    fn bridgit_4_from_left_has_the_published_count() {
        // 25 cells; the figure for Bridg-It 4 by alternation: 1.62e11 positions.
        let a = Alternation::new(25, Player::Left);
        assert!(
            (1.61e11..1.63e11).contains(&(a.size() as f64)),
            "{}",
            a.size()
        );
    }

    #[test]
    fn wrong_counts_have_no_index() {
        let a = Alternation::new(4, Player::Left);
        assert_eq!(a.index(0, 1), None); // Right moved first
        assert_eq!(a.index(0b11, 0), None);
        assert!(a.index(1, 0).is_some());
        let b = Alternation::new(4, Player::Right);
        assert_eq!(b.index(1, 0), None);
        assert!(b.index(0, 1).is_some());
    }
}
