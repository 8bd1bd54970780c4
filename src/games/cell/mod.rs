//! Cell games: games where the players take turns claiming empty cells, Left's cells and Right's
//! cells deciding the end. One core serves four specs — the Shannon switching game on a graph
//! file's edges (`shannon:PATH`) or vertices (`shannon-vertex:PATH`), Bridg-It (`bridgit:N`) and
//! Hex (`hex:N`) — each of which is a Shannon game on some graph (see [`board`]).
//!
//! Indexing: with `E` cells and digit `d_i` of cell `i` (0 empty, 1 Left's, 2 Right's), a
//! position is `mover + 2 * sum(d_i * 3^i)` with `mover` 0 when Left is to move and 1 when Right
//! is, so `0..2*3^E` holds every configuration with either player to move. Left has won when his
//! cells join the terminals; Right has won when the cells he has not taken no longer do.
//!
//! The invariant: a move adds exactly one digit (`tier` = filled cells grows by one), and the
//! parent enumeration undoes exactly one digit of the player who just moved, keeping only parents
//! where the game was still open — the exact inverse of the children.

pub mod alternation;
pub mod board;
pub mod graph;
pub mod picture;
pub mod sliced;

use crate::error::{Error, Result, human_bytes};
use crate::game::{
    Game, Move, PlainBoard, PositionError, SlicedBoard, Status, TierPosition, TierVisitor, Tiered,
    Value, digit_masks,
};
use crate::games::source::Source;
pub use board::{Board, Symmetry};
pub use graph::{Graph, Links};

/// The most cells a table can have: `2 * 3^39` still fits a 64-bit index, `2 * 3^40` does not.
pub const MAX_CELLS: u64 = 39;

/// Boards up to this many cells order their children by pivotal counts over every set of
/// cells (`2^16` floods); larger ones by what a cell touches.
const ORDER_COUNTED_CELLS: u32 = 16;

/// Base-3 digits decoded per table lookup.
const CHUNK_DIGITS: u32 = 8;
const CHUNK: u64 = 3u64.pow(CHUNK_DIGITS);

/// A cell's state, as in the position text.
pub const EMPTY: u8 = 0;
pub const LEFT: u8 = 1;
pub const RIGHT: u8 = 2;

/// The player to move, as the index's low bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Player {
    Left = 0,
    Right = 1,
}

impl Player {
    pub fn other(self) -> Player {
        match self {
            Player::Left => Player::Right,
            Player::Right => Player::Left,
        }
    }

    /// The cell state this player's claims leave.
    pub fn cell(self) -> u8 {
        self as u8 + 1
    }

    pub fn letter(self) -> char {
        match self {
            Player::Left => 'L',
            Player::Right => 'R',
        }
    }
}

/// What the cells are: a graph file's edges or vertices, or a board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `shannon:PATH`: one cell per edge, in file order.
    Edges(Graph),
    /// `shannon-vertex:PATH`: one cell per non-terminal vertex, in increasing id order.
    Vertices(Graph),
    Board(Board),
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
                    msg: format!(
                        "'{arg}' is not a board size (a whole number from 1 to {})",
                        board::MAX_SIDE
                    ),
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
}

/// The most cells for which [`Game::prepare`] tabulates the winning test: one bit per set of
/// cells, `2^26` bits = 8 MiB, built in well under a second.
pub const MAX_TABULATED_CELLS: u32 = 26;

/// Indices per work unit of a tier in the alternation index.
const ALT_UNIT: u64 = 4096;

/// Cells fixed by one work unit of a tier in the plain index: `3^7 = 2187` units, so every
/// thread gets many.
const TIER_PREFIX_DIGITS: u32 = 7;

/// Cells of the plain index's tier walk taken from a table ([`LowPart`]), grouped by how many of
/// them are filled: `3^8 = 6561` entries of 8 bytes, which stay in the first-level cache's reach.
const LOW_DIGITS: u32 = 8;

/// The lowest [`LOW_DIGITS`] cells of a configuration: their part of the index and each player's
/// cells there.
#[derive(Clone, Copy, Debug)]
struct LowPart {
    value: u32,
    left: u16,
    right: u16,
    /// The filled cells as bits of the child order ([`CellGame::order_bit`]).
    filled_in_order: u64,
}

/// The children of a position of the plain index, produced as they are read: `base` plus one
/// step per empty cell, in the game's child order (`empty` holds the empty cells as bits of
/// that order, and `steps` is indexed by it).
#[derive(Clone)]
pub struct Steps<'a> {
    empty: u64,
    base: u64,
    steps: &'a [u64; 64],
}

