//! `retrodb bench`: measurements of this machine and of retrodb itself. Plain `retrodb bench`
//! (or `bench suite`) runs the suite: the machine's random-read bound, then a fixed set of builds
//! with one thread and with all, each in a child process so its peak memory is its own.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use crate::base::error::human_bytes;
use anyhow::{Context, Result, bail};
use serde::Serialize;
use serde_json::Value as Json;

#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    #[command(subcommand)]
    what: Option<What>,
    /// Plain `retrodb bench` takes the suite's options.
    #[command(flatten)]
    suite: SuiteArgs,
}

#[derive(clap::Subcommand)]
enum What {
    /// Probe latencies (hot, cold) and batch throughput of a table.
    Probe {
        table: PathBuf,
        /// Samples per latency figure (1 to 10,000,000).
        #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(1..=MAX_PROBES))]
        samples: u64,
        /// Positions in the batch (1 to 10,000,000).
        #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..=MAX_PROBES))]
        batch: u64,
        #[arg(long)]
        json: bool,
    },
    /// Batch lookup of position texts (one a line in FILE) on a freshly opened table: the
    /// library's side of the Python module's `Table.values` (python/bench/values.py).
    Values {
        table: PathBuf,
        file: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// The benchmark suite (what plain `retrodb bench` runs).
    Suite(SuiteArgs),
}

#[derive(clap::Args, Clone)]
struct SuiteArgs {
    /// Where the generated digraph is cached and the tables are built.
    #[arg(long, default_value = "bench-work")]
    work: PathBuf,
    /// Size of the buffer for the random-read bound (8 bytes up to the memory limit: 80% of the
    /// memory available).
    #[arg(long, default_value = "2G", value_parser = crate::base::memory::parse_size)]
    read_buffer: u64,
    /// Random reads per thread for the bound (1 to 10,000,000,000).
    #[arg(long, default_value_t = 100_000_000, value_parser = clap::value_parser!(u64).range(1..=10_000_000_000))]
    reads: u64,
    /// Only these cases (comma-separated): digraph, hex4, bridgit3, shannon18.
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// Vertices of the random digraph (1 to 2^32 - 1).
    #[arg(long, default_value_t = 10_000_000, value_parser = clap::value_parser!(u64).range(1..=crate::games::digraph::MAX_VERTICES))]
    vertices: u64,
    /// Edges of the random digraph.
    #[arg(long, default_value_t = 100_000_000)]
    edges: u64,
    /// Build with this engine instead of each game's default (counter or tiered).
    #[arg(long)]
    engine: Option<String>,
    /// Instead of the suite: a fixed workload of a few seconds (the plain, row and counter
    /// kernels, lookups and probes), each part run --runs times, and one score, 1000 on the
    /// reference machine (docs/BENCHMARKS.md).
    #[arg(long, conflicts_with_all = SUITE_ONLY)]
    score: bool,
    /// Runs of each part of --score, the median taken (1 to 100).
    #[arg(long, requires = "score", value_parser = clap::value_parser!(u64).range(1..=100))]
    runs: Option<u64>,
    #[arg(long)]
    json: bool,
}

/// The suite's options, which `--score` refuses (its workload is fixed).
const SUITE_ONLY: [&str; 7] = [
    "work",
    "read_buffer",
    "reads",
    "only",
    "vertices",
    "edges",
    "engine",
];

/// Runs of each part of `--score` unless `--runs` says otherwise.
const SCORE_RUNS: u64 = 5;

pub fn run(a: Args) -> Result<ExitCode> {
    match a.what.unwrap_or(What::Suite(a.suite)) {
        What::Probe {
            table,
            samples,
            batch,
            json,
        } => {
            let r = crate::apps::bench::probe(&table, samples as usize, batch as usize)?;
            if json {
                outln!("{}", serde_json::to_string(&r)?)?;
            } else {
                outln!(
                    "{}: {} ({}), {} positions, {:.3} bits/position",
                    r.table,
                    human_bytes(r.file_bytes),
                    if r.compressed { "zstd" } else { "raw" },
                    super::grouped(r.positions),
                    r.bits_per_position
                )?;
                outln!(
                    "  hot value {:.0} ns, hot full probe {:.0} ns, cold value {:.0} ns, cold full probe {:.0} ns, batch {:.2}M probes/s ({} positions)",
                    r.hot_value_ns,
                    r.hot_probe_ns,
                    r.cold_value_ns,
                    r.cold_probe_ns,
                    r.batch_per_second / 1e6,
                    r.batch_size
                )?;
            }
        }
        What::Values { table, file, json } => {
            let r = crate::apps::bench::values(&table, &file, &super::Notes)?;
            if json {
                outln!("{}", serde_json::to_string(&r)?)?;
            } else {
                outln!(
                    "{}: {} position texts in {:.3} s, {:.2}M/s",
                    r.table,
                    super::grouped(r.positions as u64),
                    r.seconds,
                    r.per_second / 1e6
                )?;
            }
        }
        What::Suite(s) if s.score => score(&s)?,
        What::Suite(s) => suite(&s)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// The most samples and batch positions of `bench probe`: each holds a position and its timings
/// or answer (tens of bytes), so the largest batch stays within a few hundred MB; a count near
/// 2^64 overflowed the allocation.
const MAX_PROBES: u64 = 10_000_000;

/// The 18-edge Shannon graph of the suite, written into the work directory so the suite runs
/// from any directory.
const GRID: &[u8] = include_bytes!("../../../data/shannon/grid3x4.txt");

const CASES: &[&str] = &["digraph", "hex4", "bridgit3", "shannon18"];

/// One build of the suite.
#[derive(Serialize)]
struct Row {
    case: String,
    spec: String,
    engine: String,
    /// The kernel the build ran ([`crate::solve::plan::Kernel`]).
    kernel: String,
    threads: usize,
    positions: u64,
    /// Edges of the game graph, where the engine enumerated them (not a values-only tiered
    /// build, which stops at a position's first lost child).
    edges: Option<u64>,
    /// Parent visits (counter engine) or children read (tiered engine): the random accesses.
    probes: u64,
    solve_seconds: f64,
    /// Solve time per position, and per random access: what the engine costs, to compare with
    /// another engine or program on the same work (and with the machine's own random-read time
    /// above, which is no ceiling: an engine that reads fewer children is faster).
    ns_per_position: f64,
    /// `None` where the engine counts no reads (the bit-parallel kernel of plain boards).
    ns_per_probe: Option<f64>,
    /// One-thread solve time over this one (1 for the one-thread row).
    speedup: f64,
    peak_rss_bytes: u64,
    peak_bytes_per_position: f64,
}

#[derive(Serialize)]
struct Report {
    read_rates: Vec<crate::apps::bench::ReadRate>,
    /// The same loop over a buffer that fits the first-level cache: the machine's own limit for
    /// thread scaling of work that does not wait on memory.
    compute_rates: Vec<crate::apps::bench::ReadRate>,
    rows: Vec<Row>,
}

/// The buffer of the compute-bound reference loop: well inside a first-level data cache.
const COMPUTE_BUFFER: u64 = 16 << 10;

fn suite(s: &SuiteArgs) -> Result<()> {
    for c in &s.only {
        if !CASES.contains(&c.as_str()) {
            bail!(
                "unknown case '{}' for --only; cases: {}",
                crate::base::error::cut(c),
                CASES.join(", ")
            );
        }
    }
    let limit = crate::base::memory::default_limit();
    if !(8..=limit).contains(&s.read_buffer) {
        bail!(
            "--read-buffer {}: expected 8 B to {} (the memory limit, 80% of the memory available)",
            human_bytes(s.read_buffer),
            human_bytes(limit)
        );
    }
    if let Some(e) = &s.engine {
        crate::solve::Engine::parse(e).map_err(anyhow::Error::msg)?;
    }
    let wanted = |c: &str| s.only.is_empty() || s.only.iter().any(|o| o == c);
    crate::table::output_dir(&s.work)?;
    let all = std::thread::available_parallelism().map_or(1, |n| n.get());
    let thread_counts: Vec<usize> = if all > 1 { vec![1, all] } else { vec![1] };

    let read_rates = read_rates(s, &thread_counts)?;
    let compute_rates = compute_rates(s, &thread_counts)?;

    let exe = std::env::current_exe().context("finding the retrodb binary")?;
    let mut rows = Vec::new();
    for &case in CASES.iter().filter(|c| wanted(c)) {
        let spec = prepare(case, s, &exe)?;
        let mut one_thread = None;
        for &t in &thread_counts {
            let out = s.work.join(format!("{case}.rdb"));
            let v = build_in_child(&exe, &spec, t, &out, s.engine.as_deref())?;
            let _ = std::fs::remove_file(&out);
            let row = Row::new(case, &spec, t, &v, one_thread);
            one_thread.get_or_insert(row.solve_seconds);
            if !s.json {
                print_row(&row, rows.is_empty())?;
            }
            rows.push(row);
        }
    }
    if s.json {
        let report = Report {
            read_rates,
            compute_rates,
            rows,
        };
        outln!("{}", serde_json::to_string(&report)?)?;
    }
    Ok(())
}

/// `bench --score`: the fixed workload, each part printed as it finishes, then the score (or
/// all of it as one JSON object with `--json`).
fn score(s: &SuiteArgs) -> Result<()> {
    use crate::apps::bench::score::{self, Part};
    let runs = s.runs.unwrap_or(SCORE_RUNS) as usize;
    let threads = rayon::current_num_threads();
    if !s.json {
        outln!(
            "retrodb bench --score: {} ({} thread(s) of {}), {runs} run(s) a part",
            score::cpu_name(),
            threads,
            std::thread::available_parallelism().map_or(1, |n| n.get())
        )?;
        outln!(
            "{:<8} {:>14} {:<12} {:>8} {:>7} {:>6}  work",
            "part",
            "median",
            "",
            "spread",
            "ratio",
            "secs"
        )?;
    }
    let mut printed = Ok(());
    let r = score::score(runs, |p: &Part| {
        if !s.json && printed.is_ok() {
            printed = outln!(
                "{:<8} {:>14} {:<12} {:>7.1}% {:>7.3} {:>6.1}  {}{}",
                p.name,
                super::grouped(p.median.round() as u64),
                p.unit,
                p.spread_percent,
                p.ratio,
                p.seconds,
                p.work,
                p.kernel
                    .as_ref()
                    .map_or(String::new(), |k| format!(" ({k} kernel)"))
            );
        }
    })?;
    printed?;
    if s.json {
        outln!("{}", serde_json::to_string(&r)?)?;
    } else {
        outln!(
            "score {:.0} (range {:.0} to {:.0}, spread {:.1}%) with {} thread(s) on {}; 1000 is the reference machine ({}); {:.1} s",
            r.score,
            r.score_min,
            r.score_max,
            r.spread_percent,
            r.threads,
            r.cpu,
            r.reference_machine,
            r.seconds
        )?;
    }
    Ok(())
}

/// The random-read rate over `buffer` bytes, `reads` reads a thread, on a pool of `threads`.
fn read_rate(threads: usize, buffer: u64, reads: u64) -> Result<crate::apps::bench::ReadRate> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    Ok(pool.install(|| crate::apps::bench::random_read_rate(buffer, reads)))
}

/// The machine's random-read bound over `--read-buffer`, with each thread count (printed unless
/// `--json`).
fn read_rates(s: &SuiteArgs, thread_counts: &[usize]) -> Result<Vec<crate::apps::bench::ReadRate>> {
    let mut rates = Vec::new();
    for &t in thread_counts {
        let r = read_rate(t, s.read_buffer, s.reads)?;
        if !s.json {
            outln!(
                "random 8-byte reads over {}: {} thread(s) {:.1}M/s ({:.2} ns a read a thread)",
                human_bytes(r.buffer_bytes),
                t,
                r.per_second / 1e6,
                t as f64 * 1e9 / r.per_second
            )?;
        }
        rates.push(r);
    }
    Ok(rates)
}

/// The same loop over [`COMPUTE_BUFFER`], with each thread count, printed with its speed-up over
/// one thread unless `--json`.
fn compute_rates(
    s: &SuiteArgs,
    thread_counts: &[usize],
) -> Result<Vec<crate::apps::bench::ReadRate>> {
    let mut rates: Vec<crate::apps::bench::ReadRate> = Vec::new();
    for &t in thread_counts {
        let r = read_rate(t, COMPUTE_BUFFER, s.reads)?;
        if !s.json {
            let scale = rates.first().map_or(String::new(), |one| {
                format!(" ({:.2}x)", r.per_second / one.per_second)
            });
            outln!(
                "the same over {} (the cache; compute-bound): {} thread(s) {:.1}M/s{scale}",
                human_bytes(r.buffer_bytes),
                t,
                r.per_second / 1e6
            )?;
        }
        rates.push(r);
    }
    Ok(rates)
}

impl Row {
    /// The row of one build with `threads` threads from the child's JSON `v`; `one_thread` is the
    /// case's one-thread solve time, if that row came first.
    fn new(case: &str, spec: &str, threads: usize, v: &Json, one_thread: Option<f64>) -> Row {
        let num = |key: &str| v[key].as_f64().unwrap_or(0.0);
        let secs = num("solve_seconds").max(1e-9);
        let positions = num("positions") as u64;
        let probes = (num("parent_visits") + num("child_probes")) as u64;
        let peak = num("peak_rss_bytes") as u64;
        let speedup = match one_thread {
            None => 1.0,
            Some(base) => base / secs,
        };
        Row {
            case: case.to_string(),
            spec: spec.to_string(),
            engine: v["engine"].as_str().unwrap_or("?").to_string(),
            kernel: v["kernel"].as_str().unwrap_or("?").to_string(),
            threads,
            positions,
            edges: v["edges"].as_u64(),
            probes,
            solve_seconds: secs,
            ns_per_position: secs * 1e9 / positions.max(1) as f64,
            ns_per_probe: (probes > 0).then(|| secs * 1e9 / probes as f64),
            speedup,
            peak_rss_bytes: peak,
            peak_bytes_per_position: peak as f64 / positions.max(1) as f64,
        }
    }
}

/// Prints `row` as a line of the suite's table, under the header if `header`.
fn print_row(row: &Row, header: bool) -> Result<()> {
    if header {
        outln!(
            "{:<10} {:<8} {:<16} {:>3} {:>13} {:>8} {:>8} {:>13} {:>13} {:>8} {:>7} {:>8}",
            "case",
            "engine",
            "kernel",
            "thr",
            "positions",
            "solve s",
            "ns/pos",
            "edges",
            "reads",
            "ns/read",
            "speedup",
            "peak B/p"
        )?;
    }
    outln!(
        "{:<10} {:<8} {:<16} {:>3} {:>13} {:>8.2} {:>8.2} {:>13} {:>13} {:>8} {:>7.2} {:>8.2}",
        row.case,
        row.engine,
        row.kernel,
        row.threads,
        super::grouped(row.positions),
        row.solve_seconds,
        row.ns_per_position,
        row.edges.map_or("-".to_string(), super::grouped),
        super::grouped(row.probes),
        row.ns_per_probe
            .map_or("-".to_string(), |n| format!("{n:.2}")),
        row.speedup,
        row.peak_bytes_per_position
    )?;
    Ok(())
}

/// The game spec of a case, generating or writing its input into the work directory first.
fn prepare(case: &str, s: &SuiteArgs, exe: &Path) -> Result<String> {
    Ok(match case {
        "digraph" => {
            let path = s
                .work
                .join(format!("digraph-{}-{}.txt", s.vertices, s.edges));
            // `gen` writes through a temporary name, so an existing file is complete.
            if !path.exists() {
                let status = Command::new(exe)
                    .args(["gen", "digraph", "--sinks", "0.25", "--vertices"])
                    .arg(s.vertices.to_string())
                    .arg("--edges")
                    .arg(s.edges.to_string())
                    .arg("-o")
                    .arg(&path)
                    .stdout(std::process::Stdio::null())
                    .status()
                    .context("running retrodb gen digraph")?;
                if !status.success() {
                    bail!("retrodb gen digraph failed ({status})");
                }
            }
            format!("digraph:{}", path.display())
        }
        "hex4" => "hex:4".to_string(),
        "bridgit3" => "bridgit:3".to_string(),
        "shannon18" => {
            let path = s.work.join("grid3x4.txt");
            crate::table::write_output(&path, GRID, &super::Notes)?;
            format!("shannon:{}", path.display())
        }
        _ => unreachable!("cases are checked against CASES"),
    })
}

/// Runs `retrodb --threads T build SPEC --json` and returns its summary.
fn build_in_child(
    exe: &Path,
    spec: &str,
    threads: usize,
    out: &Path,
    engine: Option<&str>,
) -> Result<Json> {
    let mut cmd = Command::new(exe);
    cmd.arg("--threads")
        .arg(threads.to_string())
        .args(["build", spec, "--quiet", "--json", "-o"])
        .arg(out);
    if let Some(e) = engine {
        cmd.args(["--engine", e]);
    }
    let output = cmd
        .output()
        .with_context(|| format!("running retrodb build {spec}"))?;
    if !output.status.success() {
        bail!(
            "retrodb build {spec} with {threads} thread(s) failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let line = text.lines().last().unwrap_or("");
    serde_json::from_str(line).with_context(|| format!("reading the summary of {spec}: '{line}'"))
}
