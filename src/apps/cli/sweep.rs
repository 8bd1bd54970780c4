//! `retrodb sweep shannon` and `retrodb sweep shannon-vertex`: solve the Shannon game (on edges,
//! or on vertices) on every small connected graph and terminal pair, compare with an answer that
//! uses no engine (Lehman's criterion, or a memoised minimax), print the counts; exit non-zero on
//! any disagreement.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::apps::oracle::graphs::{self, Graph};
use crate::apps::oracle::sweep::{self, Row, SweepOptions, SweepReport};
use crate::apps::oracle::vertex_sweep::{
    Corruption, Piece, PieceFile, VertexRow, VertexSweep, VertexSweepOptions, VertexSweepReport,
    pieces,
};
use anyhow::{Context, Result, bail};

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
    #[arg(long, value_name = "K", required_unless_present_any = ["graph6", "merge"])]
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
    #[arg(long, value_name = "SIZE", value_parser = crate::base::memory::parse_size)]
    max_memory: Option<u64>,
    /// Vertex version: also solve with the counter engine, and compare its table with the
    /// tiered engine's at every position, on one graph in N (chosen by a hash of its graph6
    /// text; 1: every graph, 0: none).
    #[arg(long, value_name = "N", default_value_t = 64)]
    engine_sample: u64,
    /// Vertex version: compare every position of every table with the memoised minimax on every
    /// graph of at most K vertices (see --minimax-sample for the larger ones).
    #[arg(long, value_name = "K", default_value_t = 9)]
    minimax_all_to: usize,
    /// Vertex version: compare every position with the minimax on one graph in N of more than
    /// --minimax-all-to vertices (chosen by a seeded hash of its graph6 text; 1: every graph, 0:
    /// none); the other tables' classes are the tiered engine's alone.
    #[arg(long, value_name = "N", default_value_t = 64)]
    minimax_sample: u64,
    /// Vertex version: write one line per graph and terminal pair to FILE: graph6, A, B, the
    /// vertex game's class and the edge game's (short, cut or first).
    #[arg(long, value_name = "FILE")]
    list: Option<PathBuf>,
    /// Vertex version: the graphs are piece RES/MOD of a census (as `nauty-geng -c N RES/MOD`
    /// splits them); the piece's results are written to --out.
    #[arg(long, value_name = "RES/MOD", requires_all = ["out", "graph6"], value_parser = parse_piece)]
    piece: Option<Piece>,
    /// Vertex version, with --piece: the piece file to write (JSON with a checksum; refused if it
    /// exists).
    #[arg(long, value_name = "FILE", requires = "piece")]
    out: Option<PathBuf>,
    /// Vertex version: merge piece files (each FILE, or every .json file of a directory) into the
    /// census of the whole; a damaged, repeated or missing piece is refused, naming it.
    #[arg(long, value_name = "PATH", num_args = 1.., conflicts_with_all = ["graph6", "max_vertices", "piece", "list"])]
    merge: Vec<PathBuf>,
    /// Vertex version, with --merge: report the pieces there are, naming the missing ones.
    #[arg(long, requires = "merge")]
    partial: bool,
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

/// `--piece RES/MOD`.
fn parse_piece(text: &str) -> Result<Piece, String> {
    Piece::parse(text).map_err(|e| e.to_string())
}

/// The commit a piece file records: what the build was told (`RETRODB_COMMIT`, which
/// scripts/census.sh sets), else `unknown`.
const COMMIT: &str = match option_env!("RETRODB_COMMIT") {
    Some(c) => c,
    None => "unknown",
};

