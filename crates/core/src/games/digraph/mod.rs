//! The token game on a directed graph: a position is the vertex holding the token, a move slides
//! it along an out-edge, and the player who cannot move loses. Cycles make draws possible.
//!
//! The graph is held as forward and reverse CSR arrays built in parallel; each adjacency list is
//! sorted by vertex id so move order does not depend on the thread count. Invariant: the reverse
//! arrays are the exact transpose of the forward ones, multi-edges included.

use rayon::prelude::*;

use crate::base::error::{Error, Result};
use crate::game::{Game, Move, Notation, Omissions, PositionError, Status};
use crate::games::source::{Embed, InputBytes, Source};

pub(crate) mod parse;
mod random;

use parse::parse_edges;
pub use random::{check_random, random, write_random_edges};

/// Vertex ids must be below this (they are stored as `u32`).
pub const MAX_VERTICES: u64 = u32::MAX as u64;

#[derive(Debug)]
pub struct Digraph {
    source: Source,
    /// Vertices: ids `0..n`.
    n: u64,
    /// Out-degree of every vertex: the counter engine's counts and the positions' status,
    /// without the forward edges.
    out_deg: Vec<u32>,
    /// The reverse graph (parents), which a solve walks.
    rev: Csr,
    /// The forward graph (children), built from `rev` when something first asks for a
    /// position's children (probes, verification): a build needs only the counts, and not
    /// keeping both directions while solving cut a large build's peak memory by a third.
    fwd: std::sync::OnceLock<Csr>,
    max_out: u64,
}

/// Compressed sparse rows: row `v`'s targets are `to[off[v]..off[v + 1]]`, sorted.
#[derive(Debug)]
struct Csr {
    off: Vec<u64>,
    to: Vec<u32>,
}

impl Csr {
    #[inline]
    fn row(&self, v: u64) -> &[u32] {
        &self.to[self.off[v as usize] as usize..self.off[v as usize + 1] as usize]
    }
}

impl Digraph {
    /// Parses an edge list (`u v` a line, `#` comments, blank lines) in parallel.
    /// `max_memory` bounds the graph arrays; a larger graph is refused before they are allocated.
    /// The input is kept for the table as `embed` says; one referred to is named by its
    /// absolute path, in the game's spec too.
    pub fn parse(
        name: &str,
        input: &InputBytes<'_>,
        max_memory: u64,
        embed: Embed,
    ) -> Result<Digraph> {
        let bytes = input.bytes();
        // The hash first, a block at a time, each block's pages released behind it: a mapped
        // input's pages would otherwise count in the process's memory (1.9 GB for 100M edges).
        let source = Source::of_released(name, input, embed);
        let chunks = parse_edges(name, input)?;
        let m: u64 = chunks.iter().map(|c| c.len() as u64).sum();
        if m == 0 {
            return Err(Error::InputWhole {
                file: name.to_string(),
                msg: "contains no edges (expected lines 'u v' with vertex ids)".into(),
            });
        }
        let n = chunks
            .par_iter()
            .flat_map(|c| c.par_iter())
            .map(|&(u, v)| u.max(v) as u64 + 1)
            .max()
            .unwrap_or(0);
        let need = Self::memory_estimate(n, m);
        if need > max_memory {
            return Err(Error::Memory {
                what: format!("the digraph in {name} ({n} vertices, {m} edges)"),
                need,
                limit: max_memory,
            });
        }
        debug_assert_eq!(source.len, bytes.len() as u64);
        // One contiguous list, each piece freed as it is copied.
        let mut edges = Vec::with_capacity(m as usize);
        for c in chunks {
            edges.extend_from_slice(&c);
        }
        Ok(Self::from_edge_vec(source, n, edges))
    }

