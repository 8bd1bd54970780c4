//! The Shannon sweep: solve the edge game on many small graphs, for every terminal pair up to the
//! graph's automorphisms, and compare each table with Lehman's criterion.
//!
//! Each (graph, terminal pair) becomes a `shannon:` game built from graph-file text held in memory
//! (edges in [`Graph::edges`] order, so cell `i` is edge `i`), solved by the tiered engine (the
//! bit-parallel step: a Shannon game is a plain board) into heap cells. The table's class comes
//! from the empty position with Left (Short) and with Right (Cut) to move. Lehman's answer is
//! compared with the table's on the empty position always, on every position when the graph has
//! at most [`SweepOptions::all_positions_max_edges`] edges, and on
//! [`SweepOptions::random_positions`] random positions of larger tables. Small tables run in
//! parallel, large ones one at a time with every thread.
//!
//! The invariant: the sweep reads the table only through the game's public notation (position
//! text in, value out), so it checks the game's indexing along with the solver.

use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use super::graphs::Graph;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::lehman::{Claim, Class, EdgeGame, EdgeGameError, Player, Workspace, mover_value};
use crate::apps::error::{AppError, OracleError, Result};
use crate::base::cells::{self, Cells};
use crate::base::splitmix;
use crate::game::{Game, Notation, Status, Value};
use crate::games::{AnyGame, Input};
use crate::solve::{self, SolveOptions, tiered};

/// What to compare.
#[derive(Clone, Debug)]
pub struct SweepOptions {
    /// Compare every position of tables of graphs with at most this many edges.
    pub all_positions_max_edges: usize,
    /// Positions drawn at random and compared in each larger table (besides the empty ones).
    pub random_positions: usize,
    /// Bytes one solve may use; a graph whose table would need more is refused before any work.
    pub max_memory: u64,
}

impl Default for SweepOptions {
    fn default() -> Self {
        SweepOptions {
            all_positions_max_edges: 12,
            random_positions: 10_000,
            max_memory: crate::base::memory::default_limit(),
        }
    }
}

/// Graphs with more edges than this are solved one at a time (a table of `2 * 3^14` positions
/// is 2.4 MB of cells; one of 21 edges is 5.2 GB).
const ONE_AT_A_TIME_EDGES: usize = 14;

/// An edge's claim by base-3 digit, and its letter in position text.
const CLAIMS: [(Claim, char); 3] = [(Claim::Free, '.'), (Claim::Short, 'L'), (Claim::Cut, 'R')];

/// Disagreement examples kept per terminal pair (and by `verify --lehman`).
pub(super) const EXAMPLES: usize = 5;

/// Positions compared, disagreements, and up to [`EXAMPLES`] of them.
pub(super) type Tally = (u64, u64, Vec<String>);

/// Two tallies as one (for `try_reduce`), keeping the first [`EXAMPLES`] examples.
pub(super) fn add_tallies(x: Tally, y: Tally) -> Result<Tally> {
    let mut examples = x.2;
    examples.extend(y.2);
    examples.truncate(EXAMPLES);
    Ok((x.0 + y.0, x.1 + y.1, examples))
}

/// One graph with one terminal pair, solved and compared.
#[derive(Clone, Debug, Serialize)]
pub struct PairResult {
    pub graph6: String,
    pub vertices: usize,
    pub edges: usize,
    pub a: usize,
    pub b: usize,
    /// The class the table gives; `None` if its empty-position values fit no class.
    pub table_class: Option<Class>,
    pub lehman_class: Class,
    /// Positions whose table value was compared with Lehman's.
    pub positions_checked: u64,
    pub disagreements: u64,
    /// The first few disagreements: `position: table VALUE, lehman VALUE`.
    pub examples: Vec<String>,
}

/// The counts for one vertex count (or for all, in [`SweepReport::total`]).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Row {
    pub vertices: usize,
    pub graphs: usize,
    pub terminal_pairs: usize,
    /// Pairs by the table's class.
    pub short: usize,
    pub cut: usize,
    pub first: usize,
    pub positions_checked: u64,
    pub disagreements: u64,
}