impl Iterator for Steps<'_> {
    type Item = u64;

    #[inline(always)]
    fn next(&mut self) -> Option<u64> {
        if self.empty == 0 {
            return None;
        }
        let e = self.empty.trailing_zeros();
        self.empty &= self.empty - 1;
        Some(self.base + self.steps[(e & 63) as usize])
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.empty.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Steps<'_> {}

/// `10^log10` written as `7.29e19`.
fn scientific(log10: f64) -> String {
    let exponent = log10.floor();
    format!("{:.2}e{}", 10f64.powf(log10 - exponent), exponent as i64)
}

/// Reads a position's cells and player to move, for a game of `cells` cells. Whitespace between
/// cells is ignored, so boards may be written row by row.
pub fn parse_cells(text: &str, cells: u64) -> Result<(Vec<u8>, Player), PositionError> {
    let (body, suffix) = match text.trim().rsplit_once('/') {
        Some((b, s)) => (b, Some(s.trim())),
        None => (text.trim(), None),
    };
    let mut states = Vec::with_capacity(cells as usize);
    for ch in body.chars().filter(|c| !c.is_whitespace()) {
        let state = match ch {
            '.' => EMPTY,
            'L' => LEFT,
            'R' => RIGHT,
            _ => {
                return Err(PositionError::new(
                    text,
                    format!(
                        "character '{ch}' at cell {}: cells are '.' (empty), 'L' or 'R'",
                        states.len()
                    ),
                ));
            }
        };
        states.push(state);
    }
    if states.len() as u64 != cells {
        return Err(PositionError::new(
            text,
            format!("has {} cells but this game has {cells}", states.len()),
        ));
    }
    let lefts = states.iter().filter(|&&s| s == LEFT).count();
    let rights = states.iter().filter(|&&s| s == RIGHT).count();
    let mover = match suffix {
        Some("L") => Player::Left,
        Some("R") => Player::Right,
        Some(s) => {
            return Err(PositionError::new(
                text,
                format!("'/{s}': the player to move is '/L' or '/R'"),
            ));
        }
        None if lefts == rights => Player::Left,
        None if lefts == rights + 1 => Player::Right,
        None => {
            return Err(PositionError::new(
                text,
                format!(
                    "Left has {lefts} cells and Right {rights}, so the player to move does not \
                     follow from Left moving first; add '/L' or '/R'"
                ),
            ));
        }
    };
    Ok((states, mover))
}

/// Splits `ARG,start=L` (or `,start=R`) into the argument and the player who moves first; plain
/// `ARG` is every configuration with either player to move.
pub fn split_start<'a>(spec: &str, arg: &'a str) -> Result<(&'a str, Option<Player>)> {
    let Some((base, start)) = arg.rsplit_once(",start=") else {
        return Ok((arg, None));
    };
    match start {
        "L" => Ok((base, Some(Player::Left))),
        "R" => Ok((base, Some(Player::Right))),
        "both" => Ok((base, None)),
        _ => Err(Error::Spec {
            spec: spec.to_string(),
            msg: format!("',start={start}': the first player is L, R or both"),
        }),
    }
}

/// The sliced index's shape, for a build's plan.
#[derive(Clone, Copy, Debug)]
pub struct SlicedPlan {
    pub key_cells: u32,
    pub low_cells: u32,
    pub rows: u64,
    /// Symmetries besides the identity that rows are shared under (0 for `,sliced`).
    pub symmetries: usize,
    /// The positions of the same game without symmetry (the alternation index's).
    pub without_symmetry: u64,
}

/// How a cell game numbers its positions.
#[derive(Debug)]
enum Index {
    /// Every configuration with either player to move (`mover + 2 * sum(d_i * 3^i)`).
    Plain,
    /// Only the configurations alternation reaches, tier-major (`,start=L`).
    Alternation(alternation::Alternation),
    /// Only the configurations alternation reaches, by rows of key cells, with one row per
    /// symmetry class of keys where asked (`,start=L,sliced` and `,start=L,sym`).
    Sliced(Box<sliced::Sliced>),
}

/// Splits `ARG,sym` or `ARG,sliced` into the argument and the sliced index asked for: `Some(true)`
/// for one row per symmetry class, `Some(false)` for every row, `None` for neither.
pub fn split_sliced(arg: &str) -> (&str, Option<bool>) {
    if let Some(base) = arg.strip_suffix(",sym") {
        (base, Some(true))
    } else if let Some(base) = arg.strip_suffix(",sliced") {
        (base, Some(false))
    } else {
        (arg, None)
    }
}

/// A cell game ready for solving: layout, winning conditions and index arithmetic.
#[derive(Debug)]
pub struct CellGame {
    spec: String,
    source: Option<Source>,
    layout: Layout,
    labels: Vec<String>,
    links: Links,
    cells: u32,
    full: u64,
    size: u64,
    /// `step[i] = 2 * 3^i`: what one Left digit in cell `i` adds to an index.
    step: Vec<u64>,
    /// Per value of `CHUNK_DIGITS` base-3 digits: Left's bits in the low byte, Right's in the high.
    decode: Vec<u16>,
    /// How positions are numbered: every configuration, or only those alternation reaches.
    index: Index,
    /// What a move into cell `i` adds to an index in the plain index: `[0][i]` for Left's
    /// (digit 0 -> 1, mover 0 -> 1: `2 * 3^i + 1`, the 1 in the base), `[1][i]` for Right's.
    move_steps: Box<[[u64; 64]; 2]>,
    /// The order in which the tier walk reads a position's children: cells that more often
    /// decide a connection first, so a win is found after fewer reads ([`child_order`]).
    /// `order_bit[i]` is cell `i`'s bit in that order; `move_steps` is indexed by it.
    order_bit: Box<[u64; 64]>,
    /// The cells in that order.
    order: Vec<u32>,
    /// The low cells' parts, by number of filled cells then value; `low_start[c]..low_start[c +
    /// 1]` fill `c` cells.
    low: Vec<LowPart>,
    low_start: Vec<u32>,
    /// Once [`Game::prepare`]d: bit `s` says whether the cell set `s` joins the terminals
    /// (`Links::connects`), so a win test is one lookup instead of a flood.
    joins: std::sync::OnceLock<Box<[u64]>>,
}

