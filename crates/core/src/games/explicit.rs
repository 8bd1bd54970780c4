//! A game handed over whole as its move graph, `graph:NAME,N`: a status code for each of `N`
//! positions and the children of the open ones, in memory, from a program that enumerated its
//! own game (the Python module's games written in Python). Any game fits, cycles and draws
//! included; the counter engine solves it.
//!
//! Opened from a spec alone (a table's header, `retrodb probe TABLE 17`), the game knows its
//! size only: a table answers values and remoteness by index, and says that its moves need the
//! graph. Invariant of a graph ([`MoveGraph::new`]): every child is a used position below `N`,
//! an open position has at least one child and an ended or unused one none.

use std::sync::OnceLock;

use crate::base::error::{Error, Result};
use crate::game::{
    Game, Move, Notation, Omissions, PositionError, Status, TierPosition, TierVisitor, Tiered,
    Value,
};
use crate::games::{AnyGame, Family, SpecInput};

/// The status codes of a move graph, as a program hands them over.
pub const OPEN: u8 = 0;
/// The game is over and the player to move has won.
pub const WIN: u8 = 1;
/// The game is over and the player to move has lost.
pub const LOSS: u8 = 2;
/// The game is over, drawn.
pub const DRAW: u8 = 3;
/// No position has this index.
pub const UNUSED: u8 = 4;

/// The most positions a move graph holds (children are stored in 32 bits).
pub const MAX_POSITIONS: u64 = u32::MAX as u64;

/// A move graph: a status code a position and, in compressed rows, the children of each.
pub struct MoveGraph {
    codes: Vec<u8>,
    off: Vec<u64>,
    to: Vec<u32>,
    /// The parents in compressed rows, made when a solve first asks ([`Game::prepare`]).
    parents: OnceLock<(Vec<u64>, Vec<u32>)>,
    max_children: u64,
    /// Where the program gave tiers ([`MoveGraph::with_tiers`]): each tier's positions in
    /// increasing order, and each position's tier.
    tiers: Option<(Vec<Vec<u32>>, Vec<u32>)>,
}

impl MoveGraph {
    /// The graph of `codes.len()` positions whose position `p` has the children
    /// `to[off[p]..off[p + 1]]`; refused, with the first position that breaks it, unless the
    /// invariant holds (see the module).
    pub fn new(codes: Vec<u8>, off: Vec<u64>, to: Vec<u32>) -> std::result::Result<Self, String> {
        let n = codes.len();
        if n as u64 > MAX_POSITIONS {
            return Err(format!("{n} positions, more than {MAX_POSITIONS}"));
        }
        if off.len() != n + 1 || off[0] != 0 || off[n] != to.len() as u64 {
            return Err("the rows' offsets do not cover the children".into());
        }
        let mut max_children = 0;
        for p in 0..n {
            let (code, row) = (codes[p], off[p]..off[p + 1]);
            if row.end < row.start {
                return Err(format!("position {p}: its row ends before it starts"));
            }
            let kids = row.end - row.start;
            max_children = max_children.max(kids);
            match code {
                OPEN if kids == 0 => {
                    return Err(format!("position {p} is open but has no children"));
                }
                WIN | LOSS | DRAW | UNUSED if kids > 0 => {
                    return Err(format!(
                        "position {p} has ended (code {code}) but has children"
                    ));
                }
                c if c > UNUSED => {
                    return Err(format!("position {p}: status code {c} is none of 0-4"));
                }
                _ => {}
            }
            for &c in &to[row.start as usize..row.end as usize] {
                if c as usize >= n || codes[c as usize] == UNUSED {
                    return Err(format!(
                        "position {p} has child {c}, which is not a position"
                    ));
                }
            }
        }
        Ok(MoveGraph {
            codes,
            off,
            to,
            parents: OnceLock::new(),
            max_children,
            tiers: None,
        })
    }

