//! The row kernel for games in the sliced index ([`SlicedBoard`]): values only, one row at a time.
//!
//! A row holds every position with one key (the contents of the key cells); its moves into
//! low cells stay in the row (one more filled low cell), its moves into key cells go to rows of
//! the next key tier. So the engine goes by key tiers, the fullest first, and decides each row
//! whole in a buffer of its own: the positions with the most filled low cells first, each one
//! reading its low children from the buffer (decided just before) and its key children from the
//! finished rows of the tier above, which are few (one per empty key cell and mover) and read
//! at the same low configuration mapped by one table lookup. A row's children thus lie in at
//! most `2 * key cells` rows, and a tier's rows read only the tier above: the build touches two
//! key tiers of the table at a time, front to back.
//!
//! Invariant: while key tier `k` is decided, a row's cells are written only by the task that
//! owns the row (once, when the row is done), and rows of tier `k + 1`, finished, are only read.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

pub(in crate::solve::kernels) mod bits;
mod key_tiers;
use bits::*;
pub(crate) use key_tiers::{KeyTiers, key_tier_cells, key_tier_len};

use super::bitplane::RowFacts;
use crate::base::cells::{CELLS_PER_WORD, Cells, LOSS, WIN};
use crate::game::shape::SlicedBoard;
use crate::game::shape::sliced::{MAX_LOW, Row, Sliced};
use crate::solve::finished::{Solved, TierDone};
use crate::solve::{SolveOptions, SolveStats};

/// Rows a task takes at a time.
pub(crate) const ROWS_PER_UNIT: usize = 4;

/// Bytes the kernel keeps resident besides its tables: the cells of the two widest consecutive
/// key tiers (the tier decided and the one it reads), which the table's file mapping holds.
pub fn resident_bytes(s: &Sliced) -> u64 {
    (0..s.tier_rows.len())
        .map(|k| key_tier_len(s, k) + key_tier_len(s, k + 1))
        .max()
        .unwrap_or(0)
        .div_ceil(4)
        + tables_bytes(s)
}

/// Makes the cells from `from` to the end undecided.
pub(crate) fn clear_from(cells: &Cells<'_>, from: u64) {
    let words = cells.words();
    let mut i = from;
    while i < cells.len() && !i.is_multiple_of(CELLS_PER_WORD) {
        cells.clear(i);
        i += 1;
    }
    let first = (i / CELLS_PER_WORD) as usize;
    words[first.min(words.len())..]
        .par_iter()
        .for_each(|w| w.store(0, Ordering::Relaxed));
}

/// The index's own tables (low configurations, ranks, permutations, rows) and the kernel's
/// (column masks, the re-indexed join table, the key children's offsets).
pub fn tables_bytes(s: &Sliced) -> u64 {
    let (lw, hw) = (s.low_digits() as u64, s.key_digits() as u64);
    let low = 3u64.pow(lw as u32);
    let group = s.key_perm.len() as u64;
    let index = low * (16 + 1 + 4 + 4 + 4 * s.low_perm.len() as u64)
        + s.row_of_key.len() as u64 * 4
        + s.rows.len() as u64 * std::mem::size_of::<Row>() as u64;
    let kernel = (3 * lw + 1) * low / 8 + group * low * 4 + (1u64 << (lw + hw)) / 8;
    index + kernel
}

