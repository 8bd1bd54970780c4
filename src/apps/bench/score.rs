//! `retrodb bench --score`: one number for a machine, from a fixed workload of a few seconds.
//!
//! Five parts, each run `runs` times in this process, each run timed on its own: the plain
//! bit-parallel kernel (a values build of `hex:4`), the row kernel (a sliced build of the
//! 18-edge Shannon graph), the counter engine (a random digraph made in memory with a fixed
//! seed), batch value lookups and full probes (on the `hex:4` table, raw and compressed). A
//! part's rate is the median of its runs; the score is the geometric mean over the parts of
//! rate / [`REFERENCE`] rate, times 1000, so the reference machine scores 1000.
//!
//! Invariant: the workload (specs, sizes, seeds) is fixed, so scores compare across machines and
//! versions; changing it means measuring [`REFERENCE`] again.

use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use crate::apps::error::Result;
use crate::base::progress::Silent;
use crate::base::splitmix::SplitMix64;
use crate::games::{AnyGame, Family};
use crate::table::Table;
use crate::table::builder::{self, BuildOptions};

/// The reference rates: each part's median rate on the reference machine, with all its
/// threads ([`REFERENCE_MACHINE`]); the median of three runs of `bench --score` (5 runs a part
/// each) on the quiet machine (load average 1.4, nothing else running), release build of
/// fd3c72b (docs/BENCHMARKS.md, "A score").
pub const REFERENCE: &[(&str, f64)] = &[
    ("plain", 1904.0e6),
    ("row", 721.4e6),
    ("counter", 12.42e6),
    ("lookup", 3.746e6),
    ("probe", 639.7e3),
];

/// Where [`REFERENCE`] was measured.
pub const REFERENCE_MACHINE: &str = "2 vCPUs, Intel Xeon Processor, 2 threads";

/// The 18-edge Shannon graph of the row part.
const GRID: &[u8] = include_bytes!("../../../data/shannon/grid3x4.txt");

/// The random digraph of the counter part: vertices, edges, sinks, seed.
const DIGRAPH: (u64, u64, u64, u64) = (2_000_000, 10_000_000, 500_000, 1);

/// Random positions a run of the lookup part looks up in each of the two tables.
const LOOKUPS: usize = 500_000;

/// Random positions a run of the probe part probes in each of the two tables.
const PROBES: usize = 50_000;

/// One part of the score: its runs' rates and how they compare with the reference.
#[derive(Clone, Debug, Serialize)]
pub struct Part {
    pub name: &'static str,
    /// What the part runs.
    pub work: String,
    /// What the rate counts a second.
    pub unit: &'static str,
    /// The kernel a build part ran (`build --json` names it the same way).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
    /// Every run's rate, in the order run.
    pub rates: Vec<f64>,
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// (max - min) / median, as a percentage.
    pub spread_percent: f64,
    pub reference: f64,
    /// median / reference.
    pub ratio: f64,
    /// Wall time of the part, its setup included.
    pub seconds: f64,
}

/// What `bench --score` measured.
#[derive(Clone, Debug, Serialize)]
pub struct Score {
    /// The processor, as /proc/cpuinfo names it ("unknown" where there is none).
    pub cpu: String,
    /// Worker threads the work ran on.
    pub threads: usize,
    /// Logical processors of the machine.
    pub cores: usize,
    pub runs: usize,
    pub parts: Vec<Part>,
    /// 1000 times the geometric mean of the parts' ratios.
    pub score: f64,
    /// The same from every part's slowest run, and from every part's fastest.
    pub score_min: f64,
    pub score_max: f64,
    /// (score_max - score_min) / score, as a percentage.
    pub spread_percent: f64,
    pub reference_machine: &'static str,
    /// Wall time of the whole measurement, setup included.
    pub seconds: f64,
}

/// The processor's model name from /proc/cpuinfo, or "unknown".
pub fn cpu_name() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name") || l.starts_with("Model"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.split_whitespace().collect::<Vec<_>>().join(" "))
        })
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".to_string())
}

/// The name of a work directory starts so, then the process id, a dash and a stamp.
const WORK_PREFIX: &str = "retrodb-score-";

