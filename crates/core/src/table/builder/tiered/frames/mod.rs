//! The out-of-core build (the `sliced-frames` kernel, docs/OUT_OF_CORE.md): the table is written
//! compressed while it is solved, frame by frame in index order, and no raw table ever exists.
//! The kernel's two loss planes live in work files beside the output (`.NAME.partial-loss0`,
//! `.NAME.partial-loss1`); the compressed table grows in `.NAME.partial-z` and is committed as
//! `compress` would have written it from the raw table (without a dictionary, which needs the
//! whole table to train on). After every key tier a checkpoint (`checkpoint.rs`) records where
//! a later run takes up, so a build stopped or killed resumes below its last finished key tier
//! and writes the same bytes.
//!
//! Invariant: the frames are made by the same function `compress` uses
//! ([`crate::table::builder::convert::cell_frame_of`]), from cells every one of which is decided, so the
//! file equals `build` then `compress --no-dictionary` with the same parameters, byte for byte.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use memmap2::{MmapOptions, MmapRaw};
use rayon::prelude::*;

mod checkpoint;

use checkpoint::{Found, FramesCheckpoint};

use super::super::checkpoint::Identity;
use super::{BuildOptions, BuildSummary, RunFacts, TierReport};
use crate::base::error::BuildError;
use crate::base::error::{Error, Result};
use crate::game::shape::sliced::Sliced;
use crate::game::{Game, Tiered};
use crate::games::AnyGame;
use crate::solve::distributed::comm::Comm;
use crate::solve::distributed::frames::Ranks;
use crate::solve::kernels::sliced_frames::{FrameSink, LossPlanes, RowDeciders, Threads};
use crate::solve::kernels::sliced_frames::{Resumed, plane_words};
use crate::solve::plan::TieredKernel;
use crate::solve::{self, SolveStats};
use crate::table::builder::convert::{StreamWriter, cell_candidates, smallest};
use crate::table::format::{self, Encoding, Header, RemotenessEncoding, Section};
use crate::table::workfiles::TempFile;
use crate::table::workfiles::{allocate, sibling};
use crate::table::write::{GameFields, TableFile};
use crate::table::zstd::{DontCareFill, Params};
use crate::with_game;

/// How the out-of-core kernel compresses when the build names nothing (`build --compress` and
/// its options choose otherwise): a fast level and the stored values, since every frame is
/// compressed once while the solve waits for it. `compress` at its defaults makes a smaller
/// copy of a table afterwards, a frame at a time.
///
/// Positions with Right to move are left out (`--one-mover`): the table is half the size, and
/// making a frame stays a copy (measured on `bridgit:4,start=L,sym`, 40.8e9 positions: 413 MB
/// at level 3 in 69 s, 340 MB at level 6 in 108 s).
pub const FRAMES_DEFAULT: Params = Params {
    frame_positions: 1 << 16,
    level: 3,
    fill: DontCareFill::Stored,
    one_mover: true,
    dictionary: false,
};

/// The parameters an out-of-core build of `opts` compresses with: the build's (`--compress`
/// and its options), without a dictionary, else [`FRAMES_DEFAULT`].
pub fn frames_params(opts: &BuildOptions) -> Params {
    opts.compress.map_or(FRAMES_DEFAULT, |p| Params {
        dictionary: false,
        ..p
    })
}

/// The work files of the loss planes of a build of `out`.
pub(crate) fn plane_paths(out: &Path) -> [PathBuf; 2] {
    [sibling(out, "partial-loss0"), sibling(out, "partial-loss1")]
}

/// The out-of-core build across ranks, on rank 0: `start` is called once the work files exist
/// and before the solve, with the table's work file and the tier the solve starts below, to
/// start the other ranks (`crate::table::builder::distributed`); the rows are then decided by
/// every rank of `comm`.
pub(crate) struct FramesAcross<'a> {
    pub comm: &'a dyn Comm,
    pub start: &'a mut dyn FnMut(&Path, u32) -> Result<()>,
}

