//! Table files: building them from a solve, opening them for lookups, verifying and dumping.
//!
//! A table is written to a temporary file beside its destination, its cells memory-mapped while
//! the solver fills them, then checksummed, given its header and renamed into place — a table
//! under its final name is always complete. On the reading side the one invariant: no value is
//! returned from a block whose checksum has not been seen to match.

pub mod cells;
pub mod format;

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use indicatif::ProgressBar;
use memmap2::{Mmap, MmapMut, MmapOptions};
use rayon::prelude::*;
use serde::Serialize;

use crate::error::{Error, Result};
use crate::game::{Game, Status, Value};
use crate::games::{AnyGame, Input};
use crate::solve::{self, SolveOptions, SolveStats};
use crate::with_game;
use cells::Cells;
use format::{Encoding, Header, PAGE, Section, SourceRef, align};

/// How to build a table.
#[derive(Clone)]
pub struct BuildOptions {
    pub remoteness: bool,
    pub progress: Option<ProgressBar>,
    /// Bytes the build may use; larger builds are refused before allocating.
    pub max_memory: u64,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            remoteness: false,
            progress: None,
            max_memory: crate::memory::default_limit(),
        }
    }
}

/// What a build did.
#[derive(Clone, Debug, Serialize)]
pub struct BuildSummary {
    pub spec: String,
    pub path: String,
    pub positions: u64,
    /// `[unused, win, loss, draw]`.
    pub counts: [u64; 4],
    pub rounds: u32,
    pub edges: u64,
    pub parent_visits: u64,
    pub solve_seconds: f64,
    pub total_seconds: f64,
    pub file_bytes: u64,
}

/// Removes a temporary file unless the build got as far as renaming it.
struct TempFile {
    path: PathBuf,
    keep: bool,
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Solves `game` and writes its table to `out`.
pub fn build(game: &AnyGame, out: &Path, opts: &BuildOptions) -> Result<BuildSummary> {
    let started = Instant::now();
    let spec = game.spec();
    let size = game.size();
    let max_children = with_game!(game, g => g.max_children());
    crate::memory::check(
        format!("solving {spec} ({size} positions)"),
        solve::memory_estimate(size, max_children, opts.remoteness),
        opts.max_memory,
    )?;

    // The game's input goes into the header when small; otherwise the header refers to it.
    let (source, embedded) = match game.source() {
        None => (SourceRef::None, Vec::new()),
        Some(src) => match &src.bytes {
            Some(bytes) => (
                SourceRef::Embedded {
                    source: src.clone(),
                    offset: format::FIXED as u64 + spec.len() as u64,
                },
                bytes.to_vec(),
            ),
            None => (SourceRef::Referenced(src.clone()), Vec::new()),
        },
    };
    let embedded_len = if matches!(source, SourceRef::Embedded { .. }) {
        embedded.len() as u64
    } else {
        0
    };
    let header_len = Header::len_for(&spec, embedded_len);
    let cells_sec = Section {
        offset: align(header_len, PAGE),
        len: cells::words_for(size) * 8,
    };

    let tmp_path = temp_name(out);
    let mut tmp = TempFile {
        path: tmp_path.clone(),
        keep: false,
    };
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&tmp_path)
        .map_err(|e| Error::io(&tmp_path, e))?;
    file.set_len(cells_sec.end())
        .map_err(|e| Error::io(&tmp_path, e))?;

