//! Writing table files: the raw table a build produces, and the pieces every writer shares
//! (temporary files renamed into place, the header's game and source fields, block checksums).
//!
//! Invariant: a file appears under its final name only complete — written, checksummed, synced
//! and renamed; on any error the temporary file is removed.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::time::Instant;

use indicatif::ProgressBar;
use memmap2::{MmapMut, MmapOptions};
use rayon::prelude::*;
use serde::Serialize;

use super::cells::{self, Cells};
use super::format::{self, Encoding, Header, PAGE, Section, SourceRef, align};
use super::workfiles::{OutputLock, allocate, sibling};
use crate::error::{Error, Result};
use crate::game::Tiered;
use crate::games::AnyGame;
use crate::solve::{self, SolveOptions, SolveStats};
use crate::{with_game, with_tiered_game};

/// How to build a table.
#[derive(Clone)]
pub struct BuildOptions {
    pub remoteness: bool,
    pub progress: Option<ProgressBar>,
    /// Bytes the build may use; larger builds are refused before allocating.
    pub max_memory: u64,
    /// The engine; `None` picks the game's default ([`solve::Engine::default_for`]).
    pub engine: Option<solve::Engine>,
    /// Tiered engine: solve at most this many tiers in this run, then stop, leaving the work
    /// files for a later run to resume from.
    pub stop_after_tiers: Option<u32>,
    /// Tiered engine: a finished tier becomes a checkpoint (its work written to disk and named
    /// in the checkpoint file) when at least this long has passed since the last one; zero makes
    /// every tier one. The tier where `stop_after_tiers` stops always is.
    pub checkpoint_every: std::time::Duration,
    /// Tiered engine: called after each tier (for progress lines in logs).
    pub on_tier: Option<OnTier>,
    /// Checked while solving; once set, the build stops and fails with
    /// [`Error::Interrupted`] (a tiered build's work files stay for a later run to resume).
    pub stop: solve::Stop,
}

/// What [`BuildOptions::on_tier`] calls.
pub type OnTier = std::sync::Arc<dyn Fn(&TierReport) + Send + Sync>;

/// The default [`BuildOptions::checkpoint_every`]: an interruption loses at most about a
/// minute of work besides the tier in progress, and builds of a few minutes pay for a few
/// write-backs only.
pub const CHECKPOINT_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            remoteness: false,
            progress: None,
            max_memory: crate::memory::default_limit(),
            engine: None,
            stop_after_tiers: None,
            checkpoint_every: CHECKPOINT_EVERY,
            on_tier: None,
            stop: solve::Stop::default(),
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
    /// Retrograde rounds, where the engine followed them (not in a values-only tiered build).
    pub rounds: Option<u32>,
    /// Edges of the game graph, where the engine enumerated them all.
    pub edges: Option<u64>,
    pub parent_visits: u64,
    /// Children read to decide their parents (tiered engine).
    pub child_probes: u64,
    pub engine: solve::Engine,
    /// Tiered builds: the tier this run continued below, when it resumed an interrupted build.
    pub resumed_from_tier: Option<u32>,
    /// False when the build stopped early (`stop_after_tiers`); `path` is then the work file
    /// and rerunning the build resumes it.
    pub complete: bool,
    pub solve_seconds: f64,
    /// Seconds of the whole build: here from the call on; the command line's summary counts
    /// from before it read the input.
    pub total_seconds: f64,
    pub file_bytes: u64,
    /// Seconds spent compressing, for a build written compressed ([`build_file`]).
    pub compress_seconds: Option<f64>,
}

/// A file being written under a temporary name beside its destination; removed on drop unless
/// [`TempFile::commit`] renamed it into place.
pub(crate) struct TempFile {
    pub path: PathBuf,
    pub file: File,
    out: PathBuf,
    done: bool,
    /// Kept on drop too: a resumable build's work file.
    keep: bool,
}

impl TempFile {
    /// Renaming over a device or a directory would replace it (`-o /dev/null` would turn the
    /// device into a plain file), so only plain files or new names are written.
    pub(crate) fn check_destination(out: &Path) -> Result<()> {
        if let Ok(meta) = std::fs::metadata(out)
            && !meta.is_file()
        {
            return Err(Error::io(
                out,
                std::io::Error::new(
                    std::io::ErrorKind::AlreadyExists,
                    "exists and is not a regular file; refusing to replace it",
                ),
            ));
        }
        Ok(())
    }

    /// `.NAME.tmp-PID` beside `out` (the caller holds `out`'s [`OutputLock`], which is what
    /// lets a later writer remove it if this process dies).
    pub fn create(out: &Path) -> Result<TempFile> {
        Self::open(
            out,
            sibling(out, &format!("tmp-{}", std::process::id())),
            false,
        )
    }