pub fn run(a: Args) -> Result<ExitCode> {
    if a.family == Family::ShannonVertex {
        return match a.merge.is_empty() {
            true => run_vertex(a),
            false => run_merge(a),
        };
    }
    if a.list.is_some() || a.piece.is_some() || !a.merge.is_empty() {
        bail!(
            "--list, --piece and --merge are for `sweep shannon-vertex` (its lines hold both versions' classes)"
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
            .unwrap_or_else(crate::base::memory::default_limit),
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
        minimax_all_to: a.minimax_all_to,
        minimax_sample: a.minimax_sample,
        max_memory: a
            .max_memory
            .unwrap_or_else(crate::base::memory::default_limit),
        corrupt: corruption()?,
    };
    let inputs: Vec<&std::path::Path> = a.graph6.iter().map(PathBuf::as_path).collect();
    if let Some(out) = &a.out {
        PieceFile::refuse_existing(out)?;
        crate::table::check_output(out, &inputs)?;
    }
    if let Some(list) = &a.list {
        let mut others = inputs.clone();
        others.extend(a.out.as_deref());
        crate::table::check_output(list, &others)?;
    }
    let mut sweep = VertexSweep::new(opts);
    let mut list = match &a.list {
        Some(path) => {
            let mut w = crate::table::OutputFile::create(path, &super::Notes)?;
            writeln!(w, "# graph6 a b vertex-class edge-class")
                .map_err(|e| crate::Error::io(w.temp_path(), e))?;
            Some(w)
        }
        None => None,
    };
    let piece = a.piece.is_some();
    let mut add = |name: &str, batch: Vec<(u64, Graph)>| {
        sweep.add(
            name,
            &batch,
            list.as_mut().map(|w| w as &mut dyn std::io::Write),
        )?;
        match piece {
            true => PieceFile::refuse_mixed(sweep.tally()),
            false => Ok(()),
        }
    };
    match (&a.graph6, a.max_vertices) {
        (Some(path), _) => {
            let input = crate::base::inputs::open(path, &super::Notes)?;
            let name = input.name;
            graphs::read_graph6_batches(&name, input.reader, BATCH, |batch| add(&name, batch))?;
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
    if let (Some(piece), Some(out)) = (a.piece, &a.out) {
        let wall_ms = sweep.elapsed().as_millis() as u64;
        let threads = rayon::current_num_threads();
        PieceFile::new(piece, &sweep, COMMIT, threads, wall_ms)?.write(out)?;
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

/// `--merge`: the pieces' census, with the pieces (and any missing) named.
fn run_merge(a: Args) -> Result<ExitCode> {
    let files = pieces::piece_files(&a.merge)?;
    let merged = pieces::merge(&files, a.partial, &super::Notes)?;
    let report = merged.report();
    if a.json {
        let mut json = serde_json::to_value(&report)?;
        json["merge"] = serde_json::to_value(&merged)?;
        outln!("{json}")?;
    } else {
        print_vertex_report(&report)?;
        outln!(
            "{} of {} pieces{}; commits {}; checksum of the piece files {}",
            merged.pieces.len(),
            merged.of,
            match merged.vertices {
                Some(v) => format!(" of the graphs on {v} vertices"),
                None => String::new(),
            },
            merged.commits.join(", "),
            merged.checksum
        )?;
        if !merged.missing.is_empty() {
            let missing: Vec<String> = merged
                .missing
                .iter()
                .map(|r| format!("{r}/{}", merged.of))
                .collect();
            outln!("missing: {}", missing.join(" "))?;
        }
    }
    Ok(if report.total.disagreements == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// `n` and the noun that goes with it: "1 edge", "2 edges".
fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn print_vertex_report(r: &VertexSweepReport) -> Result<(), super::out::StdoutError> {
    use super::grouped;
    let sample = |k: u64| match k {
        0 => "no graph".to_string(),
        1 => "every graph".to_string(),
        k => format!("one graph in {k}"),
    };
    outln!(
        "Shannon switching game, vertex version, solved by the tiered engine; every position compared with a memoised minimax on every graph of up to {} vertices and on {} of the larger ones; counter and tiered engines compared on {} ({} of the {} graphs here); the edge version's class by Lehman's criterion",
        r.minimax_all_to,
        sample(r.minimax_sample),
        sample(r.engine_sample),
        r.total.engine_graphs,
        r.total.graphs
    )?;
    outln!(
        "{:>8} {:>9} {:>14} | {:>9} {:>9} {:>9} | {:>9} {:>9} {:>9} | {:>9} {:>14} {:>18} {:>13} {:>13}",
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
        "minimax graphs",
        "positions checked",
        "engine graphs",
        "disagreements"
    )?;
    let line = |label: String, row: &VertexRow| {
        outln!(
            "{label:>8} {:>9} {:>14} | {:>9} {:>9} {:>9} | {:>9} {:>9} {:>9} | {:>9} {:>14} {:>18} {:>13} {:>13}",
            row.graphs,
            row.terminal_pairs,
            row.short,
            row.cut,
            row.first,
            row.edge_short,
            row.edge_cut,
            row.edge_first,
            row.classes_differ,
            row.minimax_graphs,
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
        let show = |e: &Option<crate::apps::oracle::vertex_sweep::Example>| {
            e.as_ref().map_or("none".to_string(), |e| {
                format!(
                    "{} {} {} ({}, {})",
                    e.graph6,
                    e.a,
                    e.b,
                    count(e.vertices as u64, "vertex", "vertices"),
                    count(e.edges as u64, "edge", "edges")
                )
            })
        };
        outln!(
            "vertex {}, edge {}: {}; smallest {}; smallest with terminals apart {}",
            c.vertex,
            c.edge,
            count(c.pairs, "pair", "pairs"),
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

/// The edge version's graphs from `path` (`-`: stdin), held in memory together: at most
/// [`MAX_EDGE_GRAPHS`], so an endless stream is refused instead of filling the memory.
fn read_graphs(path: &std::path::Path) -> Result<Vec<Graph>> {
    let input = crate::base::inputs::open(path, &super::Notes)?;
    let name = input.name;
    let mut all = Vec::new();
    graphs::read_graph6_batches(&name, input.reader, BATCH, |batch| {
        if all.len() + batch.len() > MAX_EDGE_GRAPHS {
            return Err(crate::Error::InputWhole {
                file: name.clone(),
                msg: format!(
                    "more than {MAX_EDGE_GRAPHS} graphs; `sweep shannon` holds its graphs in \
                     memory together: give fewer, or split the input"
                ),
            }
            .into());
        }
        all.extend(batch.into_iter().map(|(_, g)| g));
        Ok(())
    })?;
    Ok(all)
}

/// The most graphs `sweep shannon` reads: its report holds them all (every connected graph on
/// 9 vertices is 261,080).
const MAX_EDGE_GRAPHS: usize = 10_000_000;

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