    let solve_start = Instant::now();
    let mut map = if cells_sec.len > 0 {
        // SAFETY: the temporary file is ours alone (fresh name, just created) and outlives the
        // map; nothing else maps or truncates it while the solver writes.
        Some(
            unsafe {
                MmapOptions::new()
                    .offset(cells_sec.offset)
                    .len(cells_sec.len as usize)
                    .map_mut(&file)
            }
            .map_err(|e| Error::io(&tmp_path, e))?,
        )
    } else {
        None
    };
    let stats = {
        let words = map.as_mut().map_or(&[][..], |m| atomic_words(m));
        let cells = Cells::new(words, size);
        let sopts = SolveOptions {
            remoteness: opts.remoteness,
            progress: opts.progress.clone(),
        };
        with_game!(game, g => solve::counter::solve(g, &cells, &sopts))
    };
    let solve_seconds = solve_start.elapsed().as_secs_f64();
    if let Some(m) = &map {
        m.flush().map_err(|e| Error::io(&tmp_path, e))?;
    }
    let cell_bytes: &[u8] = map.as_ref().map_or(&[][..], |m| &m[..]);

    // Remoteness, in the narrowest width that holds the largest finite value.
    let (width, rem_bytes) = encode_remoteness(&stats);
    let rem_sec = Section {
        offset: if width > 0 {
            align(cells_sec.end(), PAGE)
        } else {
            0
        },
        len: rem_bytes.len() as u64,
    };
    if width > 0 {
        file.write_all_at(&rem_bytes, rem_sec.offset)
            .map_err(|e| Error::io(&tmp_path, e))?;
    }
    let block = format::BLOCK as u64;
    let mut sums = block_sums(cell_bytes, block);
    sums.extend(block_sums(&rem_bytes, block));
    let sum_bytes: Vec<u8> = sums.iter().flat_map(|s| s.to_le_bytes()).collect();
    let sums_sec = Section {
        offset: align(rem_sec.end().max(cells_sec.end()), 8),
        len: sum_bytes.len() as u64,
    };
    file.write_all_at(&sum_bytes, sums_sec.offset)
        .map_err(|e| Error::io(&tmp_path, e))?;
    drop(map);

    let header = Header {
        header_len,
        size,
        encoding: Encoding::Raw,
        remoteness_width: width,
        block: format::BLOCK,
        counts: stats.counts,
        cells: cells_sec,
        remoteness: rem_sec,
        sums: sums_sec,
        sums_hash: xxhash_rust::xxh3::xxh3_64(&sum_bytes),
        rounds: stats.rounds,
        spec: spec.clone(),
        source,
    };
    file.write_all_at(&header.encode(&embedded), 0)
        .map_err(|e| Error::io(&tmp_path, e))?;
    file.sync_all().map_err(|e| Error::io(&tmp_path, e))?;
    let file_bytes = file.metadata().map_err(|e| Error::io(&tmp_path, e))?.len();
    drop(file);
    std::fs::rename(&tmp_path, out).map_err(|e| Error::io(out, e))?;
    tmp.keep = true;

    Ok(BuildSummary {
        spec,
        path: out.display().to_string(),
        positions: size,
        counts: stats.counts,
        rounds: stats.rounds,
        edges: stats.edges,
        parent_visits: stats.parent_visits,
        solve_seconds,
        total_seconds: started.elapsed().as_secs_f64(),
        file_bytes,
    })
}

/// `dir/.name.tmp-PID` beside the destination, so the final rename stays on one file system.
fn temp_name(out: &Path) -> PathBuf {
    let name = out
        .file_name()
        .map_or_else(|| "table".into(), |n| n.to_string_lossy().into_owned());
    out.with_file_name(format!(".{name}.tmp-{}", std::process::id()))
}

fn atomic_words(map: &mut MmapMut) -> &[AtomicU64] {
    assert!(
        (map.as_ptr() as usize).is_multiple_of(8) && map.len().is_multiple_of(8),
        "cell maps are page-aligned whole words"
    );
    // SAFETY: the map is page-aligned (so aligned for u64) and a whole number of words long;
    // AtomicU64 has u64's layout; the returned slice borrows the map mutably, so no other
    // reference to these bytes exists while it lives.
    unsafe { std::slice::from_raw_parts(map.as_mut_ptr() as *const AtomicU64, map.len() / 8) }
}

