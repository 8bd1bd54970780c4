//! Cell games: games where the players take turns claiming empty cells, Left's cells and Right's
//! cells deciding the end. One core serves four specs — the Shannon switching game on a graph
//! file's edges (`shannon:PATH`) or vertices (`shannon-vertex:PATH`), Bridg-It (`bridgit:N`) and
//! Hex (`hex:N`) — each of which is a Shannon game on some graph (see `board`).
//!
//! Indexing: with `E` cells and digit `d_i` of cell `i` (0 empty, 1 Left's, 2 Right's), a
//! position is `mover + 2 * sum(d_i * 3^i)` with `mover` 0 when Left is to move and 1 when Right
//! is, so `0..2*3^E` holds every configuration with either player to move. Left has won when his
//! cells join the terminals; Right has won when the cells he has not taken no longer do.
//!
//! The invariant: a move adds exactly one digit (`tier` = filled cells grows by one), and the
//! parent enumeration undoes exactly one digit of the player who just moved, keeping only parents
//! where the game was still open — the exact inverse of the children.
//!
//! The files: `layout` says what the cells are, [`notation`] reads and prints positions,
//! `index` numbers them (plain, alternation or sliced), `tiers` walks a tier for the tiered
//! engine, and `wins` holds the winning test and its table.

pub mod alternation;
pub(crate) mod board;
mod family;
pub(crate) mod graph;
mod index;
pub(crate) mod layout;
pub mod notation;
pub mod picture;
mod tiers;
pub mod values;
pub(crate) mod wins;

use std::sync::OnceLock;

use crate::base::error::{Error, Result, human_bytes};
pub use crate::game::shape::Player;
use crate::game::shape::sliced::Sliced;
use crate::game::{Game, Move, Notation, Omissions, PositionError, Rules, Status, Value};
use crate::games::source::Source;
pub use board::{Board, Symmetry};
pub use graph::{Graph, Links};
use index::{Index, PlainIndex};
pub use layout::Layout;
pub use notation::{
    mask_of, masks_of_states, parse_cells, plain_spec, split_sliced, split_start, text_of_states,
};
use tiers::TierWalk;
pub use wins::{MAX_TABULATED_CELLS, WinTable};

/// The most cells a table can have: `2 * 3^39` still fits a 64-bit index, `2 * 3^40` does not.
pub const MAX_CELLS: u64 = 39;

/// A cell's state, as in the position text.
pub const EMPTY: u8 = 0;
pub const LEFT: u8 = 1;
pub const RIGHT: u8 = 2;

/// Calls `f` on each cell of `set`, in increasing order.
#[inline(always)]
fn for_each_cell(mut set: u64, mut f: impl FnMut(u32)) {
    while set != 0 {
        let cell = set.trailing_zeros();
        set &= set - 1;
        f(cell);
    }
}

/// `10^log10` written as `7.29e19`.
fn scientific(log10: f64) -> String {
    let exponent = log10.floor();
    format!("{:.2}e{}", 10f64.powf(log10 - exponent), exponent as i64)
}

