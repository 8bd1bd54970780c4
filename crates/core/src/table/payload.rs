//! The payload readers of a table, over plain `&[u8]` (a memory map, a `Vec`, a slice), behind
//! one trait, [`CellSource`]: a position's code and remoteness from checked bytes. Its
//! implementations are the encodings' readers — [`RawBlocks`] (raw blocks checked against their
//! checksums once each), [`ZstdFrames`] (compressed frames checked and decoded through a cache,
//! the rules answering the "don't care" positions) — and [`OneMover`] (`payload/one_mover.rs`),
//! the one-mover omission as a wrapper around any payload: it answers a left-out position by a one-ply search over its
//! children's values, which the payload inside stores. [`Payload`] is the one dispatch point, an
//! enum of the concrete readers (no dynamic call per cell). Also the checks of the bytes no
//! checksum covers.
//!
//! Invariant: no byte of the payload reaches a caller before the checksum that covers it has
//! matched — a raw block on first use (remembered in a bit), a compressed frame on every decode;
//! and none is answered after the file changed under a map ([`Stored::intact`]).

use std::sync::atomic::{AtomicU64, Ordering};

use super::format::{Header, RemotenessEncoding, Section, get_remoteness, remoteness_of_nibble};
use super::read::guard::FileGuard;
use super::zstd::{FrameCache, Stream, decompress_frame};
use crate::base::cells;
use crate::base::error::table::{Checked, TableErrorKind};
use crate::game::{Rules, table_rules};
use crate::games::AnyGame;
use crate::with_game;

/// An answer of a payload, or why the table cannot give it.
type Answer<T> = Result<T, TableErrorKind>;

mod one_mover;
pub(super) use one_mover::{OneMover, Search};

/// What a payload reads a position from: the table's bytes, header and checksum list, its game
/// (the rules answer what a compressed table leaves "don't care") and the guard of a mapped
/// file.
pub(super) struct Stored<'a> {
    pub bytes: &'a [u8],
    pub header: &'a Header,
    pub sums: &'a [u64],
    pub game: &'a AnyGame,
    pub guard: Option<&'a FileGuard>,
}

impl Stored<'_> {
    /// `Err` when a read fell past the file's end or a check saw it change: every read calls
    /// it after reading, so zeros read in place of a vanished page never answer.
    #[inline]
    pub fn intact(&self) -> Answer<()> {
        match self.guard {
            Some(g) if g.tripped() => Err(g.changed_kind()),
            _ => Ok(()),
        }
    }

    /// What the rules say of `pos`.
    #[inline]
    fn rules(&self, pos: u64) -> Rules {
        with_game!(self.game, g => table_rules(g, pos))
    }
}

/// A payload's reader: the code and remoteness of a position below the table's size, each
/// from bytes whose checksum has matched. An encoding implements the two `stored_` methods (the
/// bytes as they are); a payload that leaves positions "don't care" or out answers them in
/// `code` and `remoteness` (whose defaults are the stored values).
pub(super) trait CellSource {
    /// The code of `pos` as the payload stores it.
    fn stored_code(&self, at: &Stored<'_>, pos: u64) -> Answer<u8>;

    /// The remoteness of `pos` as the payload stores it (a table with remoteness), where a
    /// nibble is read relative to the position's stored code, `stored_code`.
    fn stored_remoteness(
        &self,
        at: &Stored<'_>,
        pos: u64,
        stored_code: impl FnOnce() -> Answer<u8>,
    ) -> Answer<Option<u32>>;

    /// The code of `pos` (0 for an unused index).
    #[inline]
    fn code(&self, at: &Stored<'_>, pos: u64) -> Answer<u8> {
        self.stored_code(at, pos)
    }

    /// The remoteness of `pos` (a table with remoteness).
    #[inline]
    fn remoteness(&self, at: &Stored<'_>, pos: u64) -> Answer<Option<u32>> {
        self.stored_remoteness(at, pos, || self.stored_code(at, pos))
    }

    /// The code and the remoteness (`None` without remoteness) of `pos` in one lookup: by
    /// default the cell is read once and nibbles taken relative to it.
    #[inline]
    fn code_and_remoteness(&self, at: &Stored<'_>, pos: u64) -> Answer<(u8, Option<u32>)> {
        let code = self.code(at, pos)?;
        let remoteness = if at.header.remoteness_encoding.is_stored() {
            self.stored_remoteness(at, pos, || Ok(code))?
        } else {
            None
        };
        Ok((code, remoteness))
    }
}

/// How the cells and remoteness are stored: the one dispatch point over the payload readers.
pub(super) enum Payload {
    Raw(RawBlocks),
    Zstd(ZstdFrames),
    /// Compressed, one mover left out (`Encoding::ZstdOmitted`).
    ZstdOmitted(OneMover<ZstdFrames>),
}

impl Payload {
    /// The compressed frames, where the payload is compressed.
    #[inline]
    pub fn frames(&self) -> Option<&ZstdFrames> {
        match self {
            Payload::Raw(_) => None,
            Payload::Zstd(z) | Payload::ZstdOmitted(OneMover(z)) => Some(z),
        }
    }

