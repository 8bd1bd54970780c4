//! The game contract every game implements, and the value of a position.
//!
//! A game maps its positions onto the dense index range `0..size()`. The one invariant a reader
//! must not break: `for_each_parent` is the exact inverse of `for_each_child`, as multisets —
//! `q` appears `k` times among the parents of `p` exactly when `p` appears `k` times among the
//! children of `q`, and only open positions have children. A wrong unmove silently corrupts a
//! table, so [`check_round_trip`] ships with the contract and every game runs it in its tests.

use std::collections::HashMap;

use serde::Serialize;

pub mod cgt;
pub mod shape;

pub use crate::base::error::PositionError;
pub use crate::base::value::Value;
use shape::{BoardShape, PlainBoard, digit_masks};

/// What the rules say about an index before any search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// The index names no position (illegal, unreachable or a gap in the numbering).
    Unused,
    /// The game is over here; the value is for the player to move.
    Over(Value),
    /// The player to move chooses among the children. An open position without children is lost.
    Open,
}

/// A move from a position: its name in the game's notation and the position it leads to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Move {
    pub name: String,
    pub child: u64,
}

/// A board as asked where the index holds a symmetric image of it ([`Notation::asked_board`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AskedBoard {
    /// The asked board's text.
    pub position: String,
    /// The asked board's moves in the game's order (as [`Notation::moves`] would list them on it).
    pub moves: Vec<AskedMove>,
}

/// One move of an asked board ([`AskedBoard`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AskedMove {
    /// The move's name on the asked board.
    pub name: String,
    /// The text of the position it makes.
    pub position: String,
    /// The name of the stored image's move that the symmetry maps this one onto.
    pub stored: String,
}

/// The rules of a finite two-player game: what the solvers need, and all they may ask. The
/// other roles a game plays are traits of their own: [`Notation`] (text, moves, pictures) and
/// [`Omissions`] (what a compressed table may leave out); [`Tiered`] adds the tiers of an
/// acyclic game.
///
/// Generic closures keep the solvers' inner loops monomorphic; [`crate::games::AnyGame`] turns a
/// game spec into one concrete type and `with_game!` dispatches on it once per command.
pub trait Game: Sync {
    /// The canonical game spec, as `retrodb build` accepts it (`KIND:ARGUMENT`).
    fn spec(&self) -> String;

    /// The number of indices; positions are `0..size()`.
    fn size(&self) -> u64;

    fn status(&self, pos: u64) -> Status;

    /// Calls `f` once per move from an open position (a move listed twice counts twice).
    fn for_each_child(&self, pos: u64, f: impl FnMut(u64));

    /// The status of `pos`, calling `f` once per move when it is open: `status` and
    /// `for_each_child` in one step, for games that can share the work of both.
    #[inline]
    fn visit(&self, pos: u64, mut f: impl FnMut(u64)) -> Status {
        let status = self.status(pos);
        if status == Status::Open {
            self.for_each_child(pos, &mut f);
        }
        status
    }

    /// Called by the engines before a solve: a game may build tables that pay for themselves
    /// over a whole solve (answers it would otherwise compute again for every position). It
    /// changes no answer, and a game works the same without it.
    fn prepare(&self) {}

    /// Calls `f` once per move *into* `pos`: the exact inverse of `for_each_child`.
    fn for_each_parent(&self, pos: u64, f: impl FnMut(u64));

    /// The number of moves from an open position: what [`Game::for_each_child`] would count.
    /// Games that know it without listing the moves say so (the counter engine's counts).
    #[inline]
    fn child_count(&self, pos: u64) -> u64 {
        let mut n = 0;
        self.for_each_child(pos, |_| n += 1);
        n
    }

    /// An upper bound on the number of children of any position (picks the counter width).
    fn max_children(&self) -> u64;

    /// Whether the game is impartial in the sense of sums of tokens: the moves do not depend on
    /// who is to move, every position is open or unused, and a player who cannot move loses.
    /// Such a game's positions have generalized Sprague-Grundy values ([`crate::base::grundy`]), and
    /// a sum of its positions (several tokens, a move moving one) is answered from them. Games
    /// say so; the default is no.
    fn impartial(&self) -> bool {
        false
    }
}