impl CellGame {
    /// Builds the game a spec names (`kind:arg` already split). Refuses games whose positions do
    /// not fit a 64-bit index, with the estimate and the memory limit, before allocating anything
    /// in proportion to the table.
    pub fn load<'a>(
        kind: &str,
        arg: &str,
        bytes: impl FnOnce() -> Result<crate::games::InputBytes<'a>>,
        max_memory: u64,
    ) -> Result<CellGame> {
        let spec = format!("{kind}:{arg}");
        let (arg, sliced) = split_sliced(arg);
        let (base, start) = split_start(&spec, arg)?;
        let (layout, source) = Layout::from_spec(&spec, kind, base, bytes)?;
        let suffix = match sliced {
            Some(true) => ",sym",
            Some(false) => ",sliced",
            None => "",
        };
        // `,start=both` is the plain game: one spec per table.
        let spec = match start {
            Some(p) => format!("{kind}:{base},start={}{suffix}", p.letter()),
            None if sliced.is_some() => {
                return Err(Error::Spec {
                    spec,
                    msg: format!(
                        "'{suffix}' needs a first player: the sliced index holds the positions \
                         alternation reaches (write ',start=L{suffix}' or ',start=R{suffix}')"
                    ),
                });
            }
            None => format!("{kind}:{base}"),
        };
        let mut game = Self::new(spec, layout, source, max_memory)?;
        match (start, sliced) {
            (Some(first), None) => {
                let alt = alternation::Alternation::new(game.cells, first);
                game.size = alt.size();
                game.index = Index::Alternation(alt);
            }
            (Some(first), Some(symmetric)) => {
                let group: Vec<Vec<u32>> = game.board_group();
                let s =
                    sliced::Sliced::new(game.cells, first, &group, symmetric).map_err(|msg| {
                        Error::Spec {
                            spec: game.spec.clone(),
                            msg,
                        }
                    })?;
                game.size = s.size();
                game.index = Index::Sliced(Box::new(s));
            }
            (None, _) => {}
        }
        Ok(game)
    }

    /// The player who moved first, for games that hold only the positions alternation reaches.
    pub fn start(&self) -> Option<Player> {
        match &self.index {
            Index::Plain => None,
            Index::Alternation(a) => Some(a.first),
            Index::Sliced(s) => Some(s.first),
        }
    }

    /// The board's symmetries that keep the colours, as cell permutations (none for graphs).
    fn board_group(&self) -> Vec<Vec<u32>> {
        match &self.layout {
            Layout::Board(b) => b
                .symmetries()
                .into_iter()
                .filter(|s| !s.swaps_colours)
                .map(|s| s.perm)
                .collect(),
            _ => Vec::new(),
        }
    }

    /// What a build's plan says of a sliced index; `None` for other indices.
    pub fn sliced_plan(&self) -> Option<SlicedPlan> {
        let s = self.sliced()?;
        Some(SlicedPlan {
            key_cells: s.key_digits(),
            low_cells: s.low_digits(),
            rows: s.rows.len() as u64,
            symmetries: if s.symmetric { s.group.len() } else { 0 },
            without_symmetry: alternation::Alternation::new(self.cells, s.first).size(),
        })
    }

    /// The sliced index, for games that use one.
    pub fn sliced(&self) -> Option<&sliced::Sliced> {
        match &self.index {
            Index::Sliced(s) => Some(s),
            _ => None,
        }
    }

    /// The game on a layout; `spec` is what tables record.
    pub fn new(
        spec: String,
        layout: Layout,
        source: Option<Source>,
        max_memory: u64,
    ) -> Result<CellGame> {
        let cells = layout.cell_count();
        if cells > MAX_CELLS {
            // Counted by logarithms: 3^E overflows even a float for large graphs. The counter
            // engine needs about 13.25 bytes a position (a 2-bit cell, a 1-byte counter and up to
            // 12 bytes of frontier; see `solve::memory_estimate`).
            let log_positions = 2f64.log10() + cells as f64 * 3f64.log10();
            return Err(Error::Spec {
                spec,
                msg: format!(
                    "{cells} cells make 2*3^{cells} = {} positions, more than a 64-bit index \
                     numbers (at most {MAX_CELLS} cells); solving would need about {} bytes but \
                     the memory limit is {}",
                    scientific(log_positions),
                    scientific(log_positions + 13.25f64.log10()),
                    human_bytes(max_memory)
                ),
            });
        }
        let cells = cells as u32;
        let step: Vec<u64> = (0..cells).map(|i| 2 * 3u64.pow(i)).collect();
        let size = 2 * 3u64.pow(cells);
        let decode = (0..CHUNK)
            .map(|v| {
                let (l, r) = digit_masks(v, CHUNK_DIGITS);
                (l | r << 8) as u16
            })
            .collect();
        let links = layout.links();
        let order = child_order(&links, cells);
        let mut order_bit = Box::new([0u64; 64]);
        for (k, &i) in order.iter().enumerate() {
            order_bit[i as usize] = 1 << k;
        }
        let (low, low_start) = low_parts(cells.min(LOW_DIGITS), &order_bit);
        Ok(CellGame {
            spec,
            source,
            labels: layout.labels(),
            links,
            layout,
            cells,
            full: (1u64 << cells) - 1,
            size,
            step,
            decode,
            index: Index::Plain,
            move_steps: {
                let mut m = Box::new([[0u64; 64]; 2]);
                for (k, &i) in order.iter().enumerate() {
                    m[0][k] = 2 * 3u64.pow(i);
                    m[1][k] = 4 * 3u64.pow(i);
                }
                m
            },
            order_bit,
            order,
            low,
            low_start,
            joins: std::sync::OnceLock::new(),
        })
    }

    pub fn source(&self) -> Option<&Source> {
        self.source.as_ref()
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    pub fn cells(&self) -> u32 {
        self.cells
    }

    pub fn labels(&self) -> &[String] {
        &self.labels
    }

    /// Left's and Right's cells as bitboards.
    #[inline]
    pub fn masks(&self, pos: u64) -> (u64, u64) {
        match &self.index {
            Index::Plain => {}
            Index::Alternation(a) => return a.masks(pos),
            Index::Sliced(s) => return s.masks(pos),
        }
        let mut q = pos >> 1;
        let (mut l, mut r) = (0u64, 0u64);
        let mut shift = 0;
        while q != 0 {
            let d = self.decode[(q % CHUNK) as usize] as u64;
            l |= (d & 0xFF) << shift;
            r |= (d >> 8) << shift;
            q /= CHUNK;
            shift += CHUNK_DIGITS;
        }
        (l, r)
    }

    pub fn mover(&self, pos: u64) -> Player {
        match &self.index {
            Index::Plain => {}
            Index::Alternation(a) => return a.mover(a.tier(pos)),
            Index::Sliced(s) => {
                let (l, r) = s.masks(pos);
                return s.mover_of(l, r);
            }
        }
        if pos & 1 == 0 {
            Player::Left
        } else {
            Player::Right
        }
    }

    /// The index of a configuration, or `None` when the game holds only the positions alternation
    /// reaches and this is not one of them.
    pub fn try_index(&self, left: u64, right: u64, mover: Player) -> Option<u64> {
        match &self.index {
            Index::Alternation(a) => {
                let t = (left | right).count_ones();
                a.index(left, right).filter(|_| a.mover(t) == mover)
            }
            Index::Sliced(s) => s
                .index(left, right)
                .filter(|_| s.mover_of(left, right) == mover),
            Index::Plain => Some(self.index(left, right, mover)),
        }
    }

    /// The index of a configuration.
    ///
    /// # Panics
    /// In a game of the positions alternation reaches, for a configuration it does not reach
    /// ([`CellGame::try_index`] says `None` instead).
    pub fn index(&self, left: u64, right: u64, mover: Player) -> u64 {
        if !matches!(self.index, Index::Plain) {
            return self
                .try_index(left, right, mover)
                .expect("a configuration alternation reaches");
        }
        let mut pos = mover as u64;
        for i in 0..self.cells {
            if left >> i & 1 == 1 {
                pos += self.step[i as usize];
            } else if right >> i & 1 == 1 {
                pos += 2 * self.step[i as usize];
            }
        }
        pos
    }

    /// The cell states of a position.
    pub fn states(&self, pos: u64) -> Vec<u8> {
        let (l, r) = self.masks(pos);
        self.states_of_masks(l, r)
    }

    /// The cell states of the configuration with Left's cells `l` and Right's cells `r`.
    pub fn states_of_masks(&self, l: u64, r: u64) -> Vec<u8> {
        (0..self.cells)
            .map(|i| {
                if l >> i & 1 == 1 {
                    LEFT
                } else if r >> i & 1 == 1 {
                    RIGHT
                } else {
                    EMPTY
                }
            })
            .collect()
    }

    /// The index of a position given by its cell states.
    pub fn index_of_states(&self, states: &[u8], mover: Player) -> u64 {
        let bits = |want: u8| {
            states
                .iter()
                .enumerate()
                .filter(|&(_, &s)| s == want)
                .fold(0u64, |m, (i, _)| m | 1 << i)
        };
        self.index(bits(LEFT), bits(RIGHT), mover)
    }

    /// Whether the cells of `set` join the terminals: from the table once prepared, else by a
    /// flood over the links.
    #[inline]
    fn joins(&self, set: u64) -> bool {
        match self.joins.get() {
            Some(bits) => bits[(set >> 6) as usize] >> (set & 63) & 1 == 1,
            None => self.links.connects(set),
        }
    }

    #[inline]
    pub fn left_has_won(&self, left: u64) -> bool {
        self.joins(left)
    }

    #[inline]
    pub fn right_has_won(&self, right: u64) -> bool {
        !self.joins(self.full & !right)
    }

    /// Who has won in a configuration, if anyone.
    #[inline]
    pub fn winner(&self, left: u64, right: u64) -> Option<Player> {
        self.win_test()(left, right)
    }

    /// [`CellGame::winner`] with the question "is the table prepared?" asked once, for loops.
    #[inline(always)]
    fn win_test(&self) -> impl Fn(u64, u64) -> Option<Player> + '_ {
        let table = self.joins.get().map(|b| &b[..]);
        let full = self.full;
        move |left, right| {
            let joins = |set: u64| match table {
                Some(bits) => bits[(set >> 6) as usize] >> (set & 63) & 1 == 1,
                None => self.links.connects(set),
            };
            if joins(left) {
                Some(Player::Left)
            } else if !joins(full & !right) {
                Some(Player::Right)
            } else {
                None
            }
        }
    }

    /// The children of an open position with Left's cells `l` and Right's `r`.
    #[inline]
    fn children(&self, pos: u64, l: u64, r: u64, mut f: impl FnMut(u64)) {
        let mut empty = self.full & !(l | r);
        if let Index::Sliced(s) = &self.index {
            let left = s.mover_of(l, r) == Player::Left;
            while empty != 0 {
                let bit = empty & empty.wrapping_neg();
                empty &= empty - 1;
                let child = if left {
                    s.index(l | bit, r)
                } else {
                    s.index(l, r | bit)
                };
                f(child.expect("a move keeps the alternation's counts"));
            }
            return;
        }
        if let Index::Alternation(a) = &self.index {
            let left = self.mover(pos) == Player::Left;
            while empty != 0 {
                let bit = empty & empty.wrapping_neg();
                empty &= empty - 1;
                let child = if left {
                    a.index(l | bit, r)
                } else {
                    a.index(l, r | bit)
                };
                f(child.expect("a move keeps the alternation's counts"));
            }
            return;
        }
        // Left claims: digit 0 -> 1 and mover 0 -> 1. Right claims: digit 0 -> 2, mover 1 -> 0.
        let left = pos & 1 == 0;
        while empty != 0 {
            let i = empty.trailing_zeros() as usize;
            empty &= empty - 1;
            f(if left {
                pos + self.step[i] + 1
            } else {
                pos + 2 * self.step[i] - 1
            });
        }
    }

    /// The cell a move from `pos` to `child` claims.
    /// The boards one move before `(l, r)` (with `mover` to move there) from which the game
    /// was still open, under alternation: the player not to move made the last move, and the
    /// first position has none.
    fn unmoves(&self, l: u64, r: u64, mover: Player, mut f: impl FnMut(u64, u64)) {
        if (l | r) == 0 {
            return;
        }
        let right_moved = mover == Player::Left;
        let (mine, theirs_won) = if right_moved {
            (r, self.left_has_won(l))
        } else {
            (l, self.right_has_won(r))
        };
        if theirs_won {
            return;
        }
        let won = |m: u64| {
            if right_moved {
                self.right_has_won(m)
            } else {
                self.left_has_won(m)
            }
        };
        let check = won(mine);
        let mut rest = mine;
        while rest != 0 {
            let bit = rest & rest.wrapping_neg();
            rest &= rest - 1;
            if !check || !won(mine & !bit) {
                if right_moved {
                    f(l, r & !bit)
                } else {
                    f(l & !bit, r)
                }
            }
        }
    }

    pub fn claimed_cell(&self, pos: u64, child: u64) -> Option<u32> {
        let (l, r) = self.masks(pos);
        let (l2, r2) = self.masks(child);
        let new = (l2 | r2) & !(l | r);
        (new.count_ones() == 1).then(|| new.trailing_zeros())
    }

    /// The board's symmetries (none for graph files).
    pub fn symmetries(&self) -> Vec<Symmetry> {
        let mut syms = match &self.layout {
            Layout::Board(b) => b.symmetries(),
            _ => Vec::new(),
        };
        // Swapping colours would swap who moved first: no such image is in an alternation table.
        if self.start().is_some() {
            syms.retain(|s| !s.swaps_colours);
        }
        syms
    }

    /// The image of a position under a symmetry (colours and mover swapped if it swaps them).
    pub fn apply(&self, sym: &Symmetry, pos: u64) -> u64 {
        let (l, r) = self.masks(pos);
        let (mut l2, mut r2) = (0u64, 0u64);
        for i in 0..self.cells {
            let to = sym.perm[i as usize];
            l2 |= (l >> i & 1) << to;
            r2 |= (r >> i & 1) << to;
        }
        let mut mover = self.mover(pos);
        if sym.swaps_colours {
            std::mem::swap(&mut l2, &mut r2);
            mover = mover.other();
        }
        self.index(l2, r2, mover)
    }

    /// The tier walk of the plain index: calls `f(c, left, right, filled)` on the configurations
    /// (index without the mover bit; `filled` is their filled cells as bits of the child order)
    /// with `t` filled cells whose top [`TIER_PREFIX_DIGITS`] cells are the digits of `unit`, in
    /// increasing order. The middle cells run as an odometer and the low ones come from the
    /// table of [`LowPart`]s with the right number filled, so each configuration costs one table
    /// read and a few ORs.
    #[inline(always)]
    fn plain_tier_walk(&self, t: u32, unit: u64, mut f: impl FnMut(u64, u64, u64, u64)) {
        let low = self.cells.min(LOW_DIGITS);
        let top = (self.cells - low).min(TIER_PREFIX_DIGITS);
        let mid = self.cells - low - top;
        if unit >= 3u64.pow(top) {
            return;
        }
        // The unit's cells, as masks at their places.
        let (ul, ur) = digit_masks(unit, top);
        let (ul, ur) = (ul << (low + mid), ur << (low + mid));
        let filled = (ul | ur).count_ones();
        let unit_in_order = in_order(&self.order_bit, ul | ur);
        if filled > t || t - filled > mid + low {
            return;
        }
        let low_size = 3u64.pow(low);
        let mut digits = [0u8; 64];
        let (mut ml, mut mr, mut mfilled, mut mid_in_order) = (0u64, 0u64, 0u32, 0u64);
        let mut high = unit * 3u64.pow(mid);
        let end = high + 3u64.pow(mid);
        loop {
            if let Some(c) = (t - filled).checked_sub(mfilled)
                && c <= low
            {
                let (hl, hr) = (ul | ml, ur | mr);
                let high_in_order = unit_in_order | mid_in_order;
                let base = high * low_size;
                let (from, to) = (self.low_start[c as usize], self.low_start[c as usize + 1]);
                for p in &self.low[from as usize..to as usize] {
                    f(
                        base + p.value as u64,
                        hl | p.left as u64,
                        hr | p.right as u64,
                        high_in_order | p.filled_in_order,
                    );
                }
            }
            high += 1;
            if high == end {
                return;
            }
            // The next middle value: digits 2 roll over to 0 and carry.
            let mut i = 0;
            loop {
                let bit = 1u64 << (low + i);
                match digits[i as usize] {
                    0 => {
                        digits[i as usize] = 1;
                        ml |= bit;
                        mfilled += 1;
                        mid_in_order |= self.order_bit[(low + i) as usize];
                        break;
                    }
                    1 => {
                        digits[i as usize] = 2;
                        ml &= !bit;
                        mr |= bit;
                        break;
                    }
                    _ => {
                        digits[i as usize] = 0;
                        mr &= !bit;
                        mfilled -= 1;
                        mid_in_order &= !self.order_bit[(low + i) as usize];
                        i += 1;
                    }
                }
            }
        }
    }

    /// The number of filled cells of a position.
    /// The positions of tier `t` in one row of the sliced index (`unit` is the row), class A
    /// (Left to move) then class B, each in rank order: increasing indices.
    fn sliced_tier_walk(&self, s: &sliced::Sliced, t: u32, unit: u64, v: &mut impl TierVisitor) {
        let Some(row) = s.rows.get(unit as usize) else {
            return;
        };
        let Some(c) = t.checked_sub(row.tier).filter(|&c| c <= s.low_digits()) else {
            return;
        };
        let (kl, kr) = s.key_masks(row.key);
        let (a, b) = s.row_classes(kl, kr);
        let mut kids = [0u64; 64];
        for (class, base, mover) in [
            (a, row.start, Player::Left),
            (b, row.start + row.split as u64, Player::Right),
        ] {
            let Some(ranks) = class.by_count.get(c as usize) else {
                continue;
            };
            for rank in ranks.clone() {
                let (ll, lr) = s.low_masks[class.list[rank as usize] as usize];
                let (l, r) = (kl | ll, kr | lr);
                let (status, n) = match self.winner(l, r) {
                    Some(w) if w == mover => (Status::Over(Value::Win), 0),
                    Some(_) => (Status::Over(Value::Loss), 0),
                    None => {
                        let mut n = 0;
                        self.children(0, l, r, |child| {
                            kids[n] = child;
                            n += 1;
                        });
                        (Status::Open, n)
                    }
                };
                v.visit(TierPosition {
                    index: base + rank as u64,
                    status,
                    children: kids[..n].iter().copied(),
                });
            }
        }
    }

    pub fn tier(&self, pos: u64) -> u32 {
        let (l, r) = self.masks(pos);
        (l | r).count_ones()
    }

    /// A picture of the position, with the cells of `marked` moves highlighted.
    pub fn picture(&self, pos: u64, marked: &[u32], style: picture::Style) -> Option<String> {
        picture::draw(
            &self.layout,
            &self.states(pos),
            self.mover(pos),
            marked,
            style,
        )
    }
}

