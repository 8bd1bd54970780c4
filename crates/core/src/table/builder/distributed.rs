//! Builds across ranks: `retrodb build digraph:FILE --mpi` under `mpirun` (or ranks run as
//! threads, in the tests). Every rank reads its share of the edge list, the ranks solve the game
//! together (`solve::distributed::digraph`), and each writes its vertices' cells and remoteness
//! into the one table file; rank 0 holds the output's lock, writes the checksums and the header,
//! and renames the file into place. A cell game in the sliced index goes through `sliced`
//! (`retrodb build hex:4,start=L,sym --mpi`): rank 0 runs the resumable tiered build, every rank
//! decides rows.
//!
//! The invariant: the table is byte for byte the one a single-process build writes (the same
//! header, sections and checksums), for every rank count; and every step that can fail on one
//! rank is agreed on by all (`agree`), so a failure stops every rank with nothing written, the
//! failing rank's message naming the file, the line or the rank.

mod sliced;

pub use sliced::{SlicedSummary, build_sliced, unsupported as sliced_unsupported};

use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::BuildOptions;
use crate::base::error::{Error, Result};
use crate::base::remoteness::max_finite;
use crate::games::digraph::parse::{parse_share, share_bounds};
use crate::games::source::{self, Source};
use crate::solve::distributed::comm::{Comm, agree, all_gather};
use crate::solve::distributed::digraph::{self as engine, Part};
use crate::table::OutputLock;
use crate::table::format::{self, remoteness_bytes, remoteness_width};
use crate::table::workfiles::sibling;
use crate::table::write::{GameFields, RawFields, RawLayout, TableFile};

// A rank's vertices fill whole checksum blocks of the cells (2 bits a vertex) and of the
// remoteness (1 to 4 bytes), so each rank's checksums are the table's.
const _: () = assert!((engine::ALIGN / 4).is_multiple_of(format::BLOCK as u64));

/// How a build across ranks goes, by the family that reads the spec's kind: a digraph is read
/// in shares (no rank holds it whole) and solved by the counter engine across ranks
/// ([`build_digraph`]); every other game is opened on every rank and built by the tiered engine
/// with its key tiers decided by all ([`build_sliced`], which refuses a game outside the sliced
/// index).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    DigraphShares,
    SlicedTiers,
}

impl Route {
    /// The route of a build of `spec`; an unknown kind is refused as opening it would be.
    pub fn of(spec: &str) -> Result<Route> {
        let kind = spec.split_once(':').map_or(spec, |(kind, _)| kind);
        if crate::games::registry::read_by::<crate::games::digraph::Digraph>(kind) {
            return Ok(Route::DigraphShares);
        }
        if !crate::games::is_registered(kind) {
            // The registry's own message, naming the known kinds.
            crate::games::AnyGame::open(spec, 0)?;
        }
        Ok(Route::SlicedTiers)
    }
}

/// What a distributed build did, as one rank saw it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct DistributedSummary {
    pub spec: String,
    pub path: String,
    pub ranks: usize,
    pub rank: usize,
    pub positions: u64,
    pub edges: u64,
    /// `[unused, win, loss, draw]` over the whole table.
    pub counts: [u64; 4],
    pub rounds: u32,
    /// Message bytes each rank sent to the others (by rank).
    pub bytes_sent: Vec<u64>,
    pub solve_seconds: f64,
    pub total_seconds: f64,
    pub file_bytes: u64,
}

