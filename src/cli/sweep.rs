//! `retrodb sweep shannon`: solve the Shannon game on every small connected graph and terminal
//! pair, compare with Lehman's criterion, print the counts; exit non-zero on any disagreement.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use retrodb::oracle::graphs::{self, Graph};
use retrodb::oracle::sweep::{self, Row, SweepOptions, SweepReport};

#[derive(Clone, Copy, clap::ValueEnum)]
enum Family {
    /// The Shannon switching game, edge version, checked against Lehman's criterion.
    Shannon,
}

#[derive(clap::Args)]
pub struct Args {
    /// The game family to sweep.
    #[arg(value_enum)]
    family: Family,
    /// Generate every connected graph on 1 to K vertices (K at most 7).
    #[arg(long, value_name = "K", required_unless_present = "graph6")]
    max_vertices: Option<usize>,
    /// Read the graphs as graph6 lines (as `nauty-geng -c` prints them) from FILE, '-' for stdin.
    #[arg(long, value_name = "FILE", conflicts_with = "max_vertices")]
    graph6: Option<PathBuf>,
    /// Compare every position of the tables of graphs with at most this many edges (the empty
    /// position's class is compared always).
    #[arg(long, value_name = "N", default_value_t = 12)]
    all_positions_max_edges: usize,
    /// Positions drawn at random (the same on every run) and compared in each larger table.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    random_positions: usize,
    /// Refuse tables estimated to need more memory than this (e.g. 8G; default: 80% of the memory
    /// available).
    #[arg(long, value_name = "SIZE", value_parser = retrodb::memory::parse_size)]
    max_memory: Option<u64>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<ExitCode> {
    let Family::Shannon = a.family;
    let graphs = match (&a.graph6, a.max_vertices) {
        (Some(path), _) => read_graphs(path)?,
        (None, Some(k)) => {
            if k == 0 || k > graphs::MAX_GENERATE {
                bail!(
                    "--max-vertices {k}: graphs are generated for 1 to {} vertices; give larger ones with --graph6",
                    graphs::MAX_GENERATE
                );
            }
            let mut all = Vec::new();
            for n in 1..=k {
                all.extend(graphs::connected_graphs(n)?);
            }
            all
        }
        (None, None) => bail!("give --max-vertices K or --graph6 FILE"),
    };
    let opts = SweepOptions {
        all_positions_max_edges: a.all_positions_max_edges,
        random_positions: a.random_positions,
        max_memory: a.max_memory.unwrap_or_else(retrodb::memory::default_limit),
    };
    let report = sweep::sweep(&graphs, &opts)?;
    if a.json {
        outln!("{}", serde_json::to_string(&report)?)?;
    } else {
        print_report(&report)?;
    }
    Ok(if report.total.disagreements == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn read_graphs(path: &PathBuf) -> Result<Vec<Graph>> {
    let (name, bytes) = if path.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .context("reading graph6 from stdin")?;
        ("<stdin>".to_string(), buf)
    } else {
        let name = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| retrodb::Error::io(path, e))?;
        (name, bytes)
    };
    Ok(graphs::read_graph6(&name, &bytes)?)
}

fn print_report(r: &SweepReport) -> Result<(), super::out::StdoutError> {
    use super::grouped;
    outln!(
        "Shannon switching game (edge version) against Lehman's criterion; every position compared for graphs with at most {} edges, the empty position's class always",
        r.all_positions_max_edges
    )?;
    outln!(
        "{:>8} {:>7} {:>14} {:>6} {:>6} {:>6} {:>18} {:>13}",
        "vertices",
        "graphs",
        "terminal pairs",
        "short",
        "cut",
        "first",
        "positions checked",
        "disagreements"
    )?;
    let line = |label: String, row: &Row| {
        outln!(
            "{label:>8} {:>7} {:>14} {:>6} {:>6} {:>6} {:>18} {:>13}",
            row.graphs,
            row.terminal_pairs,
            row.short,
            row.cut,
            row.first,
            grouped(row.positions_checked),
            row.disagreements
        )
    };
    for row in &r.rows {
        line(row.vertices.to_string(), row)?;
    }
    line("all".to_string(), &r.total)?;
    outln!("{:.1} s", r.seconds)?;
    for p in &r.disagreeing {
        outln!(
            "DISAGREEMENT graph {} terminals {} {}: table class {:?}, lehman {}; {} position(s)",
            p.graph6,
            p.a,
            p.b,
            p.table_class,
            p.lehman_class,
            p.disagreements
        )?;
        for e in &p.examples {
            outln!("    {e}")?;
        }
    }
    Ok(())
}
