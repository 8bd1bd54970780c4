//! `retrodb research late`: the option-ranking conjecture tested in the game order on the late
//! positions of Bridg-It 3 or 4 — every position of the play population (Left moving first)
//! with at most `E` empty cells, and a uniform sample of those with more — without a table of
//! game values: a position with few empty cells has a small game tree, so each option's
//! canonical form is built from the position itself ([`crate::game::cgt::Games::make`] over its
//! options, memoised per configuration).
//!
//! A finished board is worth one free move to its winner (`C = 1`: the complete size-3 report
//! found every game-order figure the same for `C` = 1 to 4). Per empty-cell count the report
//! gives the pairs of options by how the ranking orders them and how they compare as games
//! (the size-3 report's figures, immediate-win pairs apart), the distinct canonical forms of the
//! positions' configurations, the longest of them, and the time and the largest arena taken.
//!
//! The invariant: the truth of a pair comes from the canonical forms alone, the ranking from
//! cell states alone ([`super::super::ranking`]); exact tiers count every board of the tier,
//! sampled tiers draw boards uniformly from it (sample `k` depends only on the seed, the tier
//! and `k`).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use rayon::prelude::*;
use serde::Serialize;

use super::super::geometry::{PlayerGraph, show_b};
use super::super::order::{OrderFigures, truth_of};
use super::super::ranking::{OptionKeys, Variant, option_keys};
use super::boards::draw_counterexamples;
use super::figures::{Counterexample, NamedMove, Proportion};
use super::sample::{RatioSums, Z95, wilson};
use super::scan::{PositionAt, RANKINGS, counterexample_at};
use super::tally::order_tally_by;
use crate::apps::error::{ResearchError, Result};
use crate::base::progress::Progress;
use crate::base::splitmix::SplitMix64;
use crate::game::Value;
use crate::game::cgt::{Game, Games};
use crate::games::AnyGame;
use crate::games::cell::alternation::Alternation;
use crate::games::cell::{Board, CellGame, Layout, Player};

/// The report of `research late`.
#[derive(Clone, Debug, Serialize)]
pub struct LateReport {
    pub game: String,
    pub size: u32,
    /// The population: the positions that arise with Left moving first.
    pub population: &'static str,
    /// A finished board is worth this many free moves to its winner.
    pub free_moves: u32,
    /// Every board with at most this many empty cells is counted.
    pub exact_to: u32,
    /// Boards drawn per sampled tier (open ones kept).
    pub sample: u64,
    pub seed: u64,
    pub tiers: Vec<LateTier>,
    /// The smallest board breaking each game-order claim: from the tier with the fewest empty
    /// cells where the claim fails, the board of the smallest index there.
    pub counterexamples: Vec<Counterexample>,
}

/// One empty-cell count's figures.
#[derive(Clone, Debug, Serialize)]
pub struct LateTier {
    pub empty: u32,
    /// Every board of the tier counted (`true`) or a uniform sample (`false`).
    pub exact: bool,
    /// Boards looked at (every board of the tier, or the draws of the sample).
    pub boards: u64,
    /// Open positions among them.
    pub open: u64,
    /// The ranking against the game order, for the rankings of the player to move in this
    /// tier (stated and reversed).
    pub order: Vec<OrderFigures>,
    /// Sampled tiers: the main shares with their 95% intervals (`ratio` over positions).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub shares: Vec<Proportion>,
    /// Distinct canonical forms of the open positions' configurations (in a sample: among
    /// those drawn, a lower bound for the tier).
    pub distinct_forms: usize,
    /// The longest of them in CGSuite's notation (up to three).
    pub longest_forms: Vec<String>,
    /// The most games one worker's arena held (a proxy of the memory taken).
    pub largest_arena: usize,
    pub seconds: f64,
}

/// Canonical forms of configurations, memoised (one arena a worker).
struct Arena<'a> {
    game: &'a CellGame,
    games: Games,
    memo: HashMap<(u64, u64), Game>,
    win: Game,
    loss: Game,
}

