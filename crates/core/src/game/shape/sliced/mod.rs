//! The sliced index of a board of cells claimed by alternation (what a spec's `,start=L,sym` and
//! `,start=L,sliced` ask for, docs/SLICES.md): positions grouped into *rows* by the contents of a
//! fixed set of *key* cells, one row per key, and with symmetry one row per symmetry class of
//! keys. It is arithmetic over cells and a group of cell permutations only: the game that uses
//! it supplies the cell count, the first player and the group.
//!
//! The cells split into `hw` key cells and `lw` low cells, each set closed under the board's
//! symmetries (a union of their orbits). A key is the key cells' contents, its value `sum(d_i *
//! 3^i)` over the key digits (0 empty, 1 Left's, 2 Right's); a low configuration `v` likewise over
//! the low digits. Alternation from the empty board allows `L - R` (Left's cells minus Right's) of
//! `D0` or `D0 + 1` only (`D0 = 0` when Left moves first, `-1` when Right does), so a key with
//! `delta = L - R` among its cells admits the low configurations of two *classes*, `d = D0 -
//! delta` (A: Left to move) and `d + 1` (B: Right to move). A row is class A's configurations in
//! increasing value, then class B's: each class is a subset of the dense range `0..3^lw` in its
//! own order, so the bit-parallel kernel decides a row over that range and packs each class with
//! one mask; neighbouring values (which share most cells) sit side by side, and Right's
//! positions form one run, both of which the compressor likes.
//!
//! With symmetry, only the row of each key's *canonical* image is kept: the image with the
//! smallest value under the group's permutations (which keep the key cells among themselves). A
//! position is looked up by mapping its key to the canonical one and its low configuration by the
//! same permutation, with no search. A row whose key some symmetry fixes keeps every low
//! configuration, so a few positions are held twice (both have the same value).
//!
//! Without a first player (`first: None`, what `bridgit:N,sym` asks for) the index holds every
//! configuration with either player to move. A move keeps `s = L - R - [Right to move]`, so the
//! positions split into the alternations of every `D0 = s`, and the mover is part of the row: a
//! key has one row per class A difference `d` in `-lw - 1 ..= lw`, `2 * lw + 2` rows side by side
//! (none empty), each laid out as above. Every row keeps the invariants below.
//!
//! Rows are stored by key tier (claimed key cells), the fullest first, so a build writes the
//! file front to back. The invariant: a move into a low cell stays in its row (class A <-> B, one
//! more filled low cell); a move into a key cell goes to a row of the next key tier, at the same
//! low configuration mapped by the permutation that makes the child's key canonical.
//!
//! This file reads the index (a position's row and offset, and back); `layout.rs` lays it out
//! ([`Sliced::new`]).

use super::Player;

mod layout;

/// The sliced index's shape, for a build's plan.
#[derive(Clone, Copy, Debug)]
pub struct SlicedPlan {
    pub key_cells: u32,
    pub low_cells: u32,
    pub rows: u64,
    /// Symmetries besides the identity that rows are shared under (0 for `,sliced`).
    pub symmetries: usize,
    /// The positions of the same game without symmetry (the alternation index's).
    pub without_symmetry: u64,
}

use layout::KeyImage;

/// Left's and Right's cells of a value whose base-3 digits, lowest first, are `cells`' contents
/// (0 empty, 1 Left's, 2 Right's).
fn cells_of(mut value: u64, cells: &[u32]) -> (u64, u64) {
    let (mut l, mut r) = (0u64, 0u64);
    for &c in cells {
        match value % 3 {
            1 => l |= 1 << c,
            2 => r |= 1 << c,
            _ => {}
        }
        value /= 3;
    }
    (l, r)
}

/// The most low cells: rows of at most `2 * 73789` positions (the two largest classes of 12
/// cells) and tables of `3^12` entries, which stay in the last-level cache.
pub const MAX_LOW: u32 = 12;

/// The most key cells: a table of `3^16` row numbers (172 MiB) at most.
pub const MAX_KEY: u32 = 16;

/// A low configuration as a tier walk reads it ([`Sliced::class_run`]): its Left and Right
/// cells (board cells) and its rank in its class.
#[derive(Clone, Copy, Debug)]
pub struct RunEntry {
    pub left: u64,
    pub right: u64,
    pub rank: u32,
}

