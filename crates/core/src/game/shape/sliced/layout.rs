//! Laying out the sliced index ([`Sliced::new`]): the cells split into key and low cells, the
//! low configurations by class, the keys' images under the group, and the rows by key tier.
//!
//! Invariant: the layout is fixed by the cell count, the first player and the group alone, so a
//! table written with it is read back with the same rows.

use rayon::prelude::*;

use super::{MAX_KEY, MAX_LOW, Player, Row, Sliced, TooManyKeys, cells_of};

/// A group element's images of a key's two halves (the low half's values, then the high's).
pub(super) type KeyImage = (Vec<u64>, Vec<u64>);

/// The low configurations by class ([`classes`]): each class's list, each one's rank in its
/// class, and each class's counts by filled cells.
type Classes = (Vec<Vec<u32>>, Vec<u32>, Vec<Vec<u64>>);

/// The images of a key's digits under each group element but the identity (`key_perm[1..]`),
/// in two halves tabulated apart (the low `key_lo` digits, then the rest), and the number of
/// values of the low half.
fn key_images(key_perm: &[Vec<u32>], hw: u32, pow3: &[u64]) -> (Vec<KeyImage>, u64) {
    // The key's digits in two halves, each half's images tabulated per group element.
    let key_lo = hw / 2 + hw % 2;
    let key_split = 3u64.pow(key_lo);
    let image_of = |perm: &[u32], x: u64, from: u32, digits: u32| {
        let (mut out, mut x) = (0u64, x);
        for i in from..from + digits {
            out += (x % 3) * pow3[perm[i as usize] as usize];
            x /= 3;
        }
        out
    };
    let key_image = key_perm
        .iter()
        .skip(1)
        .map(|perm| {
            (
                (0..key_split)
                    .map(|x| image_of(perm, x, 0, key_lo))
                    .collect(),
                (0..3u64.pow(hw - key_lo))
                    .map(|y| image_of(perm, y, key_lo, hw - key_lo))
                    .collect(),
            )
        })
        .collect();
    (key_image, key_split)
}

/// The low configurations of `lw` cells in classes by difference (`diff`, left's cells less
/// right's), each in increasing value; each one's rank in its class; and per class the number
/// with each count of filled cells (`filled`). A row of class A's difference `d` holds the
/// merge of classes `d` and `d + 1`.
fn classes(diff: &[i32], filled: &[u32], lw: u32) -> Classes {
    let n_low = diff.len();
    let mut class_list = vec![Vec::new(); 2 * lw as usize + 1];
    for v in 0..n_low {
        class_list[(diff[v] + lw as i32) as usize].push(v as u32);
    }
    let mut rank = vec![0u32; n_low];
    let mut class_filled = vec![vec![0u64; lw as usize + 1]; 2 * lw as usize + 1];
    for list in &class_list {
        for (i, &v) in list.iter().enumerate() {
            rank[v as usize] = i as u32;
            class_filled[(diff[v as usize] + lw as i32) as usize][filled[v as usize] as usize] += 1;
        }
    }
    (class_list, rank, class_filled)
}

impl Sliced {
    /// The index of a `cells`-cell board whose first player is `first` (`None`: every
    /// configuration with either player to move), under `group` (cell permutations, the
    /// identity not included; empty for no symmetry). Refuses boards whose keys would not fit
    /// [`MAX_KEY`] digits.
    pub fn new(
        cells: u32,
        first: Option<Player>,
        group: &[Vec<u32>],
        symmetric: bool,
    ) -> Result<Sliced, TooManyKeys> {
        let group: Vec<Vec<u32>> = if symmetric {
            group.to_vec()
        } else {
            Vec::new()
        };
        let (low_cells, key_cells) = split_cells(cells, &group);
        let (lw, hw) = (low_cells.len() as u32, key_cells.len() as u32);
        if hw > MAX_KEY {
            return Err(TooManyKeys {
                cells,
                key_cells: hw,
                max_key: MAX_KEY,
                max_cells: MAX_KEY + MAX_LOW,
            });
        }
        let pow3: Vec<u64> = (0..=lw.max(hw)).map(|i| 3u64.pow(i)).collect();
        let digit_of = |cell: u32, set: &[u32]| set.iter().position(|&c| c == cell).unwrap() as u32;
        let mut key_perm = vec![(0..hw).collect::<Vec<u32>>()];
        let mut low_digit_perm = Vec::new();
        for g in &group {
            key_perm.push(
                key_cells
                    .iter()
                    .map(|&c| digit_of(g[c as usize], &key_cells))
                    .collect(),
            );
            low_digit_perm.push(
                low_cells
                    .iter()
                    .map(|&c| digit_of(g[c as usize], &low_cells))
                    .collect::<Vec<u32>>(),
            );
        }
        let n_low = 3usize.pow(lw);
        // The tables over every low configuration, made in parallel (a fifth of the first key
        // tier's build went into them on one thread).
        let low_masks: Vec<(u64, u64)> = (0..n_low as u64)
            .into_par_iter()
            .map(|v| cells_of(v, &low_cells))
            .collect();
        let diff: Vec<i32> = low_masks
            .iter()
            .map(|&(l, r)| l.count_ones() as i32 - r.count_ones() as i32)
            .collect();
        let filled: Vec<u32> = low_masks
            .iter()
            .map(|&(l, r)| (l | r).count_ones())
            .collect();
        let low_perm: Vec<Vec<u32>> = low_digit_perm
            .iter()
            .map(|perm| {
                (0..n_low as u64)
                    .into_par_iter()
                    .map(|v| {
                        let (mut out, mut x) = (0u64, v);
                        for &to in perm {
                            out += (x % 3) * pow3[to as usize];
                            x /= 3;
                        }
                        out as u32
                    })
                    .collect()
            })
            .collect();
        let (class_list, rank, class_filled) = classes(&diff, &filled, lw);
        let delta: Vec<i8> = diff.iter().map(|&d| d as i8).collect();
        let (key_image, key_split) = key_images(&key_perm, hw, &pow3);
        let mut index = Sliced {
            first,
            cells,
            symmetric,
            group: group.clone(),
            low_cells,
            key_cells,
            pow3,
            key_perm,
            key_image,
            key_split,
            low_perm,
            low_masks,
            delta,
            class_list,
            class_filled,
            class_runs: std::sync::OnceLock::new(),
            rank,
            rows: Vec::new(),
            row_of_key: vec![u32::MAX; 3usize.pow(hw)],
            tier_rows: Vec::new(),
            tier_sizes: vec![0; cells as usize + 1],
            size: 0,
        };
        index.lay_out_rows();
        Ok(index)
    }

