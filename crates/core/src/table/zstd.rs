//! Compressed payloads: the 2-bit cells (and the remoteness bytes) cut into frames of a fixed
//! number of positions, each an independent zstd frame with its content checksum, followed by a
//! seek table in the zstd seekable format — so stock zstd tools decompress the payload, and one
//! lookup decompresses one small frame. Decoded frames are kept in a small direct-mapped cache.
//!
//! Invariant: positions the rules decide on their own ([`crate::game::by_rules`]: unused
//! indices, games already over, positions without moves) are "don't care" in a compressed frame
//! and are never answered from it; everything else is answered only from a frame whose compressed
//! bytes match their recorded checksum and whose zstd content checksum matched on decoding.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use crate::table::format::Section;

/// The zstd seekable format's magic numbers.
const SKIPPABLE_MAGIC: u32 = 0x184D_2A5E;
const SEEKABLE_MAGIC: u32 = 0x8F92_EAB1;
const FOOTER: usize = 9;
const ENTRY: usize = 12;

/// How a table is compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Positions per frame: a multiple of 32.
    pub frame_positions: u64,
    /// zstd compression level (1..=22).
    pub level: i32,
    /// What goes into the cells of positions the rules decide alone.
    pub fill: DontCareFill,
    /// Leave out the positions the game marks omissible (cell games: Right to move), answered
    /// by a one-move search when looked up (values-only tables).
    pub one_mover: bool,
    /// Train a zstd dictionary on a sample of the frames and keep it when it makes the file
    /// smaller (`train_dictionary`).
    pub dictionary: bool,
}

/// The content of "don't care" cells (positions the rules decide alone). Only the size of the
/// file depends on it; readers never look at those cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DontCareFill {
    /// Per frame, whichever of `stored`, `previous` and `second` compresses smallest.
    Best,
    /// The code of the cell before, so runs grow longer.
    Previous,
    /// Zero.
    Zero,
    /// The code two cells before (in layouts that alternate the mover, the same mover's
    /// neighbour).
    Second,
    /// The true value, as a raw table has it (no don't-care at all).
    Stored,
}

impl Default for Params {
    /// Chosen by measurement on `hex:4` and `bridgit:3` (docs/FORMAT.md).
    fn default() -> Self {
        Params {
            frame_positions: 1 << 16,
            level: 15,
            fill: DontCareFill::Best,
            one_mover: false,
            dictionary: true,
        }
    }
}

/// One frame's entry in a seek table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub compressed: u32,
    pub decompressed: u32,
    /// Low 32 bits of the XXH64 of the decompressed bytes.
    pub checksum: u32,
}

/// The most bytes a trained dictionary takes: measured on the 25-cell tables' frames of 65,536
/// positions, 64 KiB compressed them smaller than 32 or 128 KiB (docs/FORMAT.md).
pub const DICTIONARY_BYTES: usize = 64 << 10;

