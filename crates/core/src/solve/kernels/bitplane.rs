//! The bit-parallel step for games that are a [`PlainBoard`]: values only, many positions at
//! a time.
//!
//! A configuration is a row (the digits of the cells above the lowest `LOW`) and a column
//! (the lowest cells' digits, `0..3^LOW`). For each mover the engine keeps a *loss plane*: one
//! bit per configuration, set when that mover, to move there, loses. A row of a plane is
//! `3^LOW` bits, so the children of every configuration of a row through one cell are one
//! shifted copy of a row: a high cell's move goes to another row at the same columns, a low
//! cell `e`'s move to the same row, `3^e` (Left) or `2 * 3^e` (Right) columns on. A row is
//! decided whole, a word of 64 columns at a time, with a handful of word operations per cell,
//! masked to the columns whose cell is empty:
//!
//! ```text
//! Left to move loses  = !(Left has won) & (Right has won | no child where Right loses)
//! Right to move loses = Left has won | !(Right has won) & no child where Left loses
//! ```
//!
//! The ends are tested a configuration at a time (one lookup per player's low cells in a
//! 256-entry table made for the row) and the row's cells are written when it is decided.
//!
//! Invariant: while a level (the rows with a given number of claimed high cells) is decided, a
//! row's planes are written only by the task that owns the row; other tasks read only rows of
//! the finished level above.

use std::sync::OnceLock;
use std::sync::atomic::Ordering;

use rayon::prelude::*;

use crate::base::cells::{self, Cells};
use crate::game::shape::{PlainBoard, digit_masks};
use crate::solve::finished::{FinishedTiers, Solved, TierDone};
use crate::solve::{SolveOptions, SolveStats};

/// Cells in a row's columns: `3^8 = 6561` columns, 103 words a row and plane (and a column's
/// cells fit a byte).
pub(super) const LOW: u32 = 8;

/// Rows a task takes at a time.
const ROWS_PER_UNIT: usize = 8;

/// A column: its number and each player's cells among the low ones.
#[derive(Clone, Copy)]
pub(super) struct Column {
    pub p: u16,
    pub left: u8,
    pub right: u8,
}

/// The columns' fixed facts: each one's cells, and the word masks of the columns with a given
/// number of filled cells and with a given cell empty.
pub(super) struct Columns {
    low: u32,
    /// `3^low`.
    columns: usize,
    /// Words per row.
    words: usize,
    /// The columns with `c` filled cells, in increasing order.
    pub by_count: Vec<Vec<Column>>,
    /// `empty[e]`: bit `p` set when column `p` has cell `e` empty.
    empty: Vec<Vec<u64>>,
}

impl Columns {
    /// Word `w` of the columns with cell `i` empty.
    #[inline(always)]
    pub fn empty_word(&self, i: usize, w: usize) -> u64 {
        self.empty[i][w]
    }

    pub fn new(low: u32) -> Columns {
        let n = 3usize.pow(low);
        let words = n.div_ceil(64);
        let mut by_count = vec![Vec::new(); low as usize + 1];
        let mut empty = vec![vec![0u64; words]; low as usize];
        for p in 0..n {
            let (l, r) = digit_masks(p as u64, low);
            for (i, e) in empty.iter_mut().enumerate() {
                if (l | r) >> i & 1 == 0 {
                    e[p / 64] |= 1 << (p % 64);
                }
            }
            let c = (l | r).count_ones() as usize;
            by_count[c].push(Column {
                p: p as u16,
                left: l as u8,
                right: r as u8,
            });
        }
        Columns {
            low,
            columns: n,
            words,
            by_count,
            empty,
        }
    }
}

/// The two loss planes, rows of `words` words. While a level is solved, each of its rows is
/// written by the one task that owns it, and only the rows of finished levels are read.
struct Planes {
    words: usize,
    left: Vec<u64>,
    right: Vec<u64>,
}

/// A shared view of the planes for a level's tasks.
#[derive(Clone, Copy)]
struct PlanesView {
    words: usize,
    left: *mut u64,
    right: *mut u64,
    len: usize,
}

// SAFETY: the view is handed to a level's tasks, which (see `PlanesView::row` and
// `PlanesView::put_row`) read only rows of finished levels and write only their own rows; the
// level's end (rayon's join) orders those writes before the next level's reads.
unsafe impl Send for PlanesView {}
unsafe impl Sync for PlanesView {}

