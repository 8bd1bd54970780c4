//! Reading tables: [`Table`] opens a raw or compressed table by memory map, rebuilds its game from
//! the header, and answers probes for one position or a batch; it also verifies and dumps.
//!
//! Invariant: no value is returned for a position unless the bytes that cover it have been seen
//! to match their checksum — raw blocks are checked once on first use, compressed frames on every
//! decode (and a compressed table decodes a position's frame even when the rules alone answer).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use indicatif::ProgressBar;
use memmap2::Mmap;
use rayon::prelude::*;
use serde::Serialize;

use super::cells;
use super::format::{Encoding, Header, Section, SourceRef};
use super::write::get_remoteness;
use super::zstd::{FrameCache, Stream, decompress_frame};
use crate::error::{Error, Result};
use crate::game::{Annotations, Game, Rules, Status, Value, by_rules};
use crate::games::{AnyGame, Input};
use crate::with_game;

/// Bytes of decoded frames a compressed table keeps by default.
pub const DEFAULT_CACHE: u64 = 64 << 20;

/// A table opened for lookups: the file memory-mapped, the header checked, the game rebuilt.
pub struct Table {
    path: PathBuf,
    map: Mmap,
    header: Header,
    game: AnyGame,
    sums: Vec<u64>,
    payload: Payload,
}

enum Payload {
    Raw {
        /// One bit per checksum block: set once the block has been seen to match.
        verified: Vec<AtomicU64>,
    },
    Zstd {
        cells: Stream,
        remoteness: Option<Stream>,
        cache: FrameCache,
    },
}

/// The answer for one position.
#[derive(Clone, Debug, Serialize)]
pub struct Probe {
    pub position: String,
    pub index: u64,
    pub value: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remoteness: Option<u32>,
    /// What the game adds beyond the stored value ([`Game::annotate`]), flattened into the JSON.
    #[serde(flatten)]
    pub extra: Annotations,
    pub moves: Vec<ProbeMove>,
    /// Set when the table holds the asked position as a symmetric image: `position` and the
    /// moves are that image's (same value, same values of the moves up to the symmetry).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stored_image: Option<String>,
}

/// One move from a probed position, with the child's value for the player who moves there.
#[derive(Clone, Debug, Serialize)]
pub struct ProbeMove {
    #[serde(rename = "move")]
    pub name: String,
    pub position: String,
    /// The child's value for its own mover (the opponent of the prober).
    pub value: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remoteness: Option<u32>,
    /// The game's annotations of the child position, flattened into the JSON.
    #[serde(flatten)]
    pub extra: Annotations,
}

/// A table described as a whole ([`Table::info`]; `retrodb info --json`).
#[derive(Clone, Debug, Serialize)]
pub struct Info {
    pub file: String,
    pub game: String,
    pub format_version: u32,
    /// `raw` or `zstd`.
    pub encoding: &'static str,
    /// Positions per compressed frame (0 for raw tables).
    pub frame_positions: u64,
    pub zstd_level: i32,
    /// Indices, used or not.
    pub size: u64,
    /// Used indices.
    pub positions: u64,
    pub win: u64,
    pub loss: u64,
    pub draw: u64,
    pub unused: u64,
    pub rounds: Option<u32>,
    /// Bytes a position's remoteness takes (0: the table has none).
    pub remoteness_bytes: u8,
    pub file_bytes: u64,
    /// The whole file's bits over the used positions.
    pub bits_per_position: f64,
    /// The game's input file: `none`, `embedded` or `referenced`.
    pub source: &'static str,
    pub source_file: Option<String>,
}

impl Probe {
    /// Orders the moves best first for the player to move: moves to a lost child (the quickest
    /// win first), then to drawn children, then to won ones (the slowest loss first). Moves of
    /// equal worth keep the game's order. Without remoteness, moves rank by value alone.
    pub fn sort_moves_best_first(&mut self) {
        self.moves.sort_by_key(|m| {
            let r = i64::from(m.remoteness.unwrap_or(0));
            match m.value {
                Value::Loss => (0, r),
                Value::Draw => (1, 0),
                Value::Win => (2, -r),
            }
        });
    }
}

impl Table {
    /// Opens a table with the default cache of decoded frames ([`DEFAULT_CACHE`] bytes).
    pub fn open(path: &Path) -> Result<Table> {
        Self::open_with_cache(path, DEFAULT_CACHE)
    }