    /// Bytes the graph takes at its peak while being built: the edge list, the reverse rows
    /// and the out-degrees (the forward rows come later, only if asked for).
    pub fn memory_estimate(vertices: u64, edges: u64) -> u64 {
        edges * 8 + (vertices + 1) * 8 + edges * 4 + vertices * 4
    }

    /// Bytes the graph keeps once built, while a table of it is solved: the out-degrees and the
    /// reverse rows (the forward rows are made only when something asks for children).
    pub fn resident_bytes(&self) -> u64 {
        self.n * 4 + (self.n + 1) * 8 + self.edge_count() * 4
    }

    /// Builds the graph from an edge list; every id must be below `n`.
    pub fn from_edges(source: Source, n: u64, edges: &[(u32, u32)]) -> Digraph {
        Self::from_edge_vec(source, n, edges.to_vec())
    }

    fn from_edge_vec(source: Source, n: u64, mut edges: Vec<(u32, u32)>) -> Digraph {
        let mut out_deg = vec![0u32; n as usize];
        for &(u, _) in &edges {
            out_deg[u as usize] += 1;
        }
        let rev = csr_in_place(n, &mut edges, |(u, v)| (v, u));
        drop(edges);
        let max_out = out_deg.iter().copied().max().unwrap_or(0) as u64;
        Digraph {
            source,
            n,
            out_deg,
            rev,
            fwd: std::sync::OnceLock::new(),
            max_out,
        }
    }

    pub fn source(&self) -> &Source {
        &self.source
    }

    pub fn edge_count(&self) -> u64 {
        self.rev.to.len() as u64
    }

    pub fn out_degree(&self, v: u64) -> u64 {
        self.out_deg[v as usize] as u64
    }

    fn in_degree(&self, v: u64) -> u64 {
        self.rev.off[v as usize + 1] - self.rev.off[v as usize]
    }

    /// The forward rows, transposed from the reverse ones on first use.
    fn fwd(&self) -> &Csr {
        self.fwd.get_or_init(|| {
            let mut edges: Vec<(u32, u32)> = Vec::with_capacity(self.rev.to.len());
            for v in 0..self.n {
                edges.extend(self.rev.row(v).iter().map(|&u| (u, v as u32)));
            }
            csr_in_place(self.n, &mut edges, |e| e)
        })
    }

    fn out_edges(&self, v: u64) -> &[u32] {
        self.fwd().row(v)
    }

    fn in_edges(&self, v: u64) -> &[u32] {
        self.rev.row(v)
    }
}

impl Game for Digraph {
    fn spec(&self) -> String {
        format!("digraph:{}", self.source.name)
    }

    fn size(&self) -> u64 {
        self.n
    }

    fn status(&self, pos: u64) -> Status {
        if pos < self.size() && (self.out_degree(pos) > 0 || self.in_degree(pos) > 0) {
            Status::Open
        } else {
            Status::Unused
        }
    }

    #[inline]
    fn for_each_child(&self, pos: u64, mut f: impl FnMut(u64)) {
        for &c in self.out_edges(pos) {
            f(c as u64);
        }
    }

    #[inline]
    fn for_each_parent(&self, pos: u64, mut f: impl FnMut(u64)) {
        for &p in self.in_edges(pos) {
            f(p as u64);
        }
    }

    fn max_children(&self) -> u64 {
        self.max_out
    }

    #[inline]
    fn child_count(&self, pos: u64) -> u64 {
        self.out_degree(pos)
    }

    fn impartial(&self) -> bool {
        true
    }
}

impl Notation for Digraph {
    fn parse_position(&self, text: &str) -> Result<u64, PositionError> {
        let t = text.trim();
        let v: u64 = t
            .parse()
            .map_err(|_| PositionError::new(text, "a digraph position is a vertex id"))?;
        if self.status(v) == Status::Unused {
            return Err(PositionError::new(
                text,
                format!(
                    "vertex {v} is not in the graph (no edge touches it; ids run 0..{})",
                    self.size()
                ),
            ));
        }
        Ok(v)
    }

