//! The winning conditions of a cell game as one test per player on bitboards: Left has won when
//! his cells join the terminals, Right has won when the cells he has not taken no longer do. For
//! games of up to [`MAX_TABULATED_CELLS`] cells the join test is tabulated once (one bit per set
//! of cells), so a win test is a lookup instead of a flood.
//!
//! The invariant: the table, once built, answers exactly as [`Links::connects`] does; whether it
//! is built changes how fast a question is answered, never the answer.

use std::sync::OnceLock;

use super::Player;
use super::graph::Links;

/// The most cells for which [`crate::game::Game::prepare`] tabulates the winning test: one bit
/// per set of cells, `2^26` bits = 8 MiB, built in well under a second.
pub const MAX_TABULATED_CELLS: u32 = 26;

/// Boards with fewer words of join bits than this (`2^12` sets of cells) tabulate them in the
/// calling thread.
const PARALLEL_WORDS: u64 = 64;

/// The join test of a layout's links, tabulated once prepared.
#[derive(Debug)]
pub struct WinTable {
    links: Links,
    cells: u32,
    full: u64,
    /// Once prepared: bit `s` says whether the cell set `s` joins the terminals
    /// (`Links::connects`).
    joins: OnceLock<Box<[u64]>>,
}

/// Whether `set` joins the terminals: from `table` where there is one, else by a flood.
#[inline(always)]
fn joins_in(table: Option<&[u64]>, links: &Links, set: u64) -> bool {
    match table {
        Some(bits) => bits[(set >> 6) as usize] >> (set & 63) & 1 == 1,
        None => links.connects(set),
    }
}

impl WinTable {
    pub fn new(links: Links, cells: u32) -> WinTable {
        WinTable {
            links,
            cells,
            full: (1u64 << cells) - 1,
            joins: OnceLock::new(),
        }
    }

    pub fn links(&self) -> &Links {
        &self.links
    }

    /// Tabulates the join test for games of up to [`MAX_TABULATED_CELLS`] cells: `2^cells`
    /// floods, against the `2 * 3^cells` positions of a solve that tests each one at least once.
    pub fn prepare(&self) {
        if self.cells > MAX_TABULATED_CELLS {
            return;
        }
        self.joins.get_or_init(|| {
            use rayon::prelude::*;
            let sets = 1u64 << self.cells;
            // Joining is monotone (a superset of a joining set joins), which decides most
            // words of 64 sets (fixed upper cells, every choice of the lowest six) with one or
            // two floods: none joins if the largest does not, all do if the smallest does; and
            // within a word, a set joins if the set without its lowest cell does.
            let n = 64.min(sets);
            let low = n - 1;
            let word = |w: u64| {
                let base = w * 64;
                if !self.links.connects(base | low) {
                    return 0;
                }
                if self.links.connects(base) {
                    return if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
                }
                let mut word = 0u64;
                for i in 1..n {
                    if word >> (i & (i - 1)) & 1 == 1 || self.links.connects(base | i) {
                        word |= 1 << i;
                    }
                }
                word
            };
            let words = sets.div_ceil(64);
            // A small board's few words are quicker made here than handed to other threads
            // (a census makes millions of them, its threads already busy with other boards).
            if words < PARALLEL_WORDS {
                (0..words).map(word).collect()
            } else {
                (0..words).into_par_iter().map(word).collect()
            }
        });
    }

    /// The tabulated join test, once prepared.
    pub fn table(&self) -> Option<&[u64]> {
        self.joins.get().map(|b| &b[..])
    }

    #[inline]
    pub fn left_has_won(&self, left: u64) -> bool {
        joins_in(self.table(), &self.links, left)
    }

    #[inline]
    pub fn right_has_won(&self, right: u64) -> bool {
        !joins_in(self.table(), &self.links, self.full & !right)
    }

    /// Who has won in a configuration, if anyone.
    #[inline]
    pub fn winner(&self, left: u64, right: u64) -> Option<Player> {
        self.test()(left, right)
    }

    /// [`WinTable::winner`] with the question "is the table prepared?" asked once, for loops.
    #[inline(always)]
    pub fn test(&self) -> impl Fn(u64, u64) -> Option<Player> + '_ {
        let table = self.table();
        let full = self.full;
        move |left, right| {
            if joins_in(table, &self.links, left) {
                Some(Player::Left)
            } else if !joins_in(table, &self.links, full & !right) {
                Some(Player::Right)
            } else {
                None
            }
        }
    }

    /// The boards one move before `(l, r)` (with `mover` to move there) from which the game was
    /// still open, as `f(left, right, cell)` with the cell the move claimed: the player not to
    /// move made the last move, and the empty board has none. The mover's opponent's win is
    /// monotone, so only when he has won here can removing a cell leave a parent already won.
    pub fn unmoves(&self, l: u64, r: u64, mover: Player, mut f: impl FnMut(u64, u64, u32)) {
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
            let cell = rest.trailing_zeros();
            let bit = rest & rest.wrapping_neg();
            rest &= rest - 1;
            if !check || !won(mine & !bit) {
                if right_moved {
                    f(l, r & !bit, cell)
                } else {
                    f(l & !bit, r, cell)
                }
            }
        }
    }
}