    /// The raw blocks, where the payload is raw.
    #[inline]
    pub fn raw(&self) -> Option<&RawBlocks> {
        match self {
            Payload::Raw(r) => Some(r),
            _ => None,
        }
    }
}

/// Calls `$call` on the concrete reader of a [`Payload`].
macro_rules! dispatch {
    ($payload:expr, $p:ident => $call:expr) => {
        match $payload {
            Payload::Raw($p) => $call,
            Payload::Zstd($p) => $call,
            Payload::ZstdOmitted($p) => $call,
        }
    };
}

impl CellSource for Payload {
    #[inline]
    fn stored_code(&self, at: &Stored<'_>, pos: u64) -> Answer<u8> {
        dispatch!(self, p => p.stored_code(at, pos))
    }

    #[inline]
    fn stored_remoteness(
        &self,
        at: &Stored<'_>,
        pos: u64,
        stored_code: impl FnOnce() -> Answer<u8>,
    ) -> Answer<Option<u32>> {
        dispatch!(self, p => p.stored_remoteness(at, pos, stored_code))
    }

    #[inline]
    fn code(&self, at: &Stored<'_>, pos: u64) -> Answer<u8> {
        dispatch!(self, p => p.code(at, pos))
    }

    #[inline]
    fn remoteness(&self, at: &Stored<'_>, pos: u64) -> Answer<Option<u32>> {
        dispatch!(self, p => p.remoteness(at, pos))
    }

