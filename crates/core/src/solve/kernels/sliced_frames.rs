//! The out-of-core row kernel for games in the sliced index ([`SlicedBoard`]): values only, for
//! tables larger than memory and than the disk's room for a raw table (docs/OUT_OF_CORE.md).
//!
//! It decides rows exactly as the row kernel does (`sliced_rows::RowKernel`, key tier
//! by key tier, fullest first), but keeps no table of cells. A row's key children are read from
//! the *loss plane* of the key tier above: one bit a position (in Bridg-It and Hex every
//! position is won or lost, so the loss bit is the whole value), half the row kernel's cells
//! and only one key tier of them, in a work file the caller maps ([`LossPlanes`]). The decided
//! rows go, in index order, to the caller's [`FrameSink`] a whole frame at a time (the build
//! compresses them into the table's own frames as they come), and into the loss plane of their
//! own key tier, which the next key tier reads. Rows are stored fullest key tier first, so the
//! key tiers are decided in index order and the table is written front to back.
//!
//! Invariant: while key tier `k` is decided, the plane of key tier `k + 1` is only read, and
//! the plane of key tier `k` is written a batch of rows at a time by this loop alone; a frame
//! goes to the sink only when every position in it is decided.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::sliced_rows::bits::pext;
use super::sliced_rows::{
    KeyTiers, LossSource, ROWS_PER_UNIT, RowKernel, key_tier_cells, or_words, tables_bytes,
};
use crate::base::cells::{CELLS_PER_WORD, release_file_pages};
use crate::base::progress::Progress;
use crate::game::shape::SlicedBoard;
use crate::game::shape::sliced::Sliced;
use crate::solve::finished::{Remoteness, Solved, TierDone};
use crate::solve::{SolveOptions, SolveStats};

/// Positions a batch of rows holds at least (the last row may take it over): the rows decided
/// together before their frames and loss bits go out. 2^24 positions are 4 MiB of cells. The
/// library's unit tests take 2^12, so that their small boards go by many batches, frames
/// completed across batches and (across ranks) requests kept from one batch to the next.
const BATCH_POSITIONS: u64 = if cfg!(test) { 1 << 12 } else { 1 << 24 };

/// Bytes the kernel keeps resident besides the caller's frames: the index's and the row
/// kernel's tables, the loss plane of the widest key tier (the one it reads: the plane it
/// writes leaves memory a batch at a time), and a batch's cells four times over (the window,
/// the copy the sink takes, and the frames made and compressed from it).
pub fn resident_bytes(s: &Sliced) -> u64 {
    let widest_row = s.rows.iter().map(|r| r.len as u64).max().unwrap_or(0);
    tables_bytes(s) + LossPlanes::words_for(s) * 8 + 4 * (BATCH_POSITIONS + widest_row) / 4
}

/// Bytes of disk the two loss planes take.
pub fn planes_bytes(s: &Sliced) -> u64 {
    2 * LossPlanes::words_for(s) * 8
}

/// What takes the out-of-core kernel's decided cells: whole frames, in index order.
pub trait FrameSink: Sync {
    /// Positions a frame holds (a multiple of 32).
    fn frame_positions(&self) -> u64;

    /// Takes the cells of positions `first..first + n`: `first` is a multiple of
    /// [`Self::frame_positions`], and so is `n` unless the positions end the table. `words`
    /// holds them as a table's words do (two bits a position, `first` at word 0's low bits;
    /// the bits past the last position are zero).
    fn take(&self, first: u64, n: u64, words: &[u64]) -> crate::Result<()>;

    /// Key tier `tier` is decided and its whole frames taken: `tail` holds the cells from
    /// `first` (a multiple of the frame size) to the tier's end, the start of a frame the next
    /// key tier completes, and `counts` those of every position decided so far. A checkpoint
    /// after this tier keeps them; a resumed solve gets them back from [`Self::resumed`].
    fn tier_end(&self, tier: u32, first: u64, tail: &[u64], counts: [u64; 4]) -> crate::Result<()> {
        let _ = (tier, first, tail, counts);
        Ok(())
    }

    /// For a solve resumed below a checkpoint: what [`Self::tier_end`] was given at that key
    /// tier's end. Nothing for a fresh solve.
    fn resumed(&self) -> Resumed {
        Resumed::default()
    }
}

