//! The vertex-game census: solve the Shannon switching game on vertices (`shannon-vertex:`) on
//! many small connected graphs, for every terminal pair up to the graph's automorphisms, and
//! compare every position of every table with a memoised minimax ([`super::vertex`]); beside it,
//! the edge version's class of the same pair by Lehman's criterion ([`super::lehman`]).
//!
//! Each (graph, pair) becomes a `shannon-vertex:` game read from graph-file text held in memory
//! ([`super::sweep::shannon_file`]) and solved by the tiered engine into heap cells. On a sample
//! of graphs ([`VertexSweepOptions::engine_sample`]) the counter engine solves the same game and
//! the two tables are compared position by position.
//!
//! Positions are read through the game's notation: for each cell count the text of every
//! position (the minimax's base-3 codes written as `.LR` texts with `/L` or `/R`) is parsed by
//! the first game with that many cells, and the indices it gives — checked to be a bijection onto
//! the table's positions — are where every later table of that cell count is read. (The plain
//! index of a cell game depends only on its cell count; each table re-parses the texts of its two
//! empty positions and one other, and a different answer is a disagreement.)
//!
//! Graphs come in batches ([`VertexSweep::add`]), checked in parallel and reported in input
//! order, so `--list` output is the same for any thread count.
//!
//! The invariant: no answer is taken from the tables without the minimax's value for the same
//! position beside it; a pair counts as checked only when all `2 * 3^cells` positions were.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use super::graphs::Graph;
use super::lehman::{Class, EdgeGame, Player};
use super::sweep::shannon_file;
use super::vertex::{self, Minimax, VertexGame};
use crate::base::cells::{self, Cells};
use crate::base::splitmix;
use crate::error::{Error, OracleError, Result};
use crate::game::{Game, Notation, Status};
use crate::games::{AnyGame, Input};
use crate::solve::{SolveOptions, tiered};

mod compare;

use compare::{Notes, against_counter, against_minimax, check_texts, flip};

/// The most vertices the census takes: the terminals and the minimax's most cells.
pub const MAX_VERTICES: usize = vertex::MAX_CELLS + 2;

/// Disagreeing pairs kept in the report (all are counted).
const KEPT_DISAGREEMENTS: usize = 20;

/// Disagreement examples kept per pair.
const EXAMPLES: usize = 5;

/// What to compare.
#[derive(Clone, Debug)]
pub struct VertexSweepOptions {
    /// Solve with the counter engine too, and compare its table with the tiered engine's at every
    /// position, on the graphs whose graph6 text hashes to 0 modulo this (1: every graph; 0: none).
    pub engine_sample: u64,
    /// Bytes one game may use.
    pub max_memory: u64,
    /// A deliberate fault, for tests: this table value is flipped before the comparisons.
    pub corrupt: Option<Corruption>,
}

