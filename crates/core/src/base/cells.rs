//! Packed 2-bit value cells, 32 to an `AtomicU64`, and the decision rule every engine and the
//! verifier share ([`verdict`]). Neutral ground: the solvers fill cells, the table files store
//! them, and neither needs the other for it.
//!
//! Codes: `0` undecided (and, in a finished table, an unused index), `1` win, `2` loss, `3` draw,
//! always for the player to move. The invariant: while solving, a cell only ever goes from `0` to
//! a decided code, so a decision is a single `fetch_or` and its old value tells the caller whether
//! it won the race — no compare-and-swap loop.

use std::sync::atomic::{AtomicU64, Ordering};

use super::value::Value;

pub const UNDECIDED: u8 = 0;
/// In a finished table the undecided code means "no position here".
pub const UNUSED: u8 = 0;
pub const WIN: u8 = 1;
pub const LOSS: u8 = 2;
pub const DRAW: u8 = 3;

pub const CELLS_PER_WORD: u64 = 32;

pub fn code(v: Value) -> u8 {
    match v {
        Value::Win => WIN,
        Value::Loss => LOSS,
        Value::Draw => DRAW,
    }
}

pub fn value(code: u8) -> Option<Value> {
    match code {
        WIN => Some(Value::Win),
        LOSS => Some(Value::Loss),
        DRAW => Some(Value::Draw),
        _ => None,
    }
}

/// Words needed for `n` cells.
pub fn words_for(n: u64) -> u64 {
    n.div_ceil(CELLS_PER_WORD)
}

/// A view of `len` cells over shared atomic words (heap or memory map).
#[derive(Clone, Copy)]
pub struct Cells<'a> {
    words: &'a [AtomicU64],
    len: u64,
    /// The words are a shared mapping of a file: [`Cells::release`] may drop their pages.
    file: bool,
}

impl<'a> Cells<'a> {
    pub fn new(words: &'a [AtomicU64], len: u64) -> Self {
        assert!(words.len() as u64 >= words_for(len), "cell words too short");
        Cells {
            words,
            len,
            file: false,
        }
    }

    /// Cells over a shared mapping of a file, whose pages [`Cells::release`] drops from the
    /// process's memory once a solver is done with them.
    ///
    /// # Safety
    /// `words` must lie in a writable shared mapping of a file (`MAP_SHARED`), as
    /// [`mapped_atomics`] makes of a table's work file.
    pub unsafe fn over_file(words: &'a [AtomicU64], len: u64) -> Self {
        Cells {
            file: true,
            ..Cells::new(words, len)
        }
    }