/// One stored row: a canonical key and where its positions start.
#[derive(Clone, Copy, Debug)]
pub struct Row {
    pub start: u64,
    pub key: u32,
    /// The key's claimed cells.
    pub tier: u32,
    /// Class A's `L - R` among the low cells: the row holds the configurations of `d` (class
    /// A), then those of `d + 1` (class B).
    pub d: i32,
    /// Class A's size: class B's positions start at `start + split`.
    pub split: u32,
    pub len: u32,
}

#[derive(Clone, Debug)]
pub struct Sliced {
    /// The player who moved first: the index holds the positions alternation from the empty
    /// board reaches. `None`: every configuration with either player to move.
    pub first: Option<Player>,
    cells: u32,
    /// Whether only canonical keys have rows.
    pub symmetric: bool,
    /// The cell permutations of the group but the identity (empty without symmetry).
    pub group: Vec<Vec<u32>>,
    /// The cell of each low digit and of each key digit.
    pub low_cells: Vec<u32>,
    pub key_cells: Vec<u32>,
    /// `3^i`, up to the larger digit count.
    pub pow3: Vec<u64>,
    /// For each group element (the identity first): key digit `i` goes to key digit
    /// `key_perm[g][i]`.
    pub key_perm: Vec<Vec<u32>>,
    /// The image of a key under group element `g` (but the identity) is
    /// `key_image[g - 1].0[key % key_split] + key_image[g - 1].1[key / key_split]`: the images of
    /// its low and high key digits, tabulated, so [`Sliced::canonical`] divides once.
    key_image: Vec<KeyImage>,
    key_split: u64,
    /// For each group element but the identity (`low_perm[g - 1]`): the image of each low
    /// configuration.
    pub low_perm: Vec<Vec<u32>>,
    /// Each low configuration's Left and Right cells (board cells).
    pub low_masks: Vec<(u64, u64)>,
    /// Each low configuration's `L - R` among the low cells.
    pub delta: Vec<i8>,
    /// `class_list[d + lw]`: the low configurations whose `L - R` is `d`, increasing.
    pub class_list: Vec<Vec<u32>>,
    /// `class_filled[d + lw][c]`: how many of them have `c` filled low cells.
    pub class_filled: Vec<Vec<u64>>,
    /// `class_runs[d + lw]`: the class again, by filled low cells then value, each with its
    /// cells and rank, so that the configurations with `c` filled are one run read front to
    /// back ([`Sliced::class_run`]); made on first use (a tier walk's), not by a build.
    class_runs: std::sync::OnceLock<Vec<Vec<RunEntry>>>,
    /// Each low configuration's rank in its class: the configurations of its class below it.
    pub rank: Vec<u32>,
    pub rows: Vec<Row>,
    /// The (first) row of each canonical key, `u32::MAX` for other keys and keys without
    /// positions ([`Sliced::row_for`]).
    pub row_of_key: Vec<u32>,
    /// `tier_rows[k]`: the rows of key tier `k`.
    pub tier_rows: Vec<std::ops::Range<usize>>,
    /// Positions with `t` filled cells.
    pub tier_sizes: Vec<u64>,
    size: u64,
}

/// A board the sliced index does not hold: its `key_cells` key cells are more than
/// [`MAX_KEY`] digits.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{cells} cells leave {key_cells} key cells, more than the sliced index holds ({max_key}, so at most {max_cells} cells)"
)]
pub struct TooManyKeys {
    pub cells: u32,
    pub key_cells: u32,
    pub max_key: u32,
    pub max_cells: u32,
}

impl Sliced {
    pub fn size(&self) -> u64 {
        self.size
    }

    pub fn low_digits(&self) -> u32 {
        self.low_cells.len() as u32
    }

    pub fn key_digits(&self) -> u32 {
        self.key_cells.len() as u32
    }

    /// `L - R` of the positions where Left is to move (class A), given a first player.
    fn d0(first: Player) -> i32 {
        match first {
            Player::Left => 0,
            Player::Right => -1,
        }
    }

