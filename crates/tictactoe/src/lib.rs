//! Tic-tac-toe on an m x n board with k in a row to win, `ttt:MxN,K` (`ttt:3x3,3`): a game
//! written outside retrodb, against its public API only, as a researcher's own crate would be.
//! [`register`] makes its spec kind known to retrodb at run time; from then on retrodb builds,
//! probes, verifies, compresses and serves its tables like those of a built-in game, and
//! `src/main.rs` runs retrodb's whole command line for it.
//!
//! X moves first. The index of a board is its cells as base-3 digits (0 empty, 1 X, 2 O; cell
//! `r * N + c` is digit `r * N + c`), so `ttt:MxN,K` has `3^(M*N)` indices; whose turn it is
//! follows from the counts (X when they are equal). An index is unused when the counts cannot
//! happen or the player to move already has a line (the game would have ended before). The
//! player who has just made a line has won: the player to move has lost. A full board without a
//! line is a draw.

use retrodb_core::game::{Game, Move, Notation, Omissions, PositionError, Status, Value};
use retrodb_core::games::{Family, PictureStyle, SpecInput, Turn};
use retrodb_core::{Error, Result};

/// The most cells a board may have: `3^20` indices, a table of about 870 MB.
pub const MAX_CELLS: u32 = 20;

mod tiers;

/// Registers the family with retrodb, with its tiers ([`retrodb_core::register_tiered`]): its
/// tables are built by the tiered engine.
pub fn register() -> Result<()> {
    retrodb_core::register_tiered::<TicTacToe>()
}

/// A board of `rows` x `cols` cells, `k` in a row (a row, a column or a diagonal) to win.
pub struct TicTacToe {
    rows: u32,
    cols: u32,
    k: u32,
    /// Every line of `k` cells, as a mask of cell bits.
    lines: Vec<u32>,
    /// `3^i` for each cell `i`.
    pow3: Vec<u64>,
    /// The low parts of the index a tier's walk runs through.
    low_parts: tiers::LowParts,
}

/// The contents of one board: the cells of X and of O as masks.
#[derive(Clone, Copy)]
struct Board {
    x: u32,
    o: u32,
}

impl TicTacToe {
    /// The board of `rows` x `cols` cells with `k` in a row to win; `None` outside
    /// `1 <= k <= max(rows, cols)`, `rows * cols <= MAX_CELLS`.
    pub fn new(rows: u32, cols: u32, k: u32) -> Option<TicTacToe> {
        let cells = rows.checked_mul(cols)?;
        if rows == 0 || cols == 0 || cells > MAX_CELLS || k == 0 || k > rows.max(cols) {
            return None;
        }
        let mut lines = Vec::new();
        let (r, c, k) = (rows as i64, cols as i64, k as i64);
        for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
            for r0 in 0..r {
                for c0 in 0..c {
                    let (r1, c1) = (r0 + dr * (k - 1), c0 + dc * (k - 1));
                    if !(0..r).contains(&r1) || !(0..c).contains(&c1) {
                        continue;
                    }
                    let mask = (0..k).fold(0u32, |m, i| m | 1 << ((r0 + dr * i) * c + c0 + dc * i));
                    if !lines.contains(&mask) {
                        lines.push(mask);
                    }
                }
            }
        }
        let pow3 = (0..=cells).map(|i| 3u64.pow(i)).collect();
        Some(TicTacToe {
            rows,
            cols,
            k: k as u32,
            lines,
            pow3,
            low_parts: tiers::LowParts::new(cells.min(tiers::LOW_CELLS)),
        })
    }

    fn cells(&self) -> u32 {
        self.rows * self.cols
    }

    fn board(&self, pos: u64) -> Board {
        let (mut x, mut o, mut rest) = (0, 0, pos);
        for i in 0..self.cells() {
            match rest % 3 {
                1 => x |= 1 << i,
                2 => o |= 1 << i,
                _ => {}
            }
            rest /= 3;
        }
        Board { x, o }
    }

    fn has_line(&self, stones: u32) -> bool {
        self.lines.iter().any(|&line| line & !stones == 0)
    }

    /// Whether X is to move (else O); `None` for counts no game reaches.
    fn x_to_move(b: Board) -> Option<bool> {
        let (x, o) = (b.x.count_ones(), b.o.count_ones());
        match x.checked_sub(o) {
            Some(0) => Some(true),
            Some(1) => Some(false),
            _ => None,
        }
    }

    /// The stones of the player to move and of the other, and the digit of the mover's stone.
    fn sides(b: Board, x_moves: bool) -> (u32, u32, u64) {
        if x_moves {
            (b.x, b.o, 1)
        } else {
            (b.o, b.x, 2)
        }
    }

    /// What the rules say of a board (see [`Game::status`]).
    fn status_of(&self, b: Board) -> Status {
        let Some(x_moves) = Self::x_to_move(b) else {
            return Status::Unused;
        };
        let (mine, theirs, _) = Self::sides(b, x_moves);
        if self.has_line(mine) {
            Status::Unused
        } else if self.has_line(theirs) {
            Status::Over(Value::Loss)
        } else if (b.x | b.o).count_ones() == self.cells() {
            Status::Over(Value::Draw)
        } else {
            Status::Open
        }
    }

    fn cell_name(&self, i: u32) -> String {
        let col = (b'a' + (i % self.cols) as u8) as char;
        format!("{col}{}", i / self.cols + 1)
    }
}

