//! `retrodb research bridgit --size N [--json]`: the spanning-tree strategies, `b_L`/`b_R` and the
//! option-ranking conjecture checked on every position of Bridg-It against its table; with
//! `--sample N --seed S`, the figures that need values (and remoteness, when the table has it)
//! on a uniform random sample of the play population, from any table of the board
//! (`bridgit:4,start=L,sym`, with or without remoteness).
//!
//! Without `--table`, `--sample N --population all|play` values the positions by Lehman's
//! criterion, at sizes 2 to 6 (`research::research_lehman`).
//!
//! `retrodb research late --size N --exact-to E [--svg-dir DIR]`: the ranking in the game order
//! on late positions, canonical forms built per position, the smallest board breaking each
//! claim drawn (`research::research_late`).
//!
//! `retrodb research tiers --table FILE [--json] [--svg FILE]`: the distribution of value and
//! remoteness by tier of any table of a game with tiers (`research::depth`), and its chart.
//!
//! `retrodb research chart --out FILE REPORT.json...`: the chart of JSON reports (`apps::chart`):
//! one table's tiers, the Bridg-It reports' shares by size, or the census' classes by vertices.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::apps::research;
use anyhow::{Result, bail};

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    subject: Subject,
}

#[derive(clap::Subcommand)]
enum Subject {
    /// Check Bridg-It strategies and conjectures on every position (or a sample) of a table.
    Bridgit(BridgitArgs),
    /// The distribution of value and remoteness by tier of a table of a game with tiers.
    ///
    /// Per tier (filled cells, for cell games): the positions, wins, losses, the longest win
    /// and loss, and the wins and losses at each remoteness.
    Tiers(TiersArgs),
    /// The option ranking in the game order on Bridg-It's late positions, without a table.
    ///
    /// Every position of the play population (Left first) with at most --exact-to empty cells,
    /// then --sample boards drawn from each tier up to --sample-to empty cells; each option's
    /// canonical form built from the position (a finished board worth 1 to its winner).
    Late(LateArgs),
    /// Draw a chart (SVG) of JSON reports: the tiers of one table (`research tiers --json`), the
    /// shares of Bridg-It reports by board size (`research bridgit --json`, one report a size),
    /// or the Shannon census' classes by vertices (`sweep shannon-vertex --json`, its rows).
    Chart(ChartArgs),
}

#[derive(clap::Args)]
pub struct ChartArgs {
    /// The JSON reports, all of one kind.
    #[arg(value_name = "REPORT.json", required = true)]
    reports: Vec<PathBuf>,
    /// The SVG file to write.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Bridg-It reports: the population whose shares are drawn (`all` or `play`).
    #[arg(long, default_value = "all")]
    population: String,
    /// Bridg-It reports: the shares drawn, by their names in a sampled report's proportions.
    #[arg(long, value_name = "NAME,...", value_delimiter = ',', default_values_t = crate::apps::chart::shares::DEFAULT_SHARES.iter().map(|s| s.to_string()))]
    shares: Vec<String>,
}