    /// Drops from this process's resident memory the pages that lie wholly inside cells
    /// `range`, when the cells are a file's shared mapping (a no-op over heap memory). Their
    /// contents stay in the file (dirty pages are written back by the kernel) and come back on
    /// the next access, so this changes no cell: it only keeps a solve's resident memory to the
    /// part of the table it still reads, as the plan's estimate counts it.
    pub fn release(&self, range: std::ops::Range<u64>) {
        if !self.file || range.is_empty() {
            return;
        }
        let bytes = |cell: u64| (cell.min(self.len) / CELLS_PER_WORD) as usize * 8;
        let base = self.words.as_ptr() as usize;
        // SAFETY: the range lies inside the words, which `over_file`'s caller promised are a
        // shared mapping of a file.
        unsafe { release_file_pages(base + bytes(range.start), base + bytes(range.end)) }
    }

    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn words(&self) -> &'a [AtomicU64] {
        self.words
    }

    #[inline]
    pub fn get(&self, i: u64) -> u8 {
        let w = self.words[(i / CELLS_PER_WORD) as usize].load(Ordering::Relaxed);
        ((w >> ((i % CELLS_PER_WORD) * 2)) & 3) as u8
    }

    /// Whether cell `i` holds a loss, where it is known to hold a win or a loss: then the loss
    /// bit alone answers (one bit test instead of extracting the code).
    #[inline(always)]
    pub fn lost_of_decided(&self, i: u64) -> bool {
        let w = self.words[(i / CELLS_PER_WORD) as usize].load(Ordering::Relaxed);
        (w >> ((i % CELLS_PER_WORD) * 2 + 1)) & 1 == 1
    }

    /// Sets an undecided cell to `code`; true if this call made the decision. A cell that is
    /// already decided is left as it is.
    #[inline]
    pub fn decide(&self, i: u64, code: u8) -> bool {
        let shift = (i % CELLS_PER_WORD) * 2;
        let word = &self.words[(i / CELLS_PER_WORD) as usize];
        if (word.load(Ordering::Relaxed) >> shift) & 3 != 0 {
            return false;
        }
        let old = word.fetch_or((code as u64) << shift, Ordering::Relaxed);
        let was = (old >> shift) & 3;
        debug_assert!(
            was == 0 || was == code as u64,
            "cell {i} decided twice: {was} then {code}"
        );
        was == 0
    }

    /// Makes cell `i` undecided again.
    #[inline]
    pub fn clear(&self, i: u64) {
        let shift = (i % CELLS_PER_WORD) * 2;
        self.words[(i / CELLS_PER_WORD) as usize].fetch_and(!(3u64 << shift), Ordering::Relaxed);
    }

    /// How many cells hold each code, `[unused, win, loss, draw]`. Over a file's mapping, the
    /// pages counted are released as it goes ([`Cells::release`]).
    pub fn counts(&self) -> [u64; 4] {
        use rayon::prelude::*;
        /// Words counted (and released) together: 512 KiB.
        const CHUNK: usize = 1 << 16;
        let full = (self.len / CELLS_PER_WORD) as usize;
        let mut c = self.words[..full]
            .par_chunks(CHUNK)
            .enumerate()
            .map(|(i, chunk)| {
                let acc = count_codes(chunk);
                let first = (i * CHUNK) as u64 * CELLS_PER_WORD;
                self.release(first..first + chunk.len() as u64 * CELLS_PER_WORD);
                acc
            })
            .reduce(
                || [0u64; 4],
                |a, b| [0, a[1] + b[1], a[2] + b[2], a[3] + b[3]],
            );
        for i in full as u64 * CELLS_PER_WORD..self.len {
            c[self.get(i) as usize] += 1;
        }
        c[0] = self.len - c[1] - c[2] - c[3];
        c
    }
}

/// Decisions of one thread gathered word by word, for a writer whose cells nobody reads before
/// the batch is flushed or dropped, which decides each cell at most once and in increasing
/// order, and whose cells of this pass no other writer's lie between (a tier's work unit: see
/// a game's `Tiered::visit_tier`). Then only the first and the last word it writes can hold
/// another writer's cells of the same pass: those get a `fetch_or`, the words between a plain
/// load and store. Locked instructions were a sixth of a tiered solve with one per cell, and
/// still 8% with one per word (a tier's cells are scattered over the words of the plain index).
pub struct Batch<'a> {
    cells: Cells<'a>,
    word: usize,
    bits: u64,
    /// Whether a word was written already (the next one is not the first).
    started: bool,
}

impl<'a> Batch<'a> {
    pub fn new(cells: Cells<'a>) -> Self {
        Batch {
            cells,
            word: 0,
            bits: 0,
            started: false,
        }
    }

    /// Decides the undecided cell `i` (written at the latest when the batch moves to another
    /// word, is flushed or is dropped). `code` may hold the codes of cells `i` and `i + 1`
    /// (the second in bits 2-3) where `i` is even: they share a word.
    #[inline]
    pub fn decide(&mut self, i: u64, code: u8) {
        let word = (i / CELLS_PER_WORD) as usize;
        if word != self.word {
            debug_assert!(
                word > self.word || !self.started,
                "decisions in increasing order"
            );
            self.write_out();
            self.word = word;
        }
        self.bits |= (code as u64) << ((i % CELLS_PER_WORD) * 2);
    }

    /// Writes the gathered word on moving to the next: the first with a `fetch_or`, inner ones
    /// with a plain load and store (no other writer's cells of this pass are in them).
    #[inline]
    fn write_out(&mut self) {
        if self.bits == 0 {
            return;
        }
        if self.started {
            let w = &self.cells.words[self.word];
            w.store(w.load(Ordering::Relaxed) | self.bits, Ordering::Relaxed);
            self.bits = 0;
        } else {
            self.flush();
            self.started = true;
        }
    }

    /// Writes the gathered word with a `fetch_or` (the last word may be shared).
    #[inline]
    pub fn flush(&mut self) {
        if self.bits != 0 {
            let old = self.cells.words[self.word].fetch_or(self.bits, Ordering::Relaxed);
            debug_assert!(
                {
                    let both = old | self.bits;
                    let lo = 0x5555_5555_5555_5555u64;
                    let mask = |w: u64| (w | w >> 1) & lo;
                    mask(old) & mask(self.bits) == 0 || both == old
                },
                "a cell of word {} decided twice",
                self.word
            );
            self.bits = 0;
        }
    }
}