    /// The graph with the tier of each position (`tier[p]`, unused positions' ignored), which
    /// lets the tiered engine solve it; refused, naming the first move that breaks it, unless
    /// every move goes to a higher tier.
    pub fn with_tiers(mut self, tier: Vec<u32>) -> std::result::Result<Self, String> {
        let n = self.codes.len();
        if tier.len() != n {
            return Err(format!("{} tiers for {n} positions", tier.len()));
        }
        let mut count = 0;
        for p in 0..n {
            if self.codes[p] == UNUSED {
                continue;
            }
            count = count.max(tier[p] as usize + 1);
            for &c in self.row(p as u64) {
                if tier[c as usize] <= tier[p] {
                    return Err(format!(
                        "position {p} in tier {} moves to {c} in tier {}, not a higher one",
                        tier[p], tier[c as usize]
                    ));
                }
            }
        }
        let mut lists = vec![Vec::new(); count];
        for p in 0..n {
            if self.codes[p] != UNUSED {
                lists[tier[p] as usize].push(p as u32);
            }
        }
        self.tiers = Some((lists, tier));
        Ok(self)
    }

    fn row(&self, p: u64) -> &[u32] {
        &self.to[self.off[p as usize] as usize..self.off[p as usize + 1] as usize]
    }

    /// The parents in compressed rows (counted, then placed), made once.
    fn parents(&self) -> &(Vec<u64>, Vec<u32>) {
        self.parents.get_or_init(|| {
            let n = self.codes.len();
            let mut off = vec![0u64; n + 1];
            for &c in &self.to {
                off[c as usize + 1] += 1;
            }
            for i in 0..n {
                off[i + 1] += off[i];
            }
            let mut next = off.clone();
            let mut from = vec![0u32; self.to.len()];
            for p in 0..n as u64 {
                for &c in self.row(p) {
                    from[next[c as usize] as usize] = p as u32;
                    next[c as usize] += 1;
                }
            }
            (off, from)
        })
    }

    /// Bytes the graph holds: codes, children and, once made, parents.
    fn bytes(&self) -> u64 {
        let rows = (self.codes.len() as u64 + 1) * 8 + self.to.len() as u64 * 4;
        let tiers = if self.tiers.is_some() { 8 } else { 0 } * self.codes.len() as u64;
        self.codes.len() as u64 + tiers + rows * if self.parents.get().is_some() { 2 } else { 1 }
    }
}

/// A game given as its move graph (see the module), or known by its size alone.
pub struct Explicit {
    name: String,
    n: u64,
    graph: Option<MoveGraph>,
}

impl Explicit {
    /// The game `name` of `graph`'s positions. A name holds no newline.
    pub fn new(name: &str, graph: MoveGraph) -> Result<Explicit> {
        check_name(name, &format!("graph:{name}"))?;
        Ok(Explicit {
            name: name.to_string(),
            n: graph.codes.len() as u64,
            graph: Some(graph),
        })
    }

    /// Whether the game has its graph (else it knows its size only).
    pub fn has_graph(&self) -> bool {
        self.graph.is_some()
    }
}

fn check_name(name: &str, spec: &str) -> Result<()> {
    if name.is_empty() || name.contains(['\n', '\r']) {
        return Err(Error::Spec {
            spec: spec.into(),
            msg: "a move graph's name is a non-empty line".into(),
        });
    }
    Ok(())
}

impl Family for Explicit {
    const KINDS: &'static [(&'static str, &'static str)] = &[(
        "graph",
        "a move graph a program handed over (a Python game): NAME,N for N positions; opened \
         from a table, values and remoteness by index",
    )];

    fn open(spec: &SpecInput<'_>) -> Result<Explicit> {
        let bad = |msg: &str| Error::Spec {
            spec: spec.spec.into(),
            msg: msg.into(),
        };
        let (name, n) = spec
            .arg
            .rsplit_once(',')
            .ok_or_else(|| bad("expected NAME,N (N positions)"))?;
        check_name(name, spec.spec)?;
        let n: u64 = n
            .parse()
            .map_err(|_| bad("expected NAME,N (N positions)"))?;
        if n == 0 || n > MAX_POSITIONS {
            return Err(bad(&format!("N is from 1 to {MAX_POSITIONS}")));
        }
        Ok(Explicit {
            name: name.to_string(),
            n,
            graph: None,
        })
    }

    fn into_any(self) -> AnyGame {
        AnyGame::Explicit(self)
    }

    fn held_bytes(&self) -> u64 {
        self.graph.as_ref().map_or(0, MoveGraph::bytes)
    }
}

