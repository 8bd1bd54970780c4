//! How a cell game numbers its positions: the plain index of every configuration with either
//! player to move, the tier-major index of the configurations alternation from the empty board
//! reaches ([`Alternation`]), or the index by rows of key cells ([`Sliced`]) of either set of
//! positions. [`Index`] holds one of the three, and each operation — decoding, encoding,
//! children, parents — is written once over it.
//!
//! The invariant: `masks` and `try_index` are inverses on `0..size` (with symmetry, up to the
//! board's image), and a child or parent is always a position of the same index.

use super::alternation::Alternation;
use super::wins::WinTable;
use super::{Player, for_each_cell};
use crate::game::shape::sliced::Sliced;

/// Base-3 digits decoded per table lookup.
const CHUNK_DIGITS: u32 = 8;
const CHUNK: u64 = 3u64.pow(CHUNK_DIGITS);

/// Every configuration with either player to move: `mover + 2 * sum(d_i * 3^i)`.
#[derive(Debug)]
pub struct PlainIndex {
    cells: u32,
    /// `step[i] = 2 * 3^i`: what one Left digit in cell `i` adds to an index.
    step: Vec<u64>,
}

/// Per value of `CHUNK_DIGITS` base-3 digits: Left's bits in the low byte, Right's in the high.
/// The same for every game, so made once, when compiling (a census builds hundreds of millions of
/// small games, and making it for each cost more than solving them).
static DECODE: [u16; CHUNK as usize] = {
    let mut table = [0u16; CHUNK as usize];
    let mut v = 0;
    while v < CHUNK as usize {
        let (mut rest, mut l, mut r, mut i) = (v, 0u16, 0u16, 0);
        while i < CHUNK_DIGITS {
            match rest % 3 {
                0 => {}
                1 => l |= 1 << i,
                _ => r |= 1 << i,
            }
            rest /= 3;
            i += 1;
        }
        table[v] = l | r << 8;
        v += 1;
    }
    table
};

impl PlainIndex {
    pub fn new(cells: u32) -> PlainIndex {
        PlainIndex {
            cells,
            step: (0..cells).map(|i| 2 * 3u64.pow(i)).collect(),
        }
    }

    pub fn size(&self) -> u64 {
        2 * 3u64.pow(self.cells)
    }

    #[inline]
    fn masks(&self, pos: u64) -> (u64, u64) {
        let mut q = pos >> 1;
        let (mut l, mut r) = (0u64, 0u64);
        let mut shift = 0;
        while q != 0 {
            let d = DECODE[(q % CHUNK) as usize] as u64;
            l |= (d & 0xFF) << shift;
            r |= (d >> 8) << shift;
            q /= CHUNK;
            shift += CHUNK_DIGITS;
        }
        (l, r)
    }

    /// Who moves at `pos` of a plain index: Left at even indices.
    #[inline]
    pub fn mover_of(pos: u64) -> Player {
        Self::mover(pos)
    }

    #[inline]
    fn mover(pos: u64) -> Player {
        if pos & 1 == 0 {
            Player::Left
        } else {
            Player::Right
        }
    }

    fn index(&self, left: u64, right: u64, mover: Player) -> u64 {
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

    /// The position after the mover of `pos` claims `cell`. Left claims: digit 0 -> 1 and mover
    /// 0 -> 1. Right claims: digit 0 -> 2, mover 1 -> 0.
    #[inline]
    fn child(&self, pos: u64, cell: u32) -> u64 {
        let step = self.step[cell as usize];
        if pos & 1 == 0 {
            pos + step + 1
        } else {
            pos + 2 * step - 1
        }
    }

    /// The position before the player not to move at `pos` claimed `cell`: [`PlainIndex::child`]
    /// undone.
    #[inline]
    fn parent(&self, pos: u64, cell: u32) -> u64 {
        let step = self.step[cell as usize];
        if pos & 1 == 1 {
            pos - step - 1
        } else {
            pos - 2 * step + 1
        }
    }
}

/// How a cell game numbers its positions.
#[derive(Debug)]
pub enum Index {
    /// Every configuration with either player to move.
    Plain(PlainIndex),
    /// Only the configurations alternation reaches, tier-major (`,start=L`).
    Alternation(Alternation),
    /// The configurations alternation reaches (`,start=L,sliced` and `,start=L,sym`) or every
    /// configuration with either player to move (`,sliced` and `,sym`), by rows of key cells,
    /// with one row per symmetry class of keys where asked.
    Sliced(Box<Sliced>),
}

impl Index {
    pub fn size(&self) -> u64 {
        match self {
            Index::Plain(p) => p.size(),
            Index::Alternation(a) => a.size(),
            Index::Sliced(s) => s.size(),
        }
    }

    /// The sliced index, for games that use one.
    pub fn sliced(&self) -> Option<&Sliced> {
        match self {
            Index::Sliced(s) => Some(s),
            _ => None,
        }
    }

