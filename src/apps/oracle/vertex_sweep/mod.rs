//! The vertex-game census: solve the Shannon switching game on vertices (`shannon-vertex:`) on
//! many small connected graphs, for every terminal pair up to the graph's automorphisms, and
//! compare the tables with a memoised minimax ([`super::vertex`]); beside it, the edge version's
//! class of the same pair by Lehman's criterion ([`super::lehman`]).
//!
//! Each (graph, pair) becomes a `shannon-vertex:` game read from graph-file text held in memory
//! ([`super::sweep::shannon_file`]) and solved by the tiered engine into heap cells
//! (`pair.rs`). Which graphs are compared with what is decided per graph by a hash of its graph6
//! text, so a graph gets the same comparisons in any run, whole or in pieces:
//!
//! - with the minimax at every position: every graph of at most
//!   [`VertexSweepOptions::minimax_all_to`] vertices, and one in
//!   [`VertexSweepOptions::minimax_sample`] of the larger ones;
//! - with the counter engine's table at every position: one graph in
//!   [`VertexSweepOptions::engine_sample`].
//!
//! Positions are read through the game's notation: for each cell count the text of every
//! position (the minimax's base-3 codes written as `.LR` texts with `/L` or `/R`) is parsed by
//! the first game with that many cells, and the indices it gives — checked to be a bijection onto
//! the table's positions — are where every later table of that cell count is read. (The plain
//! index of a cell game depends only on its cell count; each table re-parses the texts of its two
//! empty positions and one other, and a different answer is a disagreement.)
//!
//! Graphs come in batches ([`VertexSweep::add`]), checked in parallel and reported in input
//! order, so `--list` output is the same for any thread count. A census can run in pieces, each
//! written to a file of its own and merged later ([`pieces`]).
//!
//! The invariant: a pair the minimax was asked about counts as checked only when all
//! `2 * 3^cells` positions were; a class is always the table's, read at the two empty positions.

use std::collections::HashMap;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rayon::prelude::*;

use super::graphs::Graph;
use super::lehman::{EdgeClasses, Player};
use super::vertex;
use crate::Error;
use crate::apps::error::{AppError, OracleError, Result};
use crate::base::splitmix;

mod compare;
mod pair;
pub mod pieces;
mod report;

use pair::IndexMap;
use pieces::LineHasher;
pub use pieces::{LinesDigest, Merged, Piece, PieceFile, PieceOptions};
use report::GraphOutcome;
pub use report::{Crossing, Disagreement, Example, Tally, VertexRow, VertexSweepReport};

/// The most vertices the census takes: the terminals and the minimax's most cells.
pub const MAX_VERTICES: usize = vertex::MAX_CELLS + 2;

/// Disagreeing pairs kept in the report (all are counted).
const KEPT_DISAGREEMENTS: usize = 20;

/// Disagreement examples kept per pair.
const EXAMPLES: usize = 5;

/// Mixed into a graph's hash to choose the graphs compared with the minimax, so that they are
/// not the graphs whose engines are compared (the bytes of "minimax").
pub const MINIMAX_SEED: u64 = 0x006d_696e_696d_6178;

/// What to compare.
#[derive(Clone, Debug)]
pub struct VertexSweepOptions {
    /// Solve with the counter engine too, and compare its table with the tiered engine's at every
    /// position, on the graphs whose graph6 text hashes to 0 modulo this (1: every graph; 0: none).
    pub engine_sample: u64,
    /// Compare every position of every table with the minimax on the graphs of at most this many
    /// vertices ...
    pub minimax_all_to: usize,
    /// ... and on the larger graphs whose graph6 text, hashed with [`MINIMAX_SEED`], is 0 modulo
    /// this (1: every graph; 0: none). The other tables' classes are the tiered engine's alone.
    pub minimax_sample: u64,
    /// Bytes one game may use.
    pub max_memory: u64,
    /// A deliberate fault, for tests: this table value is flipped before the comparisons.
    pub corrupt: Option<Corruption>,
}

impl Default for VertexSweepOptions {
    fn default() -> Self {
        VertexSweepOptions {
            engine_sample: 64,
            minimax_all_to: 9,
            minimax_sample: 64,
            max_memory: crate::base::memory::default_limit(),
            corrupt: None,
        }
    }
}

/// One table value to flip: graph (as given), terminals, position text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Corruption {
    pub graph6: String,
    pub a: usize,
    pub b: usize,
    pub position: String,
}