impl Game for CellGame {
    fn spec(&self) -> String {
        self.spec.clone()
    }

    /// Tabulates the winning test for games of up to [`MAX_TABULATED_CELLS`] cells: `2^cells`
    /// floods, against the `2 * 3^cells` positions of a solve that tests each one at least once.
    fn prepare(&self) {
        if self.cells > MAX_TABULATED_CELLS {
            return;
        }
        self.joins.get_or_init(|| {
            use rayon::prelude::*;
            let sets = 1u64 << self.cells;
            (0..sets.div_ceil(64))
                .into_par_iter()
                .map(|w| {
                    (0..64.min(sets))
                        .filter(|i| self.links.connects(w * 64 + i))
                        .fold(0u64, |word, i| word | 1 << i)
                })
                .collect()
        });
    }

    fn size(&self) -> u64 {
        self.size
    }

    #[inline]
    fn status(&self, pos: u64) -> Status {
        if pos >= self.size {
            return Status::Unused;
        }
        let (l, r) = self.masks(pos);
        match self.winner(l, r) {
            None => Status::Open,
            Some(w) if w == self.mover(pos) => Status::Over(Value::Win),
            Some(_) => Status::Over(Value::Loss),
        }
    }

    #[inline]
    fn for_each_child(&self, pos: u64, f: impl FnMut(u64)) {
        let (l, r) = self.masks(pos);
        if self.winner(l, r).is_none() {
            self.children(pos, l, r, f);
        }
    }

