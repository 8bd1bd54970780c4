//! A sliced game's table across ranks: `retrodb build hex:4,start=L,sym --mpi` under `mpirun`
//! (or ranks run as threads, in the tests). Rank 0 runs the single-process tiered build
//! ([`BuildPlan::make`] and its run: the output's lock, the plan, the work file
//! `.NAME.partial`, the checkpoints, the table's checksums and header) with the key tiers solved
//! by every rank ([`crate::solve::distributed::sliced`]); the other ranks open the same work
//! file, map its cells to read the finished rows, and write the rows they decide into it.
//!
//! The invariant: the ranks make the same collective calls in the same order whatever fails, so
//! a failure stops every rank instead of leaving one waiting; the table is byte for byte the
//! single-process one, and the checkpoints are the single-process build's, so either build
//! resumes the other's work. The work file is written by several processes: each writes only
//! bytes no other rank writes while a key tier is decided (a job's interior words; rank 0 its
//! jobs' end words), and reads only rows finished before the key tier began.

use std::cell::Cell;
use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::time::Instant;

use memmap2::{MmapOptions, MmapRaw};

use super::open_shared;
use crate::base::cells::Cells;
use crate::base::error::{Error, Result};
use crate::game::{Game, Tiered};
use crate::games::AnyGame;
use crate::solve::SolveOptions;
use crate::solve::distributed::comm::{Comm, agree, all_gather};
use crate::solve::distributed::sliced::{JobSink, solve};
use crate::solve::finished::{Solved, TierDone};
use crate::solve::kernels::sliced_frames::LossPlanes;
use crate::solve::plan::Kernel;
use crate::table::builder::tiered::Across;
use crate::table::builder::tiered::frames::{FramesAcross, map_planes, plane_paths};
use crate::table::builder::{BuildOptions, BuildPlan, BuildSummary, run};
use crate::table::format::Section;
use crate::table::workfiles::sibling;
use crate::table::write::{GameFields, raw_sections};
use crate::with_tiered_game;

/// What a sliced build across ranks did.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SlicedSummary {
    pub ranks: usize,
    pub rank: usize,
    /// Rank 0's summary of the build, as a single-process build reports it (`None` on the
    /// other ranks).
    pub build: Option<BuildSummary>,
    /// Message bytes each rank sent to the others (by rank).
    pub bytes_sent: Vec<u64>,
}

/// Why `--mpi` cannot build `game` with `opts`, or `None` when it can.
pub fn unsupported(game: &AnyGame, opts: &BuildOptions) -> Option<String> {
    let sliced = with_tiered_game!(game, g => g.board_shape().and_then(|b| b.sliced()).is_some(), _ => false);
    if !sliced {
        return Some(
            "--mpi builds digraph: games and cell games in the sliced index (',start=L,sliced' \
             or ',start=L,sym', docs/SLICES.md); this game has neither"
                .into(),
        );
    }
    if opts.remoteness {
        return Some(
            "--mpi builds a sliced game's values only: its remoteness is built by the row kernel \
             with remoteness in one process (build it without --mpi)"
                .into(),
        );
    }
    if opts.compress.is_some() && opts.kernel != Some(Kernel::SlicedFrames) {
        return Some(
            "--mpi writes a raw table, except with the out-of-core kernel (--kernel \
             sliced-frames), which writes it compressed; compress it afterwards"
                .into(),
        );
    }
    None
}