impl Corruption {
    /// Reads `GRAPH6:A:B:POSITION`.
    pub fn parse(text: &str) -> Result<Corruption> {
        let bad = || {
            AppError::Oracle(OracleError::Corruption {
                text: text.to_string(),
            })
        };
        let parts: Vec<&str> = text.splitn(4, ':').collect();
        let [graph6, a, b, position] = parts[..] else {
            return Err(bad());
        };
        Ok(Corruption {
            graph6: graph6.to_string(),
            a: a.parse().map_err(|_| bad())?,
            b: b.parse().map_err(|_| bad())?,
            position: position.to_string(),
        })
    }
}

/// Which comparisons a graph's tables get.
#[derive(Clone, Copy, Debug)]
struct Checks {
    minimax: bool,
    engines: bool,
}

/// Whether a graph whose text hashed to `h` is one of a sample of one in `k` (`k` 0: none).
fn sampled(h: u64, k: u64) -> bool {
    k != 0 && splitmix::hash(h).is_multiple_of(k)
}

/// A graph6 text's hash (FNV-style), the base of both samples.
fn graph6_hash(graph6: &str) -> u64 {
    graph6
        .bytes()
        .fold(0u64, |h, c| h.wrapping_mul(0x100_0000_01b3) ^ c as u64)
}

/// The census in progress: feed it batches of graphs, then take the report.
pub struct VertexSweep {
    opts: VertexSweepOptions,
    tally: Tally,
    input: LineHasher,
    list: LineHasher,
    maps: Mutex<HashMap<usize, Arc<IndexMap>>>,
    started: Instant,
}

const MOVERS: [Player; 2] = [Player::Short, Player::Cut];

impl VertexSweep {
    pub fn new(opts: VertexSweepOptions) -> VertexSweep {
        VertexSweep {
            opts,
            tally: Tally::default(),
            input: LineHasher::default(),
            list: LineHasher::default(),
            maps: Mutex::new(HashMap::new()),
            started: Instant::now(),
        }
    }

    /// Checks a batch of graphs (each with its line in input `name`, for messages) and writes one
    /// `--list` line per graph and terminal pair to `list`, in input order.
    pub fn add(
        &mut self,
        name: &str,
        graphs: &[(u64, Graph)],
        list: Option<&mut dyn Write>,
    ) -> Result<()> {
        // Refused graphs are named in input order, before any work.
        for (line, g) in graphs {
            let why = if g.vertices() > MAX_VERTICES {
                Some(format!(
                    "{} vertices, more than the {MAX_VERTICES} the census takes",
                    g.vertices()
                ))
            } else if !g.is_connected() {
                Some("not connected (the census takes connected graphs, as `nauty-geng -c` prints them)".to_string())
            } else {
                None
            };
            if let Some(why) = why {
                return Err(Error::Input {
                    file: name.to_string(),
                    line: *line,
                    msg: format!("graph {}: {why}", g.to_graph6()),
                }
                .into());
            }
        }
        let outcomes: Vec<GraphOutcome> = graphs
            .par_iter()
            .map(|(_, g)| self.check_graph(g))
            .collect::<Result<_>>()?;
        let mut lines = String::new();
        for o in &outcomes {
            self.input.line(&o.graph6);
            let from = lines.len();
            self.tally.record(o, &mut lines);
            self.list.lines(&lines[from..]);
        }
        if let Some(w) = list {
            w.write_all(lines.as_bytes())
                .map_err(|e| Error::io("the --list file", e))?;
        }
        Ok(())
    }

    /// The counts so far.
    pub fn tally(&self) -> &Tally {
        &self.tally
    }

    /// The graphs read so far, and the `--list` lines written, counted and hashed.
    pub fn digests(&self) -> (LinesDigest, LinesDigest) {
        (self.input.digest(), self.list.digest())
    }

    /// The time since the census began.
    pub fn elapsed(&self) -> std::time::Duration {
        self.started.elapsed()
    }

    /// The options the census runs with.
    pub fn options(&self) -> &VertexSweepOptions {
        &self.opts
    }

    /// The report of everything added so far.
    pub fn report(self) -> VertexSweepReport {
        let (input, list) = self.digests();
        let total = self.tally.total();
        VertexSweepReport {
            rows: self.tally.rows,
            total,
            crossings: self.tally.crossings,
            disagreeing: self.tally.disagreeing,
            disagreeing_pairs: self.tally.disagreeing_pairs,
            engine_sample: self.opts.engine_sample,
            minimax_sample: self.opts.minimax_sample,
            minimax_all_to: self.opts.minimax_all_to,
            input: Some(input),
            list: Some(list),
            seconds: self.started.elapsed().as_secs_f64(),
        }
    }