/// Where a resumed solve takes up: the cells of the frame the finished key tiers left open,
/// and the counts of every position before it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Resumed {
    /// The open frame's first position.
    pub first: u64,
    /// Its cells decided so far, as [`FrameSink::tier_end`] had them.
    pub tail: Vec<u64>,
    /// `[unused, win, loss, draw]` of the positions decided before the stop.
    pub counts: [u64; 4],
}

/// The two loss planes of a solve, one bit a position of a key tier each: key tier `k` writes
/// plane `k % 2` and reads plane `(k + 1) % 2`. Each is [`LossPlanes::words_for`] words.
pub struct LossPlanes<'a> {
    planes: [&'a [AtomicU64]; 2],
    /// The words lie in a shared mapping of a file, whose pages may be released.
    file: bool,
}

impl<'a> LossPlanes<'a> {
    /// Words a plane needs for `s`: the widest key tier's positions, a bit each, from the
    /// 64-position word its first position lies in.
    pub fn words_for(s: &Sliced) -> u64 {
        (0..s.tier_rows.len())
            .map(|k| {
                let c = key_tier_cells(s, k);
                (c.end - c.start / 64 * 64).div_ceil(64)
            })
            .max()
            .unwrap_or(0)
            + 1
    }

    /// Planes in the caller's memory (heap words): tests and small boards.
    pub fn new(a: &'a [AtomicU64], b: &'a [AtomicU64]) -> LossPlanes<'a> {
        LossPlanes {
            planes: [a, b],
            file: false,
        }
    }

    /// Planes over shared mappings of files, whose pages the solve drops from its resident
    /// memory once it has written or read them ([`crate::base::cells::Cells::release`]).
    ///
    /// # Safety
    /// Both must lie in writable shared mappings of files (`MAP_SHARED`).
    pub unsafe fn over_files(a: &'a [AtomicU64], b: &'a [AtomicU64]) -> LossPlanes<'a> {
        LossPlanes {
            planes: [a, b],
            file: true,
        }
    }

    /// The plane key tier `k` reads: key tier `k + 1`'s.
    pub(crate) fn above(&self, s: &Sliced, k: u32) -> Plane<'a> {
        Plane {
            words: self.planes[(k as usize + 1) % 2],
            base: plane_base(s, k as usize + 1),
        }
    }

    /// Drops words `words` of plane `p` from resident memory (a file's mapping only).
    pub(crate) fn release(&self, p: usize, words: std::ops::Range<usize>) {
        let plane = self.planes[p];
        let (from, to) = (words.start.min(plane.len()), words.end.min(plane.len()));
        if !self.file || from >= to {
            return;
        }
        let base = plane.as_ptr() as usize;
        // SAFETY: the range lies inside the plane, which `over_files`' caller promised is a
        // shared mapping of a file.
        unsafe { release_file_pages(base + from * 8, base + to * 8) }
    }
}

/// The loss bits of one key tier: bit `p - base` for position `p` (`base`: the tier's first
/// position rounded down to a multiple of 64).
pub(crate) struct Plane<'p> {
    words: &'p [AtomicU64],
    base: u64,
}

impl LossSource for Plane<'_> {
    #[inline(always)]
    fn loss_bits<const V3: bool>(&self, first: u64, n: u64, out: &mut Vec<u64>) -> usize {
        out.clear();
        let off = first - self.base;
        let (from, to) = ((off / 64) as usize, (off + n).div_ceil(64) as usize);
        out.extend(
            self.words[from..to]
                .iter()
                .map(|w| w.load(Ordering::Relaxed)),
        );
        out.push(0);
        (off % 64) as usize
    }
}

/// The words of key tier `k`'s loss plane that hold its positions (from word 0): what a
/// checkpoint hashes.
pub fn plane_words(s: &Sliced, k: u32) -> u64 {
    let c = key_tier_cells(s, k as usize);
    (c.end.max(plane_base(s, k as usize)) - plane_base(s, k as usize)).div_ceil(64)
}

/// The first position of key tier `k`'s plane (its first position rounded down to 64).
fn plane_base(s: &Sliced, k: usize) -> u64 {
    key_tier_cells(s, k).start / 64 * 64
}