/// Builds `game` into `out` (compressed) with the out-of-core kernel `kernel`, from the
/// checkpoint beside `out` when there is one of this build; across ranks with `across`.
pub(crate) fn build(
    game: &AnyGame,
    out: &Path,
    opts: &BuildOptions,
    kernel: &TieredKernel<'_>,
    started: Instant,
    across: Option<FramesAcross<'_>>,
) -> Result<BuildSummary> {
    let TieredKernel::SlicedFrames(board) = *kernel else {
        unreachable!("the out-of-core build runs the sliced-frames kernel")
    };
    let spec = game.spec();
    let size = game.size();
    let params = frames_params(opts);
    let identity = Identity::of(game, opts);
    let resumed = resumed_checkpoint(out, &identity, params, opts.restart)?;
    let fields = GameFields::of(game);
    let stream_at = fields.header_len();
    let table_path = sibling(out, "partial-z");
    let mut table = TableFile::over(TempFile::resumable_as(out, "z")?);
    let stream = match &resumed {
        Some(c) => {
            check_stream(&table_path, stream_at, c)?;
            table.push_sums(c.sums.iter().copied());
            StreamWriter::resumed(stream_at, c.stream_end, c.entries.clone())
        }
        None => StreamWriter::new(stream_at, size.div_ceil(params.frame_positions) as usize),
    };
    let words = LossPlanes::words_for(board.index);
    let (files, paths) = open_planes(out, board.index, resumed.as_ref())?;
    let maps = map_planes(&files, &paths, words)?;
    // SAFETY: each map is a writable shared mapping of a work file this build alone holds (the
    // output's lock; in a build across ranks the others only read it), of whole words, kept
    // (and not shrunk) while the planes live.
    let planes = unsafe {
        LossPlanes::over_files(
            crate::base::cells::mapped_atomics(&maps[0]),
            crate::base::cells::mapped_atomics(&maps[1]),
        )
    };
    let tiers = crate::with_tiered_game!(game, g => g.tier_count(), _ => 0);
    let done_from = resumed.as_ref().map_or(tiers, |c| c.done_from);
    let solve_start = Instant::now();
    let sink = Frames {
        game,
        index: board.index,
        params,
        out: TableOut { table, stream }.into(),
        name: table_path.clone(),
        keep: Keep {
            out,
            identity: &identity,
            planes: (&files, &paths),
            resumed: resumed.clone(),
            solve_start,
        },
    };
    let mut reporter = Reporter {
        opts,
        budget: opts.stop_after_tiers,
        tiers,
        size,
        solved: resumed.as_ref().map_or(0, |c| c.solved),
        solve_start,
        tier_start: Instant::now(),
    };
    let sopts = opts.solve_options();
    crate::with_tiered_game!(game, g => g.prepare(), _ => ());
    // The kernel keeps no cells: it is called here, not through the tiered engine's dispatch
    // (`solve_tiers`), whose kernels all write into cells.
    let ranks;
    let deciders: &dyn RowDeciders = match across {
        Some(a) => {
            (a.start)(&table_path, done_from)?;
            ranks = Ranks::new(a.comm);
            &ranks
        }
        None => &Threads,
    };
    let solved = solve::kernels::sliced_frames::solve_with(
        &board,
        &planes,
        &sink,
        deciders,
        done_from,
        &sopts,
        &mut |done| reporter.tier_done(done),
    );
    let solved = solved.map_err(|e| match e {
        Error::Interrupted(_) => super::interrupted(&spec, Some(out)),
        e => e,
    })?;
    // The planes' words end with their maps.
    drop(maps);
    let solve_seconds = solve_start.elapsed().as_secs_f64();
    let run = RunFacts {
        spec: &spec,
        size,
        kernel: kernel.kernel(),
        resumed_from_tier: resumed.as_ref().map(|c| c.done_from),
        solve_seconds,
        started,
    };
    let Some(solved) = solved else {
        let path = table_path.display().to_string();
        return Ok(run.summary(&SolveStats::default(), path, false, 0));
    };
    let stats = solved.stats;
    let TableOut { mut table, stream } = sink.out.into_inner().unwrap_or_else(|p| p.into_inner());
    let file_bytes = commit(&mut table, stream, &fields, size, params, stats.counts)
        .and_then(|header| table.commit(&header, &fields.embedded))?;
    for p in plane_paths(out) {
        let _ = std::fs::remove_file(p);
    }
    checkpoint::remove(out);
    Ok(run.summary(&stats, out.display().to_string(), true, file_bytes))
}

