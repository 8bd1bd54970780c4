//! `retrodb sweep shannon` and `retrodb sweep shannon-vertex`: solve the Shannon game (on edges,
//! or on vertices) on every small connected graph and terminal pair, compare with an answer that
//! uses no engine (Lehman's criterion, or a memoised minimax), print the counts; exit non-zero on
//! any disagreement.

use std::io::{BufRead, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use retrodb::apps::oracle::graphs::{self, Graph};
use retrodb::apps::oracle::sweep::{self, Row, SweepOptions, SweepReport};
use retrodb::apps::oracle::vertex_sweep::{
    Corruption, VertexRow, VertexSweep, VertexSweepOptions, VertexSweepReport,
};

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Family {
    /// The Shannon switching game, edge version, checked against Lehman's criterion.
    Shannon,
    /// The Shannon switching game, vertex version, checked against a memoised minimax on every
    /// position (the edge version's class by Lehman beside it).
    ShannonVertex,
}

/// Graphs read and checked at a time from a graph6 stream.
const BATCH: usize = 4096;

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
    /// Edge version: compare every position of the tables of graphs with at most this many edges
    /// (the empty position's class is compared always).
    #[arg(long, value_name = "N", default_value_t = 12)]
    all_positions_max_edges: usize,
    /// Edge version: positions drawn at random (the same on every run) and compared in each larger
    /// table (0 to 10,000,000; each is listed before it is compared).
    #[arg(long, value_name = "N", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(0..=10_000_000))]
    random_positions: u64,
    /// Refuse tables estimated to need more memory than this (e.g. 8G; default: 80% of the memory
    /// available).
    #[arg(long, value_name = "SIZE", value_parser = retrodb::base::memory::parse_size)]
    max_memory: Option<u64>,
    /// Vertex version: also solve with the counter engine, and compare its table with the
    /// tiered engine's at every position, on one graph in N (chosen by a hash of its graph6
    /// text; 1: every graph, 0: none).
    #[arg(long, value_name = "N", default_value_t = 64)]
    engine_sample: u64,
    /// Vertex version: write one line per graph and terminal pair to FILE: graph6, A, B, the
    /// vertex game's class and the edge game's (short, cut or first).
    #[arg(long, value_name = "FILE")]
    list: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// The generator's limit, checked before any work.
fn check_max_vertices(k: usize) -> Result<()> {
    if k == 0 || k > graphs::MAX_GENERATE {
        bail!(
            "--max-vertices {k}: graphs are generated for 1 to {} vertices; give larger ones with --graph6",
            graphs::MAX_GENERATE
        );
    }
    Ok(())
}

pub fn run(a: Args) -> Result<ExitCode> {
    if a.family == Family::ShannonVertex {
        return run_vertex(a);
    }
    if a.list.is_some() {
        bail!(
            "--list is written by `sweep shannon-vertex` (its lines hold both versions' classes)"
        );
    }
    let graphs = match (&a.graph6, a.max_vertices) {
        (Some(path), _) => read_graphs(path)?,
        (None, Some(k)) => {
            check_max_vertices(k)?;
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
        random_positions: a.random_positions as usize,
        max_memory: a
            .max_memory
            .unwrap_or_else(retrodb::base::memory::default_limit),
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

/// The deliberate fault of `RETRODB_SWEEP_CORRUPT=GRAPH6:A:B:POSITION`: that table value is
/// flipped before the comparisons, so tests can see the census catch a wrong table from the
/// outside. It lives in the command line; the library offers only the option.
fn corruption() -> Result<Option<Corruption>> {
    match std::env::var("RETRODB_SWEEP_CORRUPT") {
        Ok(text) => Ok(Some(
            Corruption::parse(&text).context("RETRODB_SWEEP_CORRUPT")?,
        )),
        Err(_) => Ok(None),
    }
}

fn run_vertex(a: Args) -> Result<ExitCode> {
    if let (None, Some(k)) = (&a.graph6, a.max_vertices) {
        check_max_vertices(k)?;
    }
    let opts = VertexSweepOptions {
        engine_sample: a.engine_sample,
        max_memory: a
            .max_memory
            .unwrap_or_else(retrodb::base::memory::default_limit),
        corrupt: corruption()?,
    };
    let mut sweep = VertexSweep::new(opts);
    let mut list = match &a.list {
        Some(path) => {
            let mut w = retrodb::table::OutputFile::create(path, &super::Notes)?;
            writeln!(w, "# graph6 a b vertex-class edge-class")
                .map_err(|e| retrodb::Error::io(w.temp_path(), e))?;
            Some(w)
        }
        None => None,
    };
    let mut add = |name: &str, batch: Vec<(u64, Graph)>| {
        sweep.add(
            name,
            &batch,
            list.as_mut().map(|w| w as &mut dyn std::io::Write),
        )
    };
    match (&a.graph6, a.max_vertices) {
        (Some(path), _) => {
            let (name, reader): (String, Box<dyn BufRead>) = if path.as_os_str() == "-" {
                ("<stdin>".to_string(), Box::new(std::io::stdin().lock()))
            } else {
                let file = std::fs::File::open(path).map_err(|e| retrodb::Error::io(path, e))?;
                (
                    path.display().to_string(),
                    Box::new(std::io::BufReader::new(file)),
                )
            };
            graphs::read_graph6_batches(&name, reader, BATCH, |batch| add(&name, batch))?;
        }
        (None, Some(k)) => {
            for n in 1..=k {
                let generated = graphs::connected_graphs(n)?;
                add(
                    "the generated graphs",
                    generated.into_iter().map(|g| (0, g)).collect(),
                )?;
            }
        }
        (None, None) => bail!("give --max-vertices K or --graph6 FILE"),
    }
    if let Some(w) = list {
        w.commit()?;
    }
    let report = sweep.report();
    if a.json {
        outln!("{}", serde_json::to_string(&report)?)?;
    } else {
        print_vertex_report(&report)?;
    }
    Ok(if report.total.disagreements == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn print_vertex_report(r: &VertexSweepReport) -> Result<(), super::out::StdoutError> {
    use super::grouped;
    outln!(
        "Shannon switching game, vertex version, against a memoised minimax on every position (counter and tiered engines compared on {}); the edge version's class by Lehman's criterion",
        match r.engine_sample {
            0 => "no graph".to_string(),
            1 => "every graph".to_string(),
            k => format!("one graph in {k}"),
        }
    )?;
    outln!(
        "{:>8} {:>9} {:>14} | {:>9} {:>9} {:>9} | {:>9} {:>9} {:>9} | {:>9} {:>18} {:>13} {:>13}",
        "vertices",
        "graphs",
        "terminal pairs",
        "short",
        "cut",
        "first",
        "edge short",
        "edge cut",
        "edge first",
        "differ",
        "positions checked",
        "engine graphs",
        "disagreements"
    )?;
    let line = |label: String, row: &VertexRow| {
        outln!(
            "{label:>8} {:>9} {:>14} | {:>9} {:>9} {:>9} | {:>9} {:>9} {:>9} | {:>9} {:>18} {:>13} {:>13}",
            row.graphs,
            row.terminal_pairs,
            row.short,
            row.cut,
            row.first,
            row.edge_short,
            row.edge_cut,
            row.edge_first,
            row.classes_differ,
            grouped(row.positions_checked),
            row.engine_graphs,
            row.disagreements
        )
    };
    for row in &r.rows {
        line(row.vertices.to_string(), row)?;
    }
    line("all".to_string(), &r.total)?;
    for c in r
        .crossings
        .iter()
        .filter(|c| c.pairs > 0 && c.vertex != c.edge)
    {
        let show = |e: &Option<retrodb::apps::oracle::vertex_sweep::Example>| {
            e.as_ref().map_or("none".to_string(), |e| {
                format!(
                    "{} {} {} ({} vertices, {} edges)",
                    e.graph6, e.a, e.b, e.vertices, e.edges
                )
            })
        };
        outln!(
            "vertex {}, edge {}: {} pairs; smallest {}; smallest with terminals apart {}",
            c.vertex,
            c.edge,
            c.pairs,
            show(&c.smallest),
            show(&c.smallest_apart)
        )?;
    }
    outln!("{:.1} s", r.seconds)?;
    for p in &r.disagreeing {
        outln!(
            "DISAGREEMENT graph {} terminals {} {}: table class {:?}, minimax {:?}; {} position(s)",
            p.graph6,
            p.a,
            p.b,
            p.table_class,
            p.minimax_class,
            p.disagreements
        )?;
        for e in &p.examples {
            outln!("    {e}")?;
        }
    }
    if r.disagreeing_pairs > r.disagreeing.len() as u64 {
        outln!("... {} disagreeing pairs in all", r.disagreeing_pairs)?;
    }
    Ok(())
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