/// Everything a sweep found.
#[derive(Clone, Debug, Serialize)]
pub struct SweepReport {
    pub rows: Vec<Row>,
    pub total: Row,
    /// The pairs with a disagreement (all of them, each with a few examples).
    pub disagreeing: Vec<PairResult>,
    pub all_positions_max_edges: usize,
    pub seconds: f64,
}

/// The `shannon:` graph-file text for `graph` with terminals `a` and `b`.
pub fn shannon_file(graph: &Graph, a: usize, b: usize) -> String {
    use std::fmt::Write;
    let mut text = format!("# graph6 {}\n", graph.to_graph6());
    // Written in place (a census writes one for every pair of millions of graphs).
    for (u, v) in graph.edges() {
        writeln!(text, "{u} {v}").expect("a String takes any text");
    }
    writeln!(text, "terminals {a} {b}").expect("a String takes any text");
    text
}

/// Reads a cell-game position text (`.LR` per edge, optional `/L` or `/R`) into claims and the
/// mover; without a suffix the mover follows from alternation with Left first.
pub fn parse_position(text: &str, edges: usize) -> Result<(Vec<Claim>, Player)> {
    let bad = |msg: &str| AppError::from(crate::game::PositionError::new(text, msg));
    let (cells_text, mover) = match text.split_once('/') {
        Some((c, "L")) => (c, Some(Player::Short)),
        Some((c, "R")) => (c, Some(Player::Cut)),
        Some(_) => return Err(bad("the mover suffix must be /L or /R")),
        None => (text, None),
    };
    let claims = cells_text
        .chars()
        .map(|c| match c {
            '.' => Ok(Claim::Free),
            'L' => Ok(Claim::Short),
            'R' => Ok(Claim::Cut),
            _ => Err(bad("cells must be '.', 'L' or 'R'")),
        })
        .collect::<Result<Vec<_>>>()?;
    if claims.len() != edges {
        return Err(bad(&format!("expected {edges} cells")));
    }
    let mover = mover.unwrap_or_else(|| {
        let l = claims.iter().filter(|&&c| c == Claim::Short).count();
        let r = claims.iter().filter(|&&c| c == Claim::Cut).count();
        if l > r { Player::Cut } else { Player::Short }
    });
    Ok((claims, mover))
}

/// Table size of the Shannon game on `edges` edges (every configuration, either mover),
/// saturating.
fn shannon_positions(edges: usize) -> u64 {
    3u64.saturating_pow(edges as u32).saturating_mul(2)
}

/// Refuses, before any work, graphs whose tables would not fit the memory limit.
pub fn check_memory(graphs: &[Graph], opts: &SweepOptions) -> Result<()> {
    if let Some(g) = graphs.iter().max_by_key(|g| g.edge_count()) {
        let m = g.edge_count();
        let size = shannon_positions(m);
        // The tiered engine's: the cells and the loss planes of a plain board.
        let need = size
            .div_ceil(4)
            .saturating_add(solve::plan::plain_board_planes(m as u32))
            .saturating_add(solve::PROCESS_BYTES);
        crate::base::memory::check(
            format!(
                "the Shannon table of graph {} ({m} edges, {size} positions)",
                g.to_graph6()
            ),
            need,
            opts.max_memory,
        )?;
    }
    Ok(())
}

/// The error of a position of `spec` the edge game refuses.
pub(crate) fn oracle_refused(spec: &str, position: &str, e: EdgeGameError) -> AppError {
    AppError::Oracle(OracleError::Position {
        spec: spec.to_string(),
        position: position.to_string(),
        reason: e.to_string(),
    })
}