fn encode_remoteness(stats: &SolveStats) -> (u8, Vec<u8>) {
    let Some(rem) = &stats.remoteness else {
        return (0, Vec::new());
    };
    let max = rem
        .par_iter()
        .filter(|&&r| r != u32::MAX)
        .max()
        .copied()
        .unwrap_or(0);
    let width: u8 = if max < 0xFF {
        1
    } else if max < 0xFFFF {
        2
    } else {
        4
    };
    let mut out = vec![0u8; rem.len() * width as usize];
    out.par_chunks_mut(width as usize * 4096)
        .zip(rem.par_chunks(4096))
        .for_each(|(dst, src)| {
            for (d, &r) in dst.chunks_mut(width as usize).zip(src) {
                match width {
                    1 => d[0] = r.min(0xFF) as u8,
                    2 => d.copy_from_slice(&(r.min(0xFFFF) as u16).to_le_bytes()),
                    _ => d.copy_from_slice(&r.to_le_bytes()),
                }
            }
        });
    (width, out)
}

/// xxh3-64 of every `block` bytes of `bytes` (the last block may be shorter).
fn block_sums(bytes: &[u8], block: u64) -> Vec<u64> {
    bytes
        .par_chunks(block as usize)
        .map(xxhash_rust::xxh3::xxh3_64)
        .collect()
}

/// A table opened for lookups: the file memory-mapped, the header checked, the game rebuilt.
pub struct Table {
    path: PathBuf,
    map: Mmap,
    header: Header,
    game: AnyGame,
    sums: Vec<u64>,
    /// One bit per checksum block: set once the block has been seen to match.
    verified: Vec<AtomicU64>,
}

/// The answer for one position.
#[derive(Clone, Debug, Serialize)]
pub struct Probe {
    pub position: String,
    pub index: u64,
    pub value: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remoteness: Option<u32>,
    pub moves: Vec<ProbeMove>,
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
}