impl Default for VertexSweepOptions {
    fn default() -> Self {
        VertexSweepOptions {
            engine_sample: 64,
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
            Error::Oracle(OracleError::Corruption {
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

/// The counts for one vertex count (or for all, in [`VertexSweepReport::total`]).
#[derive(Clone, Debug, Default, Serialize)]
pub struct VertexRow {
    pub vertices: usize,
    pub graphs: u64,
    pub terminal_pairs: u64,
    /// Pairs by the vertex game's class (the tables').
    pub short: u64,
    pub cut: u64,
    pub first: u64,
    /// Pairs by the edge game's class (Lehman's criterion).
    pub edge_short: u64,
    pub edge_cut: u64,
    pub edge_first: u64,
    /// Pairs whose two classes differ.
    pub classes_differ: u64,
    /// Positions compared with the minimax (either player to move).
    pub positions_checked: u64,
    /// Graphs, and positions, where the counter engine's table was compared with the tiered one's.
    pub engine_graphs: u64,
    pub engine_positions: u64,
    pub disagreements: u64,
}

impl VertexRow {
    fn add(&mut self, r: &VertexRow) {
        self.graphs += r.graphs;
        self.terminal_pairs += r.terminal_pairs;
        self.short += r.short;
        self.cut += r.cut;
        self.first += r.first;
        self.edge_short += r.edge_short;
        self.edge_cut += r.edge_cut;
        self.edge_first += r.edge_first;
        self.classes_differ += r.classes_differ;
        self.positions_checked += r.positions_checked;
        self.engine_graphs += r.engine_graphs;
        self.engine_positions += r.engine_positions;
        self.disagreements += r.disagreements;
    }
}

/// A graph and terminal pair, as an example.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Example {
    pub vertices: usize,
    pub edges: usize,
    pub graph6: String,
    pub a: usize,
    pub b: usize,
}

/// The pairs with one vertex-game class and one edge-game class.
#[derive(Clone, Debug, Serialize)]
pub struct Crossing {
    pub vertex: Class,
    pub edge: Class,
    pub pairs: u64,
    /// The smallest such pair (fewest vertices, then edges, then graph6 text, then terminals).
    pub smallest: Option<Example>,
    /// The smallest such pair whose terminals are not adjacent (adjacent terminals are Short's
    /// in the vertex game before any move).
    pub smallest_apart: Option<Example>,
}

/// A pair whose table disagreed with the minimax (or the engines with each other).
#[derive(Clone, Debug, Serialize)]
pub struct Disagreement {
    pub graph6: String,
    pub a: usize,
    pub b: usize,
    pub table_class: Option<Class>,
    pub minimax_class: Option<Class>,
    pub disagreements: u64,
    /// The first few: `position: table VALUE, minimax VALUE` and the like.
    pub examples: Vec<String>,
}

/// Everything a census found.
#[derive(Clone, Debug, Serialize)]
pub struct VertexSweepReport {
    pub rows: Vec<VertexRow>,
    pub total: VertexRow,
    /// Pairs by (vertex class, edge class), all nine combinations.
    pub crossings: Vec<Crossing>,
    /// The first disagreeing pairs, in input order.
    pub disagreeing: Vec<Disagreement>,
    pub disagreeing_pairs: u64,
    pub engine_sample: u64,
    pub seconds: f64,
}

/// One pair's results.
#[derive(Clone, Debug)]
struct PairOutcome {
    a: usize,
    b: usize,
    adjacent: bool,
    table_class: Option<Class>,
    minimax_class: Option<Class>,
    edge_class: Class,
    positions: u64,
    engine_positions: u64,
    disagreements: u64,
    examples: Vec<String>,
}

/// One graph's results.
struct GraphOutcome {
    graph6: String,
    vertices: usize,
    edges: usize,
    engines: bool,
    pairs: Vec<PairOutcome>,
}

/// Where each position of a table with `cells` cells is, as the game's notation says: per
/// minimax code, the index with Short to move and with Cut to move.
struct IndexMap {
    at: Vec<[u64; 2]>,
}

/// The census in progress: feed it batches of graphs, then take the report.
pub struct VertexSweep {
    opts: VertexSweepOptions,
    rows: BTreeMap<usize, VertexRow>,
    crossings: Vec<Crossing>,
    disagreeing: Vec<Disagreement>,
    disagreeing_pairs: u64,
    maps: Mutex<HashMap<usize, Arc<IndexMap>>>,
    started: Instant,
}

const MOVERS: [Player; 2] = [Player::Short, Player::Cut];

fn class_index(c: Class) -> usize {
    match c {
        Class::Short => 0,
        Class::Cut => 1,
        Class::First => 2,
    }
}

impl VertexSweep {
    pub fn new(opts: VertexSweepOptions) -> VertexSweep {
        let crossings = Class::ALL
            .iter()
            .flat_map(|&vertex| {
                Class::ALL.iter().map(move |&edge| Crossing {
                    vertex,
                    edge,
                    pairs: 0,
                    smallest: None,
                    smallest_apart: None,
                })
            })
            .collect();
        VertexSweep {
            opts,
            rows: BTreeMap::new(),
            crossings,
            disagreeing: Vec::new(),
            disagreeing_pairs: 0,
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
                });
            }
        }
        let outcomes: Vec<GraphOutcome> = graphs
            .par_iter()
            .map(|(_, g)| self.check_graph(g))
            .collect::<Result<_>>()?;
        let mut lines = String::new();
        for o in outcomes {
            self.record(o, &mut lines);
        }
        if let Some(w) = list {
            w.write_all(lines.as_bytes())
                .map_err(|e| Error::io("the --list file", e))?;
        }
        Ok(())
    }

    /// Counts one graph's pairs and appends their `--list` lines to `lines`.
    fn record(&mut self, o: GraphOutcome, lines: &mut String) {
        let row = self.rows.entry(o.vertices).or_insert_with(|| VertexRow {
            vertices: o.vertices,
            ..VertexRow::default()
        });
        row.graphs += 1;
        row.engine_graphs += o.engines as u64;
        for p in &o.pairs {
            row.terminal_pairs += 1;
            match p.table_class {
                Some(Class::Short) => row.short += 1,
                Some(Class::Cut) => row.cut += 1,
                Some(Class::First) => row.first += 1,
                None => {}
            }
            match p.edge_class {
                Class::Short => row.edge_short += 1,
                Class::Cut => row.edge_cut += 1,
                Class::First => row.edge_first += 1,
            }
            row.positions_checked += p.positions;
            row.engine_positions += p.engine_positions;
            row.disagreements += p.disagreements;
            if let Some(vc) = p.table_class {
                row.classes_differ += (vc != p.edge_class) as u64;
                let c = &mut self.crossings[3 * class_index(vc) + class_index(p.edge_class)];
                c.pairs += 1;
                let ex = Example {
                    vertices: o.vertices,
                    edges: o.edges,
                    graph6: o.graph6.clone(),
                    a: p.a,
                    b: p.b,
                };
                if c.smallest.as_ref().is_none_or(|s| ex < *s) {
                    c.smallest = Some(ex.clone());
                }
                if !p.adjacent && c.smallest_apart.as_ref().is_none_or(|s| ex < *s) {
                    c.smallest_apart = Some(ex);
                }
            }
            if p.disagreements > 0 {
                self.disagreeing_pairs += 1;
                if self.disagreeing.len() < KEPT_DISAGREEMENTS {
                    self.disagreeing.push(Disagreement {
                        graph6: o.graph6.clone(),
                        a: p.a,
                        b: p.b,
                        table_class: p.table_class,
                        minimax_class: p.minimax_class,
                        disagreements: p.disagreements,
                        examples: p.examples.clone(),
                    });
                }
            }
            let class = |c: Option<Class>| c.map_or("none", Class::as_str);
            lines.push_str(&format!(
                "{} {} {} {} {}\n",
                o.graph6,
                p.a,
                p.b,
                class(p.table_class),
                p.edge_class
            ));
        }
    }

    /// The report of everything added so far.
    pub fn report(self) -> VertexSweepReport {
        let rows: Vec<VertexRow> = self.rows.into_values().collect();
        let mut total = VertexRow {
            vertices: rows.last().map_or(0, |r| r.vertices),
            ..VertexRow::default()
        };
        for r in &rows {
            total.add(r);
        }
        VertexSweepReport {
            rows,
            total,
            crossings: self.crossings,
            disagreeing: self.disagreeing,
            disagreeing_pairs: self.disagreeing_pairs,
            engine_sample: self.opts.engine_sample,
            seconds: self.started.elapsed().as_secs_f64(),
        }
    }

    fn check_graph(&self, graph: &Graph) -> Result<GraphOutcome> {
        let graph6 = graph.to_graph6();
        let engines = match self.opts.engine_sample {
            0 => false,
            k => splitmix::hash(
                graph6
                    .bytes()
                    .fold(0u64, |h, c| h.wrapping_mul(0x100_0000_01b3) ^ c as u64),
            )
            .is_multiple_of(k),
        };
        let pairs = graph
            .terminal_pairs()
            .into_iter()
            .map(|(a, b)| self.check_pair(graph, &graph6, a, b, engines))
            .collect::<Result<_>>()?;
        Ok(GraphOutcome {
            graph6,
            vertices: graph.vertices(),
            edges: graph.edge_count(),
            engines,
            pairs,
        })
    }

    /// The index map for games of `cells` cells, built through `game`'s notation the first time.
    fn index_map<G: Notation>(&self, game: &G, minimax: &Minimax) -> Result<Arc<IndexMap>> {
        let mut maps = self.maps.lock().expect("no thread panics holding the maps");
        if let Some(m) = maps.get(&minimax.cells()) {
            return Ok(m.clone());
        }
        let size = game.size();
        let mut seen = vec![false; size as usize];
        let mut at = Vec::with_capacity(minimax.codes());
        for code in 0..minimax.codes() {
            let mut both = [0u64; 2];
            for (slot, mover) in both.iter_mut().zip(MOVERS) {
                let text = minimax.text(code, mover);
                let pos = game.parse_position(&text)?;
                if pos >= size || std::mem::replace(&mut seen[pos as usize], true) {
                    return Err(OracleError::IndexClash {
                        spec: game.spec(),
                        position: text,
                        index: pos,
                    }
                    .into());
                }
                *slot = pos;
            }
            at.push(both);
        }
        if let Some(pos) =
            (0..size).find(|&p| !seen[p as usize] && game.status(p) != Status::Unused)
        {
            return Err(OracleError::Unreached {
                spec: game.spec(),
                index: pos,
            }
            .into());
        }
        let map = Arc::new(IndexMap { at });
        maps.insert(minimax.cells(), map.clone());
        Ok(map)
    }

    /// Solves the vertex game on `graph` with terminals `a`, `b` and compares every position with
    /// the minimax (and, if `engines`, the counter engine's table with the tiered one's).
    fn check_pair(
        &self,
        graph: &Graph,
        graph6: &str,
        a: usize,
        b: usize,
        engines: bool,
    ) -> Result<PairOutcome> {
        let named = |reason: String| OracleError::Pair {
            graph6: graph6.to_string(),
            a,
            b,
            reason,
        };
        let minimax = VertexGame::new(graph, a, b)
            .map_err(|e| named(e.to_string()))?
            .solve();
        let edge_class = EdgeGame::new(graph.vertices(), graph.edges(), a, b)
            .map_err(|e| named(e.to_string()))?
            .class();
        let text = shannon_file(graph, a, b);
        let spec = format!("shannon-vertex:sweep/{graph6}-{a}-{b}.txt");
        let game = AnyGame::load(
            &spec,
            Input::Embedded(text.as_bytes()),
            self.opts.max_memory,
        )?;
        crate::with_tiered_game!(&game, g => {
            let size = g.size();
            if let Some(why) = tiered::unsupported(g) {
                return Err(OracleError::Unsupported {
                    spec,
                    reason: why.to_string(),
                }
                .into());
            }
            let words = cells::zeroed_words(cells::words_for(size));
            let table = Cells::new(&words, size);
            tiered::solve(g, &table, &SolveOptions::default())?;
            let mut values: Vec<u8> = (0..size).map(|p| table.get(p)).collect();
            let map = self.index_map(g, &minimax)?;
            let mut notes = Notes::default();
            let other = (splitmix::hash(size ^ (a as u64) << 32 ^ b as u64) % minimax.codes() as u64) as usize;
            check_texts(g, &minimax, &map, other, &mut notes)?;
            if let Some(c) = &self.opts.corrupt
                && (c.graph6.as_str(), c.a, c.b) == (graph6, a, b)
            {
                flip(g, &c.position, &mut values)?;
            }
            let (positions, table_class) = against_minimax(&values, &map, &minimax, &mut notes);
            let engine_positions = if engines {
                against_counter(g, &values, &mut notes)
            } else {
                0
            };
            Ok(PairOutcome {
                a,
                b,
                adjacent: graph.has_edge(a, b),
                table_class,
                minimax_class: minimax.class(),
                edge_class,
                positions,
                engine_positions,
                disagreements: notes.disagreements,
                examples: notes.examples,
            })
        }, _ => unreachable!("a shannon-vertex: game is a cell game"))
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