    /// Lays out the rows: the canonical keys with positions, by tier (fullest first), then
    /// value; each tier's rows, each key's row, and the positions of each tier.
    fn lay_out_rows(&mut self) {
        let index = self;
        let (hw, cells) = (index.key_cells.len() as u32, index.cells);
        let kept: Vec<(u32, u32)> = (0..3u32.pow(hw))
            .into_par_iter()
            .filter_map(|key| {
                let (kl, kr) = index.key_masks(key);
                if index.canonical(key as u64).0 != key as u64 {
                    return None;
                }
                let nonempty = |d: i32| index.class_len(d) + index.class_len(d + 1) > 0;
                index
                    .row_classes(kl, kr)
                    .any(nonempty)
                    .then_some((key, (kl | kr).count_ones()))
            })
            .collect();
        let mut by_tier: Vec<Vec<u32>> = vec![Vec::new(); hw as usize + 1];
        for (key, tier) in kept {
            by_tier[tier as usize].push(key);
        }
        index.tier_rows = vec![0..0; hw as usize + 1];
        let mut start = 0u64;
        let mut tier_sizes = vec![0u64; cells as usize + 1];
        let mut rows = Vec::new();
        for k in (0..=hw).rev() {
            let first_row = rows.len();
            for &key in &by_tier[k as usize] {
                let (kl, kr) = index.key_masks(key);
                for d in index.row_classes(kl, kr) {
                    let split = index.class_len(d);
                    let len = split + index.class_len(d + 1);
                    if len == 0 {
                        // Only given a first player: without one, every row has positions, and
                        // `row_for` counts on a key's rows being all there.
                        continue;
                    }
                    for class in [d, d + 1] {
                        if let Some(counts) = index.class_counts(class) {
                            for (c, &n) in counts.iter().enumerate() {
                                tier_sizes[k as usize + c] += n;
                            }
                        }
                    }
                    let row = Row {
                        start,
                        key,
                        tier: k,
                        d,
                        split,
                        len,
                    };
                    rows.push(row);
                    start += row.len as u64;
                }
            }
            index.tier_rows[k as usize] = first_row..rows.len();
        }
        // Each key's first row (its rows lie side by side).
        for (i, row) in rows.iter().enumerate().rev() {
            index.row_of_key[row.key as usize] = i as u32;
        }
        index.rows = rows;
        index.tier_sizes = tier_sizes;
        index.size = start;
    }
}

/// Splits the cells into low and key cells, each a union of the group's orbits: the low cells
/// as many as fit `min(MAX_LOW, cells / 2)`, whole orbits taken largest first (then by their
/// lowest cell), the rest key cells.
fn split_cells(cells: u32, group: &[Vec<u32>]) -> (Vec<u32>, Vec<u32>) {
    let mut orbit_of = vec![usize::MAX; cells as usize];
    let mut orbits: Vec<Vec<u32>> = Vec::new();
    for c in 0..cells {
        if orbit_of[c as usize] != usize::MAX {
            continue;
        }
        let mut orbit = vec![c];
        let mut i = 0;
        while i < orbit.len() {
            for g in group {
                let to = g[orbit[i] as usize];
                if !orbit.contains(&to) {
                    orbit.push(to);
                }
            }
            i += 1;
        }
        orbit.sort_unstable();
        for &x in &orbit {
            orbit_of[x as usize] = orbits.len();
        }
        orbits.push(orbit);
    }
    let target = MAX_LOW.min(cells / 2) as usize;
    let mut order: Vec<usize> = (0..orbits.len()).collect();
    order.sort_by_key(|&o| (std::cmp::Reverse(orbits[o].len()), orbits[o][0]));
    let mut low = Vec::new();
    for o in order {
        if low.len() + orbits[o].len() <= target {
            low.extend_from_slice(&orbits[o]);
        }
    }
    low.sort_unstable();
    let key = (0..cells).filter(|c| !low.contains(c)).collect();
    (low, key)
}