impl Drop for Batch<'_> {
    fn drop(&mut self) {
        self.flush();
    }
}

/// A heap buffer of zeroed cell words (see [`zeroed_atomics`]).
pub fn zeroed_words(n: u64) -> Vec<AtomicU64> {
    zeroed_atomics(n)
}

/// An atomic integer type and its plain twin, for buffers allocated zeroed and handed back
/// plain.
///
/// # Safety
/// `Self` must have the size and alignment of `Plain`, and every bit pattern (all-zero bits
/// among them) must be a valid `Self` (true of the standard atomic integers).
pub unsafe trait ZeroedAtomic: Sized {
    type Plain: Copy + Default;
}

macro_rules! zeroed_atomic {
    ($($atomic:ty => $plain:ty),*) => {$(
        // SAFETY: the standard atomic integer has its integer's size (asserted) and alignment
        // (asserted), and all-zero bits are its zero.
        unsafe impl ZeroedAtomic for $atomic {
            type Plain = $plain;
        }
        const _: () = assert!(
            std::mem::size_of::<$atomic>() == std::mem::size_of::<$plain>()
                && std::mem::align_of::<$atomic>() == std::mem::align_of::<$plain>()
        );
    )*};
}

zeroed_atomic!(
    std::sync::atomic::AtomicU8 => u8,
    std::sync::atomic::AtomicU16 => u16,
    std::sync::atomic::AtomicU32 => u32,
    AtomicU64 => u64
);

/// `n` zeroed atomics, allocated through the zeroing allocator so untouched pages cost nothing
/// (the one place this layout trick is written).
pub fn zeroed_atomics<A: ZeroedAtomic>(n: u64) -> Vec<A> {
    let v = std::mem::ManuallyDrop::new(vec![A::Plain::default(); n as usize]);
    // SAFETY: `A` has the size and alignment of `A::Plain` and all-zero bits are a valid `A`
    // (the trait's contract); the plain defaults are zero; the allocation is handed over whole
    // with its length and capacity, and `v` is never dropped.
    unsafe { Vec::from_raw_parts(v.as_ptr() as *mut A, v.len(), v.capacity()) }
}

/// The bytes of a writable raw map as atomics (the one place a mapping is viewed so), for
/// the threads, or the processes, that fill cells in a file.
///
/// Panics unless the map is aligned for `A` and a whole number of `A` long (page-aligned maps
/// of whole words are).
///
/// # Safety
/// The map must be writable. While the slice lives, no plain (non-atomic) reference to the
/// mapped bytes may exist and the file under the map must not shrink; any other process that
/// writes the bytes must write only places this one does not access meanwhile.
pub unsafe fn mapped_atomics<A: ZeroedAtomic>(map: &memmap2::MmapRaw) -> &[A] {
    let size = std::mem::size_of::<A>();
    assert!(
        (map.as_ptr() as usize).is_multiple_of(std::mem::align_of::<A>())
            && map.len().is_multiple_of(size),
        "cell maps are page-aligned whole words"
    );
    // SAFETY: the pointer comes from the raw map (not from a reference to its bytes), is
    // aligned for `A` (asserted) and spans `map.len() / size` values inside the map, which
    // outlives the slice; `A` is valid for every bit pattern and every access through the slice
    // is atomic (the trait's contract); the caller rules out plain references, shrinking and
    // conflicting writers.
    unsafe { std::slice::from_raw_parts(map.as_mut_ptr() as *const A, map.len() / size) }
}

/// Drops the pages wholly inside the addresses `from..to` from this process's resident memory
/// (`madvise(MADV_DONTNEED)`): over a shared file mapping they stay in the file and the page
/// cache, dirty ones included, and come back on the next access. Advice only: a failure leaves
/// the pages resident, which changes nothing but the memory used.
///
/// # Safety
/// The addresses must lie in one shared mapping of a file (`MAP_SHARED`); over private or
/// anonymous memory the advice would zero the pages.
pub unsafe fn release_file_pages(from: usize, to: usize) {
    // SAFETY: inside one shared file mapping (the caller's promise), where dropping a page
    // keeps its contents.
    unsafe { drop_pages(from, to) }
}