impl<'a> Arena<'a> {
    fn new(game: &'a CellGame, free_moves: u32) -> Arena<'a> {
        let mut games = Games::new();
        let c = crate::game::cgt::numbers::Dyadic::int(i64::from(free_moves));
        let win = games.number(c);
        let loss = games.neg(win);
        Arena {
            game,
            games,
            memo: HashMap::new(),
            win,
            loss,
        }
    }

    /// The canonical form of the configuration `(l, r)` (either mover: both players' options).
    fn value(&mut self, l: u64, r: u64) -> Game {
        if let Some(&g) = self.memo.get(&(l, r)) {
            return g;
        }
        let g = match self.game.winner(l, r) {
            Some(Player::Left) => self.win,
            Some(Player::Right) => self.loss,
            None => {
                let full = (1u64 << self.game.cells()) - 1;
                let mut empty = full & !(l | r);
                let (mut left, mut right) = (Vec::new(), Vec::new());
                while empty != 0 {
                    let bit = empty & empty.wrapping_neg();
                    empty &= empty - 1;
                    left.push(self.value(l | bit, r));
                    right.push(self.value(l, r | bit));
                }
                self.games.make(left, right)
            }
        };
        self.memo.insert((l, r), g);
        g
    }
}

/// A board that breaks a game-order claim, kept while the tier is scanned (the forms are
/// shown at once: a worker's arena does not outlive its chunk).
#[derive(Clone)]
struct Example {
    /// The board's index in its tier's alternation order (the smallest is kept).
    index: u64,
    explanation: String,
    cells: Vec<u8>,
    mover: Player,
    value: Value,
    /// The two options: cell, the child's value for the opponent, the option's role, its
    /// canonical form.
    moves: [(u32, Value, String, String); 2],
}

/// The game-order claims in [`order_tally_by`]'s order of broken pairs: name and how the
/// option ranked higher really compares (the last: two options ranked equivalent).
const CLAIMS: [(&str, &str); 4] = [
    ("ranked-above-but-worse", "is really worse than"),
    ("ranked-above-but-equal", "is really equal to"),
    (
        "ranked-above-but-incomparable",
        "is really incomparable with",
    ),
    ("equivalent-but-unequal", ""),
];

/// What one worker accumulates over a tier.
struct Acc {
    examples: BTreeMap<String, Example>,
    order: Vec<OrderFigures>,
    sums: Vec<RatioSums>,
    forms: HashSet<String>,
    boards: u64,
    open: u64,
    largest_arena: usize,
}

/// The rankings of `mover`, as indices into [`RANKINGS`].
fn rankings_of(mover: Player) -> Vec<usize> {
    (0..RANKINGS.len())
        .filter(|&r| RANKINGS[r].1 == mover)
        .collect()
}

/// The shares a sampled tier gives per ranking: (name, count, of) of one position's figures.
type Share = (&'static str, fn(&OrderFigures) -> (u64, u64));
const SHARES: [Share; 7] = [
    ("ranked_better", |f| (f.ranked_better, f.ranked)),
    ("ranked_equal", |f| (f.ranked_equal, f.ranked)),
    ("ranked_worse", |f| (f.ranked_worse, f.ranked)),
    ("ranked_incomparable", |f| (f.ranked_incomparable, f.ranked)),
    ("ranked_better_without_immediate_win", |f| {
        (
            f.ranked_better - f.ranked_with_immediate_win_better,
            f.ranked - f.ranked_with_immediate_win,
        )
    }),
    ("equivalent_equal", |f| (f.equivalent_equal, f.equivalent)),
    ("positions_all_claims_hold", |f| {
        (f.positions_all_claims_hold, f.positions)
    }),
];

/// Checks the ranking against the game order at the board `(l, r)` with `mover` to move, into
/// `acc` (nothing but the board count when it is finished).
fn position(
    arena: &mut Arena<'_>,
    graphs: &[PlayerGraph; 2],
    (index, l, r): (u64, u64, u64),
    mover: Player,
    acc: &mut Acc,
) {
    acc.boards += 1;
    let game = arena.game;
    if game.winner(l, r).is_some() {
        return;
    }
    acc.open += 1;
    let own = arena.value(l, r);
    acc.forms.insert(arena.games.show(own));
    let cells = game.states_of_masks(l, r);
    let keys = option_keys(&graphs[mover as usize], &cells);
    if keys.len() < 2 {
        return;
    }
    let immediate = keys.iter().any(|k| k.own == Some(0));
    let values: Vec<Game> = keys
        .iter()
        .map(|k| {
            let bit = 1u64 << k.cell;
            match mover {
                Player::Left => arena.value(l | bit, r),
                Player::Right => arena.value(l, r | bit),
            }
        })
        .collect();
    let games = &mut arena.games;
    for (i, r) in rankings_of(mover).into_iter().enumerate() {
        let mut truth = |a, b| truth_of(games.compare(a, b), mover);
        let variant = RANKINGS[r].0;
        let (tally, broken) = order_tally_by(&mut truth, &values, &keys, variant, immediate);
        let at = BoardAt {
            index,
            cells: &cells,
            mover,
            own,
            keys: &keys,
            values: &values,
        };
        keep_examples(games, &at, variant, &broken, &mut acc.examples);
        acc.order[i].add(&tally);
        for (k, (_, get)) in SHARES.iter().enumerate() {
            let (y, x) = get(&tally);
            acc.sums[i * SHARES.len() + k].add(y, x);
        }
    }
}

/// An open board with two options or more, as [`keep_examples`] reads it.
struct BoardAt<'a> {
    /// Its index in the tier's alternation order.
    index: u64,
    cells: &'a [u8],
    mover: Player,
    /// Its canonical form, and its options' (in the order of `keys`).
    own: Game,
    keys: &'a [OptionKeys],
    values: &'a [Game],
}

/// The value for `player` of the game `g` when `first` moves first in it.
fn value_in(games: &mut Games, g: Game, player: Player, first: Player) -> Value {
    let (left_moving_first, left_moving_second) = games.outcome(g);
    let left_wins = match first {
        Player::Left => left_moving_first,
        Player::Right => left_moving_second,
    };
    if left_wins == (player == Player::Left) {
        Value::Win
    } else {
        Value::Loss
    }
}

/// Keeps in `examples` the board `at` for each game-order claim of `variant` it breaks
/// (`broken`: [`order_tally_by`]'s pairs), unless a board of smaller index is kept already.
fn keep_examples(
    games: &mut Games,
    at: &BoardAt<'_>,
    variant: Variant,
    broken: &[Option<(usize, usize)>; 4],
    examples: &mut BTreeMap<String, Example>,
) {
    let (mover, opponent) = (at.mover, at.mover.other());
    for (&(claim, how), pair) in CLAIMS.iter().zip(broken) {
        let Some((a, b)) = *pair else { continue };
        let name = format!("order.{}.{claim}", variant.name());
        if examples.get(&name).is_some_and(|e| e.index <= at.index) {
            continue;
        }
        let (explanation, roles) = if how.is_empty() {
            (
                format!(
                    "two options the {} ranking calls equivalent are different games (C = 1)",
                    variant.name()
                ),
                ["equal keys", "equal keys"],
            )
        } else {
            (
                format!(
                    "the option the {} ranking puts above another {how} it as a game (C = 1)",
                    variant.name()
                ),
                ["ranked higher", "ranked lower"],
            )
        };
        let mut option = |k: usize, role: &str| {
            let key = &at.keys[k];
            (
                key.cell,
                value_in(games, at.values[k], opponent, opponent),
                format!(
                    "{role} (b after the move {}, after the opponent takes it {})",
                    show_b(key.own),
                    show_b(key.taken)
                ),
                games.show(at.values[k]),
            )
        };
        let moves = [option(a, roles[0]), option(b, roles[1])];
        let example = Example {
            index: at.index,
            explanation,
            cells: at.cells.to_vec(),
            mover,
            value: value_in(games, at.own, mover, mover),
            moves,
        };
        examples.insert(name, example);
    }
}

/// Counts (`exact`) or samples one tier of `empty` empty cells.
fn tier(
    game: &CellGame,
    graphs: &[PlayerGraph; 2],
    boards: &Alternation,
    empty: u32,
    exact: bool,
    draws: (u64, u64),
    progress: &dyn Progress,
) -> (LateTier, BTreeMap<String, Example>) {
    let start = std::time::Instant::now();
    let t = game.cells() - empty;
    let mover = boards.mover(t);
    let range = boards.tier_range(t);
    let (count, seed) = draws;
    let total = if exact {
        range.end - range.start
    } else {
        count
    };
    let rankings = rankings_of(mover);
    let new = || Acc {
        examples: BTreeMap::new(),
        order: rankings
            .iter()
            .map(|&r| OrderFigures::new(1, RANKINGS[r].0.name(), mover))
            .collect(),
        sums: vec![RatioSums::default(); rankings.len() * SHARES.len()],
        forms: HashSet::new(),
        boards: 0,
        open: 0,
        largest_arena: 0,
    };
    let base = SplitMix64(seed ^ u64::from(empty)).next_u64();
    const CHUNK: u64 = 1 << 14;
    progress.stage(&format!("{empty} empty"), total);
    let acc = (0..total.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let mut acc = new();
            let mut arena = Arena::new(game, 1);
            for k in c * CHUNK..((c + 1) * CHUNK).min(total) {
                let index = if exact {
                    range.start + k
                } else {
                    let mut rng = SplitMix64(base ^ SplitMix64(k).next_u64());
                    range.start + rng.below(range.end - range.start)
                };
                let (l, r) = boards.masks(index);
                position(&mut arena, graphs, (index, l, r), mover, &mut acc);
                if arena.memo.len() > 1 << 22 {
                    acc.largest_arena = acc.largest_arena.max(arena.games.len());
                    arena = Arena::new(game, 1);
                }
            }
            acc.largest_arena = acc.largest_arena.max(arena.games.len());
            progress.advance(((c + 1) * CHUNK).min(total) - c * CHUNK);
            acc
        })
        .reduce(new, |mut a, b| {
            for (x, y) in a.order.iter_mut().zip(&b.order) {
                x.add(y);
            }
            for (x, y) in a.sums.iter_mut().zip(&b.sums) {
                x.merge(y);
            }
            a.forms.extend(b.forms);
            for (name, e) in b.examples {
                if a.examples.get(&name).is_none_or(|x| e.index < x.index) {
                    a.examples.insert(name, e);
                }
            }
            a.boards += b.boards;
            a.open += b.open;
            a.largest_arena = a.largest_arena.max(b.largest_arena);
            a
        });
    let shares = if exact {
        Vec::new()
    } else {
        shares_of(&acc, &rankings)
    };
    let mut longest: Vec<String> = acc.forms.iter().cloned().collect();
    longest.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    longest.truncate(3);
    let figures = LateTier {
        empty,
        exact,
        boards: acc.boards,
        open: acc.open,
        order: acc.order,
        shares,
        distinct_forms: acc.forms.len(),
        longest_forms: longest,
        largest_arena: acc.largest_arena,
        seconds: start.elapsed().as_secs_f64(),
    };
    (figures, acc.examples)
}