    #[inline]
    fn code_and_remoteness(&self, at: &Stored<'_>, pos: u64) -> Answer<(u8, Option<u32>)> {
        dispatch!(self, p => p.code_and_remoteness(at, pos))
    }
}

/// A position's stored remoteness from its stored bytes `b` (the byte holding its nibble, or
/// its `w` bytes), a nibble read relative to the stored code.
#[inline]
fn remoteness_from(
    encoding: RemotenessEncoding,
    pos: u64,
    b: [u8; 4],
    stored_code: impl FnOnce() -> Answer<u8>,
) -> Answer<Option<u32>> {
    match encoding {
        RemotenessEncoding::Nibbles => {
            let n = b[0] >> (4 * (pos % 2)) & 15;
            Ok(remoteness_of_nibble(stored_code()?, n))
        }
        RemotenessEncoding::Bytes(w) => Ok(get_remoteness(&b[..w as usize])),
        RemotenessEncoding::None => unreachable!("asked only of tables with remoteness"),
    }
}

/// The first `b.len()` (at most 4) bytes of a word.
#[inline]
fn take(b: &[u8]) -> [u8; 4] {
    let mut out = [0u8; 4];
    out[..b.len()].copy_from_slice(b);
    out
}

/// Where a position's remoteness starts in its section (or frame, from `i` its place in the
/// frame) and how many bytes it takes: half a byte a position in nibbles (the lower index in
/// the low half), `w` bytes each.
#[inline]
fn remoteness_place(encoding: RemotenessEncoding, i: u64) -> (u64, usize) {
    match encoding {
        RemotenessEncoding::Nibbles => (i / 2, 1),
        RemotenessEncoding::Bytes(w) => (i * w as u64, w as usize),
        RemotenessEncoding::None => unreachable!("asked only of tables with remoteness"),
    }
}

/// A raw payload: which checksum blocks have been seen to match.
pub(super) struct RawBlocks {
    /// One bit per checksum block: set once the block has been seen to match.
    verified: Vec<AtomicU64>,
}

impl RawBlocks {
    pub fn new(blocks: usize) -> RawBlocks {
        RawBlocks {
            verified: (0..blocks.div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
        }
    }

    /// Checks the block that holds byte `at` of `section` (once); `first_block` is the index of
    /// the section's first block in the checksum list `sums`.
    pub fn check_block(
        &self,
        bytes: &[u8],
        header: &Header,
        sums: &[u64],
        (section, first_block): (Section, u64),
        at: u64,
    ) -> Result<(), TableErrorKind> {
        let block = header.block as u64;
        let k = first_block + at / block;
        let (word, bit) = Self::bit_of(k);
        if self.verified[word].load(Ordering::Relaxed) & bit != 0 {
            return Ok(());
        }
        let start = section.offset + (at / block) * block;
        let end = (start + block).min(section.end());
        let hash = xxhash_rust::xxh3::xxh3_64(&bytes[start as usize..end as usize]);
        if hash != sums[k as usize] {
            return Err(TableErrorKind::Checksum {
                section: Checked::Blocks,
                block: Some(k),
            });
        }
        self.verified[word].fetch_or(bit, Ordering::Relaxed);
        Ok(())
    }

    /// [`RawBlocks::check_block`] of `at`'s bytes, a file that changed under its map said so
    /// first (zeros read from a vanished page fail the checksum). The lookups' hot path: a
    /// block seen to match before is one bit test here, inlined into the reader; the first
    /// look at a block hashes it out of line.
    #[inline(always)]
    pub fn checked(&self, at: &Stored<'_>, section: (Section, u64), byte: u64) -> Answer<()> {
        let (word, bit) = Self::bit_of(section.1 + byte / at.header.block as u64);
        if self.verified[word].load(Ordering::Relaxed) & bit != 0 {
            return at.intact();
        }
        self.checked_first(at, section, byte)
    }

    /// The word and bit of checksum block `k` in the blocks seen to match.
    #[inline(always)]
    fn bit_of(k: u64) -> (usize, u64) {
        ((k / 64) as usize, 1u64 << (k % 64))
    }

    /// [`RawBlocks::checked`] of a block not yet seen to match.
    #[cold]
    #[inline(never)]
    fn checked_first(&self, at: &Stored<'_>, section: (Section, u64), byte: u64) -> Answer<()> {
        let checked = self.check_block(at.bytes, at.header, at.sums, section, byte);
        at.intact()?;
        checked
    }
}

impl CellSource for RawBlocks {
    #[inline]
    fn stored_code(&self, at: &Stored<'_>, pos: u64) -> Answer<u8> {
        let c = at.header.cells;
        self.checked(at, (c, 0), pos / 4)?;
        let code = cells::get_in_bytes(&at.bytes[c.offset as usize..c.end() as usize], pos);
        at.intact()?;
        Ok(code)
    }

