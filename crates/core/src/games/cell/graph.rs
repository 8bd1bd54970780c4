//! Graphs with two terminals, the files that describe them, and the reduction of a Shannon
//! game on a graph to cell connectivity ([`Links`]).
//!
//! Both Shannon games become "does a set of cells link the start to the goal?": the edge game
//! through its line graph (two edges are neighbours when they share an end), the vertex game
//! through the graph itself. The invariant: `Links::connects(s)` is true exactly when the cells
//! in `s`, used as the game uses them, join terminal A to terminal B — monotone in `s`, which the
//! parent enumeration relies on.

use std::collections::HashMap;

use crate::base::error::{Error, Result};
use crate::games::source;

/// An undirected multigraph with two distinct terminals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Graph {
    /// Vertex ids are `0..vertices`.
    pub vertices: u32,
    /// In file order; loops and parallel edges allowed.
    pub edges: Vec<(u32, u32)>,
    pub a: u32,
    pub b: u32,
}

/// Vertex ids in graph files must be below this.
pub const MAX_VERTEX_ID: u64 = 1 << 20;

impl Graph {
    /// Reads a graph file: `u v` per edge, one `terminals A B` line, `#` comments.
    /// `name` is the file name used in messages.
    pub fn parse(name: &str, bytes: &[u8]) -> Result<Graph> {
        let mut edges = Vec::new();
        let mut terminals: Option<(u64, u64, u64)> = None;
        let err = |line: u64, msg: String| Error::Input {
            file: name.to_string(),
            line,
            msg,
        };
        for line in source::lines(name, bytes)? {
            let w = &line.words;
            if w[0] == "terminals" {
                if let Some((_, _, first)) = terminals {
                    return Err(err(
                        line.number,
                        format!("a second 'terminals' line (the first is line {first})"),
                    ));
                }
                if w.len() != 3 {
                    return Err(err(
                        line.number,
                        format!("expected 'terminals A B' but found {} word(s)", w.len()),
                    ));
                }
                let a = source::vertex_id(name, line.number, w[1], MAX_VERTEX_ID)?;
                let b = source::vertex_id(name, line.number, w[2], MAX_VERTEX_ID)?;
                if a == b {
                    return Err(err(
                        line.number,
                        format!("the terminals must differ, but both are vertex {a}"),
                    ));
                }
                terminals = Some((a, b, line.number));
                continue;
            }
            if w.len() != 2 {
                return Err(err(
                    line.number,
                    format!(
                        "expected an edge 'u v' or 'terminals A B' but found {} word(s): '{}'",
                        w.len(),
                        crate::base::error::cut_words(w)
                    ),
                ));
            }
            let u = source::vertex_id(name, line.number, w[0], MAX_VERTEX_ID)?;
            let v = source::vertex_id(name, line.number, w[1], MAX_VERTEX_ID)?;
            edges.push((u as u32, v as u32));
        }
        let Some((a, b, tline)) = terminals else {
            return Err(Error::InputWhole {
                file: name.to_string(),
                msg: "no 'terminals A B' line (a Shannon game needs its two terminals)".into(),
            });
        };
        if edges.is_empty() {
            return Err(Error::InputWhole {
                file: name.to_string(),
                msg: "contains no edges (expected lines 'u v' with vertex ids)".into(),
            });
        }
        let vertices = edges.iter().map(|&(u, v)| u.max(v) + 1).max().unwrap_or(0);
        for t in [a, b] {
            if t >= vertices as u64 {
                return Err(err(
                    tline,
                    format!(
                        "terminal {t} is out of range: the edges use vertices 0..{}",
                        vertices - 1
                    ),
                ));
            }
        }
        Ok(Graph {
            vertices,
            edges,
            a: a as u32,
            b: b as u32,
        })
    }

    /// The file text of this graph (what [`Graph::parse`] reads back).
    pub fn to_text(&self) -> String {
        let mut s = format!("terminals {} {}\n", self.a, self.b);
        for &(u, v) in &self.edges {
            s.push_str(&format!("{u} {v}\n"));
        }
        s
    }

