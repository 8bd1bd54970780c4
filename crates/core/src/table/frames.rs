//! Reading a compressed table front to back ([`Table::restore_frames`]): its frames decoded in
//! parallel, a batch at a time, each into the bytes the raw table stores for its positions
//! ([`RawFrame`]: the cells, the remoteness in the table's encoding, the generalized
//! Sprague-Grundy codes). `decompress` writes them out, `research tiers` counts them; neither
//! looks a position up alone.
//!
//! A frame is restored by inverting what the builder's conversion made of it
//! (`builder/convert/frames.rs`: `cell_frame`, `nibble_frame`, `remoteness_frame`): a position the rules decide ([`Rules::of`], the one definition of
//! [`crate::game::by_rules`]) gets the rules' value and remoteness, a position only a search
//! decides its stored bytes, and in a table that leaves one mover out
//! ([`Encoding::ZstdOmitted`]) a left-out position the one-move search's answer over its
//! children, as [`super::payload::OneMover`] finds it. The children lie in other frames: those
//! are restored (their stored positions) once and kept in a bounded cache shared by the threads,
//! and each frame's searches read them from there, a frame at a time.
//!
//! Invariant: the restored bytes are what the lookups answer ([`Table::code`],
//! [`Table::remoteness`], [`Table::grundy_code`]) written as a raw table writes them, so a
//! round trip gives back the raw table byte for byte; every frame is checked against its
//! checksum before a byte of it is read, and a damaged one is an error naming the file.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::Table;
use super::format::{
    Encoding, RemotenessEncoding, get_remoteness, nibble_of, put_remoteness, remoteness_of_nibble,
};
use super::payload::Search;
use super::zstd::FrameCache;
use crate::base::cells;
use crate::base::error::table::TableErrorKind;
use crate::base::error::{ConvertError, Error, Result};
use crate::base::remoteness::NONE;
use crate::game::{Game, Omissions, Rules, table_rules};
use crate::with_game;

/// Frames restored together (per thread) before they are handed on in order.
const BATCH_PER_THREAD: usize = 4;

/// Bytes of restored frames kept for the one-move searches of a table that leaves one mover
/// out: the children of a frame's positions lie in a few dozen frames further on.
const KEPT_BYTES: u64 = 64 << 20;

/// A restored frame a search reads, when fetched.
type Slot = Option<Arc<[u8]>>;

/// Positions `first..first + n` (one frame) as the raw table stores them.
pub struct RawFrame {
    pub first: u64,
    pub n: u64,
    /// The 2-bit codes, four positions a byte, lowest position in the low bits.
    pub cells: Vec<u8>,
    /// The table's remoteness encoding.
    pub encoding: RemotenessEncoding,
    /// The remoteness as the raw section holds it (empty without remoteness).
    pub remoteness: Vec<u8>,
    /// The generalized Sprague-Grundy codes, as many bytes each as the table's width (empty
    /// without them).
    pub grundy: Vec<u8>,
}

impl RawFrame {
    /// The code of the frame's `i`-th position.
    #[inline]
    pub fn code(&self, i: u64) -> u8 {
        cells::get_in_bytes(&self.cells, i)
    }

    /// The remoteness of the frame's `i`-th position (`None` for a draw, an unused index, or a
    /// table without remoteness).
    #[inline]
    pub fn remoteness(&self, i: u64) -> Option<u32> {
        read_remoteness(self.encoding, &self.remoteness, self.code(i), i)
    }
}

/// The remoteness of position `i` of restored remoteness bytes `bytes` whose code is `code`.
#[inline]
fn read_remoteness(encoding: RemotenessEncoding, bytes: &[u8], code: u8, i: u64) -> Option<u32> {
    match encoding {
        RemotenessEncoding::None => None,
        RemotenessEncoding::Nibbles => {
            remoteness_of_nibble(code, bytes[(i / 2) as usize] >> (4 * (i % 2)))
        }
        RemotenessEncoding::Bytes(w) => {
            let w = w as usize;
            get_remoteness(&bytes[i as usize * w..(i as usize + 1) * w])
        }
    }
}

/// Writes remoteness `r` of position `i` into restored remoteness bytes `bytes` (all zero
/// before, for nibbles) as the raw table stores it; `false` when it does not fit a nibble.
#[inline]
fn write_remoteness(
    encoding: RemotenessEncoding,
    bytes: &mut [u8],
    code: u8,
    i: u64,
    r: Option<u32>,
) -> bool {
    match encoding {
        RemotenessEncoding::None => true,
        RemotenessEncoding::Nibbles => match nibble_of(code, r) {
            Some(n) => {
                let at = (i / 2) as usize;
                let shift = 4 * (i % 2);
                bytes[at] = bytes[at] & !(15 << shift) | n << shift;
                true
            }
            None => false,
        },
        RemotenessEncoding::Bytes(w) => {
            let w = w as usize;
            put_remoteness(
                &mut bytes[i as usize * w..(i as usize + 1) * w],
                r.unwrap_or(NONE),
            );
            true
        }
    }
}

