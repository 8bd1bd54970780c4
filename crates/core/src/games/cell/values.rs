//! The value of every configuration of a cell game, as a canonical game.
//!
//! A cell game's configuration is a short partizan game: Left's options claim an empty cell for
//! Left, Right's for Right. A board where a player has already won has no moves in the table's
//! game; as a game value it is given the convention of **`C` free moves for the winner**: the
//! integer `C` when Left has connected, `-C` when Right has cut (`C >= 1`, so the winner wins
//! whoever is to move, as in the table).
//!
//! [`board_values`] works tier by tier, from the full board down (a configuration's options all
//! have one more claimed cell). A tier is walked in parallel as blocks of configurations sharing
//! their high base-3 digits (the low [`LOW_DIGITS`] digits come from a table, grouped by how many
//! cells they claim, so a block lists exactly its configurations of the tier). Each
//! configuration's sorted option lists are looked up in a map of option lists already made;
//! only the lists missing from it go through [`Games::make`], one thread, between two parallel
//! passes. The invariant: a tier reads only values of the tier above, which are final.
//!
//! [`PositionValues`] values single positions on demand instead, within a bound on the positions
//! visited for one value and, when given one, a [`Budget`] shared by a request's values.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use rayon::prelude::*;

use crate::base::budget::{Budget, Stop};
use crate::game::cgt::numbers::Dyadic;
use crate::game::cgt::{Game, Games};
use crate::game::shape::{PlainBoard, digit_masks};

/// Every configuration's value (indexed by configuration, `0..3^cells`), in `games`.
pub struct BoardValues {
    pub games: Games,
    pub values: Vec<Game>,
    /// The convention's `C`.
    pub free_moves: u32,
    /// Distinct option lists that went through [`Games::make`].
    pub option_lists: usize,
}

/// The most cells [`board_values`] takes: `3^20` configurations hold 14 GB of values already.
pub const MAX_CELLS: u32 = 20;

/// Low base-3 digits enumerated from a table (`3^8 = 6561` configurations a block).
pub const LOW_DIGITS: u32 = 8;

/// FxHash (as in rustc): option lists are short runs of small integers, and the map is hit
/// once per configuration, so SipHash's cost shows.
#[derive(Default, Clone, Copy)]
struct Fx(u64);

impl Hasher for Fx {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        for &b in chunks.remainder() {
            self.add(b as u64);
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.add(n as u64);
    }
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }
}

impl Fx {
    #[inline]
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

type FxBuild = BuildHasherDefault<Fx>;

/// Option lists as one key: Left's ids, a separator, Right's ids.
const SEPARATOR: u32 = u32::MAX;

/// Configurations listed tier by tier: blocks of `3^LOW_DIGITS` share their high digits; the
/// low digits come from a table grouped by how many cells they claim.
struct TierWalk {
    low_masks: Vec<(u64, u64)>,
    by_claimed: Vec<Vec<u32>>,
    /// The high digits' masks, shifted into place, by block.
    highs: Vec<(u64, u64)>,
}

impl TierWalk {
    fn new(cells: u32) -> TierWalk {
        let low_digits = cells.min(LOW_DIGITS);
        let low_masks: Vec<(u64, u64)> = (0..3u64.pow(low_digits))
            .map(|j| digit_masks(j, low_digits))
            .collect();
        let mut by_claimed = vec![Vec::new(); low_digits as usize + 1];
        for (j, &(l, r)) in low_masks.iter().enumerate() {
            by_claimed[(l | r).count_ones() as usize].push(j as u32);
        }
        let high_digits = cells - low_digits;
        let highs = (0..3u64.pow(high_digits))
            .map(|h| {
                let (l, r) = digit_masks(h, high_digits);
                (l << low_digits, r << low_digits)
            })
            .collect();
        TierWalk {
            low_masks,
            by_claimed,
            highs,
        }
    }