impl Planes {
    fn new(rows: u64, words: usize) -> Planes {
        let n = rows as usize * words;
        // `vec![0; n]` comes from the zeroing allocator: untouched pages cost nothing.
        Planes {
            words,
            left: vec![0; n],
            right: vec![0; n],
        }
    }

    fn view(&mut self) -> PlanesView {
        PlanesView {
            words: self.words,
            left: self.left.as_mut_ptr(),
            right: self.right.as_mut_ptr(),
            len: self.left.len(),
        }
    }
}

impl PlanesView {
    /// Row `row` of the Left-loses plane (`right == false`) or the Right-loses one.
    ///
    /// # Safety
    /// No task may write the row while the slice lives: it must belong to a finished level.
    #[inline(always)]
    unsafe fn row(&self, right: bool, row: usize) -> &[u64] {
        assert!((row + 1) * self.words <= self.len);
        let base = if right { self.right } else { self.left };
        // SAFETY: in bounds (asserted); not written while borrowed (the caller's promise).
        unsafe { std::slice::from_raw_parts(base.add(row * self.words), self.words) }
    }

    /// Writes row `row` of both planes.
    ///
    /// # Safety
    /// The caller must own the row: no other task reads or writes it during this level.
    #[inline(always)]
    unsafe fn put_row(&self, row: usize, left: &[u64], right: &[u64]) {
        assert!((row + 1) * self.words <= self.len);
        assert!(left.len() >= self.words && right.len() >= self.words);
        // SAFETY: in bounds (asserted), and the row is this task's alone (the caller's promise);
        // the sources are the task's own scratch, which cannot overlap the planes.
        unsafe {
            std::ptr::copy_nonoverlapping(
                left.as_ptr(),
                self.left.add(row * self.words),
                self.words,
            );
            std::ptr::copy_nonoverlapping(
                right.as_ptr(),
                self.right.add(row * self.words),
                self.words,
            );
        }
    }
}

/// The row's columns and facts for `low` low cells, built once per process: they depend on
/// nothing else, and building them (about a millisecond) would cost more than solving a board of
/// a few cells, of which a sweep solves millions.
pub(super) fn shared_tables(low: u32) -> &'static (Columns, RowFacts) {
    static TABLES: [OnceLock<(Columns, RowFacts)>; LOW as usize + 1] =
        [const { OnceLock::new() }; LOW as usize + 1];
    TABLES[low as usize].get_or_init(|| (Columns::new(low), RowFacts::new(low)))
}

/// Bytes the loss planes take for a board of `cells` cells.
pub fn memory_estimate(cells: u32) -> u64 {
    let low = cells.min(LOW);
    let words = 3u64.pow(low).div_ceil(64);
    let rows = 3u64.pow(cells - low);
    2 * rows * words * 8
}

/// Configurations of `cells` cells with `t` of them claimed: `C(cells, t) 2^t`.
pub(super) fn tier_configurations(cells: u32, t: u32) -> u64 {
    let mut c = 1u64;
    for k in 0..t as u64 {
        c = c * (cells as u64 - k) / (k + 1);
    }
    c << t
}

