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

/// A directory of this process's own under the system's temporary directory, removed when
/// dropped.
struct WorkDir(PathBuf);

impl WorkDir {
    fn new() -> Result<WorkDir> {
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir =
            std::env::temp_dir().join(format!("retrodb-score-{}-{stamp}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| crate::Error::io(&dir, e))?;
        Ok(WorkDir(dir))
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
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
    let raw = dir.0.join("hex4.rdb");
    finish(build_part(
        "plain",
        "a values build of hex:4",
        &hex,
        &raw,
        runs,
    )?);

    let grid = dir.0.join("grid3x4.txt");
    std::fs::write(&grid, GRID).map_err(|e| crate::Error::io(&grid, e))?;
    let spec = format!("shannon:{},start=L,sliced", grid.display());
    let shannon = AnyGame::open_with(&spec, crate::base::memory::default_limit(), &Silent)?;
    let work = "a values build of the 18-edge Shannon grid, start=L,sliced";
    finish(build_part(
        "row",
        work,
        &shannon,
        &dir.0.join("grid.rdb"),
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
        &dir.0.join("digraph.rdb"),
        runs,
    )?);
    drop(graph);

    let zstd = dir.0.join("hex4-zstd.rdb");
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
