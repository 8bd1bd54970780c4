//! The token game on a directed graph: a position is the vertex holding the token, a move slides
//! it along an out-edge, and the player who cannot move loses. Cycles make draws possible.
//!
//! The graph is held as forward and reverse CSR arrays built in parallel; each adjacency list is
//! sorted by vertex id so move order does not depend on the thread count. Invariant: the reverse
//! arrays are the exact transpose of the forward ones, multi-edges included.

use std::io::{BufWriter, Write};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::game::{Game, Move, PositionError, SplitMix64, Status};
use crate::games::source::{InputBytes, Source};

/// Vertex ids must be below this (they are stored as `u32`).
pub const MAX_VERTICES: u64 = u32::MAX as u64;

#[derive(Debug)]
pub struct Digraph {
    source: Source,
    fwd_off: Vec<u64>,
    fwd: Vec<u32>,
    rev_off: Vec<u64>,
    rev: Vec<u32>,
    max_out: u64,
}

impl Digraph {
    /// Parses an edge list (`u v` a line, `#` comments, blank lines) in parallel.
    /// `max_memory` bounds the graph arrays; a larger graph is refused before they are allocated.
    pub fn parse(name: &str, input: &InputBytes<'_>, max_memory: u64) -> Result<Digraph> {
        let bytes = input.bytes();
        let edges = parse_edges(name, bytes)?;
        if edges.is_empty() {
            return Err(Error::InputWhole {
                file: name.to_string(),
                msg: "contains no edges (expected lines 'u v' with vertex ids)".into(),
            });
        }
        let n = edges
            .par_iter()
            .map(|&(u, v)| u.max(v) as u64 + 1)
            .max()
            .unwrap_or(0);
        let need = Self::memory_estimate(n, edges.len() as u64);
        if need > max_memory {
            return Err(Error::Memory {
                what: format!(
                    "the digraph in {name} ({n} vertices, {} edges)",
                    edges.len()
                ),
                need,
                limit: max_memory,
            });
        }
        Ok(Self::from_edges(Source::of(name, bytes), n, &edges))
    }

    /// Bytes the graph arrays take (both CSR directions plus the parsed edge list).
    pub fn memory_estimate(vertices: u64, edges: u64) -> u64 {
        2 * (vertices + 1) * 8 + 2 * edges * 4 + edges * 8 + vertices * 4
    }

    /// Builds the graph from an edge list; every id must be below `n`.
    pub fn from_edges(source: Source, n: u64, edges: &[(u32, u32)]) -> Digraph {
        let (fwd_off, fwd) = csr(n, edges, |&(u, v)| (u, v));
        let (rev_off, rev) = csr(n, edges, |&(u, v)| (v, u));
        let max_out = fwd_off.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
        Digraph {
            source,
            fwd_off,
            fwd,
            rev_off,
            rev,
            max_out,
        }
    }

    pub fn source(&self) -> &Source {
        &self.source
    }

    pub fn edge_count(&self) -> u64 {
        self.fwd.len() as u64
    }

    pub fn out_degree(&self, v: u64) -> u64 {
        self.fwd_off[v as usize + 1] - self.fwd_off[v as usize]
    }

    fn in_degree(&self, v: u64) -> u64 {
        self.rev_off[v as usize + 1] - self.rev_off[v as usize]
    }

    fn out_edges(&self, v: u64) -> &[u32] {
        &self.fwd[self.fwd_off[v as usize] as usize..self.fwd_off[v as usize + 1] as usize]
    }

    fn in_edges(&self, v: u64) -> &[u32] {
        &self.rev[self.rev_off[v as usize] as usize..self.rev_off[v as usize + 1] as usize]
    }
}

impl Game for Digraph {
    fn spec(&self) -> String {
        format!("digraph:{}", self.source.name)
    }