    /// Class A's differences (`L - R` among the low cells) of the rows of a key with Left's
    /// cells `kl` and Right's `kr`: one given a first player, else every one a row may have.
    pub fn row_classes(&self, kl: u64, kr: u64) -> std::ops::RangeInclusive<i32> {
        let lw = self.low_digits() as i32;
        match self.first {
            Some(first) => {
                let d = Self::d0(first) - (kl.count_ones() as i32 - kr.count_ones() as i32);
                d..=d
            }
            None => -lw - 1..=lw,
        }
    }

    /// The row of canonical key `key` whose class A difference is `d`, if the index has one.
    #[inline]
    pub fn row_for(&self, key: u64, d: i32) -> Option<&Row> {
        let first = *self.row_of_key.get(key as usize)?;
        if first == u32::MAX {
            return None;
        }
        let at = match self.first {
            Some(_) => first as usize,
            None => first as usize + usize::try_from(d + self.low_digits() as i32 + 1).ok()?,
        };
        self.rows
            .get(at)
            .filter(|row| row.key as u64 == key && row.d == d)
    }

    /// The low configurations whose difference is `d`, increasing (empty past the low cells).
    pub fn class_of(&self, d: i32) -> &[u32] {
        let lw = self.low_digits() as i32;
        if d.abs() <= lw {
            &self.class_list[(d + lw) as usize]
        } else {
            &[]
        }
    }

    /// The low configurations whose difference is `d` with `c` filled low cells, in
    /// increasing value, each with its cells and rank (empty when there are none).
    pub fn class_run(&self, d: i32, c: u32) -> &[RunEntry] {
        let lw = self.low_digits() as i32;
        if d.abs() > lw || c > lw as u32 {
            return &[];
        }
        let counts = &self.class_filled[(d + lw) as usize];
        let start: u64 = counts[..c as usize].iter().sum();
        let runs = self.class_runs.get_or_init(|| {
            // By filled count, a stable sort: each count's run stays in increasing value. The
            // cells and rank beside each configuration: a walk that looked them up in
            // `low_masks` and `rank` (10 MiB at 12 low cells) waited on a miss a position.
            self.class_list
                .iter()
                .map(|list| {
                    let mut list = list.clone();
                    list.sort_by_key(|&v| {
                        let (l, r) = self.low_masks[v as usize];
                        (l | r).count_ones()
                    });
                    list.iter()
                        .map(|&v| {
                            let (left, right) = self.low_masks[v as usize];
                            RunEntry {
                                left,
                                right,
                                rank: self.rank[v as usize],
                            }
                        })
                        .collect()
                })
                .collect()
        });
        &runs[(d + lw) as usize][start as usize..(start + counts[c as usize]) as usize]
    }

    /// The number of low configurations whose difference is `d`.
    pub fn class_len(&self, d: i32) -> u32 {
        self.class_of(d).len() as u32
    }

    /// `counts[c]`: the low configurations whose difference is `d` with `c` filled low cells
    /// (`None` past the low cells).
    fn class_counts(&self, d: i32) -> Option<&[u64]> {
        let lw = self.low_digits() as i32;
        (d.abs() <= lw).then(|| &self.class_filled[(d + lw) as usize][..])
    }

    /// A key's Left and Right cells.
    pub fn key_masks(&self, key: u32) -> (u64, u64) {
        cells_of(key as u64, &self.key_cells)
    }

    /// The canonical image of a key and the group element that maps the key to it (0 for the
    /// identity; the first such element on ties).
    #[inline]
    pub fn canonical(&self, key: u64) -> (u64, usize) {
        let mut best = (key, 0);
        let (lo, hi) = (
            (key % self.key_split) as usize,
            (key / self.key_split) as usize,
        );
        for (g, (lo_image, hi_image)) in self.key_image.iter().enumerate() {
            let image = lo_image[lo] + hi_image[hi];
            if image < best.0 {
                best = (image, g + 1);
            }
        }
        best
    }

    /// The image of low configuration `v` under group element `g`.
    #[inline(always)]
    pub fn low_image(&self, g: usize, v: u32) -> u32 {
        if g == 0 {
            v
        } else {
            self.low_perm[g - 1][v as usize]
        }
    }