    #[inline]
    fn stored_remoteness(
        &self,
        at: &Stored<'_>,
        pos: u64,
        stored_code: impl FnOnce() -> Answer<u8>,
    ) -> Answer<Option<u32>> {
        let h = at.header;
        let (place, w) = remoteness_place(h.remoteness_encoding, pos);
        let sec = h.remoteness;
        self.checked(at, (sec, h.cells.blocks(h.block as u64)), place)?;
        let from = (sec.offset + place) as usize;
        let stored = take(&at.bytes[from..from + w]);
        at.intact()?;
        remoteness_from(h.remoteness_encoding, pos, stored, stored_code)
    }
}

/// A compressed payload: the cells' stream of frames, the remoteness' if stored, the zstd
/// dictionary the frames were made with if any, and a cache of decoded frames.
pub(super) struct ZstdFrames {
    pub cells: Stream,
    pub remoteness: Option<Stream>,
    /// The generalized Sprague-Grundy codes, where the table has them.
    pub grundy: Option<Stream>,
    pub dictionary: Option<zstd::zstd_safe::DDict<'static>>,
    /// The remoteness stream's dictionary, where it has one (version 7).
    pub remoteness_dictionary: Option<zstd::zstd_safe::DDict<'static>>,
    pub cache: FrameCache,
}

impl ZstdFrames {
    /// Parses the streams of a compressed table and checks their seek tables.
    pub fn open(
        bytes: &[u8],
        header: &Header,
        sums: &[u64],
        cache_bytes: u64,
    ) -> Result<ZstdFrames, TableErrorKind> {
        let f = header.frame_positions;
        let size = header.size;
        let frames = size.div_ceil(f);
        let positions = |k: u64| f.min(size - k * f);
        let cells = open_stream(bytes, sums, 0, header.cells, frames, |k| {
            positions(k).div_ceil(4)
        })?;
        let encoding = header.remoteness_encoding;
        let remoteness = if encoding.is_stored() {
            let first = frames as usize + 1;
            Some(open_stream(
                bytes,
                sums,
                first,
                header.remoteness,
                frames,
                |k| encoding.frame_len(positions(k)),
            )?)
        } else {
            None
        };
        let grundy = match &header.grundy {
            Some(g) => {
                let first = header.grundy_sums().0 as usize;
                let w = g.width as u64;
                Some(open_stream(bytes, sums, first, g.values, frames, |k| {
                    positions(k) * w
                })?)
            }
            None => None,
        };
        // The dictionaries' checksums are the list's last (docs/FORMAT.md): the cells', then
        // the remoteness'; each is checked before zstd reads a byte of it.
        let dictionary_at = |d: Section, from_end: usize, section: Checked| {
            if d.len == 0 {
                return Ok(None);
            }
            let dict = &bytes[d.offset as usize..d.end() as usize];
            let sum = sums.len().checked_sub(from_end + 1).map(|i| sums[i]);
            if sum.is_none_or(|sum| xxhash_rust::xxh3::xxh3_64(dict) != sum) {
                return Err(TableErrorKind::Checksum {
                    section,
                    block: None,
                });
            }
            Ok(Some(zstd::zstd_safe::DDict::create(dict)))
        };
        let rem_dict = header.remoteness_dictionary;
        let remoteness_dictionary = dictionary_at(rem_dict, 0, Checked::RemotenessDictionary)?;
        let dictionary = dictionary_at(
            header.dictionary,
            (rem_dict.len > 0) as usize,
            Checked::Dictionary,
        )?;
        let grundy_bytes = header.grundy.map_or(0, |g| f * g.width as u64);
        let frame_bytes = f / 4 + encoding.frame_len(f) + grundy_bytes;
        Ok(ZstdFrames {
            cells,
            remoteness,
            grundy,
            dictionary,
            remoteness_dictionary,
            // Keys: cells' frames, then the remoteness' and the codes' (`frames` apart).
            cache: FrameCache::new(
                cache_bytes,
                frame_bytes,
                frames * if header.grundy.is_some() { 3 } else { 2 },
            ),
        })
    }

    /// Decodes frame `k` of `stream`, checking the compressed bytes first; `sums_first` is the
    /// index of the stream's first frame in the checksum list.
    pub fn decode(
        &self,
        bytes: &[u8],
        sums: &[u64],
        stream: &Stream,
        sums_first: usize,
        k: usize,
    ) -> Result<Vec<u8>, TableErrorKind> {
        let frame = stream.frame(bytes, k);
        if xxhash_rust::xxh3::xxh3_64(frame) != sums[sums_first + k] {
            return Err(TableErrorKind::Checksum {
                section: Checked::Frames,
                block: Some(k as u64),
            });
        }
        // The cells stream is first in the checksum list, the remoteness stream second.
        let dictionary = if sums_first == 0 {
            self.dictionary.as_ref()
        } else if self.remoteness.is_some() && sums_first == self.cells.frames() + 1 {
            self.remoteness_dictionary.as_ref()
        } else {
            None
        };
        decompress_frame(frame, stream.entries[k].decompressed as usize, dictionary)
            .map_err(|e| TableErrorKind::Damaged(format!("frame {k}: {e}")))
    }
}

impl ZstdFrames {
    /// [`ZstdFrames::decode`] from `at`'s bytes, a file that changed under its map said so
    /// first.
    #[inline]
    pub fn decoded(
        &self,
        at: &Stored<'_>,
        stream: &Stream,
        sums_first: usize,
        k: usize,
    ) -> Answer<Vec<u8>> {
        let decoded = self.decode(at.bytes, at.sums, stream, sums_first, k);
        at.intact()?;
        decoded
    }
}

/// A compressed table stores "don't care" where the rules decide a position: the rules answer
/// it, though its frames are decoded (and so checked) all the same, so no answer ever comes
/// from a damaged part of the file.
impl CellSource for ZstdFrames {
    #[inline]
    fn stored_code(&self, at: &Stored<'_>, pos: u64) -> Answer<u8> {
        let f = at.header.frame_positions;
        let (k, i) = ((pos / f) as usize, pos % f);
        self.cache.with(
            k as u64,
            || self.decoded(at, &self.cells, 0, k),
            |b| cells::get_in_bytes(b, i),
        )
    }