/// Solves the tiers (filled cells) below `done_from` of `board` into `cells`; the tiers from
/// `done_from` up must be decided already (for a fresh solve, `done_from` is the tier count and
/// every cell undecided). Calls `after` for each tier, highest first, once all its positions
/// are decided (`KeyTiers::finished`). `None` when `after` stopped the solve.
///
/// A resumed solve starts at the key tier below the last complete one (`KeyTiers::new`).
pub fn solve(
    board: &SlicedBoard<'_>,
    cells: &Cells<'_>,
    done_from: u32,
    opts: &SolveOptions,
    after: &mut impl FnMut(TierDone<'_>) -> crate::Result<bool>,
) -> crate::Result<Option<Solved>> {
    let s = board.index;
    assert_eq!(cells.len(), s.size(), "cells must match the board");
    let kernel = RowKernel::new(board);
    let hw = s.key_digits();
    let mut plan = KeyTiers::new(s, done_from);
    if let Some(from) = plan.clear_from {
        clear_from(cells, from);
    }
    let progress = opts.begin_progress(plan.todo);
    let probes = AtomicU64::new(0);
    for k in (0..=plan.first_key).rev() {
        let k = k as u32;
        progress.step(&format!("key tier {k} of {}", hw + 1));
        let rows = &s.rows[s.tier_rows[k as usize].clone()];
        // One job a chunk: rows differ in cost by orders of magnitude, and rayon's default
        // splitting left one thread idle for minutes behind a long sequential run of rows.
        rows.par_chunks(ROWS_PER_UNIT)
            .with_max_len(1)
            .for_each_init(Vec::new, |buf, chunk| {
                if opts.stop.requested() {
                    return;
                }
                let mut n = 0;
                for row in chunk {
                    let (first_word, p) = kernel.decide(row, buf, cells);
                    n += p;
                    or_words(cells.words(), first_word, buf);
                }
                probes.fetch_add(n, Ordering::Relaxed);
                progress.advance(chunk.iter().map(|r| r.len as u64).sum());
            });
        // A stopped key tier is incomplete: neither a checkpoint nor the next tier may use it.
        opts.stop.check()?;
        if !plan.finished(s, k, after)? {
            return Ok(None);
        }
        // Key tier `k + 1` is read by no tier left: its pages leave resident memory (a file's
        // mapping keeps them), so two key tiers are resident at a time, as the plan counts.
        cells.release(key_tier_cells(s, k as usize + 1));
    }
    plan.rest(after)?;
    progress.reach(plan.todo);
    Ok(Some(Solved {
        stats: SolveStats {
            counts: cells.counts(),
            rounds: None,
            parent_visits: 0,
            edges: None,
            child_probes: probes.into_inner(),
            remoteness: None,
        },
        remoteness: crate::solve::finished::Remoteness::None,
    }))
}

/// ORs a decided row's words into `words` from word `first_word` on (the cells' words, or a
/// job's buffer), one `fetch_or` a nonzero word: the first and last may hold a neighbour row's
/// cells.
pub(crate) fn or_words(words: &[AtomicU64], first_word: u64, buf: &[u64]) {
    for (w, &bits) in buf.iter().enumerate() {
        if bits != 0 {
            words[first_word as usize + w].fetch_or(bits, Ordering::Relaxed);
        }
    }
}

/// Where a row's key children are read from: the table's cells (this kernel), or the loss
/// plane of the key tier above (the out-of-core kernel, `super::sliced_frames`).
pub(crate) trait LossSource: Sync {
    /// The loss bits of positions `first..first + n` (1 where the player to move there loses),
    /// packed into `out` (cleared first) from the returned bit of `out[0]` on, with a zero word
    /// past the last ([`Bits`] reads past its end).
    fn loss_bits<const V3: bool>(&self, first: u64, n: u64, out: &mut Vec<u64>) -> usize;
}

impl LossSource for Cells<'_> {
    #[inline(always)]
    fn loss_bits<const V3: bool>(&self, first: u64, n: u64, out: &mut Vec<u64>) -> usize {
        loss_bits::<V3>(self, first, n, out);
        (first % CELLS_PER_WORD) as usize
    }
}

/// Decides rows of a sliced board: what every row shares, made once.
pub(crate) struct RowKernel<'a> {
    board: SlicedBoard<'a>,
    facts: Facts,
    /// The CPU has x86-64-v3 ([`crate::base::cpu::v3`]).
    v3: bool,
}

impl<'a> RowKernel<'a> {
    pub fn new(board: &SlicedBoard<'a>) -> RowKernel<'a> {
        RowKernel {
            board: *board,
            facts: Facts::new(board),
            v3: crate::base::cpu::v3(),
        }
    }

    /// The board whose rows it decides.
    pub fn board(&self) -> &SlicedBoard<'a> {
        &self.board
    }