/// Solves every key tier of `board` below the checkpoint `done_from` (the tier count for a
/// fresh solve; for a resumed one the plane of the last finished key tier must be as that
/// solve left it, and `sink` gives back its tail), handing the cells to `sink` and keeping the
/// loss bits in `planes`. Calls `after` for each tier, as [`super::sliced_rows::solve`] does,
/// after [`FrameSink::tier_end`]. `None` when `after` stopped the solve.
pub fn solve(
    board: &SlicedBoard<'_>,
    planes: &LossPlanes<'_>,
    sink: &dyn FrameSink,
    done_from: u32,
    opts: &SolveOptions,
    after: &mut impl FnMut(TierDone<'_>) -> crate::Result<bool>,
) -> crate::Result<Option<Solved>> {
    solve_with(board, planes, sink, &Threads, done_from, opts, after)
}

/// [`solve`] with the rows decided by `deciders`: this process's threads ([`Threads`]), or
/// every rank of a build across processes (`crate::solve::distributed::frames`), which calls
/// this on rank 0 only.
pub(crate) fn solve_with(
    board: &SlicedBoard<'_>,
    planes: &LossPlanes<'_>,
    sink: &dyn FrameSink,
    deciders: &dyn RowDeciders,
    done_from: u32,
    opts: &SolveOptions,
    after: &mut impl FnMut(TierDone<'_>) -> crate::Result<bool>,
) -> crate::Result<Option<Solved>> {
    let s = board.index;
    let f = sink.frame_positions();
    assert!(
        f > 0 && f.is_multiple_of(CELLS_PER_WORD),
        "frames of whole words"
    );
    let need = LossPlanes::words_for(s) as usize;
    assert!(
        planes.planes.iter().all(|p| p.len() >= need),
        "planes too short"
    );
    let kernel = RowKernel::new(board);
    let hw = s.key_digits();
    let mut plan = KeyTiers::new(s, done_from);
    let v3 = crate::base::cpu::v3();
    let progress = opts.begin_progress(plan.todo);
    let mut probes = 0u64;
    // The cells decided and not yet taken by the sink, from position `w0` (a frame's first).
    let Resumed {
        first: mut w0,
        tail,
        mut counts,
    } = sink.resumed();
    let mut window: Vec<AtomicU64> = tail.into_iter().map(AtomicU64::new).collect();
    // Every position before `decided` is decided (and those from `w0` on are in the window).
    let mut decided = plan.clear_from.unwrap_or(0);
    for k in (0..=plan.first_key).rev() {
        let k = k as u32;
        progress.step(&format!("key tier {k} of {}", hw + 1));
        let (src, dst) = ((k as usize + 1) % 2, k as usize % 2);
        let above = planes.above(s, k);
        let tier_cells = key_tier_cells(s, k as usize);
        let dst_base = plane_base(s, k as usize);
        let tier_rows = s.tier_rows[k as usize].clone();
        let rows = &s.rows[tier_rows.clone()];
        let batches = (|| -> crate::Result<()> {
            let mut at = 0;
            while at < rows.len() {
                // A batch: whole rows, at least BATCH_POSITIONS positions where the tier has
                // them.
                let mut end = at;
                let mut n = 0u64;
                while end < rows.len() && (n < BATCH_POSITIONS || end == at) {
                    n += rows[end].len as u64;
                    end += 1;
                }
                let (b0, b1) = (rows[at].start, rows[at].start + n);
                debug_assert_eq!(b0, decided, "rows are decided in index order");
                let words = (b1 - w0).div_ceil(CELLS_PER_WORD) as usize + 1;
                if window.len() < words {
                    window.resize_with(words, || AtomicU64::new(0));
                }
                let batch = Batch {
                    kernel: &kernel,
                    above: &above,
                    words: &window,
                    first_word: w0 / CELLS_PER_WORD,
                };
                let batch_rows = tier_rows.start + at..tier_rows.start + end;
                probes += deciders.decide(k, batch_rows, &batch, opts, progress)?;
                opts.stop.check()?;
                write_plane(
                    v3,
                    &window,
                    w0,
                    (b0, b1),
                    tier_cells.start,
                    planes.planes[dst],
                    dst_base,
                );
                // Written plane words, all but the batch's last, leave resident memory.
                planes.release(dst, 0..((b1 - dst_base) / 64) as usize);
                count(&window, w0, (b0, b1), &mut counts);
                decided = b1;
                // Whole frames go out; the table's last positions end a frame of their own.
                let cut = if b1 == s.size() { b1 } else { b1 / f * f };
                if cut > w0 {
                    w0 = hand_over(&window, (w0, cut), words, sink)?;
                }
                at = end;
            }
            Ok(())
        })();
        deciders.tier_decided(k, batches)?;
        let ended = (|| {
            let used = (decided - w0).div_ceil(CELLS_PER_WORD) as usize;
            sink.tier_end(k, w0, &loaded(&window[..used.min(window.len())]), counts)?;
            plan.finished(s, k, after)
        })();
        if !deciders.tier_ended(k, ended)? {
            return Ok(None);
        }
        // The plane of key tier `k + 1` is read by no tier left.
        planes.release(src, 0..planes.planes[src].len());
    }
    plan.rest(after)?;
    progress.reach(plan.todo);
    counts[0] = s.size() - counts[1] - counts[2];
    Ok(Some(Solved {
        stats: SolveStats {
            counts,
            rounds: None,
            parent_visits: 0,
            edges: None,
            child_probes: deciders.probes(probes)?,
            remoteness: None,
        },
        remoteness: Remoteness::None,
    }))
}

/// Hands `sink` the cells of the window from position `w0` to `cut` (whole frames, or the
/// table's end), and moves the window's `words` words after them to its front; returns `cut`,
/// the window's new first position.
fn hand_over(
    window: &[AtomicU64],
    (w0, cut): (u64, u64),
    words: usize,
    sink: &dyn FrameSink,
) -> crate::Result<u64> {
    let taken = ((cut - w0) / CELLS_PER_WORD) as usize;
    let plain: Vec<u64> = window[..(cut - w0).div_ceil(CELLS_PER_WORD) as usize]
        .par_iter()
        .map(|w| w.load(Ordering::Relaxed))
        .collect();
    sink.take(w0, cut - w0, &plain)?;
    let left = words - taken.min(words);
    for i in 0..words {
        let v = if i < left {
            window[taken + i].load(Ordering::Relaxed)
        } else {
            0
        };
        window[i].store(v, Ordering::Relaxed);
    }
    Ok(cut)
}

/// The words' values.
fn loaded(words: &[AtomicU64]) -> Vec<u64> {
    words.iter().map(|w| w.load(Ordering::Relaxed)).collect()
}

/// Who decides the rows of a batch: this process's threads ([`Threads`]), or every rank of a
/// build across processes (`crate::solve::distributed::frames`, on rank 0). The solve calls
/// [`Self::decide`] for each batch of a key tier in index order, then [`Self::tier_decided`]
/// and, unless that failed, [`Self::tier_ended`], so that every rank makes the same
/// collective calls whatever fails.
pub(crate) trait RowDeciders {
    /// Decides rows `rows` (indices of the index's rows, all of key tier `k`) into `batch`'s
    /// words; the child rows read.
    fn decide(
        &self,
        k: u32,
        rows: Range<usize>,
        batch: &Batch<'_>,
        opts: &SolveOptions,
        progress: &dyn Progress,
    ) -> crate::Result<u64>;

    /// Key tier `k`'s rows are decided, or failed with this process's `outcome`: the outcome
    /// of every decider.
    fn tier_decided(&self, k: u32, outcome: crate::Result<()>) -> crate::Result<()> {
        let _ = k;
        outcome
    }

    /// What key tier `k`'s end (its checkpoint and reports) gave: whether the solve goes on,
    /// for every decider.
    fn tier_ended(&self, k: u32, outcome: crate::Result<bool>) -> crate::Result<bool> {
        let _ = k;
        outcome
    }

    /// The child rows every decider read, of which this process read `mine`.
    fn probes(&self, mine: u64) -> crate::Result<u64> {
        Ok(mine)
    }
}

/// This process's threads decide every row.
pub(crate) struct Threads;

impl RowDeciders for Threads {
    fn decide(
        &self,
        _: u32,
        rows: Range<usize>,
        batch: &Batch<'_>,
        opts: &SolveOptions,
        progress: &dyn Progress,
    ) -> crate::Result<u64> {
        Ok(batch.decide(rows, opts, progress))
    }
}

/// Where a batch's rows are decided: the row kernel, the loss plane of the key tier above, and
/// the words the cells go to (word 0 is the table's word `first_word`).
pub(crate) struct Batch<'a> {
    pub kernel: &'a RowKernel<'a>,
    pub above: &'a Plane<'a>,
    pub words: &'a [AtomicU64],
    pub first_word: u64,
}

impl Batch<'_> {
    /// Decides rows `rows` (indices of the index's rows) with this process's threads, the
    /// cells ORed into the words; the child rows read. Stops early (leaving rows undecided)
    /// when `opts.stop` is requested.
    pub fn decide(&self, rows: Range<usize>, opts: &SolveOptions, progress: &dyn Progress) -> u64 {
        let rows = &self.kernel.board().index.rows[rows];
        rows.par_chunks(ROWS_PER_UNIT)
            .with_max_len(1)
            .map_init(Vec::new, |buf, chunk| {
                if opts.stop.requested() {
                    return 0;
                }
                let mut reads = 0;
                for row in chunk {
                    let (first, r) = self.kernel.decide(row, buf, self.above);
                    reads += r;
                    or_words(self.words, first - self.first_word, buf);
                }
                progress.advance(chunk.iter().map(|r| r.len as u64).sum());
                reads
            })
            .sum()
    }

    /// ORs `bits` into the words from the table's word `first` on.
    pub fn or_at(&self, first: u64, bits: &[u64]) {
        or_words(self.words, first - self.first_word, bits);
    }
}