impl Game for Explicit {
    fn spec(&self) -> String {
        format!("graph:{},{}", self.name, self.n)
    }

    fn size(&self) -> u64 {
        self.n
    }

    /// Without the graph, every index is open: the table's cells tell the rest.
    fn status(&self, pos: u64) -> Status {
        let Some(g) = &self.graph else {
            return if pos < self.n {
                Status::Open
            } else {
                Status::Unused
            };
        };
        match g.codes.get(pos as usize) {
            Some(&OPEN) => Status::Open,
            Some(&WIN) => Status::Over(Value::Win),
            Some(&LOSS) => Status::Over(Value::Loss),
            Some(&DRAW) => Status::Over(Value::Draw),
            _ => Status::Unused,
        }
    }

    fn for_each_child(&self, pos: u64, mut f: impl FnMut(u64)) {
        if let Some(g) = self.graph.as_ref().filter(|_| pos < self.n) {
            g.row(pos).iter().for_each(|&c| f(c as u64));
        }
    }

    fn prepare(&self) {
        if let Some(g) = &self.graph {
            g.parents();
        }
    }

    fn for_each_parent(&self, pos: u64, mut f: impl FnMut(u64)) {
        if let Some(g) = self.graph.as_ref().filter(|_| pos < self.n) {
            let (off, from) = g.parents();
            let row = off[pos as usize] as usize..off[pos as usize + 1] as usize;
            from[row].iter().for_each(|&p| f(p as u64));
        }
    }

    fn child_count(&self, pos: u64) -> u64 {
        self.graph
            .as_ref()
            .filter(|_| pos < self.n)
            .map_or(0, |g| g.row(pos).len() as u64)
    }

    fn max_children(&self) -> u64 {
        self.graph.as_ref().map_or(0, |g| g.max_children)
    }
}

/// Positions of a tier one work unit of [`Tiered::visit_tier`] walks.
const UNIT: usize = 1 << 16;

impl Explicit {
    fn tiers(&self) -> Option<&(Vec<Vec<u32>>, Vec<u32>)> {
        self.graph.as_ref()?.tiers.as_ref()
    }
}

/// A graph with tiers is solved tier by tier; one without has none, and the counter engine
/// solves it.
impl Tiered for Explicit {
    fn tier_count(&self) -> u32 {
        self.tiers().map_or(0, |(lists, _)| lists.len() as u32)
    }

    fn tier_units(&self, t: u32) -> u64 {
        self.tiers().map_or(0, |(lists, _)| {
            lists[t as usize].len().div_ceil(UNIT) as u64
        })
    }

    fn visit_tier(&self, t: u32, unit: u64, visitor: &mut impl TierVisitor) {
        let (Some(g), Some((lists, _))) = (&self.graph, self.tiers()) else {
            return;
        };
        let list = &lists[t as usize];
        let from = unit as usize * UNIT;
        for &p in &list[from..(from + UNIT).min(list.len())] {
            visitor.visit(TierPosition {
                index: p as u64,
                status: self.status(p as u64),
                children: g.row(p as u64).iter().map(|&c| c as u64),
            });
        }
    }

    fn tier_range(&self, _t: u32) -> Option<std::ops::Range<u64>> {
        None
    }

    fn tier_of(&self, pos: u64) -> Option<u32> {
        self.tiers()
            .and_then(|(_, tier)| tier.get(pos as usize).copied())
    }
}

impl Notation for Explicit {
    fn parse_position(&self, text: &str) -> std::result::Result<u64, PositionError> {
        let p: u64 = text
            .trim()
            .parse()
            .map_err(|_| PositionError::new(text, "a move graph's position is its index"))?;
        if p >= self.n || self.status(p) == Status::Unused {
            return Err(PositionError::new(
                text,
                format!("no position has this index (indices run 0..{})", self.n),
            ));
        }
        Ok(p)
    }

    fn position_text(&self, pos: u64) -> String {
        pos.to_string()
    }

    /// A move is named by the index it goes to.
    fn move_id(&self, name: &str) -> Option<u64> {
        name.parse().ok()
    }