impl Table {
    pub fn open(path: &Path) -> Result<Table> {
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
        if len == 0 {
            return Err(Error::table(path, "file is empty"));
        }
        // SAFETY: the map is read-only. Tables are never modified in place (they are renamed
        // into place whole), so the bytes do not change under the map while it lives.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
        let header = Header::decode(path, &map, len)?;
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
        let verified = (0..sums.len().div_ceil(64))
            .map(|_| AtomicU64::new(0))
            .collect();
        Ok(Table {
            path: path.to_path_buf(),
            map,
            header,
            game,
            sums,
            verified,
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

    /// Checks the block that holds byte `at` of `section` (once); `first_block` is the index of
    /// the section's first block in the checksum list.
    fn check_block(&self, section: Section, first_block: u64, at: u64) -> Result<()> {
        let block = self.header.block as u64;
        let k = first_block + at / block;
        let (word, bit) = ((k / 64) as usize, 1u64 << (k % 64));
        if self.verified[word].load(Ordering::Relaxed) & bit != 0 {
            return Ok(());
        }
        let start = section.offset + (at / block) * block;
        let end = (start + block).min(section.end());
        let hash = xxhash_rust::xxh3::xxh3_64(&self.map[start as usize..end as usize]);
        if hash != self.sums[k as usize] {
            return Err(Error::table(
                &self.path,
                format!(
                    "block {k} (bytes {start}..{end}) fails its checksum: the table is damaged"
                ),
            ));
        }
        self.verified[word].fetch_or(bit, Ordering::Relaxed);
        Ok(())
    }

    /// The stored code of a position (0 for an unused index), from a checked block.
    pub fn code(&self, pos: u64) -> Result<u8> {
        if pos >= self.header.size {
            return Err(Error::Usage(format!(
                "index {pos} is outside the table (size {})",
                self.header.size
            )));
        }
        self.check_block(self.header.cells, 0, pos / 4)?;
        let bytes = &self.map[self.header.cells.offset as usize..self.header.cells.end() as usize];
        Ok(cells::get_in_bytes(bytes, pos))
    }

    /// The value of a position, or `None` for an unused index.
    pub fn value(&self, pos: u64) -> Result<Option<Value>> {
        Ok(cells::value(self.code(pos)?))
    }

    /// The stored remoteness (`None` for draws or tables without remoteness).
    pub fn remoteness(&self, pos: u64) -> Result<Option<u32>> {
        let w = self.header.remoteness_width as u64;
        if w == 0 || pos >= self.header.size {
            return Ok(None);
        }
        let sec = self.header.remoteness;
        let first = self.header.cells.blocks(self.header.block as u64);
        self.check_block(sec, first, pos * w)?;
        let at = (sec.offset + pos * w) as usize;
        let b = &self.map[at..at + w as usize];
        let (r, none) = match w {
            1 => (b[0] as u32, 0xFF),
            2 => (u16::from_le_bytes([b[0], b[1]]) as u32, 0xFFFF),
            _ => (u32::from_le_bytes([b[0], b[1], b[2], b[3]]), u32::MAX),
        };
        Ok((r != none).then_some(r))
    }

    /// Looks a position up by its text.
    pub fn probe_text(&self, text: &str) -> Result<Probe> {
        let pos = with_game!(&self.game, g => g.parse_position(text))?;
        self.probe(pos)
    }

    /// Looks a position up by index, with the value of every move.
    pub fn probe(&self, pos: u64) -> Result<Probe> {
        let value = self.value(pos)?.ok_or_else(|| {
            Error::table(
                &self.path,
                format!("index {pos} holds no position (unused in this game)"),
            )
        })?;
        with_game!(&self.game, g => {
            let mut moves = Vec::new();
            for m in g.moves(pos) {
                let v = self.value(m.child)?.ok_or_else(|| {
                    Error::table(&self.path, format!("move {} leads to an unused index", m.name))
                })?;
                moves.push(ProbeMove {
                    position: g.position_text(m.child),
                    name: m.name,
                    value: v,
                    remoteness: self.remoteness(m.child)?,
                });
            }
            Ok(Probe {
                position: g.position_text(pos),
                index: pos,
                value,
                remoteness: self.remoteness(pos)?,
                moves,
            })
        })
    }

    /// Checks every block's checksum.
    pub fn verify_checksums(&self) -> Result<()> {
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
            Some(k) => Err(Error::table(
                &self.path,
                format!("block {k} fails its checksum: the table is damaged"),
            )),
        }
    }

    /// Checks every position against the rules and its children's values (and remoteness when
    /// stored). Returns the number of positions checked.
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

    fn check_position(&self, pos: u64) -> Result<()> {
        let code = self.code(pos)?;
        let stored = cells::value(code);
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
                    let mut min_loss = u32::MAX;
                    let mut max_win = 0u32;
                    let mut failure = None;
                    g.for_each_child(pos, |c| {
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
                            (Ok(None), _) => failure = Some(describe(format!("child index {c} is unused"))),
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
                        // the longest child.
                        let mut has_child = false;
                        g.for_each_child(pos, |_| has_child = true);
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

    /// Writes every used position as `position<TAB>value`, in index order.
    pub fn dump(&self, out: &mut dyn Write) -> Result<()> {
        let size = self.header.size;
        let mut w = BufWriter::with_capacity(1 << 16, out);
        let io = |e| Error::io("<stdout>", e);
        with_game!(&self.game, g => {
            for pos in 0..size {
                if let Some(v) = self.value(pos)? {
                    match self.remoteness(pos)? {
                        Some(r) => writeln!(w, "{}\t{v}\t{r}", g.position_text(pos)),
                        None => writeln!(w, "{}\t{v}", g.position_text(pos)),
                    }
                    .map_err(io)?;
                }
            }
            Ok::<(), Error>(())
        })?;
        w.flush().map_err(io)
    }
}