/// Builds the table of `spec` (a `digraph:FILE`) into `out` with every rank of `comm`.
pub fn build_digraph(
    comm: &dyn Comm,
    spec: &str,
    out: &Path,
    opts: &BuildOptions,
) -> Result<DistributedSummary> {
    let started = Instant::now();
    let Some(file) = spec.strip_prefix("digraph:") else {
        return Err(Error::Spec {
            spec: spec.to_string(),
            msg: "not a digraph: game (a sliced cell game is built across ranks by \
                  build_sliced, docs/DISTRIBUTED.md)"
                .into(),
        });
    };
    let (rank, ranks) = (comm.rank(), comm.ranks());

    // Rank 0 takes the output and creates the work file; every rank must see it.
    let work = agree(
        comm,
        (rank == 0).then(|| start_work_file(out, opts)).transpose(),
    )?;
    let token = work.as_ref().map_or(0, |(_, _, token)| *token);
    let pid = all_gather(comm, u64::from(std::process::id()))?[0];
    let token = all_gather(comm, token)?[0];
    let work_path = sibling(out, &format!("tmp-{pid}"));
    let shared = agree(comm, open_shared(&work_path, token, rank))?;

    // This rank's share of the input.
    let edges = agree(comm, read_share(file, rank, ranks, comm))?;
    let n = comm.max(
        edges
            .iter()
            .map(|&(u, v)| u.max(v) as u64 + 1)
            .max()
            .unwrap_or(0),
    )?;
    let m = comm.sum(edges.len() as u64)?;
    if m == 0 {
        return Err(Error::InputWhole {
            file: file.to_string(),
            msg: "contains no edges (expected lines 'u v' with vertex ids)".into(),
        });
    }
    let part = Part::from_edges(comm, n, &edges)?;
    drop(edges);
    let solve_started = Instant::now();
    let solved = engine::solve(&part, comm, opts.remoteness)?;
    let solve_seconds = solve_started.elapsed().as_secs_f64();
    let range = part.range();
    let len = range.end - range.start;

    // The header's length (rank 0 reads the input whole for its checksum) and the remoteness
    // width, the same on every rank.
    let game = agree(
        comm,
        (rank == 0).then(|| header_fields(file, opts)).transpose(),
    )?;
    let header_len = all_gather(comm, game.as_ref().map_or(0, GameFields::header_len))?[0];
    let rem = solved.remoteness.as_deref().unwrap_or(&[]);
    let width = if opts.remoteness {
        remoteness_width(comm.max(u64::from(max_finite(rem)))? as u32)
    } else {
        0
    };
    let layout = RawLayout::new(header_len, n, width);

    // Every rank writes its cells and remoteness; rank 0 then the checksums and the header.
    let cell_bytes: Vec<u8> = solved
        .words
        .iter()
        .flat_map(|w| w.load(std::sync::atomic::Ordering::Relaxed).to_le_bytes())
        .collect();
    let rem_bytes = remoteness_bytes(rem, width);
    let (cell_sums, rem_sums) = agree(
        comm,
        layout.write_share(&shared, &work_path, range.start, &cell_bytes, &rem_bytes),
    )?;
    let cells = solved.cells(len);
    let mut report = cells.counts().to_vec();
    report.push(cell_sums.len() as u64);
    report.extend(&cell_sums);
    report.extend(&rem_sums);
    let mut to = vec![Vec::new(); ranks];
    to[0] = report;
    let reports = comm.exchange(to)?;
    let committed = work.map(|(_lock, table, _)| {
        let game = game.expect("rank 0 has the header fields");
        let rounds = opts.remoteness.then_some(solved.rounds);
        commit(table, &reports, &game, n, rounds, width)
    });
    let file_bytes = agree(comm, committed.transpose())?.unwrap_or(0);
    let file_bytes = all_gather(comm, file_bytes)?[0];
    let counts_all = [
        comm.sum(cells.counts()[0])?,
        comm.sum(cells.counts()[1])?,
        comm.sum(cells.counts()[2])?,
        comm.sum(cells.counts()[3])?,
    ];
    let bytes_sent = all_gather(comm, comm.bytes_sent())?;
    Ok(DistributedSummary {
        spec: spec.to_string(),
        path: out.display().to_string(),
        ranks,
        rank,
        positions: n,
        edges: m,
        counts: counts_all,
        rounds: solved.rounds,
        bytes_sent,
        solve_seconds,
        total_seconds: started.elapsed().as_secs_f64(),
        file_bytes,
    })
}

/// Rank 0: the header's game fields of `digraph:FILE`, the input read whole for its checksum.
fn header_fields(file: &str, opts: &BuildOptions) -> Result<GameFields> {
    let input = source::map_file(file, opts.progress())?;
    let source = Source::of_released(file, &input, opts.embed);
    Ok(GameFields::of_source(
        format!("digraph:{}", source.name),
        Some(&source),
    ))
}

/// Rank 0: commits the table of `n` positions from every rank's report (its counts, then the
/// number of its cells' checksums, those checksums and its remoteness' checksums).
fn commit(
    mut table: TableFile,
    reports: &[Vec<u64>],
    game: &GameFields,
    n: u64,
    rounds: Option<u32>,
    width: u8,
) -> Result<u64> {
    let mut counts = [0u64; 4];
    let mut tail = Vec::new();
    for r in reports {
        for (c, x) in counts.iter_mut().zip(r) {
            *c += x;
        }
        let k = r[4] as usize;
        table.push_sums(r[5..5 + k].iter().copied());
        tail.extend_from_slice(&r[5 + k..]);
    }
    table.push_sums(tail);
    table.commit_raw(&RawFields {
        game,
        size: n,
        counts,
        rounds,
        rem: match width {
            0 => format::RemotenessEncoding::None,
            w => format::RemotenessEncoding::Bytes(w),
        },
        grundy: None,
    })
}

/// Rank 0: checks the destination, takes the output's lock and creates the work file with a
/// token the other ranks read back.
fn start_work_file(out: &Path, opts: &BuildOptions) -> Result<(OutputLock, TableFile, u64)> {
    crate::table::check_output(out, &[])?;
    let lock = OutputLock::acquire(out, opts.progress())?;
    let tmp = TableFile::create(out)?;
    let token = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
        ^ u64::from(std::process::id()) << 32
        | 1;
    tmp.write_at(&token.to_le_bytes(), 0)?;
    tmp.sync()?;
    Ok((lock, tmp, token))
}

