//! Short partizan games in canonical form: the values of combinatorial game theory.
//!
//! A [`Games`] arena holds game nodes, each a sorted list of Left options and of Right options
//! (ids of nodes in the same arena). Every node in it is in canonical form — no dominated and no
//! reversible options, its options canonical — and hash-consed, so two games are equal (as
//! games: `G - H` is a second-player win) exactly when their ids are. The order `G <= H` (Left
//! wins `H - G` when Right moves first) is computed from the definition and memoised: `G <= H`
//! unless some `G^L >= H` or some `H^R <= G`.
//!
//! [`Games::make`] turns any option lists into the canonical node: dominated options are removed
//! (Left keeps her maximal options, Right his minimal ones), and a Left option `X` with a Right
//! option `X^R <= G` is bypassed — replaced by the Left options of `X^R` — (dually for Right),
//! until neither applies. Sums and negatives are built from their options and made canonical the
//! same way. [`Games::show`] prints CGSuite's notation (`0`, `*`, `*3`, `3/2`, `1*`, `^`,
//! `v*`, `^^`, `+-1`, `{2|0||-1}`) and [`Games::parse`] reads it back.

mod notation;
pub use notation::{NotationError, NotationReason};
pub mod numbers;

use std::collections::HashMap;

use numbers::{Dyadic, simplest_between};

/// A game in a [`Games`] arena: its id there (the crate's table of position values,
/// `games::cell::values`, keeps ids in its arrays).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Game(pub(crate) u32);

impl Game {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Node {
    left: Box<[Game]>,
    right: Box<[Game]>,
}

/// What is known of a node without looking at its options again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A number.
    Number(Dyadic),
    /// A number plus a nimber `*n` (n >= 1).
    NumberNimber(Dyadic, u32),
    /// A number plus `n` ups (n may be negative: downs), plus `*` when the flag is set.
    NumberUps(Dyadic, i32, bool),
    Other,
}

/// An arena of canonical games (see the module docs).
pub struct Games {
    nodes: Vec<Node>,
    kinds: Vec<Kind>,
    ids: HashMap<Node, Game>,
    le_memo: HashMap<(Game, Game), bool>,
    sum_memo: HashMap<(Game, Game), Game>,
    neg_memo: HashMap<Game, Game>,
}

impl Default for Games {
    fn default() -> Self {
        Self::new()
    }
}

impl Games {
    pub fn new() -> Games {
        let mut g = Games {
            nodes: Vec::new(),
            kinds: Vec::new(),
            ids: HashMap::new(),
            le_memo: HashMap::new(),
            sum_memo: HashMap::new(),
            neg_memo: HashMap::new(),
        };
        let zero = g.intern(Vec::new(), Vec::new());
        debug_assert_eq!(zero, Games::ZERO);
        g
    }

    /// `0 = { | }`, always the first node.
    pub const ZERO: Game = Game(0);