/// How a game is written and drawn for people: positions as text, named moves, pictures, and
/// what a probe shows beyond a position's value. Lookups, the table's probes and every front end
/// ask this role; the solvers never do.
pub trait Notation: Game {
    /// Reads a position in the game's notation.
    fn parse_position(&self, text: &str) -> Result<u64, PositionError>;

    /// Writes a position in the game's notation; `parse_position` reads it back.
    fn position_text(&self, pos: u64) -> String;

    /// The moves from `pos` with their names, in the order of `for_each_child`.
    fn moves(&self, pos: u64) -> Vec<Move>;

    /// A move's machine id, read from its name: a number that names the move apart from its
    /// display text, the same in every position where the move can be made — the place a move
    /// claims, the vertex a token moves to, the edge a move removes, the amount a move takes. `None` (the default) where the game has none: interfaces then give the
    /// move's place in the game's order of moves (docs/NOTATION.md, "Values of moves").
    fn move_id(&self, _name: &str) -> Option<u64> {
        None
    }

    /// A picture of the position for people, where the game has one.
    fn render(&self, _pos: u64) -> Option<String> {
        None
    }

    /// The text of the position a move leads to. Games whose index holds one board per symmetry
    /// class name the board the move really makes, not the stored image the child index holds.
    fn child_text(&self, _pos: u64, m: &Move) -> String {
        self.position_text(m.child)
    }

    /// Where the index holds the position `text` names as another board (a symmetric image of
    /// it), that board's text; `None` when it holds the board itself (always, for most games).
    fn stored_image(&self, _text: &str, _pos: u64) -> Option<String> {
        None
    }

    /// Where the index holds the position `text` names as another board (a symmetric image of
    /// it, stored at `pos`), the board as asked: its text and its moves, each paired with the
    /// image's move that the symmetry maps it onto (same value, same remoteness). `None` when
    /// the index holds the board itself (always, for most games).
    fn asked_board(&self, _text: &str, _pos: u64) -> Option<AskedBoard> {
        None
    }

    /// Facts about a position beyond its stored win/loss/draw, for probe output (a partizan
    /// game's outcome class and exact game value, say). `stored` reads the table's value of any
    /// index, so a game can combine several cells (e.g. the same board with either player to
    /// move). Most games have nothing to add.
    fn annotate(
        &self,
        _pos: u64,
        _stored: &dyn Fn(u64) -> crate::Result<Option<Value>>,
    ) -> crate::Result<Annotations> {
        Ok(Annotations::default())
    }
}

/// What a table's encoding may ask a game beyond its rules, so that a compressed table stores
/// fewer cells. Every method has a default that leaves nothing out, so a game that has nothing
/// to add implements it with an empty block.
pub trait Omissions: Game {
    /// For each position of `first..first + n`, whether only a search knows its value
    /// ([`by_rules`] says [`Rules::Search`]), where the game can tell a run of positions faster
    /// than one by one; `None` (the default) otherwise.
    fn searched_run(&self, _first: u64, _n: u64) -> Option<Vec<bool>> {
        None
    }

    /// What the rules say of each position of `first..first + n` ([`by_rules`]), where the game
    /// can tell a run of positions faster than one by one; `None` (the default) otherwise. A
    /// reader that puts back every "don't care" position of a compressed table asks it first.
    fn rules_run(&self, _first: u64, _n: u64) -> Option<Vec<Rules>> {
        None
    }

    /// Whether a compressed table may leave out the positions the rules decide ([`by_rules`])
    /// and recompute them when read: true (the default) for a game whose reader has its rules,
    /// false for one a table may be read without them (a move graph opened by its size alone),
    /// whose tables store every position ([`table_rules`]).
    fn rules_known(&self) -> bool {
        true
    }

    /// Games in which every move passes the turn and the index says who moves: whether `pos`
    /// belongs to the side a compressed table may leave out (say, one player to move). The
    /// contract: no child of such a position belongs to it, so it is answered by a one-move
    /// search over stored children (docs/FORMAT.md, "One mover stored"). `None` (the default):
    /// the game has no such side.
    fn omissible(&self, _pos: u64) -> Option<bool> {
        None
    }