    /// The player who moved first, for indices of the positions alternation reaches.
    pub fn first(&self) -> Option<Player> {
        match self {
            Index::Plain(_) => None,
            Index::Alternation(a) => Some(a.first),
            Index::Sliced(s) => s.first,
        }
    }

    /// Left's and Right's cells of the board stored at `pos`.
    #[inline]
    pub fn masks(&self, pos: u64) -> (u64, u64) {
        match self {
            Index::Plain(p) => p.masks(pos),
            Index::Alternation(a) => a.masks(pos),
            Index::Sliced(s) => s.masks(pos),
        }
    }

    #[inline]
    pub fn mover(&self, pos: u64) -> Player {
        match self {
            Index::Plain(_) => PlainIndex::mover(pos),
            Index::Alternation(a) => a.mover(a.tier(pos)),
            Index::Sliced(s) => s.mover_at(pos),
        }
    }

    /// The player to move at `pos`, whose cells `(l, r)` are already decoded.
    #[inline]
    fn mover_of_board(&self, pos: u64, l: u64, r: u64) -> Player {
        match self {
            Index::Plain(_) => PlainIndex::mover(pos),
            Index::Alternation(a) => a.mover((l | r).count_ones()),
            // From the counts given a first player; else from the row's class.
            Index::Sliced(s) => s.mover_of(l, r).unwrap_or_else(|| s.mover_at(pos)),
        }
    }

    /// The index of a configuration, or `None` when the index holds only the positions
    /// alternation reaches and this is not one of them.
    pub fn try_index(&self, left: u64, right: u64, mover: Player) -> Option<u64> {
        match self {
            Index::Plain(p) => Some(p.index(left, right, mover)),
            Index::Alternation(a) => {
                let t = (left | right).count_ones();
                a.index(left, right).filter(|_| a.mover(t) == mover)
            }
            Index::Sliced(s) => s.index_as(left, right, mover),
        }
    }

    /// The index of a child board, `mover` to move; `None` in the plain index (which finds
    /// children by arithmetic).
    #[inline]
    fn reached(&self, left: u64, right: u64, mover: Player) -> Option<u64> {
        match self {
            Index::Plain(_) => None,
            Index::Alternation(a) => a.index(left, right),
            Index::Sliced(s) => s.index_as(left, right, mover),
        }
    }

    /// The children of the open position `pos` (Left's cells `l`, Right's `r`), one per cell of
    /// `empty`, in cell order.
    #[inline]
    pub fn children(&self, pos: u64, l: u64, r: u64, empty: u64, mut f: impl FnMut(u64)) {
        if let Index::Plain(p) = self {
            for_each_cell(empty, |cell| f(p.child(pos, cell)));
            return;
        }
        let mover = self.mover_of_board(pos, l, r);
        for_each_cell(empty, |cell| {
            let (l2, r2) = mover.claim(l, r, cell);
            f(self
                .reached(l2, r2, mover.other())
                .expect("a move leads to a position of the index"));
        });
    }

    /// The parents of `pos` (Left's cells `l`, Right's `r`): the positions one move before from
    /// which the game was still open, each once per move that leads here.
    #[inline]
    pub fn parents(&self, pos: u64, l: u64, r: u64, wins: &WinTable, mut f: impl FnMut(u64)) {
        match self {
            Index::Plain(p) => {
                wins.unmoves(l, r, PlainIndex::mover(pos), |_, _, cell| {
                    f(p.parent(pos, cell))
                });
            }
            Index::Alternation(a) => {
                wins.unmoves(l, r, a.mover(a.tier(pos)), |pl, pr, _| {
                    f(a.index(pl, pr)
                        .expect("an unmove keeps the alternation's counts"))
                });
            }
            Index::Sliced(s) => {
                // A stored board stands for its images: the parents are the stored boards with
                // a move to an image this index holds, each once per such move.
                let mover = s.mover_at(pos);
                for (xl, xr) in s.images(l, r) {
                    if s.index_as(xl, xr, mover) != Some(pos) {
                        continue;
                    }
                    wins.unmoves(xl, xr, mover, |pl, pr, _| {
                        if let Some(p) = s.index_as(pl, pr, mover.other())
                            && s.masks(p) == (pl, pr)
                        {
                            f(p)
                        }
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::shape::digit_masks;

    #[test]
    fn the_decode_table_is_the_digits_of_each_chunk() {
        for v in 0..CHUNK {
            let (l, r) = digit_masks(v, CHUNK_DIGITS);
            assert_eq!(DECODE[v as usize], (l | r << 8) as u16, "chunk {v}");
        }
        // A position of 10 cells decodes through two chunks: cells 0 and 9 Left's, 8 Right's.
        let p = PlainIndex::new(10);
        let pos = 1 + 2 * (1 + 2 * 3u64.pow(8) + 3u64.pow(9));
        assert_eq!(p.masks(pos), (1 | 1 << 9, 1 << 8));
    }
}