    /// Nodes in the arena.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn left(&self, g: Game) -> &[Game] {
        &self.nodes[g.index()].left
    }

    pub fn right(&self, g: Game) -> &[Game] {
        &self.nodes[g.index()].right
    }

    /// The canonical node with these (canonical) options, added when new.
    fn intern(&mut self, mut left: Vec<Game>, mut right: Vec<Game>) -> Game {
        left.sort_unstable();
        left.dedup();
        right.sort_unstable();
        right.dedup();
        let node = Node {
            left: left.into_boxed_slice(),
            right: right.into_boxed_slice(),
        };
        if let Some(&id) = self.ids.get(&node) {
            return id;
        }
        let id = Game(u32::try_from(self.nodes.len()).expect("fewer than 2^32 games"));
        let kind = self.kind_of(&node);
        self.nodes.push(node.clone());
        self.kinds.push(kind);
        self.ids.insert(node, id);
        id
    }

    /// Recognises numbers, number + nimber and number + ups (+ star) from canonical options.
    fn kind_of(&self, n: &Node) -> Kind {
        let (l, r) = (&n.left[..], &n.right[..]);
        let num = |g: Game| match self.kinds[g.index()] {
            Kind::Number(x) => Some(x),
            _ => None,
        };
        // Numbers: { | } = 0, {n| } = n+1, { |n} = n-1, {a|b} with a < b numbers.
        match (l, r) {
            ([], []) => return Kind::Number(Dyadic::ZERO),
            ([a], []) => {
                if let Some(x) = num(*a)
                    && let Some(y) = simplest_between(Some(x), None)
                {
                    return Kind::Number(y);
                }
            }
            ([], [b]) => {
                if let Some(x) = num(*b)
                    && let Some(y) = simplest_between(None, Some(x))
                {
                    return Kind::Number(y);
                }
            }
            ([a], [b]) => {
                if let (Some(x), Some(y)) = (num(*a), num(*b))
                    && x < y
                    && let Some(z) = simplest_between(Some(x), Some(y))
                {
                    return Kind::Number(z);
                }
            }
            _ => {}
        }
        // x + *n: options x + *k for k < n on both sides (canonical form of x + *n, n >= 1).
        if !l.is_empty() && l == r {
            let mut base = None;
            let mut ks = Vec::new();
            for &o in l {
                let (x, k) = match self.kinds[o.index()] {
                    Kind::Number(x) => (x, 0),
                    Kind::NumberNimber(x, k) => (x, k),
                    _ => return Kind::Other,
                };
                if base.is_some_and(|b| b != x) {
                    return Kind::Other;
                }
                base = Some(x);
                ks.push(k);
            }
            ks.sort_unstable();
            if ks.iter().enumerate().all(|(i, &k)| k == i as u32) {
                return Kind::NumberNimber(base.expect("options"), ks.len() as u32);
            }
            return Kind::Other;
        }
        // x + ^ = {x | x*}, x + ^* = {x, x* | x}, x + n.^ (n >= 2) = {x | x + (n-1).^ + *},
        // x + n.^ + * (n >= 2) = {x | x + (n-1).^}; downs by symmetry.
        let kind = |g: Game| self.kinds[g.index()];
        match (l, r) {
            ([a], [b]) => match (kind(*a), kind(*b)) {
                (Kind::Number(x), Kind::NumberNimber(y, 1)) if x == y => {
                    return Kind::NumberUps(x, 1, false);
                }
                (Kind::NumberNimber(x, 1), Kind::Number(y)) if x == y => {
                    return Kind::NumberUps(x, -1, false);
                }
                (Kind::Number(x), Kind::NumberUps(y, n, s)) if x == y && n >= 1 => {
                    return Kind::NumberUps(x, n + 1, !s);
                }
                (Kind::NumberUps(x, n, s), Kind::Number(y)) if x == y && n <= -1 => {
                    return Kind::NumberUps(x, n - 1, !s);
                }
                _ => {}
            },
            ([a, b], [c]) => {
                let (ka, kb, kc) = (kind(*a), kind(*b), kind(*c));
                for (p, q) in [(ka, kb), (kb, ka)] {
                    if let (Kind::Number(x), Kind::NumberNimber(y, 1), Kind::Number(z)) = (p, q, kc)
                        && x == y
                        && y == z
                    {
                        return Kind::NumberUps(x, 1, true);
                    }
                }
            }
            ([a], [b, c]) => {
                let (ka, kb, kc) = (kind(*a), kind(*b), kind(*c));
                for (p, q) in [(kb, kc), (kc, kb)] {
                    if let (Kind::Number(x), Kind::Number(y), Kind::NumberNimber(z, 1)) = (ka, p, q)
                        && x == y
                        && y == z
                    {
                        return Kind::NumberUps(x, -1, true);
                    }
                }
            }
            _ => {}
        }
        Kind::Other
    }

    /// The number `g` is, if it is one.
    pub fn as_number(&self, g: Game) -> Option<Dyadic> {
        match self.kinds[g.index()] {
            Kind::Number(x) => Some(x),
            _ => None,
        }
    }

    /// `G <= H`.
    pub fn le(&mut self, g: Game, h: Game) -> bool {
        if g == h {
            return true;
        }
        // Numbers compare as numbers.
        if let (Kind::Number(x), Kind::Number(y)) = (self.kinds[g.index()], self.kinds[h.index()]) {
            return x <= y;
        }
        if let Some(&b) = self.le_memo.get(&(g, h)) {
            return b;
        }
        let gl = self.nodes[g.index()].left.clone();
        let hr = self.nodes[h.index()].right.clone();
        let b = !gl.iter().any(|&x| self.le(h, x)) && !hr.iter().any(|&y| self.le(y, g));
        self.le_memo.insert((g, h), b);
        b
    }

    pub fn ge(&mut self, g: Game, h: Game) -> bool {
        self.le(h, g)
    }

    /// How `g` compares with `h` as games.
    pub fn compare(&mut self, g: Game, h: Game) -> Order {
        match (self.le(g, h), self.le(h, g)) {
            (true, true) => Order::Equal,
            (true, false) => Order::Less,
            (false, true) => Order::Greater,
            (false, false) => Order::Confused,
        }
    }

    /// `a <= G` where `G = {gl | gr}` is not (yet) in the arena.
    fn le_into(&mut self, a: Game, gl: &[Game], gr: &[Game]) -> bool {
        // a <= G unless some a^L >= G or some G^R <= a.
        let al = self.nodes[a.index()].left.clone();
        !al.iter().any(|&x| self.built_le(gl, gr, x)) && !gr.iter().any(|&y| self.le(y, a))
    }

    /// `G <= b` where `G = {gl | gr}` is not (yet) in the arena.
    fn built_le(&mut self, gl: &[Game], gr: &[Game], b: Game) -> bool {
        // G <= b unless some G^L >= b or some b^R <= G.
        let br = self.nodes[b.index()].right.clone();
        !gl.iter().any(|&x| self.le(b, x)) && !br.iter().any(|&y| self.le_into(y, gl, gr))
    }

    /// The canonical form of `{left | right}` (options canonical games of this arena).
    pub fn make(&mut self, left: Vec<Game>, right: Vec<Game>) -> Game {
        let (mut l, mut r) = (left, right);
        loop {
            l.sort_unstable();
            l.dedup();
            r.sort_unstable();
            r.dedup();
            self.undominate(&mut l, true);
            self.undominate(&mut r, false);
            // Bypass reversible options, one at a time (then look again).
            let mut changed = false;
            for i in 0..l.len() {
                let x = l[i];
                let xr = self.nodes[x.index()].right.clone();
                if let Some(&rev) = xr.iter().find(|&&y| self.le_into(y, &l, &r)) {
                    // x^R <= G: x reverses through x^R; Left's options of x^R replace x.
                    let mut nl: Vec<Game> = l.iter().copied().filter(|&o| o != x).collect();
                    nl.extend_from_slice(&self.nodes[rev.index()].left);
                    l = nl;
                    changed = true;
                    break;
                }
            }
            if !changed {
                for i in 0..r.len() {
                    let x = r[i];
                    let xl = self.nodes[x.index()].left.clone();
                    // x^L >= G: x reverses through x^L; Right's options of x^L replace x.
                    if let Some(&rev) = xl.iter().find(|&&y| self.built_le(&l, &r, y)) {
                        let mut nr: Vec<Game> = r.iter().copied().filter(|&o| o != x).collect();
                        nr.extend_from_slice(&self.nodes[rev.index()].right);
                        r = nr;
                        changed = true;
                        break;
                    }
                }
            }
            if !changed {
                return self.intern(l, r);
            }
        }
    }

    /// Removes the options another option dominates: for Left those below another, for Right
    /// those above another.
    fn undominate(&mut self, opts: &mut Vec<Game>, left: bool) {
        let mut keep = vec![true; opts.len()];
        for i in 0..opts.len() {
            for j in 0..opts.len() {
                if i == j || !keep[j] {
                    continue;
                }
                let (a, b) = (opts[i], opts[j]);
                let dominated = if left { self.le(a, b) } else { self.le(b, a) };
                if dominated {
                    keep[i] = false;
                    break;
                }
            }
        }
        let mut k = keep.iter();
        opts.retain(|_| *k.next().expect("one flag an option"));
    }

    /// `-G`.
    pub fn neg(&mut self, g: Game) -> Game {
        if g == Games::ZERO {
            return g;
        }
        if let Some(&n) = self.neg_memo.get(&g) {
            return n;
        }
        let l: Vec<Game> = self.nodes[g.index()]
            .right
            .clone()
            .iter()
            .map(|&x| self.neg(x))
            .collect();
        let r: Vec<Game> = self.nodes[g.index()]
            .left
            .clone()
            .iter()
            .map(|&x| self.neg(x))
            .collect();
        // The negative of a canonical game is canonical.
        let n = self.intern(l, r);
        self.neg_memo.insert(g, n);
        self.neg_memo.insert(n, g);
        n
    }

    /// `G + H`.
    pub fn add(&mut self, g: Game, h: Game) -> Game {
        if g == Games::ZERO {
            return h;
        }
        if h == Games::ZERO {
            return g;
        }
        let key = if g <= h { (g, h) } else { (h, g) };
        if let Some(&s) = self.sum_memo.get(&key) {
            return s;
        }
        let (gn, hn) = (self.nodes[g.index()].clone(), self.nodes[h.index()].clone());
        let mut l = Vec::with_capacity(gn.left.len() + hn.left.len());
        let mut r = Vec::with_capacity(gn.right.len() + hn.right.len());
        for &x in gn.left.iter() {
            l.push(self.add(x, h));
        }
        for &x in hn.left.iter() {
            l.push(self.add(g, x));
        }
        for &x in gn.right.iter() {
            r.push(self.add(x, h));
        }
        for &x in hn.right.iter() {
            r.push(self.add(g, x));
        }
        let s = self.make(l, r);
        self.sum_memo.insert(key, s);
        s
    }

    /// `G - H`.
    pub fn sub(&mut self, g: Game, h: Game) -> Game {
        let n = self.neg(h);
        self.add(g, n)
    }

    /// The number `x` as a game.
    pub fn number(&mut self, x: Dyadic) -> Game {
        if x == Dyadic::ZERO {
            return Games::ZERO;
        }
        if x.is_integer() {
            let n = x.numerator();
            let step = Dyadic::int(if n > 0 { 1 } else { -1 });
            let prev = self.number(
                x.checked_add(step.checked_neg().expect("1"))
                    .expect("small"),
            );
            return if n > 0 {
                self.intern(vec![prev], Vec::new())
            } else {
                self.intern(Vec::new(), vec![prev])
            };
        }
        // m / 2^k with m odd: {(m-1)/2^k | (m+1)/2^k}.
        let (m, k) = (x.numerator(), x.exponent());
        let lo = Dyadic::new(m - 1, k).expect("in range");
        let hi = Dyadic::new(m + 1, k).expect("in range");
        let (a, b) = (self.number(lo), self.number(hi));
        self.intern(vec![a], vec![b])
    }

    /// `*n`.
    pub fn nimber(&mut self, n: u32) -> Game {
        let opts: Vec<Game> = (0..n).map(|k| self.nimber(k)).collect();
        if n == 0 {
            return Games::ZERO;
        }
        self.intern(opts.clone(), opts)
    }

    /// `n` ups (downs when negative), plus `*` when `star`.
    pub fn ups(&mut self, n: i32, star: bool) -> Game {
        let one = self.nimber(1);
        if n == 0 {
            return if star { one } else { Games::ZERO };
        }
        if n < 0 {
            let u = self.ups(-n, star);
            return self.neg(u);
        }
        let up = self.make(vec![Games::ZERO], vec![one]);
        let mut g = up;
        for _ in 1..n {
            g = self.add(g, up);
        }
        if star { self.add(g, one) } else { g }
    }

    /// The outcome of `g`: whether Left wins moving first, and whether Left wins when Right
    /// moves first (`G >= 0`).
    pub fn outcome(&mut self, g: Game) -> (bool, bool) {
        // Left wins moving first iff G |> 0, i.e. not G <= 0.
        (!self.le(g, Games::ZERO), self.le(Games::ZERO, g))
    }

    /// CGSuite's notation of `g`.
    pub fn show(&self, g: Game) -> String {
        notation::show(self, g)
    }

    /// Reads CGSuite's notation (see [`Games::show`]).
    pub fn parse(&mut self, text: &str) -> Result<Game, NotationError> {
        notation::parse(self, text)
    }
}

/// The order of every pair of games of an arena, computed once so that it can be read from
/// many threads (the arena's own `compare` memoises and needs `&mut`).
pub struct OrderTable {
    n: usize,
    order: Vec<Order>,
}

impl OrderTable {
    /// Compares every pair of the arena's games (`len()^2` comparisons: for arenas of a few
    /// thousand games).
    pub fn new(games: &mut Games) -> OrderTable {
        let n = games.len();
        let mut order = Vec::with_capacity(n * n);
        for a in 0..n {
            for b in 0..n {
                order.push(games.compare(Game(a as u32), Game(b as u32)));
            }
        }
        OrderTable { n, order }
    }

    /// How `a` compares with `b`.
    pub fn compare(&self, a: Game, b: Game) -> Order {
        self.order[a.index() * self.n + b.index()]
    }
}

/// How two games compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    Less,
    Equal,
    Greater,
    /// Incomparable: `G - H` is a first-player win.
    Confused,
}

#[cfg(test)]
mod tests;
