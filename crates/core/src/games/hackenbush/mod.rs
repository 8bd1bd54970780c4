//! Red-Blue-Green Hackenbush on a small graph with a ground vertex (vertex 0). Left removes blue
//! or green edges, Right red or green ones; whatever a removal disconnects from the ground falls
//! away with it, and the player who cannot move loses. Three specs make one: `hackenbush:FILE`
//! (`u v C` lines), `hackenbush-stalk:BRR` and `hackenbush-tree:l(l;rl)` (the spec is the
//! definition; grammar in `docs/NOTATION.md`).
//!
//! Indexing: an edge set is a bitmask over the edges in input order (at most [`MAX_EDGES`]).
//! Every *grounded* set (each edge joined to the ground through present edges) is listed once,
//! in increasing order, in `sets`; position index = `2 * rank + mover` with mover 0 for Left and
//! 1 for Right. Sets with floating edges are no positions and get no index, so a stalk of n edges
//! takes 2(n + 1) indices rather than 2^(n+1). The one invariant: `sets` holds exactly the
//! grounded subsets of the edges, sorted, so every index names a position and the child and
//! parent enumerations below (which only ever produce grounded sets) can rank what they produce.
//!
//! Beyond win/loss, positions have exact values: a component without green edges is a number
//! (the simplicity rule over its options), a green-only component a nimber (mex over its
//! options), and a sum of such components the sum. They are computed on demand, memoised per
//! component, and reported by [`crate::game::Notation::annotate`] beside the outcome class read from
//! the table.
//!
//! The files: `parse` reads graph files, stalk and tree specs and position texts, `game` holds
//! the rules as a [`crate::game::Game`] and a [`crate::game::Tiered`] game, `values` the exact
//! values, and `picture` the web board's SVG.

mod family;
mod game;
mod parse;
mod picture;
mod values;

use std::collections::HashMap;
use std::sync::Mutex;

use rayon::prelude::*;

use crate::base::error::Result;
use crate::games::source::Source;
pub use parse::random_text;
pub use values::outcome_class;

/// Edge sets are `u64` bitmasks; one bit is kept free so counts never overflow.
pub const MAX_EDGES: usize = 63;

/// Edge sets per work unit of a tier (see [`crate::game::Tiered::visit_tier`]).
const TIER_UNIT: usize = 4096;

/// Vertex ids in a file must be below this.
pub const MAX_VERTEX_ID: u64 = u32::MAX as u64;

/// The colour of an edge: who may remove it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Colour {
    /// Left's.
    Blue,
    /// Right's.
    Red,
    /// Either player's.
    Green,
}

impl Colour {
    /// The letter in files and position texts: `B`, `R`, `G`.
    pub fn letter(self) -> char {
        match self {
            Colour::Blue => 'B',
            Colour::Red => 'R',
            Colour::Green => 'G',
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Colour::Blue => "blue",
            Colour::Red => "red",
            Colour::Green => "green",
        }
    }

    /// A colour letter of a graph file: `B`, `R` or `G`, either case.
    pub fn from_file_letter(c: char) -> Option<Colour> {
        match c.to_ascii_uppercase() {
            'B' => Some(Colour::Blue),
            'R' => Some(Colour::Red),
            'G' => Some(Colour::Green),
            _ => None,
        }
    }

    /// A colour letter of the stalk and tree specs: retrodb's `B`, `R`, `G` or CGSuite's `l`
    /// (blue), `r` (red), `e` (green), either case.
    pub fn from_spec_letter(c: char) -> Option<Colour> {
        match c.to_ascii_lowercase() {
            'l' | 'b' => Some(Colour::Blue),
            'r' => Some(Colour::Red),
            'e' | 'g' => Some(Colour::Green),
            _ => None,
        }
    }
}

/// An edge as the input gave it: vertex ids (0 is the ground) and colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    pub u: u64,
    pub v: u64,
    pub colour: Colour,
}