    /// The work file of a resumable build of `out` (`.NAME.partial` beside it), opened without
    /// truncation and kept when dropped, so an interrupted build can continue from it.
    pub fn resumable(out: &Path) -> Result<TempFile> {
        Self::open(out, sibling(out, "partial"), true)
    }

    /// Opens `path` as the file that will become `out`; a resumable file keeps its contents and
    /// survives a failed build, a temporary one starts empty and is removed.
    fn open(out: &Path, path: PathBuf, resumable: bool) -> Result<TempFile> {
        Self::check_destination(out)?;
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(!resumable)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        Ok(TempFile {
            path,
            file,
            out: out.to_path_buf(),
            done: false,
            keep: resumable,
        })
    }

    pub fn write_at(&self, bytes: &[u8], at: u64) -> Result<()> {
        self.file
            .write_all_at(bytes, at)
            .map_err(|e| Error::io(&self.path, e))
    }

    /// [`TempFile::write_at`] for large buffers, 8 MiB pieces written by the thread pool: the
    /// kernel's page-cache work for an 86 MB remoteness section took 0.17 s from one thread.
    pub fn write_at_parallel(&self, bytes: &[u8], at: u64) -> Result<()> {
        const PIECE: usize = 8 << 20;
        bytes
            .par_chunks(PIECE)
            .enumerate()
            .try_for_each(|(k, piece)| self.write_at(piece, at + (k * PIECE) as u64))
    }