/// Builds the table of `spec` (a cell game in the sliced index) into `out` with every rank of
/// `comm`, resuming the checkpoint beside `out` if there is one. `opts` counts on rank 0 (its
/// tier limit, checkpoints, progress and hooks); the others use its memory limit only. Rank 0
/// hands the lines of its plan ([`crate::table::builder::report::before_build`]) to `show_plan`
/// before the solve.
pub fn build_sliced(
    comm: &dyn Comm,
    spec: &str,
    out: &Path,
    opts: &BuildOptions,
    show_plan: &dyn Fn(&[String]),
) -> Result<SlicedSummary> {
    let started = Instant::now();
    let game = agree(
        comm,
        AnyGame::open_with(spec, opts.max_memory, opts.progress()),
    )?;
    // The same on every rank: refused by all at once.
    if let Some(why) = unsupported(&game, opts) {
        return Err(Error::Spec {
            spec: spec.to_string(),
            msg: why,
        });
    }
    let build = if comm.rank() == 0 {
        Some(rank0(comm, &game, out, opts, started, show_plan)?)
    } else {
        worker(comm, &game, out)?;
        None
    };
    Ok(SlicedSummary {
        ranks: comm.ranks(),
        rank: comm.rank(),
        build,
        bytes_sent: all_gather(comm, comm.bytes_sent())?,
    })
}

/// Which solve the ranks run: the row kernel into the shared work file, or the out-of-core
/// kernel (`sliced-frames`), whose cells rank 0 compresses.
const CELLS: u64 = 1;
const FRAMES: u64 = 2;

/// Where the collectives that start a build stood when rank 0 stopped or went on.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Rank 0 failed before the solve (the lock, the plan, a damaged work file).
    Before,
    /// The ranks learned that rank 0 failed to open the work file.
    Refused,
    /// Every rank opened the work file: the solve ran, and its outcome is agreed.
    Solving,
}