/// Solves the Shannon game on `graph` with terminals `a`, `b` and compares it with Lehman.
pub fn check_pair(graph: &Graph, a: usize, b: usize, opts: &SweepOptions) -> Result<PairResult> {
    let graph6 = graph.to_graph6();
    let edges = graph.edges();
    let m = edges.len();
    let oracle = EdgeGame::new(graph.vertices(), edges, a, b).map_err(|e| OracleError::Pair {
        graph6: graph6.clone(),
        a,
        b,
        reason: e.to_string(),
    })?;
    let text = shannon_file(graph, a, b);
    let spec = format!("shannon:sweep/{graph6}-{a}-{b}.txt");
    let game = AnyGame::load(&spec, Input::Embedded(text.as_bytes()), opts.max_memory)?;
    let need = solve::Engine::Tiered.memory_estimate(&game, false);
    crate::with_tiered_game!(&game, g => {
        let size = g.size();
        crate::base::memory::check(
            format!("solving {spec} ({size} positions)"),
            need,
            opts.max_memory,
        )?;
        let words = cells::zeroed_words(cells::words_for(size));
        let table = Cells::new(&words, size);
        if let Some(why) = tiered::unsupported(g) {
            return Err(OracleError::Unsupported {
                spec,
                reason: why.to_string(),
            }
            .into());
        }
        tiered::solve(g, &table, &SolveOptions::default())?;
        let compare = Compare { game: g, table: &table, oracle: &oracle, spec: &spec, m };
        let (empty, table_class, lehman_class) = compare.empty_positions()?;
        let rest = if m <= opts.all_positions_max_edges {
            // Every position, the two empty ones among them: those are counted once.
            let (checked, bad, found) = compare.every_position()?;
            (checked - empty.0, bad, found)
        } else {
            compare.random_positions(pair_seed(&graph6, a, b), opts.random_positions)?
        };
        let (positions_checked, disagreements, examples) = add_tallies(empty, rest)?;
        Ok(PairResult {
            graph6,
            vertices: graph.vertices(),
            edges: m,
            a,
            b,
            table_class,
            lehman_class,
            positions_checked,
            disagreements,
            examples,
        })
    }, _ => unreachable!("a shannon: game is a cell game"))
}

/// The seed of a pair's random positions: the same ones on every run.
fn pair_seed(graph6: &str, a: usize, b: usize) -> u64 {
    graph6.bytes().fold(a as u64 * 31 + b as u64, |h, c| {
        h.wrapping_mul(0x100_0000_01b3) ^ c as u64
    })
}

/// One pair's solved table beside Lehman's oracle: what each comparison reads.
struct Compare<'a, G> {
    game: &'a G,
    table: &'a Cells<'a>,
    oracle: &'a EdgeGame,
    spec: &'a str,
    /// The graph's edges: the cells of a position text.
    m: usize,
}