impl Family for TicTacToe {
    const KINDS: &'static [(&'static str, &'static str)] = &[(
        "ttt",
        "tic-tac-toe: MxN,K for an M x N board and K in a row, e.g. 3x3,3",
    )];

    fn open(spec: &SpecInput<'_>) -> Result<TicTacToe> {
        let bad = || Error::Spec {
            spec: spec.spec.into(),
            msg: format!(
                "expected MxN,K with 1 <= K <= max(M, N) and M * N <= {MAX_CELLS}, e.g. 3x3,3"
            ),
        };
        let (board, k) = spec.arg.split_once(',').ok_or_else(bad)?;
        let (rows, cols) = board.split_once('x').ok_or_else(bad)?;
        let number = |w: &str| w.trim().parse::<u32>().map_err(|_| bad());
        TicTacToe::new(number(rows)?, number(cols)?, number(k)?).ok_or_else(bad)
    }

    /// `show`'s picture: the board as text, rows on lines of their own (no SVG of its own: the
    /// web board draws the default picture of a position and its moves).
    fn marked_picture(&self, pos: u64, _marked: &[u64], style: PictureStyle) -> Option<String> {
        match style {
            PictureStyle::Svg => None,
            _ => self.render(pos).map(|board| board + "\n"),
        }
    }

    fn turn_at(&self, pos: u64) -> Turn {
        let b = self.board(pos);
        let x_moves = Self::x_to_move(b).unwrap_or(true);
        let (me, other) = if x_moves { ("X", "O") } else { ("O", "X") };
        let outcome = match self.status(pos) {
            Status::Over(Value::Draw) => Some("a draw: the board is full".to_string()),
            Status::Over(_) => Some(format!("{other} has won: {} in a row", self.k)),
            _ => None,
        };
        Turn {
            to_move: me.into(),
            opponent: other.into(),
            outcome,
        }
    }
}

impl Game for TicTacToe {
    fn spec(&self) -> String {
        format!("ttt:{}x{},{}", self.rows, self.cols, self.k)
    }

    fn size(&self) -> u64 {
        3u64.pow(self.cells())
    }

    fn status(&self, pos: u64) -> Status {
        self.status_of(self.board(pos))
    }
    fn for_each_child(&self, pos: u64, mut f: impl FnMut(u64)) {
        if self.status(pos) != Status::Open {
            return;
        }
        let b = self.board(pos);
        let x_moves = Self::x_to_move(b).expect("an open board's counts are a game's");
        let digit = Self::sides(b, x_moves).2;
        for i in 0..self.cells() {
            if (b.x | b.o) >> i & 1 == 0 {
                f(pos + digit * self.pow3[i as usize]);
            }
        }
    }