    /// The key and low configuration values of a board.
    #[inline]
    fn split(&self, l: u64, r: u64) -> (u64, u32) {
        let digits = |cells: &[u32]| {
            let mut x = 0u64;
            for (i, &c) in cells.iter().enumerate() {
                x += ((l >> c & 1) + 2 * (r >> c & 1)) * self.pow3[i];
            }
            x
        };
        (digits(&self.key_cells), digits(&self.low_cells) as u32)
    }

    /// The player to move where Left has `l` cells and Right `r`, given a first player: the one
    /// with fewer, the first player on a tie; `None` where alternation does not reach the counts
    /// or the index has no first player (the mover is then part of the position).
    pub fn mover_of(&self, l: u64, r: u64) -> Option<Player> {
        let d0 = Self::d0(self.first?);
        match l.count_ones() as i32 - r.count_ones() as i32 - d0 {
            0 => Some(Player::Left),
            1 => Some(Player::Right),
            _ => None,
        }
    }

    /// The index of a board alternation reaches, its mover following from its counts
    /// ([`Sliced::mover_of`]); `None` otherwise, and always without a first player.
    #[inline]
    pub fn index(&self, l: u64, r: u64) -> Option<u64> {
        self.index_as(l, r, self.mover_of(l, r)?)
    }

    /// The index of a board with `mover` to move (the index of its canonical image with
    /// symmetry), or `None` when the index does not hold it (given a first player, a board
    /// alternation does not reach, or the wrong mover).
    #[inline]
    pub fn index_as(&self, l: u64, r: u64, mover: Player) -> Option<u64> {
        if l & r != 0 || (l | r) >> self.cells != 0 {
            return None;
        }
        if self.first.is_some() && self.mover_of(l, r) != Some(mover) {
            return None;
        }
        let (key, v) = self.split(l, r);
        let left = mover == Player::Left;
        // Class A of the row holds the low difference with Left to move, class B one more.
        let d = self.delta[v as usize] as i32 - if left { 0 } else { 1 };
        let (canon, g) = self.canonical(key);
        let row = self.row_for(canon, d)?;
        let offset = if left { 0 } else { row.split as u64 };
        Some(row.start + offset + self.rank[self.low_image(g, v) as usize] as u64)
    }

    /// The player to move at an index below `size`.
    #[inline]
    pub fn mover_at(&self, pos: u64) -> Player {
        let row = self.row_at(pos);
        if self.left_moves_at(row, pos - row.start) {
            Player::Left
        } else {
            Player::Right
        }
    }

    /// The row holding an index below `size`.
    #[inline]
    pub fn row_at(&self, pos: u64) -> &Row {
        // Scans (dump, compress, verify) go through the rows in order: the row found last, or
        // the next one, usually holds `pos`, which spares a binary search over a million rows.
        thread_local! {
            static LAST: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
        }
        let hint = LAST.with(|l| l.get());
        for k in [hint, hint + 1] {
            if let Some(row) = self.rows.get(k)
                && row.start <= pos
                && pos < row.start + row.len as u64
            {
                LAST.with(|l| l.set(k));
                return row;
            }
        }
        let k = self.rows.partition_point(|r| r.start <= pos) - 1;
        LAST.with(|l| l.set(k));
        &self.rows[k]
    }

    /// The board stored at an index below `size`: Left's and Right's cells.
    pub fn masks(&self, pos: u64) -> (u64, u64) {
        let row = self.row_at(pos);
        let (kl, kr) = self.key_masks(row.key);
        let (ll, lr) = self.low_masks[self.low_at(row, pos - row.start) as usize];
        (kl | ll, kr | lr)
    }

    /// The low configuration at `offset` in `row`: class A's configurations come first, then
    /// class B's, each in increasing value.
    #[inline]
    pub fn low_at(&self, row: &Row, offset: u64) -> u32 {
        let split = row.split as u64;
        if offset < split {
            self.class_of(row.d)[offset as usize]
        } else {
            self.class_of(row.d + 1)[(offset - split) as usize]
        }
    }

    /// Whether the position at `offset` in `row` has Left to move (class A).
    #[inline]
    pub fn left_moves_at(&self, row: &Row, offset: u64) -> bool {
        offset < row.split as u64
    }