/// A directory of this process's own under the system's temporary directory (41 MiB of tables
/// at the end), removed when dropped and when SIGINT, SIGTERM or SIGHUP ends the process while
/// it exists ([`cleanup`]); one left by a process that died otherwise (SIGKILL, a power cut)
/// is removed by the next run, which removes every work directory of a process that no longer
/// runs before it makes its own.
struct WorkDir {
    path: PathBuf,
    _cleanup: Option<cleanup::OnSignal>,
}

impl WorkDir {
    fn new() -> Result<WorkDir> {
        let temp = std::env::temp_dir();
        remove_stale(&temp);
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let path = temp.join(format!("{WORK_PREFIX}{}-{stamp}", std::process::id()));
        // Armed first: a signal between the two leaves nothing behind.
        let cleanup = cleanup::OnSignal::arm(&path);
        std::fs::create_dir_all(&path).map_err(|e| crate::Error::io(&path, e))?;
        Ok(WorkDir {
            path,
            _cleanup: cleanup,
        })
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Removes the work directories in `temp` of processes that no longer run (by `/proc/PID`).
fn remove_stale(temp: &Path) {
    let Ok(entries) = std::fs::read_dir(temp) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(WORK_PREFIX))
            .and_then(|rest| rest.split_once('-'))
            .and_then(|(pid, _)| pid.parse::<u32>().ok())
        else {
            continue;
        };
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Removing the work directory when a signal ends the process: the handler only writes the
/// signal's number into a pipe (all a handler may safely do); a thread waiting on the pipe
/// removes the directory, puts the signal's default action back and raises it again, so the
/// process ends as the signal would have ended it.
mod cleanup {
    use std::path::{Path, PathBuf};
    use std::sync::atomic::{AtomicI32, Ordering};

    /// The pipe's write end, for the handler (-1: none armed).
    static PIPE: AtomicI32 = AtomicI32::new(-1);
    const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

    extern "C" fn on_signal(sig: libc::c_int) {
        let fd = PIPE.load(Ordering::Relaxed);
        let byte = sig as u8;
        // SAFETY: write(2) is async-signal-safe; the byte lives on this frame.
        let _ = unsafe { libc::write(fd, (&byte as *const u8).cast(), 1) };
    }

    /// The handlers installed for one directory; dropping it puts the previous ones back and
    /// ends the waiting thread.
    pub(super) struct OnSignal {
        write: libc::c_int,
        previous: Vec<(libc::c_int, libc::sighandler_t)>,
    }

    impl OnSignal {
        /// Arms the removal of `dir`; `None` where a pipe cannot be made (the directory is then
        /// left to the next run) or another directory is armed already.
        pub(super) fn arm(dir: &Path) -> Option<OnSignal> {
            let mut fds = [0 as libc::c_int; 2];
            // SAFETY: pipe2 fills the two descriptors it is given.
            if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
                return None;
            }
            let [read, write] = fds;
            if PIPE
                .compare_exchange(-1, write, Ordering::SeqCst, Ordering::SeqCst)
                .is_err()
            {
                // SAFETY: both descriptors were just made here and are closed once.
                unsafe {
                    libc::close(read);
                    libc::close(write);
                }
                return None;
            }
            let dir: PathBuf = dir.to_path_buf();
            std::thread::spawn(move || wait(read, &dir));
            let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            // SAFETY: the handler only calls write(2) on a descriptor kept open until the
            // previous handlers are back.
            let previous = SIGNALS
                .iter()
                .map(|&sig| (sig, unsafe { libc::signal(sig, handler) }))
                .collect();
            Some(OnSignal { write, previous })
        }
    }

    /// Waits for a signal's byte; on one, removes `dir` and ends the process by that signal.
    /// Returns when the pipe's write end is closed.
    fn wait(read: libc::c_int, dir: &Path) {
        let mut byte = 0u8;
        // SAFETY: reads one byte into `byte`; `read` is this thread's own descriptor.
        let n = unsafe { libc::read(read, (&mut byte as *mut u8).cast(), 1) };
        if n == 1 {
            let _ = std::fs::remove_dir_all(dir);
            let sig = libc::c_int::from(byte);
            // SAFETY: the default action, then the signal again: the process ends by it.
            unsafe {
                libc::signal(sig, libc::SIG_DFL);
                libc::raise(sig);
            }
        }
        // SAFETY: closed once, here.
        unsafe { libc::close(read) };
    }

    impl Drop for OnSignal {
        fn drop(&mut self) {
            for &(sig, previous) in &self.previous {
                // SAFETY: puts back what `arm` replaced.
                unsafe { libc::signal(sig, previous) };
            }
            PIPE.store(-1, Ordering::SeqCst);
            // SAFETY: the write end is closed once; the waiting thread then reads end of file.
            unsafe { libc::close(self.write) };
        }
    }
}

/// Runs the workload `runs` times a part on the current rayon pool; `done` is told each part
/// as it finishes.
pub fn score(runs: usize, mut done: impl FnMut(&Part)) -> Result<Score> {
    let runs = runs.max(1);
    let started = Instant::now();
    let dir = WorkDir::new()?;
    let mut parts = Vec::new();
    let mut since = Instant::now();
    let mut finish = |mut p: Part| {
        p.seconds = since.elapsed().as_secs_f64();
        since = Instant::now();
        done(&p);
        parts.push(p);
    };

    let hex = AnyGame::open_with("hex:4", crate::base::memory::default_limit(), &Silent)?;
    let raw = dir.path.join("hex4.rdb");
    finish(build_part(
        "plain",
        "a values build of hex:4",
        &hex,
        &raw,
        runs,
    )?);

    let grid = dir.path.join("grid3x4.txt");
    std::fs::write(&grid, GRID).map_err(|e| crate::Error::io(&grid, e))?;
    let spec = format!("shannon:{},start=L,sliced", grid.display());
    let shannon = AnyGame::open_with(&spec, crate::base::memory::default_limit(), &Silent)?;
    let work = "a values build of the 18-edge Shannon grid, start=L,sliced";
    finish(build_part(
        "row",
        work,
        &shannon,
        &dir.path.join("grid.rdb"),
        runs,
    )?);
    drop(shannon);

    let (n, m, sinks, seed) = DIGRAPH;
    let graph = crate::games::digraph::random(n, m, sinks, seed).into_any();
    let work = format!("a random digraph, {n} vertices, {m} edges, {sinks} sinks, seed {seed}");
    finish(build_part(
        "counter",
        &work,
        &graph,
        &dir.path.join("digraph.rdb"),
        runs,
    )?);
    drop(graph);

    let zstd = dir.path.join("hex4-zstd.rdb");
    // A fast level and no dictionary: the default parameters take tens of seconds to compress
    // and the part times reading, not writing.
    let params = crate::table::zstd::Params {
        level: 3,
        fill: crate::table::zstd::DontCareFill::Zero,
        dictionary: false,
        ..Default::default()
    };
    let opts = BuildOptions {
        compress: Some(params),
        ..BuildOptions::default()
    };
    builder::build(&hex, &zstd, &opts)?;
    finish(lookup_part(&raw, &zstd, runs)?);
    finish(probe_part(&raw, &zstd, runs)?);

    let ratios = |f: fn(&Part) -> f64| -> f64 {
        let logs: f64 = parts.iter().map(|p| (f(p) / p.reference).ln()).sum();
        1000.0 * (logs / parts.len() as f64).exp()
    };
    let score = ratios(|p| p.median);
    let (score_min, score_max) = (ratios(|p| p.min), ratios(|p| p.max));
    Ok(Score {
        cpu: cpu_name(),
        threads: rayon::current_num_threads(),
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        runs,
        spread_percent: (score_max - score_min) / score * 100.0,
        score,
        score_min,
        score_max,
        parts,
        reference_machine: REFERENCE_MACHINE,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// The part `name` from its runs' `rates`.
fn part(name: &'static str, work: String, unit: &'static str, rates: Vec<f64>) -> Part {
    let mut sorted = rates.clone();
    sorted.sort_by(f64::total_cmp);
    let median = if sorted.len() % 2 == 1 {
        sorted[sorted.len() / 2]
    } else {
        (sorted[sorted.len() / 2 - 1] + sorted[sorted.len() / 2]) / 2.0
    };
    let (min, max) = (sorted[0], sorted[sorted.len() - 1]);
    let reference = REFERENCE
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(1.0, |r| r.1);
    Part {
        name,
        work,
        unit,
        kernel: None,
        rates,
        median,
        min,
        max,
        spread_percent: (max - min) / median * 100.0,
        reference,
        ratio: median / reference,
        seconds: 0.0,
    }
}

/// Builds `game` into `out` `runs` times: positions a second of the solve. The last run's
/// table is left in place.
fn build_part(
    name: &'static str,
    work: &str,
    game: &AnyGame,
    out: &Path,
    runs: usize,
) -> Result<Part> {
    let mut rates = Vec::with_capacity(runs);
    let mut kernel = String::new();
    for _ in 0..runs {
        let _ = std::fs::remove_file(out);
        let s = builder::build(game, out, &BuildOptions::default())?;
        kernel = s.kernel.to_string();
        rates.push(s.positions as f64 / s.solve_seconds.max(1e-9));
    }
    let mut p = part(name, work.to_string(), "positions/s", rates);
    p.kernel = Some(kernel);
    Ok(p)
}

/// Random indices of the table at `path`, `n` of them from `seed`.
fn random_indices(path: &Path, n: usize, seed: u64) -> Result<Vec<u64>> {
    let size = Table::open(path)?.header().size;
    let mut rng = SplitMix64(seed);
    Ok((0..n).map(|_| rng.below(size)).collect())
}

/// Batch value lookups of [`LOOKUPS`] random positions on the raw and the compressed table,
/// each freshly opened (so each run checks or decodes its blocks again).
fn lookup_part(raw: &Path, zstd: &Path, runs: usize) -> Result<Part> {
    let batch = random_indices(raw, LOOKUPS, 7)?;
    let rates = rates_on_both(raw, zstd, runs, batch.len(), |t| {
        t.values(&batch).into_iter().try_for_each(|a| a.map(drop))
    })?;
    let work = format!("{LOOKUPS} random value lookups in hex:4, raw and compressed");
    Ok(part("lookup", work, "lookups/s", rates))
}

/// Full probes (value, remoteness, every move's value) of [`PROBES`] random positions on the
/// raw and the compressed table, each freshly opened, spread over the pool's threads.
fn probe_part(raw: &Path, zstd: &Path, runs: usize) -> Result<Part> {
    let positions = random_indices(raw, PROBES, 11)?;
    let rates = rates_on_both(raw, zstd, runs, positions.len(), |t| {
        positions.par_chunks(1024).try_for_each(|chunk| {
            for &p in chunk {
                std::hint::black_box(t.probe(p)?);
            }
            Ok(())
        })
    })?;
    let work = format!("{PROBES} random full probes in hex:4, raw and compressed");
    Ok(part("probe", work, "probes/s", rates))
}

/// The rates of `runs` runs of `work` (`items` lookups) on the raw and the compressed table
/// together, each table freshly opened for each run and only `work` timed.
fn rates_on_both(
    raw: &Path,
    zstd: &Path,
    runs: usize,
    items: usize,
    work: impl Fn(&Table) -> std::result::Result<(), crate::Error>,
) -> Result<Vec<f64>> {
    let mut rates = Vec::with_capacity(runs);
    for _ in 0..runs {
        let mut seconds = 0.0;
        for path in [raw, zstd] {
            let t = Table::open(path)?;
            let s = Instant::now();
            let done = work(&t);
            seconds += s.elapsed().as_secs_f64();
            done?;
        }
        rates.push(2.0 * items as f64 / seconds.max(1e-9));
    }
    Ok(rates)
}

#[cfg(test)]
mod tests {
    #[test]
    fn medians_and_spread() {
        let p = super::part("plain", String::new(), "x", vec![3.0, 1.0, 2.0, 4.0]);
        assert_eq!((p.median, p.min, p.max), (2.5, 1.0, 4.0));
        assert!((p.spread_percent - 120.0).abs() < 1e-9);
        let p = super::part("row", String::new(), "x", vec![2.0]);
        assert_eq!((p.median, p.spread_percent), (2.0, 0.0));
    }

    #[test]
    fn every_part_has_a_reference() {
        for name in ["plain", "row", "counter", "lookup", "probe"] {
            assert!(super::REFERENCE.iter().any(|(n, r)| *n == name && *r > 0.0));
        }
    }
}