    /// [`Omissions::omissible`] for each position of `first..first + n`, where the game can tell a
    /// run faster than one by one.
    fn omissible_run(&self, first: u64, n: u64) -> Option<Vec<bool>> {
        (first..first + n).map(|p| self.omissible(p)).collect()
    }

    /// The positions of `first..first + n` that [`Omissions::omissible_run`] marks, as ranges in
    /// increasing order, where a game can tell them faster (a row of the sliced index leaves out
    /// one range: its positions with Right to move).
    fn omissible_ranges(&self, first: u64, n: u64) -> Option<Vec<std::ops::Range<u64>>> {
        Some(marked_ranges(first, &self.omissible_run(first, n)?))
    }
}

/// The runs of marked entries of `marks` (entry `i` standing for position `first + i`), as
/// ranges of positions in increasing order.
pub fn marked_ranges(first: u64, marks: &[bool]) -> Vec<std::ops::Range<u64>> {
    let mut out: Vec<std::ops::Range<u64>> = Vec::new();
    for (i, _) in marks.iter().enumerate().filter(|(_, m)| **m) {
        let p = first + i as u64;
        match out.last_mut() {
            Some(r) if r.end == p => r.end = p + 1,
            _ => out.push(p..p + 1),
        }
    }
    out
}

/// One position of a tier, as [`Tiered::visit_tier`] hands it to a [`TierVisitor`].
pub struct TierPosition<I> {
    pub index: u64,
    /// What the rules say; never [`Status::Unused`] (unused indices are not listed).
    pub status: Status,
    /// The moves from an open position, as [`Game::for_each_child`] lists them but in any order
    /// (a game may list first the moves likeliest to win); empty for ended ones. Lazy, so a
    /// visitor that has seen enough can stop reading.
    pub children: I,
}

/// What [`Tiered::visit_tier`] calls once per position. Generic over each game's own child
/// iterator, so the solver's inner loop is compiled per game with no dynamic dispatch.
pub trait TierVisitor {
    fn visit<I: ExactSizeIterator<Item = u64>>(&mut self, p: TierPosition<I>);

    /// A configuration's two positions at once, `second.index == first.index + 1` with
    /// `first.index` even (the other player to move): for games whose index puts both movers
    /// side by side, so a visitor decides them together (one write for both).
    #[inline(always)]
    fn visit_pair<I, J>(&mut self, first: TierPosition<I>, second: TierPosition<J>)
    where
        I: ExactSizeIterator<Item = u64>,
        J: ExactSizeIterator<Item = u64>,
    {
        self.visit(first);
        self.visit(second);
    }
}

/// The contract of acyclic games the tiered engine solves: positions fall into tiers
/// `0..tier_count()`, every position in exactly one, and every move goes to a strictly higher
/// tier (so the last tier holds only ended positions). A game implements all of it or none;
/// [`check_tiers`] checks an implementation against [`Game`] and ships with the contract.
pub trait Tiered: Game {
    /// Whether a position can be drawn: in an acyclic game only where the rules end the game in
    /// a draw. `false` lets the engine skip tracking draws ([`check_tiers`] checks that no
    /// position ends drawn).
    const DRAWS: bool = true;

    /// The number of tiers (at least one for a game with positions).
    fn tier_count(&self) -> u32;

    /// How many work units [`Tiered::visit_tier`] splits tier `t` into (for parallelism).
    fn tier_units(&self, t: u32) -> u64;

    /// Calls `visitor` on each position of tier `t` that work unit `unit` holds, in increasing
    /// index order; over all units of the tier, each of its positions exactly once. Unused
    /// indices are never listed (their cells stay unused). The index spans (first to last) of
    /// two units of a tier do not interleave: the engine writes the words between a unit's
    /// first and last without locking.
    fn visit_tier(&self, t: u32, unit: u64, visitor: &mut impl TierVisitor);