/// A frame's positions restored but for those a one-mover table leaves out (which hold
/// nothing yet): its cells and remoteness, and which positions were left out.
struct StoredPart {
    cells: Vec<u8>,
    remoteness: Vec<u8>,
    /// Per position, whether a search must still find it (left out, and not decided by the
    /// rules); empty when the table leaves nothing out.
    searched: Vec<bool>,
}

impl StoredPart {
    /// The bytes a restored frame is kept as: its cells, its remoteness, and which positions a
    /// search must find, a bit each.
    fn to_kept(&self) -> Vec<u8> {
        let mut bytes = self.cells.clone();
        bytes.extend_from_slice(&self.remoteness);
        let mut bits = vec![0u8; self.searched.len().div_ceil(8)];
        for (i, _) in self.searched.iter().enumerate().filter(|(_, s)| **s) {
            bits[i / 8] |= 1 << (i % 8);
        }
        bytes.extend_from_slice(&bits);
        bytes
    }

    /// A restored frame of `n` positions back from its kept bytes ([`StoredPart::to_kept`]).
    fn from_kept(bytes: &[u8], n: u64, encoding: RemotenessEncoding) -> StoredPart {
        let (cells, rest) = bytes.split_at(n.div_ceil(4) as usize);
        let (remoteness, bits) = rest.split_at(encoding.frame_len(n) as usize);
        let searched = if bits.is_empty() {
            Vec::new()
        } else {
            (0..n as usize)
                .map(|i| bits[i / 8] >> (i % 8) & 1 == 1)
                .collect()
        };
        StoredPart {
            cells: cells.to_vec(),
            remoteness: remoteness.to_vec(),
            searched,
        }
    }
}

impl<B: AsRef<[u8]> + Sync> Table<B> {
    /// Restores every frame of this compressed table ([`RawFrame`]) and hands each to `map`,
    /// in parallel a batch of frames at a time, and `map`'s answers to `take` in frame order
    /// (front to back); stops at the first error.
    pub fn restore_frames<T: Send>(
        &self,
        map: impl Fn(RawFrame) -> Result<T> + Sync,
        mut take: impl FnMut(T) -> Result<()>,
    ) -> Result<()> {
        assert!(self.is_compressed(), "frames belong to compressed tables");
        let frames = self.frame_count();
        let omitted = self.header().encoding == Encoding::ZstdOmitted;
        let f = self.header().frame_positions;
        let kept = omitted.then(|| {
            let bytes = f / 4 + self.header().remoteness_encoding.frame_len(f) + f / 8;
            FrameCache::new(KEPT_BYTES, bytes, frames as u64)
        });
        // The rules are asked of every position: tables that pay for themselves over a whole
        // table (a cell game's join test) are built first.
        with_game!(self.game(), g => g.prepare());
        let batch = (rayon::current_num_threads() * BATCH_PER_THREAD).max(1);
        for start in (0..frames).step_by(batch) {
            let end = (start + batch).min(frames);
            let done: Vec<Result<T>> = (start..end)
                .into_par_iter()
                .map(|k| map(self.restore_frame(k, kept.as_ref())?))
                .collect();
            for d in done {
                take(d?)?;
            }
        }
        Ok(())
    }

    /// Copies the frames `frames` lists: their stored cells and remoteness nibbles as they are
    /// (the positions the rules decide and those left out hold don't-care) into the raw table's
    /// words `cells` and `nibbles`, the frames decoded (and checked) in parallel, for the builder
    /// to restore the rest a row at a time (`table::builder::rows`).
    pub(crate) fn copy_stored_frames(
        &self,
        cells: &[AtomicU64],
        nibbles: &[AtomicU64],
        frames: &[usize],
    ) -> Result<()> {
        let h = self.header();
        assert_eq!(h.remoteness_encoding, RemotenessEncoding::Nibbles);
        let z = self
            .payload()
            .frames()
            .expect("frames belong to compressed tables");
        let stream = z.remoteness.as_ref().expect("nibbles mean a stream");
        let (count, f) = (self.frame_count(), h.frame_positions);
        frames.par_iter().try_for_each(|&k| {
            let first = k as u64 * f;
            let c = self.decode(&z.cells, 0, k).map_err(|e| self.fail(e))?;
            let r = self
                .decode(stream, count + 1, k)
                .map_err(|e| self.fail(e))?;
            // Frames start at multiples of 32 positions: whole words of both.
            store_bytes(&cells[(first / 32) as usize..], &c);
            store_bytes(&nibbles[(first / 16) as usize..], &r);
            Ok(())
        })
    }