/// The counterexample of `claim` at the board `e` of Bridg-It `n`, its moves named as
/// `retrodb probe` names them (no remoteness: no table stands behind it).
fn counterexample(n: u32, claim: String, e: Example) -> Counterexample {
    let labels = Layout::Board(Board::Bridgit(n)).labels();
    let at = PositionAt {
        value: e.value,
        in_play: true,
        cells: &e.cells,
        mover: e.mover,
    };
    let moves = e
        .moves
        .iter()
        .map(|(cell, value, role, form)| NamedMove {
            name: format!("{cell}{}", labels[*cell as usize]),
            value: *value,
            remoteness: None,
            role: role.clone(),
            game_value: Some(form.clone()),
        })
        .collect();
    let marked = e.moves.iter().map(|m| m.0).collect();
    counterexample_at(claim, e.explanation, &at, None, moves, marked)
}

/// The sampled tier's shares with their intervals (Wilson for positions, ratio for pairs).
fn shares_of(acc: &Acc, rankings: &[usize]) -> Vec<Proportion> {
    let mut out = Vec::new();
    for (i, &r) in rankings.iter().enumerate() {
        let (variant, mover) = RANKINGS[r];
        for (k, (name, get)) in SHARES.iter().enumerate() {
            let (count, of) = get(&acc.order[i]);
            let positions = *name == "positions_all_claims_hold";
            out.push(Proportion {
                name: format!(
                    "{}.{}.{name}",
                    variant.name(),
                    format!("{mover:?}").to_lowercase()
                ),
                what: format!("{name}: {count} of {of}"),
                count,
                of,
                share: if positions {
                    wilson(count, of, Z95)
                } else {
                    acc.sums[i * SHARES.len() + k].interval(Z95)
                },
                interval: if positions { "wilson" } else { "ratio" },
            });
        }
    }
    out
}