    /// Calls `f(config, left_mask, right_mask)` for every configuration of tier `t` (claimed
    /// cells) in block `h`, in increasing order.
    #[inline]
    fn for_block(&self, t: u32, h: usize, f: &mut dyn FnMut(usize, u64, u64)) {
        let (hl, hr) = self.highs[h];
        let Some(k) = t.checked_sub((hl | hr).count_ones()) else {
            return;
        };
        let Some(group) = self.by_claimed.get(k as usize) else {
            return;
        };
        let block = self.low_masks.len();
        for &j in group {
            let (ll, lr) = self.low_masks[j as usize];
            f(h * block + j as usize, hl | ll, hr | lr);
        }
    }
}

/// Makes the games of the option lists `missing` (keys: Left's options, [`SEPARATOR`],
/// Right's), one at a time in key order (the arena is not shared), into `made`.
fn make_option_lists(
    games: &mut Games,
    made: &mut HashMap<Box<[u32]>, Game, FxBuild>,
    missing: HashSet<Box<[u32]>, FxBuild>,
) {
    let mut missing: Vec<Box<[u32]>> = missing.into_iter().collect();
    missing.sort_unstable();
    for key in missing {
        let split = key
            .iter()
            .position(|&x| x == SEPARATOR)
            .expect("a separator");
        let l = key[..split].iter().map(|&x| Game(x)).collect();
        let r = key[split + 1..].iter().map(|&x| Game(x)).collect();
        let g = games.make(l, r);
        made.insert(key, g);
    }
}

/// Values of every configuration of `board` with the winner's `free_moves` convention, on the
/// current rayon pool. Boards of more than [`MAX_CELLS`] cells are refused.
pub fn board_values(
    board: &PlainBoard<'_>,
    free_moves: u32,
) -> crate::base::error::Result<BoardValues> {
    if free_moves == 0 {
        return Err(crate::base::error::LookupError::FreeMoves { free_moves }.into());
    }
    let e = board.cells;
    if e > MAX_CELLS {
        return Err(crate::base::error::LookupError::BoardTooLarge {
            cells: e,
            max: MAX_CELLS,
        }
        .into());
    }
    let n = 3usize.pow(e);
    let mut games = Games::new();
    let c = Dyadic::int(free_moves as i64);
    let left_won = games.number(c);
    let right_won = games.neg(left_won);
    let pow3: Vec<usize> = (0..e).map(|i| 3usize.pow(i)).collect();
    let walk = TierWalk::new(e);
    let values: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
    let mut made: HashMap<Box<[u32]>, Game, FxBuild> = HashMap::default();
    let full = (1u64 << e) - 1;

    // The key of an open configuration's option lists, into `key` (reused).
    let key_of = |config: usize, l: u64, r: u64, key: &mut Vec<u32>, right: &mut Vec<u32>| {
        key.clear();
        right.clear();
        let mut empty = full & !(l | r);
        while empty != 0 {
            let i = empty.trailing_zeros() as usize;
            empty &= empty - 1;
            key.push(values[config + pow3[i]].load(Relaxed));
            right.push(values[config + 2 * pow3[i]].load(Relaxed));
        }
        key.sort_unstable();
        key.dedup();
        right.sort_unstable();
        right.dedup();
        key.push(SEPARATOR);
        key.extend_from_slice(right);
    };

    for t in (0..=e).rev() {
        // Pass 1: finished boards, and open ones whose option lists were made before.
        let (misses, missing): (Vec<u32>, HashSet<Box<[u32]>, FxBuild>) = {
            let made = &made;
            (0..walk.highs.len())
                .into_par_iter()
                .fold(
                    || (Vec::new(), HashSet::default(), Vec::new(), Vec::new()),
                    |(mut misses, mut missing, mut key, mut right), h| {
                        walk.for_block(t, h, &mut |config, l, r| {
                            let (lw, rw) = board.won(l, r);
                            let v = if lw {
                                left_won
                            } else if rw {
                                right_won
                            } else {
                                key_of(config, l, r, &mut key, &mut right);
                                match made.get(&key[..]) {
                                    Some(&g) => g,
                                    None => {
                                        misses.push(config as u32);
                                        if !missing.contains(&key[..]) {
                                            missing.insert(key.clone().into_boxed_slice());
                                        }
                                        return;
                                    }
                                }
                            };
                            values[config].store(v.0, Relaxed);
                        });
                        (misses, missing, key, right)
                    },
                )
                .map(|(m, s, _, _)| (m, s))
                .reduce(
                    || (Vec::new(), HashSet::default()),
                    |(mut m, mut s), (m2, s2)| {
                        m.extend(m2);
                        s.extend(s2);
                        (m, s)
                    },
                )
        };
        make_option_lists(&mut games, &mut made, missing);
        // Pass 2: the configurations that waited for them.
        let made = &made;
        misses.par_chunks(4096).for_each(|chunk| {
            let (mut key, mut right) = (Vec::new(), Vec::new());
            for &config in chunk {
                let config = config as usize;
                let (l, r) = digit_masks(config as u64, e);
                key_of(config, l, r, &mut key, &mut right);
                let g = made[&key[..]];
                values[config].store(g.0, Relaxed);
            }
        });
    }
    let option_lists = made.len();
    Ok(BoardValues {
        games,
        values: values.into_iter().map(|a| Game(a.into_inner())).collect(),
        free_moves,
        option_lists,
    })
}

/// One tier's figures: its configurations, the open ones, and the distinct values among those.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct TierCensus {
    /// Claimed cells.
    pub tier: u32,
    pub configurations: u64,
    pub open: u64,
    pub distinct_open_values: u64,
}