    fn for_each_parent(&self, pos: u64, mut f: impl FnMut(u64)) {
        if self.status(pos) == Status::Unused {
            return;
        }
        let b = self.board(pos);
        // The player who moved last is the one not to move now.
        let x_moved = !Self::x_to_move(b).unwrap_or(true);
        let (stones, digit) = if x_moved { (b.x, 1) } else { (b.o, 2) };
        for i in 0..self.cells() {
            if stones >> i & 1 == 1 {
                let parent = pos - digit * self.pow3[i as usize];
                if self.status(parent) == Status::Open {
                    f(parent);
                }
            }
        }
    }

    fn max_children(&self) -> u64 {
        self.cells() as u64
    }
}

impl Notation for TicTacToe {
    /// A board row by row, rows separated by `/`: `.` empty, `x` and `o` (`x.o/.x./...`).
    fn parse_position(&self, text: &str) -> Result<u64, PositionError> {
        let marks: Vec<char> = text.chars().filter(|c| !matches!(c, '/' | ' ')).collect();
        let expected = || {
            format!(
                "expected {} rows of {} cells ('.', 'x' or 'o') separated by '/'",
                self.rows, self.cols
            )
        };
        if marks.len() != self.cells() as usize {
            return Err(PositionError::new(text, expected()));
        }
        let mut pos = 0;
        for (i, c) in marks.iter().enumerate() {
            let digit = match c.to_ascii_lowercase() {
                '.' => 0,
                'x' => 1,
                'o' => 2,
                _ => return Err(PositionError::new(text, expected())),
            };
            pos += digit * self.pow3[i];
        }
        if self.status(pos) == Status::Unused {
            return Err(PositionError::new(
                text,
                "no game reaches this board (the counts, or a line of the player to move)",
            ));
        }
        Ok(pos)
    }

    fn position_text(&self, pos: u64) -> String {
        let b = self.board(pos);
        let mut text = String::new();
        for i in 0..self.cells() {
            if i > 0 && i % self.cols == 0 {
                text.push('/');
            }
            text.push(match (b.x >> i & 1, b.o >> i & 1) {
                (1, _) => 'x',
                (_, 1) => 'o',
                _ => '.',
            });
        }
        text
    }

    /// A move is named by its cell: the column's letter and the row's number (`a1` top left).
    fn moves(&self, pos: u64) -> Vec<Move> {
        let mut moves = Vec::new();
        self.for_each_child(pos, |child| {
            let i = (0..self.cells())
                .find(|&i| (child / self.pow3[i as usize]) % 3 != (pos / self.pow3[i as usize]) % 3)
                .expect("a move fills a cell");
            moves.push(Move {
                name: self.cell_name(i),
                child,
            });
        });
        moves
    }

    fn render(&self, pos: u64) -> Option<String> {
        Some(self.position_text(pos).replace('/', "\n"))
    }
}

impl Omissions for TicTacToe {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rules_keep_the_contract() {
        for (r, c, k) in [(3, 3, 3), (2, 3, 2), (2, 4, 3), (1, 4, 2)] {
            let g = TicTacToe::new(r, c, k).unwrap();
            retrodb_core::game::check_round_trip(&g, 0..g.size()).unwrap();
        }
    }

    #[test]
    fn a_spec_outside_the_limits_is_refused() {
        assert!(TicTacToe::new(3, 3, 4).is_none());
        assert!(TicTacToe::new(5, 5, 3).is_none());
        assert!(TicTacToe::new(0, 3, 1).is_none());
        assert_eq!(
            TicTacToe::new(4, 5, 4).unwrap().lines.len(),
            4 * 2 + 5 + 2 * 2
        );
    }
}
