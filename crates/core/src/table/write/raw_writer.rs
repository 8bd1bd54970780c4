//! [`RawWriter`]: the raw table a build fills, its cells (and the remoteness' nibbles where the
//! kernel writes them in place) memory-mapped from the work file, finished through
//! [`TableFile::commit_raw`].
//!
//! Invariant: the cells are the work file's shared mapping, written in place by the solver;
//! their checksums are taken only once the solve is over.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use memmap2::{MmapOptions, MmapRaw};
use rayon::prelude::*;

use super::raw::{GrundyBytes, RawFields, raw_sections, write_grundy_sections};
use super::{GameFields, TableFile, TempFile};
use crate::base::cells;
use crate::base::error::{Error, Result};
use crate::table::format::{self, PAGE, RemotenessEncoding};
use crate::table::workfiles::{OutputLock, allocate};

/// A raw table being written: the temporary file with its cells section memory-mapped, and
/// its remoteness section too where the solver writes it in place ([`RawWriter::with_nibbles`]).
///
/// The maps are [`MmapRaw`]s: solver threads write cells through atomics made from their raw
/// pointers while the writer is shared, which a `&[u8]` borrowed from an `MmapMut` would forbid.
pub(crate) struct RawWriter {
    file: TableFile,
    game: GameFields,
    size: u64,
    map: Option<MmapRaw>,
    /// The remoteness section in nibbles, mapped ([`RemotenessEncoding::Nibbles`]); `None` when the
    /// remoteness, if any, is handed to [`RawWriter::finish`].
    rem_map: Option<MmapRaw>,
    /// The checksums of the mapped remoteness section's blocks, where
    /// [`RawWriter::fill_nibbles`] took them as it wrote.
    rem_sums: Option<Vec<u64>>,
    /// The generalized Sprague-Grundy values to write after the remoteness.
    grundy: Option<GrundyBytes>,
    /// The remoteness section in nibbles, written a block at a time in any order
    /// ([`RawWriter::stream_nibbles`]).
    streamed: Option<Streamed>,
}

/// A streamed nibble section's blocks: each one's checksum, and whether it was written.
struct Streamed {
    sums: Vec<AtomicU64>,
    written: Vec<std::sync::atomic::AtomicBool>,
}

impl RawWriter {
    /// A writer of a new table `out`, through `.NAME.tmp-PID` beside it.
    pub fn create(out: &Path, game: GameFields, size: u64) -> Result<RawWriter> {
        Self::with_file(TempFile::create(out)?, game, size)
    }

    /// A writer through the resumable work file of `out` (`.NAME.partial`, kept when dropped):
    /// its cells are kept as they are, or, when `fresh`, start undecided. `_lock` is `out`'s
    /// lock, which makes the fixed name this process's alone while the writer lives.
    pub fn resumable(
        out: &Path,
        _lock: &OutputLock,
        game: GameFields,
        size: u64,
        fresh: bool,
    ) -> Result<RawWriter> {
        let tmp = TempFile::resumable(out)?;
        if fresh {
            tmp.file.set_len(0).map_err(|e| Error::io(&tmp.path, e))?;
        }
        Self::with_file(tmp, game, size)
    }

    /// Maps the remoteness section of this writer's table too, in nibbles
    /// ([`RemotenessEncoding::Nibbles`]), for a solver that writes it in place: the file grows to hold
    /// it (reserved on disk now), a fresh work file's nibbles start at zero, a resumed one's are
    /// kept; [`RawWriter::finish`] then hashes it where it is.
    pub fn with_nibbles(mut self) -> Result<RawWriter> {
        let (_, rem_sec) = raw_sections(
            self.game.header_len(),
            self.size,
            RemotenessEncoding::Nibbles,
        );
        let tmp = &self.file.sink;
        if tmp
            .file
            .metadata()
            .map_err(|e| Error::io(&tmp.path, e))?
            .len()
            < rem_sec.end()
        {
            tmp.file
                .set_len(rem_sec.end())
                .map_err(|e| Error::io(&tmp.path, e))?;
        }
        allocate(&tmp.file, &tmp.path, rem_sec.end())?;
        if rem_sec.len > 0 {
            // As the cells' map (`with_file`): the file is this process's alone and keeps its
            // length while the map lives.
            self.rem_map = Some(
                MmapOptions::new()
                    .offset(rem_sec.offset)
                    .len(rem_sec.len as usize)
                    .map_raw(&tmp.file)
                    .map_err(|e| Error::io(&tmp.path, e))?,
            );
        }
        Ok(self)
    }