#[derive(clap::Args)]
pub struct LateArgs {
    /// The board size (2 to 4).
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..=4))]
    size: u32,
    /// Count every board with at most this many empty cells.
    #[arg(long, value_name = "E")]
    exact_to: u32,
    /// Sample the tiers beyond --exact-to up to this many empty cells.
    #[arg(long, value_name = "F", default_value_t = 0)]
    sample_to: u32,
    /// Boards drawn per sampled tier (0 to 1,000,000,000).
    #[arg(long, value_name = "K", default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=super::MAX_SAMPLE))]
    sample: u64,
    /// The seed of the sampled tiers.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write one SVG picture per counterexample (the smallest board breaking each claim) into
    /// this directory.
    #[arg(long, value_name = "DIR")]
    svg_dir: Option<PathBuf>,
    /// The report as one JSON object (the default is JSON too; the flag is for symmetry).
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
pub struct TiersArgs {
    /// The table (raw or compressed) of a game with tiers: cell games, Hackenbush. A table
    /// without remoteness gives values only.
    #[arg(long, value_name = "FILE")]
    table: PathBuf,
    /// The figures as one JSON object (exact counts; the text abbreviates the histograms).
    #[arg(long)]
    json: bool,
    /// Also draw the figures as a chart (SVG) into FILE: each tier's wins, losses and draws,
    /// and the wins and losses by remoteness.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// No progress bar, and no lines on stderr but errors.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(clap::Args)]
pub struct BridgitArgs {
    /// The board size (2 takes a second, 3 under a minute with a progress bar; 4 to
    /// 6 only with --sample: a table of size 4, or Lehman's criterion without --table).
    #[arg(long)]
    size: u32,
    /// The table to use, built there (with remoteness) if the file is absent. Default: a cache
    /// file bridgit_N-remoteness.rdb in $RETRODB_CACHE, $XDG_CACHE_HOME/retrodb or
    /// ~/.cache/retrodb. With --sample, any table of the board (values only will do) that
    /// exists. Its values are checked against Lehman's criterion (every position, or every
    /// value a sample reads): a table that disagrees is refused.
    #[arg(long, value_name = "FILE")]
    table: Option<PathBuf>,
    /// Check the claims that need values only on N positions drawn uniformly from the play
    /// population (Left moving first), each share with a 95% interval, instead of every
    /// position; from a table with remoteness, the ranking against the table's order of options
    /// too. 1 to 1,000,000,000.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=super::MAX_SAMPLE))]
    sample: Option<u64>,
    /// The population --sample draws from: `play` (Left moving first) or `all` (every open
    /// configuration, either player to move). Without --table the values come from Lehman's
    /// criterion (sizes 2 to 6 for `all`, 2 to 4 for `play`); a table is sampled over `play`.
    #[arg(long, value_enum, default_value_t = PopulationArg::Play, requires = "sample")]
    population: PopulationArg,
    /// The seed of --sample: the same seed draws the same positions.
    #[arg(long, default_value_t = 1, requires = "sample")]
    seed: u64,
    /// Write one SVG picture per counterexample into this directory.
    #[arg(long, value_name = "DIR")]
    svg_dir: Option<PathBuf>,
    /// The conventions tested for the game order: a finished board is worth C free moves to its
    /// winner (comma-separated; the first gives the counterexamples).
    #[arg(long, value_name = "C,...", value_delimiter = ',', default_values_t = research::report::DEFAULT_CONVENTIONS, value_parser = clap::value_parser!(u32).range(1..=64))]
    free_moves: Vec<u32>,
    /// The report as one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum PopulationArg {
    All,
    Play,
}

pub fn run(a: Args) -> Result<ExitCode> {
    match a.subject {
        Subject::Bridgit(a) => bridgit(a),
        Subject::Tiers(a) => tiers(a),
        Subject::Late(a) => late(a),
        Subject::Chart(a) => chart(a),
    }
}

/// `research chart`: the chart of JSON reports, written to --out.
fn chart(a: ChartArgs) -> Result<ExitCode> {
    let paths: Vec<&std::path::Path> = a.reports.iter().map(PathBuf::as_path).collect();
    crate::table::check_output(&a.out, &paths)?;
    let chart = crate::apps::chart::from_files(&paths, &a.population, &a.shares, &super::Notes)?;
    crate::table::write_output(&a.out, chart.svg.as_bytes(), &super::Notes)?;
    errln!("wrote the {} chart to {}", chart.kind, a.out.display());
    Ok(ExitCode::SUCCESS)
}

/// `research late`: the game order on late positions, as JSON.
fn late(a: LateArgs) -> Result<ExitCode> {
    // Made (or refused) before the work, not after it.
    if let Some(dir) = &a.svg_dir {
        crate::table::output_dir(dir)?;
    }
    let bar = super::Bar::new(false, "late positions");
    let start = std::time::Instant::now();
    let report = research::research_late(
        a.size,
        a.exact_to,
        a.sample_to,
        a.sample,
        a.seed,
        a.svg_dir.as_deref(),
        &bar,
    )?;
    bar.clear();
    errln!("done in {:.1} s", start.elapsed().as_secs_f64());
    let _ = a.json;
    outln!("{}", serde_json::to_string_pretty(&report)?)?;
    Ok(ExitCode::SUCCESS)
}

/// `research tiers`: every position of the table counted by tier, value and remoteness.
fn tiers(a: TiersArgs) -> Result<ExitCode> {
    if let Some(svg) = &a.svg {
        crate::table::check_output(svg, &[&a.table])?;
    }
    let table = crate::table::Table::open(&a.table)?;
    research::depth::check_table(&table)?;
    if !a.json && !a.quiet {
        errln!(
            "counting every position of {} ({}) by tier",
            table.path().display(),
            table.header().spec
        );
    }
    let bar = super::Bar::new(a.quiet, "counting");
    let start = std::time::Instant::now();
    let depth = research::depth::tiers(&table, &bar)?;
    bar.clear();
    if !a.quiet {
        errln!(
            "counted {} positions in {:.1} s",
            super::grouped(depth.total.positions),
            start.elapsed().as_secs_f64()
        );
    }
    if let Some(svg) = &a.svg {
        let chart = crate::apps::chart::tiers::svg(&(&depth).into())?;
        crate::table::write_output(svg, chart.as_bytes(), &super::Notes)?;
        if !a.quiet {
            errln!("wrote the chart to {}", svg.display());
        }
    }
    if a.json {
        outln!("{}", serde_json::to_string_pretty(&depth)?)?;
    } else {
        out!("{}", research::depth::render_text(&depth))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn bridgit(a: BridgitArgs) -> Result<ExitCode> {
    if let Some(dir) = &a.svg_dir {
        crate::table::output_dir(dir)?;
    }
    if let Some(count) = a.sample {
        return sampled(&a, count);
    }
    if !(1..=3).contains(&a.size) {
        bail!(
            "research bridgit: --size {} is not supported; the report needs the complete table, \
             which retrodb builds for sizes 1 to 3{}",
            a.size,
            if a.size == 4 {
                " (for size 4, give --sample N and --table with a table of bridgit:4, e.g. \
                 bridgit:4,start=L,sym)"
            } else {
                ""
            }
        );
    }
    // A table that exists is opened as it is, so that one of another index (a values-only
    // or Left-first table) is refused with what would work instead.
    let (table, built) = match a.table.as_deref() {
        Some(path) if path.exists() => (crate::table::Table::open(path)?, false),
        path => research::open_or_build(a.size, path, std::sync::Arc::new(super::Notes))?,
    };
    if built {
        errln!("built {}", table.path().display());
    }
    if !a.json {
        errln!(
            "checking every position of bridgit:{} against {}",
            a.size,
            table.path().display()
        );
    }
    let bar = super::Bar::new(false, "researching");
    let report = research::research_with_progress(
        a.size,
        &table,
        &a.free_moves,
        a.svg_dir.as_deref(),
        &bar,
    )?;
    bar.clear();
    if a.json {
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        out!("{}", research::render_text(&report))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `--sample N`: the claims that need values (and remoteness, when the table has it) on a
/// uniform sample, from a table that exists.
fn sampled(a: &BridgitArgs, count: u64) -> Result<ExitCode> {
    let population = match a.population {
        PopulationArg::All => research::SamplePopulation::All,
        PopulationArg::Play => research::SamplePopulation::Play,
    };
    if a.table.is_none() || population == research::SamplePopulation::All {
        return sampled_by_lehman(a, count, population);
    }
    if !(1..=4).contains(&a.size) {
        bail!(
            "research bridgit: --size {} is not supported (sizes 1 to 4)",
            a.size
        );
    }
    let Some(path) = a.table.as_deref() else {
        unreachable!("sampled_by_lehman takes --sample without --table")
    };
    let table = crate::table::Table::open(path)?;
    if !a.json {
        errln!(
            "checking {count} random positions of the play population of bridgit:{} against {}",
            a.size,
            table.path().display()
        );
    }
    sample_and_print(a, count, |bar| {
        research::research_sample(a.size, &table, count, a.seed, a.svg_dir.as_deref(), bar)
    })
}

/// `--sample N` without a table (or over every configuration): the values by Lehman's
/// criterion.
fn sampled_by_lehman(
    a: &BridgitArgs,
    count: u64,
    population: research::SamplePopulation,
) -> Result<ExitCode> {
    if a.table.is_some() {
        bail!(
            "research bridgit --population all: the sample of every configuration takes its \
             values from Lehman's criterion; leave out --table"
        );
    }
    if !a.json {
        errln!(
            "checking {count} random positions of the {} population of bridgit:{} by Lehman's \
             criterion",
            population.name(),
            a.size
        );
    }
    sample_and_print(a, count, |bar| {
        research::research_lehman(a.size, population, count, a.seed, a.svg_dir.as_deref(), bar)
    })
}

/// Runs a sample of `count` positions under a progress bar, says how long it took, and prints
/// its report (JSON with `--json`).
fn sample_and_print(
    a: &BridgitArgs,
    count: u64,
    sample: impl FnOnce(&super::Bar) -> crate::apps::error::Result<research::Report>,
) -> Result<ExitCode> {
    let bar = super::Bar::new(false, "sampling");
    let start = std::time::Instant::now();
    let report = sample(&bar)?;
    bar.clear();
    errln!(
        "sampled {count} positions in {:.1} s",
        start.elapsed().as_secs_f64()
    );
    if a.json {
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        out!("{}", research::render_text(&report))?;
    }
    Ok(ExitCode::SUCCESS)
}