    /// The non-terminal vertices in increasing id order: the cells of the vertex game.
    pub fn inner_vertices(&self) -> Vec<u32> {
        (0..self.vertices)
            .filter(|&v| v != self.a && v != self.b)
            .collect()
    }

    /// The edge game's connectivity: cell `i` is edge `i`.
    pub fn edge_links(&self) -> Links {
        let mut incident: HashMap<u32, u64> = HashMap::new();
        for (i, &(u, v)) in self.edges.iter().enumerate() {
            *incident.entry(u).or_default() |= 1 << i;
            *incident.entry(v).or_default() |= 1 << i;
        }
        let at = |v: u32| incident.get(&v).copied().unwrap_or(0);
        let adj = self
            .edges
            .iter()
            .enumerate()
            .map(|(i, &(u, v))| (at(u) | at(v)) & !(1u64 << i))
            .collect();
        Links {
            adj,
            start: at(self.a),
            goal: at(self.b),
            always: false,
            grid: None,
        }
    }

    /// The vertex game's connectivity: cells are [`Graph::inner_vertices`].
    pub fn vertex_links(&self) -> Links {
        let inner = self.inner_vertices();
        let mut cell = vec![u32::MAX; self.vertices as usize];
        for (i, &v) in inner.iter().enumerate() {
            cell[v as usize] = i as u32;
        }
        let mut links = Links {
            adj: vec![0; inner.len()],
            start: 0,
            goal: 0,
            always: false,
            grid: None,
        };
        let a = self.a;
        for &(u, v) in &self.edges {
            let (cu, cv) = (cell[u as usize], cell[v as usize]);
            match (cu != u32::MAX, cv != u32::MAX) {
                (true, true) if u != v => {
                    links.adj[cu as usize] |= 1 << cv;
                    links.adj[cv as usize] |= 1 << cu;
                }
                (true, true) => {}
                (true, false) | (false, true) => {
                    let (c, t) = if cu != u32::MAX { (cu, v) } else { (cv, u) };
                    if t == a {
                        links.start |= 1 << c;
                    } else {
                        links.goal |= 1 << c;
                    }
                }
                // Both ends are terminals: an A-B edge joins them outright.
                (false, false) => links.always |= u != v,
            }
        }
        links
    }
}

/// Which cells link to which, and which touch the two terminals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Links {
    /// Per cell, the cells it links to directly.
    pub adj: Vec<u64>,
    /// Cells touching terminal A.
    pub start: u64,
    /// Cells touching terminal B.
    pub goal: u64,
    /// The terminals are joined with no cell at all (an A-B edge in the vertex game).
    pub always: bool,
    /// When the cells are a Hex board in row-major order, the neighbours of a whole set come
    /// from six shifts instead of one lookup per cell; `adj` stays the reference.
    pub grid: Option<HexGrid>,
}

/// Shift masks of an N x N Hex board whose cell `(r, c)` is bit `r * N + c`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HexGrid {
    n: u32,
    /// All cells but column 0, and all but column N-1.
    not_first: u64,
    not_last: u64,
}

impl HexGrid {
    /// The grid of an N x N board (N * N <= 64).
    pub fn new(n: u32) -> HexGrid {
        let full = if n * n == 64 {
            !0
        } else {
            (1u64 << (n * n)) - 1
        };
        let first: u64 = (0..n).map(|r| 1u64 << (r * n)).sum();
        let last = first << (n - 1);
        HexGrid {
            n,
            not_first: full & !first,
            not_last: full & !last,
        }
    }

    /// Every cell touching a cell of `s`: (r, c±1), (r±1, c), (r-1, c+1), (r+1, c-1).
    #[inline]
    pub fn neighbours(&self, s: u64) -> u64 {
        let n = self.n;
        ((s << 1) & self.not_first)
            | ((s >> 1) & self.not_last)
            | (s << n)
            | (s >> n)
            | ((s >> (n - 1)) & self.not_first)
            | ((s << (n - 1)) & self.not_last)
    }
}