    /// Decides `row` into `buf` (cleared first): its cells as the table's words from the
    /// returned word on (the first and last may have bits of the row only, to be ORed with a
    /// neighbour's); also returns the child rows read. Every row of the key tier above must be
    /// decided in `cells`, which the call only reads.
    pub fn decide<S: LossSource>(&self, row: &Row, buf: &mut Vec<u64>, cells: &S) -> (u64, u64) {
        thread_local! {
            static SCRATCH: std::cell::RefCell<Option<Scratch>> =
                const { std::cell::RefCell::new(None) };
        }
        SCRATCH.with(|cell| {
            let mut slot = cell.borrow_mut();
            let scratch = slot.get_or_insert_with(|| Scratch::new(&self.facts));
            if scratch.words != self.facts.words {
                *scratch = Scratch::new(&self.facts);
            }
            let reads = decide_row(self.v3, &self.board, &self.facts, row, scratch, buf, cells);
            (row.start / CELLS_PER_WORD, reads)
        })
    }
}

/// What every row shares: the low columns' masks, the join table with the low cells first,
/// the ends' spreading tables and, per symmetry, where a key child's configurations lie.
///
/// A row is decided over the dense range of low configurations `0..3^lw` (a *column* per
/// configuration, a bit per column): bit `v` of the loss plane is set when the player to move
/// at the row's position with low configuration `v` loses (Left in class A, Right in class B;
/// columns of neither class stay clear).
pub(super) struct Facts {
    pub(super) lw: u32,
    pub(super) hw: u32,
    /// Words of a dense plane, and the zero words past it that a shifted read may touch.
    pub(super) words: usize,
    pad: usize,
    /// `empty[w * lw + j]`: the columns of word `w` whose low digit `j` is empty (a word's
    /// masks side by side, as the low children's pass reads them).
    empty: Vec<u64>,
    /// `class_mask[d + lw]`: the columns whose `L - R` is `d`.
    class_mask: Vec<Vec<u64>>,
    /// Bit `low + (key << lw)` set when the cells of the low digits `low` and of the key digits
    /// `key` (as digit masks) join: a row's ends read `2^lw` consecutive bits.
    joins: Vec<u64>,
    ends: RowFacts,
    /// `gather[g][d + lw][i]`: for a key child whose key goes to its canonical image by group
    /// element `g`, the rank in its class (of difference `d`) of the image of column
    /// `class_of(d)[i]` of the parent.
    pub(super) gather: Vec<Vec<Vec<u32>>>,
}

impl Facts {
    pub(super) fn new(board: &SlicedBoard<'_>) -> Facts {
        let s = board.index;
        let (lw, hw) = (s.low_digits(), s.key_digits());
        let n = 3usize.pow(lw);
        let words = n.div_ceil(64);
        let pad = (2 * 3usize.pow(lw.saturating_sub(1))).div_ceil(64) + 2;
        let mut empty = vec![0u64; words * lw as usize];
        for v in 0..n {
            let (l, r) = s.low_masks[v];
            for (j, &c) in s.low_cells.iter().enumerate() {
                if (l | r) >> c & 1 == 0 {
                    empty[v / 64 * lw as usize + j] |= 1 << (v % 64);
                }
            }
        }
        let class_mask: Vec<Vec<u64>> = (-(lw as i32)..=lw as i32)
            .map(|d| {
                let mut m = vec![0u64; words];
                for &v in s.class_of(d) {
                    m[v as usize / 64] |= 1 << (v % 64);
                }
                m
            })
            .collect();
        // The join table re-indexed with the low cells first.
        let bits = 1u64 << (lw + hw);
        let mut joins = vec![0u64; bits.div_ceil(64) as usize];
        let spread = |mask: u64, cells: &[u32]| {
            cells
                .iter()
                .enumerate()
                .filter(|&(i, _)| mask >> i & 1 == 1)
                .fold(0u64, |acc, (_, &c)| acc | 1 << c)
        };
        let low_sets: Vec<u64> = (0..1u64 << lw).map(|m| spread(m, &s.low_cells)).collect();
        // A key's `2^lw` bits are whole words when `lw >= 6`: one task a key.
        let per_key = (1usize << lw).div_ceil(64);
        let fill = |key: u64, out: &mut [u64]| {
            let k = spread(key, &s.key_cells);
            for (low, &set) in low_sets.iter().enumerate() {
                let x = k | set;
                if board.joins[(x >> 6) as usize] >> (x & 63) & 1 == 1 {
                    let at = low as u64 + if lw >= 6 { 0 } else { key << lw };
                    out[(at / 64) as usize] |= 1 << (at % 64);
                }
            }
        };
        if lw >= 6 {
            joins
                .par_chunks_mut(per_key)
                .enumerate()
                .for_each(|(key, out)| fill(key as u64, out));
        } else {
            for key in 0..1u64 << hw {
                fill(key, &mut joins);
            }
        }
        let gather = (0..s.key_perm.len())
            .map(|g| {
                (-(lw as i32)..=lw as i32)
                    .map(|d| {
                        s.class_of(d)
                            .iter()
                            .map(|&v| s.rank[s.low_image(g, v) as usize])
                            .collect()
                    })
                    .collect()
            })
            .collect();
        Facts {
            lw,
            hw,
            words,
            pad,
            empty,
            class_mask,
            joins,
            ends: RowFacts::new(lw),
            gather,
        }
    }

