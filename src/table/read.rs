//! Reading tables: [`Table`] opens a raw or compressed table from any bytes (a memory map by
//! default), checks what no checksum covers, rebuilds its game from the header, and reads
//! values and remoteness; probing (`probe.rs`) and verification (`verify.rs`) build on it.
//!
//! Invariant: no value is returned for a position unless the bytes that cover it have been seen
//! to match their checksum — raw blocks are checked once on first use, compressed frames on every
//! decode (and a compressed table decodes a position's frame even when the rules alone answer).

use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

mod describe;
mod grundy;
mod guard;

use memmap2::Mmap;
use rayon::prelude::*;

use super::format::{
    Encoding, Header, RemotenessEncoding, SourceRef, get_remoteness, remoteness_of_nibble,
};
use super::payload::{Payload, RawBlocks, ZstdFrames, check_padding};
use crate::base::cells;
use crate::base::error::table::TableErrorKind;
use crate::base::error::{Error, LookupError, Result};
use crate::game::{Game, Notation, Omissions, Rules, Value, by_rules};
use crate::games::{AnyGame, Input};
use crate::with_game;

pub use describe::{GrundyInfo, Info};

/// Bytes of decoded frames a compressed table keeps by default.
pub const DEFAULT_CACHE: u64 = 64 << 20;

/// A table opened for lookups: its bytes (a memory map unless made [`Table::from_bytes`]), the
/// header checked, the game rebuilt.
pub struct Table<B = Mmap> {
    path: PathBuf,
    /// The guard of a mapped file against changes under the map. Declared before `bytes` so
    /// that it is dropped first: its slot is released before the map is unmapped.
    guard: Option<guard::FileGuard>,
    bytes: B,
    header: Header,
    game: AnyGame,
    sums: Vec<u64>,
    payload: Payload,
    /// Which raw blocks of the generalized Sprague-Grundy sections (a raw table's codes, the
    /// reach sets in either encoding) have been seen to match their checksums.
    grundy_blocks: RawBlocks,
}

impl Table {
    /// Advises the system that the table will be read at random places (no read-ahead): a
    /// sample of a raw table larger than the memory reads a few bytes a page, and the default
    /// read-ahead of 128 KiB a miss read the 28.5 GiB of Bridg-It 4 with remoteness seven times
    /// over in eight minutes without finishing. Advice only: a failure changes nothing else.
    pub fn advise_random(&self) {
        let _ = self.bytes.advise(memmap2::Advice::Random);
    }

    /// Opens a table with the default cache of decoded frames ([`DEFAULT_CACHE`] bytes).
    pub fn open(path: &Path) -> Result<Table> {
        Self::open_with_cache(path, DEFAULT_CACHE)
    }