/// Dictionaries trained on `samples` (whole frames' bytes) for frames compressed at `level`, by
/// zstd's fastCover trainer two ways: with fixed segments (`k = 1024`, `d = 8`), and with four
/// segment sizes tried on a quarter of the samples held out. Neither wins everywhere: on
/// Bridg-It 4's frames the fixed one fills the 64 KiB and compresses them 10% smaller, while the
/// search stops near 34 KiB; on `hex:4` the search's is 15% better (docs/FORMAT.md). One thread
/// each, so the same samples give the same dictionaries everywhere (ids are content hashes).
/// Empty when zstd cannot make one (too few or too small samples).
pub fn train_dictionaries(samples: &[Vec<u8>], level: i32) -> Vec<Vec<u8>> {
    use zstd::zstd_safe::zstd_sys;
    let total: usize = samples.iter().map(Vec::len).sum();
    let max = DICTIONARY_BYTES.min(total / 8);
    if samples.len() < 8 || max < 1024 {
        return Vec::new();
    }
    let flat = samples.concat();
    let sizes: Vec<usize> = samples.iter().map(Vec::len).collect();
    let params = |k, steps| zstd_sys::ZDICT_fastCover_params_t {
        k,
        d: 8,
        // Zeros ask for the defaults: f = 20, accel = 1, a 75/25 split for a search.
        f: 0,
        steps,
        nbThreads: 1,
        splitPoint: 0.0,
        accel: 0,
        shrinkDict: 0,
        shrinkDictMaxRegression: 0,
        zParams: zstd_sys::ZDICT_params_t {
            compressionLevel: level,
            notificationLevel: 0,
            dictID: 0,
        },
    };
    let finish = |mut dict: Vec<u8>, n: usize| {
        // SAFETY: a pure function of the code.
        let failed = unsafe { zstd_sys::ZDICT_isError(n) } != 0;
        (!failed && n > 0).then(|| {
            dict.truncate(n);
            dict
        })
    };
    let mut fixed = vec![0u8; max];
    // SAFETY: `fixed` is writable for its length, `flat` holds the samples whose lengths `sizes`
    // lists (as many as `nbSamples` says).
    let n = unsafe {
        zstd_sys::ZDICT_trainFromBuffer_fastCover(
            fixed.as_mut_ptr().cast(),
            fixed.len(),
            flat.as_ptr().cast(),
            sizes.as_ptr(),
            sizes.len() as u32,
            params(1024, 0),
        )
    };
    let mut searched = vec![0u8; max];
    // Four values of k, as zstd's default trainer tries: each is judged by compressing the
    // held-out samples at `level`, which at level 15 made forty take minutes on `hex:4`.
    let mut search = params(0, 4);
    // SAFETY: as above; `search` is a valid parameter block the call may update.
    let m = unsafe {
        zstd_sys::ZDICT_optimizeTrainFromBuffer_fastCover(
            searched.as_mut_ptr().cast(),
            searched.len(),
            flat.as_ptr().cast(),
            sizes.as_ptr(),
            sizes.len() as u32,
            &mut search,
        )
    };
    [finish(fixed, n), finish(searched, m)]
        .into_iter()
        .flatten()
        .collect()
}

/// Compresses one frame's bytes with the content checksum on, with the prepared dictionary
/// `dictionary` when there is one.
pub fn compress_frame(
    bytes: &[u8],
    level: i32,
    dictionary: Option<&zstd::dict::EncoderDictionary<'_>>,
) -> std::io::Result<(Vec<u8>, Entry)> {
    let out = match dictionary {
        Some(d) => {
            let mut c = zstd::bulk::Compressor::with_prepared_dictionary(d)?;
            c.include_checksum(true)?;
            c.include_contentsize(true)?;
            c.compress(bytes)?
        }
        // A context a thread and level, made once: making one took 3% of an out-of-core
        // build's time when each frame made its own.
        None => COMPRESSOR.with(|slot| -> std::io::Result<Vec<u8>> {
            let mut slot = slot.borrow_mut();
            if slot.as_ref().is_none_or(|(l, _)| *l != level) {
                let mut c = zstd::bulk::Compressor::new(level)?;
                c.include_checksum(true)?;
                c.include_contentsize(true)?;
                *slot = Some((level, c));
            }
            let (_, c) = slot.as_mut().expect("made above");
            c.compress(bytes)
        })?,
    };
    let entry = Entry {
        compressed: out.len() as u32,
        decompressed: bytes.len() as u32,
        checksum: xxhash_rust::xxh64::xxh64(bytes, 0) as u32,
    };
    Ok((out, entry))
}

