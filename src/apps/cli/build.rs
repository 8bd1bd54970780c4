//! `retrodb build GAME`: solve a game and write its table.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use crate::base::error::human_bytes;
use crate::games::{AnyGame, Embed};
use crate::solve::plan::Kernel;
use crate::table::builder::{self, BuildOptions, BuildSummary};
use anyhow::Result;

use super::Bar;

#[derive(clap::Args)]
pub struct Args {
    /// The game: digraph:FILE, shannon:FILE, shannon-vertex:FILE, bridgit:N, hex:N,
    /// hackenbush:FILE, hackenbush-stalk:COLOURS, hackenbush-tree:TREE or subtract:N,MOVES (a
    /// heap of N and the amounts a move may take, e.g. subtract:20,1,3,4); the cell games take
    /// ',start=L' or ',start=R' for the positions of one first mover only (e.g.
    /// bridgit:3,start=L), and then or alone ',sym' for one position per symmetry class (e.g.
    /// bridgit:4,sym: every configuration, either player to move). See docs/NOTATION.md.
    game: String,
    /// Where to write the table (default: a name made from the game, e.g. seed001.rdb; a
    /// temporary file beside it until the table is complete).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Also store each position's remoteness (plies to the end under best play).
    #[arg(long)]
    remoteness: bool,
    /// Also store each vertex's generalized Sprague-Grundy value (digraph: games), so that
    /// `retrodb probe` answers sums of tokens such as 4+9+11 (docs/SUMS.md).
    #[arg(long)]
    grundy: bool,
    /// No progress bar and no estimate (the summary is still printed).
    #[arg(long, short)]
    quiet: bool,
    /// Refuse builds estimated to need more memory than this (e.g. 8G; default: 80% of the
    /// memory available).
    #[arg(long, value_name = "SIZE", value_parser = crate::base::memory::parse_size)]
    max_memory: Option<u64>,
    /// The retrograde engine: counter (any game) or tiered (acyclic games). Default: tiered
    /// where it applies, counter otherwise.
    #[arg(long, value_parser = crate::solve::Engine::parse)]
    engine: Option<crate::solve::Engine>,
    /// The kernel, which names its engine (`--plan` lists those that apply, with their memory
    /// and disk). Every kernel that applies writes the same table; one that does not apply, or
    /// does not fit, is refused before any work. Default: the fastest that applies.
    #[arg(long, value_name = "NAME", value_parser = KernelName)]
    kernel: Option<crate::solve::plan::Kernel>,
    /// Print every kernel that applies to the game and options, one a line with its estimated
    /// peak memory and disk (from scratch) and whether both fit (--max-memory, the free disk
    /// beside the output), and build nothing. With --json: a list of {"kernel",
    /// "memory_bytes", "disk_bytes", "fits"}.
    #[arg(long)]
    plan: bool,
    /// Tiered engine: solve at most this many tiers now, then stop; rerunning the same build
    /// resumes from the last finished tier (as it does after an interruption).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    tiers: Option<u32>,
    /// Tiered engine: make a finished tier a checkpoint when this many seconds have passed
    /// since the last one (0: every tier). An interrupted build resumes below the last
    /// checkpoint; each checkpoint writes the work files back to disk.
    // The default is builder::CHECKPOINT_EVERY.
    #[arg(long, value_name = "SECS", default_value = "60", value_parser = seconds)]
    checkpoint_every: std::time::Duration,
    /// Tiered engine: when the work files beside the output belong to another build (another
    /// game, a changed input file, other options), discard them and start over instead of
    /// refusing.
    #[arg(long)]
    restart: bool,
    /// Keep the game's input file in the table whatever its size. By default an input over
    /// 64 MiB is referred to by its absolute path, and the table needs the file there, unchanged.
    #[arg(long)]
    embed: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
    /// Write the table zstd-compressed (see `retrodb compress`).
    #[arg(long)]
    compress: bool,
    #[command(flatten)]
    zstd: super::convert::ZstdArgs,
    /// Build across the ranks of the MPI job this process is one of: `mpirun -np K retrodb
    /// build GAME --mpi -o OUT` (or srun), for digraph: games (each rank reads its share of the
    /// input) and cell games in the sliced index, e.g. hex:4,start=L,sym (rank 0 hands out
    /// rows, values only; resumable like a single-process build). The output directory must be
    /// on a file system every rank sees. Needs a retrodb built with `--features mpi`
    /// (docs/DISTRIBUTED.md).
    #[arg(long)]
    mpi: bool,
}

