//! Reading Hackenbush: graph files (`u v C` lines), the stalk and tree specs, and position
//! texts (one character per edge in input order, `.` for a gone edge, then `/L` or `/R`).
//!
//! The invariant: every edge list read here has at most [`MAX_EDGES`] edges, and a position
//! text is accepted only when its edge set is grounded.

use std::fmt::Write as _;

use super::{Colour, Edge, Hackenbush, MAX_EDGES, MAX_VERTEX_ID, bits};
use crate::base::error::{Error, Result};
use crate::base::splitmix::SplitMix64;
use crate::game::PositionError;
use crate::games::source::{self, Source};

impl Hackenbush {
    /// Reads a graph file: one edge `u v C` a line, `#` comments.
    pub fn parse_file(name: &str, bytes: &[u8], max_memory: u64) -> Result<Hackenbush> {
        let mut edges = Vec::new();
        let mut line_of = Vec::new();
        for line in source::lines(name, bytes)? {
            let err = |msg: String| Error::Input {
                file: name.to_string(),
                line: line.number,
                msg,
            };
            if line.words.len() != 3 {
                return Err(err(format!(
                    "expected an edge 'u v C' (two vertex ids and a colour B, R or G) but found {} word(s)",
                    line.words.len()
                )));
            }
            let u = source::vertex_id(name, line.number, line.words[0], MAX_VERTEX_ID)?;
            let v = source::vertex_id(name, line.number, line.words[1], MAX_VERTEX_ID)?;
            let word = line.words[2];
            let mut chars = word.chars();
            let colour = match (
                chars.next().and_then(Colour::from_file_letter),
                chars.next(),
            ) {
                (Some(c), None) => c,
                _ => {
                    return Err(err(format!(
                        "unknown colour '{}' (expected B for blue/Left, R for red/Right or G for green)",
                        crate::base::error::cut(word)
                    )));
                }
            };
            if edges.len() == MAX_EDGES {
                return Err(err(format!(
                    "too many edges: a Hackenbush graph has at most {MAX_EDGES}"
                )));
            }
            edges.push(Edge { u, v, colour });
            line_of.push(line.number);
        }
        let whole = |msg: &str| Error::InputWhole {
            file: name.to_string(),
            msg: msg.to_string(),
        };
        if edges.is_empty() {
            return Err(whole(
                "contains no edges (expected lines 'u v C' with C one of B, R, G)",
            ));
        }
        if !edges.iter().any(|e| e.u == 0 || e.v == 0) {
            return Err(whole(
                "no edge touches the ground: vertex 0 is the ground and some edge must start there",
            ));
        }
        let game = Self::assemble(
            format!("hackenbush:{name}"),
            Some(Source::of(name, bytes)),
            edges,
        );
        let floating = game.all & !game.grounded(game.all);
        if floating != 0 {
            let i = floating.trailing_zeros() as usize;
            let e = game.edges[i];
            return Err(Error::Input {
                file: name.to_string(),
                line: line_of[i],
                msg: format!(
                    "edge {}-{} is not connected to the ground (vertex 0) through other edges",
                    e.u, e.v
                ),
            });
        }
        game.enumerate(max_memory)
    }

    /// `hackenbush-stalk:BRR`: a single stalk, edges listed from the ground up.
    pub fn parse_stalk(arg: &str, max_memory: u64) -> Result<Hackenbush> {
        let spec = format!("hackenbush-stalk:{arg}");
        let err = |msg: String| Error::Spec {
            spec: spec.clone(),
            msg,
        };
        let mut edges = Vec::new();
        for (i, c) in arg.chars().enumerate() {
            let colour = Colour::from_spec_letter(c).ok_or_else(|| {
                err(format!(
                    "character {} is '{c}', not an edge colour (B, R, G, or CGSuite's l, r, e)",
                    i + 1
                ))
            })?;
            if edges.len() == MAX_EDGES {
                return Err(err(format!(
                    "more than {MAX_EDGES} edges; a Hackenbush position has at most {MAX_EDGES}"
                )));
            }
            let k = edges.len() as u64;
            edges.push(Edge {
                u: k,
                v: k + 1,
                colour,
            });
        }
        Self::assemble(spec, None, edges).enumerate(max_memory)
    }