/// A cell game ready for solving: layout, winning conditions and index arithmetic.
#[derive(Debug)]
pub struct CellGame {
    spec: String,
    source: Option<Source>,
    layout: Layout,
    labels: Vec<String>,
    cells: u32,
    full: u64,
    size: u64,
    /// How positions are numbered: every configuration, or only those alternation reaches.
    index: Index,
    /// The winning test, tabulated once [`Game::prepare`]d.
    wins: WinTable,
    /// The child order and the plain index's tier walk tables, built on first use: the
    /// bit-parallel kernel reads neither, and building them (a flood per set of cells for the
    /// order, a table of `3^8` low parts) costs more than that kernel's whole solve of a small
    /// board, of which a census solves hundreds of millions.
    walk: OnceLock<TierWalk>,
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
        let name = |symmetric: bool| if symmetric { ",sym" } else { ",sliced" };
        if let (Some(last), (_, Some(again))) = (sliced, split_sliced(arg)) {
            // `hex:4,start=L,sym,sym` was told its first player was wrong.
            return Err(Error::Spec {
                spec,
                msg: if last == again {
                    format!("'{}' is given twice", name(last))
                } else {
                    "',sym' and ',sliced' are both given; give one".to_string()
                },
            });
        }
        let (base, start) = split_start(&spec, arg)?;
        let (layout, source) = Layout::from_spec(&spec, kind, base, bytes)?;
        let suffix = match sliced {
            Some(true) => ",sym",
            Some(false) => ",sliced",
            None => "",
        };
        // `,start=both` is the plain game: one spec per table.
        // Without a first player, `,sliced` and `,sym` hold every configuration with either
        // player to move, as the plain spec does.
        let spec = match start {
            Some(p) => format!("{kind}:{base},start={}{suffix}", p.letter()),
            None => format!("{kind}:{base}{suffix}"),
        };
        let mut game = Self::new(spec, layout, source, max_memory)?;
        match (start, sliced) {
            (Some(first), None) => {
                let alt = alternation::Alternation::new(game.cells, first);
                game.set_index(Index::Alternation(alt));
            }
            (first, Some(symmetric)) => {
                let group = game.layout.colour_keeping_group();
                let s =
                    Sliced::new(game.cells, first, &group, symmetric).map_err(|e| Error::Spec {
                        spec: game.spec.clone(),
                        msg: e.to_string(),
                    })?;
                game.set_index(Index::Sliced(Box::new(s)));
            }
            (None, None) => {}
        }
        Ok(game)
    }

    fn set_index(&mut self, index: Index) {
        self.size = index.size();
        self.index = index;
    }

    /// The player who moved first, for games that hold only the positions alternation reaches.
    pub fn start(&self) -> Option<Player> {
        self.index.first()
    }

    /// The sliced index, for games that use one.
    pub fn sliced(&self) -> Option<&Sliced> {
        self.index.sliced()
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
        let links = layout.links();
        let index = PlainIndex::new(cells);
        Ok(CellGame {
            spec,
            source,
            labels: layout.labels(),
            layout,
            cells,
            full: (1u64 << cells) - 1,
            size: index.size(),
            index: Index::Plain(index),
            walk: OnceLock::new(),
            wins: WinTable::new(links, cells),
        })
    }

    /// The child order and the plain index's walk tables (built the first time they are asked).
    fn walk(&self) -> &TierWalk {
        self.walk
            .get_or_init(|| TierWalk::new(self.wins.links(), self.cells))
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
        self.index.masks(pos)
    }

    pub fn mover(&self, pos: u64) -> Player {
        self.index.mover(pos)
    }

    /// The index of a configuration, or `None` when the game holds only the positions alternation
    /// reaches and this is not one of them.
    pub fn try_index(&self, left: u64, right: u64, mover: Player) -> Option<u64> {
        self.index.try_index(left, right, mover)
    }

    /// The index of a configuration.
    ///
    /// # Panics
    /// In a game of the positions alternation reaches, for a configuration it does not reach
    /// ([`CellGame::try_index`] says `None` instead).
    pub fn index(&self, left: u64, right: u64, mover: Player) -> u64 {
        self.try_index(left, right, mover)
            .expect("a configuration alternation reaches")
    }

    #[inline]
    pub fn left_has_won(&self, left: u64) -> bool {
        self.wins.left_has_won(left)
    }

    #[inline]
    pub fn right_has_won(&self, right: u64) -> bool {
        self.wins.right_has_won(right)
    }

    /// Who has won in a configuration, if anyone.
    #[inline]
    pub fn winner(&self, left: u64, right: u64) -> Option<Player> {
        self.wins.winner(left, right)
    }

    /// The cell a move from `pos` to `child` claims.
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

    pub fn tier(&self, pos: u64) -> u32 {
        let (l, r) = self.masks(pos);
        (l | r).count_ones()
    }

    /// The web board's SVG of the board `text` names, stored at `pos`, in an index of one board
    /// per symmetry class (`None` for other indices): the asked board, each move marked under
    /// its name on that board. (A stored board's moves lead to canonical images, which
    /// [`crate::games::AnyGame::board_svg`] cannot place on the board.)
    pub fn asked_svg(&self, text: &str, pos: u64) -> Option<String> {
        self.sliced().filter(|s| s.symmetric)?;
        let (l, r) = self
            .asked_cells(text, pos)
            .map_or_else(|| self.masks(pos), |(l, r, _)| (l, r));
        let mut targets = Vec::new();
        if self.winner(l, r).is_none() {
            for_each_cell(self.full & !(l | r), |c| {
                targets.push((c, self.move_name(c)))
            });
        }
        Some(picture::board_svg(
            &self.layout,
            &self.states_of_masks(l, r),
            self.mover(pos),
            &targets,
        ))
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

    /// Tabulates the winning test (see [`WinTable::prepare`]).
    fn prepare(&self) {
        self.wins.prepare();
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
            self.index.children(pos, l, r, self.full & !(l | r), f);
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
                self.index.children(pos, l, r, self.full & !(l | r), f);
                Status::Open
            }
            Some(w) if w == self.mover(pos) => Status::Over(Value::Win),
            Some(_) => Status::Over(Value::Loss),
        }
    }

    #[inline]
    fn for_each_parent(&self, pos: u64, f: impl FnMut(u64)) {
        let (l, r) = self.masks(pos);
        self.index.parents(pos, l, r, &self.wins, f);
    }

    fn max_children(&self) -> u64 {
        self.cells as u64
    }
}