/// The seek table frame for these entries (checksum flag set).
pub fn seek_table(entries: &[Entry]) -> Vec<u8> {
    let mut b = Vec::with_capacity(8 + entries.len() * ENTRY + FOOTER);
    b.extend_from_slice(&SKIPPABLE_MAGIC.to_le_bytes());
    b.extend_from_slice(&((entries.len() * ENTRY + FOOTER) as u32).to_le_bytes());
    for e in entries {
        b.extend_from_slice(&e.compressed.to_le_bytes());
        b.extend_from_slice(&e.decompressed.to_le_bytes());
        b.extend_from_slice(&e.checksum.to_le_bytes());
    }
    b.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    b.push(0x80);
    b.extend_from_slice(&SEEKABLE_MAGIC.to_le_bytes());
    b
}

/// A parsed, checked stream: where each frame starts within the file.
#[derive(Clone, Debug)]
pub struct Stream {
    pub section: Section,
    /// File offset of frame `k` is `starts[k]`; `starts[frames]` is the seek table's offset.
    pub starts: Vec<u64>,
    pub entries: Vec<Entry>,
}

impl Stream {
    pub fn frames(&self) -> usize {
        self.entries.len()
    }

    /// The seek table frame's bytes range in the file.
    pub fn table_range(&self) -> (u64, u64) {
        (self.starts[self.frames()], self.section.end())
    }

    /// Reads the seek table at the end of `section` and checks it against the expected frame
    /// count and the decompressed size of each frame.
    pub fn parse(
        file: &[u8],
        section: Section,
        frames: u64,
        decompressed: impl Fn(u64) -> u64,
    ) -> Result<Stream, StreamError> {
        let bytes = &file[section.offset as usize..section.end() as usize];
        let need = 8 + frames as usize * ENTRY + FOOTER;
        if bytes.len() < need {
            return Err(StreamError::Short);
        }
        let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
        let end = bytes.len();
        if u32_at(end - 4) != SEEKABLE_MAGIC {
            return Err(StreamError::Magic);
        }
        if bytes[end - 5] & 0x7C != 0 || bytes[end - 5] & 0x80 == 0 {
            return Err(StreamError::Descriptor);
        }
        if u32_at(end - 9) as u64 != frames {
            return Err(StreamError::Frames {
                listed: u32_at(end - 9) as u64,
                need: frames,
            });
        }
        let table = end - need;
        if u32_at(table) != SKIPPABLE_MAGIC || u32_at(table + 4) as usize != need - 8 {
            return Err(StreamError::Header);
        }
        let mut starts = Vec::with_capacity(frames as usize + 1);
        let mut entries = Vec::with_capacity(frames as usize);
        let mut at = 0u64;
        for k in 0..frames as usize {
            let o = table + 8 + k * ENTRY;
            let e = Entry {
                compressed: u32_at(o),
                decompressed: u32_at(o + 4),
                checksum: u32_at(o + 8),
            };
            if e.decompressed as u64 != decompressed(k as u64) {
                return Err(StreamError::FrameSize { frame: k as u64 });
            }
            starts.push(section.offset + at);
            at += e.compressed as u64;
            entries.push(e);
        }
        if at != table as u64 {
            return Err(StreamError::Offsets);
        }
        starts.push(section.offset + at);
        Ok(Stream {
            section,
            starts,
            entries,
        })
    }

    /// The compressed bytes of frame `k`.
    pub fn frame<'a>(&self, file: &'a [u8], k: usize) -> &'a [u8] {
        &file[self.starts[k] as usize..self.starts[k + 1] as usize]
    }
}

thread_local! {
    static COMPRESSOR: RefCell<Option<(i32, zstd::bulk::Compressor<'static>)>> =
        const { RefCell::new(None) };
    static DECODER: RefCell<Option<zstd::zstd_safe::DCtx<'static>>> = const { RefCell::new(None) };
}

/// What is wrong with a compressed stream's seek table (the table is damaged).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StreamError {
    #[error("compressed stream is shorter than its seek table")]
    Short,
    #[error("seek table magic missing at the end of the stream")]
    Magic,
    #[error("seek table descriptor is not the one retrodb writes")]
    Descriptor,
    #[error("seek table lists {listed} frames, the table needs {need}")]
    Frames { listed: u64, need: u64 },
    #[error("seek table frame header is damaged")]
    Header,
    #[error("frame {frame} has the wrong decompressed size")]
    FrameSize { frame: u64 },
    #[error("frame sizes do not add up to the seek table's offset")]
    Offsets,
}