    fn check_graph(&self, graph: &Graph) -> Result<GraphOutcome> {
        let graph6 = graph.to_graph6();
        let h = graph6_hash(&graph6);
        let checks = Checks {
            minimax: graph.vertices() <= self.opts.minimax_all_to
                || sampled(h ^ MINIMAX_SEED, self.opts.minimax_sample),
            engines: sampled(h, self.opts.engine_sample),
        };
        let edge_classes = EdgeClasses::new(graph.vertices(), &graph.edges()).map_err(|e| {
            OracleError::Unsupported {
                spec: format!("graph {graph6}"),
                reason: e.to_string(),
            }
        })?;
        let pairs = graph
            .terminal_pairs()
            .into_iter()
            .map(|(a, b)| self.check_pair(graph, &graph6, a, b, checks, &edge_classes))
            .collect::<Result<_>>()?;
        Ok(GraphOutcome {
            graph6,
            vertices: graph.vertices(),
            edges: graph.edge_count(),
            minimax: checks.minimax,
            engines: checks.engines,
            pairs,
        })
    }
}

/// Sweeps `graphs` in one batch (lines numbered from 1) and reports.
pub fn sweep(graphs: &[Graph], opts: &VertexSweepOptions) -> Result<VertexSweepReport> {
    let mut s = VertexSweep::new(opts.clone());
    let numbered: Vec<(u64, Graph)> = graphs
        .iter()
        .enumerate()
        .map(|(i, g)| (i as u64 + 1, g.clone()))
        .collect();
    s.add("graphs", &numbered, None)?;
    Ok(s.report())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::oracle::graphs::connected_graphs;

    fn quiet() -> VertexSweepOptions {
        VertexSweepOptions {
            engine_sample: 1,
            minimax_all_to: 9,
            minimax_sample: 1,
            max_memory: 1 << 30,
            corrupt: None,
        }
    }

    #[test]
    fn small_graphs_agree_and_every_position_is_compared() {
        let graphs: Vec<Graph> = (1..=4).flat_map(|k| connected_graphs(k).unwrap()).collect();
        let r = sweep(&graphs, &quiet()).unwrap();
        assert_eq!(r.total.disagreements, 0, "{:?}", r.disagreeing);
        let want: u64 = graphs
            .iter()
            .map(|g| {
                g.terminal_pairs().len() as u64
                    * 2
                    * 3u64.pow((g.vertices() as u32).saturating_sub(2))
            })
            .sum();
        assert_eq!(r.total.positions_checked, want);
        assert_eq!(r.total.engine_positions, want);
        // Two vertices: the edge joins the terminals, Short's before a move; the edge game on
        // one edge is the first player's.
        assert_eq!([r.rows[1].short, r.rows[1].edge_first], [1, 1]);
    }

    #[test]
    fn a_wrong_table_value_is_caught_and_named() {
        // The path 0-1-2 with terminals 0 and 2: the middle vertex decides. "L/R" is a loss for
        // Cut (Short has joined); flipped to a win, the minimax must object.
        let p3 = Graph::from_graph6("Bg").unwrap();
        let opts = VertexSweepOptions {
            corrupt: Some(Corruption::parse("Bg:0:2:L/R").unwrap()),
            engine_sample: 0,
            ..quiet()
        };
        let r = sweep(std::slice::from_ref(&p3), &opts).unwrap();
        assert_eq!(r.total.disagreements, 1);
        assert_eq!(r.disagreeing_pairs, 1);
        let d = &r.disagreeing[0];
        assert_eq!((d.graph6.as_str(), d.a, d.b), ("Bg", 0, 2));
        assert_eq!(d.examples, ["L/R: table Some(Win), minimax loss"]);
        // The empty position flipped changes the class too: two disagreements.
        let opts = VertexSweepOptions {
            corrupt: Some(Corruption::parse("Bg:0:2:./L").unwrap()),
            ..opts
        };
        let r = sweep(&[p3], &opts).unwrap();
        assert_eq!(r.total.disagreements, 2, "{:?}", r.disagreeing);
    }

    #[test]
    fn refused_graphs_are_named_by_line() {
        let two_edges = Graph::from_edges(4, &[(0, 1), (2, 3)]).unwrap();
        let k3 = Graph::from_graph6("Bw").unwrap();
        let e = sweep(&[k3, two_edges], &quiet()).unwrap_err().to_string();
        assert!(e.starts_with("graphs:2: graph C"), "{e}");
        assert!(e.contains("not connected"), "{e}");
        assert!(Corruption::parse("Bg:0:x:./L").is_err());
    }
}