    /// Where the tiers are contiguous index ranges and every move goes from tier `t` to exactly
    /// `t + 1` (tier-major games): the range of tier `t`, so a build keeps only two tiers of
    /// working state. `None` otherwise.
    fn tier_range(&self, t: u32) -> Option<std::ops::Range<u64>>;

    /// The tier of position `pos` where the index tells it alone (the places filled, say), so
    /// that a reader of a table front to back counts by tier without walking the
    /// tiers; `None` (the default) where it does not. A game answers `Some` for every used
    /// position or for none; [`check_tiers`] checks the answers against the tier walk.
    fn tier_of(&self, _pos: u64) -> Option<u32> {
        None
    }

    /// The shape of the game's index where it is one the solvers know by data alone
    /// ([`BoardShape`]: a plain board, or the sliced index of a claiming game), which lets them
    /// decide many positions at once ([`crate::solve::plan`] picks the kernel from it). `None`
    /// (the default) for every other game. [`check_tiers`] checks a plain board against the
    /// game on every position.
    fn board_shape(&self) -> Option<BoardShape<'_>> {
        None
    }
}

/// Checks a [`Tiered`] implementation over the whole game: every used index is listed exactly
/// once, in one tier, with the status and children [`Game::visit`] gives; unused indices are not
/// listed; every move goes to a higher tier (to `t + 1` exactly where tiers are ranges, which
/// must then hold exactly their tier's indices); units list increasing indices, in spans that
/// do not interleave. For small games.
pub fn check_tiers<G: Tiered + Notation>(game: &G) -> Result<(), ContractError> {
    struct Collect(Vec<(u64, Status, Vec<u64>)>);
    impl TierVisitor for Collect {
        fn visit<I: ExactSizeIterator<Item = u64>>(&mut self, p: TierPosition<I>) {
            let len = p.children.len();
            let kids: Vec<u64> = p.children.collect();
            assert_eq!(len, kids.len(), "a child iterator's length is exact");
            self.0.push((p.index, p.status, kids));
        }
    }
    let size = game.size();
    let tiers = game.tier_count();
    if size > 0 && tiers == 0 {
        return Err(ContractError(format!(
            "{} has positions but no tiers",
            game.spec()
        )));
    }
    let mut tier_of = vec![u32::MAX; size as usize];
    let mut all = Vec::new();
    for t in 0..tiers {
        let mut spans = Vec::new();
        for unit in 0..game.tier_units(t) {
            let mut c = Collect(Vec::new());
            game.visit_tier(t, unit, &mut c);
            if c.0.windows(2).any(|w| w[0].0 >= w[1].0) {
                return Err(ContractError(format!(
                    "tier {t} unit {unit} lists indices out of increasing order"
                )));
            }
            if let (Some(first), Some(last)) = (c.0.first(), c.0.last()) {
                spans.push((first.0, last.0, unit));
            }
            for (pos, status, kids) in c.0 {
                if pos >= size || tier_of[pos as usize] != u32::MAX {
                    return Err(ContractError(format!(
                        "tier {t} lists index {pos}, out of range or listed before"
                    )));
                }
                tier_of[pos as usize] = t;
                if let Some(own) = game.tier_of(pos)
                    && own != t
                {
                    return Err(ContractError(format!(
                        "tier {t} lists position {pos}, whose tier_of says {own}"
                    )));
                }
                let mut want = Vec::new();
                let status_now = game.visit(pos, |c| want.push(c));
                let (mut kids, mut want) = (kids, want);
                kids.sort_unstable();
                want.sort_unstable();
                if !G::DRAWS && status == Status::Over(Value::Draw) {
                    return Err(ContractError(format!(
                        "position {pos} ({}) ends drawn in a game that declares no draws",
                        game.position_text(pos)
                    )));
                }
                if status != status_now || kids != want || status == Status::Unused {
                    return Err(ContractError(format!(
                        "tier {t} lists position {pos} ({}) as {status:?} with children \
                         {kids:?}; the game says {status_now:?} with {want:?}",
                        game.position_text(pos)
                    )));
                }
                if let Some(r) = game.tier_range(t)
                    && !r.contains(&pos)
                {
                    return Err(ContractError(format!(
                        "tier {t} lists {pos}, outside its range {r:?}"
                    )));
                }
                all.push((t, pos, kids));
            }
        }
        spans.sort_unstable();
        if let Some(w) = spans.windows(2).find(|w| w[0].1 >= w[1].0) {
            return Err(ContractError(format!(
                "tier {t}: the index spans of units {} and {} interleave",
                w[0].2, w[1].2
            )));
        }
    }
    if let Some(board) = game.board_shape().and_then(BoardShape::plain) {
        check_plain_board(game, &board)?;
    }
    for pos in 0..size {
        let listed = tier_of[pos as usize] != u32::MAX;
        let used = game.status(pos) != Status::Unused;
        if listed != used {
            return Err(ContractError(format!(
                "index {pos} is {} but {} listed in a tier",
                if used { "a position" } else { "unused" },
                if listed { "is" } else { "is not" }
            )));
        }
    }
    for (t, pos, kids) in all {
        for c in kids {
            let ct = tier_of[c as usize];
            let exact = game.tier_range(t).is_some();
            if ct <= t || ct == u32::MAX || (exact && ct != t + 1) {
                return Err(ContractError(format!(
                    "position {pos} of tier {t} moves to {c}, of tier {ct}"
                )));
            }
        }
    }
    Ok(())
}