    #[inline]
    fn stored_remoteness(
        &self,
        at: &Stored<'_>,
        pos: u64,
        stored_code: impl FnOnce() -> Answer<u8>,
    ) -> Answer<Option<u32>> {
        let h = at.header;
        let stream = self.remoteness.as_ref().expect("remoteness means a stream");
        let f = h.frame_positions;
        let k = (pos / f) as usize;
        // Frames start at multiples of 32 positions: a nibble frame at a whole byte.
        let (place, w) = remoteness_place(h.remoteness_encoding, pos % f);
        let frames = h.size.div_ceil(f.max(1)) as usize;
        let stored = self.cache.with(
            (frames + k) as u64,
            || self.decoded(at, stream, frames + 1, k),
            |b| take(&b[place as usize..place as usize + w]),
        )?;
        remoteness_from(h.remoteness_encoding, pos, stored, stored_code)
    }

    #[inline]
    fn code(&self, at: &Stored<'_>, pos: u64) -> Answer<u8> {
        let stored = self.stored_code(at, pos)?;
        Ok(ruled(at.rules(pos), (stored, None)).0)
    }

    #[inline]
    fn remoteness(&self, at: &Stored<'_>, pos: u64) -> Answer<Option<u32>> {
        let stored = self.stored_remoteness(at, pos, || self.stored_code(at, pos))?;
        Ok(ruled(at.rules(pos), (cells::UNUSED, stored)).1)
    }

    /// The stored code and remoteness, then the rules asked once (where `code` and
    /// `remoteness` apart ask them twice: on a sliced index that is two unrankings).
    #[inline]
    fn code_and_remoteness(&self, at: &Stored<'_>, pos: u64) -> Answer<(u8, Option<u32>)> {
        let code = self.stored_code(at, pos)?;
        let stored = at.header.remoteness_encoding.is_stored();
        let remoteness = if stored {
            self.stored_remoteness(at, pos, || Ok(code))?
        } else {
            None
        };
        let (code, remoteness) = ruled(at.rules(pos), (code, remoteness));
        Ok((code, remoteness.filter(|_| stored)))
    }
}

/// A position's code and remoteness: what the rules say of it, or where they need a search,
/// `stored` (the payload's bytes, "don't care" wherever the rules decide).
#[inline]
fn ruled(rules: Rules, stored: (u8, Option<u32>)) -> (u8, Option<u32>) {
    match rules {
        Rules::Unused => (cells::UNUSED, None),
        Rules::Known(v, r) => (cells::code(v), r),
        Rules::Search => stored,
    }
}

/// Parses a compressed stream and checks its seek table against the checksum list.
fn open_stream(
    bytes: &[u8],
    sums: &[u64],
    first: usize,
    section: Section,
    frames: u64,
    decompressed: impl Fn(u64) -> u64,
) -> Result<Stream, TableErrorKind> {
    let table_len = 8 + frames * 12 + 9;
    if section.len < table_len {
        return Err(TableErrorKind::Damaged(
            "compressed stream is shorter than its seek table".into(),
        ));
    }
    let table = &bytes[(section.end() - table_len) as usize..section.end() as usize];
    if xxhash_rust::xxh3::xxh3_64(table) != sums[first + frames as usize] {
        return Err(TableErrorKind::Checksum {
            section: Checked::SeekTable,
            block: None,
        });
    }
    Stream::parse(bytes, section, frames, decompressed)
        .map_err(|e| TableErrorKind::Damaged(e.to_string()))
}

/// Checks the bytes no checksum covers: the padding between sections must be zero and nothing
/// may follow the last section (at most a few pages: cheap enough for every open).
pub(super) fn check_padding(h: &Header, bytes: &[u8]) -> Result<(), TableErrorKind> {
    let damaged = |what: String| Err(TableErrorKind::Damaged(what));
    let mut sections = vec![
        h.dictionary,
        h.remoteness_dictionary,
        h.cells,
        h.remoteness,
        h.sums,
    ];
    if let Some(g) = &h.grundy {
        sections.extend([g.values, g.sets]);
    }
    sections.retain(|s| s.len > 0);
    sections.sort_by_key(|s| s.offset);
    let mut at = h.header_len;
    for s in &sections {
        if s.offset < at {
            return damaged("sections overlap".into());
        }
        if bytes[at as usize..s.offset as usize]
            .iter()
            .any(|&b| b != 0)
        {
            return damaged(format!("padding bytes {at}..{} are not zero", s.offset));
        }
        at = s.end();
    }
    if bytes.len() as u64 != at {
        return damaged(format!(
            "{} bytes follow the last section",
            (bytes.len() as u64).saturating_sub(at)
        ));
    }
    Ok(())
}