pub struct Hackenbush {
    spec: String,
    source: Option<Source>,
    edges: Vec<Edge>,
    /// Per edge, its endpoints as a bitmask of dense vertex numbers (bit 0 is the ground).
    ends: Vec<u128>,
    /// Per edge, the edges sharing an endpoint with it (itself included).
    adjacent: Vec<u64>,
    /// Per edge, the edges sharing a non-ground endpoint with it (components meet only at the
    /// ground).
    through: Vec<u64>,
    /// The edges touching the ground.
    at_ground: u64,
    all: u64,
    green: u64,
    /// The edges Left (`[0]`) and Right (`[1]`) may remove.
    removable: [u64; 2],
    /// Every grounded edge set, increasing.
    sets: Vec<u64>,
    max_children: u64,
    memo: Mutex<values::Memo>,
}

impl std::fmt::Debug for Hackenbush {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hackenbush")
            .field("spec", &self.spec)
            .field("edges", &self.edges)
            .field("positions", &(self.sets.len() * 2))
            .finish_non_exhaustive()
    }
}

/// The bit numbers set in `mask`, lowest first.
fn bits(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let b = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            b
        })
    })
}

impl Hackenbush {
    /// Builds the adjacency masks; the edge list must be at most [`MAX_EDGES`] long.
    fn assemble(spec: String, source: Option<Source>, edges: Vec<Edge>) -> Hackenbush {
        let mut dense: HashMap<u64, usize> = HashMap::from([(0, 0)]);
        let mut id = |v: u64| {
            let n = dense.len();
            *dense.entry(v).or_insert(n)
        };
        let ends: Vec<u128> = edges
            .iter()
            .map(|e| (1u128 << id(e.u)) | (1u128 << id(e.v)))
            .collect();
        let n = edges.len();
        let mut incident = vec![0u64; dense.len()];
        for (i, &m) in ends.iter().enumerate() {
            for (v, inc) in incident.iter_mut().enumerate() {
                if m >> v & 1 == 1 {
                    *inc |= 1 << i;
                }
            }
        }
        let touching = |m: u128, skip_ground: bool| {
            (0..incident.len())
                .filter(|&v| m >> v & 1 == 1 && !(skip_ground && v == 0))
                .fold(0u64, |acc, v| acc | incident[v])
        };
        let adjacent: Vec<u64> = ends.iter().map(|&m| touching(m, false)).collect();
        let through: Vec<u64> = ends.iter().map(|&m| touching(m, true)).collect();
        let mask_of = |keep: &dyn Fn(Colour) -> bool| {
            edges
                .iter()
                .enumerate()
                .filter(|(_, e)| keep(e.colour))
                .fold(0u64, |acc, (i, _)| acc | 1 << i)
        };
        let removable = [
            mask_of(&|c| c != Colour::Red),
            mask_of(&|c| c != Colour::Blue),
        ];
        let green = mask_of(&|c| c == Colour::Green);
        let all = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        Hackenbush {
            spec,
            source,
            edges,
            ends,
            adjacent,
            through,
            at_ground: incident[0],
            all,
            green,
            max_children: removable
                .iter()
                .map(|m| m.count_ones() as u64)
                .max()
                .unwrap_or(0),
            removable,
            sets: Vec::new(),
            memo: Mutex::new(values::Memo::default()),
        }
    }

    /// Lists every grounded set, after counting them: the memory the list needs is checked
    /// against `max_memory` before any of it is taken (counting stops at the limit).
    fn enumerate(mut self, max_memory: u64) -> Result<Hackenbush> {
        let what = || format!("listing the positions of {}", self.spec);
        let fits = max_memory / 8;
        let mut count = 0u64;
        let complete = self.grow(0, self.at_ground, 0, &mut |_| {
            count += 1;
            count <= fits
        });
        if !complete {
            return Err(crate::base::error::Error::Memory {
                what: format!(
                    "{}, more than {count} grounded edge sets at 8 bytes each (counting stopped \
                     there)",
                    what()
                ),
                need: count.saturating_mul(8),
                limit: max_memory,
            });
        }
        crate::base::memory::check(what(), count * 8, max_memory)?;
        let mut all = Vec::with_capacity(count as usize);
        self.grow(0, self.at_ground, 0, &mut |s| {
            all.push(s);
            true
        });
        all.par_sort_unstable();
        self.sets = all;
        Ok(self)
    }

