//! What the tests share: the `tictactoe` binary, and tic-tac-toe's values by a plain minimax
//! over boards (written here, apart from the crate's index and from retrodb's solvers).

#![allow(dead_code)]

use std::collections::HashMap;
use std::process::{Command, Output};

use retrodb::Value;

/// Runs the crate's binary (retrodb's command line with tic-tac-toe registered).
pub fn tictactoe(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tictactoe"))
        .args(args)
        .output()
        .expect("the tictactoe binary runs")
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A board of `rows` x `cols` cells, each 0 (empty), 1 (X) or 2 (O), row by row.
pub struct Rules {
    pub rows: usize,
    pub cols: usize,
    pub k: usize,
}

impl Rules {
    /// Whether `player` has `k` in a row, a column or a diagonal.
    pub fn line(&self, board: &[u8], player: u8) -> bool {
        let (rows, cols, k) = (self.rows as i64, self.cols as i64, self.k as i64);
        let at = |r: i64, c: i64| (0..rows).contains(&r) && (0..cols).contains(&c);
        (0..rows).any(|r| {
            (0..cols).any(|c| {
                [(0, 1), (1, 0), (1, 1), (1, -1)].iter().any(|&(dr, dc)| {
                    (0..k).all(|i| {
                        let (rr, cc) = (r + dr * i, c + dc * i);
                        at(rr, cc) && board[(rr * cols + cc) as usize] == player
                    })
                })
            })
        })
    }

    /// The player to move (X first), or `None` where no game reaches the board: impossible
    /// counts, or the player to move already has a line.
    pub fn mover(&self, board: &[u8]) -> Option<u8> {
        let x = board.iter().filter(|&&c| c == 1).count();
        let o = board.iter().filter(|&&c| c == 2).count();
        let mover = match x.checked_sub(o) {
            Some(0) => 1,
            Some(1) => 2,
            _ => return None,
        };
        (!self.line(board, mover)).then_some(mover)
    }

    /// The value of a board for the player to move, by minimax.
    pub fn value(&self, board: &mut Vec<u8>, memo: &mut HashMap<Vec<u8>, Value>) -> Value {
        if let Some(&v) = memo.get(board.as_slice()) {
            return v;
        }
        let mover = self.mover(board).expect("a reachable board");
        let v = if self.line(board, 3 - mover) {
            Value::Loss
        } else if board.iter().all(|&c| c != 0) {
            Value::Draw
        } else {
            let mut best = Value::Loss;
            for i in 0..board.len() {
                if board[i] == 0 {
                    board[i] = mover;
                    let child = self.value(board, memo).flip();
                    board[i] = 0;
                    best = match (best, child) {
                        (Value::Win, _) | (_, Value::Win) => Value::Win,
                        (Value::Draw, _) | (_, Value::Draw) => Value::Draw,
                        _ => Value::Loss,
                    };
                }
            }
            best
        };
        memo.insert(board.clone(), v);
        v
    }

    /// The text of a board as the game writes it: rows separated by `/`.
    pub fn text(&self, board: &[u8]) -> String {
        board
            .chunks(self.cols)
            .map(|row| {
                row.iter()
                    .map(|&c| ['.', 'x', 'o'][c as usize])
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("/")
    }

    /// Every board of the size, reachable or not.
    pub fn boards(&self) -> impl Iterator<Item = Vec<u8>> + '_ {
        let cells = self.rows * self.cols;
        (0..3u64.pow(cells as u32)).map(move |mut n| {
            (0..cells)
                .map(|_| {
                    let c = (n % 3) as u8;
                    n /= 3;
                    c
                })
                .collect()
        })
    }
}