    fn moves(&self, pos: u64) -> Vec<Move> {
        let mut moves = Vec::new();
        self.for_each_child(pos, |child| {
            moves.push(Move {
                name: child.to_string(),
                child,
            })
        });
        moves
    }
}

/// A table of a move graph may be read without the graph (by its size alone), so it stores
/// every position: the rules a reader would recompute the others from are the graph's.
impl Omissions for Explicit {
    fn rules_known(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A three-cycle with an exit: 0 -> 1 -> 2 -> 0, 2 -> 3 (won for the player to move), and
    /// 4 unused.
    fn cycle() -> MoveGraph {
        MoveGraph::new(
            vec![OPEN, OPEN, OPEN, WIN, UNUSED],
            vec![0, 1, 2, 4, 4, 4],
            vec![1, 2, 0, 3],
        )
        .unwrap()
    }

    #[test]
    fn a_graph_plays_by_its_rows_and_its_parents_are_their_transpose() {
        let g = Explicit::new("cycle", cycle()).unwrap();
        assert_eq!(g.spec(), "graph:cycle,5");
        assert_eq!(g.status(3), Status::Over(Value::Win));
        assert_eq!(g.status(4), Status::Unused);
        crate::game::check_round_trip(&g, 0..5).unwrap();
        let mut parents = Vec::new();
        g.for_each_parent(0, |p| parents.push(p));
        assert_eq!(parents, [2]);
    }

    #[test]
    fn a_graph_that_breaks_the_invariant_is_refused_naming_the_position() {
        let bad = |codes: Vec<u8>, off: Vec<u64>, to: Vec<u32>| {
            MoveGraph::new(codes, off, to).err().unwrap()
        };
        assert!(bad(vec![OPEN, WIN], vec![0, 0, 0], vec![]).contains("position 0 is open"));
        assert!(bad(vec![OPEN, UNUSED], vec![0, 1, 1], vec![1]).contains("child 1"));
        assert!(bad(vec![OPEN, WIN], vec![0, 1, 1], vec![7]).contains("child 7"));
        assert!(bad(vec![LOSS, WIN], vec![0, 1, 1], vec![1]).contains("has ended"));
        assert!(bad(vec![9], vec![0, 0], vec![]).contains("code 9"));
        assert!(bad(vec![OPEN], vec![0, 2], vec![0]).contains("offsets"));
    }

    /// A heap of 0..=5 tokens, a move takes one or two: tiers by tokens taken keep the tiered
    /// engine's contract; a graph whose moves go down the tiers is refused.
    #[test]
    fn tiers_keep_the_contract_or_are_refused() {
        let (n, mut off, mut to) = (6u32, vec![0u64], Vec::new());
        let mut codes = Vec::new();
        for h in 0..n {
            codes.push(if h == 0 { LOSS } else { OPEN });
            to.extend((1..=2.min(h)).map(|t| h - t));
            off.push(to.len() as u64);
        }
        let tier: Vec<u32> = (0..n).map(|h| n - 1 - h).collect();
        let g = MoveGraph::new(codes.clone(), off.clone(), to.clone()).unwrap();
        let g = Explicit::new("heap", g.with_tiers(tier).unwrap()).unwrap();
        assert_eq!(g.tier_count(), 6);
        crate::game::check_tiers(&g).unwrap();
        let any = g.into_any();
        assert_eq!(
            crate::solve::Engine::default_for(&any),
            crate::solve::Engine::Tiered
        );
        let upside = (0..n).collect();
        let e = MoveGraph::new(codes, off, to)
            .unwrap()
            .with_tiers(upside)
            .err()
            .unwrap();
        assert!(e.contains("not a higher one"), "{e}");
    }

    #[test]
    fn a_spec_opens_the_game_by_its_size_alone() {
        let g = AnyGame::open("graph:my game, with commas,12", u64::MAX).unwrap();
        assert_eq!(g.size(), 12);
        assert_eq!(g.spec(), "graph:my game, with commas,12");
        for spec in ["graph:x", "graph:x,0", "graph:,3", "graph:x,y"] {
            assert!(AnyGame::open(spec, u64::MAX).is_err(), "{spec}");
        }
    }
}