    /// Frame `k` restored: its stored positions, then the left-out ones found by searches over
    /// their children (read from `kept`, the restored frames shared between threads).
    fn restore_frame(&self, k: usize, kept: Option<&FrameCache>) -> Result<RawFrame> {
        let h = self.header();
        let f = h.frame_positions;
        let first = k as u64 * f;
        let n = f.min(h.size - first);
        let encoding = h.remoteness_encoding;
        let StoredPart {
            mut cells,
            mut remoteness,
            searched,
        } = match kept {
            // A table that leaves one mover out keeps its restored frames for the searches.
            Some(kept) => StoredPart::from_kept(&self.kept_frame(kept, k)?, n, encoding),
            None => self.restore_stored(k)?,
        };
        if searched.iter().any(|&s| s) {
            self.search_left_out(
                kept.expect("left out means kept"),
                first,
                &searched,
                |i, code, r| {
                    cells[(i / 4) as usize] |= code << ((i % 4) * 2);
                    if !write_remoteness(encoding, &mut remoteness, code, i, r) {
                        return Err(Error::Convert(ConvertError::NibbleOverflow {
                            path: self.path().display().to_string(),
                            index: first + i,
                        }));
                    }
                    Ok(())
                },
            )?;
        }
        let grundy = match (
            &self.payload().frames().and_then(|z| z.grundy.as_ref()),
            h.grundy,
        ) {
            (Some(stream), Some(_)) => {
                let sums_first = h.grundy_sums().0 as usize;
                self.decode(stream, sums_first, k)
                    .map_err(|e| self.fail(e))?
            }
            _ => Vec::new(),
        };
        Ok(RawFrame {
            first,
            n,
            cells,
            encoding,
            remoteness,
            grundy,
        })
    }

    /// Frame `k`'s stored positions restored (cells, then remoteness, in one buffer), from
    /// `kept` or restored and kept there.
    fn kept_frame(&self, kept: &FrameCache, k: usize) -> Result<Arc<[u8]>> {
        kept.get(k as u64, || {
            Ok::<_, Error>(self.restore_stored(k)?.to_kept())
        })
    }

    /// Frame `k` decoded (checked first) and its positions restored but for those a one-mover
    /// table leaves out and only a search decides (left zero, and marked).
    fn restore_stored(&self, k: usize) -> Result<StoredPart> {
        let h = self.header();
        let z = self
            .payload()
            .frames()
            .expect("frames belong to compressed tables");
        let frames = self.frame_count();
        let f = h.frame_positions;
        let first = k as u64 * f;
        let n = f.min(h.size - first);
        let encoding = h.remoteness_encoding;
        let stored_cells = self.decode(&z.cells, 0, k).map_err(|e| self.fail(e))?;
        let stored_remoteness = match &z.remoteness {
            Some(stream) => self
                .decode(stream, frames + 1, k)
                .map_err(|e| self.fail(e))?,
            None => Vec::new(),
        };
        let omitted = h.encoding == Encoding::ZstdOmitted;
        let mut cells = vec![0u8; n.div_ceil(4) as usize];
        let mut remoteness = vec![0u8; encoding.frame_len(n) as usize];
        let mut searched = Vec::new();
        with_game!(self.game(), g => {
            // The rules a run at a time where the game can: all of them, or which need a search.
            let rules_run = g.rules_run(first, n);
            let run = if rules_run.is_some() { None } else { g.searched_run(first, n) };
            let left_out = if omitted { g.omissible_run(first, n) } else { None };
            if left_out.is_some() {
                searched = vec![false; n as usize];
            }
            for i in 0..n {
                let pos = first + i;
                let rules = match (&rules_run, &run) {
                    (Some(rules), _) => rules[i as usize],
                    (None, Some(s)) if s[i as usize] => Rules::Search,
                    // Decided by the rules: its status says how, without its children.
                    (None, Some(_)) => table_rules(g, pos),
                    (None, None) if !g.rules_known() => Rules::Search,
                    (None, None) => rules_of(g, pos),
                };
                let (code, r) = match rules {
                    Rules::Unused => (cells::UNUSED, None),
                    Rules::Known(v, r) => (cells::code(v), r),
                    Rules::Search if left_out.as_ref().is_some_and(|o| o[i as usize]) => {
                        searched[i as usize] = true;
                        continue;
                    }
                    Rules::Search if encoding == RemotenessEncoding::Nibbles => {
                        // A won or lost position's nibble as stored (what reading it and
                        // writing it back gives), a draw's zero.
                        let code = cells::get_in_bytes(&stored_cells, i);
                        cells[(i / 4) as usize] |= code << ((i % 4) * 2);
                        if matches!(code, cells::WIN | cells::LOSS) {
                            let at = (i / 2) as usize;
                            remoteness[at] |= stored_remoteness[at] & 15 << (4 * (i % 2));
                        }
                        continue;
                    }
                    Rules::Search => {
                        let code = cells::get_in_bytes(&stored_cells, i);
                        (code, read_remoteness(encoding, &stored_remoteness, code, i))
                    }
                };
                cells[(i / 4) as usize] |= code << ((i % 4) * 2);
                if !write_remoteness(encoding, &mut remoteness, code, i, r) {
                    return Err(Error::Convert(ConvertError::NibbleOverflow {
                        path: self.path().display().to_string(),
                        index: pos,
                    }));
                }
            }
            Ok::<(), Error>(())
        })?;
        Ok(StoredPart {
            cells,
            remoteness,
            searched,
        })
    }