/// `--kernel`: a name of [`Kernel::ALL`], whose names the help lists (generated, so a new
/// kernel cannot be left out of it).
#[derive(Clone)]
struct KernelName;

impl clap::builder::TypedValueParser for KernelName {
    type Value = Kernel;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Kernel, clap::Error> {
        clap::builder::TypedValueParser::parse_ref(&Kernel::parse, cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            Kernel::ALL
                .into_iter()
                .map(|k| clap::builder::PossibleValue::new(k.name())),
        ))
    }
}

pub fn run(a: Args) -> Result<ExitCode> {
    let across = [Kernel::SlicedRows, Kernel::SlicedFrames];
    if a.mpi && (a.kernel.is_some_and(|k| !across.contains(&k)) || a.plan) {
        anyhow::bail!(
            "--mpi builds with its own kernels (the row kernel or the out-of-core kernel across \
             ranks, the counter engine's for a digraph); --kernel takes sliced-rows or \
             sliced-frames with it, and --plan applies to a build in one process"
        );
    }
    if a.mpi {
        return run_mpi(a);
    }
    let max_memory = a
        .max_memory
        .unwrap_or_else(crate::base::memory::default_limit);
    let solving = Arc::new(Bar::new(a.quiet, "solving"));
    let compressing = Arc::new(Bar::new(a.quiet, "compressing").after(&solving));
    let load_start = std::time::Instant::now();
    let embed = if a.embed {
        Embed::Always
    } else {
        Embed::UpToLimit
    };
    let game = AnyGame::open_to_build(&a.game, max_memory, &*solving, embed)?;
    let load_seconds = load_start.elapsed().as_secs_f64();
    let out = a.output.unwrap_or_else(|| default_name(&a.game));
    let mut opts = BuildOptions {
        remoteness: a.remoteness,
        progress: Some(solving.clone()),
        max_memory,
        engine: a.engine,
        kernel: a.kernel,
        stop_after_tiers: a.tiers,
        on_tier: None,
        stop: Default::default(),
        compress: a.compress.then(|| a.zstd.params()),
        compress_progress: Some(compressing.clone()),
        halt_after_tier: crash_after_tier(),
        checkpoint_every: a.checkpoint_every,
        restart: a.restart,
        grundy: a.grundy,
        embed,
    };
    if let Some(option) = a.zstd.given().filter(|_| !a.compress) {
        anyhow::bail!("{option} applies to the compressed table: add --compress, or leave it out");
    }
    if a.tiers.is_some() && a.compress {
        anyhow::bail!("--tiers stops a build before its table exists; build, then compress");
    }
    builder::check_options(&game, &opts)?;
    if a.plan {
        print_kernel_plans(&game, &out, &opts, a.json)?;
        return Ok(ExitCode::SUCCESS);
    }
    let plan = builder::BuildPlan::make(&game, &out, &opts)?;
    let estimated_peak = plan.estimate.memory_bytes;
    if !a.quiet && !a.json {
        let lines = builder::report::before_build(&game, &opts, &plan);
        show_plan(&lines, &mut opts, &solving);
    }
    let mut summary = builder::build_planned(&game, &out, &opts, plan)?;
    compressing.clear();
    solving.clear();
    // The whole command's work: reading the input and building the game count too.
    summary.total_seconds = load_start.elapsed().as_secs_f64();
    let peak = crate::base::memory::peak_rss();
    if a.json {
        let mut v = serde_json::to_value(&summary)?;
        v["peak_rss_bytes"] = serde_json::json!(peak);
        v["estimated_peak_bytes"] = serde_json::json!(estimated_peak);
        v["threads"] = serde_json::json!(rayon::current_num_threads());
        v["load_seconds"] = serde_json::json!(load_seconds);
        outln!("{v}")?;
    } else {
        print_summary(&summary, peak)?;
        if let Some(c) = summary.compress_seconds {
            outln!(
                "compressed in {}; the whole command took {}",
                super::duration(c),
                super::duration(summary.total_seconds)
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `build --plan`: every kernel that applies, its estimates and whether they fit, one a line
/// (the one the build would use marked), or as a JSON list.
fn print_kernel_plans(
    game: &AnyGame,
    out: &std::path::Path,
    opts: &BuildOptions,
    json: bool,
) -> Result<()> {
    // The plan says "fits" only of an output the build would take.
    crate::table::check_output(out, &[])?;
    let plans = builder::kernel_plans(game, out, opts);
    if plans.is_empty() {
        let why = match crate::solve::tiered_unsupported(game) {
            Some(why) if opts.engine == Some(crate::solve::Engine::Tiered) => {
                format!(": the tiered engine cannot solve this game: {why}")
            }
            _ => String::new(),
        };
        anyhow::bail!(
            "build --plan {}: no kernel applies to these options{why}",
            game.spec()
        );
    }
    if json {
        outln!("{}", serde_json::to_string(&plans)?)?;
        return Ok(());
    }
    let chosen = builder::default_kernel(game, out, opts);
    for p in &plans {
        outln!(
            "{:<17} memory {:>10}  disk {:>10}  {}{}",
            p.kernel.name(),
            human_bytes(p.memory_bytes),
            human_bytes(p.disk_bytes),
            if p.fits { "fits" } else { "does not fit" },
            if chosen == Some(p.kernel) {
                "  (the build's kernel)"
            } else {
                ""
            }
        )?;
    }
    Ok(())
}

/// `--checkpoint-every SECS` as a duration: whole seconds exactly (up to 2^64 - 1, which is
/// never), fractions through `f64`; a bad value is echoed as given (an `f64` printed
/// 18446744073709551615 as 18446744073709552000).
fn seconds(text: &str) -> std::result::Result<std::time::Duration, String> {
    // Clap's message names the value (cut when long, `out::clap_exit`).
    let bad = |why: &str| why.to_string();
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return text
            .parse::<u64>()
            .map(std::time::Duration::from_secs)
            .map_err(|_| bad("more seconds than a duration holds (at most 2^64 - 1)"));
    }
    let secs: f64 = text.parse().map_err(|_| bad("not a number of seconds"))?;
    std::time::Duration::try_from_secs_f64(secs)
        .map_err(|_| bad("not a number of seconds from 0 to 2^64 - 1"))
}

/// Prints the build's plan (`lines`, [`builder::report::before_build`]); for a tiered build (a
/// plan of more than one line) also a line, above `bar`, for the run's first tier and for each
/// tier that took a while or became a checkpoint.
fn show_plan(lines: &[String], opts: &mut BuildOptions, bar: &Arc<Bar>) {
    for line in lines {
        errln!("{line}");
    }
    if lines.len() > 1 {
        let bar = Arc::clone(bar);
        opts.on_tier = Some(builder::report::tier_lines(move |line| bar.line(&line)));
    }
}

/// `build --mpi`: this process is one rank of the build; rank 0 prints the summary.
#[cfg(not(feature = "mpi"))]
fn run_mpi(_: Args) -> Result<ExitCode> {
    anyhow::bail!(
        "--mpi: this retrodb was built without MPI; build it with `cargo build --release \
         --features mpi` (docs/DISTRIBUTED.md)"
    )
}

/// `build --mpi`: this process is one rank of the build; rank 0 prints the summary.
#[cfg(feature = "mpi")]
fn run_mpi(a: Args) -> Result<ExitCode> {
    use crate::solve::distributed::comm::Comm;
    let route = builder::distributed::Route::of(&a.game)?;
    let digraph = route == builder::distributed::Route::DigraphShares;
    if a.grundy {
        anyhow::bail!(
            "--grundy: a build across MPI ranks writes no generalized Sprague-Grundy values; \
             build the table in one process"
        );
    }
    let frames = a.kernel == Some(Kernel::SlicedFrames);
    if (a.compress && !frames) || a.engine.is_some() || (digraph && a.tiers.is_some()) {
        anyhow::bail!(
            "--mpi writes a raw table with its own engine, except with --kernel sliced-frames \
             (the out-of-core kernel, which writes it compressed); --compress applies only \
             there (compress the table afterwards with `retrodb compress`), --engine not at \
             all, nor --tiers to a digraph"
        );
    }
    if let Some(option) = a.zstd.given().filter(|_| !a.compress) {
        anyhow::bail!("{option} applies to the compressed table: add --compress, or leave it out");
    }
    use crate::solve::distributed::mpi::{LAUNCHER_VARIABLES, MpiComm};
    let launched = LAUNCHER_VARIABLES
        .iter()
        .any(|v| std::env::var_os(v).is_some());
    let comm = MpiComm::init(launched)?;
    let out = a.output.clone().unwrap_or_else(|| default_name(&a.game));
    let max_memory = a
        .max_memory
        .unwrap_or_else(crate::base::memory::default_limit);
    if !digraph {
        return run_mpi_sliced(&comm, a, &out, max_memory);
    }
    let opts = BuildOptions {
        remoteness: a.remoteness,
        max_memory,
        // The notes only (a FIFO waited on, stale work files removed): no bar.
        progress: Some(Arc::new(super::Notes)),
        embed: if a.embed {
            Embed::Always
        } else {
            Embed::UpToLimit
        },
        ..BuildOptions::default()
    };
    let summary = match builder::distributed::build_digraph(&comm, &a.game, &out, &opts) {
        Ok(s) => s,
        Err(e) => {
            // Every rank stops; each says why (the failing one names the file, line or rank).
            errln!("retrodb: rank {} of {}: {e}", comm.rank(), comm.ranks());
            return Ok(ExitCode::FAILURE);
        }
    };
    if comm.rank() == 0 {
        if a.json {
            let mut v = serde_json::to_value(&summary)?;
            v["peak_rss_bytes_rank0"] = serde_json::json!(crate::base::memory::peak_rss());
            v["threads"] = serde_json::json!(rayon::current_num_threads());
            outln!("{v}")?;
        } else {
            let [_, win, loss, draw] = summary.counts;
            outln!(
                "built {}: {} positions ({win} won, {loss} lost, {draw} drawn), {} edges, {} \
                 rounds, on {} ranks",
                summary.path,
                summary.positions,
                summary.edges,
                summary.rounds,
                summary.ranks
            )?;
            outln!(
                "solve {:.2} s, total {:.2} s, {}; bytes sent by rank: {}",
                summary.solve_seconds,
                summary.total_seconds,
                human_bytes(summary.file_bytes),
                bytes_by_rank(&summary.bytes_sent)
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `build GAME --mpi` for a cell game in the sliced index: rank 0 runs the tiered build (its
/// plan, tier lines and summary printed as a single process prints them), every rank decides
/// rows.
#[cfg(feature = "mpi")]
fn run_mpi_sliced(
    comm: &crate::solve::distributed::mpi::MpiComm,
    a: Args,
    out: &std::path::Path,
    max_memory: u64,
) -> Result<ExitCode> {
    use crate::solve::distributed::comm::Comm;
    let rank0 = comm.rank() == 0;
    let solving = Arc::new(Bar::new(a.quiet || !rank0, "solving"));
    let mut opts = BuildOptions {
        remoteness: a.remoteness,
        progress: Some(solving.clone()),
        max_memory,
        kernel: a.kernel,
        compress: a.compress.then(|| a.zstd.params()),
        stop_after_tiers: a.tiers,
        halt_after_tier: crash_after_tier(),
        checkpoint_every: a.checkpoint_every,
        restart: a.restart,
        embed: if a.embed {
            Embed::Always
        } else {
            Embed::UpToLimit
        },
        ..BuildOptions::default()
    };
    // The plan's lines and the tier lines of a single-process build, on rank 0.
    let show = rank0 && !a.quiet && !a.json;
    if show {
        let bar = Arc::clone(&solving);
        opts.on_tier = Some(builder::report::tier_lines(move |line| bar.line(&line)));
    }
    let show_plan = |lines: &[String]| {
        for line in lines.iter().filter(|_| show) {
            errln!("{line}");
        }
    };
    let summary = match builder::distributed::build_sliced(comm, &a.game, out, &opts, &show_plan) {
        Ok(s) => s,
        Err(e) => {
            solving.clear();
            // Every rank stops; each says why (the failing one names the job or the file).
            errln!("retrodb: rank {} of {}: {e}", comm.rank(), comm.ranks());
            return Ok(ExitCode::FAILURE);
        }
    };
    solving.clear();
    let Some(s) = &summary.build else {
        return Ok(ExitCode::SUCCESS);
    };
    let peak = crate::base::memory::peak_rss();
    if a.json {
        let mut v = serde_json::to_value(s)?;
        v["ranks"] = serde_json::json!(summary.ranks);
        v["bytes_sent"] = serde_json::json!(summary.bytes_sent);
        v["peak_rss_bytes_rank0"] = serde_json::json!(peak);
        v["threads"] = serde_json::json!(rayon::current_num_threads());
        outln!("{v}")?;
    } else {
        print_summary(s, peak)?;
        outln!(
            "on {} ranks; bytes sent by rank: {}",
            summary.ranks,
            bytes_by_rank(&summary.bytes_sent)
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `1.2 MB, 300 kB, ...`: the bytes each rank sent.
#[cfg(feature = "mpi")]
fn bytes_by_rank(bytes: &[u64]) -> String {
    bytes
        .iter()
        .map(|&b| human_bytes(b))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The tier after which the build aborts, from `RETRODB_CRASH_AFTER_TIER`: a crash the tests of
/// resumption inject into the real process (it dies as from a signal, with no chance to clean
/// up). It lives in the command line, not the library, which offers only the hook.
fn crash_after_tier() -> Option<builder::HaltAfterTier> {
    let tier: u32 = std::env::var("RETRODB_CRASH_AFTER_TIER")
        .ok()?
        .parse()
        .ok()?;
    Some(std::sync::Arc::new(move |r: &builder::TierReport| {
        if r.tier == tier {
            errln!("retrodb: RETRODB_CRASH_AFTER_TIER={tier}: aborting as asked");
            std::process::abort();
        }
        false
    }))
}

/// `digraph:data/seed001.txt` -> `seed001.rdb`, `hex:4` -> `hex-4.rdb`.
pub fn default_name(spec: &str) -> PathBuf {
    let (kind, arg) = spec.split_once(':').unwrap_or((spec, ""));
    let stem = std::path::Path::new(arg)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned());
    let name = match stem {
        Some(s) if arg.contains('/') || arg.contains('.') => s,
        _ => format!("{kind}-{arg}"),
    };
    let clean: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    PathBuf::from(format!("{clean}.rdb"))
}

pub fn print_summary(s: &BuildSummary, peak: Option<u64>) -> Result<(), super::out::StdoutError> {
    use super::{duration, grouped, rate};
    if let Some(t) = s.resumed_from_tier {
        outln!("resumed the interrupted build below tier {t}")?;
    }
    if !s.complete {
        outln!(
            "stopped as asked after {}; work file {} (rerun the same build to resume)",
            duration(s.solve_seconds),
            s.path
        )?;
        return Ok(());
    }
    let [unused, win, loss, draw] = s.counts;
    outln!(
        "built {} for {}: {} positions ({} win, {} loss, {} draw, {} unused indices)",
        s.path,
        s.spec,
        grouped(s.positions - unused),
        grouped(win),
        grouped(loss),
        grouped(draw),
        grouped(unused)
    )?;
    // The random accesses: parent visits (counter engine), children read (tiered engine);
    // none counted where whole rows are decided at once.
    let reads = match (s.parent_visits, s.child_probes) {
        (0, 0) => String::new(),
        (v, 0) => format!(", {} parent visits", rate(v as f64, s.solve_seconds)),
        (_, p) => format!(", {} child probes", rate(p as f64, s.solve_seconds)),
    };
    outln!(
        "solved in {} by the {} engine with {} threads: {}{} positions{}{}; file {}{}",
        duration(s.solve_seconds),
        s.engine.name(),
        rayon::current_num_threads(),
        s.rounds.map_or(String::new(), |r| format!("{r} rounds, ")),
        rate(s.positions as f64, s.solve_seconds),
        s.edges.map_or(String::new(), |e| format!(
            ", {} edges",
            rate(e as f64, s.solve_seconds)
        )),
        reads,
        human_bytes(s.file_bytes),
        peak.map_or(String::new(), |p| format!(
            ", peak memory {}",
            human_bytes(p)
        ))
    )?;
    if let Some(g) = &s.grundy {
        outln!(
            "generalized Sprague-Grundy values: largest finite {}, {} infinite ({} reach sets); \
             {} stages, {} parent visits, {} (within the solve)",
            g.largest.map_or("none".to_string(), |l| l.to_string()),
            grouped(g.infinite),
            grouped(g.reach_sets),
            g.stages,
            grouped(g.parent_visits),
            duration(g.seconds)
        )?;
    }
    Ok(())
}
