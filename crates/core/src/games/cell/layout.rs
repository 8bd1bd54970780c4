//! What a cell game's cells are: a graph file's edges or vertices, or one of the boards. The
//! layout names the cells (labels for moves and pictures) and gives the connectivity that the
//! winning conditions read; it knows nothing of positions or indices.
//!
//! The invariant: cell `i` means the same thing everywhere — the `i`-th label, the `i`-th bit of
//! [`Links`] and the `i`-th character of a position text.

use super::board::{self, Board};
use super::graph::{self, Graph, Links};
use crate::base::error::{Error, Result};
use crate::games::source::Source;

/// What the cells are: a graph file's edges or vertices, or a board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `shannon:PATH`: one cell per edge, in file order.
    Edges(Graph),
    /// `shannon-vertex:PATH`: one cell per non-terminal vertex, in increasing id order.
    Vertices(Graph),
    Board(Board),
}

/// What is wrong with a board's spec `KIND:SIZE,WORD,...` whose suffixes were not all taken off
/// its end: suffixes out of order (`bridgit:4,sym,start=L`) or a word that is no suffix.
fn misplaced_suffix(spec: &str) -> String {
    let (kind, arg) = spec.split_once(':').unwrap_or((spec, ""));
    let (size, rest) = arg.split_once(',').unwrap_or((arg, ""));
    let words: Vec<&str> = rest.split(',').collect();
    let known = |w: &&str| matches!(*w, "sym" | "sliced" | "start=L" | "start=R" | "start=both");
    match words.iter().find(|w| !known(w)) {
        Some(word) => format!(
            "',{}' is not a suffix of a board (',start=L', ',start=R', ',start=both', then \
             ',sym' or ',sliced')",
            crate::base::error::cut(word)
        ),
        None => {
            let start = words.iter().find(|w| w.starts_with("start="));
            let index = words.iter().find(|w| !w.starts_with("start="));
            let fixed = [start, index].into_iter().flatten().fold(
                format!("{kind}:{}", crate::base::error::cut(size)),
                |s, w| format!("{s},{w}"),
            );
            format!(
                "the suffixes go in the order ',start=...' then ',sym' or ',sliced', each once: \
                 {fixed}"
            )
        }
    }
}

impl Layout {
    /// Reads the layout a spec names. `bytes` gives a graph file's contents when asked for.
    pub fn from_spec<'a>(
        spec: &str,
        kind: &str,
        arg: &str,
        bytes: impl FnOnce() -> Result<crate::games::InputBytes<'a>>,
    ) -> Result<(Layout, Option<Source>)> {
        let side = || -> Result<u32> {
            match arg.parse::<u32>() {
                Ok(n) if (1..=board::MAX_SIDE).contains(&n) => Ok(n),
                _ => Err(Error::Spec {
                    spec: spec.to_string(),
                    msg: match arg.contains(',') {
                        true => misplaced_suffix(spec),
                        false => format!(
                            "'{}' is not a board size (a whole number from 1 to {})",
                            crate::base::error::cut(arg),
                            board::MAX_SIDE
                        ),
                    },
                }),
            }
        };
        match kind {
            "bridgit" => Ok((Layout::Board(Board::Bridgit(side()?)), None)),
            "hex" => Ok((Layout::Board(Board::Hex(side()?)), None)),
            "shannon" | "shannon-vertex" => {
                let input = bytes()?;
                let graph = Graph::parse(arg, input.bytes())?;
                let source = Source::of(arg, input.bytes());
                let layout = if kind == "shannon" {
                    Layout::Edges(graph)
                } else {
                    Layout::Vertices(graph)
                };
                Ok((layout, Some(source)))
            }
            _ => Err(Error::Spec {
                spec: spec.to_string(),
                msg: format!("'{kind}' is not a cell game"),
            }),
        }
    }

    pub fn cell_count(&self) -> u64 {
        match self {
            Layout::Edges(g) => g.edges.len() as u64,
            Layout::Vertices(g) => g.vertices as u64 - 2,
            Layout::Board(b) => b.cell_count(),
        }
    }

    /// Each cell's name for moves and pictures: `(u-v)` for an edge, `(v)` for a vertex,
    /// coordinates on boards.
    pub fn labels(&self) -> Vec<String> {
        match self {
            Layout::Edges(g) => g.edges.iter().map(|(u, v)| format!("({u}-{v})")).collect(),
            Layout::Vertices(g) => g
                .inner_vertices()
                .iter()
                .map(|v| format!("(v{v})"))
                .collect(),
            Layout::Board(b) => b
                .coordinates()
                .iter()
                .map(|(a, c)| format!("({a},{c})"))
                .collect(),
        }
    }

    /// The connectivity the winning conditions read (at most 64 cells).
    pub fn links(&self) -> Links {
        match self {
            Layout::Edges(g) => g.edge_links(),
            Layout::Vertices(g) => g.vertex_links(),
            Layout::Board(b @ Board::Bridgit(_)) => b.graph().edge_links(),
            Layout::Board(b @ Board::Hex(n)) => {
                let mut links = b.graph().vertex_links();
                if n * n <= 64 {
                    links.grid = Some(graph::HexGrid::new(*n));
                }
                links
            }
        }
    }

    /// The board's symmetries that keep the colours, as cell permutations (none for graphs).
    pub fn colour_keeping_group(&self) -> Vec<Vec<u32>> {
        match self {
            Layout::Board(b) => b
                .symmetries()
                .into_iter()
                .filter(|s| !s.swaps_colours)
                .map(|s| s.perm)
                .collect(),
            _ => Vec::new(),
        }
    }
}