    /// Writes the whole mapped nibble section ([`RawWriter::with_nibbles`]) a checksum block at
    /// a time, the blocks in parallel: `fill(first, bytes)` fills the section's bytes from byte
    /// `first` on (two positions a byte, the lower position in the low nibble); each block is
    /// hashed while it is in the cache and its pages leave the process's resident memory (the
    /// page cache keeps them for the sync), so [`RawWriter::finish`] reads the section no more.
    pub fn fill_nibbles(&mut self, fill: impl Fn(u64, &mut [u8]) + Sync) {
        let Some(map) = self.rem_map.as_ref() else {
            self.rem_sums = Some(Vec::new());
            return;
        };
        // The solve's cells go to the disk while the nibbles are made, and each megabyte of
        // nibbles once written. The requests are made by a thread of their own: a request
        // waits while the disk's queue is full, and the pool's threads have packing to do.
        let (cells_sec, rem_sec) = raw_sections(
            self.game.header_len(),
            self.size,
            RemotenessEncoding::Nibbles,
        );
        let tmp = &self.file.sink;
        // SAFETY: the raw map is `map.len()` writable bytes alive as long as `self`; `&mut self`
        // rules out the atomic view (`nibble_words` borrows `self`), and the blocks below are
        // disjoint.
        let bytes = unsafe { std::slice::from_raw_parts_mut(map.as_mut_ptr(), map.len()) };
        const GROUP: usize = 16;
        let block = format::BLOCK as usize;
        let (requests, requested) = std::sync::mpsc::channel::<(u64, u64)>();
        let sums = std::thread::scope(|scope| {
            scope.spawn(move || {
                for (at, len) in requested {
                    tmp.start_writeback(at, len);
                }
            });
            let _ = requests.send((cells_sec.offset, cells_sec.len));
            let sums: Vec<u64> = bytes
                .par_chunks_mut(block * GROUP)
                .enumerate()
                .flat_map_iter(|(g, group)| {
                    let first = g * block * GROUP;
                    let sums: Vec<u64> = group
                        .chunks_mut(block)
                        .enumerate()
                        .map(|(k, b)| {
                            fill((first + k * block) as u64, b);
                            xxhash_rust::xxh3::xxh3_64(b)
                        })
                        .collect();
                    let at = group.as_ptr() as usize;
                    // SAFETY: the group lies in the writer's shared file mapping, whose
                    // contents the advice leaves as they are.
                    unsafe { crate::base::cells::release_file_pages(at, at + group.len()) };
                    let _ = requests.send((rem_sec.offset + first as u64, group.len() as u64));
                    sums
                })
                .collect();
            // The last requests are made before the scope ends (and the sync after it).
            drop(requests);
            sums
        });
        self.rem_sums = Some(sums);
    }

    /// Prepares the remoteness section in nibbles ([`RemotenessEncoding::Nibbles`]) to be written a
    /// checksum block at a time, in any order, from any thread and while the solve goes on
    /// ([`RawWriter::write_nibble_block`]); every block must be written before
    /// [`RawWriter::finish`]. The section is reserved on disk now and not mapped: a mapped
    /// section written during the solve made the solver's threads wait on page faults and on
    /// the write-back's TLB shootdowns (docs/BENCHMARKS.md).
    pub fn stream_nibbles(mut self) -> Result<RawWriter> {
        let (_, rem_sec) = raw_sections(
            self.game.header_len(),
            self.size,
            RemotenessEncoding::Nibbles,
        );
        let tmp = &self.file.sink;
        let len = tmp
            .file
            .metadata()
            .map_err(|e| Error::io(&tmp.path, e))?
            .len();
        if len < rem_sec.end() {
            tmp.file
                .set_len(rem_sec.end())
                .map_err(|e| Error::io(&tmp.path, e))?;
        }
        allocate(&tmp.file, &tmp.path, rem_sec.end())?;
        let blocks = rem_sec.len.div_ceil(format::BLOCK as u64) as usize;
        self.streamed = Some(Streamed {
            sums: (0..blocks).map(|_| AtomicU64::new(0)).collect(),
            written: (0..blocks)
                .map(|_| std::sync::atomic::AtomicBool::new(false))
                .collect(),
        });
        Ok(self)
    }