/// The checkpoint of this build beside `out` to resume from (`None`: a fresh start, whose
/// stale checkpoint is removed); a checkpoint of another build is refused naming what differs.
fn resumed_checkpoint(
    out: &Path,
    identity: &Identity,
    params: Params,
    restart: bool,
) -> Result<Option<FramesCheckpoint>> {
    let found = if restart {
        Found::Nothing
    } else {
        checkpoint::read(out, identity, params)?
    };
    let resumed = match found {
        Found::Nothing => None,
        Found::Resume(c) => Some(c),
        Found::Differs(why) => {
            return Err(BuildError::OtherBuild {
                checkpoint: checkpoint::path(out).display().to_string(),
                why,
            }
            .into());
        }
    };
    if resumed.is_none() {
        checkpoint::remove(out);
    }
    Ok(resumed)
}

/// The two loss planes' files beside `out`, of `index`'s length, opened (made when missing);
/// a resumed build's plane of its last key tier checked against the checkpoint's sum.
fn open_planes(
    out: &Path,
    index: &Sliced,
    resumed: Option<&FramesCheckpoint>,
) -> Result<(Vec<std::fs::File>, [PathBuf; 2])> {
    let words = LossPlanes::words_for(index);
    let paths = plane_paths(out);
    let files = paths
        .iter()
        .map(|p| open_plane(p, words * 8))
        .collect::<Result<Vec<_>>>()?;
    if let Some(c) = resumed {
        let k = c.key_tier;
        let p = &paths[k as usize % 2];
        let sum = plane_sum(&files[k as usize % 2], p, plane_words(index, k))?;
        if sum != c.plane_sum {
            return Err(super::super::checkpoint::damaged(
                p,
                format!(
                    "the loss plane of key tier {k} fails the checksum its checkpoint recorded"
                ),
            ));
        }
    }
    Ok((files, paths))
}

/// Checks every frame the checkpoint `c` records in the table's work file `path` (the stream
/// from `at`) against its checksum.
fn check_stream(path: &Path, at: u64, c: &FramesCheckpoint) -> Result<()> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut starts = Vec::with_capacity(c.entries.len());
    let mut pos = at;
    for e in &c.entries {
        starts.push(pos);
        pos += e.compressed as u64;
    }
    if pos != c.stream_end {
        return Err(super::super::checkpoint::damaged(
            path,
            format!(
                "its checkpoint's frames end at {pos}, not at {}",
                c.stream_end
            ),
        ));
    }
    let bad = (0..c.entries.len()).into_par_iter().find_first(|&k| {
        let mut buf = vec![0u8; c.entries[k].compressed as usize];
        use std::os::unix::fs::FileExt;
        file.read_exact_at(&mut buf, starts[k]).is_err()
            || xxhash_rust::xxh3::xxh3_64(&buf) != c.sums[k]
    });
    match bad {
        Some(k) => Err(super::super::checkpoint::damaged(
            path,
            format!("frame {k} of the compressed cells fails the checksum its checkpoint recorded"),
        )),
        None => Ok(()),
    }
}