/// Why a frame did not decompress (the table is damaged).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    /// zstd's own error (its name).
    #[error("zstd: {error}")]
    Zstd { error: String },
    #[error("decompressed to {got} bytes instead of {expected}")]
    Size { got: usize, expected: usize },
}

/// Decompresses one frame of known size (zstd checks its content checksum), with the table's
/// dictionary when it has one.
pub fn decompress_frame(
    frame: &[u8],
    size: usize,
    dictionary: Option<&zstd::zstd_safe::DDict<'static>>,
) -> Result<Vec<u8>, FrameError> {
    DECODER.with(|d| {
        let mut d = d.borrow_mut();
        let dctx = d.get_or_insert_with(zstd::zstd_safe::DCtx::create);
        let mut out = Vec::with_capacity(size);
        let done = match dictionary {
            Some(dict) => dctx.decompress_using_ddict(&mut out, frame, dict),
            None => dctx.decompress(&mut out, frame),
        };
        if let Err(code) = done {
            // A failed frame may leave the context mid-frame: the next decode starts afresh.
            *d = None;
            return Err(FrameError::Zstd {
                error: zstd::zstd_safe::get_error_name(code).to_string(),
            });
        }
        if out.len() != size {
            return Err(FrameError::Size {
                got: out.len(),
                expected: size,
            });
        }
        Ok(out)
    })
}

/// One cache slot: the key of the frame it holds and the decoded bytes.
type Slot = Mutex<Option<(u64, Arc<[u8]>)>>;

/// A cache of decoded frames, two ways to a set, safe to share between threads. A full
/// probe's frames (the position's, its children's and grandchildren's, some 30) fell on each
/// other's slot often enough in a direct-mapped cache that a hot probe decoded frames again.
pub struct FrameCache {
    /// Set `s`'s two slots are `2 * s` and `2 * s + 1`.
    slots: Vec<Slot>,
    /// Each set's way used last: a miss replaces the other.
    recent: Vec<AtomicU8>,
}

impl FrameCache {
    /// A cache of about `bytes` bytes of frames of `frame_bytes` bytes, for `frames` frames.
    pub fn new(bytes: u64, frame_bytes: u64, frames: u64) -> FrameCache {
        let n = (bytes / frame_bytes.max(1)).clamp(1, frames.max(1));
        let sets = n.div_ceil(2);
        FrameCache {
            slots: (0..2 * sets).map(|_| Mutex::new(None)).collect(),
            recent: (0..sets).map(|_| AtomicU8::new(0)).collect(),
        }
    }

    /// The decoded frame `key`, decoded with `decode` on a miss (and kept).
    pub fn get<E>(
        &self,
        key: u64,
        decode: impl FnOnce() -> Result<Vec<u8>, E>,
    ) -> Result<Arc<[u8]>, E> {
        self.with_kept(key, decode, Arc::clone)
    }

    /// Runs `read` on the decoded frame `key`, decoding it with `decode` on a miss.
    pub fn with<R, E>(
        &self,
        key: u64,
        decode: impl FnOnce() -> Result<Vec<u8>, E>,
        read: impl FnOnce(&[u8]) -> R,
    ) -> Result<R, E> {
        self.with_kept(key, decode, |b| read(b))
    }