/// The ranking against the game order on Bridg-It `n` (3 or 4): every board of the play
/// population with at most `exact_to` empty cells, then `sample` boards drawn from each tier of
/// up to `sample_to` empty cells, with `seed`. Tiers are reported on `progress` as they go.
pub fn research_late(
    n: u32,
    exact_to: u32,
    sample_to: u32,
    sample: u64,
    seed: u64,
    svg_dir: Option<&Path>,
    progress: &dyn Progress,
) -> Result<LateReport> {
    if !(2..=4).contains(&n) {
        return Err(ResearchError::LateSize { n }.into());
    }
    let spec = format!("bridgit:{n}");
    let any = AnyGame::open(&spec, u64::MAX)?;
    let Some(game) = any.cell_game() else {
        return Err(ResearchError::NotBridgit.into());
    };
    for (option, empty) in [("--exact-to", exact_to), ("--sample-to", sample_to)] {
        if empty > game.cells() {
            return Err(ResearchError::LateEmpty {
                option,
                empty,
                n,
                cells: game.cells(),
            }
            .into());
        }
    }
    let graphs = [
        PlayerGraph::bridgit(n, Player::Left),
        PlayerGraph::bridgit(n, Player::Right),
    ];
    let boards = Alternation::new(game.cells(), Player::Left);
    let mut tiers = Vec::new();
    let mut examples = BTreeMap::new();
    for e in (1..=exact_to.max(sample_to)).filter(|&e| e <= exact_to || sample > 0) {
        let exact = e <= exact_to;
        let (figures, found) = tier(game, &graphs, &boards, e, exact, (sample, seed), progress);
        tiers.push(figures);
        for (claim, x) in found {
            examples.entry(claim).or_insert(x);
        }
    }
    let mut counterexamples: Vec<Counterexample> = examples
        .into_iter()
        .map(|(claim, e)| counterexample(n, claim, e))
        .collect();
    draw_counterexamples(n, &mut counterexamples, svg_dir, progress)?;
    Ok(LateReport {
        game: spec,
        size: n,
        population: "play",
        free_moves: 1,
        exact_to,
        sample,
        seed,
        tiers,
        counterexamples,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every tier of Bridg-It 2 counted here (the empty board's too) adds up, ranking by
    /// ranking, to the complete report's game-order figures of the play population under
    /// `C = 1`, which read every value from the full table of canonical forms: the forms built
    /// position by position give the same verdict on every pair.
    #[test]
    fn every_tier_of_size_2_gives_the_complete_game_order_figures() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b2.rdb");
        let game = AnyGame::open("bridgit:2", u64::MAX).unwrap();
        let opts = crate::table::builder::BuildOptions {
            remoteness: true,
            ..Default::default()
        };
        crate::table::builder::build(&game, &path, &opts).unwrap();
        let table = crate::table::Table::open(&path).unwrap();
        let complete = super::super::research(2, &table, &[1], None).unwrap();
        let play = complete
            .populations
            .iter()
            .find(|p| p.name == "play")
            .unwrap();
        let late = research_late(2, 5, 0, 0, 1, None, &crate::base::progress::Silent).unwrap();
        assert_eq!(late.tiers.len(), 5);
        for want in &play.game_order {
            let mut got = OrderFigures::new(1, &want.variant, Player::Left);
            got.mover = want.mover.clone();
            for f in late.tiers.iter().flat_map(|t| &t.order) {
                if f.variant == want.variant && f.mover == want.mover {
                    got.add(f);
                }
            }
            assert_eq!(&got, want);
        }
        // Not vacuous: pairs were compared, and some ranked pair is not really better.
        let ranked: u64 = play.game_order.iter().map(|f| f.ranked).sum();
        let better: u64 = play.game_order.iter().map(|f| f.ranked_better).sum();
        assert!(ranked > 0 && better < ranked, "{ranked} {better}");
    }
}
