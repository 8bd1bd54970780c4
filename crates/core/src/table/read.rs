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
pub(super) mod guard;

use memmap2::Mmap;
use rayon::prelude::*;

use super::format::{Encoding, Header, RemotenessEncoding, SourceRef};
use super::payload::{CellSource, OneMover, Payload, RawBlocks, Stored, ZstdFrames, check_padding};
use crate::base::cells;
use crate::base::error::table::TableErrorKind;
use crate::base::error::{Error, LookupError, Result};
use crate::game::{Game, Notation, Value};
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
        let frames = || ZstdFrames::open(map, &header, &sums, cache_bytes).map_err(fail);
        let payload = match header.encoding {
            Encoding::Raw => Payload::Raw(RawBlocks::new(sums.len())),
            Encoding::Zstd => Payload::Zstd(frames()?),
            Encoding::ZstdOmitted => Payload::ZstdOmitted(OneMover(frames()?)),
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

    /// Whether the table leaves the positions of one mover out ([`Encoding::ZstdOmitted`]:
    /// `compress --one-mover`), answered by a one-move search.
    pub fn leaves_one_mover_out(&self) -> bool {
        self.header.encoding == Encoding::ZstdOmitted
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

    /// What the payload reads a position from: this table's bytes, header, checksums, game
    /// and guard.
    #[inline]
    pub(super) fn stored(&self) -> Stored<'_> {
        Stored {
            bytes: self.bytes(),
            header: &self.header,
            sums: &self.sums,
            game: &self.game,
            guard: self.guard.as_ref(),
        }
    }

    /// Checks the raw block that holds byte `at` of `section` (once); `first_block` is the
    /// index of the section's first block in the checksum list.
    pub(super) fn check_block(
        &self,
        section: super::format::Section,
        first_block: u64,
        at: u64,
    ) -> Result<()> {
        let raw = self.payload.raw().expect("raw blocks belong to raw tables");
        raw.checked(&self.stored(), (section, first_block), at)
            .map_err(|k| self.fail(k))
    }

    /// Decodes frame `k` of a compressed stream, checking the compressed bytes first.
    pub(super) fn decode(
        &self,
        stream: &super::zstd::Stream,
        sums_first: usize,
        k: usize,
    ) -> Result<Vec<u8>, TableErrorKind> {
        let frames = self
            .payload
            .frames()
            .expect("streams belong to compressed tables");
        frames.decoded(&self.stored(), stream, sums_first, k)
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

    /// The code of a position (0 for an unused index), from checked bytes or the rules.
    #[inline]
    pub fn code(&self, pos: u64) -> Result<u8> {
        if pos >= self.header.size {
            return Err(self.out_of_range(pos));
        }
        self.payload
            .code(&self.stored(), pos)
            .map_err(|k| self.fail(k))
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
        self.payload
            .remoteness(&self.stored(), pos)
            .map_err(|k| self.fail(k))
    }

    /// The value and the remoteness of a position ([`Table::value`], [`Table::remoteness`]) in
    /// one lookup: a raw table's cell is read once, remoteness in nibbles taken relative to it.
    pub fn value_and_remoteness(&self, pos: u64) -> Result<(Option<Value>, Option<u32>)> {
        if pos >= self.header.size {
            return Err(self.out_of_range(pos));
        }
        let (code, remoteness) = self
            .payload
            .code_and_remoteness(&self.stored(), pos)
            .map_err(|k| self.fail(k))?;
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