    fn position_text(&self, pos: u64) -> String {
        pos.to_string()
    }

    /// The vertex the token moves to.
    fn move_id(&self, name: &str) -> Option<u64> {
        name.parse().ok()
    }

    fn moves(&self, pos: u64) -> Vec<Move> {
        self.out_edges(pos)
            .iter()
            .map(|&c| Move {
                name: c.to_string(),
                child: c as u64,
            })
            .collect()
    }
}

impl Omissions for Digraph {}

/// Compressed sparse rows of `edges` keyed by `key(edge).0`, each row sorted; `edges` is left
/// in bucket order.
///
/// No second buffer: the edges are first permuted in place into buckets of at most 4096 rows
/// (American flag sort: every edge moves once, to one of a few thousand write heads), then each
/// bucket's rows are counted and laid out with counters that stay in cache, the buckets in
/// parallel. A scatter into a copy cost 8 bytes an edge more (0.8 GB for 100M edges); random
/// increments over the whole vertex range would miss the cache on every edge.
fn csr_in_place(
    n: u64,
    edges: &mut [(u32, u32)],
    key: impl Fn((u32, u32)) -> (u32, u32) + Sync,
) -> Csr {
    let n = n.max(1) as usize;
    let m = edges.len();
    let row_bits = usize::BITS - (n - 1).leading_zeros();
    let shift = row_bits.saturating_sub(12);
    let buckets = ((n - 1) >> shift) + 1;
    let bucket = |e: (u32, u32)| key(e).0 as usize >> shift;
    let counts = edges
        .par_chunks(1 << 20)
        .map(|p| {
            let mut c = vec![0usize; buckets];
            for &e in p {
                c[bucket(e)] += 1;
            }
            c
        })
        .reduce(
            || vec![0usize; buckets],
            |mut a, b| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                a
            },
        );
    let mut start = vec![0usize; buckets + 1];
    for b in 0..buckets {
        start[b + 1] = start[b] + counts[b];
    }
    // Cycle leader: take the edge at bucket b's head; while it belongs elsewhere, put it at its
    // bucket's head and carry on with the edge that was there.
    let mut head = start[..buckets].to_vec();
    for b in 0..buckets {
        while head[b] < start[b + 1] {
            let mut e = edges[head[b]];
            loop {
                let d = bucket(e);
                if d == b {
                    break;
                }
                std::mem::swap(&mut e, &mut edges[head[d]]);
                head[d] += 1;
            }
            edges[head[b]] = e;
            head[b] += 1;
        }
    }

    let mut off = vec![0u64; n + 1];
    let mut to = vec![0u32; m];
    let mut pieces = Vec::with_capacity(buckets);
    let (mut rest_to, mut rest_edges): (&mut [u32], &[(u32, u32)]) = (&mut to, edges);
    for &count in &counts {
        let (head_to, tail_to) = rest_to.split_at_mut(count);
        let (head_e, tail_e) = rest_edges.split_at(count);
        pieces.push((head_to, head_e));
        rest_to = tail_to;
        rest_edges = tail_e;
    }
    off[..n]
        .par_chunks_mut(1 << shift)
        .zip(pieces.into_par_iter())
        .enumerate()
        .for_each(|(b, (offs, (dst, src)))| {
            let first_row = b << shift;
            let base = start[b] as u64;
            let mut next = vec![0u64; offs.len() + 1];
            for &e in src {
                next[key(e).0 as usize - first_row + 1] += 1;
            }
            for r in 0..offs.len() {
                next[r + 1] += next[r];
                offs[r] = base + next[r];
            }
            for &e in src {
                let (row, target) = key(e);
                let r = row as usize - first_row;
                dst[next[r] as usize] = target;
                next[r] += 1;
            }
            let mut from = 0usize;
            for &end in &next[..offs.len()] {
                dst[from..end as usize].sort_unstable();
                from = end as usize;
            }
        });
    off[n] = m as u64;
    Csr { off, to }
}