    /// The boards a stored board stands for: its images under the group, without repeats.
    pub fn images(&self, l: u64, r: u64) -> Vec<(u64, u64)> {
        let mut out = vec![(l, r)];
        if self.symmetric {
            for g in &self.group {
                let image = (permute(l, g), permute(r, g));
                if !out.contains(&image) {
                    out.push(image);
                }
            }
        }
        out
    }
}

/// A cell set moved by a permutation of the cells.
pub fn permute(mut set: u64, perm: &[u32]) -> u64 {
    let mut out = 0;
    while set != 0 {
        let c = set.trailing_zeros();
        set &= set - 1;
        out |= 1 << perm[c as usize];
    }
    out
}

/// Checks the index of a `cells`-cell board under `group` against every configuration and
/// mover, with and without symmetry: every position alternation from `first` reaches (every
/// one, with either mover, without a first player) has an index, and only those; the board
/// stored there is one of its images, with the same index and mover; every index stores a
/// board; symmetry holds fewer positions where the group is not trivial. `what` names the board
/// in failures. For small boards (it enumerates `2 * 3^cells` positions).
#[cfg(test)]
pub(crate) fn check_index(what: &str, cells: u32, first: Option<Player>, group: &[Vec<u32>]) {
    for symmetric in [false, true] {
        let s = Sliced::new(cells, first, group, symmetric).unwrap();
        let mut hit = vec![false; s.size() as usize];
        let mut reachable = 0u64;
        for v in 0..3u64.pow(cells) {
            let (l, r) = super::digit_masks(v, cells);
            let dd = l.count_ones() as i32 - r.count_ones() as i32;
            for mover in [Player::Left, Player::Right] {
                let right = (mover == Player::Right) as i32;
                let ok = match first {
                    Some(Player::Left) => dd == right,
                    Some(Player::Right) => dd == right - 1,
                    None => true,
                };
                let i = s.index_as(l, r, mover);
                assert_eq!(i.is_some(), ok, "{what} {v} {mover:?}");
                let Some(i) = i else { continue };
                if first.is_some() {
                    assert_eq!(s.index(l, r), Some(i), "{what} {v}");
                }
                reachable += 1;
                hit[i as usize] = true;
                assert_eq!(s.mover_at(i), mover, "{what} {v}");
                // The stored board is an image of this one, with the same index.
                let stored = s.masks(i);
                assert!(s.images(l, r).contains(&stored), "{what} {v}");
                assert_eq!(s.index_as(stored.0, stored.1, mover), Some(i));
                // Every image is stored as an image (the same slot, or another slot of a row
                // whose key a symmetry fixes).
                for (il, ir) in s.images(l, r) {
                    let j = s.index_as(il, ir, mover).unwrap();
                    let at = s.masks(j);
                    assert!(s.images(l, r).contains(&at), "{what} {v}: image");
                    if j != i {
                        let (kl, kr) = s.key_masks(s.row_at(i).key);
                        assert_eq!(s.row_at(j).key, s.row_at(i).key);
                        assert!(s.images(kl, kr).len() < group.len() + 1);
                    }
                }
            }
        }
        assert!(hit.iter().all(|&h| h), "{what}: every index stores a board");
        if !symmetric {
            assert_eq!(s.size(), reachable, "{what}");
        } else if !group.is_empty() {
            assert!(s.size() < reachable, "{what}: symmetry saves");
        }
        assert_eq!(s.tier_sizes.iter().sum::<u64>(), s.size());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Boards of no game: a row of cells under its reversal, and a ring under its rotations.
    /// (The cell games check their own boards' groups in their tests.)
    #[test]
    fn every_reachable_board_has_an_index_and_images_share_it() {
        let reversal = |n: u32| vec![(0..n).rev().collect::<Vec<u32>>()];
        let rotations = |n: u32| -> Vec<Vec<u32>> {
            (1..n)
                .map(|k| (0..n).map(|c| (c + k) % n).collect())
                .collect()
        };
        for first in [Some(Player::Left), Some(Player::Right), None] {
            check_index("no symmetry, 5 cells", 5, first, &[]);
            check_index("reversal, 6 cells", 6, first, &reversal(6));
            check_index("reversal, 7 cells", 7, first, &reversal(7));
            check_index("rotations, 6 cells", 6, first, &rotations(6));
        }
    }
}