fn rank0(
    comm: &dyn Comm,
    game: &AnyGame,
    out: &Path,
    opts: &BuildOptions,
    started: Instant,
    show_plan: &dyn Fn(&[String]),
) -> Result<BuildSummary> {
    let phase = Cell::new(Phase::Before);
    // Rank 0 has made the work file `path` (`ready`: and opened what it needs) and knows the
    // tier the solve starts below: the other ranks learn both and open the file (and the
    // planes), or every rank stops.
    let begin = |path: &Path, done_from: u32, kind: u64, ready: bool| -> Result<()> {
        let token = ready.then(|| write_token(path));
        let started = start(
            comm,
            token
                .as_ref()
                .and_then(|t| t.as_ref().ok())
                .map(|&t| Start {
                    token: t,
                    done_from,
                    kind,
                }),
        );
        // Every rank has learned whether rank 0 got this far: no other start follows.
        phase.set(Phase::Refused);
        if let Some(t) = token {
            t?;
        }
        started?;
        agree(comm, Ok(()))?;
        phase.set(Phase::Solving);
        Ok(())
    };
    let result = (|| -> Result<BuildSummary> {
        let plan = BuildPlan::make(game, out, opts)?;
        show_plan(&crate::table::builder::report::before_build(
            game, opts, &plan,
        ));
        plan.check_fits(game, opts)?;
        let mut cells_solver = |cells: &Cells<'_>,
                                done_from: u32,
                                sopts: &SolveOptions,
                                after: &mut dyn FnMut(TierDone<'_>) -> Result<bool>|
         -> Result<Option<Solved>> {
            let path = sibling(out, "partial");
            let sink = FileSink::open(&path, cells_section(game));
            let began = begin(&path, done_from, CELLS, sink.is_ok());
            let sink = sink?;
            began?;
            with_tiered_game!(game, g => {
                let board = g.board_shape().and_then(|b| b.sliced()).expect("unsupported() checked the index");
                solve(comm, &board, cells, done_from, &sink, sopts, after)
            }, _ => unreachable!("unsupported() checked the game"))
        };
        let mut frames_start = |path: &Path, done_from: u32| begin(path, done_from, FRAMES, true);
        let across = Across {
            cells: &mut cells_solver,
            frames: FramesAcross {
                comm,
                start: &mut frames_start,
            },
        };
        run(game, opts, plan, started, Some(across))
    })();
    match phase.get() {
        Phase::Before => {
            start(comm, None)?;
            result
        }
        Phase::Refused => result,
        Phase::Solving => agree(comm, result),
    }
}

fn worker(comm: &dyn Comm, game: &AnyGame, out: &Path) -> Result<()> {
    let rank = comm.rank();
    let Start {
        token,
        done_from,
        kind,
    } = start(comm, None)?;
    if kind == FRAMES {
        return frames_worker(comm, game, out, token, done_from);
    }
    let path = sibling(out, "partial");
    let section = cells_section(game);
    let shared = agree(
        comm,
        open_shared(&path, token, rank).and_then(|file| SharedCells::map(file, path, section)),
    )?;
    let cells = Cells::new(shared.words(), game.size());
    let sopts = SolveOptions::default();
    let solved = with_tiered_game!(game, g => {
        let board = g.board_shape().and_then(|b| b.sliced()).expect("unsupported() checked the index");
        solve(comm, &board, &cells, done_from, &shared, &sopts, &mut |_| Ok(true))
    }, _ => unreachable!("unsupported() checked the game"));
    agree(comm, solved.map(|_| ()))
}

/// A worker of the out-of-core build: checks the table's work file by its token, maps the
/// loss planes rank 0 made, and decides the jobs it is given.
fn frames_worker(
    comm: &dyn Comm,
    game: &AnyGame,
    out: &Path,
    token: u64,
    done_from: u32,
) -> Result<()> {
    with_tiered_game!(game, g => {
        let board = g.board_shape().and_then(|b| b.sliced()).expect("unsupported() checked the index");
        let words = LossPlanes::words_for(board.index);
        let paths = plane_paths(out);
        let opened = open_shared(&sibling(out, "partial-z"), token, comm.rank()).and_then(|_| {
            let files = paths
                .iter()
                .map(|p| open_shared_plane(p, comm.rank()))
                .collect::<Result<Vec<_>>>()?;
            map_planes(&files, &paths, words)
        });
        let maps = agree(comm, opened)?;
        // SAFETY: the maps are shared mappings of the planes' work files, of whole words, kept
        // while the planes live; this rank only reads them, while rank 0 writes only the plane
        // no job of the key tier reads.
        let planes = unsafe {
            LossPlanes::over_files(
                crate::base::cells::mapped_atomics(&maps[0]),
                crate::base::cells::mapped_atomics(&maps[1]),
            )
        };
        g.prepare();
        let worked = crate::solve::distributed::frames::work(comm, &board, &planes, done_from);
        agree(comm, worked)
    }, _ => unreachable!("unsupported() checked the game"))
}

/// Opens a loss plane rank 0 made (its work file for a build of the output's name).
fn open_shared_plane(path: &Path, rank: usize) -> Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(|e| Error::Rank {
            rank,
            msg: format!(
                "cannot open {}, which rank 0 created ({e}): the output directory must be on a \
                 file system every rank sees (docs/DISTRIBUTED.md)",
                path.display()
            ),
        })
}

/// What the collective that starts the solve tells every rank.
struct Start {
    /// The token rank 0 wrote at the start of its work file.
    token: u64,
    /// The tier the solve starts below.
    done_from: u32,
    /// [`CELLS`] or [`FRAMES`].
    kind: u64,
}

/// The collective that starts the solve: rank 0 gives what [`Start`] holds, or `None` when it
/// failed; every rank gets it, or an error naming rank 0.
fn start(comm: &dyn Comm, rank0: Option<Start>) -> Result<Start> {
    let (token, done_from, kind) =
        rank0.map_or((0, 0, 0), |s| (s.token, u64::from(s.done_from) + 1, s.kind));
    let token = all_gather(comm, token)?[0];
    let done_from = all_gather(comm, done_from)?[0];
    let kind = all_gather(comm, kind)?[0];
    if done_from == 0 {
        return Err(Error::Rank {
            rank: 0,
            msg: "failed before the solve (its message says why); the build stopped".into(),
        });
    }
    Ok(Start {
        token,
        done_from: (done_from - 1) as u32,
        kind,
    })
}

/// The cells section of `game`'s table (the work file's, the same).
fn cells_section(game: &AnyGame) -> Section {
    raw_sections(
        GameFields::of(game).header_len(),
        game.size(),
        crate::table::format::RemotenessEncoding::None,
    )
    .0
}