impl crate::games::Family for Digraph {
    const KINDS: &'static [(&'static str, &'static str)] =
        &[("digraph", "an edge-list file: 'u v' per line")];

    /// Its own variant, so the solvers are compiled for it.
    fn into_any(self) -> crate::games::AnyGame {
        crate::games::AnyGame::Digraph(self)
    }

    fn open(spec: &crate::games::SpecInput<'_>) -> Result<Digraph> {
        Digraph::parse(
            spec.arg,
            &spec.bytes(spec.arg)?,
            spec.max_memory,
            spec.embed,
        )
    }

    fn input_source(&self) -> Option<&Source> {
        Some(self.source())
    }

    fn held_bytes(&self) -> u64 {
        self.resident_bytes()
    }

    /// The edge list beside the arrays made from it ([`Digraph::memory_estimate`]), plus, for
    /// an input small enough to embed in the table, the mapped file's pages and the copy kept.
    fn loading_peak(&self) -> u64 {
        let kept = self.source().bytes.as_ref().map_or(0, |b| b.len() as u64);
        Digraph::memory_estimate(self.size(), self.edge_count()) + 2 * kept
    }
}

/// The web board's picture of a position, for any game whose positions are named by their
/// index (the default of [`crate::games::Family::board_picture`], a digraph's among them): the
/// token's vertex in the middle, the vertices it can move to on the right (each a clickable
/// `.mark` under its move's name, as [`crate::games::cell::picture::board_svg`] draws moves) and
/// up to 12 of the vertices that move to it on the left.
pub fn neighbourhood_svg<G: Game>(game: &G, pos: u64, moves: &[Move]) -> String {
    use crate::games::cell::picture::{svg_move, svg_open, xml_escape};
    use std::fmt::Write as _;
    const SHOWN: usize = 40;
    // The distinct children, in the moves' order: a set, not a search of those kept (a vertex
    // of 120,000 successors took seconds, quadratic in its moves).
    let mut seen = std::collections::HashSet::with_capacity(moves.len());
    let children: Vec<&Move> = moves.iter().filter(|m| seen.insert(m.child)).collect();
    let mut parents = Vec::new();
    game.for_each_parent(pos, |p| {
        if parents.len() < 12 && !parents.contains(&p) {
            parents.push(p);
        }
    });
    let rows = children.len().min(SHOWN).max(parents.len()).max(1) as f64;
    let (width, gap) = (460.0f64, 34.0f64);
    let height = 40.0 + rows * gap + 30.0;
    let mid = (width / 2.0, 20.0 + rows * gap / 2.0);
    let mut s = svg_open(width, height);
    s.push_str("<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"#555\"/></marker></defs>\n");
    let y_of = |k: usize, n: usize| mid.1 + (k as f64 - (n as f64 - 1.0) / 2.0) * gap;
    let vertex = |s: &mut String, v: u64, x: f64, y: f64, r: f64, fill: &str| {
        let _ = writeln!(
            s,
            "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"{r}\" fill=\"{fill}\" stroke=\"#333\"/><text x=\"{x:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"middle\">{v}</text>",
            y + 4.0
        );
    };
    for (k, &p) in parents.iter().enumerate() {
        let y = y_of(k, parents.len());
        let _ = writeln!(
            s,
            "<line x1=\"70\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#bbb\" marker-end=\"url(#arrow)\"/>",
            mid.0 - 22.0,
            mid.1
        );
        vertex(&mut s, p, 55.0, y, 14.0, "#f0f0f0");
    }
    let shown = children.len().min(SHOWN);
    for (k, m) in children.iter().take(SHOWN).enumerate() {
        let y = y_of(k, shown);
        let x = width - 70.0;
        let _ = writeln!(
            s,
            "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#555\" marker-end=\"url(#arrow)\"/>",
            mid.0 + 22.0,
            mid.1,
            x - 16.0
        );
        svg_move(&mut s, &m.name, x, y, 14.0, 16.0);
        let _ = writeln!(
            s,
            "<text x=\"{x:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"middle\" pointer-events=\"none\">{}</text>",
            y + 4.0,
            xml_escape(&m.name)
        );
    }
    vertex(&mut s, pos, mid.0, mid.1, 20.0, "#ffe08a");
    let more = children.len() - shown;
    let _ = writeln!(
        s,
        "<text x=\"8\" y=\"{:.0}\" font-size=\"14\">token on {pos}: {} move(s){}</text>\n</svg>",
        height - 10.0,
        moves.len(),
        if more > 0 {
            format!(", {more} more in the list")
        } else {
            String::new()
        }
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::check_round_trip;

    fn parse(text: &str) -> Result<Digraph> {
        Digraph::parse(
            "g.txt",
            &InputBytes::Borrowed(text.as_bytes()),
            u64::MAX,
            Embed::UpToLimit,
        )
    }

    #[test]
    fn parses_comments_blank_lines_and_tabs() {
        let g = parse("# SNAP header\n\n0\t1\n1 2 # trailing\r\n2 0\n2 2\n").unwrap();
        assert_eq!(g.size(), 3);
        assert_eq!(g.edge_count(), 4);
        assert_eq!(
            g.moves(2).iter().map(|m| m.child).collect::<Vec<_>>(),
            vec![0, 2]
        );
    }

    #[test]
    fn errors_name_the_line() {
        let e = parse("0 1\n# c\n3\n").unwrap_err().to_string();
        assert_eq!(e, "g.txt:3: expected an edge 'u v' but found one word '3'");
        let e = parse("0 1\n0 -4\n").unwrap_err().to_string();
        assert_eq!(e, "g.txt:2: negative vertex id '-4'");
        let e = parse("0 x1\n").unwrap_err().to_string();
        assert!(e.starts_with("g.txt:1: 'x1' is not a vertex id"), "{e}");
        let e = parse("1 99999999999\n").unwrap_err().to_string();
        assert!(
            e.starts_with("g.txt:1: vertex id 99999999999 is too large"),
            "{e}"
        );
        let e = parse("# nothing\n").unwrap_err().to_string();
        assert!(e.starts_with("g.txt: contains no edges"), "{e}");
        let e = parse("1 2 3\n").unwrap_err().to_string();
        assert!(e.contains("third word '3'"), "{e}");
    }

    #[test]
    fn refuses_graphs_over_the_memory_limit() {
        let text = "0 4000000000\n";
        let e = Digraph::parse(
            "g.txt",
            &InputBytes::Borrowed(text.as_bytes()),
            1 << 30,
            Embed::UpToLimit,
        )
        .err()
        .unwrap();
        assert!(matches!(e, Error::Memory { .. }), "{e}");
    }

    #[test]
    fn line_numbers_survive_chunking() {
        // Over a megabyte of edges, so the parser cuts the input into several chunks.
        let mut text = String::new();
        for i in 0..200_000u32 {
            text.push_str(&format!("{} {}\n", i, i + 1));
        }
        text.push_str("5 five\n");
        let e = parse(&text).unwrap_err().to_string();
        assert!(e.starts_with("g.txt:200001: 'five'"), "{e}");
    }

    #[test]
    fn round_trip_on_random_graphs() {
        for seed in 0..20 {
            let g = random(30, 90, seed % 5, seed);
            check_round_trip(&g, 0..g.size()).unwrap();
        }
    }

    #[test]
    fn unused_ids_are_not_positions() {
        let g = parse("0 1\n5 1\n").unwrap();
        assert_eq!(g.status(3), Status::Unused);
        assert!(g.parse_position("3").is_err());
        assert_eq!(g.parse_position(" 5 "), Ok(5));
    }
}