    /// Syncs and renames into place; returns the file's length.
    pub fn commit(mut self) -> Result<u64> {
        self.file.sync_all().map_err(|e| Error::io(&self.path, e))?;
        let len = self
            .file
            .metadata()
            .map_err(|e| Error::io(&self.path, e))?
            .len();
        std::fs::rename(&self.path, &self.out).map_err(|e| Error::io(&self.out, e))?;
        self.done = true;
        Ok(len)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.done && !self.keep {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// `.NAME.partial-rem.T` beside `out`: the remoteness a build resumed below tier `T` starts
/// from (one per checkpoint; the previous one is deleted once the next is named).
fn rem_path(out: &Path, tier: u32) -> PathBuf {
    sibling(out, &format!("partial-rem.{tier}"))
}

/// Deletes the remoteness work files beside `out`, all or all but tier `keep`'s.
fn remove_rem_files(out: &Path, keep: Option<u32>) {
    let prefix = sibling(out, "partial-rem.");
    let Some(prefix) = prefix.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(crate::memory::dir_of(out)) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(tier) = name.strip_prefix(&prefix) else {
            continue;
        };
        if keep.is_none_or(|k| tier != k.to_string()) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// Bytes a checkpoint's remoteness moves through at a time (no copy of a whole tier).
const REM_CHUNK: usize = 16 << 20;

/// Reads the remoteness work file of checkpoint `m` into `buf`, which must be as long as the
/// engine expects; it must be that long and match the checkpoint's sum.
fn read_rem(out: &Path, m: &Mark, buf: &mut [u8]) -> Result<()> {
    let path = rem_path(out, m.tier);
    let file = File::open(&path).map_err(|e| Error::io(&path, e))?;
    let len = file.metadata().map_err(|e| Error::io(&path, e))?.len();
    let mut hash = xxhash_rust::xxh3::Xxh3Default::new();
    let whole = len == m.rem_bytes && len == buf.len() as u64;
    if whole {
        for (k, chunk) in buf.chunks_mut(REM_CHUNK).enumerate() {
            file.read_exact_at(chunk, (k * REM_CHUNK) as u64)
                .map_err(|e| Error::io(&path, e))?;
            hash.update(chunk);
        }
    }
    if !whole || hash.digest() != m.rem_sum {
        return Err(Error::Table {
            path: path.display().to_string(),
            msg: format!(
                "work file damaged: {len} bytes (the checkpoint of tier {} recorded {} and the \
                 engine expects {}) or another checksum; delete the .partial files beside it to \
                 start over",
                m.tier,
                m.rem_bytes,
                buf.len()
            ),
        });
    }
    Ok(())
}

/// Writes a finished tier's remoteness to `path` a chunk at a time and syncs it; returns its
/// size and xxh3.
fn write_rem(path: &Path, rem: &[std::sync::atomic::AtomicU8]) -> Result<(u64, u64)> {
    let file = File::create(path).map_err(|e| Error::io(path, e))?;
    let mut hash = xxhash_rust::xxh3::Xxh3Default::new();
    let mut buf = Vec::with_capacity(REM_CHUNK.min(rem.len()));
    for (k, chunk) in rem.chunks(REM_CHUNK).enumerate() {
        buf.clear();
        buf.extend(
            chunk
                .iter()
                .map(|b| b.load(std::sync::atomic::Ordering::Relaxed)),
        );
        hash.update(&buf);
        file.write_all_at(&buf, (k * REM_CHUNK) as u64)
            .map_err(|e| Error::io(path, e))?;
    }
    file.sync_all().map_err(|e| Error::io(path, e))?;
    Ok((rem.len() as u64, hash.digest()))
}

/// The header's description of the game: its spec, and its input embedded or referred to.
pub(crate) struct GameFields {
    pub spec: String,
    pub source: SourceRef,
    pub embedded: Vec<u8>,
}

impl GameFields {
    pub fn of(game: &AnyGame) -> GameFields {
        let spec = game.spec();
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
        GameFields {
            spec,
            source,
            embedded,
        }
    }

    /// The same fields as a table's header has them (the embedded bytes read from `map`).
    pub fn from_header(h: &Header, map: &[u8]) -> GameFields {
        let embedded = match &h.source {
            SourceRef::Embedded { source, offset } => {
                map[*offset as usize..(*offset + source.len) as usize].to_vec()
            }
            _ => Vec::new(),
        };
        GameFields {
            spec: h.spec.clone(),
            source: h.source.clone(),
            embedded,
        }
    }

    pub fn header_len(&self) -> u64 {
        let embedded = if matches!(self.source, SourceRef::Embedded { .. }) {
            self.embedded.len() as u64
        } else {
            0
        };
        Header::len_for(&self.spec, embedded)
    }
}

/// xxh3-64 of every `block` bytes of `bytes` (the last block may be shorter).
pub(crate) fn block_sums(bytes: &[u8], block: u64) -> Vec<u64> {
    bytes
        .par_chunks(block as usize)
        .map(xxhash_rust::xxh3::xxh3_64)
        .collect()
}

/// A raw table being written: the temporary file with its cells section memory-mapped.
pub(crate) struct RawWriter {
    tmp: TempFile,
    game: GameFields,
    size: u64,
    cells_sec: Section,
    map: Option<MmapMut>,
}

impl RawWriter {
    pub fn create(out: &Path, game: GameFields, size: u64) -> Result<RawWriter> {
        Self::with_file(TempFile::create(out)?, game, size)
    }

    /// A writer over `tmp`, whose cells (if it is a resumed work file) are kept as they are.
    fn with_file(tmp: TempFile, game: GameFields, size: u64) -> Result<RawWriter> {
        let cells_sec = Section {
            offset: align(game.header_len(), PAGE),
            len: cells::words_for(size) * 8,
        };
        tmp.file
            .set_len(cells_sec.end())
            .map_err(|e| Error::io(&tmp.path, e))?;
        // The blocks under the map are reserved now: a full disk fails here, not as a SIGBUS
        // while solving.
        allocate(&tmp.file, &tmp.path, cells_sec.end())?;
        let map = if cells_sec.len > 0 {
            // SAFETY: the file is this process's alone while the map lives: its name is this
            // process's (`.NAME.tmp-PID`) or, for a resumable work file, the output's lock is
            // held; nothing truncates it while cells are written.
            Some(
                unsafe {
                    MmapOptions::new()
                        .offset(cells_sec.offset)
                        .len(cells_sec.len as usize)
                        .map_mut(&tmp.file)
                }
                .map_err(|e| Error::io(&tmp.path, e))?,
            )
        } else {
            None
        };
        Ok(RawWriter {
            tmp,
            game,
            size,
            cells_sec,
            map,
        })
    }

    /// The cells as atomic words, for a solver to fill.
    pub fn words(&mut self) -> &[AtomicU64] {
        let Some(map) = self.map.as_mut() else {
            return &[];
        };
        assert!(
            (map.as_ptr() as usize).is_multiple_of(8) && map.len().is_multiple_of(8),
            "cell maps are page-aligned whole words"
        );
        // SAFETY: the map is page-aligned (so aligned for u64) and a whole number of words long;
        // AtomicU64 has u64's layout; the slice borrows the map mutably, so no other reference
        // to these bytes exists while it lives.
        unsafe { std::slice::from_raw_parts(map.as_mut_ptr() as *const AtomicU64, map.len() / 8) }
    }

    /// Writes the cells mapped so far to the file (a resumable build's checkpoint).
    pub fn flush(&self) -> Result<()> {
        match &self.map {
            Some(m) => m.flush().map_err(|e| Error::io(&self.tmp.path, e)),
            None => Ok(()),
        }
    }

    /// The cells as plain bytes.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        self.map.as_deref_mut().unwrap_or(&mut [])
    }

    /// Writes remoteness, checksums and the header, then renames the file into place.
    pub fn finish(
        self,
        counts: [u64; 4],
        rounds: Option<u32>,
        rem_width: u8,
        rem_bytes: &[u8],
    ) -> Result<u64> {
        let RawWriter {
            tmp,
            game,
            size,
            cells_sec,
            map,
        } = self;
        // No msync of the cells here: the fsync in `commit` writes a shared mapping's dirty
        // pages too (Linux keeps them in the page cache), and syncing twice cost 23 ms of
        // hex:4's build.
        let cell_bytes: &[u8] = map.as_deref().unwrap_or(&[]);
        let rem_sec = Section {
            offset: if rem_width > 0 {
                align(cells_sec.end(), PAGE)
            } else {
                0
            },
            len: rem_bytes.len() as u64,
        };
        if rem_width > 0 {
            tmp.write_at_parallel(rem_bytes, rem_sec.offset)?;
        }
        let block = format::BLOCK as u64;
        let mut sums = block_sums(cell_bytes, block);
        sums.extend(block_sums(rem_bytes, block));
        let sum_bytes: Vec<u8> = sums.iter().flat_map(|s| s.to_le_bytes()).collect();
        let sums_sec = Section {
            offset: align(rem_sec.end().max(cells_sec.end()), 8),
            len: sum_bytes.len() as u64,
        };
        tmp.write_at(&sum_bytes, sums_sec.offset)?;
        drop(map);
        let header = Header {
            version: format::VERSION,
            header_len: game.header_len(),
            size,
            encoding: Encoding::Raw,
            remoteness_width: rem_width,
            block: format::BLOCK,
            counts,
            cells: cells_sec,
            remoteness: rem_sec,
            sums: sums_sec,
            sums_hash: xxhash_rust::xxh3::xxh3_64(&sum_bytes),
            rounds,
            frame_positions: 0,
            level: 0,
            spec: game.spec,
            source: game.source,
        };
        tmp.write_at(&header.encode(&game.embedded), 0)?;
        tmp.commit()
    }
}

/// What a build of `game` with `opts` is expected to take before it starts.
#[derive(Clone, Debug, Serialize)]
pub struct BuildEstimate {
    pub engine: solve::Engine,
    /// Peak memory of the solve, in bytes (what the memory guard compares with the limit).
    pub memory_bytes: u64,
    /// The raw table file's size (cells and remoteness; the header and checksums are small).
    pub file_bytes: u64,
}

/// The engine a build would use and its memory and disk needs.
pub fn estimate(game: &AnyGame, opts: &BuildOptions) -> BuildEstimate {
    let engine = opts
        .engine
        .unwrap_or_else(|| solve::Engine::default_for(game));
    let size = game.size();
    let rem = if opts.remoteness { size } else { 0 };
    BuildEstimate {
        engine,
        memory_bytes: engine.memory_estimate(game, opts.remoteness),
        file_bytes: size.div_ceil(4).saturating_add(rem),
    }
}

/// Solves `game` and writes its raw table to `out`.
pub fn build(game: &AnyGame, out: &Path, opts: &BuildOptions) -> Result<BuildSummary> {
    let started = Instant::now();
    let spec = game.spec();
    let size = game.size();
    let engine = opts
        .engine
        .unwrap_or_else(|| solve::Engine::default_for(game));
    if engine == solve::Engine::Tiered
        && let Some(why) = solve::tiered_unsupported(game)
    {
        return Err(Error::Spec {
            spec: spec.clone(),
            msg: format!("the tiered engine cannot solve this game: {why}"),
        });
    }
    TempFile::check_destination(out)?;
    let _lock = OutputLock::acquire(out)?;
    if engine == solve::Engine::Tiered {
        // Checks memory and disk for the tiers this run will solve.
        return build_tiered(game, out, opts, started);
    }
    let what = format!(
        "solving {spec} ({size} positions) with the {} engine",
        engine.name()
    );
    crate::memory::check(
        what.clone(),
        engine.memory_estimate(game, opts.remoteness),
        opts.max_memory,
    )?;
    crate::memory::check_disk(what, out, estimate(game, opts).file_bytes)?;
    let mut writer = RawWriter::create(out, GameFields::of(game), size)?;
    let solve_start = Instant::now();
    let stats = {
        let cells = Cells::new(writer.words(), size);
        let sopts = SolveOptions {
            remoteness: opts.remoteness,
            progress: opts.progress.clone(),
            stop: opts.stop.clone(),
        };
        with_game!(game, g => solve::counter::solve(g, &cells, &sopts))
    };
    // A stopped solve's cells are incomplete; the temporary file goes with the writer.
    opts.stop.check().map_err(|_| interrupted(&spec, None))?;
    let solve_seconds = solve_start.elapsed().as_secs_f64();
    let (width, rem_bytes) = encode_remoteness(&stats);
    // Rounds are recorded where the table has remoteness (a values-only tiered build does not
    // know them, and both engines write the same table).
    let rounds = stats.rounds.filter(|_| opts.remoteness);
    let file_bytes = writer.finish(stats.counts, rounds, width, &rem_bytes)?;
    Ok(BuildSummary {
        spec,
        path: out.display().to_string(),
        positions: size,
        counts: stats.counts,
        rounds: stats.rounds,
        edges: stats.edges,
        parent_visits: stats.parent_visits,
        child_probes: stats.child_probes,
        engine,
        resumed_from_tier: None,
        complete: true,
        solve_seconds,
        total_seconds: started.elapsed().as_secs_f64(),
        file_bytes,
        compress_seconds: None,
    })
}

/// What a run of a tiered build will do, worked out before it starts (from the game, the
/// options and the checkpoint beside the output).
#[derive(Clone, Debug, Serialize)]
pub struct TieredPlan {
    pub tiers: u32,
    /// The checkpoint this run resumes below, if any.
    pub resumed: Option<Mark>,
    /// Tiers from here up are finished.
    pub done_from: u32,
    /// This run solves tiers `lowest..done_from`, top down.
    pub lowest: u32,
    /// Positions left to solve after this checkpoint (all the tiers below it).
    pub positions_left: u64,
    /// Peak memory of this run, bytes.
    pub memory_bytes: u64,
    /// Disk this run still needs for its work files, bytes (beyond what they hold already).
    pub disk_bytes: u64,
    /// Free disk beside the output, where the system says.
    pub disk_free: Option<u64>,
    /// Seconds the rest of the build would take at the rate of the earlier runs.
    pub seconds_left: Option<f64>,
}

/// The plan of a tiered build of `game` into `out` (see [`TieredPlan`]).
pub fn plan_tiered(game: &AnyGame, out: &Path, opts: &BuildOptions) -> TieredPlan {
    let spec = game.spec();
    let size = game.size();
    let tiers = with_tiered_game!(game, g => g.tier_count(), _ => 0);
    let mut resumed =
        read_mark(&sibling(out, "partial-tier"), &spec, size).filter(|m| m.tier < tiers);
    let done_from = resumed.as_ref().map_or(tiers, |m| m.tier);
    let lowest = done_from.saturating_sub(opts.stop_after_tiers.unwrap_or(tiers));
    // Memory: the cells of this run's tiers (of a tier and its child tier where tiers are
    // index ranges, else all of them) and, with remoteness, a byte per index. Disk: the cells
    // from this run's lowest tier up and, with remoteness, the table's remoteness section and
    // the checkpoints' files (a new one is written before the previous one is deleted).
    let solving = lowest..done_from;
    let fresh = done_from == tiers;
    let memory_bytes = with_tiered_game!(game, g => {
        solve::tiered::resident_cells(g, solving.clone())
            .saturating_add(solve::tiered::working_memory(g, opts.remoteness, fresh))
            .saturating_add(solve::PROCESS_BYTES)
    }, _ => 0);
    let cells_on_disk = with_tiered_game!(game, g => g.tier_range(lowest), _ => None)
        .map_or(size, |r| size - r.start)
        .div_ceil(4);
    let disk_all = if opts.remoteness {
        cells_on_disk.saturating_add(size.saturating_mul(3))
    } else {
        cells_on_disk
    };
    let rem_file = resumed.as_ref().map(|m| rem_path(out, m.tier));
    let have = [Some(sibling(out, "partial")), rem_file]
        .iter()
        .flatten()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| {
            use std::os::unix::fs::MetadataExt;
            m.blocks() * 512
        })
        .sum::<u64>();
    // Where tiers are ranges, the finished ones are exactly the indices from `done_from`'s on.
    let solved = match with_tiered_game!(game, g => g.tier_range(done_from), _ => None) {
        Some(r) if resumed.is_some() => size - r.start,
        _ => resumed.as_ref().map_or(0, |m| m.solved),
    };
    if let Some(m) = resumed.as_mut() {
        m.solved = solved;
    }
    let positions_left = size.saturating_sub(solved);
    let seconds_left = resumed
        .as_ref()
        .filter(|m| m.timed > 0 && m.seconds > 0.0)
        .map(|m| positions_left as f64 * m.seconds / m.timed as f64);
    TieredPlan {
        tiers,
        resumed,
        done_from,
        lowest,
        positions_left,
        memory_bytes,
        disk_bytes: disk_all.saturating_sub(have),
        disk_free: crate::memory::disk_free(crate::memory::dir_of(out)),
        seconds_left,
    }
}

/// The checkpoint of a resumable tiered build.
#[derive(Clone, Debug, Serialize)]
pub struct Mark {
    /// The lowest finished tier.
    pub tier: u32,
    /// The rounds figure of the finished tiers.
    pub rounds: u32,
    /// Positions the finished tiers hold (exact where tiers are ranges; otherwise as recorded,
    /// 0 for checkpoints that did not record it).
    pub solved: u64,
    /// Positions solved by runs that recorded their time, and the seconds they spent: the rate
    /// of the earlier runs.
    pub timed: u64,
    pub seconds: f64,
    /// Size and xxh3 of the checkpoint's remoteness file.
    pub rem_bytes: u64,
    pub rem_sum: u64,
}

/// After each tier of a tiered build: how it went and what is left.
#[derive(Clone, Debug, Serialize)]
pub struct TierReport {
    pub tier: u32,
    pub tiers: u32,
    /// Positions of this tier, and the seconds it took.
    pub positions: u64,
    pub seconds: f64,
    /// Positions of all finished tiers (earlier runs' too), and those below this tier.
    pub solved: u64,
    pub left: u64,
    /// Seconds the rest would take at this run's rate so far.
    pub seconds_left: f64,
    /// This tier was made a checkpoint.
    pub checkpoint: bool,
}

/// The checkpoint of a resumable tiered build: which game, and the lowest finished tier.
fn read_mark(path: &Path, spec: &str, size: u64) -> Option<Mark> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut lines = text.lines();
    // Version 2 of the work files: no remoteness file content for values-only builds, and the
    // engine's `2 * (remoteness + 1) + lost` bytes; an older checkpoint starts the build over.
    (lines.next()? == "retrodb tiered build 2").then_some(())?;
    (lines.next()?.strip_prefix("spec ")? == spec).then_some(())?;
    (lines
        .next()?
        .strip_prefix("positions ")?
        .parse::<u64>()
        .ok()?
        == size)
        .then_some(())?;
    let tier = lines.next()?.strip_prefix("finished-tier ")?.parse().ok()?;
    let rounds = lines.next()?.strip_prefix("rounds ")?.parse().ok()?;
    // Checkpoints written before these lines existed resume all the same.
    let mut field = |key: &str| lines.next().and_then(|l| l.strip_prefix(key)?.parse().ok());
    let solved = field("solved-positions ").unwrap_or(0u64);
    let timed = field("timed-positions ").unwrap_or(0);
    let seconds = field("solve-seconds ").unwrap_or(0) as f64;
    let rem_bytes = field("remoteness-bytes ")?;
    let rem_sum = field("remoteness-xxh3 ")?;
    Some(Mark {
        tier,
        rounds,
        solved,
        timed,
        seconds,
        rem_bytes,
        rem_sum,
    })
}

fn write_mark(path: &Path, spec: &str, size: u64, m: &Mark) -> Result<()> {
    let tmp = path.with_extension("new");
    let text = format!(
        "retrodb tiered build 2\nspec {spec}\npositions {size}\nfinished-tier {}\nrounds {}\n\
         solved-positions {}\ntimed-positions {}\nsolve-seconds {}\nremoteness-bytes {}\n\
         remoteness-xxh3 {}\n",
        m.tier,
        m.rounds,
        m.solved,
        m.timed,
        m.seconds.round() as u64,
        m.rem_bytes,
        m.rem_sum
    );
    let f = File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
    f.write_all_at(text.as_bytes(), 0)
        .and_then(|_| f.sync_all())
        .map_err(|e| Error::io(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))
}

/// A tiered build through work files beside `out`: `.NAME.partial` holds the cells (a shared
/// mapping: the table being written), `.NAME.partial-rem.T` the remoteness a run resumed below
/// tier `T` starts from, `.NAME.partial-tier` names the checkpoint. While solving, the engine
/// keeps remoteness in anonymous memory (two tiers of it where the game has slots).
///
/// A finished tier becomes a checkpoint when [`BuildOptions::checkpoint_every`] has passed since
/// the last one (and where `stop_after_tiers` stops): its remoteness is written to a new work
/// file and synced, the cells are synced, the checkpoint file names the tier with the size and
/// xxh3 of that remoteness, and only then is the previous checkpoint's file deleted; so a build
/// interrupted at any moment resumes below the last checkpoint, and a damaged work file is
/// refused by name. Syncing after every tier cost a short build a fifth of its time in faults on
/// pages the write-back had made read-only (hex:4: 4.1 s against 3.2 s), and first touches of a
/// file-backed remoteness map serialised the two threads on page faults (docs/TIERED.md).
fn build_tiered(
    game: &AnyGame,
    out: &Path,
    opts: &BuildOptions,
    started: Instant,
) -> Result<BuildSummary> {
    let spec = game.spec();
    let size = game.size();
    let mark = sibling(out, "partial-tier");
    let plan = plan_tiered(game, out, opts);
    let TieredPlan {
        tiers,
        done_from,
        lowest,
        ..
    } = plan;
    let resumed = plan.resumed.clone();
    let what = format!("solving tiers {lowest}..{done_from} of {spec} with the tiered engine");
    crate::memory::check(
        format!("{what} ({size} positions)"),
        plan.memory_bytes,
        opts.max_memory,
    )?;
    crate::memory::check_disk(what, out, plan.disk_bytes)?;
    let tmp = TempFile::resumable(out)?;
    // The remoteness a resumed run starts from, read into the engine's memory and checked
    // against the checkpoint's sum.
    let resume_rem = match &resumed {
        Some(m) => Some(|buf: &mut [u8]| read_rem(out, m, buf)),
        None => {
            // A fresh start: whatever the work files held belongs to no finished tier.
            let _ = std::fs::remove_file(&mark);
            remove_rem_files(out, None);
            tmp.file.set_len(0).map_err(|e| Error::io(&tmp.path, e))?;
            None
        }
    };
    let mut writer = RawWriter::with_file(tmp, GameFields::of(game), size)?;
    let solve_start = Instant::now();
    let mut budget = opts.stop_after_tiers;
    let cells_file = writer
        .tmp
        .file
        .try_clone()
        .map_err(|e| Error::io(&writer.tmp.path, e))?;
    let cells_path = writer.tmp.path.clone();
    let stats = {
        let cells = Cells::new(writer.words(), size);
        let sopts = SolveOptions {
            remoteness: opts.remoteness,
            progress: opts.progress.clone(),
            stop: opts.stop.clone(),
        };
        // When the last checkpoint was written (or this run started).
        let mut checkpoint_at = Instant::now();
        let crash_after = crash_after_tier();
        // Positions of the finished tiers and the seconds spent on them, over all runs.
        let (solved_before, timed_before, seconds_before) = resumed
            .as_ref()
            .map_or((0, 0, 0.0), |m| (m.solved, m.timed, m.seconds));
        let mut solved = solved_before;
        let mut tier_start = Instant::now();
        let checkpoint = |done: solve::tiered::TierDone<'_>| -> Result<bool> {
            let t = done.tier;
            let tier_seconds = tier_start.elapsed().as_secs_f64();
            solved += done.positions;
            let go_on = match budget.as_mut() {
                Some(b) => {
                    *b = b.saturating_sub(1);
                    *b > 0
                }
                None => true,
            };
            // After tier 0 the table itself is written at once: no checkpoint is needed.
            let checkpoint = t > 0 && (!go_on || checkpoint_at.elapsed() >= opts.checkpoint_every);
            if checkpoint {
                // The remoteness a resumed run needs goes to a file of its own, then the cells
                // (a shared mapping) are synced, then the checkpoint names both; only then is
                // the previous checkpoint's file deleted.
                let (rem_bytes, rem_sum) = write_rem(&rem_path(out, t), done.remoteness)?;
                cells_file
                    .sync_data()
                    .map_err(|e| Error::io(&cells_path, e))?;
                let m = Mark {
                    tier: t,
                    rounds: done.rounds.unwrap_or(0),
                    solved,
                    timed: timed_before + (solved - solved_before),
                    seconds: seconds_before + solve_start.elapsed().as_secs_f64(),
                    rem_bytes,
                    rem_sum,
                };
                write_mark(&mark, &spec, size, &m)?;
                remove_rem_files(out, Some(t));
                checkpoint_at = Instant::now();
            }
            if let Some(report) = &opts.on_tier {
                let run_solved = (solved - solved_before) as f64;
                let left = size.saturating_sub(solved);
                report(&TierReport {
                    tier: t,
                    tiers,
                    positions: done.positions,
                    seconds: tier_seconds,
                    solved,
                    left,
                    seconds_left: left as f64 * solve_start.elapsed().as_secs_f64()
                        / run_solved.max(1.0),
                    checkpoint,
                });
            }
            if crash_after == Some(t) {
                eprintln!("retrodb: RETRODB_CRASH_AFTER_TIER={t}: aborting as asked");
                std::process::abort();
            }
            tier_start = Instant::now();
            Ok(go_on)
        };
        with_tiered_game!(game, g => solve::tiered::solve_tiers(
            g,
            &cells,
            done_from,
            resumed.as_ref().map_or(0, |m| m.rounds),
            resume_rem,
            &sopts,
            checkpoint
        ), _ => unreachable!("build checked that the tiered engine applies"))
        .map_err(|e| match e {
            Error::Interrupted(_) => interrupted(&spec, Some(out)),
            e => e,
        })?
    };
    let solve_seconds = solve_start.elapsed().as_secs_f64();
    let summary =
        |stats: &SolveStats, path: String, complete: bool, file_bytes: u64| BuildSummary {
            spec: spec.clone(),
            path,
            positions: size,
            counts: stats.counts,
            rounds: stats.rounds,
            edges: stats.edges,
            parent_visits: 0,
            child_probes: stats.child_probes,
            engine: solve::Engine::Tiered,
            resumed_from_tier: resumed.as_ref().map(|m| m.tier),
            complete,
            solve_seconds,
            total_seconds: started.elapsed().as_secs_f64(),
            file_bytes,
            compress_seconds: None,
        };
    let Some(solved) = stats else {
        writer.flush()?;
        let partial = SolveStats::default();
        return Ok(summary(
            &partial,
            sibling(out, "partial").display().to_string(),
            false,
            0,
        ));
    };
    let stats = solved.stats;
    let rem_bytes = solved.remoteness.as_ref().map_or(&[][..], |r| r.bytes());
    let width = if solved.remoteness.is_some() { 1 } else { 0 };
    let file_bytes = writer.finish(stats.counts, stats.rounds, width, rem_bytes)?;
    remove_rem_files(out, None);
    let _ = std::fs::remove_file(&mark);
    Ok(summary(&stats, out.display().to_string(), true, file_bytes))
}

