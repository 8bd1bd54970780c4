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
    /// `binom[n][k]` for `n, k <= cells`.
    binom: Vec<Vec<u64>>,
}

impl Alternation {
    pub fn new(cells: u32, first: Player) -> Alternation {
        let n = cells as usize;
        let mut binom = vec![vec![0u64; n + 1]; n + 1];
        for i in 0..=n {
            binom[i][0] = 1;
            for k in 1..=i {
                binom[i][k] = binom[i - 1][k - 1] + if k < i { binom[i - 1][k] } else { 0 };
            }
        }
        let mut a = Alternation {
            first,
            cells,
            offset: vec![0],
            binom,
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

    /// Left's and Right's cells of an index below `size`.
    #[inline]
    pub fn masks(&self, pos: u64) -> (u64, u64) {
        let t = self.tier(pos);
        let within = pos - self.offset[t as usize];
        let splits = self.splits(t);
        let filled = self.unrank(t, within / splits, self.cells);
        let lefts = self.unrank(self.lefts(t), within % splits, t);
        // Left's cells are the filled cells at the positions `lefts` names.
        let (mut l, mut rest, mut k) = (0u64, filled, 0);
        while rest != 0 {
            let c = rest.trailing_zeros();
            rest &= rest - 1;
            if lefts >> k & 1 == 1 {
                l |= 1 << c;
            }
            k += 1;
        }
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
        let (mut lefts, mut rest, mut k) = (0u64, filled, 0);
        while rest != 0 {
            let c = rest.trailing_zeros();
            rest &= rest - 1;
            if l >> c & 1 == 1 {
                lefts |= 1 << k;
            }
            k += 1;
        }
        Some(self.offset[t as usize] + self.rank(filled) * self.splits(t) + self.rank(lefts))
    }
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
