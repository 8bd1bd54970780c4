//! The tier walk of a cell game: tier `t` holds the configurations with `t` filled cells, and
//! [`Tiered::visit_tier`] reads one work unit of a tier with each configuration decoded and
//! tested for a winner once. Each index has its own walk — the plain index by an odometer over
//! the middle cells and a table of the low ones ([`LowPart`]), the alternation index by colex
//! successors, the sliced index row by row — and all three read a position's children in the
//! game's child order ([`child_order`]).
//!
//! The invariant: a walk visits every position of tier `t` in its unit exactly once, in
//! increasing index order, with the same status and children as [`Game::visit`] gives it.

use super::alternation::Alternation;
use super::index::Index;
use super::{CellGame, Links, Player};
use crate::game::shape::sliced::Sliced;
use crate::game::shape::{BoardShape, PlainBoard, SlicedBoard, digit_masks};
use crate::game::{Game, Status, TierPosition, TierVisitor, Tiered, Value};

/// Boards up to this many cells order their children by pivotal counts over every set of
/// cells (`2^16` floods); larger ones by what a cell touches.
const ORDER_COUNTED_CELLS: u32 = 16;

/// Indices per work unit of a tier in the alternation index.
const ALT_UNIT: u64 = 4096;

/// Cells fixed by one work unit of a tier in the plain index: `3^7 = 2187` units, so every
/// thread gets many.
const TIER_PREFIX_DIGITS: u32 = 7;

/// Cells of the plain index's tier walk taken from a table ([`LowPart`]), grouped by how many of
/// them are filled: `3^8 = 6561` entries of 8 bytes, which stay in the first-level cache's reach.
const LOW_DIGITS: u32 = 8;

/// The lowest [`LOW_DIGITS`] cells of a configuration: their part of the index and each player's
/// cells there.
#[derive(Clone, Copy, Debug)]
struct LowPart {
    value: u32,
    left: u16,
    right: u16,
    /// The filled cells as bits of the child order ([`CellGame::order_bit`]).
    filled_in_order: u64,
}

/// The child order and the plain index's walk tables, built once per game.
#[derive(Debug)]
pub struct TierWalk {
    /// What a move into cell `i` adds to an index in the plain index: `[0][i]` for Left's
    /// (digit 0 -> 1, mover 0 -> 1: `2 * 3^i + 1`, the 1 in the base), `[1][i]` for Right's.
    move_steps: Box<[[u64; 64]; 2]>,
    /// The order in which the tier walk reads a position's children: cells that more often
    /// decide a connection first, so a win is found after fewer reads ([`child_order`]).
    /// `order_bit[i]` is cell `i`'s bit in that order; `move_steps` is indexed by it.
    order_bit: Box<[u64; 64]>,
    /// The cells in that order.
    pub order: Vec<u32>,
    /// The low cells' parts, by number of filled cells then value; `low_start[c]..low_start[c +
    /// 1]` fill `c` cells.
    low: Vec<LowPart>,
    low_start: Vec<u32>,
}

impl TierWalk {
    pub fn new(links: &Links, cells: u32) -> TierWalk {
        let order = child_order(links, cells);
        let mut order_bit = Box::new([0u64; 64]);
        for (k, &i) in order.iter().enumerate() {
            order_bit[i as usize] = 1 << k;
        }
        let (low, low_start) = low_parts(cells.min(LOW_DIGITS), &order_bit);
        let mut move_steps = Box::new([[0u64; 64]; 2]);
        for (k, &i) in order.iter().enumerate() {
            move_steps[0][k] = 2 * 3u64.pow(i);
            move_steps[1][k] = 4 * 3u64.pow(i);
        }
        TierWalk {
            move_steps,
            order_bit,
            order,
            low,
            low_start,
        }
    }
}

/// The children of a position of the plain index, produced as they are read: `base` plus one
/// step per empty cell, in the game's child order (`empty` holds the empty cells as bits of
/// that order, and `steps` is indexed by it).
#[derive(Clone)]
pub struct Steps<'a> {
    empty: u64,
    base: u64,
    steps: &'a [u64; 64],
}