impl<G: Notation> Compare<'_, G> {
    /// Lehman's value of a position text.
    fn oracle_value(&self, text: &str) -> Result<Value> {
        let (claims, mover) = parse_position(text, self.m)?;
        self.oracle
            .value(&claims, mover)
            .map_err(|e| oracle_refused(self.spec, text, e))
    }

    /// The table's value at `pos`; `None` for an undecided cell.
    fn table_value(&self, pos: u64) -> Option<Value> {
        cells::value(self.table.get(pos))
    }

    /// The empty position with each mover, and the class the two give: the tally, the table's
    /// class and Lehman's.
    fn empty_positions(&self) -> Result<(Tally, Option<Class>, Class)> {
        let empty = ".".repeat(self.m);
        let mut examples = Vec::new();
        let mut disagreements = 0u64;
        let mut empty_values = Vec::new();
        for suffix in ["/L", "/R"] {
            let text = format!("{empty}{suffix}");
            let pos = self.game.parse_position(&text)?;
            let want = self.oracle_value(&text)?;
            let got = self.table_value(pos);
            if got != Some(want) {
                disagreements += 1;
                examples.push(format!("{text}: table {got:?}, lehman {want}"));
            }
            empty_values.push(got.unwrap_or(Value::Draw));
        }
        let table_class = Class::from_values(empty_values[0], empty_values[1]);
        let lehman_class = self.oracle.class();
        if table_class != Some(lehman_class) {
            disagreements += 1;
            examples.push(format!(
                "empty position class: table {table_class:?}, lehman {lehman_class}"
            ));
        }
        Ok(((2, disagreements, examples), table_class, lehman_class))
    }

    /// Every configuration of the edges, both movers: the position text is written from the
    /// claims, Lehman's outcome computed once for both movers, and the table read at the index
    /// the game parses from the text. Also checks that the texts reach every index in use, each
    /// once.
    fn every_position(&self) -> Result<Tally> {
        let (game, m, size) = (self.game, self.m, self.game.size());
        let marks: Vec<AtomicU64> = (0..size.div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
        let (checked, bad, mut found) = (0..3u64.pow(m as u32))
            .into_par_iter()
            .map_init(
                || (Workspace::default(), vec![Claim::Free; m], String::new()),
                |(ws, claims, text), code| -> Result<Tally> {
                    let mut c = code;
                    text.clear();
                    for slot in claims.iter_mut() {
                        let (claim, ch) = CLAIMS[(c % 3) as usize];
                        *slot = claim;
                        text.push(ch);
                        c /= 3;
                    }
                    let outcome = self
                        .oracle
                        .outcome(claims, ws)
                        .map_err(|e| oracle_refused(self.spec, text, e))?;
                    let mut tally = Tally::default();
                    for (suffix, mover) in [("/L", Player::Short), ("/R", Player::Cut)] {
                        text.truncate(m);
                        text.push_str(suffix);
                        let pos = game.parse_position(text)?;
                        marks[(pos / 64) as usize].fetch_or(1 << (pos % 64), Relaxed);
                        let want = mover_value(outcome, mover);
                        let got = self.table_value(pos);
                        tally.0 += 1;
                        if got != Some(want) {
                            tally.1 += 1;
                            tally
                                .2
                                .push(format!("{text}: table {got:?}, lehman {want}"));
                        }
                    }
                    Ok(tally)
                },
            )
            .try_reduce(Tally::default, add_tallies)?;
        // The texts reached distinct indices, and every index in use: the index is a
        // bijection between positions and the table's used indices.
        let marked: u64 = marks
            .iter()
            .map(|w| u64::from(w.load(Relaxed).count_ones()))
            .sum();
        let missed = (0..size)
            .into_par_iter()
            .filter(|&pos| {
                marks[(pos / 64) as usize].load(Relaxed) & (1 << (pos % 64)) == 0
                    && game.status(pos) != Status::Unused
            })
            .count();
        let mut tally = (checked, bad, Vec::new());
        if marked != checked || missed > 0 {
            tally.1 += 1;
            tally.2.push(format!(
                "the index: {checked} position texts reached {marked} distinct indices, and \
                 {missed} indices in use were not reached"
            ));
        }
        tally.2.append(&mut found);
        Ok(tally)
    }

    /// `count` positions drawn from `seed` (those in use), each text read back into Lehman's
    /// oracle.
    fn random_positions(&self, seed: u64, count: usize) -> Result<Tally> {
        let size = self.game.size();
        let picks: Vec<u64> = (0..count as u64)
            .map(|k| splitmix::hash(seed.wrapping_add(k)) % size)
            .filter(|&pos| self.game.status(pos) != Status::Unused)
            .collect();
        picks
            .par_iter()
            .map(|&pos| -> Result<Tally> {
                let text = self.game.position_text(pos);
                let want = self.oracle_value(&text)?;
                let got = self.table_value(pos);
                Ok(if got == Some(want) {
                    (1, 0, Vec::new())
                } else {
                    (1, 1, vec![format!("{text}: table {got:?}, lehman {want}")])
                })
            })
            .try_reduce(Tally::default, add_tallies)
    }
}