/// Writes the loss bits of positions `b0..b1` (decided in `window`, whose word 0 holds position
/// `w0`) into `plane` (of the key tier that begins at `tier_start`, from position `base`). A
/// plane word that begins inside the batch (or the tier's first) is stored whole, bits past the
/// batch zero; one that began in the batch before gets this batch's bits ORed in.
fn write_plane(
    v3: bool,
    window: &[AtomicU64],
    w0: u64,
    (b0, b1): (u64, u64),
    tier_start: u64,
    plane: &[AtomicU64],
    base: u64,
) {
    let (from, to) = ((b0 - base) / 64, (b1 - base).div_ceil(64));
    (from as usize..to as usize)
        .into_par_iter()
        .with_min_len(1 << 12)
        .for_each(|j| {
            let p0 = base + 64 * j as u64;
            let mut bits = 0u64;
            for h in 0..2u64 {
                let ph = p0 + 32 * h;
                // Positions are multiples of 32 here: a half plane word is one window word.
                if ph >= w0 && ph < b1 {
                    let w = window[((ph - w0) / CELLS_PER_WORD) as usize].load(Ordering::Relaxed);
                    bits |= loss_half(v3, w) << (32 * h);
                }
            }
            let lo = b0.max(p0) - p0;
            let hi = b1.min(p0 + 64) - p0;
            let mask = if hi - lo == 64 {
                u64::MAX
            } else {
                ((1u64 << (hi - lo)) - 1) << lo
            };
            bits &= mask;
            if p0 >= b0 || b0 == tier_start {
                plane[j].store(bits, Ordering::Relaxed);
            } else {
                plane[j].fetch_or(bits, Ordering::Relaxed);
            }
        });
}