    fn size(&self) -> u64 {
        self.fwd_off.len() as u64 - 1
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

/// Compressed sparse rows of `edges` keyed by `key(edge).0`, each row sorted.
fn csr(
    n: u64,
    edges: &[(u32, u32)],
    key: impl Fn(&(u32, u32)) -> (u32, u32) + Sync,
) -> (Vec<u64>, Vec<u32>) {
    let n = n as usize;
    let degree: Vec<AtomicU32> = (0..n).into_par_iter().map(|_| AtomicU32::new(0)).collect();
    edges.par_iter().for_each(|e| {
        degree[key(e).0 as usize].fetch_add(1, Ordering::Relaxed);
    });
    let mut off = Vec::with_capacity(n + 1);
    let mut total = 0u64;
    off.push(0);
    for d in &degree {
        total += d.load(Ordering::Relaxed) as u64;
        off.push(total);
    }
    drop(degree);
    let cursor: Vec<AtomicU64> = off[..n].par_iter().map(|&o| AtomicU64::new(o)).collect();
    let slots: Vec<AtomicU32> = (0..edges.len())
        .into_par_iter()
        .map(|_| AtomicU32::new(0))
        .collect();
    edges.par_iter().for_each(|e| {
        let (from, to) = key(e);
        let at = cursor[from as usize].fetch_add(1, Ordering::Relaxed);
        slots[at as usize].store(to, Ordering::Relaxed);
    });
    drop(cursor);
    let mut targets: Vec<u32> = slots.into_par_iter().map(AtomicU32::into_inner).collect();
    // Sort every row, in parallel over blocks of rows cut at row boundaries.
    const ROWS: usize = 4096;
    let mut blocks: Vec<(usize, &mut [u32])> = Vec::with_capacity(n / ROWS + 1);
    let mut rest: &mut [u32] = &mut targets;
    let mut row = 0;
    while row < n {
        let end = (row + ROWS).min(n);
        let (head, tail) = rest.split_at_mut((off[end] - off[row]) as usize);
        blocks.push((row, head));
        rest = tail;
        row = end;
    }
    blocks.into_par_iter().for_each(|(first, block)| {
        let base = off[first];
        let last = (first + ROWS).min(n);
        for r in first..last {
            block[(off[r] - base) as usize..(off[r + 1] - base) as usize].sort_unstable();
        }
    });
    (off, targets)
}

/// Parses the whole edge list, in parallel over line-aligned chunks.
fn parse_edges(name: &str, bytes: &[u8]) -> Result<Vec<(u32, u32)>> {
    const MIN_CHUNK: usize = 1 << 20;
    let pieces = (rayon::current_num_threads() * 8).max(1);
    let target = (bytes.len() / pieces).max(MIN_CHUNK);
    let mut bounds = vec![0usize];
    let mut at = 0;
    while at < bytes.len() {
        let mut end = (at + target).min(bytes.len());
        while end < bytes.len() && bytes[end - 1] != b'\n' {
            end += 1;
        }
        bounds.push(end);
        at = end;
    }
    let parts: Vec<ChunkResult> = bounds
        .par_windows(2)
        .map(|w| parse_chunk(&bytes[w[0]..w[1]]).map_err(|(off, msg)| (w[0] + off, msg)))
        .collect();
    let mut edges = Vec::with_capacity(parts.iter().map(|p| p.as_ref().map_or(0, Vec::len)).sum());
    for part in parts {
        match part {
            Ok(p) => edges.extend_from_slice(&p),
            Err((offset, msg)) => {
                let line = bytes[..offset].iter().filter(|&&b| b == b'\n').count() as u64 + 1;
                return Err(Error::Input {
                    file: name.to_string(),
                    line,
                    msg,
                });
            }
        }
    }
    Ok(edges)
}

/// The edges of one chunk, or the byte offset of a bad line in it and the message.
type ChunkResult = std::result::Result<Vec<(u32, u32)>, (usize, String)>;

/// Parses the lines of one chunk; an error carries the byte offset of its line in the chunk.
fn parse_chunk(chunk: &[u8]) -> ChunkResult {
    let mut edges = Vec::with_capacity(chunk.len() / 12);
    let mut start = 0;
    while start < chunk.len() {
        let end = chunk[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(chunk.len(), |p| start + p);
        if let Some(edge) = parse_line(&chunk[start..end]).map_err(|m| (start, m))? {
            edges.push(edge);
        }
        start = end + 1;
    }
    Ok(edges)
}

fn parse_line(line: &[u8]) -> std::result::Result<Option<(u32, u32)>, String> {
    let line = match line.iter().position(|&b| b == b'#') {
        Some(p) => &line[..p],
        None => line,
    };
    let mut words = line
        .split(|&b| b == b' ' || b == b'\t' || b == b'\r')
        .filter(|w| !w.is_empty());
    let Some(a) = words.next() else {
        return Ok(None);
    };
    let Some(b) = words.next() else {
        return Err(format!(
            "expected an edge 'u v' but found one word '{}'",
            String::from_utf8_lossy(a)
        ));
    };
    if let Some(c) = words.next() {
        return Err(format!(
            "expected an edge 'u v' but found a third word '{}'",
            String::from_utf8_lossy(c)
        ));
    }
    Ok(Some((vertex(a)?, vertex(b)?)))
}

fn vertex(word: &[u8]) -> std::result::Result<u32, String> {
    let text = || String::from_utf8_lossy(word).into_owned();
    if word[0] == b'-' && word.len() > 1 && word[1..].iter().all(u8::is_ascii_digit) {
        return Err(format!("negative vertex id '{}'", text()));
    }
    let mut v: u64 = 0;
    for &b in word {
        if !b.is_ascii_digit() {
            return Err(format!(
                "'{}' is not a vertex id (a non-negative integer)",
                text()
            ));
        }
        v = v * 10 + (b - b'0') as u64;
        if v >= MAX_VERTICES {
            return Err(format!(
                "vertex id {} is too large (ids must be below {MAX_VERTICES})",
                text()
            ));
        }
    }
    Ok(v as u32)
}

/// Writes a random digraph with `vertices` vertices and `edges` uniformly random edges (loops and
/// multi-edges possible) as an edge list. The same seed gives the same file on every machine.
pub fn write_random(path: &str, vertices: u64, edges: u64, seed: u64) -> Result<()> {
    if vertices == 0 || vertices > MAX_VERTICES {
        return Err(Error::Usage(format!(
            "a random digraph needs between 1 and {MAX_VERTICES} vertices"
        )));
    }
    let tmp = format!("{path}.tmp");
    let file = std::fs::File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
    let mut out = BufWriter::with_capacity(1 << 22, file);
    writeln!(
        out,
        "# random digraph: {vertices} vertices, {edges} edges, seed {seed}"
    )
    .map_err(|e| Error::io(&tmp, e))?;
    const BLOCK: u64 = 1 << 20;
    let blocks = edges.div_ceil(BLOCK);
    // Format blocks in parallel, a batch at a time, and write them in order.
    let batch = (rayon::current_num_threads() as u64 * 4).max(1);
    let mut b = 0;
    while b < blocks {
        let end = (b + batch).min(blocks);
        let texts: Vec<Vec<u8>> = (b..end)
            .into_par_iter()
            .map(|i| {
                let mut rng = SplitMix64(seed ^ i.wrapping_mul(0xA24B_AED4_963E_E407));
                let count = BLOCK.min(edges - i * BLOCK);
                let mut s = Vec::with_capacity(count as usize * 18);
                for _ in 0..count {
                    let u = rng.below(vertices);
                    let v = rng.below(vertices);
                    writeln!(s, "{u} {v}").expect("writing to memory");
                }
                s
            })
            .collect();
        for t in texts {
            out.write_all(&t).map_err(|e| Error::io(&tmp, e))?;
        }
        b = end;
    }
    out.flush().map_err(|e| Error::io(&tmp, e))?;
    drop(out);
    std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))
}

/// A random digraph in memory (for benches and tests), same distribution as [`write_random`].
pub fn random(vertices: u64, edges: u64, seed: u64) -> Digraph {
    let mut rng = SplitMix64(seed);
    let list: Vec<(u32, u32)> = (0..edges)
        .map(|_| (rng.below(vertices) as u32, rng.below(vertices) as u32))
        .collect();
    let name = format!("random-{vertices}-{edges}-{seed}");
    Digraph::from_edges(Source::of(&name, &[]), vertices, &list)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::check_round_trip;

    fn parse(text: &str) -> Result<Digraph> {
        Digraph::parse("g.txt", &InputBytes::Borrowed(text.as_bytes()), u64::MAX)
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
        let e = Digraph::parse("g.txt", &InputBytes::Borrowed(text.as_bytes()), 1 << 30)
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
            let g = random(30, 90, seed);
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
