//! A sliced game's table across ranks: `retrodb build hex:4,start=L,sym --mpi` under `mpirun`
//! (or ranks run as threads, in the tests). Rank 0 runs the single-process tiered build
//! ([`super::super::tiered::build_with`]: the output's lock, the plan, the work file
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

use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::time::Instant;

use memmap2::{MmapOptions, MmapRaw};

use super::open_shared;
use crate::base::cells::Cells;
use crate::base::error::{Error, Result};
use crate::game::Tiered;
use crate::games::AnyGame;
use crate::solve::SolveOptions;
use crate::solve::distributed::comm::{Comm, agree, all_gather};
use crate::solve::distributed::sliced::{JobSink, solve};
use crate::solve::finished::{Solved, TierDone};
use crate::table::OutputLock;
use crate::table::builder::tiered::build_with;
use crate::table::builder::{BuildOptions, BuildSummary};
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
    if opts.compress.is_some() {
        return Some("--mpi writes a raw table; compress it afterwards".into());
    }
    None
}

/// Builds the table of `spec` (a cell game in the sliced index) into `out` with every rank of
/// `comm`, resuming the checkpoint beside `out` if there is one. `opts` counts on rank 0 (its
/// tier limit, checkpoints, progress and hooks); the others use its memory limit only.
pub fn build_sliced(
    comm: &dyn Comm,
    spec: &str,
    out: &Path,
    opts: &BuildOptions,
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
        Some(rank0(comm, &game, out, opts, started)?)
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
) -> Result<BuildSummary> {
    let mut phase = Phase::Before;
    let result = (|| -> Result<BuildSummary> {
        crate::table::check_output(out)?;
        let lock = OutputLock::acquire(out, opts.progress())?;
        let mut solver = |cells: &Cells<'_>,
                          done_from: u32,
                          sopts: &SolveOptions,
                          after: &mut dyn FnMut(TierDone<'_>) -> Result<bool>|
         -> Result<Option<Solved>> {
            let path = sibling(out, "partial");
            let opened = mark_work_file(&path, cells_section(game));
            let token = opened.as_ref().ok().map(|s| s.token);
            start(comm, token.map(|t| (t, done_from)))?;
            phase = Phase::Refused;
            let sink = opened?;
            agree(comm, Ok(()))?;
            phase = Phase::Solving;
            with_tiered_game!(game, g => {
                let board = g.board_shape().and_then(|b| b.sliced()).expect("unsupported() checked the index");
                solve(comm, &board, cells, done_from, &sink, sopts, after)
            }, _ => unreachable!("unsupported() checked the game"))
        };
        build_with(game, out, &lock, opts, started, Some(&mut solver))
    })();
    match phase {
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
    let (token, done_from) = start(comm, None)?;
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

/// The collective that starts the solve: rank 0 gives its work file's token and the tier the run
/// starts below, or `None` when it failed; every rank gets them, or an error naming rank 0.
fn start(comm: &dyn Comm, rank0: Option<(u64, u32)>) -> Result<(u64, u32)> {
    let (token, done_from) = rank0.map_or((0, 0), |(t, d)| (t, u64::from(d) + 1));
    let token = all_gather(comm, token)?[0];
    let done_from = all_gather(comm, done_from)?[0];
    if done_from == 0 {
        return Err(Error::Rank {
            rank: 0,
            msg: "failed before the solve (its message says why); the build stopped".into(),
        });
    }
    Ok((token, (done_from - 1) as u32))
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

/// Rank 0: opens the work file the tiered build made, and writes a token in its header space
/// (which the table's header overwrites at the end) for the others to check.
fn mark_work_file(path: &Path, section: Section) -> Result<FileSink> {
    let file = OpenOptions::new()
        .read(true)
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
    Ok(FileSink {
        file,
        path: path.to_path_buf(),
        offset: section.offset,
        token,
    })
}

/// Writes a rank's jobs into the work file with positioned writes (no rank writes bytes another
/// writes, so the file system needs no atomic operation across processes or machines).
struct FileSink {
    file: File,
    path: PathBuf,
    /// Where the cells start in the file.
    offset: u64,
    token: u64,
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
                token: 0,
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
                    build_sliced(c, spec, &out, &BuildOptions::default())
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
            run_local(ranks, |c| build_sliced(c, spec, &out, opts)).unwrap()[0]
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
        let e = run_local(3, |c| build_sliced(c, spec, &out, &halted))
            .unwrap_err()
            .to_string();
        assert!(e.contains("interrupted"), "{e}");
        assert!(!out.exists());
        let b = run_local(2, |c| build_sliced(c, spec, &out, &BuildOptions::default())).unwrap()[0]
            .build
            .clone()
            .unwrap();
        assert_eq!(b.resumed_from_tier, Some(9));
        assert!(std::fs::read(&out).unwrap() == want);
    }
}