impl Notation for CellGame {
    fn parse_position(&self, text: &str) -> Result<u64, PositionError> {
        self.read_position(text)
    }

    fn position_text(&self, pos: u64) -> String {
        self.text_of_position(pos)
    }

    /// The board after the move: the stored board with the move's cell claimed (the child index
    /// may hold a symmetric image of it).
    fn child_text(&self, pos: u64, m: &Move) -> String {
        self.text_after_move(pos, m)
    }

    /// With symmetry, the stored board when it is not the asked one.
    fn stored_image(&self, text: &str, pos: u64) -> Option<String> {
        self.stored_image_text(text, pos)
    }

    /// With symmetry, the asked board when the stored one is another image of it.
    fn asked_board(&self, text: &str, pos: u64) -> Option<crate::game::AskedBoard> {
        self.asked_board_of(text, pos)
    }

    /// The cell the move claims.
    fn move_id(&self, name: &str) -> Option<u64> {
        self.cell_of_move(name).map(u64::from)
    }

    /// One move per empty cell of the board stored at `pos`, in cell order (with symmetry, the
    /// child is the index of the board's canonical image).
    fn moves(&self, pos: u64) -> Vec<Move> {
        let (l, r) = self.masks(pos);
        if self.winner(l, r).is_some() {
            return Vec::new();
        }
        let mover = self.mover(pos);
        let mut out = Vec::new();
        for_each_cell(self.full & !(l | r), |cell| {
            let (l2, r2) = mover.claim(l, r, cell);
            let child = self
                .try_index(l2, r2, mover.other())
                .expect("a move leads to a position of the game");
            out.push(Move {
                name: self.move_name(cell),
                child,
            });
        });
        out
    }

    fn render(&self, pos: u64) -> Option<String> {
        self.picture(pos, &[], picture::Style::Plain)
    }
}