/// Solves every configuration of `board` into `cells` (all undecided), calling `after` for
/// each tier, highest first, as soon as all its positions are decided (as the tiered engine
/// does); `None` when `after` stopped the solve.
///
/// The work goes by *levels*: the rows whose high cells hold `h` claims, `h` from the most
/// down. A row's children through its high cells lie in rows of level `h + 1`, its children
/// through its low cells in the row itself at higher columns, so a row is decided whole, once:
/// its high children are one OR of finished rows, and its words are decided from the last down
/// (see `decide_row`). Tier `t` is complete once level `t - LOW` is (every level for the
/// tiers below `LOW`). Cells of lower tiers are written too as their rows finish; a build
/// resumed from a checkpoint clears them before solving those tiers again.
pub fn solve(
    board: &PlainBoard<'_>,
    cells: &Cells<'_>,
    opts: &SolveOptions,
    after: &mut impl FnMut(TierDone<'_>) -> crate::Result<bool>,
) -> crate::Result<Option<Solved>> {
    let e = board.cells;
    let low = e.min(LOW);
    let high = e - low;
    let (cols, fixed) = shared_tables(low);
    let words = cols.words;
    let rows = 3u64.pow(high);
    let row_cells = 3u64.pow(low);
    let size = 2 * rows * row_cells;
    assert_eq!(cells.len(), size, "cells must match the board");
    let mut planes = Planes::new(rows, words);
    let view = planes.view();
    let progress = opts.begin_progress(size);
    let pow3: Vec<u64> = (0..=e).map(|i| 3u64.pow(i)).collect();
    let mut levels: Vec<Vec<u64>> = vec![Vec::new(); high as usize + 1];
    for row in 0..rows {
        let (l, r) = digit_masks(row, high);
        levels[(l | r).count_ones() as usize].push(row);
    }
    let mut finished = FinishedTiers::below(e + 1);
    let decide = decide_row();
    for h in (0..=high).rev() {
        progress.step(&format!("level {h} of {}", high + 1));
        levels[h as usize].par_chunks(ROWS_PER_UNIT).for_each_init(
            || Scratch::new(words, low),
            |s, chunk| {
                if opts.stop.requested() {
                    return;
                }
                for &row in chunk {
                    // SAFETY: each row of this level is in one chunk only, and rows of
                    // other levels are only read (level h + 1 is finished).
                    unsafe { decide(board, cols, fixed, view, &pow3, row, s, cells) };
                }
                progress.advance(2 * row_cells * chunk.len() as u64);
            },
        );
        // A stopped level is incomplete: neither a checkpoint nor the next level may use it.
        opts.stop.check()?;
        // Tier t is complete once every row with at least t - low claims is.
        let complete = if h == 0 { 0 } else { h + low };
        let positions = |t| 2 * tier_configurations(e, t);
        if !finished.complete_from(complete, positions, None, &[], after)? {
            return Ok(None);
        }
    }
    drop(planes);
    progress.reach(size);
    Ok(Some(Solved {
        stats: SolveStats {
            counts: cells.counts(),
            rounds: None,
            parent_visits: 0,
            edges: None,
            child_probes: 0,
            remoteness: None,
        },
        remoteness: crate::solve::finished::Remoteness::None,
    }))
}

/// What every row shares: the columns of a row, and how to turn a table of "has won with these
/// low cells" into the columns where that holds.
///
/// A column's low cells split into its first `k` cells (`p % 3^k`, the *inner* digits) and the
/// rest (the *outer* digits). For each outer value, the inner values whose cells (with the
/// outer ones) win form a set of up to `2^k = 16` masks; `inner[j][x]` gives, for the set
/// whose masks `8 j ..` are byte `x`, the columns `0..3^k` they select (`3^4 = 81` bits).
pub(super) struct RowFacts {
    k: u32,
    /// `3^k`.
    span: usize,
    /// Each outer value's player cells among the outer digits, as a mask.
    outer: Vec<u8>,
    inner: [Vec<u128>; 2],
    /// Bit `p` set for every column of a row (the last word is partial).
    pub valid: Vec<u64>,
}

impl RowFacts {
    /// The facts of rows of `low` columns' cells (at most 12: outer digits fit a byte).
    pub fn new(low: u32) -> RowFacts {
        assert!(low <= 12, "a row's outer digits must fit a byte");
        let columns = 3usize.pow(low);
        let k = low.min(4);
        let span = 3usize.pow(k);
        let outer_count = columns / span;
        // A player's cells: the digits equal to 1 (the same table serves for Right's 2s, see
        // `spread_ends`).
        let player_mask = |mut v: usize, digits: u32, which: usize| -> u8 {
            let mut m = 0u8;
            for i in 0..digits {
                if v % 3 == which {
                    m |= 1 << i;
                }
                v /= 3;
            }
            m
        };
        let outer: Vec<u8> = (0..outer_count)
            .flat_map(|o| [player_mask(o, low - k, 1), player_mask(o, low - k, 2)])
            .collect();
        let mut inner = [vec![0u128; 2 * 256], vec![0u128; 2 * 256]];
        for (which, table) in inner.iter_mut().enumerate() {
            for j in 0..2 {
                for x in 0..256usize {
                    let mut bits = 0u128;
                    for p0 in 0..span {
                        let m = player_mask(p0, k, which + 1) as usize;
                        if m / 8 == j && x >> (m % 8) & 1 == 1 {
                            bits |= 1 << p0;
                        }
                    }
                    table[256 * j + x] = bits;
                }
            }
        }
        let mut valid = vec![0u64; columns.div_ceil(64)];
        for p in 0..columns {
            valid[p / 64] |= 1 << (p % 64);
        }
        RowFacts {
            k,
            span,
            outer,
            inner,
            valid,
        }
    }

    /// The columns of a row where Left has won (`left_won`) and where Right has and Left has
    /// not (`right_won`), from the row's high cells `(hl, hr)` (each player's, shifted above
    /// the `low` low cells): [`ends_by`] spread to the columns.
    #[inline(always)]
    pub fn won_columns(
        &self,
        board: &PlainBoard<'_>,
        low: u32,
        (hl, hr): (u64, u64),
        left_won: &mut [u64],
        right_won: &mut [u64],
    ) {
        let (left_by, right_by) = ends_by(board, low, hl, hr);
        self.spread_ends(0, &left_by, left_won);
        self.spread_ends(1, &right_by, right_won);
        for (r, l) in right_won.iter_mut().zip(left_won.iter()) {
            *r &= !l;
        }
    }

    /// From `by` (bit `a` set when the player's low cells `a` make him the winner, for the
    /// row's high cells; `player` 0 for Left, 1 for Right; `2^low` bits) to the columns of the
    /// row where he has won.
    #[inline(always)]
    pub fn spread_ends(&self, player: usize, by: &[u64], out: &mut [u64]) {
        out.iter_mut().for_each(|w| *w = 0);
        if by.iter().all(|&w| w == 0) {
            return;
        }
        let table = &self.inner[player];
        let width = 1u32 << self.k;
        let keep = if width == 64 { !0 } else { (1u64 << width) - 1 };
        for (o, masks) in self.outer.chunks_exact(2).enumerate() {
            let start = (masks[player] as usize) << self.k;
            let t = (by[start / 64] >> (start % 64)) & keep;
            if t == 0 {
                continue;
            }
            let bits = table[(t & 0xFF) as usize] | table[256 + (t >> 8 & 0xFF) as usize];
            let off = o * self.span;
            let (w, sh) = (off / 64, (off % 64) as u32);
            out[w] |= (bits << sh) as u64;
            let rest = bits >> (64 - sh);
            if rest != 0 {
                out[w + 1] |= rest as u64;
                if let Some(x) = out.get_mut(w + 2) {
                    *x |= (rest >> 64) as u64;
                }
            }
        }
    }
}

/// A row's ends over its `low` low cells, from its high cells `hl` and `hr` (each player's,
/// shifted above the low ones): bit `a` of the first table is set when Left, with low cells
/// `a`, has joined; of the second when Right, with low cells `a`, has cut every join. Left's
/// win depends on his cells only, Right's on his (Left's win counts first: the caller's).
#[inline(always)]
pub(super) fn ends_by(board: &PlainBoard<'_>, low: u32, hl: u64, hr: u64) -> ([u64; 4], [u64; 4]) {
    let all = (1u64 << board.cells) - 1;
    let (mut left_by, mut right_by) = ([0u64; 4], [0u64; 4]);
    for a in 0..1usize << low {
        left_by[a / 64] |= (board.joins(hl | a as u64) as u64) << (a % 64);
        right_by[a / 64] |= (!board.joins(all & !(hr | a as u64)) as u64) << (a % 64);
    }
    (left_by, right_by)
}

/// A task's working words for one row.
struct Scratch {
    left_won: Vec<u64>,
    right_won: Vec<u64>,
    /// Columns where a high cell's move wins for Left (for Right).
    left_wins: Vec<u64>,
    right_wins: Vec<u64>,
    /// The row's loss bits, padded with zero words so a read past the row stays inside.
    left_loses: Vec<u64>,
    right_loses: Vec<u64>,
}

impl Scratch {
    fn new(words: usize, low: u32) -> Scratch {
        let pad = (2 * 3usize.pow(low.saturating_sub(1))).div_ceil(64) + 2;
        Scratch {
            left_won: vec![0; words],
            right_won: vec![0; words],
            left_wins: vec![0; words],
            right_wins: vec![0; words],
            left_loses: vec![0; words + pad],
            right_loses: vec![0; words + pad],
        }
    }
}

/// The bits of columns `64 w + off ..` of a padded row.
#[inline(always)]
fn window(src: &[u64], off: usize, w: usize) -> u64 {
    let (q, r) = (w + off / 64, (off % 64) as u32);
    if r == 0 {
        src[q]
    } else {
        (src[q] >> r) | (src[q + 1] << (64 - r))
    }
}

/// Low cells whose moves reach at least a word on: below this, a move can land in the same
/// word (`2 * 3^3 = 54 < 64`).
const NEAR: usize = 4;

/// Decides every configuration of `row` (both movers) and writes its cells and its plane rows.
///
/// The high children are an OR of finished rows. The low children lie in the row itself at
/// higher columns: the words are decided from the last down, so a move by one of the low cells
/// `NEAR..` reads only finished words; moves by the first `NEAR` cells can stay in the word
/// being decided, which is solved by repeating its step until nothing changes (its columns'
/// dependencies run to higher bits only, so the fixed point is the answer, reached in at most
/// `NEAR + 1` steps).
///
/// # Safety
/// The caller owns `row` for this level, and every row of the next level up is finished.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn decide_row_body(
    board: &PlainBoard<'_>,
    cols: &Columns,
    fixed: &RowFacts,
    planes: PlanesView,
    pow3: &[u64],
    row: u64,
    s: &mut Scratch,
    cells: &Cells<'_>,
) {
    let low = cols.low;
    let words = cols.words;
    let (hl, hr) = digit_masks(row, board.cells - low);
    let (hl, hr) = (hl << low, hr << low);
    let all = (1u64 << board.cells) - 1;
    let all_high = all & !((1u64 << low) - 1);
    let empty_high = all_high & !(hl | hr);
    fixed.won_columns(board, low, (hl, hr), &mut s.left_won, &mut s.right_won);
    // High children: Left's moves lead to Right to move (the Right-loses plane).
    s.left_wins.iter_mut().for_each(|w| *w = 0);
    s.right_wins.iter_mut().for_each(|w| *w = 0);
    let mut free = empty_high;
    while free != 0 {
        let i = free.trailing_zeros();
        free &= free - 1;
        let step = pow3[(i - low) as usize] as usize;
        // SAFETY: rows of the next level up, finished (the caller's promise).
        let (lrow, rrow) = unsafe {
            (
                planes.row(true, row as usize + step),
                planes.row(false, row as usize + 2 * step),
            )
        };
        for (acc, x) in s.left_wins.iter_mut().zip(lrow) {
            *acc |= x;
        }
        for (acc, x) in s.right_wins.iter_mut().zip(rrow) {
            *acc |= x;
        }
    }
    // Low children, from the last word down.
    let near = (low as usize).min(NEAR);
    let (ll, rl) = (&mut s.left_loses, &mut s.right_loses);
    for w in (0..words).rev() {
        let mut a = s.left_wins[w];
        let mut b = s.right_wins[w];
        for (&off, empty) in pow3[near..low as usize].iter().zip(&cols.empty[near..]) {
            let (off, empty) = (off as usize, empty[w]);
            a |= window(rl, off, w) & empty;
            b |= window(ll, 2 * off, w) & empty;
        }
        // The near cells' moves that land in the next word (finished).
        let (nl, nr) = (rl[w + 1], ll[w + 1]);
        for (&off, empty) in pow3[..near].iter().zip(&cols.empty) {
            let (off, empty) = (off as u32, empty[w]);
            a |= (nl << (64 - off)) & empty;
            b |= (nr << (64 - 2 * off)) & empty;
        }
        let (lw, rw, valid) = (s.left_won[w], s.right_won[w], fixed.valid[w]);
        let (mut left_lost, mut right_lost) = (0u64, 0u64);
        for _ in 0..=NEAR + 1 {
            let (mut a2, mut b2) = (a, b);
            for (&off, empty) in pow3[..near].iter().zip(&cols.empty) {
                let (off, empty) = (off as u32, empty[w]);
                a2 |= (right_lost >> off) & empty;
                b2 |= (left_lost >> (2 * off)) & empty;
            }
            let l2 = valid & !lw & (rw | !a2);
            let r2 = valid & (lw | (!rw & !b2));
            if (l2, r2) == (left_lost, right_lost) {
                break;
            }
            (left_lost, right_lost) = (l2, r2);
        }
        ll[w] = left_lost;
        rl[w] = right_lost;
    }
    // SAFETY: the caller owns the row.
    unsafe { planes.put_row(row as usize, ll, rl) };
    write_cells(cols, fixed, row, ll, rl, cells);
}