    /// Calls `f` on every grounded edge set that contains `set` and none of `excl`, each once,
    /// until it returns false (then false). `set` is grounded; `cand` holds the edges that may
    /// be added next: those touching `set` or the ground, outside `set` and `excl`. Each set is
    /// reached along one path: its candidate edges are taken in order, an edge passed over is
    /// excluded from the later branches.
    fn grow(
        &self,
        set: u64,
        mut cand: u64,
        mut excl: u64,
        f: &mut impl FnMut(u64) -> bool,
    ) -> bool {
        if !f(set) {
            return false;
        }
        while cand != 0 {
            let e = cand.trailing_zeros() as usize;
            let b = 1u64 << e;
            cand &= !b;
            let next = set | b;
            if !self.grow(next, (cand | self.adjacent[e]) & !next & !excl, excl, f) {
                return false;
            }
            excl |= b;
        }
        true
    }

    pub fn source(&self) -> Option<&Source> {
        self.source.as_ref()
    }

    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// The number of grounded edge sets (half the number of positions).
    pub fn set_count(&self) -> u64 {
        self.sets.len() as u64
    }

    /// The edge set of a position.
    pub fn set_of(&self, pos: u64) -> u64 {
        self.sets[(pos / 2) as usize]
    }

    /// Whether Right is to move at `pos`.
    pub fn right_to_move(pos: u64) -> bool {
        pos & 1 == 1
    }

    /// The index of edge set `set` with the given mover, if `set` is grounded.
    pub fn index(&self, set: u64, right_to_move: bool) -> Option<u64> {
        let r = self.sets.binary_search(&set).ok()? as u64;
        Some(2 * r + right_to_move as u64)
    }

    fn rank_of(&self, set: u64, right_to_move: bool) -> u64 {
        self.index(set, right_to_move)
            .expect("moves and unmoves only produce grounded sets, and all of them are listed")
    }

    /// The edges of `s` still joined to the ground through edges of `s`.
    pub fn grounded(&self, s: u64) -> u64 {
        let mut reached = 0u64;
        let mut frontier = self.at_ground & s;
        while frontier != 0 {
            reached |= frontier;
            let next = bits(frontier).fold(0u64, |acc, e| acc | self.adjacent[e]);
            frontier = next & s & !reached;
        }
        reached
    }

    /// The edges that touch the ground or a vertex of an edge in `s`.
    fn touch(&self, s: u64) -> u64 {
        bits(s).fold(self.at_ground, |acc, e| acc | self.adjacent[e])
    }

    /// The vertices of `s`, and the ground.
    fn vertices(&self, s: u64) -> u128 {
        bits(s).fold(1u128, |acc, e| acc | self.ends[e])
    }

    /// The components of `s`: edge sets that meet only at the ground (their game is the sum).
    pub fn components(&self, s: u64) -> Vec<u64> {
        let mut out = Vec::new();
        let mut rest = s;
        while rest != 0 {
            let mut comp = rest & rest.wrapping_neg();
            let mut frontier = comp;
            while frontier != 0 {
                let next = bits(frontier).fold(0u64, |acc, e| acc | self.through[e]);
                frontier = next & rest & !comp;
                comp |= frontier;
            }
            out.push(comp);
            rest &= !comp;
        }
        out
    }

    /// Calls `f` with `chosen` plus every edge set `D` drawn from `pool` that is joined through
    /// its own edges to the vertices behind `touch` (the edges at the root vertex), each once.
    /// Branches on the lowest candidate edge: sets with it, then sets without it.
    fn rooted_sets(
        &self,
        pool: u64,
        touch: u64,
        chosen: u64,
        excluded: u64,
        f: &mut dyn FnMut(u64),
    ) {
        let cand = touch & pool & !chosen & !excluded;
        if cand == 0 {
            f(chosen);
            return;
        }
        let c = cand.trailing_zeros() as usize;
        self.rooted_sets(pool, touch | self.adjacent[c], chosen | 1 << c, excluded, f);
        self.rooted_sets(pool, touch, chosen, excluded | 1 << c, f);
    }

    fn describe_set(&self, set: u64) -> String {
        self.edges
            .iter()
            .enumerate()
            .map(|(i, e)| {
                if set >> i & 1 == 1 {
                    e.colour.letter()
                } else {
                    '.'
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