impl Omissions for CellGame {
    /// In the sliced index, row by row; in the plain index, each configuration decoded and
    /// tested once for both players to move. Neither has an unused position, and an open
    /// position has a move unless its board is full.
    fn searched_run(&self, first: u64, n: u64) -> Option<Vec<bool>> {
        let end = (first + n).min(self.size);
        let mut out = Vec::with_capacity(n as usize);
        let Some(s) = self.sliced() else {
            if !matches!(self.index, Index::Plain(_)) {
                return None;
            }
            let winner = self.wins.test();
            let mut pos = first;
            while pos < end {
                let (l, r) = self.masks(pos);
                let open = winner(l, r).is_none() && (l | r) != self.full;
                // Both players to move at a configuration: `2c` and `2c + 1`.
                let next = ((pos | 1) + 1).min(end);
                out.extend((pos..next).map(|_| open));
                pos = next;
            }
            return Some(out);
        };
        let mut pos = first;
        while pos < end {
            let row = s.row_at(pos);
            let (kl, kr) = s.key_masks(row.key);
            let row_end = (row.start + row.len as u64).min(end);
            for p in pos..row_end {
                let (ll, lr) = s.low_masks[s.low_at(row, p - row.start) as usize];
                let (l, r) = (kl | ll, kr | lr);
                out.push(self.winner(l, r).is_none() && (l | r) != self.full);
            }
            pos = row_end;
        }
        Some(out)
    }

    /// In the plain index, each configuration decoded and tested once for both players to
    /// move: a won board is the mover's win or loss, a full one without a winner (none in the
    /// games with a winner on every full board) lost by the mover, who has no move.
    fn rules_run(&self, first: u64, n: u64) -> Option<Vec<Rules>> {
        if !matches!(self.index, Index::Plain(_)) {
            return None;
        }
        let end = (first + n).min(self.size);
        let mut out = Vec::with_capacity(n as usize);
        let winner = self.wins.test();
        let mut pos = first;
        while pos < end {
            let (l, r) = self.masks(pos);
            let w = winner(l, r);
            let next = ((pos | 1) + 1).min(end);
            for p in pos..next {
                out.push(match w {
                    None if (l | r) != self.full => Rules::Search,
                    None => Rules::Known(Value::Loss, Some(0)),
                    Some(w) if w == PlainIndex::mover_of(p) => Rules::Known(Value::Win, Some(0)),
                    Some(_) => Rules::Known(Value::Loss, Some(0)),
                });
            }
            pos = next;
        }
        Some(out)
    }

    /// Right to move: every move passes the turn, so all of their children have Left to move.
    /// In the sliced index that is a row's class B (interleaved with class A).
    fn omissible(&self, pos: u64) -> Option<bool> {
        Some(match self.sliced() {
            Some(s) => {
                let row = s.row_at(pos);
                !s.left_moves_at(row, pos - row.start)
            }
            None => self.mover(pos) == Player::Right,
        })
    }

    /// The same for a run, a row at a time in the sliced index.
    fn omissible_run(&self, first: u64, n: u64) -> Option<Vec<bool>> {
        let end = (first + n).min(self.size);
        let mut out = Vec::with_capacity(n as usize);
        match self.sliced() {
            Some(s) => {
                let mut pos = first;
                while pos < end {
                    let row = s.row_at(pos);
                    let row_end = (row.start + row.len as u64).min(end);
                    out.extend((pos..row_end).map(|p| !s.left_moves_at(row, p - row.start)));
                    pos = row_end;
                }
            }
            None => out.extend((first..end).map(|p| self.mover(p) == Player::Right)),
        }
        Some(out)
    }

    /// In the sliced index a row's positions with Right to move are its class B, one range.
    fn omissible_ranges(&self, first: u64, n: u64) -> Option<Vec<std::ops::Range<u64>>> {
        let Some(s) = self.sliced() else {
            return Some(crate::game::marked_ranges(
                first,
                &self.omissible_run(first, n)?,
            ));
        };
        let end = (first + n).min(self.size);
        let mut out = Vec::new();
        let mut pos = first;
        while pos < end {
            let row = s.row_at(pos);
            let row_end = row.start + row.len as u64;
            let b = (row.start + row.split as u64).max(pos)..row_end.min(end);
            if !b.is_empty() {
                out.push(b);
            }
            pos = row_end.min(end);
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests;