/// Rank 0: writes a token at the start of its work file `path` (header space, which the
/// table's header overwrites at the end) for the others to check that they opened the same
/// file.
fn write_token(path: &Path) -> Result<u64> {
    let file = OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    let token = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
        ^ u64::from(std::process::id()) << 32
        | 1;
    file.write_all_at(&token.to_le_bytes(), 0)
        .and_then(|_| file.sync_data())
        .map_err(|e| Error::io(path, e))?;
    Ok(token)
}

/// Writes a rank's jobs into the work file with positioned writes (no rank writes bytes another
/// writes, so the file system needs no atomic operation across processes or machines).
struct FileSink {
    file: File,
    path: PathBuf,
    /// Where the cells start in the file.
    offset: u64,
}

impl FileSink {
    /// Rank 0's: the work file `path`, whose cells are `section`.
    fn open(path: &Path, section: Section) -> Result<FileSink> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| Error::io(path, e))?;
        Ok(FileSink {
            file,
            path: path.to_path_buf(),
            offset: section.offset,
        })
    }
}

impl JobSink for FileSink {
    fn write_words(&self, first: u64, words: &[u64]) -> Result<()> {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        self.file
            .write_all_at(&bytes, self.offset + first * 8)
            .map_err(|e| Error::io(&self.path, e))
    }

    fn or_word(&self, w: u64, bits: u64) -> Result<()> {
        let at = self.offset + w * 8;
        let mut b = [0u8; 8];
        self.file
            .read_exact_at(&mut b, at)
            .and_then(|_| {
                self.file
                    .write_all_at(&(u64::from_le_bytes(b) | bits).to_le_bytes(), at)
            })
            .map_err(|e| Error::io(&self.path, e))
    }
}

/// A worker's view of the work file: its cells mapped shared (to read the finished rows), and
/// the file to write its jobs' words.
struct SharedCells {
    sink: FileSink,
    map: Option<MmapRaw>,
}

impl SharedCells {
    fn map(file: File, path: PathBuf, section: Section) -> Result<SharedCells> {
        let len = file.metadata().map_err(|e| Error::io(&path, e))?.len();
        if len < section.end() {
            return Err(Error::io(
                &path,
                std::io::Error::other(format!(
                    "holds {len} bytes where rank 0 made {}: the output directory must be on a \
                     file system every rank sees (docs/DISTRIBUTED.md)",
                    section.end()
                )),
            ));
        }
        let map = if section.len > 0 {
            Some(
                MmapOptions::new()
                    .offset(section.offset)
                    .len(section.len as usize)
                    .map_raw(&file)
                    .map_err(|e| Error::io(&path, e))?,
            )
        } else {
            None
        };
        Ok(SharedCells {
            sink: FileSink {
                file,
                path,
                offset: section.offset,
            },
            map,
        })
    }

    fn words(&self) -> &[AtomicU64] {
        let Some(map) = self.map.as_ref() else {
            return &[];
        };
        // SAFETY: the map is writable and lives as long as `self`; the file's length was
        // checked above and no rank truncates it while the build runs (rank 0 holds the
        // output's lock). Other processes write the file (the other ranks' jobs), but only at
        // words this rank neither reads nor writes during the key tier; no plain slice of the
        // map exists.
        unsafe { crate::base::cells::mapped_atomics(map) }
    }
}

impl JobSink for SharedCells {
    fn write_words(&self, first: u64, words: &[u64]) -> Result<()> {
        self.sink.write_words(first, words)
    }