    /// One decoding and one win test for both the status and the children.
    #[inline]
    fn visit(&self, pos: u64, f: impl FnMut(u64)) -> Status {
        if pos >= self.size {
            return Status::Unused;
        }
        let (l, r) = self.masks(pos);
        match self.winner(l, r) {
            None => {
                self.children(pos, l, r, f);
                Status::Open
            }
            Some(w) if w == self.mover(pos) => Status::Over(Value::Win),
            Some(_) => Status::Over(Value::Loss),
        }
    }

    #[inline]
    fn for_each_parent(&self, pos: u64, mut f: impl FnMut(u64)) {
        let (l, r) = self.masks(pos);
        match &self.index {
            Index::Plain => {}
            Index::Alternation(a) => {
                self.unmoves(l, r, a.mover(a.tier(pos)), |pl, pr| {
                    f(a.index(pl, pr)
                        .expect("an unmove keeps the alternation's counts"))
                });
                return;
            }
            Index::Sliced(s) => {
                // A stored board stands for its images: the parents are the stored boards with
                // a move to an image this index holds, each once per such move.
                for (xl, xr) in s.images(l, r) {
                    if s.index(xl, xr) != Some(pos) {
                        continue;
                    }
                    self.unmoves(xl, xr, s.mover_of(xl, xr), |pl, pr| {
                        if let Some(p) = s.index(pl, pr)
                            && s.masks(p) == (pl, pr)
                        {
                            f(p)
                        }
                    });
                }
                return;
            }
        }
        if pos & 1 == 1 {
            // Right to move: Left just claimed one of his cells. The parent had the same Right
            // cells, so Right had not won there iff he has not won here; Left's win is monotone,
            // so only when Left has won here can removing a cell leave a parent already won.
            if self.right_has_won(r) {
                return;
            }
            let check = self.left_has_won(l);
            let mut mine = l;
            while mine != 0 {
                let i = mine.trailing_zeros();
                mine &= mine - 1;
                if !check || !self.left_has_won(l & !(1 << i)) {
                    f(pos - self.step[i as usize] - 1);
                }
            }
        } else {
            if self.left_has_won(l) {
                return;
            }
            let check = self.right_has_won(r);
            let mut mine = r;
            while mine != 0 {
                let i = mine.trailing_zeros();
                mine &= mine - 1;
                if !check || !self.right_has_won(r & !(1 << i)) {
                    f(pos - 2 * self.step[i as usize] + 1);
                }
            }
        }
    }