    /// Opens a table keeping about `cache_bytes` of decoded frames (compressed tables; at least
    /// one frame is always kept).
    pub fn open_with_cache(path: &Path, cache_bytes: u64) -> Result<Table> {
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        let meta = file.metadata().map_err(|e| Error::io(path, e))?;
        if !meta.is_file() {
            return Err(Error::table(
                path,
                "is not a file (a directory or a device?)",
            ));
        }
        let len = meta.len();
        if len == 0 {
            return Err(Error::table(path, "file is empty"));
        }
        // SAFETY: the map is read-only. Tables are never modified in place (they are renamed
        // into place whole), so the bytes do not change under the map while it lives.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
        let header = Header::decode(path, &map, len)?;
        // The few bytes no checksum covers are checked before anything is answered.
        check_padding(&header, &map)
            .map_err(|what| Error::table(path, format!("{what}: the table is damaged")))?;
        let sums_bytes = &map[header.sums.offset as usize..header.sums.end() as usize];
        if xxhash_rust::xxh3::xxh3_64(sums_bytes) != header.sums_hash {
            return Err(Error::table(
                path,
                "checksum section is damaged (its hash does not match the header)",
            ));
        }
        let sums: Vec<u64> = sums_bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let payload = match header.encoding {
            Encoding::Raw => Payload::Raw {
                verified: (0..sums.len().div_ceil(64))
                    .map(|_| AtomicU64::new(0))
                    .collect(),
            },
            Encoding::Zstd => {
                let f = header.frame_positions;
                let size = header.size;
                let frames = size.div_ceil(f);
                let positions = |k: u64| f.min(size - k * f);
                let cells = open_stream(path, &map, &sums, 0, header.cells, frames, |k| {
                    positions(k).div_ceil(4)
                })?;
                let w = header.remoteness_width as u64;
                let remoteness = if w > 0 {
                    let first = frames as usize + 1;
                    Some(open_stream(
                        path,
                        &map,
                        &sums,
                        first,
                        header.remoteness,
                        frames,
                        |k| positions(k) * w,
                    )?)
                } else {
                    None
                };
                let frame_bytes = f / 4 + f * w;
                Payload::Zstd {
                    cells,
                    remoteness,
                    cache: FrameCache::new(cache_bytes, frame_bytes, frames * 2),
                }
            }
        };
        let max_memory = crate::memory::default_limit();
        let game = match &header.source {
            SourceRef::None => AnyGame::load(&header.spec, Input::Disk, max_memory),
            SourceRef::Embedded { source, offset } => {
                let bytes = &map[*offset as usize..(*offset + source.len) as usize];
                AnyGame::load(&header.spec, Input::Embedded(bytes), max_memory)
            }
            SourceRef::Referenced(source) => {
                let game = AnyGame::load(&header.spec, Input::Disk, max_memory)?;
                if !game.source().is_some_and(|s| s.same_as(source)) {
                    return Err(Error::table(
                        path,
                        format!(
                            "was built from {} ({} bytes), which has changed since",
                            source.name, source.len
                        ),
                    ));
                }
                Ok(game)
            }
        }
        .map_err(|e| Error::table(path, format!("cannot rebuild its game: {e}")))?;
        if game.size() != header.size {
            return Err(Error::table(
                path,
                format!(
                    "its game {} has {} positions but the table holds {}",
                    header.spec,
                    game.size(),
                    header.size
                ),
            ));
        }
        Ok(Table {
            path: path.to_path_buf(),
            map,
            header,
            game,
            sums,
            payload,
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
        self.header.remoteness_width > 0
    }

    pub fn is_compressed(&self) -> bool {
        self.header.encoding == Encoding::Zstd
    }

    /// The raw bytes of the whole file (for writers that copy a table).
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.map
    }

    fn damaged(&self, what: String) -> Error {
        Error::table(&self.path, format!("{what}: the table is damaged"))
    }

    /// Checks the raw block that holds byte `at` of `section` (once); `first_block` is the index
    /// of the section's first block in the checksum list.
    fn check_block(&self, section: Section, first_block: u64, at: u64) -> Result<()> {
        let Payload::Raw { verified } = &self.payload else {
            unreachable!("raw blocks belong to raw tables")
        };
        let block = self.header.block as u64;
        let k = first_block + at / block;
        let (word, bit) = ((k / 64) as usize, 1u64 << (k % 64));
        if verified[word].load(Ordering::Relaxed) & bit != 0 {
            return Ok(());
        }
        let start = section.offset + (at / block) * block;
        let end = (start + block).min(section.end());
        let hash = xxhash_rust::xxh3::xxh3_64(&self.map[start as usize..end as usize]);
        if hash != self.sums[k as usize] {
            return Err(self.damaged(format!(
                "block {k} (bytes {start}..{end}) fails its checksum"
            )));
        }
        verified[word].fetch_or(bit, Ordering::Relaxed);
        Ok(())
    }

    /// Decodes frame `k` of a compressed stream, checking the compressed bytes first.
    fn decode(&self, stream: &Stream, sums_first: usize, k: usize) -> Result<Vec<u8>, String> {
        let frame = stream.frame(&self.map, k);
        if xxhash_rust::xxh3::xxh3_64(frame) != self.sums[sums_first + k] {
            return Err(format!("frame {k} fails its checksum"));
        }
        decompress_frame(frame, stream.entries[k].decompressed as usize)
            .map_err(|e| format!("frame {k}: {e}"))
    }

    fn frame_count(&self) -> usize {
        self.header
            .size
            .div_ceil(self.header.frame_positions.max(1)) as usize
    }

    /// The stored code, as the payload has it (compressed tables: meaningful only for positions
    /// the rules do not decide).
    /// The packed cells of positions `first..first + n` of a raw table as stored (`first` a
    /// multiple of 4), each 64 KiB block they touch checked first.
    pub(crate) fn raw_cells(&self, first: u64, n: u64) -> Result<&[u8]> {
        let c = self.header.cells;
        if self.is_compressed() || !first.is_multiple_of(4) || first + n > self.header.size {
            return Err(Error::Usage(format!(
                "raw cells {first}..{} of {}",
                first + n,
                self.path.display()
            )));
        }
        let (from, to) = (first / 4, (first + n).div_ceil(4));
        let block = self.header.block as u64;
        let mut b = from / block * block;
        while b < to {
            self.check_block(c, 0, b)?;
            b += block;
        }
        Ok(&self.map[(c.offset + from) as usize..(c.offset + to) as usize])
    }

    fn stored_code(&self, pos: u64) -> Result<u8> {
        match &self.payload {
            Payload::Raw { .. } => {
                self.check_block(self.header.cells, 0, pos / 4)?;
                let c = self.header.cells;
                Ok(cells::get_in_bytes(
                    &self.map[c.offset as usize..c.end() as usize],
                    pos,
                ))
            }
            Payload::Zstd { cells, cache, .. } => {
                let f = self.header.frame_positions;
                let k = (pos / f) as usize;
                let i = pos % f;
                cache
                    .with(
                        k as u64,
                        || self.decode(cells, 0, k),
                        |b| cells::get_in_bytes(b, i),
                    )
                    .map_err(|e| self.damaged(e))
            }
        }
    }

    fn stored_remoteness(&self, pos: u64) -> Result<Option<u32>> {
        let w = self.header.remoteness_width as u64;
        match &self.payload {
            Payload::Raw { .. } => {
                let sec = self.header.remoteness;
                let first = self.header.cells.blocks(self.header.block as u64);
                self.check_block(sec, first, pos * w)?;
                let at = (sec.offset + pos * w) as usize;
                Ok(get_remoteness(&self.map[at..at + w as usize]))
            }
            Payload::Zstd {
                remoteness, cache, ..
            } => {
                let stream = remoteness.as_ref().expect("width > 0 means a stream");
                let f = self.header.frame_positions;
                let k = (pos / f) as usize;
                let i = ((pos % f) * w) as usize;
                let frames = self.frame_count();
                cache
                    .with(
                        (frames + k) as u64,
                        || self.decode(stream, frames + 1, k),
                        |b| get_remoteness(&b[i..i + w as usize]),
                    )
                    .map_err(|e| self.damaged(e))
            }
        }
    }

    /// The code of a position (0 for an unused index), from checked bytes or the rules.
    pub fn code(&self, pos: u64) -> Result<u8> {
        if pos >= self.header.size {
            return Err(Error::Usage(format!(
                "index {pos} is outside the table (size {})",
                self.header.size
            )));
        }
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

    /// Looks a position up by its text.
    pub fn probe_text(&self, text: &str) -> Result<Probe> {
        let (pos, _) = self.locate(text)?;
        let mut p = self.probe(pos)?;
        p.stored_image = with_game!(&self.game, g => g.stored_image(text, pos));
        Ok(p)
    }

    /// The index and value of a position text. A text that does not parse, or names an index
    /// the game never uses (a board that can never arise), is a [`Error::Position`].
    pub fn locate(&self, text: &str) -> Result<(u64, Value)> {
        let pos = with_game!(&self.game, g => g.parse_position(text))?;
        match self.value(pos)? {
            Some(v) => Ok((pos, v)),
            None => Err(self.not_a_position(text)),
        }
    }

    fn not_a_position(&self, text: &str) -> Error {
        Error::Position(crate::game::PositionError::new(
            text,
            format!(
                "not a position of {} (it can never arise)",
                self.header.spec
            ),
        ))
    }

    /// Values of many position texts at batch speed: parsed in parallel, then looked up as
    /// [`Table::values`] does. Each answer is the value or why that text has none.
    pub fn values_of_texts<S: AsRef<str> + Sync>(&self, texts: &[S]) -> Vec<Result<Value>> {
        let parsed: Vec<Result<u64, crate::game::PositionError>> = texts
            .par_iter()
            .with_min_len(1 << 12)
            .map(|t| with_game!(&self.game, g => g.parse_position(t.as_ref())))
            .collect();
        // A text that did not parse looks up index 0 in its place; its own error wins.
        let indices: Vec<u64> = parsed.iter().map(|r| *r.as_ref().unwrap_or(&0)).collect();
        let values = self.values(&indices);
        parsed
            .into_iter()
            .zip(values)
            .zip(texts)
            .map(|((p, v), t)| {
                p?;
                v?.ok_or_else(|| self.not_a_position(t.as_ref()))
            })
            .collect()
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

    /// What `retrodb info --json` prints: the game, the layout, the value counts.
    pub fn info(&self) -> Info {
        let h = &self.header;
        let file_bytes = self.map.len() as u64;
        let [unused, win, loss, draw] = h.counts;
        let used = h.size.saturating_sub(unused);
        let (source, source_file) = match &h.source {
            SourceRef::None => ("none", None),
            SourceRef::Embedded { source, .. } => ("embedded", Some(source.name.clone())),
            SourceRef::Referenced(source) => ("referenced", Some(source.name.clone())),
        };
        Info {
            file: self.path.display().to_string(),
            game: h.spec.clone(),
            format_version: h.version,
            encoding: if self.is_compressed() { "zstd" } else { "raw" },
            frame_positions: h.frame_positions,
            zstd_level: h.level,
            size: h.size,
            positions: used,
            win,
            loss,
            draw,
            unused,
            rounds: h.rounds,
            remoteness_bytes: h.remoteness_width,
            file_bytes,
            bits_per_position: if used > 0 {
                file_bytes as f64 * 8.0 / used as f64
            } else {
                0.0
            },
            source,
            source_file,
        }
    }

    /// Looks a position up by index, with the value of every move.
    pub fn probe(&self, pos: u64) -> Result<Probe> {
        let value = self.value(pos)?.ok_or_else(|| {
            Error::table(
                &self.path,
                format!("index {pos} holds no position (unused in this game)"),
            )
        })?;
        let stored = |i: u64| self.value(i);
        with_game!(&self.game, g => {
            let mut moves = Vec::new();
            for m in g.moves(pos) {
                let v = self.value(m.child)?.ok_or_else(|| {
                    Error::table(&self.path, format!("move {} leads to an unused index", m.name))
                })?;
                moves.push(ProbeMove {
                    position: g.child_text(pos, &m),
                    name: m.name,
                    value: v,
                    remoteness: self.remoteness(m.child)?,
                    extra: g.annotate(m.child, &stored)?,
                });
            }
            Ok(Probe {
                position: g.position_text(pos),
                index: pos,
                value,
                remoteness: self.remoteness(pos)?,
                extra: g.annotate(pos, &stored)?,
                moves,
                stored_image: None,
            })
        })
    }

    /// Probes many position texts: positions are parsed, then answered in parallel with the
    /// frames each needs decoded once for the batch.
    pub fn probe_batch(&self, texts: &[String]) -> Vec<Result<Probe>> {
        let parsed: Vec<Result<u64>> = texts
            .par_iter()
            .map(|t| Ok(with_game!(&self.game, g => g.parse_position(t))?))
            .collect();
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_unstable_by_key(|&i| parsed[i].as_ref().map_or(0, |&p| p));
        let mut answers: Vec<(usize, Result<Probe>)> = order
            .par_chunks(256)
            .flat_map_iter(|chunk| {
                chunk.iter().map(|&i| {
                    let r = match &parsed[i] {
                        Ok(p) => self.probe(*p).map(|mut probe| {
                            probe.stored_image =
                                with_game!(&self.game, g => g.stored_image(&texts[i], *p));
                            probe
                        }),
                        Err(e) => Err(Error::Usage(e.to_string())),
                    };
                    (i, r)
                })
            })
            .collect();
        answers.sort_unstable_by_key(|(i, _)| *i);
        answers.into_iter().map(|(_, r)| r).collect()
    }

    /// Checks the bytes no checksum covers (see [`check_padding`]).
    fn verify_padding(&self) -> Result<()> {
        check_padding(&self.header, &self.map).map_err(|what| self.damaged(what))
    }

    /// Checks every checksum: raw blocks, or compressed frames (their bytes, their zstd content
    /// checksum and the seek table's checksum of the decoded bytes), and the padding.
    pub fn verify_checksums(&self) -> Result<()> {
        self.verify_padding()?;
        match &self.payload {
            Payload::Raw { .. } => {
                let block = self.header.block as u64;
                let cells_blocks = self.header.cells.blocks(block);
                let bad = (0..self.sums.len() as u64)
                    .into_par_iter()
                    .find_first(|&k| {
                        let (sec, first) = if k < cells_blocks {
                            (self.header.cells, 0)
                        } else {
                            (self.header.remoteness, cells_blocks)
                        };
                        self.check_block(sec, first, (k - first) * block).is_err()
                    });
                match bad {
                    None => Ok(()),
                    Some(k) => Err(self.damaged(format!("block {k} fails its checksum"))),
                }
            }
            Payload::Zstd {
                cells, remoteness, ..
            } => {
                let frames = self.frame_count();
                let mut streams = vec![(cells, 0)];
                if let Some(r) = remoteness {
                    streams.push((r, frames + 1));
                }
                for (stream, first) in streams {
                    (0..frames)
                        .into_par_iter()
                        .try_for_each(|k| {
                            let bytes = self.decode(stream, first, k)?;
                            if xxhash_rust::xxh64::xxh64(&bytes, 0) as u32
                                != stream.entries[k].checksum
                            {
                                return Err(format!(
                                    "frame {k} decodes to bytes whose checksum differs from the seek table's"
                                ));
                            }
                            Ok(())
                        })
                        .map_err(|e| self.damaged(e))?;
                }
                Ok(())
            }
        }
    }

    /// Checks every position against the rules and its children's values (and remoteness when
    /// stored). Returns the number of indices checked.
    pub fn verify_positions(&self, progress: &ProgressBar) -> Result<u64> {
        const CHUNK: u64 = 1 << 14;
        let size = self.header.size;
        progress.set_length(size);
        let err = (0..size.div_ceil(CHUNK))
            .into_par_iter()
            .find_map_first(|k| {
                let start = k * CHUNK;
                let end = (start + CHUNK).min(size);
                let r = (start..end).find_map(|pos| self.check_position(pos).err());
                progress.inc(end - start);
                r
            });
        match err {
            None => Ok(size),
            Some(e) => Err(e),
        }
    }

    /// Like [`Table::verify_positions`] on `count` indices drawn at random (the same ones for
    /// the same `seed`), for tables too large to check whole; returns how many were checked.
    pub fn verify_sample(&self, count: u64, seed: u64, progress: &ProgressBar) -> Result<u64> {
        let size = self.header.size;
        if size == 0 {
            return Ok(0);
        }
        progress.set_length(count);
        let err = (0..count).into_par_iter().find_map_any(|k| {
            // SplitMix64 of the draw number, mixed with the seed.
            let mut z =
                (seed ^ k.wrapping_mul(0xD6E8_FEB8_6659_FD93)).wrapping_add(0x9E37_79B9_7F4A_7C15);
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            let pos = (z ^ (z >> 31)) % size;
            let r = self.check_position(pos).err();
            progress.inc(1);
            r
        });
        match err {
            None => Ok(count),
            Some(e) => Err(e),
        }
    }

    fn check_position(&self, pos: u64) -> Result<()> {
        let stored = self.value(pos)?;
        let rem = self.remoteness(pos)?;
        with_game!(&self.game, g => {
            let describe = |what: String| {
                Error::table(
                    &self.path,
                    format!("position {} (index {pos}): {what}", g.position_text(pos)),
                )
            };
            let (expect, expect_rem) = match g.status(pos) {
                Status::Unused => (None, None),
                Status::Over(v) => (Some(v), (v != Value::Draw).then_some(0)),
                Status::Open => {
                    let mut any_loss = false;
                    let mut any_draw = false;
                    let mut has_child = false;
                    let mut min_loss = u32::MAX;
                    let mut max_win = 0u32;
                    let mut failure = None;
                    g.for_each_child(pos, |c| {
                        has_child = true;
                        if failure.is_some() {
                            return;
                        }
                        match (self.value(c), self.remoteness(c)) {
                            (Ok(Some(Value::Loss)), Ok(r)) => {
                                any_loss = true;
                                min_loss = min_loss.min(r.unwrap_or(0));
                            }
                            (Ok(Some(Value::Win)), Ok(r)) => max_win = max_win.max(r.unwrap_or(0)),
                            (Ok(Some(Value::Draw)), Ok(_)) => any_draw = true,
                            (Ok(None), _) => {
                                failure = Some(describe(format!("child index {c} is unused")))
                            }
                            (Err(e), _) | (_, Err(e)) => failure = Some(e),
                        }
                    });
                    if let Some(e) = failure {
                        return Err(e);
                    }
                    if any_loss {
                        (Some(Value::Win), Some(min_loss + 1))
                    } else if any_draw {
                        (Some(Value::Draw), None)
                    } else {
                        // Every child won for its mover (or there is none): lost, as slowly as
                        // the longest child allows.
                        (Some(Value::Loss), Some(if has_child { max_win + 1 } else { 0 }))
                    }
                }
            };
            if stored != expect {
                return Err(describe(format!(
                    "stored {} but its children make it {}",
                    stored.map_or("unused", Value::as_str),
                    expect.map_or("unused", Value::as_str)
                )));
            }
            if self.has_remoteness() && expect.is_some() && rem != expect_rem {
                return Err(describe(format!(
                    "stored remoteness {rem:?} but its children give {expect_rem:?}"
                )));
            }
            Ok(())
        })
    }

    /// Writes every used position as `position<TAB>value[<TAB>remoteness]`, in index order.
    pub fn dump(&self, out: &mut dyn Write) -> Result<()> {
        let size = self.header.size;
        let mut w = BufWriter::with_capacity(1 << 16, out);
        let io = |e| Error::io("<stdout>", e);
        // Every row has the same columns: with remoteness, a draw's third column is `-`.
        let rem = self.has_remoteness();
        with_game!(&self.game, g => {
            for entry in self.used(0..size) {
                let (pos, v) = entry?;
                match self.remoteness(pos)? {
                    Some(r) => writeln!(w, "{}\t{v}\t{r}", g.position_text(pos)),
                    None if rem => writeln!(w, "{}\t{v}\t-", g.position_text(pos)),
                    None => writeln!(w, "{}\t{v}", g.position_text(pos)),
                }
                .map_err(io)?;
            }
            Ok::<(), Error>(())
        })?;
        w.flush().map_err(io)
    }
}

/// Parses a compressed stream and checks its seek table against the checksum list.
fn open_stream(
    path: &Path,
    map: &[u8],
    sums: &[u64],
    first: usize,
    section: Section,
    frames: u64,
    decompressed: impl Fn(u64) -> u64,
) -> Result<Stream> {
    let table_len = 8 + frames * 12 + 9;
    if section.len < table_len {
        return Err(Error::table(
            path,
            "compressed stream is shorter than its seek table: the table is damaged",
        ));
    }
    let table = &map[(section.end() - table_len) as usize..section.end() as usize];
    if xxhash_rust::xxh3::xxh3_64(table) != sums[first + frames as usize] {
        return Err(Error::table(
            path,
            "seek table fails its checksum: the table is damaged",
        ));
    }
    Stream::parse(map, section, frames, decompressed)
        .map_err(|e| Error::table(path, format!("{e}: the table is damaged")))
}

/// Checks the bytes no checksum covers: the padding between sections must be zero and nothing
/// may follow the last section (at most a few pages: cheap enough for every open).
fn check_padding(h: &Header, map: &[u8]) -> std::result::Result<(), String> {
    let mut sections = vec![h.cells, h.remoteness, h.sums];
    sections.retain(|s| s.len > 0);
    sections.sort_by_key(|s| s.offset);
    let mut at = h.header_len;
    for s in &sections {
        if s.offset < at {
            return Err("sections overlap".into());
        }
        if map[at as usize..s.offset as usize].iter().any(|&b| b != 0) {
            return Err(format!("padding bytes {at}..{} are not zero", s.offset));
        }
        at = s.end();
    }
    if map.len() as u64 != at {
        return Err(format!(
            "{} bytes follow the last section",
            (map.len() as u64).saturating_sub(at)
        ));
    }
    Ok(())
}