    /// Block `k`'s bytes of the streamed nibble section ([`RawWriter::stream_nibbles`]): their
    /// offset in the section and their length (the last block may be shorter).
    pub fn nibble_block(&self, k: usize) -> (u64, usize) {
        let (_, rem_sec) = raw_sections(
            self.game.header_len(),
            self.size,
            RemotenessEncoding::Nibbles,
        );
        let at = k as u64 * format::BLOCK as u64;
        (at, (format::BLOCK as u64).min(rem_sec.len - at) as usize)
    }

    /// Writes block `k` of the streamed nibble section (its bytes, as long as
    /// [`RawWriter::nibble_block`] says) and keeps its checksum.
    pub fn write_nibble_block(&self, k: usize, nibbles: &[u8]) -> Result<()> {
        let streamed = self.streamed.as_ref().expect("stream_nibbles came first");
        let (at, len) = self.nibble_block(k);
        assert_eq!(nibbles.len(), len, "block {k} is {len} bytes");
        let (_, rem_sec) = raw_sections(
            self.game.header_len(),
            self.size,
            RemotenessEncoding::Nibbles,
        );
        self.file.sink.write_at(nibbles, rem_sec.offset + at)?;
        streamed.sums[k].store(xxhash_rust::xxh3::xxh3_64(nibbles), Ordering::Relaxed);
        streamed.written[k].store(true, Ordering::Release);
        Ok(())
    }

    /// Starts the disk's writes of the streamed nibble blocks `blocks` (advice, as
    /// [`TempFile::start_writeback`]).
    pub fn start_nibble_writeback(&self, blocks: std::ops::Range<usize>) {
        let (_, rem_sec) = raw_sections(
            self.game.header_len(),
            self.size,
            RemotenessEncoding::Nibbles,
        );
        let block = format::BLOCK as u64;
        let at = blocks.start as u64 * block;
        let end = (blocks.end as u64 * block).min(rem_sec.len);
        self.file
            .sink
            .start_writeback(rem_sec.offset + at, end.saturating_sub(at));
    }

    /// Starts the disk's writes of the cells of `positions` (advice, as
    /// [`TempFile::start_writeback`]): the pages that hold only those positions' cells, so that
    /// a solve may go on writing the cells of the positions around them.
    pub fn start_cells_writeback(&self, positions: std::ops::Range<u64>) {
        let (cells_sec, _) =
            raw_sections(self.game.header_len(), self.size, RemotenessEncoding::None);
        let per_byte = cells::CELLS_PER_WORD / 8;
        let first = (positions.start / per_byte).next_multiple_of(PAGE);
        // The last position's page holds no other cells: the section ends there.
        let end = if positions.end >= self.size {
            cells_sec.len
        } else {
            positions.end / per_byte / PAGE * PAGE
        };
        if first < end {
            self.file
                .sink
                .start_writeback(cells_sec.offset + first, end - first);
        }
    }

    /// The remoteness nibbles as atomic words (16 positions a word, lowest nibble first), for a
    /// solver to fill; empty unless [`RawWriter::with_nibbles`] mapped them.
    pub fn nibble_words(&self) -> &[AtomicU64] {
        let Some(map) = self.rem_map.as_ref() else {
            return &[];
        };
        // SAFETY: as `words`: the map is writable, lives as long as `self`, over a file no other
        // process writes or truncates, and no plain view of it is made while `self` is shared.
        unsafe { crate::base::cells::mapped_atomics(map) }
    }