impl Iterator for Steps<'_> {
    type Item = u64;

    #[inline(always)]
    fn next(&mut self) -> Option<u64> {
        if self.empty == 0 {
            return None;
        }
        let e = self.empty.trailing_zeros();
        self.empty &= self.empty - 1;
        Some(self.base + self.steps[(e & 63) as usize])
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.empty.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Steps<'_> {}

impl Tiered for CellGame {
    /// Someone has always connected when the board is full.
    const DRAWS: bool = false;

    /// Tier `t` holds the configurations with `t` filled cells.
    fn tier_count(&self) -> u32 {
        self.cells + 1
    }

    /// Plain index: one unit per value of the top `TIER_PREFIX_DIGITS` cells. Alternation: runs
    /// of `ALT_UNIT` indices of the tier's range. Sliced: one unit per row.
    fn tier_units(&self, t: u32) -> u64 {
        if t > self.cells {
            return 0;
        }
        match &self.index {
            Index::Plain(_) => {
                let low = self.cells.min(LOW_DIGITS);
                3u64.pow((self.cells - low).min(TIER_PREFIX_DIGITS))
            }
            Index::Alternation(a) => {
                let r = a.tier_range(t);
                (r.end - r.start).div_ceil(ALT_UNIT)
            }
            Index::Sliced(s) => s.rows.len() as u64,
        }
    }

    /// Each configuration is decoded and tested for a winner once, for both players to move
    /// where the index has both, with its cells carried along the walk instead of decoded from
    /// the index.
    #[inline(always)]
    fn visit_tier(&self, t: u32, unit: u64, v: &mut impl TierVisitor) {
        match &self.index {
            Index::Plain(_) => self.plain_tier_walk(t, unit, v),
            Index::Alternation(a) => self.alternation_tier_walk(a, t, unit, v),
            Index::Sliced(s) => self.sliced_tier_walk(s, t, unit, v),
        }
    }

    /// The filled cells.
    fn tier_of(&self, pos: u64) -> Option<u32> {
        Some(self.tier(pos))
    }

    fn tier_range(&self, t: u32) -> Option<std::ops::Range<u64>> {
        match &self.index {
            Index::Alternation(a) if t <= self.cells => Some(a.tier_range(t)),
            _ => None,
        }
    }

    /// The plain index is a plain board and the sliced index a sliced one: Left wins by
    /// joining, Right by cutting every join (with the join table, which [`Game::prepare`]
    /// builds for up to [`super::MAX_TABULATED_CELLS`] cells; larger boards declare no shape).
    /// The alternation index has no shape the solvers know.
    fn board_shape(&self) -> Option<BoardShape<'_>> {
        let sliced = match &self.index {
            Index::Plain(_) => None,
            Index::Alternation(_) => return None,
            Index::Sliced(index) => Some(&**index),
        };
        self.prepare();
        let joins = self.wins.table()?;
        Some(match sliced {
            None => BoardShape::Plain(PlainBoard {
                cells: self.cells,
                joins,
            }),
            Some(index) => BoardShape::Sliced(SlicedBoard {
                index,
                joins,
                full: self.full,
                order: &self.walk().order,
            }),
        })
    }
}

impl CellGame {
    /// The plain index's tier walk: both players to move at each configuration of the unit.
    #[inline(always)]
    fn plain_tier_walk(&self, t: u32, unit: u64, v: &mut impl TierVisitor) {
        let walk = self.walk();
        let [left, right] = &*walk.move_steps;
        let winner = self.wins.test();
        let all_in_order = in_order(&walk.order_bit, self.full);
        self.plain_configurations(t, unit, |c, l, r, filled| {
            let (pl, pr) = (2 * c, 2 * c + 1);
            let (sl, sr, empty) = match winner(l, r) {
                Some(Player::Left) => (Status::Over(Value::Win), Status::Over(Value::Loss), 0),
                Some(Player::Right) => (Status::Over(Value::Loss), Status::Over(Value::Win), 0),
                None => (Status::Open, Status::Open, all_in_order & !filled),
            };
            // Left claims: digit 0 -> 1, mover 0 -> 1. Right: digit 0 -> 2, mover 1 -> 0.
            v.visit_pair(
                TierPosition {
                    index: pl,
                    status: sl,
                    children: Steps {
                        empty,
                        base: pl + 1,
                        steps: left,
                    },
                },
                TierPosition {
                    index: pr,
                    status: sr,
                    children: Steps {
                        empty,
                        base: pr - 1,
                        steps: right,
                    },
                },
            );
        });
    }