/// Opens the work file rank 0 created and checks its token: a rank that cannot see it does not
/// share the output directory's file system.
fn open_shared(path: &PathBuf, token: u64, rank: usize) -> Result<File> {
    let refuse = |why: String| Error::Rank {
        rank,
        msg: format!(
            "{why}: the output directory must be on a file system every rank sees \
             (docs/DISTRIBUTED.md)"
        ),
    };
    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(|e| {
            refuse(format!(
                "cannot open {}, which rank 0 created ({e})",
                path.display()
            ))
        })?;
    let mut got = [0u8; 8];
    f.read_exact_at(&mut got, 0)
        .map_err(|e| refuse(format!("cannot read {} ({e})", path.display())))?;
    if u64::from_le_bytes(got) != token {
        return Err(refuse(format!(
            "{} holds other bytes than rank 0 wrote",
            path.display()
        )));
    }
    Ok(f)
}

/// Reads and parses this rank's share of the edge list `file` (its lines counted across the
/// ranks, so an error names the file's line).
fn read_share(file: &str, rank: usize, ranks: usize, comm: &dyn Comm) -> Result<Vec<(u32, u32)>> {
    let f = File::open(file).map_err(|e| Error::io(file, e))?;
    let len = f.metadata().map_err(|e| Error::io(file, e))?.len();
    let share = share_bounds(len, rank, ranks, |at, buf| f.read_at(buf, at))
        .map_err(|e| Error::io(file, e))?;
    let mut bytes = vec![0u8; (share.end - share.start) as usize];
    f.read_exact_at(&mut bytes, share.start)
        .map_err(|e| Error::io(file, e))?;
    let newlines = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
    let before: u64 = all_gather(comm, newlines)?[..rank].iter().sum();
    parse_share(file, &bytes, before + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::AnyGame;
    use crate::solve::distributed::comm::run_local;

    fn opts(remoteness: bool) -> BuildOptions {
        BuildOptions {
            remoteness,
            ..BuildOptions::default()
        }
    }

    /// The single-process table and the distributed ones of `text` on 1 to 3 ranks, byte for
    /// byte, with and without remoteness.
    fn same_tables(text: &str) {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("g.txt");
        std::fs::write(&input, text).unwrap();
        let spec = format!("digraph:{}", input.display());
        for remoteness in [false, true] {
            let single = dir.path().join("single.rdb");
            let game = AnyGame::open(&spec, u64::MAX).unwrap();
            crate::table::builder::build(&game, &single, &opts(remoteness)).unwrap();
            let want = std::fs::read(&single).unwrap();
            std::fs::remove_file(&single).unwrap();
            for ranks in 1..=3 {
                let out = dir.path().join(format!("d{ranks}.rdb"));
                let sums =
                    run_local(ranks, |c| build_digraph(c, &spec, &out, &opts(remoteness))).unwrap();
                let got = std::fs::read(&out).unwrap();
                assert!(
                    got == want,
                    "{ranks} ranks, remoteness {remoteness}: tables differ"
                );
                assert_eq!(sums[0].file_bytes, want.len() as u64);
                assert!(sums.iter().all(|s| s.counts == sums[0].counts));
                std::fs::remove_file(&out).unwrap();
            }
        }
        // Nothing but the input is left behind.
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1);
    }

    #[test]
    fn tables_equal_the_single_process_build() {
        // A cycle with exits (wins, losses and draws), with a comment and a blank line.
        same_tables("# seed\n0 1\n1 2\n2 0\n\n2 3\n3 4\n5 0\n");
        // Large enough that three ranks each own vertices (ranges of 2^18).
        let mut text = String::new();
        let g = crate::games::digraph::random(600_000, 700_000, 5_000, 11);
        use crate::game::Game;
        for u in 0..600_000u64 {
            g.for_each_child(u, |v| text.push_str(&format!("{u} {v}\n")));
        }
        same_tables(&text);
    }

    #[test]
    fn a_bad_line_on_any_rank_stops_all_and_names_it() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("g.txt");
        let mut text: String = (0..3000).map(|i| format!("{i} {}\n", i + 1)).collect();
        text.push_str("7 x\n");
        text.extend((0..3000).map(|i| format!("{i} {}\n", i + 2)));
        std::fs::write(&input, &text).unwrap();
        let spec = format!("digraph:{}", input.display());
        let out = dir.path().join("t.rdb");
        let e = run_local(3, |c| build_digraph(c, &spec, &out, &opts(false)))
            .unwrap_err()
            .to_string();
        assert!(e.contains("g.txt:3001"), "{e}");
        assert!(!out.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