impl Links {
    /// Whether the cells in `set` join the terminals: a flood from the start cells inside `set`,
    /// one bitboard step per layer.
    #[inline]
    pub fn connects(&self, set: u64) -> bool {
        if self.always {
            return true;
        }
        if let Some(grid) = &self.grid {
            let mut reach = self.start & set;
            loop {
                if reach & self.goal != 0 {
                    return true;
                }
                let next = reach | (grid.neighbours(reach) & set);
                if next == reach {
                    return false;
                }
                reach = next;
            }
        }
        let mut reach = self.start & set;
        let mut frontier = reach;
        while frontier != 0 {
            if reach & self.goal != 0 {
                return true;
            }
            let mut next = 0u64;
            let mut f = frontier;
            while f != 0 {
                next |= self.adj[f.trailing_zeros() as usize];
                f &= f - 1;
            }
            frontier = next & set & !reach;
            reach |= frontier;
        }
        reach & self.goal != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Graph> {
        Graph::parse("g.txt", text.as_bytes())
    }

    #[test]
    fn parses_edges_terminals_and_comments() {
        let g = parse("# a triangle\nterminals 0 1\n0 1\n1 2 # the long way\n2 0\n0 1\n").unwrap();
        assert_eq!(g.vertices, 3);
        assert_eq!(g.edges, vec![(0, 1), (1, 2), (2, 0), (0, 1)]);
        assert_eq!((g.a, g.b), (0, 1));
        assert_eq!(parse(&g.to_text()).unwrap(), g);
    }

    #[test]
    fn malformed_files_name_the_line() {
        let e = |t: &str| parse(t).unwrap_err().to_string();
        assert_eq!(
            e("terminals 0 1\n0 1\n3\n"),
            "g.txt:3: expected an edge 'u v' or 'terminals A B' but found 1 word(s): '3'"
        );
        assert_eq!(
            e("0 1\n"),
            "g.txt: no 'terminals A B' line (a Shannon game needs its two terminals)"
        );
        assert_eq!(
            e("terminals 0 5\n0 1\n1 2\n"),
            "g.txt:1: terminal 5 is out of range: the edges use vertices 0..2"
        );
        assert_eq!(
            e("0 1\nterminals 1 1\n"),
            "g.txt:2: the terminals must differ, but both are vertex 1"
        );
        assert_eq!(
            e("terminals 0 1\nterminals 0 2\n"),
            "g.txt:2: a second 'terminals' line (the first is line 1)"
        );
        assert_eq!(
            e("terminals 0\n"),
            "g.txt:1: expected 'terminals A B' but found 2 word(s)"
        );
        assert_eq!(
            e("terminals 0 1\n0 x\n"),
            "g.txt:2: 'x' is not a vertex id (a non-negative integer)"
        );
        assert_eq!(
            e("terminals 0 1\n0 -2\n"),
            "g.txt:2: negative vertex id '-2'"
        );
        assert_eq!(
            e("terminals 0 1\n# none\n"),
            "g.txt: contains no edges (expected lines 'u v' with vertex ids)"
        );
    }

    #[test]
    fn edge_links_follow_shared_ends() {
        // Path 0-2-1 plus a loose edge 3-4: the path joins the terminals, the loose edge never.
        let g = parse("terminals 0 1\n0 2\n2 1\n3 4\n").unwrap();
        let l = g.edge_links();
        assert_eq!(l.start, 0b001);
        assert_eq!(l.goal, 0b010);
        assert!(l.connects(0b011));
        assert!(!l.connects(0b001));
        assert!(!l.connects(0b110));
    }

    #[test]
    fn vertex_links_skip_terminals() {
        // 0 - 2 - 3 - 1 and 0 - 4 - 1: cells are vertices 2, 3, 4 in that order.
        let g = parse("terminals 0 1\n0 2\n2 3\n3 1\n0 4\n4 1\n").unwrap();
        let l = g.vertex_links();
        assert_eq!(g.inner_vertices(), vec![2, 3, 4]);
        assert!(l.connects(0b011) && l.connects(0b100));
        assert!(!l.connects(0b001) && !l.connects(0b010));
        assert!(!l.always);
        let direct = parse("terminals 0 1\n1 0\n0 2\n").unwrap().vertex_links();
        assert!(direct.always && direct.connects(0));
    }
}
