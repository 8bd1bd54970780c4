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
//! component, and reported by [`Game::annotate`] beside the outcome class read from the table.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Mutex;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::game::{
    Annotations, Game, Move, PositionError, SplitMix64, Status, TierPosition, TierVisitor, Tiered,
    Value,
};
use crate::games::source::{self, Source};
use crate::oracle::surreal::{self, Dyadic, GameValue};

/// Edge sets are `u64` bitmasks; one bit is kept free so counts never overflow.
pub const MAX_EDGES: usize = 63;

/// Edge sets per work unit of a tier (see [`Tiered::visit_tier`]).
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

/// A hasher for edge-set keys: the SplitMix64 finaliser, cheaper than the default SipHash and
/// mixing every key bit into the low bits the table indexes with.
#[derive(Default)]
struct MaskHasher(u64);

impl std::hash::Hasher for MaskHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = self.0.rotate_left(17) ^ x;
    }

    fn finish(&self) -> u64 {
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

type Memo = HashMap<u64, Part, std::hash::BuildHasherDefault<MaskHasher>>;

/// What is known of one component's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    /// Red-blue: a number.
    Number(Dyadic),
    /// Green only: a nimber.
    Nimber(u64),
    /// Mixed green and red/blue (or out of range): no closed form here.
    Unknown,
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
    memo: Mutex<Memo>,
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

/// The outcome class from the values of the same position with Left and with Right to move:
/// `L` Left wins whoever starts, `R` Right does, `N` the mover wins, `P` the mover loses.
pub fn outcome_class(left_to_move: Value, right_to_move: Value) -> Option<char> {
    match (left_to_move, right_to_move) {
        (Value::Win, Value::Loss) => Some('L'),
        (Value::Loss, Value::Win) => Some('R'),
        (Value::Win, Value::Win) => Some('N'),
        (Value::Loss, Value::Loss) => Some('P'),
        _ => None,
    }
}

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
                        "unknown colour '{word}' (expected B for blue/Left, R for red/Right or G for green)"
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
        let edges = TreeParser::parse(arg).map_err(|msg| Error::Spec {
            spec: spec.clone(),
            msg,
        })?;
        Self::assemble(spec, None, edges).enumerate(max_memory)
    }

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
            memo: Mutex::new(Memo::default()),
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
            return Err(crate::error::Error::Memory {
                what: format!(
                    "{}, more than {count} grounded edge sets at 8 bytes each (counting stopped \
                     there)",
                    what()
                ),
                need: count.saturating_mul(8),
                limit: max_memory,
            });
        }
        crate::memory::check(what(), count * 8, max_memory)?;
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

    /// The children of set `set` with the given mover, as they are read.
    fn children(&self, set: u64, right_to_move: bool) -> Children<'_> {
        Children {
            game: self,
            set,
            edges: set & self.removable[right_to_move as usize],
            right: right_to_move,
        }
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

    /// The exact value of a position's edge set, when every component is red-blue (a number)
    /// or green-only (a nimber); `None` when some component mixes green with red or blue.
    pub fn game_value(&self, pos: u64) -> Option<GameValue> {
        self.value_of_set(self.set_of(pos))
    }

    /// As [`Self::game_value`], for a grounded edge set.
    pub fn value_of_set(&self, set: u64) -> Option<GameValue> {
        let mut memo = self.memo.lock().unwrap_or_else(|e| e.into_inner());
        self.sum_value(set, &mut memo)
    }

    fn sum_value(&self, set: u64, memo: &mut Memo) -> Option<GameValue> {
        let mut total = GameValue::ZERO;
        for comp in self.components(set) {
            let v = match self.component_value(comp, memo) {
                Part::Number(x) => GameValue {
                    number: x,
                    nimber: 0,
                },
                Part::Nimber(n) => GameValue {
                    number: Dyadic::ZERO,
                    nimber: n,
                },
                Part::Unknown => return None,
            };
            total = total.checked_add(v)?;
        }
        Some(total)
    }

    /// The value of one component (a grounded set whose edges meet only at the ground).
    fn component_value(&self, comp: u64, memo: &mut Memo) -> Part {
        if let Some(&p) = memo.get(&comp) {
            return p;
        }
        let green = comp & self.green;
        let part = if green == 0 {
            // {Left's options | Right's options}: only the best of each side matters.
            let mut lo: Option<Dyadic> = None;
            let mut hi: Option<Dyadic> = None;
            let mut known = true;
            for e in bits(comp) {
                let child = self.grounded(comp & !(1 << e));
                match self.sum_value(child, memo) {
                    Some(v) if v.nimber == 0 => {
                        if self.removable[0] >> e & 1 == 1 {
                            lo = Some(lo.map_or(v.number, |l| l.max(v.number)));
                        } else {
                            hi = Some(hi.map_or(v.number, |h| h.min(v.number)));
                        }
                    }
                    _ => {
                        known = false;
                        break;
                    }
                }
            }
            match known.then(|| surreal::simplest_between(lo, hi)).flatten() {
                Some(x) => Part::Number(x),
                None => Part::Unknown,
            }
        } else if green == comp {
            let mut options = Vec::new();
            for e in bits(comp) {
                let child = self.grounded(comp & !(1 << e));
                match self.sum_value(child, memo) {
                    Some(v) => options.push(v.nimber),
                    None => {
                        memo.insert(comp, Part::Unknown);
                        return Part::Unknown;
                    }
                }
            }
            Part::Nimber(surreal::mex(options))
        } else {
            Part::Unknown
        };
        memo.insert(comp, part);
        part
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

impl Game for Hackenbush {
    fn spec(&self) -> String {
        self.spec.clone()
    }

    fn size(&self) -> u64 {
        2 * self.sets.len() as u64
    }

    fn status(&self, pos: u64) -> Status {
        if pos < self.size() {
            Status::Open
        } else {
            Status::Unused
        }
    }

    #[inline]
    fn for_each_child(&self, pos: u64, f: impl FnMut(u64)) {
        self.children(self.set_of(pos), Self::right_to_move(pos))
            .for_each(f);
    }

    /// The parents of set S (mover m) are the sets T = S + e + D, mover m', where e is an edge
    /// m' may remove that touches the ground or a vertex of S, and D is what hangs from e alone:
    /// empty when both ends of e are vertices of S (or the ground), otherwise any edge set
    /// joined to e's far end w through edges that avoid S's vertices (removing e makes exactly D
    /// fall). Each pair (T, e) is produced once: e is the only edge of T - S touching S's
    /// vertices, so T determines e.
    fn for_each_parent(&self, pos: u64, mut f: impl FnMut(u64)) {
        let set = self.set_of(pos);
        let parent_right = !Self::right_to_move(pos);
        let touch = self.touch(set);
        let v0 = self.vertices(set);
        let pool = self.all & !touch;
        let mut emit = |t: u64| f(self.rank_of(t, parent_right));
        for e in bits(self.removable[parent_right as usize] & touch & !set) {
            let far = self.ends[e] & !v0;
            if far == 0 {
                emit(set | 1 << e);
            } else {
                // The edges sharing an end with e: those at its near end touch S's vertices and
                // are outside the pool, so the candidates are the pool's edges at w.
                self.rooted_sets(pool, self.adjacent[e], set | 1 << e, 0, &mut emit);
            }
        }
    }

    fn max_children(&self) -> u64 {
        self.max_children
    }

    fn parse_position(&self, text: &str) -> Result<u64, PositionError> {
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

    fn position_text(&self, pos: u64) -> String {
        let mover = if Self::right_to_move(pos) { "R" } else { "L" };
        format!("{}/{mover}", self.describe_set(self.set_of(pos)))
    }

    fn moves(&self, pos: u64) -> Vec<Move> {
        let set = self.set_of(pos);
        let right = Self::right_to_move(pos);
        bits(set & self.removable[right as usize])
            .map(|e| Move {
                name: format!("e{e}"),
                child: self.rank_of(self.grounded(set & !(1 << e)), !right),
            })
            .collect()
    }

    fn render(&self, pos: u64) -> Option<String> {
        let set = self.set_of(pos);
        let mut s = format!(
            "{} to move; edges present:\n",
            if Self::right_to_move(pos) {
                "Right (red)"
            } else {
                "Left (blue)"
            }
        );
        for i in bits(set) {
            let e = self.edges[i];
            let _ = writeln!(s, "  e{i}  {}-{}  {}", e.u, e.v, e.colour.name());
        }
        Some(s)
    }

    fn annotate(
        &self,
        pos: u64,
        stored: &dyn Fn(u64) -> Result<Option<Value>>,
    ) -> Result<Annotations> {
        let mut a = Annotations::default();
        let base = pos & !1;
        if let (Some(l), Some(r)) = (stored(base)?, stored(base | 1)?)
            && let Some(c) = outcome_class(l, r)
        {
            a.push("outcome", c.to_string());
        }
        if let Some(v) = self.game_value(pos) {
            a.push("game_value", v.to_string());
        }
        Ok(a)
    }
}

impl Tiered for Hackenbush {
    /// Finite and ended by the player who cannot move: never drawn.
    const DRAWS: bool = false;

    /// Tier `t` holds the sets with `t` edges gone. A move removes one edge *and* whatever
    /// falls with it, so the number of edges gone does not rise by exactly one per move (no
    /// [`Tiered::tier_range`]), but it strictly rises along every move, which is what tiers ask.
    fn tier_count(&self) -> u32 {
        self.edges.len() as u32 + 1
    }

    /// Units are runs of [`TIER_UNIT`] consecutive sets; each keeps the sets of its tier.
    fn tier_units(&self, _t: u32) -> u64 {
        self.sets.len().div_ceil(TIER_UNIT) as u64
    }

    fn visit_tier(&self, t: u32, unit: u64, v: &mut impl TierVisitor) {
        let present = (self.edges.len() as u32).checked_sub(t);
        let start = (unit as usize)
            .saturating_mul(TIER_UNIT)
            .min(self.sets.len());
        let end = (start + TIER_UNIT).min(self.sets.len());
        for (k, &set) in self.sets[start..end].iter().enumerate() {
            if Some(set.count_ones()) != present {
                continue;
            }
            // Children come as they are read: each costs a flood and a search, and a
            // values-only solve stops at the first lost one.
            let pos = 2 * (start + k) as u64;
            v.visit_pair(
                TierPosition {
                    index: pos,
                    status: Status::Open,
                    children: self.children(set, false),
                },
                TierPosition {
                    index: pos + 1,
                    status: Status::Open,
                    children: self.children(set, true),
                },
            );
        }
    }

    fn tier_range(&self, _t: u32) -> Option<std::ops::Range<u64>> {
        None
    }
}

/// The children of a position, computed as they are read: one per edge the mover may remove,
/// lowest edge first (the order of [`Game::for_each_child`]).
struct Children<'a> {
    game: &'a Hackenbush,
    set: u64,
    /// The removable edges not yet taken.
    edges: u64,
    right: bool,
}

impl Iterator for Children<'_> {
    type Item = u64;

    #[inline]
    fn next(&mut self) -> Option<u64> {
        if self.edges == 0 {
            return None;
        }
        let e = self.edges.trailing_zeros();
        self.edges &= self.edges - 1;
        let g = self.game;
        Some(g.rank_of(g.grounded(self.set & !(1 << e)), !self.right))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.edges.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Children<'_> {}

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
struct TreeParser {
    /// Non-blank characters with their 1-based place in the text.
    chars: Vec<(usize, char)>,
    at: usize,
    edges: Vec<Edge>,
}

impl TreeParser {
    fn parse(text: &str) -> std::result::Result<Vec<Edge>, String> {
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
                format!("unexpected ')' at character {i}: no '(' is open")
            } else {
                format!(
                    "unexpected '{c}' at character {i}: a branch group '(...)' only follows edge letters and ends its chain"
                )
            });
        }
        Ok(p.edges)
    }

    fn peek(&self) -> Option<(usize, char)> {
        self.chars.get(self.at).copied()
    }

    fn forest(&mut self, base: u64) -> std::result::Result<(), String> {
        loop {
            self.chain(base)?;
            match self.peek() {
                Some((_, ';')) => self.at += 1,
                _ => return Ok(()),
            }
        }
    }

    fn chain(&mut self, base: u64) -> std::result::Result<(), String> {
        let mut top = base;
        let start = self.edges.len();
        while let Some(colour) = self.peek().and_then(|(_, c)| Colour::from_spec_letter(c)) {
            let v = self.edges.len() as u64 + 1;
            self.edges.push(Edge { u: top, v, colour });
            top = v;
            self.at += 1;
            if self.edges.len() > MAX_EDGES {
                return Err(format!(
                    "more than {MAX_EDGES} edges; a Hackenbush position has at most {MAX_EDGES}"
                ));
            }
        }
        if self.edges.len() == start {
            return Err(match self.peek() {
                None => "a branch is empty at the end of the text: expected an edge letter (l, r, e or B, R, G)".to_string(),
                Some((i, c)) => format!(
                    "expected an edge letter (l, r, e or B, R, G) at character {i} but found '{c}' (a branch cannot be empty)"
                ),
            });
        }
        if let Some((open, '(')) = self.peek() {
            self.at += 1;
            self.forest(top)?;
            match self.peek() {
                Some((_, ')')) => self.at += 1,
                Some((i, c)) => {
                    return Err(format!(
                        "expected ';' or ')' at character {i} but found '{c}' (the '(' at character {open} is still open)"
                    ));
                }
                None => return Err(format!("the '(' at character {open} is never closed")),
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

impl Hackenbush {
    /// The web board's picture of a position: the ground at the bottom, vertices in rows by
    /// their distance from the ground, present edges in their colours (removed ones faint and
    /// dotted), and each move in `moves` (edge, name) as a clickable `.mark` at its edge's middle
    /// (see [`crate::games::cell::picture::board_svg`]).
    pub fn svg(&self, pos: u64, moves: &[(usize, String)]) -> String {
        use crate::games::cell::picture::{BLUE, GREEN, RED, svg_move, svg_open};
        let set = self.set_of(pos);
        // Distance from the ground over all edges; vertices nothing joins to the ground go on
        // the top row.
        let mut depth: HashMap<u64, usize> = HashMap::from([(0, 0)]);
        let mut rows: Vec<Vec<u64>> = vec![vec![0]];
        loop {
            let last = rows.len() - 1;
            let mut next = Vec::new();
            for e in &self.edges {
                for (a, b) in [(e.u, e.v), (e.v, e.u)] {
                    if depth.get(&a) == Some(&last) && !depth.contains_key(&b) {
                        depth.insert(b, last + 1);
                        next.push(b);
                    }
                }
            }
            if next.is_empty() {
                break;
            }
            rows.push(next);
        }
        let mut stray: Vec<u64> = Vec::new();
        for e in &self.edges {
            for v in [e.u, e.v] {
                if let std::collections::hash_map::Entry::Vacant(e) = depth.entry(v) {
                    e.insert(rows.len());
                    stray.push(v);
                }
            }
        }
        if !stray.is_empty() {
            rows.push(stray);
        }
        let (step, width, margin) = (80.0f64, 420.0f64, 30.0f64);
        let ground = margin + step * (rows.len() - 1) as f64 + 20.0;
        let mut at: HashMap<u64, (f64, f64)> = HashMap::new();
        for (d, row) in rows.iter().enumerate().skip(1) {
            for (k, &v) in row.iter().enumerate() {
                let x = margin + (width - 2.0 * margin) * (k as f64 + 0.5) / row.len() as f64;
                at.insert(v, (x, ground - step * d as f64));
            }
        }
        let height = ground + 50.0;
        let mut s = svg_open(width, height);
        let _ = writeln!(
            s,
            "<line x1=\"0\" y1=\"{ground:.1}\" x2=\"{width:.0}\" y2=\"{ground:.1}\" stroke=\"#6b4f2a\" stroke-width=\"4\"/>"
        );
        let mut seen: HashMap<(u64, u64), u32> = HashMap::new();
        let mut marks = Vec::new();
        for (i, e) in self.edges.iter().enumerate() {
            // An edge at the ground stands on its own foot below its other end.
            let end = |v: u64, other: u64| {
                if v == 0 {
                    (at.get(&other).map_or(width / 2.0, |p| p.0), ground)
                } else {
                    at[&v]
                }
            };
            let ((x1, y1), (x2, y2)) = (end(e.u, e.v), end(e.v, e.u));
            let k = *seen
                .entry((e.u.min(e.v), e.u.max(e.v)))
                .and_modify(|c| *c += 1)
                .or_insert(0);
            let (path, mid) = if e.u == e.v {
                (
                    format!(
                        "M {x1:.1} {y1:.1} C {:.1} {:.1} {:.1} {:.1} {x1:.1} {y1:.1}",
                        x1 - 30.0,
                        y1 - 45.0,
                        x1 + 30.0,
                        y1 - 45.0
                    ),
                    (x1, y1 - 34.0),
                )
            } else {
                let bend = if k == 0 {
                    0.0
                } else {
                    (if k % 2 == 1 { 1.0 } else { -1.0 }) * 18.0 * k.div_ceil(2) as f64
                };
                let (dx, dy) = (x2 - x1, y2 - y1);
                let len = (dx * dx + dy * dy).sqrt().max(1.0);
                let (qx, qy) = (
                    (x1 + x2) / 2.0 - dy / len * bend * 2.0,
                    (y1 + y2) / 2.0 + dx / len * bend * 2.0,
                );
                (
                    format!("M {x1:.1} {y1:.1} Q {qx:.1} {qy:.1} {x2:.1} {y2:.1}"),
                    ((x1 + 2.0 * qx + x2) / 4.0, (y1 + 2.0 * qy + y2) / 4.0),
                )
            };
            let colour = match e.colour {
                Colour::Blue => BLUE,
                Colour::Red => RED,
                Colour::Green => GREEN,
            };
            let present = set >> i & 1 == 1;
            let style = if present {
                format!("stroke=\"{colour}\" stroke-width=\"6\"")
            } else {
                "stroke=\"#cccccc\" stroke-width=\"2\" stroke-dasharray=\"3 4\"".to_string()
            };
            let _ = writeln!(
                s,
                "<path d=\"{path}\" fill=\"none\" {style} stroke-linecap=\"round\"><title>e{i} {}-{} {}</title></path>",
                e.u,
                e.v,
                e.colour.name()
            );
            if let Some((_, name)) = moves.iter().find(|(edge, _)| *edge == i) {
                marks.push((name.clone(), mid));
            }
        }
        // Row by row, so the same position always gives the same bytes.
        for &v in rows.iter().skip(1).flatten() {
            let (x, y) = at[&v];
            let _ = writeln!(
                s,
                "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"4\" fill=\"#333\"><title>vertex {v}</title></circle>"
            );
        }
        for (name, (x, y)) in marks {
            svg_move(&mut s, &name, x, y, 8.0, 14.0);
        }
        let _ = writeln!(
            s,
            "<text x=\"8\" y=\"{:.0}\" font-size=\"14\">{} to move</text>\n</svg>",
            height - 14.0,
            if Self::right_to_move(pos) {
                "Right (red)"
            } else {
                "Left (blue)"
            }
        );
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::check_round_trip;

    fn file(text: &str) -> Result<Hackenbush> {
        Hackenbush::parse_file("h.txt", text.as_bytes(), u64::MAX)
    }

    #[test]
    fn lists_exactly_the_grounded_sets() {
        for seed in 0..30 {
            let text = random_text(9, 5, &[Colour::Blue, Colour::Red, Colour::Green], seed);
            let g = file(&text).unwrap();
            let brute: Vec<u64> = (0..1u64 << 9).filter(|&s| g.grounded(s) == s).collect();
            assert_eq!(g.sets, brute, "{text}");
        }
        let stalk = Hackenbush::parse_stalk("BRRGB", u64::MAX).unwrap();
        assert_eq!(stalk.size(), 12);
    }

    #[test]
    fn round_trip_on_random_graphs_with_loops_multi_edges_and_cycles() {
        let all = [Colour::Blue, Colour::Red, Colour::Green];
        for seed in 0..40 {
            let text = random_text(3 + (seed % 9) as usize, 1 + seed % 5, &all, seed);
            let g = file(&text).unwrap();
            check_round_trip(&g, 0..g.size()).unwrap_or_else(|e| panic!("{e}\n{text}"));
        }
        // Hand-made: a triangle with a pendant, a loop on the ground, a loop up high, a
        // double edge.
        let g = file("0 1 B\n1 2 R\n2 0 G\n2 3 B\n0 0 R\n3 3 G\n1 4 B\n1 4 R\n").unwrap();
        check_round_trip(&g, 0..g.size()).unwrap();
    }

    #[test]
    fn pruning_and_moves() {
        // A blue edge on the ground holding a red and a green edge above it.
        let g = file("0 1 B\n1 2 R\n1 3 G\n").unwrap();
        let full = g.parse_position("BRG/R").unwrap();
        let names: Vec<String> = g.moves(full).iter().map(|m| m.name.clone()).collect();
        assert_eq!(names, ["e1", "e2"]);
        let left = g.parse_position("BRG").unwrap();
        let m: Vec<String> = g
            .moves(left)
            .iter()
            .map(|m| g.position_text(m.child))
            .collect();
        // Cutting the trunk drops everything.
        assert_eq!(m, [".../R", "BR./R"]);
    }

    #[test]
    fn position_errors_are_clear() {
        let g = file("0 1 B\n1 2 R\n").unwrap();
        let e = g.parse_position("B").unwrap_err().to_string();
        assert!(e.contains("expected 2 edge characters"), "{e}");
        let e = g.parse_position("BB").unwrap_err().to_string();
        assert!(e.contains("edge e1 (1-2) is red"), "{e}");
        let e = g.parse_position(".R").unwrap_err().to_string();
        assert!(e.contains("e1 are not connected to the ground"), "{e}");
        assert!(e.ends_with("(without them it is '../L')"), "{e}");
        let e = g.parse_position("BR/X").unwrap_err().to_string();
        assert!(e.contains("/L or /R"), "{e}");
        assert_eq!(g.parse_position("BR"), g.parse_position("BR/L"));
        assert_ne!(g.parse_position("BR/R"), g.parse_position("BR/L"));
    }

    #[test]
    fn file_errors_name_file_and_line() {
        let e = file("0 1 B\n1 2 X\n").unwrap_err().to_string();
        assert_eq!(
            e,
            "h.txt:2: unknown colour 'X' (expected B for blue/Left, R for red/Right or G for green)"
        );
        let e = file("1 2 B\n2 3 R\n").unwrap_err().to_string();
        assert!(e.starts_with("h.txt: no edge touches the ground"), "{e}");
        let e = file("# only a comment\n").unwrap_err().to_string();
        assert!(e.starts_with("h.txt: contains no edges"), "{e}");
        let e = file("0 1 B\n# gap\n2 3 R\n").unwrap_err().to_string();
        assert!(
            e.starts_with("h.txt:3: edge 2-3 is not connected to the ground"),
            "{e}"
        );
        let e = file("0 1\n").unwrap_err().to_string();
        assert!(e.starts_with("h.txt:1: expected an edge 'u v C'"), "{e}");
        let e = file("0 -1 B\n").unwrap_err().to_string();
        assert!(e.starts_with("h.txt:1: negative vertex id"), "{e}");
        let e = file("0 a B\n").unwrap_err().to_string();
        assert!(e.starts_with("h.txt:1: 'a' is not a vertex id"), "{e}");
        let e = file("0 1 BR\n").unwrap_err().to_string();
        assert!(e.contains("unknown colour 'BR'"), "{e}");
        let many: String = (0..64).map(|i| format!("0 {} B\n", i + 1)).collect();
        let e = file(&many).unwrap_err().to_string();
        assert!(e.starts_with("h.txt:64: too many edges"), "{e}");
    }

    #[test]
    fn refuses_huge_pictures_before_listing_them() {
        // 40 edges on the ground: 2^40 grounded sets.
        let star: String = (0..40).map(|i| format!("0 {} B\n", i + 1)).collect();
        let e = Hackenbush::parse_file("h.txt", star.as_bytes(), 1 << 24).unwrap_err();
        assert!(matches!(e, Error::Memory { .. }), "{e}");
        assert!(
            e.to_string()
                .contains("listing the positions of hackenbush:h.txt"),
            "{e}"
        );
        let e = Hackenbush::parse_stalk(&"B".repeat(64), u64::MAX)
            .unwrap_err()
            .to_string();
        assert!(e.contains("more than 63 edges"), "{e}");
        let e = Hackenbush::parse_tree(&"l".repeat(70), u64::MAX)
            .unwrap_err()
            .to_string();
        assert!(e.contains("more than 63 edges"), "{e}");
        assert_eq!(
            Hackenbush::parse_stalk(&"R".repeat(63), u64::MAX)
                .unwrap()
                .size(),
            128
        );
    }

    #[test]
    fn tree_grammar() {
        let edges = TreeParser::parse("l(l;rl)").unwrap();
        let got: Vec<(u64, u64, char)> = edges
            .iter()
            .map(|e| (e.u, e.v, e.colour.letter()))
            .collect();
        assert_eq!(got, [(0, 1, 'B'), (1, 2, 'B'), (1, 3, 'R'), (3, 4, 'B')]);
        let edges = TreeParser::parse(" e e ; BR(g) ").unwrap();
        let got: Vec<(u64, u64, char)> = edges
            .iter()
            .map(|e| (e.u, e.v, e.colour.letter()))
            .collect();
        assert_eq!(
            got,
            [
                (0, 1, 'G'),
                (1, 2, 'G'),
                (0, 3, 'B'),
                (3, 4, 'R'),
                (4, 5, 'G')
            ]
        );
        assert!(TreeParser::parse("").unwrap().is_empty());
        for (bad, msg) in [
            ("l(l;rl", "the '(' at character 2 is never closed"),
            ("l)", "unexpected ')' at character 2"),
            (
                "l(;r)",
                "expected an edge letter (l, r, e or B, R, G) at character 3 but found ';'",
            ),
            ("l()", "at character 3 but found ')'"),
            ("(l)", "at character 1 but found '('"),
            ("lx", "unexpected 'x' at character 2"),
            ("l(r)(l)", "unexpected '(' at character 5"),
            ("l;", "a branch is empty at the end"),
            ("l(rq)", "expected ';' or ')' at character 4 but found 'q'"),
        ] {
            let e = TreeParser::parse(bad).unwrap_err();
            assert!(e.contains(msg), "{bad}: {e}");
        }
        let e = Hackenbush::parse_tree("l(x)", u64::MAX)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("game spec 'hackenbush-tree:l(x)': expected an edge letter"),
            "{e}"
        );
        let e = Hackenbush::parse_stalk("BRQ", u64::MAX)
            .unwrap_err()
            .to_string();
        assert!(e.contains("character 3 is 'Q', not an edge colour"), "{e}");
    }

    /// A canonical text of the subtree above vertex `v`: its branches' texts, sorted.
    fn canonical(children: &[Vec<(usize, char)>], v: usize) -> String {
        let mut parts: Vec<String> = children[v]
            .iter()
            .map(|&(c, colour)| format!("{colour}[{}]", canonical(children, c)))
            .collect();
        parts.sort();
        parts.concat()
    }

    /// Writes the forest above `v` in the tree syntax, each edge with its own letter.
    fn write_forest(children: &[Vec<(usize, char)>], v: usize, out: &mut String) {
        for (i, &(c, colour)) in children[v].iter().enumerate() {
            if i > 0 {
                out.push(';');
            }
            out.push(colour);
            let mut top = c;
            while children[top].len() == 1 {
                out.push(children[top][0].1);
                top = children[top][0].0;
            }
            if children[top].len() > 1 {
                out.push('(');
                write_forest(children, top, out);
                out.push(')');
            }
        }
    }

    proptest::proptest! {
        /// Any tree written in the tree syntax reads back as the same tree.
        #[test]
        fn tree_syntax_round_trips(
            shape in proptest::collection::vec((0usize..1000, 0usize..6), 0..40)
        ) {
            let letters = ['l', 'r', 'e', 'B', 'R', 'G'];
            let mut children = vec![Vec::new(); shape.len() + 1];
            for (k, &(p, c)) in shape.iter().enumerate() {
                children[p % (k + 1)].push((k + 1, letters[c]));
            }
            let mut text = String::new();
            write_forest(&children, 0, &mut text);
            let edges = TreeParser::parse(&text).unwrap();
            let mut parsed = vec![Vec::new(); edges.len() + 1];
            for e in &edges {
                parsed[e.u as usize].push((e.v as usize, e.colour.letter()));
            }
            let normal: Vec<Vec<(usize, char)>> = children
                .iter()
                .map(|cs| {
                    cs.iter()
                        .map(|&(v, l)| (v, Colour::from_spec_letter(l).unwrap().letter()))
                        .collect()
                })
                .collect();
            proptest::prop_assert_eq!(canonical(&parsed, 0), canonical(&normal, 0), "{}", text);
        }
    }

    #[test]
    fn components_meet_only_at_the_ground() {
        let g = file("0 1 B\n1 2 R\n0 3 G\n3 1 B\n0 4 R\n0 0 G\n").unwrap();
        let mut comps = g.components(g.all);
        comps.sort_unstable();
        assert_eq!(comps, [0b001111, 0b010000, 0b100000]);
    }

    #[test]
    fn values_of_small_positions() {
        let v = |spec: &str| {
            let g = Hackenbush::parse_tree(spec, u64::MAX).unwrap();
            g.value_of_set(g.all).map(|v| v.to_string())
        };
        assert_eq!(v("").as_deref(), Some("0"));
        assert_eq!(v("l").as_deref(), Some("1"));
        assert_eq!(v("r").as_deref(), Some("-1"));
        assert_eq!(v("lr").as_deref(), Some("1/2"));
        assert_eq!(v("lrr").as_deref(), Some("1/4"));
        assert_eq!(v("l;r").as_deref(), Some("0"));
        assert_eq!(v("l(r;r)").as_deref(), Some("1/4"));
        assert_eq!(v("eee").as_deref(), Some("*3"));
        assert_eq!(v("e;lr").as_deref(), Some("1/2*"));
        assert_eq!(v("er"), None);
    }
}