/// Extra `key = text` facts a game attaches to a probed position ([`Notation::annotate`]), in the
/// game's order. They are flattened into the probe's JSON object, so a key must not be one of
/// the probe's own fields (`position`, `index`, `value`, `remoteness`, `moves`, `move`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Annotations(pub Vec<(String, String)>);

impl Annotations {
    pub fn push(&mut self, key: &str, text: impl Into<String>) {
        self.0.push((key.to_string(), text.into()));
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for Annotations {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// What the rules alone say about an index, before any table is consulted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rules {
    /// No position here.
    Unused,
    /// The value is known from the rules: the game is over, or the mover has no move (a loss).
    /// The remoteness is 0, or `None` for a drawn end.
    Known(Value, Option<u32>),
    /// Only a search (a table) knows.
    Search,
}

impl Rules {
    /// What the rules say of a position with `status` and `children` moves (asked only of an
    /// open position): for a caller that has both at hand, as a tier walk does.
    #[inline]
    pub fn of(status: Status, children: impl FnOnce() -> u64) -> Rules {
        match status {
            Status::Unused => Rules::Unused,
            Status::Over(Value::Draw) => Rules::Known(Value::Draw, None),
            Status::Over(v) => Rules::Known(v, Some(0)),
            Status::Open if children() > 0 => Rules::Search,
            Status::Open => Rules::Known(Value::Loss, Some(0)),
        }
    }
}

/// Classifies `pos` by the rules alone. Compressed tables store such positions as "don't care"
/// and recompute them with this function when probed.
pub fn by_rules<G: Game>(game: &G, pos: u64) -> Rules {
    Rules::of(game.status(pos), || game.child_count(pos))
}

/// What a table's encoding may take from the rules about `pos`: [`by_rules`], or, for a game
/// whose tables store every position ([`Omissions::rules_known`] false), that only the table
/// knows it.
#[inline]
pub fn table_rules<G: Omissions>(game: &G, pos: u64) -> Rules {
    if game.rules_known() {
        by_rules(game, pos)
    } else {
        Rules::Search
    }
}

/// Checks that `board` describes `game`: its size, and every position's status and children.
fn check_plain_board<G: Notation>(game: &G, board: &PlainBoard<'_>) -> Result<(), ContractError> {
    let configs = 3u64.pow(board.cells);
    if game.size() != 2 * configs {
        return Err(ContractError(format!(
            "a plain board of {} cells has {} positions, the game {}",
            board.cells,
            2 * configs,
            game.size()
        )));
    }
    for c in 0..configs {
        let (l, r) = digit_masks(c, board.cells);
        let (lw, rw) = board.won(l, r);
        for mover in 0..2u64 {
            let pos = 2 * c + mover;
            let want = match (lw, rw) {
                (true, _) => Status::Over(if mover == 0 { Value::Win } else { Value::Loss }),
                (_, true) => Status::Over(if mover == 1 { Value::Win } else { Value::Loss }),
                _ => Status::Open,
            };
            let mut kids = Vec::new();
            let status = game.visit(pos, |k| kids.push(k));
            let mut expected: Vec<u64> = Vec::new();
            if want == Status::Open {
                for i in 0..board.cells {
                    if (l | r) >> i & 1 == 0 {
                        let digit = 3u64.pow(i) * (mover + 1);
                        expected.push(2 * (c + digit) + (1 - mover));
                    }
                }
            }
            kids.sort_unstable();
            if status != want || kids != expected {
                return Err(ContractError(format!(
                    "position {pos} ({}): the plain board says {want:?} with {expected:?}, the \
                     game {status:?} with {kids:?}",
                    game.position_text(pos)
                )));
            }
        }
    }
    Ok(())
}

/// A violation of the parent/child contract found by [`check_round_trip`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ContractError(pub String);

/// Checks the contract on the given positions: for each, the multiset of its children agrees with
/// the parent lists of those children, and the multiset of its parents agrees with their child
/// lists. Positions out of range or inconsistent statuses are reported too.
pub fn check_round_trip<G: Notation>(
    game: &G,
    positions: impl IntoIterator<Item = u64>,
) -> Result<(), ContractError> {
    let size = game.size();
    let multiset = |items: Vec<u64>| {
        let mut m: HashMap<u64, usize> = HashMap::new();
        for i in items {
            *m.entry(i).or_default() += 1;
        }
        m
    };
    let children_of = |p: u64| {
        let mut v = Vec::new();
        game.for_each_child(p, |c| v.push(c));
        v
    };
    let parents_of = |p: u64| {
        let mut v = Vec::new();
        game.for_each_parent(p, |q| v.push(q));
        v
    };
    for pos in positions {
        let status = game.status(pos);
        let children = children_of(pos);
        let parents = parents_of(pos);
        let text = || game.position_text(pos);
        if status != Status::Open && !children.is_empty() {
            return Err(ContractError(format!(
                "position {pos} ({}) is {status:?} but has children",
                text()
            )));
        }
        if status == Status::Unused && !parents.is_empty() {
            return Err(ContractError(format!(
                "unused index {pos} has parents {parents:?}"
            )));
        }
        if status != Status::Unused {
            let back = game.parse_position(&game.position_text(pos));
            if back != Ok(pos) {
                return Err(ContractError(format!(
                    "position {pos} prints as '{}' which parses to {back:?}",
                    text()
                )));
            }
        }
        if game.child_count(pos) != children.len() as u64 {
            return Err(ContractError(format!(
                "position {pos} ({}): child_count disagrees with for_each_child",
                text()
            )));
        }
        let moves = game.moves(pos);
        if moves.iter().map(|m| m.child).collect::<Vec<_>>() != children {
            return Err(ContractError(format!(
                "position {pos} ({}): moves() disagrees with for_each_child",
                text()
            )));
        }
        for (&child, &k) in &multiset(children) {
            if child >= size || game.status(child) == Status::Unused {
                return Err(ContractError(format!(
                    "position {pos} ({}) has child {child}, which is not a position",
                    text()
                )));
            }
            let back = parents_of(child).into_iter().filter(|&q| q == pos).count();
            if back != k {
                return Err(ContractError(format!(
                    "position {pos} ({}) moves {k} time(s) to {child} ({}), which lists it {back} time(s) as a parent",
                    text(),
                    game.position_text(child)
                )));
            }
        }
        for (&parent, &k) in &multiset(parents) {
            if parent >= size || game.status(parent) != Status::Open {
                return Err(ContractError(format!(
                    "position {pos} ({}) lists parent {parent}, which is not an open position",
                    text()
                )));
            }
            let fwd = children_of(parent)
                .into_iter()
                .filter(|&c| c == pos)
                .count();
            if fwd != k {
                return Err(ContractError(format!(
                    "position {pos} ({}) lists {parent} ({}) {k} time(s) as a parent, which moves there {fwd} time(s)",
                    text(),
                    game.position_text(parent)
                )));
            }
        }
    }
    Ok(())
}