/// The xxh3 of the first `words` words of the plane file `file` (read, not mapped, so that the
/// solve's resident memory does not grow).
fn plane_sum(file: &std::fs::File, path: &Path, words: u64) -> Result<u64> {
    use std::os::unix::fs::FileExt;
    const CHUNK: u64 = 16 << 20;
    let mut hash = xxhash_rust::xxh3::Xxh3Default::new();
    let mut buf = vec![0u8; CHUNK as usize];
    let len = words * 8;
    let mut at = 0;
    while at < len {
        let n = CHUNK.min(len - at) as usize;
        file.read_exact_at(&mut buf[..n], at)
            .map_err(|e| Error::io(path, e))?;
        hash.update(&buf[..n]);
        at += n as u64;
    }
    Ok(hash.digest())
}

/// Maps the loss planes' work files `files` (at `paths`), `words` words each, shared.
pub(crate) fn map_planes(
    files: &[std::fs::File],
    paths: &[PathBuf; 2],
    words: u64,
) -> Result<Vec<MmapRaw>> {
    files
        .iter()
        .zip(paths)
        .map(|(f, p)| {
            let len = f.metadata().map_err(|e| Error::io(p, e))?.len();
            if len < words * 8 {
                return Err(Error::io(
                    p,
                    std::io::Error::other(format!(
                        "holds {len} bytes where a loss plane needs {}",
                        words * 8
                    )),
                ));
            }
            MmapOptions::new()
                .len((words * 8) as usize)
                .map_raw(f)
                .map_err(|e| Error::io(p, e))
        })
        .collect()
}

/// Opens (creating it if need be) the plane work file `path` of `len` bytes, its blocks
/// reserved.
fn open_plane(path: &Path, len: u64) -> Result<std::fs::File> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    file.set_len(len).map_err(|e| Error::io(path, e))?;
    allocate(&file, path, len)?;
    Ok(file)
}

/// The header of the finished table and the stream's end: the seek table and the checksums.
fn commit(
    table: &mut TableFile,
    stream: StreamWriter,
    fields: &GameFields,
    size: u64,
    params: Params,
    counts: [u64; 4],
) -> Result<Header> {
    let (sink, sums) = table.parts();
    let cells = stream.finish(sink, sums)?;
    let (sums_sec, sums_hash) = table.sums_section(cells.end(), 1);
    Ok(Header {
        version: format::version_for(&fields.spec),
        header_len: fields.header_len(),
        size,
        encoding: if params.one_mover {
            Encoding::ZstdOmitted
        } else {
            Encoding::Zstd
        },
        remoteness_encoding: RemotenessEncoding::None,
        block: format::BLOCK,
        counts,
        cells,
        remoteness: Section::default(),
        sums: sums_sec,
        sums_hash,
        rounds: None,
        frame_positions: params.frame_positions,
        level: params.level,
        dictionary: Section::default(),
        remoteness_dictionary: Section::default(),
        grundy: None,
        spec: fields.spec.clone(),
        source: fields.source.clone(),
    })
}

/// The table being written and its cells' stream.
struct TableOut {
    table: TableFile,
    stream: StreamWriter,
}

/// The build's [`FrameSink`]: each frame made as `compress` makes it and compressed, the frames
/// of a hand-over in parallel, appended in order; a checkpoint at each key tier's end.
struct Frames<'g> {
    game: &'g AnyGame,
    index: &'g Sliced,
    params: Params,
    out: Mutex<TableOut>,
    name: PathBuf,
    keep: Keep<'g>,
}

/// What a checkpoint needs besides the table.
struct Keep<'g> {
    out: &'g Path,
    identity: &'g Identity,
    /// The planes' files and paths.
    planes: (&'g [std::fs::File], &'g [PathBuf; 2]),
    /// The checkpoint this run resumed from.
    resumed: Option<FramesCheckpoint>,
    solve_start: Instant,
}