/// The loss bits of a word of cells (bit 1 of each cell), packed.
#[inline]
fn loss_half(v3: bool, w: u64) -> u64 {
    if v3 {
        pext::<true>(w, 0xAAAA_AAAA_AAAA_AAAA)
    } else {
        pext::<false>(w, 0xAAAA_AAAA_AAAA_AAAA)
    }
}

/// Adds the wins and losses among positions `b0..b1` of `window` (word 0 at `w0`) to `counts`.
fn count(window: &[AtomicU64], w0: u64, (b0, b1): (u64, u64), counts: &mut [u64; 4]) {
    let (from, to) = (b0 - w0, b1 - w0);
    let (win, loss) = ((from / CELLS_PER_WORD) as usize..to.div_ceil(CELLS_PER_WORD) as usize)
        .into_par_iter()
        .with_min_len(1 << 12)
        .map(|i| {
            let w = window[i].load(Ordering::Relaxed);
            let i = i as u64;
            let (lo, hi) = (
                from.max(i * CELLS_PER_WORD) - i * CELLS_PER_WORD,
                to.min((i + 1) * CELLS_PER_WORD) - i * CELLS_PER_WORD,
            );
            let mask = if hi - lo == 32 {
                u64::MAX
            } else {
                ((1u64 << (2 * (hi - lo))) - 1) << (2 * lo)
            };
            let w = w & mask;
            (
                (w & 0x5555_5555_5555_5555).count_ones() as u64,
                (w & 0xAAAA_AAAA_AAAA_AAAA).count_ones() as u64,
            )
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    counts[1] += win;
    counts[2] += loss;
}