    /// Opens a table keeping about `cache_bytes` of decoded frames (compressed tables; at least
    /// one frame is always kept).
    pub fn open_with_cache(path: &Path, cache_bytes: u64) -> Result<Table> {
        // Not blocking: a FIFO given as a table would wait for a writer in open(); it is
        // refused by the file-type check below instead (the flag changes nothing for the
        // reads of a regular file, which are through the map).
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
            .map_err(|e| Error::io(path, e))?;
        let meta = file.metadata().map_err(|e| Error::io(path, e))?;
        if !meta.is_file() {
            return Err(Error::table_kind(path, TableErrorKind::NotAFile));
        }
        let len = meta.len();
        if len == 0 {
            return Err(Error::table_kind(path, TableErrorKind::Empty));
        }
        // SAFETY: mapping a file is unsafe because the bytes could change under the map while
        // it lives. Tables are never modified in place: every retrodb writer writes a new file
        // under a temporary name and renames it into place whole, so a mapped table keeps its
        // bytes. A file changed by anything else (an operator's `cp`) is caught by the guard
        // made next, before the first byte is read: a read past a shrunk end reads zeros and
        // trips it instead of raising SIGBUS, a change in place trips it at the next
        // `check_unchanged`, and a tripped table answers nothing (`guard.rs`).
        let map = unsafe { Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
        let guard = guard::FileGuard::new(file, &meta, &map);
        let opened = Table::from_bytes(path, map, cache_bytes);
        if guard.tripped() {
            return Err(Error::table_kind(path, guard.changed_kind()));
        }
        let mut table = opened?;
        table.guard = Some(guard);
        Ok(table)
    }
}

impl<B: AsRef<[u8]> + Sync> Table<B> {
    /// Opens the table held by `bytes` (a whole table file; `path` names it in messages and
    /// locates a game input the header refers to), keeping about `cache_bytes` of decoded
    /// frames.
    pub fn from_bytes(path: &Path, bytes: B, cache_bytes: u64) -> Result<Table<B>> {
        let map = bytes.as_ref();
        let len = map.len() as u64;
        let fail = |kind: TableErrorKind| Error::table_kind(path, kind);
        if len == 0 {
            return Err(fail(TableErrorKind::Empty));
        }
        let header = Header::decode(path, map, len)?;
        // The few bytes no checksum covers are checked before anything is answered.
        check_padding(&header, map).map_err(fail)?;
        let sums_bytes = &map[header.sums.offset as usize..header.sums.end() as usize];
        if xxhash_rust::xxh3::xxh3_64(sums_bytes) != header.sums_hash {
            return Err(fail(TableErrorKind::Checksum {
                section: super::Checked::ChecksumList,
                block: None,
            }));
        }
        let sums: Vec<u64> = sums_bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let payload = match header.encoding {
            Encoding::Raw => Payload::Raw(RawBlocks::new(sums.len())),
            Encoding::Zstd | Encoding::ZstdOmitted => {
                Payload::Zstd(ZstdFrames::open(map, &header, &sums, cache_bytes).map_err(fail)?)
            }
        };
        let max_memory = crate::base::memory::default_limit();
        if let Some((kind, _)) = header.spec.split_once(':')
            && !crate::games::is_registered(kind)
        {
            return Err(fail(TableErrorKind::FamilyNotRegistered(kind.to_string())));
        }
        let game = match &header.source {
            SourceRef::None => AnyGame::load(&header.spec, Input::Disk, max_memory),
            SourceRef::Embedded { source, offset } => {
                let bytes = &map[*offset as usize..(*offset + source.len) as usize];
                AnyGame::load(&header.spec, Input::Embedded(bytes), max_memory)
            }
            SourceRef::Referenced(source) => {
                let game = AnyGame::load(&header.spec, Input::Disk, max_memory).map_err(|e| {
                    fail(TableErrorKind::Game(format!(
                        "needs its game's input file {} ({} bytes), which it refers to by \
                         path instead of keeping it (`build --embed` keeps any input): {e}",
                        source.name, source.len
                    )))
                })?;
                if !game.source().is_some_and(|s| s.same_as(source)) {
                    return Err(fail(TableErrorKind::Game(format!(
                        "was built from {} ({} bytes), which has changed since",
                        source.name, source.len
                    ))));
                }
                Ok(game)
            }
        }
        .map_err(|e| {
            fail(TableErrorKind::Game(format!(
                "cannot rebuild its game: {e}"
            )))
        })?;
        if game.size() != header.size {
            return Err(fail(TableErrorKind::Game(format!(
                "its game {} has {} positions but the table holds {}",
                header.spec,
                game.size(),
                header.size
            ))));
        }
        let grundy_blocks = RawBlocks::new(if header.grundy.is_some() {
            sums.len()
        } else {
            0
        });
        Ok(Table {
            path: path.to_path_buf(),
            guard: None,
            bytes,
            header,
            game,
            sums,
            payload,
            grundy_blocks,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    pub fn game(&self) -> &AnyGame {
        &self.game
    }

    pub fn has_remoteness(&self) -> bool {
        self.header.remoteness_encoding.is_stored()
    }

    pub fn is_compressed(&self) -> bool {
        self.header.encoding.is_zstd()
    }

    /// The bytes of the whole file.
    pub fn bytes(&self) -> &[u8] {
        self.bytes.as_ref()
    }

    /// `Err` when the file changed on disk since it was opened (truncated, or written in
    /// place: one `fstat`); from then on every lookup of this table is that error. Long-lived
    /// readers call it between requests; a table made from bytes never changes.
    pub fn check_unchanged(&self) -> Result<()> {
        match &self.guard {
            Some(g) => g.check().map_err(|k| self.fail(k)),
            None => Ok(()),
        }
    }

    /// Whether the table's path now names another file than the one opened (a new table
    /// renamed over it); `false` when the path names no file at all, and for a table made from
    /// bytes.
    pub fn path_names_another_file(&self) -> bool {
        match (&self.guard, std::fs::metadata(&self.path)) {
            (Some(g), Ok(meta)) => !g.is_file(&meta),
            _ => false,
        }
    }

    /// `Err` when a read of the file fell past its end or a check saw it change: every read
    /// path calls it after reading, so zeros read in place of a vanished page never answer.
    #[inline]
    pub(in crate::table) fn intact(&self) -> Result<()> {
        match &self.guard {
            Some(g) if g.tripped() => Err(self.fail(g.changed_kind())),
            _ => Ok(()),
        }
    }

    /// An error of this table's file.
    pub(super) fn fail(&self, kind: TableErrorKind) -> Error {
        Error::table_kind(&self.path, kind)
    }

    pub(super) fn payload(&self) -> &Payload {
        &self.payload
    }

    pub(super) fn sums(&self) -> &[u64] {
        &self.sums
    }

    /// Checks the raw block that holds byte `at` of `section` (once); `first_block` is the
    /// index of the section's first block in the checksum list.
    pub(super) fn check_block(
        &self,
        section: super::format::Section,
        first_block: u64,
        at: u64,
    ) -> Result<()> {
        let Payload::Raw(raw) = &self.payload else {
            unreachable!("raw blocks belong to raw tables")
        };
        let checked = raw.check_block(
            self.bytes(),
            &self.header,
            &self.sums,
            (section, first_block),
            at,
        );
        // Zeros read from a vanished page fail the checksum: say what really happened.
        self.intact()?;
        checked.map_err(|k| self.fail(k))
    }

    /// Decodes frame `k` of a compressed stream, checking the compressed bytes first.
    pub(super) fn decode(
        &self,
        stream: &super::zstd::Stream,
        sums_first: usize,
        k: usize,
    ) -> Result<Vec<u8>, TableErrorKind> {
        let Payload::Zstd(frames) = &self.payload else {
            unreachable!("streams belong to compressed tables")
        };
        let decoded = frames.decode(self.bytes(), &self.sums, stream, sums_first, k);
        match &self.guard {
            Some(g) if g.tripped() => Err(g.changed_kind()),
            _ => decoded,
        }
    }

    pub(super) fn frame_count(&self) -> usize {
        self.header
            .size
            .div_ceil(self.header.frame_positions.max(1)) as usize
    }

    /// The error of raw bytes (`what`) of positions `first..first + n` the table does not store
    /// as asked.
    pub(in crate::table) fn raw_refused(&self, what: &'static str, first: u64, n: u64) -> Error {
        Error::Lookup(LookupError::Raw {
            what,
            first,
            end: first + n,
            path: self.path.display().to_string(),
        })
    }

    /// The error of an index past the table's last.
    pub(in crate::table) fn out_of_range(&self, index: u64) -> Error {
        Error::Lookup(LookupError::OutOfRange {
            index,
            size: self.header.size,
        })
    }

    /// The packed cells of positions `first..first + n` of a raw table as stored (`first` a
    /// multiple of 4), each 64 KiB block they touch checked first.
    pub(crate) fn raw_cells(&self, first: u64, n: u64) -> Result<&[u8]> {
        let c = self.header.cells;
        if self.is_compressed() || !first.is_multiple_of(4) || first + n > self.header.size {
            return Err(self.raw_refused("cells", first, n));
        }
        let (from, to) = (first / 4, (first + n).div_ceil(4));
        let block = self.header.block as u64;
        let mut b = from / block * block;
        while b < to {
            self.check_block(c, 0, b)?;
            b += block;
        }
        // The bytes are read after this returns: readers of whole sections check
        // `check_unchanged` again once they have read them.
        Ok(&self.bytes()[(c.offset + from) as usize..(c.offset + to) as usize])
    }

    /// The remoteness nibbles of positions `first..first + n` of a raw table with
    /// [`RemotenessEncoding::Nibbles`] as stored (`first` even), each block they touch checked first.
    pub(crate) fn raw_nibbles(&self, first: u64, n: u64) -> Result<&[u8]> {
        let r = self.header.remoteness;
        if self.is_compressed()
            || self.header.remoteness_encoding != RemotenessEncoding::Nibbles
            || !first.is_multiple_of(2)
            || first + n > self.header.size
        {
            return Err(self.raw_refused("remoteness nibbles", first, n));
        }
        let (from, to) = (first / 2, (first + n).div_ceil(2));
        let block = self.header.block as u64;
        let cells_blocks = self.header.cells.blocks(block);
        let mut b = from / block * block;
        while b < to {
            self.check_block(r, cells_blocks, b)?;
            b += block;
        }
        Ok(&self.bytes()[(r.offset + from) as usize..(r.offset + to) as usize])
    }

    /// The stored code, as the payload has it (compressed tables: meaningful only for positions
    /// the rules do not decide).
    fn stored_code(&self, pos: u64) -> Result<u8> {
        match &self.payload {
            Payload::Raw(_) => {
                self.check_block(self.header.cells, 0, pos / 4)?;
                let c = self.header.cells;
                let code =
                    cells::get_in_bytes(&self.bytes()[c.offset as usize..c.end() as usize], pos);
                self.intact()?;
                Ok(code)
            }
            Payload::Zstd(ZstdFrames { cells, cache, .. }) => {
                let f = self.header.frame_positions;
                let k = (pos / f) as usize;
                let i = pos % f;
                cache
                    .with(
                        k as u64,
                        || self.decode(cells, 0, k),
                        |b| cells::get_in_bytes(b, i),
                    )
                    .map_err(|k| self.fail(k))
            }
        }
    }

    fn stored_remoteness(&self, pos: u64) -> Result<Option<u32>> {
        self.stored_remoteness_of(pos, || self.stored_code(pos))
    }

    /// [`Table::stored_remoteness`], with the position's stored code from `stored_code` (nibbles
    /// are relative to it) for a caller that has read it already.
    fn stored_remoteness_of(
        &self,
        pos: u64,
        stored_code: impl FnOnce() -> Result<u8>,
    ) -> Result<Option<u32>> {
        // Nibbles: half a byte a position, the low half for an even index; bytes: `w` each.
        let (nibbles, (w, at_of)) = match self.header.remoteness_encoding {
            RemotenessEncoding::Nibbles => (true, (1, pos / 2)),
            RemotenessEncoding::Bytes(w) => (false, (w as u64, pos * w as u64)),
            RemotenessEncoding::None => unreachable!("asked only of tables with remoteness"),
        };
        // A position's stored bytes, whichever the payload: up to 4 (a nibble's byte, or `w`).
        let decode = |b: [u8; 4]| -> Result<Option<u32>> {
            if nibbles {
                let n = b[0] >> (4 * (pos % 2)) & 15;
                Ok(remoteness_of_nibble(stored_code()?, n))
            } else {
                Ok(get_remoteness(&b[..w as usize]))
            }
        };
        let take = |b: &[u8]| {
            let mut out = [0u8; 4];
            out[..b.len()].copy_from_slice(b);
            out
        };
        match &self.payload {
            Payload::Raw(_) => {
                let sec = self.header.remoteness;
                let first = self.header.cells.blocks(self.header.block as u64);
                self.check_block(sec, first, at_of)?;
                let at = (sec.offset + at_of) as usize;
                let stored = take(&self.bytes()[at..at + w as usize]);
                self.intact()?;
                decode(stored)
            }
            Payload::Zstd(ZstdFrames {
                remoteness, cache, ..
            }) => {
                let stream = remoteness.as_ref().expect("width > 0 means a stream");
                let f = self.header.frame_positions;
                let k = (pos / f) as usize;
                // Frames start at multiples of 32 positions: a nibble frame at a whole byte.
                let i = if nibbles {
                    (pos % f / 2) as usize
                } else {
                    ((pos % f) * w) as usize
                };
                let frames = self.frame_count();
                let bytes = cache
                    .with(
                        (frames + k) as u64,
                        || self.decode(stream, frames + 1, k),
                        |b| take(&b[i..i + w as usize]),
                    )
                    .map_err(|k| self.fail(k))?;
                decode(bytes)
            }
        }
    }

    /// The code of a position (0 for an unused index), from checked bytes or the rules.
    pub fn code(&self, pos: u64) -> Result<u8> {
        if pos >= self.header.size {
            return Err(self.out_of_range(pos));
        }
        if self.omits(pos) {
            return self.searched_code(pos);
        }
        self.kept_code(pos)
    }

    /// The code of a position the table keeps (`pos` below the size, not left out).
    fn kept_code(&self, pos: u64) -> Result<u8> {
        // Compressed tables: the frame covering `pos` is decoded and checked even when the rules
        // give the answer, so no answer ever comes from a damaged part of the file.
        let stored = self.stored_code(pos)?;
        if !self.is_compressed() {
            return Ok(stored);
        }
        Ok(match with_game!(&self.game, g => by_rules(g, pos)) {
            Rules::Unused => cells::UNUSED,
            Rules::Known(v, _) => cells::code(v),
            Rules::Search => stored,
        })
    }

    /// Whether the table leaves `pos` out (its value is searched, not stored).
    fn omits(&self, pos: u64) -> bool {
        self.header.encoding == Encoding::ZstdOmitted
            && with_game!(&self.game, g => g.omissible(pos)) == Some(true)
    }

    /// The code of a position the table leaves out, by the rules or else by a one-move search:
    /// its children are all stored (the game's contract), each read from checked bytes.
    fn searched_code(&self, pos: u64) -> Result<u8> {
        with_game!(&self.game, g => {
            match by_rules(g, pos) {
                Rules::Unused => Ok(cells::UNUSED),
                Rules::Known(v, _) => Ok(cells::code(v)),
                Rules::Search => {
                    let (mut lost, mut drawn) = (false, false);
                    let mut failed = None;
                    g.for_each_child(pos, |c| {
                        if lost || failed.is_some() {
                            return;
                        }
                        if self.omits(c) {
                            failed = Some(self.fail(TableErrorKind::Game(format!(
                                "position {pos} and its child {c} are both left out"
                            ))));
                            return;
                        }
                        match self.kept_code(c) {
                            Ok(cells::LOSS) => lost = true,
                            Ok(cells::DRAW) => drawn = true,
                            Ok(_) => {}
                            Err(e) => failed = Some(e),
                        }
                    });
                    match failed {
                        Some(e) => Err(e),
                        None => Ok(cells::verdict(lost, drawn)),
                    }
                }
            }
        })
    }

    /// The value of a position, or `None` for an unused index.
    pub fn value(&self, pos: u64) -> Result<Option<Value>> {
        Ok(cells::value(self.code(pos)?))
    }

    /// Values of many positions at batch speed: looked up in index order, so each compressed
    /// frame is decoded at most once per batch, and in parallel.
    pub fn values(&self, positions: &[u64]) -> Vec<Result<Option<Value>>> {
        let mut order: Vec<usize> = (0..positions.len()).collect();
        order.sort_unstable_by_key(|&i| positions[i]);
        let mut sorted: Vec<(usize, Result<Option<Value>>)> = order
            .par_chunks(1024)
            .flat_map_iter(|chunk| chunk.iter().map(|&i| (i, self.value(positions[i]))))
            .collect();
        sorted.sort_unstable_by_key(|(i, _)| *i);
        sorted.into_iter().map(|(_, v)| v).collect()
    }

    /// The remoteness (`None` for draws, unused indices, or tables without remoteness).
    pub fn remoteness(&self, pos: u64) -> Result<Option<u32>> {
        if !self.has_remoteness() || pos >= self.header.size {
            return Ok(None);
        }
        let stored = self.stored_remoteness(pos)?;
        if !self.is_compressed() {
            return Ok(stored);
        }
        Ok(match with_game!(&self.game, g => by_rules(g, pos)) {
            Rules::Unused => None,
            Rules::Known(_, r) => r,
            Rules::Search => stored,
        })
    }

    /// The value and the remoteness of a position ([`Table::value`], [`Table::remoteness`]) in
    /// one lookup: a raw table's cell is read once, remoteness in nibbles taken relative to it.
    pub fn value_and_remoteness(&self, pos: u64) -> Result<(Option<Value>, Option<u32>)> {
        if self.is_compressed() {
            return Ok((self.value(pos)?, self.remoteness(pos)?));
        }
        let code = self.code(pos)?;
        let remoteness = if self.has_remoteness() {
            self.stored_remoteness_of(pos, || Ok(code))?
        } else {
            None
        };
        Ok((cells::value(code), remoteness))
    }

    /// The text of the position at `pos` (any index below the table's size).
    pub fn position_text(&self, pos: u64) -> String {
        with_game!(&self.game, g => g.position_text(pos))
    }

    /// The used positions with indices in `range`, in index order, each with its value.
    pub fn used(
        &self,
        range: std::ops::Range<u64>,
    ) -> impl Iterator<Item = Result<(u64, Value)>> + '_ {
        let range = range.start..range.end.min(self.header.size);
        range.filter_map(|pos| match self.value(pos) {
            Ok(Some(v)) => Some(Ok((pos, v))),
            Ok(None) => None,
            Err(e) => Some(Err(e)),
        })
    }
}