    fn max_children(&self) -> u64 {
        self.cells as u64
    }

    fn parse_position(&self, text: &str) -> Result<u64, PositionError> {
        let Some(first) = self.start() else {
            let (states, mover) = parse_cells(text, self.cells as u64)?;
            return Ok(self.index_of_states(&states, mover));
        };
        // Without '/L' or '/R' the mover follows from this game's first player (below), not
        // from Left moving first: read the cells with a placeholder suffix.
        let suffixed = text.contains('/');
        let read = if suffixed {
            text.to_string()
        } else {
            format!("{text}/L")
        };
        let (states, mover) = parse_cells(&read, self.cells as u64).map_err(|mut e| {
            e.text = text.to_string();
            e
        })?;
        let bits = |want: u8| {
            states
                .iter()
                .enumerate()
                .filter(|&(_, &s)| s == want)
                .fold(0u64, |m, (i, _)| m | 1 << i)
        };
        let (l, r) = (bits(LEFT), bits(RIGHT));
        let after = |t: u32| {
            if t.is_multiple_of(2) {
                first
            } else {
                first.other()
            }
        };
        let t = (l | r).count_ones();
        // Without '/L' or '/R' the mover follows from this game's first player.
        let mover = if suffixed { mover } else { after(t) };
        self.try_index(l, r, mover).ok_or_else(|| {
            PositionError::new(
                text,
                format!(
                    "not reachable from the empty board with {} moving first (after {t} moves \
                     {} has {} cells and {} is to move); this table holds only such positions",
                    first.letter(),
                    first.letter(),
                    t.div_ceil(2),
                    after(t).letter()
                ),
            )
        })
    }