    /// The alternation index's tier walk: each configuration follows from the one before, and
    /// its children are ranked from its own rank's terms.
    #[inline(always)]
    fn alternation_tier_walk(&self, a: &Alternation, t: u32, unit: u64, v: &mut impl TierVisitor) {
        if unit >= self.tier_units(t) {
            return;
        }
        let range = a.tier_range(t);
        let start = range.start + unit * ALT_UNIT;
        let mover = a.mover(t);
        let mut kids = [0u64; 64];
        a.walk(
            t,
            start,
            (start + ALT_UNIT).min(range.end),
            |pos, l, r, ranks| {
                let (status, n) = match self.winner(l, r) {
                    Some(w) if w == mover => (Status::Over(Value::Win), 0),
                    Some(_) => (Status::Over(Value::Loss), 0),
                    None => (Status::Open, a.children(ranks, l, &mut kids)),
                };
                v.visit(TierPosition {
                    index: pos,
                    status,
                    children: kids[..n].iter().copied(),
                });
            },
        );
    }

    /// The tier walk of the plain index: calls `f(c, left, right, filled)` on the configurations
    /// (index without the mover bit; `filled` is their filled cells as bits of the child order)
    /// with `t` filled cells whose top [`TIER_PREFIX_DIGITS`] cells are the digits of `unit`, in
    /// increasing order. The middle cells run as an odometer and the low ones come from the
    /// table of [`LowPart`]s with the right number filled, so each configuration costs one table
    /// read and a few ORs.
    #[inline(always)]
    fn plain_configurations(&self, t: u32, unit: u64, mut f: impl FnMut(u64, u64, u64, u64)) {
        let low = self.cells.min(LOW_DIGITS);
        let top = (self.cells - low).min(TIER_PREFIX_DIGITS);
        let mid = self.cells - low - top;
        if unit >= 3u64.pow(top) {
            return;
        }
        // The unit's cells, as masks at their places.
        let (ul, ur) = digit_masks(unit, top);
        let (ul, ur) = (ul << (low + mid), ur << (low + mid));
        let filled = (ul | ur).count_ones();
        let walk = self.walk();
        let unit_in_order = in_order(&walk.order_bit, ul | ur);
        if filled > t || t - filled > mid + low {
            return;
        }
        let low_size = 3u64.pow(low);
        let mut digits = [0u8; 64];
        let (mut ml, mut mr, mut mfilled, mut mid_in_order) = (0u64, 0u64, 0u32, 0u64);
        let mut high = unit * 3u64.pow(mid);
        let end = high + 3u64.pow(mid);
        loop {
            if let Some(c) = (t - filled).checked_sub(mfilled)
                && c <= low
            {
                let (hl, hr) = (ul | ml, ur | mr);
                let high_in_order = unit_in_order | mid_in_order;
                let base = high * low_size;
                let (from, to) = (walk.low_start[c as usize], walk.low_start[c as usize + 1]);
                for p in &walk.low[from as usize..to as usize] {
                    f(
                        base + p.value as u64,
                        hl | p.left as u64,
                        hr | p.right as u64,
                        high_in_order | p.filled_in_order,
                    );
                }
            }
            high += 1;
            if high == end {
                return;
            }
            // The next middle value: digits 2 roll over to 0 and carry.
            let mut i = 0;
            loop {
                let bit = 1u64 << (low + i);
                match digits[i as usize] {
                    0 => {
                        digits[i as usize] = 1;
                        ml |= bit;
                        mfilled += 1;
                        mid_in_order |= walk.order_bit[(low + i) as usize];
                        break;
                    }
                    1 => {
                        digits[i as usize] = 2;
                        ml &= !bit;
                        mr |= bit;
                        break;
                    }
                    _ => {
                        digits[i as usize] = 0;
                        mr &= !bit;
                        mfilled -= 1;
                        mid_in_order &= !walk.order_bit[(low + i) as usize];
                        i += 1;
                    }
                }
            }
        }
    }

    /// The positions of tier `t` in one row of the sliced index (`unit` is the row), in
    /// increasing index: the row's low configurations with `t - row.tier` filled cells, class A
    /// (Left to move) then class B, each class's run of them read alone ([`Sliced::class_run`];
    /// a row holds positions of up to 13 tiers, and a walk that read the whole row for each
    /// passed over every position 13 times).
    #[inline(always)]
    fn sliced_tier_walk(&self, s: &Sliced, t: u32, unit: u64, v: &mut impl TierVisitor) {
        let Some(row) = s.rows.get(unit as usize) else {
            return;
        };
        let Some(c) = t.checked_sub(row.tier).filter(|&c| c <= s.low_digits()) else {
            return;
        };
        let (kl, kr) = s.key_masks(row.key);
        // A configuration's place in the row: its rank in its class, after class A for B.
        let a = s.class_run(row.d, c).iter().map(|e| (e, 0, Player::Left));
        let b = s
            .class_run(row.d + 1, c)
            .iter()
            .map(|e| (e, row.split, Player::Right));
        for (low, before, mover) in a.chain(b) {
            let offset = before + low.rank;
            let (l, r) = (kl | low.left, kr | low.right);
            let (status, empty) = match self.winner(l, r) {
                Some(w) if w == mover => (Status::Over(Value::Win), 0),
                Some(_) => (Status::Over(Value::Loss), 0),
                None => (Status::Open, self.full & !(l | r)),
            };
            v.visit(TierPosition {
                index: row.start + offset as u64,
                status,
                children: SlicedChildren {
                    index: s,
                    mover,
                    l,
                    r,
                    empty,
                },
            });
        }
    }
}