    fn with_kept<R, E>(
        &self,
        key: u64,
        decode: impl FnOnce() -> Result<Vec<u8>, E>,
        read: impl FnOnce(&Arc<[u8]>) -> R,
    ) -> Result<R, E> {
        // Keys are frame numbers: consecutive frames take consecutive sets, and a cache with a
        // slot per frame never evicts (a set takes at most two keys).
        let set = (key % self.recent.len() as u64) as usize;
        for way in 0..2 {
            let guard = self.slots[2 * set + way]
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            if let Some((k, bytes)) = guard.as_ref()
                && *k == key
            {
                // Written only when it changes: batches look frames up from every thread.
                if self.recent[set].load(Ordering::Relaxed) != way as u8 {
                    self.recent[set].store(way as u8, Ordering::Relaxed);
                }
                return Ok(read(bytes));
            }
        }
        let bytes: Arc<[u8]> = Arc::from(decode()?);
        let r = read(&bytes);
        let way = 1 - self.recent[set].load(Ordering::Relaxed) as usize;
        *self.slots[2 * set + way]
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = Some((key, bytes));
        self.recent[set].store(way as u8, Ordering::Relaxed);
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_round_trip_and_stock_zstd_reads_it() {
        let frames: Vec<Vec<u8>> = (0..5u8).map(|k| vec![k; 1000 + k as usize]).collect();
        let mut file = vec![0u8; 16];
        let mut entries = Vec::new();
        for f in &frames {
            let (c, e) = compress_frame(f, 3, None).unwrap();
            file.extend_from_slice(&c);
            entries.push(e);
        }
        file.extend_from_slice(&seek_table(&entries));
        let sec = Section {
            offset: 16,
            len: file.len() as u64 - 16,
        };
        let s = Stream::parse(&file, sec, 5, |k| 1000 + k).unwrap();
        for (k, f) in frames.iter().enumerate() {
            assert_eq!(
                &decompress_frame(s.frame(&file, k), f.len(), None).unwrap(),
                f
            );
        }
        // The stock streaming decoder reads all frames and skips the seek table.
        let all = zstd::stream::decode_all(&file[16..]).unwrap();
        assert_eq!(all, frames.concat());
        // A wrong frame count or size is refused.
        assert!(Stream::parse(&file, sec, 4, |k| 1000 + k).is_err());
        assert!(Stream::parse(&file, sec, 5, |_| 1000).is_err());
    }

    #[test]
    fn a_damaged_frame_fails_to_decode() {
        let data: Vec<u8> = (0..4096u32).map(|i| (i * 7 % 13) as u8).collect();
        let (mut c, _) = compress_frame(&data, 3, None).unwrap();
        let mid = c.len() / 2;
        c[mid] ^= 0x10;
        assert!(decompress_frame(&c, data.len(), None).is_err());
    }

    #[test]
    fn cache_returns_what_was_decoded() {
        let cache = FrameCache::new(1 << 20, 100, 10);
        let mut decodes = 0;
        for _ in 0..3 {
            let v = cache
                .with(
                    7,
                    || {
                        decodes += 1;
                        Ok::<_, String>(vec![7; 100])
                    },
                    |b| b[3],
                )
                .unwrap();
            assert_eq!(v, 7);
        }
        assert_eq!(decodes, 1);
    }

    /// Two frames of one set stay together; a third replaces the one used less recently.
    #[test]
    fn a_set_keeps_its_two_most_recent_frames() {
        // Four slots, two sets: keys 0, 2 and 4 share set 0.
        let cache = FrameCache::new(400, 100, 10);
        let decoded = std::cell::RefCell::new(Vec::new());
        let read = |key: u64| {
            let b = cache
                .get(key, || {
                    decoded.borrow_mut().push(key);
                    Ok::<_, String>(vec![key as u8; 100])
                })
                .unwrap();
            assert_eq!(b[99], key as u8);
        };
        for key in [0, 2, 0, 2, 0, 4, 0, 2] {
            read(key);
        }
        // 4 replaced 2 (0 was used last), and 2 then replaced 4.
        assert_eq!(*decoded.borrow(), vec![0, 2, 4, 2]);
    }
}