    fn position_text(&self, pos: u64) -> String {
        let mut s: String = self
            .states(pos)
            .iter()
            .map(|&c| match c {
                LEFT => 'L',
                RIGHT => 'R',
                _ => '.',
            })
            .collect();
        s.push('/');
        s.push(self.mover(pos).letter());
        s
    }

    /// In the sliced index, row by row: no position is unused, and an open one always has a
    /// move (a full board is always won).
    fn searched_run(&self, first: u64, n: u64) -> Option<Vec<bool>> {
        let s = self.sliced()?;
        let end = (first + n).min(self.size);
        let mut out = Vec::with_capacity(n as usize);
        let mut pos = first;
        while pos < end {
            let row = s.row_at(pos);
            let (kl, kr) = s.key_masks(row.key);
            let (a, b) = s.row_classes(kl, kr);
            let row_end = (row.start + row.len as u64).min(end);
            for p in pos..row_end {
                let o = p - row.start;
                let v = if o < row.split as u64 {
                    a.list[o as usize]
                } else {
                    b.list[(o - row.split as u64) as usize]
                };
                let (ll, lr) = s.low_masks[v as usize];
                let (l, r) = (kl | ll, kr | lr);
                out.push(self.winner(l, r).is_none() && (l | r) != self.full);
            }
            pos = row_end;
        }
        Some(out)
    }

    /// The board after the move: the stored board with the move's cell claimed (the child index
    /// may hold a symmetric image of it).
    fn child_text(&self, pos: u64, m: &Move) -> String {
        let cell: Option<u32> = m
            .name
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .and_then(|d| d.parse().ok());
        match (self.sliced(), cell) {
            (Some(s), Some(cell)) if s.symmetric && cell < self.cells => {
                let (l, r) = self.masks(pos);
                let (l, r) = match self.mover(pos) {
                    Player::Left => (l | 1 << cell, r),
                    Player::Right => (l, r | 1 << cell),
                };
                let mut text: String = self
                    .states_of_masks(l, r)
                    .iter()
                    .map(|&c| match c {
                        LEFT => 'L',
                        RIGHT => 'R',
                        _ => '.',
                    })
                    .collect();
                text.push('/');
                text.push(self.mover(pos).other().letter());
                text
            }
            _ => self.position_text(m.child),
        }
    }

    /// With symmetry, the stored board when it is not the asked one.
    fn stored_image(&self, text: &str, pos: u64) -> Option<String> {
        self.sliced().filter(|s| s.symmetric)?;
        let read = if text.contains('/') {
            text.to_string()
        } else {
            format!("{text}/L")
        };
        let (states, _) = parse_cells(&read, self.cells as u64).ok()?;
        let bits = |want: u8| {
            states
                .iter()
                .enumerate()
                .filter(|&(_, &c)| c == want)
                .fold(0u64, |m, (i, _)| m | 1 << i)
        };
        (self.masks(pos) != (bits(LEFT), bits(RIGHT))).then(|| self.position_text(pos))
    }

    /// One move per empty cell of the board stored at `pos`, in cell order (with symmetry, the
    /// child is the index of the board's canonical image).
    fn moves(&self, pos: u64) -> Vec<Move> {
        let (l, r) = self.masks(pos);
        if self.winner(l, r).is_some() {
            return Vec::new();
        }
        let mover = self.mover(pos);
        let mut empty = self.full & !(l | r);
        let mut out = Vec::new();
        while empty != 0 {
            let cell = empty.trailing_zeros();
            let bit = empty & empty.wrapping_neg();
            empty &= empty - 1;
            let (l2, r2) = match mover {
                Player::Left => (l | bit, r),
                Player::Right => (l, r | bit),
            };
            let child = self
                .try_index(l2, r2, mover.other())
                .expect("a move leads to a position of the game");
            out.push(Move {
                name: format!("{cell}{}", self.labels[cell as usize]),
                child,
            });
        }
        out
    }

    fn render(&self, pos: u64) -> Option<String> {
        self.picture(pos, &[], picture::Style::Plain)
    }
}

impl Tiered for CellGame {
    /// Someone has always connected when the board is full.
    const DRAWS: bool = false;

    /// Tier `t` holds the configurations with `t` filled cells.
    fn tier_count(&self) -> u32 {
        self.cells + 1
    }

    /// Plain index: one unit per value of the top [`TIER_PREFIX_DIGITS`] cells. Alternation: runs
    /// of [`ALT_UNIT`] indices of the tier's range.
    fn tier_units(&self, t: u32) -> u64 {
        if t > self.cells {
            return 0;
        }
        match &self.index {
            Index::Plain => {}
            Index::Alternation(a) => {
                let r = a.tier_range(t);
                return (r.end - r.start).div_ceil(ALT_UNIT);
            }
            Index::Sliced(s) => return s.rows.len() as u64,
        }
        let low = self.cells.min(LOW_DIGITS);
        3u64.pow((self.cells - low).min(TIER_PREFIX_DIGITS))
    }