    /// The columns of difference `d` (`None` when no configuration has it).
    pub(super) fn class(&self, d: i32) -> Option<&[u64]> {
        (d.abs() <= self.lw as i32).then(|| &self.class_mask[(d + self.lw as i32) as usize][..])
    }

    /// The key digits of a cell set, as a digit mask.
    fn key_digits(s: &Sliced, set: u64) -> u64 {
        s.key_cells
            .iter()
            .enumerate()
            .filter(|&(_, &c)| set >> c & 1 == 1)
            .fold(0u64, |acc, (i, _)| acc | 1 << i)
    }
}

/// A task's working words for one row.
struct Scratch {
    words: usize,
    /// The row's loss plane, with zero words past its end.
    loss: Vec<u64>,
    /// Columns where a key cell's move wins for the mover.
    wins: Vec<u64>,
    ends: Ends,
    /// A child row's loss bits, from its first table word on.
    child: Vec<u64>,
    /// A child row's bits at a class's columns, in column order.
    gathered: Vec<u64>,
    /// Loss bits in a row's order, from its first table word's first cell on.
    packed: Vec<u64>,
}

impl Scratch {
    fn new(f: &Facts) -> Scratch {
        Scratch {
            words: f.words,
            loss: vec![0; f.words + f.pad],
            wins: vec![0; f.words],
            ends: Ends::new(f),
            child: Vec::new(),
            gathered: Vec::new(),
            packed: Vec::new(),
        }
    }
}

/// A key child of a row: a move by mover `m` (0 Left, 1 Right) into an empty key cell, which
/// leads to the child row's class of the parent mover's difference (Left's move to its class B,
/// Right's to its class A), positions `first..first + n` in rank order, the child's key being
/// the canonical image of the moved-to key by group element `g` (0: the same columns).
pub(super) struct KeyChild {
    pub(super) m: usize,
    pub(super) g: usize,
    pub(super) first: u64,
    pub(super) n: u64,
}

/// The key children of `row` that the index holds, each empty key cell's Left move then Right
/// move: what both row kernels read from the tier above.
pub(super) fn key_children<'a>(s: &'a Sliced, row: &Row) -> impl Iterator<Item = KeyChild> + 'a {
    let (key, d) = (row.key as u64, row.d);
    (0..s.key_digits() as usize)
        .filter(move |&i| (key / s.pow3[i]).is_multiple_of(3))
        .flat_map(move |i| {
            [(0usize, 1u64), (1, 2)]
                .into_iter()
                .filter_map(move |(m, add)| {
                    let (canon, g) = s.canonical(key + add * s.pow3[i]);
                    // Left's move lands in class B of the row one difference below, Right's in
                    // class A of the row one above (the low cells unchanged).
                    let child = s.row_for(canon, if m == 0 { d - 1 } else { d + 1 })?;
                    let (from, n) = if m == 0 {
                        (child.split, child.len - child.split)
                    } else {
                        (0, child.split)
                    };
                    Some(KeyChild {
                        m,
                        g,
                        first: child.start + from as u64,
                        n: n as u64,
                    })
                })
        })
}