    /// `hackenbush-tree:l(l;rl)`: a tree rooted at the ground, in the grammar of
    /// `docs/NOTATION.md`.
    pub fn parse_tree(arg: &str, max_memory: u64) -> Result<Hackenbush> {
        let spec = format!("hackenbush-tree:{arg}");
        // The parser stops at the edge beyond MAX_EDGES.
        let edges = TreeParser::parse(arg).map_err(|e| Error::Spec {
            spec: spec.clone(),
            msg: e.to_string(),
        })?;
        Self::assemble(spec, None, edges).enumerate(max_memory)
    }

    /// The index of a position text ([`Notation::parse_position`]).
    pub(super) fn read_position(&self, text: &str) -> Result<u64, PositionError> {
        let t = text.trim();
        let (body, right) = match t.rsplit_once('/') {
            Some((b, "L" | "l")) => (b, false),
            Some((b, "R" | "r")) => (b, true),
            Some((_, s)) => {
                return Err(PositionError::new(
                    text,
                    format!("the mover suffix is /L or /R, not /{s}"),
                ));
            }
            None => (t, false),
        };
        let chars: Vec<char> = body.chars().collect();
        if chars.len() != self.edges.len() {
            return Err(PositionError::new(
                text,
                format!(
                    "expected {} edge characters (one per edge in input order, e.g. '{}') but found {}",
                    self.edges.len(),
                    self.describe_set(self.all),
                    chars.len()
                ),
            ));
        }
        let mut set = 0u64;
        for (i, (&c, e)) in chars.iter().zip(&self.edges).enumerate() {
            if c == '.' {
                continue;
            }
            if Colour::from_file_letter(c) != Some(e.colour) {
                return Err(PositionError::new(
                    text,
                    format!(
                        "character {} is '{c}' but edge e{i} ({}-{}) is {}: write '{}' when present, '.' when gone",
                        i + 1,
                        e.u,
                        e.v,
                        e.colour.name(),
                        e.colour.letter()
                    ),
                ));
            }
            set |= 1 << i;
        }
        let grounded = self.grounded(set);
        if grounded != set {
            let free: Vec<String> = bits(set & !grounded).map(|i| format!("e{i}")).collect();
            return Err(PositionError::new(
                text,
                format!(
                    "edge(s) {} are not connected to the ground, so this is no position (without them it is '{}/{}')",
                    free.join(", "),
                    self.describe_set(grounded),
                    if right { 'R' } else { 'L' }
                ),
            ));
        }
        Ok(self.rank_of(set, right))
    }
}

/// Recursive descent over the tree grammar of `docs/NOTATION.md`:
///
/// ```text
/// tree   := forest?            (the empty tree is the empty position)
/// forest := chain (';' chain)*
/// chain  := edge+ ('(' forest ')')?
/// edge   := 'l' | 'b' | 'r' | 'e' | 'g'   (either case)
/// ```
///
/// Whitespace is ignored. Edges are numbered in the order their letters appear.
pub(super) struct TreeParser {
    /// Non-blank characters with their 1-based place in the text.
    chars: Vec<(usize, char)>,
    at: usize,
    edges: Vec<Edge>,
}