/// Sweeps `graphs`: every terminal pair up to automorphism of each, solved and compared.
pub fn sweep(graphs: &[Graph], opts: &SweepOptions) -> Result<SweepReport> {
    let started = Instant::now();
    // The Shannon game needs an edge; a graph with two vertices and none has terminal pairs but
    // no game.
    if let Some(g) = graphs
        .iter()
        .find(|g| g.vertices() >= 2 && g.edge_count() == 0)
    {
        return Err(OracleError::NoEdges {
            graph6: g.to_graph6(),
            vertices: g.vertices(),
        }
        .into());
    }
    check_memory(graphs, opts)?;
    let mut jobs: Vec<(usize, usize, usize)> = graphs
        .iter()
        .enumerate()
        .flat_map(|(i, g)| g.terminal_pairs().into_iter().map(move |(a, b)| (i, a, b)))
        .collect();
    // Largest tables first, so the long solves do not trail at the end.
    jobs.sort_by_key(|&(i, _, _)| std::cmp::Reverse(graphs[i].edge_count()));
    // Large tables one at a time (each solve uses every thread, and two would need twice the
    // memory), the rest side by side.
    let split = jobs.partition_point(|&(i, _, _)| graphs[i].edge_count() > ONE_AT_A_TIME_EDGES);
    let mut results: Vec<PairResult> = jobs[..split]
        .iter()
        .map(|&(i, a, b)| check_pair(&graphs[i], a, b, opts))
        .collect::<Result<_>>()?;
    results.extend(
        jobs[split..]
            .par_iter()
            .map(|&(i, a, b)| check_pair(&graphs[i], a, b, opts))
            .collect::<Result<Vec<_>>>()?,
    );

    let max_n = graphs.iter().map(Graph::vertices).max().unwrap_or(0);
    let mut rows: Vec<Row> = (0..=max_n)
        .map(|n| Row {
            vertices: n,
            graphs: graphs.iter().filter(|g| g.vertices() == n).count(),
            ..Row::default()
        })
        .collect();
    for r in &results {
        let row = &mut rows[r.vertices];
        row.terminal_pairs += 1;
        match r.table_class {
            Some(Class::Short) => row.short += 1,
            Some(Class::Cut) => row.cut += 1,
            Some(Class::First) => row.first += 1,
            None => {}
        }
        row.positions_checked += r.positions_checked;
        row.disagreements += r.disagreements;
    }
    rows.retain(|r| r.graphs > 0);
    let mut total = Row {
        vertices: max_n,
        ..Row::default()
    };
    for r in &rows {
        total.graphs += r.graphs;
        total.terminal_pairs += r.terminal_pairs;
        total.short += r.short;
        total.cut += r.cut;
        total.first += r.first;
        total.positions_checked += r.positions_checked;
        total.disagreements += r.disagreements;
    }
    let mut disagreeing: Vec<PairResult> = results
        .into_iter()
        .filter(|r| r.disagreements > 0)
        .collect();
    disagreeing
        .sort_by(|x, y| (x.vertices, &x.graph6, x.a, x.b).cmp(&(y.vertices, &y.graph6, y.a, y.b)));
    Ok(SweepReport {
        rows,
        total,
        disagreeing,
        all_positions_max_edges: opts.all_positions_max_edges,
        seconds: started.elapsed().as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shannon_file_lists_edges_then_terminals() {
        let g = Graph::from_graph6("Bg").unwrap();
        assert_eq!(
            shannon_file(&g, 0, 2),
            "# graph6 Bg\n0 1\n1 2\nterminals 0 2\n"
        );
    }

    #[test]
    fn position_text_reads_cells_and_mover() {
        use Claim::*;
        assert_eq!(
            parse_position("L.R/R", 3).unwrap(),
            (vec![Short, Free, Cut], Player::Cut)
        );
        assert_eq!(parse_position("L..", 3).unwrap().1, Player::Cut);
        assert_eq!(parse_position("LR.", 3).unwrap().1, Player::Short);
        assert!(parse_position("L.", 3).is_err());
        assert!(parse_position("L.X", 3).is_err());
        assert!(parse_position("L../Q", 3).is_err());
    }

    #[test]
    fn too_many_edges_is_refused_before_work() {
        let k7 = Graph::from_edges(
            7,
            &(0..7)
                .flat_map(|u| (u + 1..7).map(move |v| (u, v)))
                .collect::<Vec<_>>(),
        )
        .unwrap();
        let opts = SweepOptions {
            max_memory: 1 << 30,
            ..SweepOptions::default()
        };
        let e = sweep(&[k7], &opts).unwrap_err().to_string();
        assert!(e.contains("21 edges"), "{e}");
    }
}