/// `madvise(MADV_DONTNEED)` over the pages wholly inside the addresses `from..to`: a shared
/// file mapping's pages leave resident memory and keep their contents
/// ([`release_file_pages`]); a private or anonymous mapping's are freed and read as zero on the
/// next access. Advice only: a failure leaves the pages resident.
///
/// # Safety
/// The addresses lie in one mapping, and where it is private or anonymous no one needs the
/// pages' contents any more.
pub unsafe fn drop_pages(from: usize, to: usize) {
    const PAGE: usize = 4096;
    let (start, end) = (from.next_multiple_of(PAGE), to / PAGE * PAGE);
    if start < end {
        // SAFETY: a page-aligned range inside one mapping (the caller's promise).
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_DONTNEED);
        }
    }
}

/// The plain values of a buffer of atomics, without a copy.
pub fn into_plain<A: ZeroedAtomic>(v: Vec<A>) -> Vec<A::Plain> {
    let v = std::mem::ManuallyDrop::new(v);
    // SAFETY: `A::Plain` has `A`'s size and alignment and every bit pattern of an atomic
    // integer is a valid plain integer; owning the vector, no other reference to it exists.
    unsafe { Vec::from_raw_parts(v.as_ptr() as *mut A::Plain, v.len(), v.capacity()) }
}

/// The decision rule, for a position that is not over, from what its children hold for their
/// own mover: a win iff some child is lost, else a draw if some child is drawn, else a loss
/// (every child won, or no child at all). The engines stop reading children at the first lost
/// one; they and the verifier all end here.
#[inline(always)]
pub const fn verdict(lost_child: bool, drawn_child: bool) -> u8 {
    if lost_child {
        WIN
    } else if drawn_child {
        DRAW
    } else {
        LOSS
    }
}

/// Reads the cell `i` from plain little-endian bytes of a payload.
#[inline]
pub fn get_in_bytes(bytes: &[u8], i: u64) -> u8 {
    (bytes[(i / 4) as usize] >> ((i % 4) * 2)) & 3
}

/// The wins, losses and draws (`[0, win, loss, draw]`) among the cells of `words`, counted with
/// the CPU's population count where it has one ([`crate::base::cpu::v3`]).
fn count_codes(words: &[AtomicU64]) -> [u64; 4] {
    #[cfg(target_arch = "x86_64")]
    if crate::base::cpu::v3() {
        // SAFETY: the CPU has the v3 extensions (just checked).
        return unsafe { count_codes_v3(words) };
    }
    count_codes_body(words)
}

/// [`count_codes_body`] compiled for x86-64-v3 (POPCNT).
///
/// # Safety
/// The CPU has [`crate::base::cpu::V3_FEATURES`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt,fma")]
unsafe fn count_codes_v3(words: &[AtomicU64]) -> [u64; 4] {
    count_codes_body(words)
}

#[inline(always)]
fn count_codes_body(words: &[AtomicU64]) -> [u64; 4] {
    const LO: u64 = 0x5555_5555_5555_5555;
    let mut acc = [0u64; 4];
    for w in words {
        let w = w.load(Ordering::Relaxed);
        let lo = w & LO;
        let hi = (w >> 1) & LO;
        acc[1] += (lo & !hi).count_ones() as u64;
        acc[2] += (hi & !lo).count_ones() as u64;
        acc[3] += (lo & hi).count_ones() as u64;
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decide_sets_once_and_counts() {
        let words = zeroed_words(words_for(70));
        let cells = Cells::new(&words, 70);
        assert!(cells.decide(3, WIN));
        assert!(!cells.decide(3, WIN));
        assert!(cells.decide(33, LOSS));
        assert!(cells.decide(69, DRAW));
        assert_eq!(cells.get(3), WIN);
        assert_eq!(cells.get(33), LOSS);
        assert_eq!(cells.get(69), DRAW);
        assert_eq!(cells.get(4), UNDECIDED);
        assert_eq!(cells.counts(), [67, 1, 1, 1]);
    }

    #[test]
    fn byte_layout_is_little_endian_two_bits_per_cell() {
        let words = zeroed_words(1);
        let cells = Cells::new(&words, 32);
        cells.decide(0, WIN);
        cells.decide(5, DRAW);
        let bytes = words[0].load(Ordering::Relaxed).to_le_bytes();
        assert_eq!(bytes[0], 0b01);
        assert_eq!(bytes[1], 0b11 << 2);
        assert_eq!(get_in_bytes(&bytes, 5), DRAW);
    }
}