/// [`decide_row_body`] as a function, with the signature of [`decide_row_v3`].
type DecideRow = unsafe fn(
    &PlainBoard<'_>,
    &Columns,
    &RowFacts,
    PlanesView,
    &[u64],
    u64,
    &mut Scratch,
    &Cells<'_>,
);

/// [`decide_row_body`] for the CPU's level ([`crate::base::cpu::v3`]), chosen once a solve.
fn decide_row() -> DecideRow {
    #[cfg(target_arch = "x86_64")]
    if crate::base::cpu::v3() {
        return decide_row_v3;
    }
    decide_row_baseline
}

/// [`decide_row_body`] compiled for the baseline.
///
/// # Safety
/// As [`decide_row_body`].
#[allow(clippy::too_many_arguments)]
unsafe fn decide_row_baseline(
    board: &PlainBoard<'_>,
    cols: &Columns,
    fixed: &RowFacts,
    planes: PlanesView,
    pow3: &[u64],
    row: u64,
    s: &mut Scratch,
    cells: &Cells<'_>,
) {
    // SAFETY: the caller's promise, passed on.
    unsafe { decide_row_body(board, cols, fixed, planes, pow3, row, s, cells) }
}

/// [`decide_row_body`] compiled for x86-64-v3 (one instruction for each lowest set bit and
/// count, AVX2 for the rows' ORs).
///
/// # Safety
/// As [`decide_row_body`], and the CPU has [`crate::base::cpu::V3_FEATURES`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt,fma")]
#[allow(clippy::too_many_arguments)]
unsafe fn decide_row_v3(
    board: &PlainBoard<'_>,
    cols: &Columns,
    fixed: &RowFacts,
    planes: PlanesView,
    pow3: &[u64],
    row: u64,
    s: &mut Scratch,
    cells: &Cells<'_>,
) {
    // SAFETY: the caller's promise, passed on.
    unsafe { decide_row_body(board, cols, fixed, planes, pow3, row, s, cells) }
}