impl FrameSink for Frames<'_> {
    fn frame_positions(&self) -> u64 {
        self.params.frame_positions
    }

    fn take(&self, first: u64, n: u64, words: &[u64]) -> crate::Result<()> {
        let f = self.params.frame_positions;
        let per = (f / 32) as usize;
        let frames: Vec<Result<_>> = (0..n.div_ceil(f) as usize)
            .into_par_iter()
            .map(|k| {
                let at = first + k as u64 * f;
                let len = f.min(first + n - at);
                let w = &words[k * per..(k * per + len.div_ceil(32) as usize).min(words.len())];
                let raw: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
                let made =
                    with_game!(self.game, g => cell_candidates(g, &raw, at, len, self.params));
                smallest(made, self.params.level, None, &self.name)
            })
            .collect();
        let mut out = self.out.lock().unwrap_or_else(|p| p.into_inner());
        let TableOut { table, stream } = &mut *out;
        let (sink, sums) = table.parts();
        for frame in frames {
            stream.push(sink, sums, frame?)?;
        }
        Ok(())
    }

    /// A checkpoint: the frames so far and the finished key tier's plane synced, then the
    /// checkpoint written.
    fn tier_end(&self, tier: u32, first: u64, tail: &[u64], counts: [u64; 4]) -> Result<()> {
        let k = &self.keep;
        let mut out = self.out.lock().unwrap_or_else(|p| p.into_inner());
        out.table.sync()?;
        let (files, paths) = k.planes;
        let slot = tier as usize % 2;
        files[slot]
            .sync_data()
            .map_err(|e| Error::io(&paths[slot], e))?;
        let plane_sum = plane_sum(&files[slot], &paths[slot], plane_words(self.index, tier))?;
        let TableOut { table, stream } = &mut *out;
        let (_, sums) = table.parts();
        let solved = solve::kernels::sliced_rows::key_tier_cells(self.index, tier as usize).end;
        let c = FramesCheckpoint {
            key_tier: tier,
            done_from: if tier == 0 {
                0
            } else {
                tier + self.index.low_digits()
            },
            stream_end: stream.end(),
            entries: stream.entries().to_vec(),
            sums: sums.clone(),
            tail_first: first,
            tail: tail.to_vec(),
            counts,
            plane_sum,
            solved,
            seconds: k.resumed.as_ref().map_or(0.0, |c| c.seconds)
                + k.solve_start.elapsed().as_secs_f64(),
        };
        checkpoint::write(k.out, k.identity, self.params, &c)
    }

    fn resumed(&self) -> Resumed {
        match &self.keep.resumed {
            Some(c) => Resumed {
                first: c.tail_first,
                tail: c.tail.clone(),
                counts: c.counts,
            },
            None => Resumed::default(),
        }
    }
}

/// Reports each finished tier ([`BuildOptions::on_tier`]).
struct Reporter<'a> {
    opts: &'a BuildOptions,
    /// The tiers left to solve in this run (`--tiers N`); the build stops, its checkpoint
    /// kept, at the end of the key tier where it runs out.
    budget: Option<u32>,
    tiers: u32,
    size: u64,
    solved: u64,
    solve_start: Instant,
    tier_start: Instant,
}

impl Reporter<'_> {
    fn tier_done(&mut self, done: solve::finished::TierDone<'_>) -> Result<bool> {
        self.solved += done.positions;
        let elapsed = self.solve_start.elapsed().as_secs_f64();
        let left = self.size.saturating_sub(self.solved);
        let report = TierReport {
            tier: done.tier,
            tiers: self.tiers,
            positions: done.positions,
            seconds: self.tier_start.elapsed().as_secs_f64(),
            solved: self.solved,
            left,
            seconds_left: if self.solved > 0 {
                elapsed * left as f64 / self.solved as f64
            } else {
                0.0
            },
            checkpoint: true,
        };
        self.tier_start = Instant::now();
        if let Some(on_tier) = &self.opts.on_tier {
            on_tier(&report);
        }
        // Every key tier's end is a checkpoint: a halt stops where a later run takes up.
        if self
            .opts
            .halt_after_tier
            .as_ref()
            .is_some_and(|h| h(&report))
        {
            return Err(Error::Interrupted(format!(
                "halted after tier {}",
                done.tier
            )));
        }
        Ok(match self.budget.as_mut() {
            Some(b) => {
                *b = b.saturating_sub(1);
                *b > 0
            }
            None => true,
        })
    }
}