/// The error of a build stopped through [`BuildOptions::stop`]; a tiered build (`resumable`
/// names its output) leaves its work files for a later run.
fn interrupted(spec: &str, resumable: Option<&Path>) -> Error {
    Error::Interrupted(match resumable {
        None => format!("the build of {spec} was interrupted; no table was written"),
        Some(out) => format!(
            "the build of {spec} was interrupted; no table was written (the same build into {} \
             resumes from its last checkpoint)",
            out.display()
        ),
    })
}

/// Solves `game` and writes its table to `out`: raw, or with `compress` solved into a raw table
/// beside `out` ([`raw_sibling`](super::raw_sibling)), compressed into `out`, and the raw one
/// removed. `compress_progress` reports the compression. A build that stopped early
/// ([`BuildOptions::stop_after_tiers`]) is not compressed.
pub fn build_file(
    game: &AnyGame,
    out: &Path,
    opts: &BuildOptions,
    compress: Option<super::zstd::Params>,
    compress_progress: &ProgressBar,
) -> Result<BuildSummary> {
    let Some(params) = compress else {
        return build(game, out, opts);
    };
    let raw = super::raw_sibling(out);
    let result = build(game, &raw, opts).and_then(|mut s| {
        if !s.complete {
            return Ok(s);
        }
        opts.stop.check().map_err(|_| interrupted(&s.spec, None))?;
        if let Some(p) = &opts.progress {
            p.finish_and_clear();
        }
        let started = Instant::now();
        // Held while compressing: the raw table is this process's work, not a dead one's.
        let _raw = OutputLock::acquire(&raw)?;
        let t = super::Table::open(&raw)?;
        s.file_bytes = super::compress(&t, out, params, compress_progress)?;
        s.compress_seconds = Some(started.elapsed().as_secs_f64());
        s.path = out.display().to_string();
        s.total_seconds += started.elapsed().as_secs_f64();
        Ok(s)
    });
    let _ = std::fs::remove_file(&raw);
    result
}