/// Writes the cells of every configuration of `row` from its loss bits: a cell word holds 16
/// configurations, a nibble each (Left to move's code, then Right to move's). Column `p` is
/// configuration `first + p`, nibble `(first + p) % 16`: the row's sets moved up by that phase
/// give each cell word's 16 bits in place, four to a word.
#[inline(always)]
fn write_cells(
    cols: &Columns,
    fixed: &RowFacts,
    row: u64,
    left_loses: &[u64],
    right_loses: &[u64],
    cells: &Cells<'_>,
) {
    let words = cols.words;
    let first = row * cols.columns as u64;
    let phase = (first % 16) as u32;
    let first_cw = first / 16;
    let last_cw = (first + cols.columns as u64 - 1) / 16;
    let moved = |set: &[u64], j: usize| -> u64 {
        let cur = if j < words { set[j] } else { 0 };
        if phase == 0 {
            cur
        } else {
            let prev = if j > 0 { set[j - 1] } else { 0 };
            (cur << phase) | (prev >> (64 - phase))
        }
    };
    let cell_words = cells.words();
    for j in 0..=words {
        let valid = moved(&fixed.valid, j);
        if valid == 0 {
            continue;
        }
        let (ll, rl) = (moved(left_loses, j), moved(right_loses, j));
        for q in 0..4u32 {
            let t16 = valid >> (16 * q) & 0xFFFF;
            if t16 == 0 {
                continue;
            }
            let (l16, r16) = (ll >> (16 * q) & 0xFFFF, rl >> (16 * q) & 0xFFFF);
            let left =
                (spread(t16 & !l16) * cells::WIN as u64) | (spread(t16 & l16) * cells::LOSS as u64);
            let right =
                (spread(t16 & !r16) * cells::WIN as u64) | (spread(t16 & r16) * cells::LOSS as u64);
            let cw = first_cw + 4 * j as u64 + q as u64;
            let at = &cell_words[cw as usize];
            if cw == first_cw || cw == last_cw {
                // Shared with the rows on either side, which other tasks may be writing.
                at.fetch_or(left | right << 2, Ordering::Relaxed);
            } else {
                at.store(left | right << 2, Ordering::Relaxed);
            }
        }
    }
}

/// Bit `j` of a 16-bit `x` moved to bit `4 * j`.
#[inline(always)]
fn spread(x: u64) -> u64 {
    SPREAD[(x & 0xFF) as usize] | SPREAD[(x >> 8 & 0xFF) as usize] << 32
}

/// `SPREAD[b]`: bit `j` of byte `b` at bit `4 * j`.
const SPREAD: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut j = 0;
        while j < 8 {
            if b >> j & 1 == 1 {
                t[b] |= 1 << (4 * j);
            }
            j += 1;
        }
        b += 1;
    }
    t
};