/// A row's ends, a plane each: `left_won` where Left's cells join, `right_won` where Right's
/// do (Left's priority is the reader's: a column where both join is Left's).
pub(super) struct Ends {
    pub(super) left_won: Vec<u64>,
    pub(super) right_won: Vec<u64>,
    left_by: Vec<u64>,
    right_by: Vec<u64>,
}

impl Ends {
    pub(super) fn new(f: &Facts) -> Ends {
        let by = (1usize << f.lw).div_ceil(64);
        Ends {
            left_won: vec![0; f.words],
            right_won: vec![0; f.words],
            left_by: vec![0; by],
            right_by: vec![0; by],
        }
    }
}

/// The ends of `row` into `e`: Left's win depends on his cells only, Right's on his.
#[inline(always)]
pub(super) fn row_ends(board: &SlicedBoard<'_>, f: &Facts, row: &Row, e: &mut Ends) {
    let s = board.index;
    let lw = f.lw as usize;
    let (kl, kr) = s.key_masks(row.key);
    let low_mask = (1u64 << lw) - 1;
    let key_l = Facts::key_digits(s, kl);
    let key_open = Facts::key_digits(s, !kr) & ((1u64 << f.hw) - 1);
    let by_words = e.left_by.len();
    let span = |key: u64| (key << lw) as usize / 64;
    if lw >= 6 {
        e.left_by
            .copy_from_slice(&f.joins[span(key_l)..span(key_l) + by_words]);
        // Right has won with low cells `a` when the cells he has not taken, `!a` among the low
        // ones, do not join: bit `a` of the reversed block, negated.
        let block = &f.joins[span(key_open)..span(key_open) + by_words];
        for (o, &x) in e.right_by.iter_mut().zip(block.iter().rev()) {
            *o = !x.reverse_bits();
        }
    } else {
        e.left_by.iter_mut().for_each(|w| *w = 0);
        e.right_by.iter_mut().for_each(|w| *w = 0);
        let bit = |at: u64| f.joins[(at / 64) as usize] >> (at % 64) & 1 == 1;
        for a in 0..1u64 << lw {
            e.left_by[(a / 64) as usize] |= (bit(a + (key_l << lw)) as u64) << (a % 64);
            let open = (!a & low_mask) + (key_open << lw);
            e.right_by[(a / 64) as usize] |= (!bit(open) as u64) << (a % 64);
        }
    }
    f.ends.spread_ends(0, &e.left_by, &mut e.left_won);
    f.ends.spread_ends(1, &e.right_by, &mut e.right_won);
}

/// Decides one row into `buf`, as the table's words from the row's first word on; returns the
/// child rows read. Every row of the tier above is finished in `cells`. `v3`: the CPU has
/// x86-64-v3 ([`crate::base::cpu::v3`], asked once a solve), for its `pext`, `pdep`, counts
/// and lowest set bits.
fn decide_row<S: LossSource>(
    v3: bool,
    board: &SlicedBoard<'_>,
    f: &Facts,
    row: &Row,
    sc: &mut Scratch,
    buf: &mut Vec<u64>,
    cells: &S,
) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if v3 {
        // SAFETY: `v3` says the CPU has the v3 extensions.
        return unsafe { decide_row_v3(board, f, row, sc, buf, cells) };
    }
    let _ = v3;
    decide_row_body::<false, S>(board, f, row, sc, buf, cells)
}

/// [`decide_row_body`] compiled for x86-64-v3.
///
/// # Safety
/// The CPU has [`crate::base::cpu::V3_FEATURES`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt,fma")]
unsafe fn decide_row_v3<S: LossSource>(
    board: &SlicedBoard<'_>,
    f: &Facts,
    row: &Row,
    sc: &mut Scratch,
    buf: &mut Vec<u64>,
    cells: &S,
) -> u64 {
    decide_row_body::<true, S>(board, f, row, sc, buf, cells)
}

