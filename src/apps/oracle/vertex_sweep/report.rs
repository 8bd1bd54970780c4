//! What the vertex census counts and how counts add up: the rows per vertex count, the pairs of
//! each (vertex class, edge class) with their smallest examples, and the disagreeing pairs. One
//! graph's outcome is recorded into a [`Tally`]; the tallies of the pieces of a census merge into
//! the tally of the whole ([`Tally::merge`]).
//!
//! The invariant: a tally is a sum. Merging the tallies of any split of the graphs gives the
//! tally of all of them — the rows' counts add and a crossing's smallest example is the smaller
//! of the two; only which disagreeing pairs are kept as examples depends on the order.

use serde::{Deserialize, Serialize};

use super::{KEPT_DISAGREEMENTS, LinesDigest};
use crate::apps::oracle::lehman::Class;

/// The counts for one vertex count (or for all, in [`VertexSweepReport::total`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
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
    /// Graphs whose tables were compared with the minimax at every position.
    pub minimax_graphs: u64,
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
        self.minimax_graphs += r.minimax_graphs;
        self.positions_checked += r.positions_checked;
        self.engine_graphs += r.engine_graphs;
        self.engine_positions += r.engine_positions;
        self.disagreements += r.disagreements;
    }
}

/// A graph and terminal pair, as an example.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Example {
    pub vertices: usize,
    pub edges: usize,
    pub graph6: String,
    pub a: usize,
    pub b: usize,
}

/// The pairs with one vertex-game class and one edge-game class.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    pub minimax_sample: u64,
    pub minimax_all_to: usize,
    /// The graphs read (as graph6 lines) and the `--list` lines, counted and hashed (`None`
    /// for pieces merged, whose digests are the pieces').
    pub input: Option<LinesDigest>,
    pub list: Option<LinesDigest>,
    pub seconds: f64,
}

/// One pair's results.
#[derive(Clone, Debug)]
pub(super) struct PairOutcome {
    pub a: usize,
    pub b: usize,
    pub adjacent: bool,
    pub table_class: Option<Class>,
    pub minimax_class: Option<Class>,
    pub edge_class: Class,
    pub positions: u64,
    pub engine_positions: u64,
    pub disagreements: u64,
    pub examples: Vec<String>,
}

/// One graph's results.
pub(super) struct GraphOutcome {
    pub graph6: String,
    pub vertices: usize,
    pub edges: usize,
    pub minimax: bool,
    pub engines: bool,
    pub pairs: Vec<PairOutcome>,
}

/// The counts of a census or of a piece of one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// By vertex count, increasing.
    pub rows: Vec<VertexRow>,
    /// All nine (vertex class, edge class) combinations, in [`Class::ALL`] order of each.
    pub crossings: Vec<Crossing>,
    /// The first `KEPT_DISAGREEMENTS` (20) disagreeing pairs.
    pub disagreeing: Vec<Disagreement>,
    pub disagreeing_pairs: u64,
}

fn class_index(c: Class) -> usize {
    match c {
        Class::Short => 0,
        Class::Cut => 1,
        Class::First => 2,
    }
}

/// The smaller of `kept` and `new` into `kept`.
fn keep_smaller(kept: &mut Option<Example>, new: &Example) {
    if kept.as_ref().is_none_or(|s| new < s) {
        *kept = Some(new.clone());
    }
}

impl Default for Tally {
    fn default() -> Self {
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
        Tally {
            rows: Vec::new(),
            crossings,
            disagreeing: Vec::new(),
            disagreeing_pairs: 0,
        }
    }
}

impl Tally {
    /// The row of `vertices`, made if new (the rows stay in increasing order).
    fn row(&mut self, vertices: usize) -> &mut VertexRow {
        let at = match self.rows.binary_search_by_key(&vertices, |r| r.vertices) {
            Ok(at) => at,
            Err(at) => {
                let row = VertexRow {
                    vertices,
                    ..VertexRow::default()
                };
                self.rows.insert(at, row);
                at
            }
        };
        &mut self.rows[at]
    }

    fn keep(&mut self, d: Disagreement) {
        self.disagreeing_pairs += 1;
        if self.disagreeing.len() < KEPT_DISAGREEMENTS {
            self.disagreeing.push(d);
        }
    }

    /// Counts one graph's pairs and appends their `--list` lines to `lines`.
    pub(super) fn record(&mut self, o: &GraphOutcome, lines: &mut String) {
        let row = self.row(o.vertices);
        row.graphs += 1;
        row.minimax_graphs += o.minimax as u64;
        row.engine_graphs += o.engines as u64;
        for p in &o.pairs {
            let row = self.row(o.vertices);
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
                if !p.adjacent {
                    keep_smaller(&mut c.smallest_apart, &ex);
                }
                keep_smaller(&mut c.smallest, &ex);
            }
            if p.disagreements > 0 {
                self.keep(Disagreement {
                    graph6: o.graph6.clone(),
                    a: p.a,
                    b: p.b,
                    table_class: p.table_class,
                    minimax_class: p.minimax_class,
                    disagreements: p.disagreements,
                    examples: p.examples.clone(),
                });
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

    /// Adds `other`'s counts to these (its disagreeing pairs after these ones).
    pub fn merge(&mut self, other: &Tally) {
        for r in &other.rows {
            self.row(r.vertices).add(r);
        }
        for (c, o) in self.crossings.iter_mut().zip(&other.crossings) {
            debug_assert_eq!((c.vertex, c.edge), (o.vertex, o.edge));
            c.pairs += o.pairs;
            if let Some(ex) = &o.smallest {
                keep_smaller(&mut c.smallest, ex);
            }
            if let Some(ex) = &o.smallest_apart {
                keep_smaller(&mut c.smallest_apart, ex);
            }
        }
        let before = self.disagreeing_pairs;
        for d in &other.disagreeing {
            self.keep(d.clone());
        }
        self.disagreeing_pairs = before + other.disagreeing_pairs;
    }

    /// The sum of the rows (labelled with the largest vertex count).
    pub fn total(&self) -> VertexRow {
        let mut total = VertexRow {
            vertices: self.rows.last().map_or(0, |r| r.vertices),
            ..VertexRow::default()
        };
        for r in &self.rows {
            total.add(r);
        }
        total
    }

    /// Whether the crossings are the nine combinations in order (a piece file's are read back).
    pub fn crossings_in_order(&self) -> bool {
        self.crossings.len() == 9
            && self
                .crossings
                .iter()
                .enumerate()
                .all(|(i, c)| (class_index(c.vertex), class_index(c.edge)) == (i / 3, i % 3))
    }
}