    fn with_file(tmp: TempFile, game: GameFields, size: u64) -> Result<RawWriter> {
        let (cells_sec, _) = raw_sections(game.header_len(), size, RemotenessEncoding::None);
        // A resumed work file may be longer (a remoteness section after the cells): only a
        // fresh one is cut to the cells.
        if tmp
            .file
            .metadata()
            .map_err(|e| Error::io(&tmp.path, e))?
            .len()
            < cells_sec.end()
        {
            tmp.file
                .set_len(cells_sec.end())
                .map_err(|e| Error::io(&tmp.path, e))?;
        }
        // The blocks under the map are reserved now: a full disk fails here, not as a SIGBUS
        // while solving.
        allocate(&tmp.file, &tmp.path, cells_sec.end())?;
        let map = if cells_sec.len > 0 {
            // A raw map hands out no references; the slices made from it below rely on the file
            // being this process's alone while the map lives: a temporary file's name holds this
            // process's id (`.NAME.tmp-PID`), a resumable work file's name is covered by the
            // output's lock, which `resumable` demands and every retrodb writer of `NAME` takes
            // first; the length was just set and nothing here truncates the file before the map
            // is dropped (in `finish`, or with the writer).
            Some(
                MmapOptions::new()
                    .offset(cells_sec.offset)
                    .len(cells_sec.len as usize)
                    .map_raw(&tmp.file)
                    .map_err(|e| Error::io(&tmp.path, e))?,
            )
        } else {
            None
        };
        Ok(RawWriter {
            file: TableFile::over(tmp),
            game,
            size,
            map,
            rem_map: None,
            rem_sums: None,
            grundy: None,
            streamed: None,
        })
    }

    /// Gives the table generalized Sprague-Grundy values, written by [`RawWriter::finish`];
    /// the writer must have been made with [`GameFields::with_grundy`] (the header is longer).
    pub fn set_grundy(&mut self, grundy: GrundyBytes) {
        assert!(
            self.game.grundy,
            "a table with Sprague-Grundy values has their header fields"
        );
        assert_eq!(grundy.values.len() as u64, self.size * grundy.width as u64);
        self.grundy = Some(grundy);
    }

    /// The work file's path.
    pub fn path(&self) -> &Path {
        &self.file.sink.path
    }