    fn or_word(&self, w: u64, bits: u64) -> Result<()> {
        self.sink.or_word(w, bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::distributed::comm::run_local;

    fn single(spec: &str, out: &Path) -> Vec<u8> {
        let game = AnyGame::open(spec, u64::MAX).unwrap();
        crate::table::builder::build(&game, out, &BuildOptions::default()).unwrap();
        let bytes = std::fs::read(out).unwrap();
        std::fs::remove_file(out).unwrap();
        bytes
    }

    #[test]
    fn tables_equal_the_single_process_build() {
        let dir = tempfile::tempdir().unwrap();
        for spec in [
            "hex:4,start=L,sym",
            "bridgit:3,start=R,sliced",
            "hex:3,start=L,sym",
            // Every configuration, either player to move.
            "hex:3,sym",
            "bridgit:2,sliced",
        ] {
            let want = single(spec, &dir.path().join("single.rdb"));
            for ranks in 1..=3 {
                let out = dir.path().join(format!("r{ranks}.rdb"));
                let sums = run_local(ranks, |c| {
                    build_sliced(c, spec, &out, &BuildOptions::default(), &|_| ())
                })
                .unwrap();
                assert!(
                    std::fs::read(&out).unwrap() == want,
                    "{spec} on {ranks} ranks"
                );
                let b = sums[0].build.as_ref().unwrap();
                assert!(b.complete);
                assert_eq!(b.file_bytes, want.len() as u64);
                std::fs::remove_file(&out).unwrap();
            }
        }
        // Nothing is left behind.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    fn frames() -> BuildOptions {
        BuildOptions {
            kernel: Some(Kernel::SlicedFrames),
            ..BuildOptions::default()
        }
    }

    /// The out-of-core kernel across ranks writes the single-process table, with its default
    /// compression and with another; its work files are gone with the build.
    #[test]
    fn out_of_core_tables_equal_the_single_process_build() {
        let dir = tempfile::tempdir().unwrap();
        let level5 = BuildOptions {
            compress: Some(crate::table::zstd::Params {
                level: 5,
                one_mover: false,
                frame_positions: 1 << 12,
                ..crate::table::builder::tiered::frames::FRAMES_DEFAULT
            }),
            ..frames()
        };
        for (spec, opts) in [
            ("bridgit:2,sym", frames()),
            ("hex:3,sym", frames()),
            ("bridgit:3,sym", frames()),
            ("bridgit:3,sym", level5.clone()),
            ("hex:4,start=L,sym", frames()),
            ("bridgit:3,start=R,sliced", frames()),
        ] {
            let single = dir.path().join("single.rdb");
            let game = AnyGame::open(spec, u64::MAX).unwrap();
            let b = crate::table::builder::build(&game, &single, &opts).unwrap();
            assert_eq!(b.kernel, Kernel::SlicedFrames);
            let want = std::fs::read(&single).unwrap();
            std::fs::remove_file(&single).unwrap();
            for ranks in 1..=3 {
                let out = dir.path().join(format!("r{ranks}.rdb"));
                let sums =
                    run_local(ranks, |c| build_sliced(c, spec, &out, &opts, &|_| ())).unwrap();
                assert!(
                    std::fs::read(&out).unwrap() == want,
                    "{spec} on {ranks} ranks"
                );
                let b = sums[0].build.as_ref().unwrap();
                assert!(b.complete);
                assert_eq!(b.kernel, Kernel::SlicedFrames);
                let t = crate::table::Table::open(&out).unwrap();
                assert_eq!(b.counts, t.header().counts);
                drop(t);
                // The workers decided rows: their reports carried a good share of the cells
                // (2 bits a position) to rank 0.
                let workers: u64 = sums[0].bytes_sent[1..].iter().sum();
                if ranks > 1 && game.size() > 100_000 {
                    assert!(
                        workers > game.size() / 16,
                        "{spec} on {ranks} ranks: the workers sent {workers} bytes"
                    );
                }
                std::fs::remove_file(&out).unwrap();
            }
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    /// An out-of-core build across ranks halted after a key tier resumes in one process, and
    /// that one's checkpoint on other ranks; the table is the single-process one.
    #[test]
    fn out_of_core_builds_resume_across_ranks() {
        let dir = tempfile::tempdir().unwrap();
        let spec = "bridgit:3,sym";
        let game = AnyGame::open(spec, u64::MAX).unwrap();
        let single = dir.path().join("single.rdb");
        crate::table::builder::build(&game, &single, &frames()).unwrap();
        let want = std::fs::read(&single).unwrap();
        let out = dir.path().join("t.rdb");
        // Halts after the `n`th key tier a run finishes.
        let halt_after = |n: u32| {
            let seen = std::sync::atomic::AtomicU32::new(0);
            BuildOptions {
                halt_after_tier: Some(std::sync::Arc::new(move |_| {
                    seen.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1 == n
                })),
                ..frames()
            }
        };
        let e = run_local(3, |c| build_sliced(c, spec, &out, &halt_after(2), &|_| ()))
            .unwrap_err()
            .to_string();
        assert!(e.contains("interrupted"), "{e}");
        assert!(!out.exists());
        let first = crate::table::builder::build(&game, &out, &halt_after(2)).unwrap_err();
        assert!(matches!(first, Error::Interrupted(_)), "{first}");
        let sums = run_local(2, |c| build_sliced(c, spec, &out, &frames(), &|_| ())).unwrap();
        let b = sums[0].build.as_ref().unwrap();
        assert!(b.complete);
        assert!(b.resumed_from_tier.is_some(), "{b:?}");
        assert!(std::fs::read(&out).unwrap() == want);
    }

    /// Builds stopped after a few tiers resume each other's checkpoints: across ranks, in one
    /// process, and across another number of ranks; the table is the single-process one.
    #[test]
    fn ranks_and_single_processes_resume_each_others_checkpoints() {
        let dir = tempfile::tempdir().unwrap();
        let spec = "hex:4,start=L,sym";
        let want = single(spec, &dir.path().join("single.rdb"));
        let out = dir.path().join("t.rdb");
        let game = AnyGame::open(spec, u64::MAX).unwrap();
        let tiers = |n| BuildOptions {
            stop_after_tiers: Some(n),
            ..BuildOptions::default()
        };
        let across = |ranks, opts: &BuildOptions| {
            run_local(ranks, |c| build_sliced(c, spec, &out, opts, &|_| ())).unwrap()[0]
                .build
                .clone()
                .unwrap()
        };
        let b = across(2, &tiers(3));
        assert!(!b.complete);
        assert_eq!(b.resumed_from_tier, None);
        let b = crate::table::builder::build(&game, &out, &tiers(4)).unwrap();
        assert!(!b.complete);
        assert_eq!(b.resumed_from_tier, Some(14));
        let b = across(3, &tiers(2));
        assert_eq!(b.resumed_from_tier, Some(10));
        let b = across(1, &BuildOptions::default());
        assert!(b.complete);
        assert_eq!(b.resumed_from_tier, Some(8));
        assert!(std::fs::read(&out).unwrap() == want);
    }

    /// A build halted after a tier (as a crash would stop it) fails on every rank, and the
    /// rerun resumes below its checkpoint.
    #[test]
    fn a_halted_build_fails_everywhere_and_resumes() {
        let dir = tempfile::tempdir().unwrap();
        let spec = "bridgit:3,start=L,sym";
        let want = single(spec, &dir.path().join("single.rdb"));
        let out = dir.path().join("t.rdb");
        let halted = BuildOptions {
            checkpoint_every: std::time::Duration::ZERO,
            halt_after_tier: Some(std::sync::Arc::new(|r| r.tier == 9)),
            ..BuildOptions::default()
        };
        let e = run_local(3, |c| build_sliced(c, spec, &out, &halted, &|_| ()))
            .unwrap_err()
            .to_string();
        assert!(e.contains("interrupted"), "{e}");
        assert!(!out.exists());
        let b = run_local(2, |c| {
            build_sliced(c, spec, &out, &BuildOptions::default(), &|_| ())
        })
        .unwrap()[0]
            .build
            .clone()
            .unwrap();
        assert_eq!(b.resumed_from_tier, Some(9));
        assert!(std::fs::read(&out).unwrap() == want);
    }
}