/// Why a tree's text is not a Hackenbush forest (`at`: the 1-based character, `found` the one
/// there).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TreeError {
    #[error("unexpected ')' at character {at}: no '(' is open")]
    Unopened { at: usize },
    #[error(
        "unexpected '{found}' at character {at}: a branch group '(...)' only follows edge letters and ends its chain"
    )]
    Unexpected { at: usize, found: char },
    #[error("more than {max} edges; a Hackenbush position has at most {max}")]
    TooManyEdges { max: usize },
    #[error(
        "a branch is empty at the end of the text: expected an edge letter (l, r, e or B, R, G)"
    )]
    EmptyAtEnd,
    #[error(
        "expected an edge letter (l, r, e or B, R, G) at character {at} but found '{found}' (a branch cannot be empty)"
    )]
    EmptyBranch { at: usize, found: char },
    #[error(
        "expected ';' or ')' at character {at} but found '{found}' (the '(' at character {open} is still open)"
    )]
    Unclosed { at: usize, found: char, open: usize },
    #[error("the '(' at character {open} is never closed")]
    NeverClosed { open: usize },
}

impl TreeParser {
    pub(super) fn parse(text: &str) -> std::result::Result<Vec<Edge>, TreeError> {
        let chars: Vec<(usize, char)> = text
            .chars()
            .enumerate()
            .filter(|(_, c)| !c.is_whitespace())
            .map(|(i, c)| (i + 1, c))
            .collect();
        let mut p = TreeParser {
            chars,
            at: 0,
            edges: Vec::new(),
        };
        if p.chars.is_empty() {
            return Ok(Vec::new());
        }
        p.forest(0)?;
        if let Some((i, c)) = p.peek() {
            return Err(if c == ')' {
                TreeError::Unopened { at: i }
            } else {
                TreeError::Unexpected { at: i, found: c }
            });
        }
        Ok(p.edges)
    }

    fn peek(&self) -> Option<(usize, char)> {
        self.chars.get(self.at).copied()
    }

    fn forest(&mut self, base: u64) -> std::result::Result<(), TreeError> {
        loop {
            self.chain(base)?;
            match self.peek() {
                Some((_, ';')) => self.at += 1,
                _ => return Ok(()),
            }
        }
    }

    fn chain(&mut self, base: u64) -> std::result::Result<(), TreeError> {
        let mut top = base;
        let start = self.edges.len();
        while let Some(colour) = self.peek().and_then(|(_, c)| Colour::from_spec_letter(c)) {
            let v = self.edges.len() as u64 + 1;
            self.edges.push(Edge { u: top, v, colour });
            top = v;
            self.at += 1;
            if self.edges.len() > MAX_EDGES {
                return Err(TreeError::TooManyEdges { max: MAX_EDGES });
            }
        }
        if self.edges.len() == start {
            return Err(match self.peek() {
                None => TreeError::EmptyAtEnd,
                Some((i, c)) => TreeError::EmptyBranch { at: i, found: c },
            });
        }
        if let Some((open, '(')) = self.peek() {
            self.at += 1;
            self.forest(top)?;
            match self.peek() {
                Some((_, ')')) => self.at += 1,
                Some((i, c)) => {
                    return Err(TreeError::Unclosed {
                        at: i,
                        found: c,
                        open,
                    });
                }
                None => return Err(TreeError::NeverClosed { open }),
            }
        }
        Ok(())
    }
}

/// The text of a random connected Hackenbush graph file with `edges` edges over at most
/// `vertices` vertices besides the ground: each edge starts at the ground or at a vertex an
/// earlier edge reached, and ends anywhere, so loops, multi-edges and cycles all occur. Colours
/// are drawn from `colours`. The same seed gives the same text everywhere.
pub fn random_text(edges: usize, vertices: u64, colours: &[Colour], seed: u64) -> String {
    let mut rng = SplitMix64(seed);
    let mut reached = vec![0u64];
    let mut s = format!("# random Hackenbush graph: {edges} edges, seed {seed}\n");
    for _ in 0..edges {
        let u = reached[rng.below(reached.len() as u64) as usize];
        let v = rng.below(vertices + 1);
        if !reached.contains(&v) {
            reached.push(v);
        }
        let c = colours[rng.below(colours.len() as u64) as usize];
        let _ = writeln!(s, "{u} {v} {}", c.letter());
    }
    s
}