/// Per tier (claimed cells, `0..=cells`), how many configurations are open and how many
/// distinct values they take.
pub fn tier_census(board: &PlainBoard<'_>, v: &BoardValues) -> Vec<TierCensus> {
    let e = board.cells;
    let walk = TierWalk::new(e);
    (0..=e)
        .map(|t| {
            let (configurations, open, seen) = (0..walk.highs.len())
                .into_par_iter()
                .fold(
                    || (0u64, 0u64, vec![false; v.games.len()]),
                    |(mut all, mut open, mut seen), h| {
                        walk.for_block(t, h, &mut |config, l, r| {
                            all += 1;
                            let (lw, rw) = board.won(l, r);
                            if !lw && !rw {
                                open += 1;
                                seen[v.values[config].index()] = true;
                            }
                        });
                        (all, open, seen)
                    },
                )
                .reduce(
                    || (0, 0, vec![false; v.games.len()]),
                    |(a, o, mut s), (a2, o2, s2)| {
                        s.iter_mut().zip(s2).for_each(|(x, y)| *x |= y);
                        (a + a2, o + o2, s)
                    },
                );
            TierCensus {
                tier: t,
                configurations,
                open,
                distinct_open_values: seen.iter().filter(|&&b| b).count() as u64,
            }
        })
        .collect()
}

/// Positions visited at most for one position's value by default (`show`, `probe --value`, the
/// HTTP API's `value=true`, Python's `game_value`): the whole of Bridg-It 3 (1,594,323
/// configurations) fits, an early position of Hex 4 does not.
pub const POSITION_LIMIT: usize = 2_000_000;

/// The value of single positions of a game, computed on demand from their options, with a
/// bound on the positions visited for one value (an early position of a large board stands for
/// most of its table). Cell games' full tables (both movers of every configuration) and
/// Hackenbush have values; a finished cell board is worth `free_moves` to its winner.
///
/// What a position's value costs is the memo's: every position below is looked up once per
/// move into it (Bridg-It 3's empty board: 1.6M configurations, 40M lookups). `perf` on `show
/// bridgit:3 .............` found 80-90% of the time waiting on those lookups in a hash map of
/// 1.6M entries (SipHash, random places in 40 MB), so games of at most [`DENSE_MEMO`]
/// configurations keep their values in an array by configuration instead (zeroed pages are
/// committed only when touched). As in [`board_values`], each configuration's sorted option
/// lists are looked up in a map of the lists already made, so [`Games::make`] runs once per
/// distinct pair of lists, not once per position.
///
/// Work for someone who may stop wanting it (a request of the server) is bounded by a
/// [`Budget`] besides: the positions visited by every value are charged to it, and a spent or
/// cancelled budget stops the computation within [`CHARGE_EVERY`] positions.
pub struct PositionValues<'a> {
    game: &'a crate::games::AnyGame,
    pub games: Games,
    /// Values by configuration (position index without its mover).
    memo: Memo,
    /// Option lists already made: Left's ids, [`SEPARATOR`], Right's ids.
    made: HashMap<Box<[u32]>, Game, FxBuild>,
    left_won: Game,
    right_won: Game,
    limit: usize,
    /// Where the memo stood when the current top-level [`PositionValues::value`] began.
    visited_from: usize,
    /// Children of the positions being valued, one run a level (reused).
    scratch: Vec<Vec<u64>>,
    /// The bound of the work done for whoever asks (a request of the server): positions
    /// visited are charged to it [`CHARGE_EVERY`] at a time.
    budget: Option<Budget>,
    /// Positions visited and not yet charged.
    uncharged: u64,
    /// Why the work stopped, once the budget was spent or cancelled; nothing is computed after.
    stopped: Option<Stop>,
}