    /// Each configuration is decoded and tested for a winner once, for both players to move
    /// where the index has both, with its cells carried along the walk instead of decoded from
    /// the index.
    #[inline]
    fn visit_tier(&self, t: u32, unit: u64, v: &mut impl TierVisitor) {
        if let Index::Sliced(s) = &self.index {
            self.sliced_tier_walk(s, t, unit, v);
            return;
        }
        let Index::Alternation(a) = &self.index else {
            let [left, right] = &*self.move_steps;
            let winner = self.win_test();
            let all_in_order = in_order(&self.order_bit, self.full);
            self.plain_tier_walk(t, unit, |c, l, r, filled| {
                let (pl, pr) = (2 * c, 2 * c + 1);
                let (sl, sr, empty) = match winner(l, r) {
                    Some(Player::Left) => (Status::Over(Value::Win), Status::Over(Value::Loss), 0),
                    Some(Player::Right) => (Status::Over(Value::Loss), Status::Over(Value::Win), 0),
                    None => (Status::Open, Status::Open, all_in_order & !filled),
                };
                // Left claims: digit 0 -> 1, mover 0 -> 1. Right: digit 0 -> 2, mover 1 -> 0.
                v.visit_pair(
                    TierPosition {
                        index: pl,
                        status: sl,
                        children: Steps {
                            empty,
                            base: pl + 1,
                            steps: left,
                        },
                    },
                    TierPosition {
                        index: pr,
                        status: sr,
                        children: Steps {
                            empty,
                            base: pr - 1,
                            steps: right,
                        },
                    },
                );
            });
            return;
        };
        // Each configuration follows from the one before, and its children are ranked from its
        // own rank's terms.
        if unit >= self.tier_units(t) {
            return;
        }
        let range = a.tier_range(t);
        let start = range.start + unit * ALT_UNIT;
        let mover = a.mover(t);
        let mut kids = [0u64; 64];
        a.walk(
            t,
            start,
            (start + ALT_UNIT).min(range.end),
            |pos, l, r, ranks| {
                let (status, n) = match self.winner(l, r) {
                    Some(w) if w == mover => (Status::Over(Value::Win), 0),
                    Some(_) => (Status::Over(Value::Loss), 0),
                    None => (Status::Open, a.children(ranks, l, &mut kids)),
                };
                v.visit(TierPosition {
                    index: pos,
                    status,
                    children: kids[..n].iter().copied(),
                });
            },
        );
    }

    fn tier_range(&self, t: u32) -> Option<std::ops::Range<u64>> {
        match &self.index {
            Index::Alternation(a) if t <= self.cells => Some(a.tier_range(t)),
            _ => None,
        }
    }

    /// The plain index is a plain board: Left wins by joining, Right by cutting every join
    /// (with the join table, which [`Game::prepare`] builds for up to
    /// [`MAX_TABULATED_CELLS`] cells).
    fn sliced_board(&self) -> Option<SlicedBoard<'_>> {
        let Index::Sliced(s) = &self.index else {
            return None;
        };
        self.prepare();
        self.joins.get().map(|joins| SlicedBoard {
            index: s,
            joins,
            full: self.full,
            order: &self.order,
        })
    }

    fn plain_board(&self) -> Option<PlainBoard<'_>> {
        if !matches!(self.index, Index::Plain) {
            return None;
        }
        self.prepare();
        self.joins.get().map(|joins| PlainBoard {
            cells: self.cells,
            joins,
        })
    }
}

/// The cells of `set` as bits of the child order.
#[inline]
fn in_order(order_bit: &[u64; 64], mut set: u64) -> u64 {
    let mut out = 0;
    while set != 0 {
        out |= order_bit[set.trailing_zeros() as usize];
        set &= set - 1;
    }
    out
}

/// The order in which the tier walk reads children: by how often a cell is pivotal (a set of
/// cells that joins the terminals no longer does without it), most first, counted over every
/// set for boards of at most [`ORDER_COUNTED_CELLS`] cells; by the number of cells and
/// terminals a cell touches on larger ones. Ties keep the cell order. Any order gives the same
/// table: it only decides how soon a position's first losing child (a winning move) is read.
fn child_order(links: &Links, cells: u32) -> Vec<u32> {
    let mut score = vec![0u64; cells as usize];
    if cells <= ORDER_COUNTED_CELLS {
        let joins: Vec<bool> = (0..1u64 << cells).map(|s| links.connects(s)).collect();
        for s in (0..joins.len()).filter(|&s| joins[s]) {
            for (i, v) in score.iter_mut().enumerate() {
                if s >> i & 1 == 1 && !joins[s & !(1 << i)] {
                    *v += 1;
                }
            }
        }
    } else {
        for (i, v) in score.iter_mut().enumerate() {
            *v = links.adj[i].count_ones() as u64 + (links.start >> i & 1) + (links.goal >> i & 1);
        }
    }
    let mut order: Vec<u32> = (0..cells).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(score[i as usize]));
    order
}

/// The parts of the lowest `digits` cells, ordered by the number of cells filled and then by
/// value, and where each count starts (`start[c]..start[c + 1]`).
fn low_parts(digits: u32, order_bit: &[u64; 64]) -> (Vec<LowPart>, Vec<u32>) {
    let mut parts: Vec<LowPart> = (0..3u32.pow(digits))
        .map(|value| {
            let (left, right) = digit_masks(value as u64, digits);
            let (left, right) = (left as u16, right as u16);
            LowPart {
                value,
                left,
                right,
                filled_in_order: in_order(order_bit, (left | right) as u64),
            }
        })
        .collect();
    let filled = |p: &LowPart| (p.left | p.right).count_ones();
    parts.sort_by_key(|p| (filled(p), p.value));
    let mut start = vec![0u32; digits as usize + 2];
    for p in &parts {
        start[filled(p) as usize + 1] += 1;
    }
    for c in 0..=digits as usize {
        start[c + 1] += start[c];
    }
    (parts, start)
}

#[cfg(test)]
mod tests;