/// The children of a position of the sliced index, each looked up (its canonical image found)
/// only when it is read, in cell order: a visitor that stops at a won child, or reads none (a
/// count by tier), does not pay for the rest.
#[derive(Clone)]
pub struct SlicedChildren<'a> {
    index: &'a Sliced,
    mover: Player,
    l: u64,
    r: u64,
    /// The empty cells not read yet.
    empty: u64,
}

impl Iterator for SlicedChildren<'_> {
    type Item = u64;

    #[inline]
    fn next(&mut self) -> Option<u64> {
        if self.empty == 0 {
            return None;
        }
        let cell = self.empty.trailing_zeros();
        self.empty &= self.empty - 1;
        let (l, r) = self.mover.claim(self.l, self.r, cell);
        Some(
            self.index
                .index_as(l, r, self.mover.other())
                .expect("a move leads to a position of the index"),
        )
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.empty.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for SlicedChildren<'_> {}

/// The cells of `set` as bits of the child order.
#[inline]
fn in_order(order_bit: &[u64; 64], mut set: u64) -> u64 {
    let mut out = 0;
    while set != 0 {
        out |= order_bit[set.trailing_zeros() as usize];
        set &= set - 1;
    }
    out
}

/// The order in which the tier walk reads children: by how often a cell is pivotal (a set of
/// cells that joins the terminals no longer does without it), most first, counted over every
/// set for boards of at most [`ORDER_COUNTED_CELLS`] cells; by the number of cells and
/// terminals a cell touches on larger ones. Ties keep the cell order. Any order gives the same
/// table: it only decides how soon a position's first losing child (a winning move) is read.
fn child_order(links: &Links, cells: u32) -> Vec<u32> {
    let mut score = vec![0u64; cells as usize];
    if cells <= ORDER_COUNTED_CELLS {
        let joins: Vec<bool> = (0..1u64 << cells).map(|s| links.connects(s)).collect();
        for s in (0..joins.len()).filter(|&s| joins[s]) {
            for (i, v) in score.iter_mut().enumerate() {
                if s >> i & 1 == 1 && !joins[s & !(1 << i)] {
                    *v += 1;
                }
            }
        }
    } else {
        for (i, v) in score.iter_mut().enumerate() {
            *v = links.adj[i].count_ones() as u64 + (links.start >> i & 1) + (links.goal >> i & 1);
        }
    }
    let mut order: Vec<u32> = (0..cells).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(score[i as usize]));
    order
}

/// The parts of the lowest `digits` cells, ordered by the number of cells filled and then by
/// value, and where each count starts (`start[c]..start[c + 1]`).
fn low_parts(digits: u32, order_bit: &[u64; 64]) -> (Vec<LowPart>, Vec<u32>) {
    let parts: Vec<LowPart> = (0..3u32.pow(digits))
        .map(|value| {
            let (left, right) = digit_masks(value as u64, digits);
            let (left, right) = (left as u16, right as u16);
            LowPart {
                value,
                left,
                right,
                filled_in_order: in_order(order_bit, (left | right) as u64),
            }
        })
        .collect();
    let filled = |p: &LowPart| (p.left | p.right).count_ones();
    // By filled count, then value: bucketed, the values already increasing (a sort here took a
    // third of the time of a sweep solving millions of boards of a few cells).
    let mut buckets = vec![Vec::new(); digits as usize + 1];
    for p in parts {
        buckets[filled(&p) as usize].push(p);
    }
    let parts: Vec<LowPart> = buckets.into_iter().flatten().collect();
    let mut start = vec![0u32; digits as usize + 2];
    for p in &parts {
        start[filled(p) as usize + 1] += 1;
    }
    for c in 0..=digits as usize {
        start[c + 1] += start[c];
    }
    (parts, start)
}