/// Positions visited between two charges of a [`Budget`] (and checks of its flags): about a
/// millisecond of work, so a cancelled computation stops within that.
pub const CHARGE_EVERY: u64 = 1024;

impl<'a> PositionValues<'a> {
    /// Whether `game`'s positions have values as games here: the full tables of cell games
    /// (no fixed start) and Hackenbush.
    pub fn defined_for(game: &crate::games::AnyGame) -> bool {
        game.valued_as_games()
    }

    /// `None` for games without values (digraphs, cell games indexed for one first mover).
    /// `limit` bounds the positions one call of [`PositionValues::value`] visits anew.
    pub fn new(
        game: &'a crate::games::AnyGame,
        free_moves: u32,
        limit: usize,
    ) -> Option<PositionValues<'a>> {
        if !Self::defined_for(game) {
            return None;
        }
        let mut games = Games::new();
        let left_won = games.number(Dyadic::int(free_moves.max(1) as i64));
        let right_won = games.neg(left_won);
        let configurations = game.size().div_ceil(2);
        let memo = if configurations <= DENSE_MEMO {
            Memo::Dense {
                ids: vec![0; configurations as usize],
                len: 0,
            }
        } else {
            Memo::Sparse(HashMap::default())
        };
        Some(PositionValues {
            game,
            games,
            memo,
            made: HashMap::default(),
            left_won,
            right_won,
            limit,
            visited_from: 0,
            scratch: Vec::new(),
            budget: None,
            uncharged: 0,
            stopped: None,
        })
    }

    /// Charges every position visited from now on to `budget` (shared with other work for the
    /// same request), stopping when it is spent or cancelled: [`PositionValues::try_value`]
    /// says so.
    pub fn set_budget(&mut self, budget: Budget) {
        self.budget = Some(budget);
    }

    /// [`PositionValues::value`], or why the work stopped when a budget
    /// ([`PositionValues::set_budget`]) was spent or cancelled, before or during this value.
    pub fn try_value(&mut self, pos: u64) -> Result<Option<Game>, Stop> {
        if let Some(s) = self.stopped {
            return Err(s);
        }
        if let Some(b) = &self.budget {
            b.check().inspect_err(|&s| self.stopped = Some(s))?;
        }
        let v = self.value(pos);
        match self.stopped {
            Some(s) => Err(s),
            None => Ok(v),
        }
    }

    /// The value of the configuration or edge set of position `pos` (either mover), or `None`
    /// when it would visit more than the limit's positions not valued before (or a budget
    /// stopped it: [`PositionValues::try_value`] tells the two apart).
    pub fn value(&mut self, pos: u64) -> Option<Game> {
        // A hash map memo is a cache: past a few limits' worth it is dropped (the arena stays).
        // An array's size is the game's whatever it holds.
        if matches!(self.memo, Memo::Sparse(_)) && self.memo.len() > self.limit.saturating_mul(4) {
            self.memo.clear();
        }
        self.visited_from = self.memo.len();
        self.value_at(pos, 0)
    }

    /// Distinct option lists made into canonical games so far.
    pub fn option_lists(&self) -> usize {
        self.made.len()
    }

    fn value_at(&mut self, pos: u64, depth: usize) -> Option<Game> {
        use crate::Game as _;
        if self.stopped.is_some() {
            return None;
        }
        let key = pos >> 1;
        if let Some(g) = self.memo.get(key) {
            return Some(g);
        }
        if self.memo.len() - self.visited_from >= self.limit {
            return None;
        }
        let at = key << 1;
        if let Some(g) = self.game.cell_game() {
            let (l, r) = g.masks(at);
            match g.winner(l, r) {
                Some(crate::games::cell::Player::Left) => {
                    return Some(self.remember(key, self.left_won));
                }
                Some(crate::games::cell::Player::Right) => {
                    return Some(self.remember(key, self.right_won));
                }
                None => {}
            }
        }
        // This level's children: Left's moves, then Right's, `split` between them.
        if self.scratch.len() <= depth {
            self.scratch.resize_with(depth + 1, Vec::new);
        }
        let mut children = std::mem::take(&mut self.scratch[depth]);
        children.clear();
        crate::with_game!(self.game, g => g.for_each_child(at, |c| children.push(c)));
        let split = children.len();
        crate::with_game!(self.game, g => g.for_each_child(at + 1, |c| children.push(c)));
        let mut key_ids: Vec<u32> = Vec::with_capacity(children.len() + 1);
        let mut failed = false;
        for (i, &c) in children.iter().enumerate() {
            if i == split {
                key_ids.push(SEPARATOR);
            }
            match self.value_at(c, depth + 1) {
                Some(v) => key_ids.push(v.0),
                None => {
                    failed = true;
                    break;
                }
            }
        }
        self.scratch[depth] = children;
        if failed {
            return None;
        }
        if split == key_ids.len() {
            key_ids.push(SEPARATOR);
        }
        let sep = key_ids
            .iter()
            .position(|&x| x == SEPARATOR)
            .expect("a separator");
        key_ids[..sep].sort_unstable();
        key_ids[sep + 1..].sort_unstable();
        let mut list: Vec<u32> = Vec::with_capacity(key_ids.len());
        for (i, &x) in key_ids.iter().enumerate() {
            // Each side deduplicated; the separator kept.
            if i == 0 || i == sep + 1 || x != key_ids[i - 1] || x == SEPARATOR {
                list.push(x);
            }
        }
        let v = match self.made.get(&list[..]) {
            Some(&g) => g,
            None => {
                let sep = list
                    .iter()
                    .position(|&x| x == SEPARATOR)
                    .expect("a separator");
                let l = list[..sep].iter().map(|&x| Game(x)).collect();
                let r = list[sep + 1..].iter().map(|&x| Game(x)).collect();
                let g = self.games.make(l, r);
                self.made.insert(list.into_boxed_slice(), g);
                g
            }
        };
        Some(self.remember(key, v))
    }

    fn remember(&mut self, key: u64, g: Game) -> Game {
        self.memo.insert(key, g);
        if let Some(b) = &self.budget {
            self.uncharged += 1;
            if self.uncharged == CHARGE_EVERY {
                self.uncharged = 0;
                if let Err(s) = b.charge(CHARGE_EVERY) {
                    self.stopped = Some(s);
                }
            }
        }
        g
    }
}