    /// The one-move search ([`super::payload::OneMover`]) of each position `first + i` of a
    /// frame that `searched[i]` marks, its children read from the restored frames `kept`
    /// (fetched once per frame they lie in); `put(i, code, remoteness)` takes each answer.
    fn search_left_out(
        &self,
        kept: &FrameCache,
        first: u64,
        searched: &[bool],
        mut put: impl FnMut(u64, u8, Option<u32>) -> Result<()>,
    ) -> Result<()> {
        // The restored frames this frame's children lie in, fetched once each: a slot per frame
        // of the table, made once a thread (made for each frame, a 25-cell table's 623k slots
        // were 5 MB to zero each time) and emptied after, the slots used listed.
        thread_local! {
            static SLOTS: std::cell::RefCell<(Vec<Slot>, Vec<usize>)> =
                const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
        }
        SLOTS.with(|cell| {
            let (frames, used) = &mut *cell.borrow_mut();
            frames.resize(self.frame_count(), None);
            let found = self.search_left_out_in(kept, first, searched, frames, used, &mut put);
            for k in used.drain(..) {
                frames[k] = None;
            }
            found
        })
    }

    /// [`Table::search_left_out`] with `frames`, a slot per frame of the table, all empty,
    /// `used` listing those it fills.
    fn search_left_out_in(
        &self,
        kept: &FrameCache,
        first: u64,
        searched: &[bool],
        frames: &mut [Slot],
        used: &mut Vec<usize>,
        put: &mut impl FnMut(u64, u8, Option<u32>) -> Result<()>,
    ) -> Result<()> {
        let h = self.header();
        let f = h.frame_positions;
        let encoding = h.remoteness_encoding;
        let remoteness = encoding.is_stored();
        with_game!(self.game(), g => {
            for (i, _) in searched.iter().enumerate().filter(|(_, s)| **s) {
                let pos = first + i as u64;
                let mut s = Search::new(remoteness);
                let mut failed: Option<Error> = None;
                g.for_each_child(pos, |c| {
                    if s.failed.is_some() || failed.is_some() || (s.lost.is_some() && !remoteness) {
                        return;
                    }
                    if g.omissible(c) == Some(true) {
                        s.failed = Some(TableErrorKind::Game(format!(
                            "position {pos} and its child {c} are both left out"
                        )));
                        return;
                    }
                    let kc = c / f;
                    let slot = &mut frames[kc as usize];
                    if slot.is_none() {
                        match self.kept_frame(kept, kc as usize) {
                            Ok(b) => {
                                *slot = Some(b);
                                used.push(kc as usize);
                            }
                            Err(e) => {
                                failed = Some(e);
                                return;
                            }
                        }
                    }
                    let bytes = slot.as_ref().expect("just fetched");
                    let n = f.min(h.size - kc * f);
                    let (cells, rem) = bytes.split_at(n.div_ceil(4) as usize);
                    let j = c % f;
                    let code = cells::get_in_bytes(cells, j);
                    let r = if remoteness {
                        read_remoteness(encoding, rem, code, j)
                    } else {
                        None
                    };
                    s.see(pos, c, (code, r));
                });
                if let Some(e) = failed {
                    return Err(e);
                }
                let (code, r) = s.verdict().map_err(|e| self.fail(e))?;
                put(i as u64, code, r)?;
            }
            Ok::<(), Error>(())
        })
    }
}

/// Stores `bytes` into `words` from the first on, little-endian, the last word zero-padded.
pub(super) fn store_bytes(words: &[AtomicU64], bytes: &[u8]) {
    for (w, chunk) in words.iter().zip(bytes.chunks(8)) {
        let mut b = [0u8; 8];
        b[..chunk.len()].copy_from_slice(chunk);
        w.store(u64::from_le_bytes(b), Ordering::Relaxed);
    }
}

/// What the rules say of `pos` ([`crate::game::by_rules`]), its status and children found in
/// one step ([`Game::visit`]).
#[inline]
fn rules_of<G: Game>(g: &G, pos: u64) -> Rules {
    let mut children = 0u64;
    let status = g.visit(pos, |_| children += 1);
    Rules::of(status, || children)
}