    /// The cells of `size` positions, for a solver to fill; they may drop pages it is done
    /// with from resident memory ([`cells::Cells::release`]).
    pub fn cells(&self, size: u64) -> cells::Cells<'_> {
        // SAFETY: the words are this writer's shared mapping of its file (or empty).
        unsafe { cells::Cells::over_file(self.words(), size) }
    }

    /// The cells as atomic words, for a solver to fill.
    pub fn words(&self) -> &[AtomicU64] {
        let Some(map) = self.map.as_ref() else {
            return &[];
        };
        // SAFETY: the map is writable and lives as long as `self`, over a file no other
        // process writes or truncates (see `with_file`); the only plain view of these bytes
        // (`bytes_mut`) needs `&mut self`, so it cannot coexist with this slice.
        unsafe { crate::base::cells::mapped_atomics(map) }
    }

    /// Writes the cells mapped so far to the file and waits for the disk (a resumable build's
    /// checkpoint).
    pub fn sync_cells(&self) -> Result<()> {
        self.file
            .sink
            .file
            .sync_data()
            .map_err(|e| Error::io(&self.file.sink.path, e))
    }

    /// Writes the cells mapped so far to the file.
    pub fn flush(&self) -> Result<()> {
        match &self.map {
            Some(m) => m.flush().map_err(|e| Error::io(&self.file.sink.path, e)),
            None => Ok(()),
        }
    }

    /// The cells as plain bytes.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        let Some(map) = self.map.as_ref() else {
            return &mut [];
        };
        // SAFETY: the raw map is writable, `map.len()` bytes long and alive as long as `self`;
        // `&mut self` rules out every other view of it (`words` borrows `self`).
        unsafe { std::slice::from_raw_parts_mut(map.as_mut_ptr(), map.len()) }
    }

    /// Writes remoteness, checksums and the header, then renames the file into place. Where
    /// the remoteness section is mapped ([`RawWriter::with_nibbles`]), it is hashed in place and
    /// `rem_bytes` must be empty.
    pub fn finish(
        self,
        counts: [u64; 4],
        rounds: Option<u32>,
        rem: RemotenessEncoding,
        rem_bytes: &[u8],
    ) -> Result<u64> {
        let RawWriter {
            mut file,
            game,
            size,
            map,
            rem_map,
            rem_sums,
            grundy,
            streamed,
        } = self;
        assert_eq!(
            game.grundy,
            grundy.is_some(),
            "the header's Sprague-Grundy fields go with the values"
        );
        // No msync of the cells here: the fsync in `commit` writes a shared mapping's dirty
        // pages too (Linux keeps them in the page cache), and syncing twice cost 23 ms of
        // hex:4's build.
        let mapped = |m: &Option<MmapRaw>| -> &[u8] {
            match m {
                // SAFETY: the raw map is `m.len()` readable bytes alive until the maps are
                // dropped below; the writer was taken by value, so no atomic view is left.
                Some(m) => unsafe { std::slice::from_raw_parts(m.as_ptr(), m.len()) },
                None => &[],
            }
        };
        let cell_bytes = mapped(&map);
        let (_, rem_sec) = raw_sections(game.header_len(), size, rem);
        let block = format::BLOCK as u64;
        // SAFETY: the cells are the work file's shared mapping.
        file.push_sums(unsafe { mapped_block_sums(cell_bytes, block) });
        if rem_map.is_some() {
            assert!(
                rem_bytes.is_empty() && rem == RemotenessEncoding::Nibbles,
                "a mapped remoteness section is written in place"
            );
            match rem_sums {
                Some(rem_sums) => file.push_sums(rem_sums),
                // SAFETY: the nibbles are the work file's shared mapping.
                None => file.push_sums(unsafe { mapped_block_sums(mapped(&rem_map), block) }),
            }
        } else if let Some(streamed) = streamed {
            assert!(
                rem_bytes.is_empty() && rem == RemotenessEncoding::Nibbles,
                "a streamed remoteness section is written already"
            );
            let missing = streamed
                .written
                .iter()
                .position(|w| !w.load(Ordering::Acquire));
            assert!(
                missing.is_none(),
                "block {missing:?} of the streamed nibbles was not written"
            );
            file.push_sums(streamed.sums.iter().map(|s| s.load(Ordering::Relaxed)));
        } else {
            assert!(
                rem.is_stored() || rem_bytes.is_empty(),
                "remoteness without an encoding"
            );
            file.write_section(rem_bytes, rem_sec.offset)?;
        }
        let fields = RawFields {
            game: &game,
            size,
            counts,
            rounds,
            rem,
            grundy: grundy.as_ref(),
        };
        write_grundy_sections(&mut file, &fields)?;
        drop(map);
        drop(rem_map);
        file.commit_raw(&fields)
    }
}

/// [`block_sums`] of bytes in a shared mapping of a file, dropping each megabyte's pages from
/// the process's resident memory once hashed ([`crate::base::cells::release_file_pages`]), so that
/// hashing a table larger than the memory a build was planned with does not hold it all.
///
/// # Safety
/// `bytes` must lie in a shared mapping of a file.
unsafe fn mapped_block_sums(bytes: &[u8], block: u64) -> Vec<u64> {
    const GROUP: usize = 16;
    bytes
        .par_chunks(block as usize * GROUP)
        .flat_map_iter(|group| {
            let sums: Vec<u64> = group
                .chunks(block as usize)
                .map(xxhash_rust::xxh3::xxh3_64)
                .collect();
            let at = group.as_ptr() as usize;
            // SAFETY: the group lies in the caller's shared file mapping, whose contents the
            // advice leaves as they are.
            unsafe { crate::base::cells::release_file_pages(at, at + group.len()) };
            sums
        })
        .collect()
}