/// Games with at most this many configurations keep [`PositionValues`]' memo in an array (4
/// bytes a configuration: 64 MiB at most, committed as it is touched); larger ones in a hash
/// map.
pub const DENSE_MEMO: u64 = 1 << 24;

/// Values known so far, by configuration.
enum Memo {
    /// `ids[key]` is the value's id + 1, 0 while unknown; `len` counts the known ones.
    Dense {
        ids: Vec<u32>,
        len: usize,
    },
    Sparse(HashMap<u64, Game, FxBuild>),
}

impl Memo {
    #[inline]
    fn get(&self, key: u64) -> Option<Game> {
        match self {
            Memo::Dense { ids, .. } => match ids[key as usize] {
                0 => None,
                id => Some(Game(id - 1)),
            },
            Memo::Sparse(map) => map.get(&key).copied(),
        }
    }

    fn insert(&mut self, key: u64, g: Game) {
        match self {
            Memo::Dense { ids, len } => {
                let slot = &mut ids[key as usize];
                if *slot == 0 {
                    *len += 1;
                }
                *slot = g.0.checked_add(1).expect("fewer than 2^32 - 1 games");
            }
            Memo::Sparse(map) => {
                map.insert(key, g);
            }
        }
    }

    fn len(&self) -> usize {
        match self {
            Memo::Dense { len, .. } => *len,
            Memo::Sparse(map) => map.len(),
        }
    }

    fn clear(&mut self) {
        match self {
            Memo::Dense { ids, len } => {
                ids.fill(0);
                *len = 0;
            }
            Memo::Sparse(map) => map.clear(),
        }
    }
}

/// The value of one position, as [`value_of`] answers it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValueOf {
    /// CGSuite's notation of the canonical form.
    Value(String),
    /// The game has no values (digraphs; cell games indexed for one first mover).
    NoValues,
    /// More than this many positions lie below; not computed.
    TooLarge(usize),
}

/// The value of position `pos` of `game` (a finished cell board worth `free_moves` to its
/// winner), visiting at most `limit` positions.
pub fn value_of(game: &crate::games::AnyGame, pos: u64, free_moves: u32, limit: usize) -> ValueOf {
    let Some(mut v) = PositionValues::new(game, free_moves, limit) else {
        return ValueOf::NoValues;
    };
    match v.value(pos) {
        Some(g) => ValueOf::Value(v.games.show(g)),
        None => ValueOf::TooLarge(limit),
    }
}