/// The tier after which a build aborts, from `RETRODB_CRASH_AFTER_TIER`: a crash injected by
/// the tests of resumption (the process dies as from a signal, with no chance to clean up).
fn crash_after_tier() -> Option<u32> {
    std::env::var("RETRODB_CRASH_AFTER_TIER").ok()?.parse().ok()
}

/// Remoteness in the narrowest width whose all-ones value exceeds the largest finite value.
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
                put_remoteness(d, r);
            }
        });
    (width, out)
}

/// Stores `r` (`u32::MAX` for none) in `d.len()` bytes, none as all-ones.
pub(crate) fn put_remoteness(d: &mut [u8], r: u32) {
    match d.len() {
        1 => d[0] = r.min(0xFF) as u8,
        2 => d.copy_from_slice(&(r.min(0xFFFF) as u16).to_le_bytes()),
        _ => d.copy_from_slice(&r.to_le_bytes()),
    }
}

/// Reads a remoteness of `b.len()` bytes; all-ones is none.
pub(crate) fn get_remoteness(b: &[u8]) -> Option<u32> {
    let (r, none) = match b.len() {
        1 => (b[0] as u32, 0xFF),
        2 => (u16::from_le_bytes([b[0], b[1]]) as u32, 0xFFFF),
        _ => (u32::from_le_bytes([b[0], b[1], b[2], b[3]]), u32::MAX),
    };
    (r != none).then_some(r)
}