/// [`decide_row`]'s work; `V3` true only when compiled for x86-64-v3 and run on such a CPU.
#[inline(always)]
fn decide_row_body<const V3: bool, S: LossSource>(
    board: &SlicedBoard<'_>,
    f: &Facts,
    row: &Row,
    sc: &mut Scratch,
    buf: &mut Vec<u64>,
    cells: &S,
) -> u64 {
    let s = board.index;
    let lw = f.lw as usize;
    let words = f.words;
    let d = row.d;
    let zero: &[u64] = &[];
    let class_a = f.class(d).unwrap_or(zero);
    let class_b = f.class(d + 1).unwrap_or(zero);

    row_ends(board, f, row, &mut sc.ends);
    let (left_won, right_won) = (&sc.ends.left_won, &sc.ends.right_won);

    // Key children: the mover's move into an empty key cell wins where the child is lost.
    sc.wins.iter_mut().for_each(|w| *w = 0);
    let mut reads = 0u64;
    for KeyChild { m, g, first, n } in key_children(s, row) {
        // The parent's columns this mover moves from.
        let dm = d + m as i32;
        let Some(cols) = f.class(dm) else { continue };
        reads += 1;
        let phase = cells.loss_bits::<V3>(first, n, &mut sc.child);
        let mut bits = if g == 0 {
            // The same columns, in the same order.
            Bits {
                src: &sc.child,
                at: phase,
            }
        } else {
            // The child's bit of each parent column of the class, in column order.
            let at = &f.gather[g][(dm + lw as i32) as usize];
            gather(&sc.child, phase, at, &mut sc.gathered);
            Bits {
                src: &sc.gathered,
                at: 0,
            }
        };
        {
            for (&mask, win) in cols.iter().zip(sc.wins.iter_mut()) {
                if mask != 0 {
                    *win |= pdep::<V3>(bits.take(mask.count_ones()), mask);
                }
            }
        }
    }

    // Low children, from the last word down.
    let plane = Plane {
        class_a,
        class_b,
        left_won,
        right_won,
        wins: &sc.wins,
        empty: &f.empty,
    };
    let loss = &mut sc.loss;
    loss.iter_mut().for_each(|w| *w = 0);
    macro_rules! low_children {
        ($($n:literal)*) => {
            match lw {
                $($n => low_children::<V3, $n>(&plane, loss, words),)*
                _ => unreachable!("at most {MAX_LOW} low cells"),
            }
        };
    }
    low_children!(0 1 2 3 4 5 6 7 8 9 10 11 12);
    let loss = &sc.loss;

    // The row's cells: class A's columns' loss bits in column order, then class B's, then two
    // bits each.
    let phase = (row.start % CELLS_PER_WORD) as u32;
    sc.packed.clear();
    let mut p = Packer {
        out: &mut sc.packed,
        acc: 0,
        n: 0,
    };
    p.put(0, phase);
    for class in [class_a, class_b] {
        for (&mask, &lost) in class.iter().zip(loss.iter()) {
            p.put(pext::<V3>(lost, mask), mask.count_ones());
        }
    }
    p.finish();
    let first_word = row.start / CELLS_PER_WORD;
    let end_word = (row.start + row.len as u64).div_ceil(CELLS_PER_WORD);
    buf.clear();
    let (from, to) = (phase as u64, phase as u64 + row.len as u64);
    let mut bits = Bits {
        src: &sc.packed,
        at: 0,
    };
    for k in 0..end_word - first_word {
        let lost = bits.take(32);
        // The row's cells among this word's 32.
        let (lo, hi) = (32 * k, 32 * k + 32);
        let (a, b) = (from.max(lo) - lo, to.min(hi) - lo);
        let in_row = if a >= b {
            0
        } else {
            ((1u64 << (b - a)) - 1) << a
        };
        let win_at = pdep::<V3>(!lost & in_row, 0x5555_5555_5555_5555);
        let loss_at = pdep::<V3>(lost & in_row, 0xAAAA_AAAA_AAAA_AAAA);
        debug_assert_eq!(WIN, 1);
        debug_assert_eq!(LOSS, 2);
        buf.push(win_at | loss_at);
    }
    reads
}
