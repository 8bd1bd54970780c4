//! The scan of `retrodb research bridgit`: every open position of the table checked against
//! each claim — the optional strategy, the ranking conjecture and the ranking against the game
//! order — one function per claim, with the smallest counterexample of each kept.
//!
//! The claims run on what the table gives: with [`Detail::Full`] (a table of every
//! configuration with remoteness) every figure; with [`Detail::Remoteness`] (any table with
//! remoteness, sampled) the figures against the table's order of options too, but not those
//! that need the second outcome bit or game values; with [`Detail::ValuesOnly`] (any table, each
//! position's value alone) the figures that need remoteness are left out as well. What is left
//! out is `None`, not zero, and nothing else changes.
//!
//! The invariant: every figure comes from cell states and the table's values, and every
//! counterexample carries the position text and the table values that make it one.

use super::super::geometry::{PlayerGraph, show_b};
use super::super::order::{GameOrder, OrderFigures};
use super::super::ranking::{OptionKeys, Variant, option_keys};
use super::super::strategy::{Optional, optional_moves};
use super::figures::{Counterexample, NamedMove, Population, RankingFigures};
use super::tally::{RankingTally, ScoredOption, order_tally, ranking_tally, score};
use super::value_source::Source;
use crate::apps::error::Result;
use crate::game::{Game, Status, Value};
use crate::games::cell::notation::text_of_states;
use crate::games::cell::{Board, CellGame, EMPTY, LEFT, Layout, Player, RIGHT};

pub(super) const RANKINGS: [(Variant, Player); 4] = [
    (Variant::Stated, Player::Left),
    (Variant::Stated, Player::Right),
    (Variant::Reversed, Player::Left),
    (Variant::Reversed, Player::Right),
];

/// What a scan reads from the table beyond each position's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Detail {
    /// Remoteness and the second outcome bit (a plain table with remoteness), and the game
    /// order under each convention.
    Full,
    /// Values and remoteness, not the second outcome bit: any table of the board with
    /// remoteness (a Left-first one holds no board with the same player to move again).
    Remoteness,
    /// Values only: any table of the board, sampled or not.
    ValuesOnly,
}

impl Detail {
    /// Whether the scan reads each option's remoteness (the figures against the table's order
    /// of options).
    fn remoteness(self) -> bool {
        self != Detail::ValuesOnly
    }

    /// Whether the scan reads each option's second outcome bit and compares options as games.
    fn second_bit(self) -> bool {
        self == Detail::Full
    }
}

/// What one scan chunk accumulates: figures for both populations and the smallest
/// counterexample of each claim.
#[derive(Default)]
pub(super) struct Findings {
    pub(super) pops: [Population; 2],
    pub(super) found: std::collections::BTreeMap<String, Counterexample>,
}

impl Findings {
    pub(super) fn new(conventions: &[u32], detail: Detail) -> Findings {
        let mut a = Findings::default();
        let full = detail.second_bit();
        for (p, name) in a.pops.iter_mut().zip(["all", "play"]) {
            p.name = name.to_string();
            p.ranking = RANKINGS
                .iter()
                .map(|(v, m)| RankingFigures {
                    variant: v.name().to_string(),
                    mover: format!("{m:?}").to_lowercase(),
                    table_order: detail.remoteness().then(Default::default),
                    outcome_class: full.then(Default::default),
                    ..RankingFigures::default()
                })
                .collect();
            p.pairs_order_depends_on_c = full.then_some(0);
            p.game_order = conventions
                .iter()
                .flat_map(|&c| {
                    RANKINGS
                        .iter()
                        .map(move |(v, m)| OrderFigures::new(c, v.name(), *m))
                })
                .collect();
        }
        a
    }

    /// Whether a counterexample of `claim` at a position of `filled` cells could replace the
    /// one kept (equal sizes are decided by the position text, in [`Findings::offer`]).
    fn improves(&self, claim: &str, in_play: bool, filled: u32) -> bool {
        self.found
            .get(claim)
            .is_none_or(|c| (!in_play, filled) <= (c.order.0, c.order.1))
    }

    fn offer(&mut self, c: Counterexample) {
        let old = self.found.remove(&c.claim);
        let claim = c.claim.clone();
        self.found.insert(claim, c.smaller(old));
    }

    pub(super) fn merge(mut self, other: Findings) -> Findings {
        for (a, b) in self.pops.iter_mut().zip(other.pops) {
            a.merge(b);
        }
        for (_, c) in other.found {
            self.offer(c);
        }
        self
    }
}

/// What the claims are checked against: the source of values (a table or Lehman's criterion),
/// each player's graph and the game order under each convention.
pub(super) struct ClaimChecker<'a> {
    pub(super) source: Source<'a>,
    pub(super) graphs: [PlayerGraph; 2],
    pub(super) labels: Vec<String>,
    /// The game order under each convention `C` tested (none with values only).
    pub(super) orders: &'a [GameOrder],
    pub(super) detail: Detail,
}

impl<'a> ClaimChecker<'a> {
    /// The checker of Bridg-It `n` against `source`: both players' board graphs and the
    /// board's cell labels, with the game orders and the detail asked for.
    pub(super) fn new(source: Source<'a>, n: u32, orders: &'a [GameOrder], detail: Detail) -> Self {
        ClaimChecker {
            source,
            graphs: [
                PlayerGraph::bridgit(n, Player::Left),
                PlayerGraph::bridgit(n, Player::Right),
            ],
            labels: Layout::Board(Board::Bridgit(n)).labels(),
            orders,
            detail,
        }
    }

    /// The option of claiming `cell`: its cells, and who moves next (`again`: the mover).
    fn child(cells: &[u8], mover: Player, cell: u32) -> Vec<u8> {
        let mut c = cells.to_vec();
        c[cell as usize] = mover.cell();
        c
    }

    fn named(&self, cells: &[u8], mover: Player, cell: u32, role: &str) -> Result<NamedMove> {
        let child = Self::child(cells, mover, cell);
        Ok(NamedMove {
            name: format!("{cell}{}", self.labels[cell as usize]),
            value: self.value(&child, mover.other())?,
            remoteness: self.source.remoteness(&child, mover.other())?,
            role: role.to_string(),
            game_value: None,
        })
    }

    /// The value for `mover` of the position `cells`.
    pub(super) fn value(&self, cells: &[u8], mover: Player) -> Result<Value> {
        self.source.value(cells, mover)
    }

    /// A counterexample at `at`, named by its own board (not the image a symmetric table
    /// stores), the moves it names and the cells to mark.
    pub(super) fn counterexample(
        &self,
        claim: String,
        explanation: String,
        at: &PositionAt<'_>,
        moves: Vec<NamedMove>,
        cells: Vec<u32>,
    ) -> Result<Counterexample> {
        let remoteness = self.source.remoteness(at.cells, at.mover)?;
        Ok(counterexample_at(
            claim,
            explanation,
            at,
            remoteness,
            moves,
            cells,
        ))
    }

    /// Checks every claim at the position stored at `pos` of `game` (the scan of every index
    /// of a plain table), adding its figures and counterexamples to `found`: to both
    /// populations when it arises in play, else to 'all' only.
    pub(super) fn position(&self, game: &CellGame, pos: u64, found: &mut Findings) -> Result<()> {
        if game.status(pos) != Status::Open {
            return Ok(());
        }
        let cells = game.states(pos);
        let mover = game.mover(pos);
        let at = PositionAt {
            value: self.value(&cells, mover)?,
            in_play: in_play(&cells, mover),
            cells: &cells,
            mover,
        };
        let pops: &[usize] = if at.in_play { &[0, 1] } else { &[0] };
        self.check(&at, pops, found)
    }

    /// Checks every claim at one open position, adding its figures to the populations `pops`
    /// of `found` and its counterexamples to `found`.
    pub(super) fn check(
        &self,
        at: &PositionAt<'_>,
        pops: &[usize],
        found: &mut Findings,
    ) -> Result<()> {
        let (cells, mover) = (at.cells, at.mover);
        let empties: Vec<u32> = (0..cells.len() as u32)
            .filter(|&i| cells[i as usize] == EMPTY)
            .collect();
        let mut scored = Vec::with_capacity(empties.len());
        for &cell in &empties {
            let child = Self::child(cells, mover, cell);
            let wins_moving_first = if self.detail.second_bit() {
                Some(self.value(&child, mover)? == Value::Win)
            } else {
                None
            };
            scored.push(ScoredOption {
                cell,
                wins: self.value(&child, mover.other())? == Value::Loss,
                wins_moving_first,
                remoteness: if self.detail.remoteness() {
                    Some(self.source.remoteness(&child, mover.other())?.unwrap_or(0))
                } else {
                    None
                },
            });
        }
        let mut examples = Vec::new();
        self.optional_strategy(at, &scored, pops, found, &mut examples)?;
        if empties.len() >= 2 {
            let keys = option_keys(&self.graphs[mover as usize], cells);
            let immediate = keys.iter().any(|k| k.own == Some(0));
            for (r, &(variant, who)) in RANKINGS.iter().enumerate() {
                if who == mover {
                    let tally = ranking_tally(&keys, variant, immediate, &scored);
                    for &p in pops {
                        found.pops[p].ranking[r].add(&tally.figures);
                    }
                    self.ranking_examples(at, &keys, variant, &tally, &mut examples)?;
                }
            }
            if !self.orders.is_empty() {
                self.game_order(at, &keys, immediate, pops, found, &mut examples)?;
            }
        }
        for e in examples {
            found.offer(e);
        }
        Ok(())
    }

    /// The optional strategy: whether each player can execute it, and whether its moves keep a
    /// won position won.
    fn optional_strategy(
        &self,
        at: &PositionAt<'_>,
        scored: &[ScoredOption],
        pops: &[usize],
        found: &mut Findings,
        examples: &mut Vec<Counterexample>,
    ) -> Result<()> {
        let (cells, mover) = (at.cells, at.mover);
        let won = at.value == Value::Win;
        let mine = optional_moves(&self.graphs[mover as usize], cells);
        let theirs = optional_moves(&self.graphs[mover.other() as usize], cells);
        for &p in pops {
            let pop = &mut found.pops[p];
            pop.positions += 1;
            pop.left_wins += u64::from((mover == Player::Left) == won);
            let f = &mut pop.optional;
            f.positions += 1;
            match (mine.executable(), theirs.executable()) {
                (true, true) => f.both += 1,
                (true, false) => f.mover_only += 1,
                (false, true) => f.opponent_only += 1,
                (false, false) => f.neither += 1,
            }
            if mine.executable() {
                if won {
                    f.mover_executable_won += 1;
                    let keep = mine
                        .moves()
                        .iter()
                        .filter(|&&c| score(scored, c).wins)
                        .count() as u64;
                    f.moves_from_won += mine.moves().len() as u64;
                    f.moves_keeping_win += keep;
                    f.won_all_moves_keep += u64::from(keep == mine.moves().len() as u64);
                    f.won_some_move_keeps += u64::from(keep > 0);
                } else {
                    f.mover_executable_lost += 1;
                }
            } else if won {
                f.won_not_executable += 1;
            }
        }
        if !mine.executable() && !theirs.executable() {
            let why = |o: &Optional| match o {
                Optional::NoComponent => "no component holds both ends",
                _ => "no single edge to double",
            };
            examples.push(self.counterexample(
                "optional.neither-executable".into(),
                format!(
                    "neither player can execute the optional strategy (mover: {}; opponent: {})",
                    why(&mine),
                    why(&theirs)
                ),
                at,
                Vec::new(),
                Vec::new(),
            )?);
        }
        if mine.executable() && !won {
            let moves = mine
                .moves()
                .iter()
                .map(|&c| self.named(cells, mover, c, "strategy move"))
                .collect::<Result<Vec<_>>>()?;
            examples.push(self.counterexample(
                "optional.executable-in-lost-position".into(),
                "the mover can execute the optional strategy, yet the position is lost".into(),
                at,
                moves,
                mine.moves().to_vec(),
            )?);
        }
        if let Some(&bad) = mine
            .moves()
            .iter()
            .find(|&&c| won && !score(scored, c).wins)
        {
            examples.push(
                self.counterexample(
                    "optional.move-loses-win".into(),
                    "a move the optional strategy may choose turns a won position into a lost one"
                        .into(),
                    at,
                    vec![self.named(cells, mover, bad, "strategy move")?],
                    vec![bad],
                )?,
            );
        }
        Ok(())
    }

    /// The ranking conjecture's counterexamples at one position under one variant: no top
    /// option wins though a winning move exists, a losing option ranked above a winning one,
    /// and two equivalent options that differ in outcome.
    fn ranking_examples(
        &self,
        at: &PositionAt<'_>,
        keys: &[OptionKeys],
        variant: Variant,
        tally: &RankingTally,
        examples: &mut Vec<Counterexample>,
    ) -> Result<()> {
        let (cells, mover) = (at.cells, at.mover);
        let name = variant.name();
        let keys_of = |c: u32| {
            let k = keys.iter().find(|k| k.cell == c).expect("an option");
            format!(
                "b after the move {}, after the opponent takes it {}",
                show_b(k.own),
                show_b(k.taken)
            )
        };
        if tally.top_misses_win {
            let moves = tally
                .tops
                .iter()
                .map(|&c| self.named(cells, mover, c, &format!("ranked first ({})", keys_of(c))))
                .collect::<Result<Vec<_>>>()?;
            examples.push(self.counterexample(
                format!("ranking.{name}.top-misses-win"),
                format!("a winning move exists but none of the options the {name} ranking puts first wins"),
                at,
                moves,
                tally.tops.clone(),
            )?);
        }
        if let Some((w, l)) = tally.below {
            examples.push(self.counterexample(
                format!("ranking.{name}.win-below-loss"),
                format!("the {name} ranking puts a losing option above a winning one"),
                at,
                vec![
                    self.named(cells, mover, l, &format!("ranked higher ({})", keys_of(l)))?,
                    self.named(cells, mover, w, &format!("ranked lower ({})", keys_of(w)))?,
                ],
                vec![l, w],
            )?);
        }
        if let Some((a, b)) = tally.equivalent {
            examples.push(self.counterexample(
                format!("ranking.{name}.equivalent-differ"),
                format!("two options the {name} ranking calls equivalent differ in outcome"),
                at,
                vec![
                    self.named(cells, mover, a, &format!("equal keys ({})", keys_of(a)))?,
                    self.named(cells, mover, b, &format!("equal keys ({})", keys_of(b)))?,
                ],
                vec![a, b],
            )?);
        }
        Ok(())
    }

    /// The ranking against the game order: every pair of options, under every convention.
    /// Counterexamples are taken under the first convention.
    fn game_order(
        &self,
        at: &PositionAt<'_>,
        keys: &[OptionKeys],
        immediate: bool,
        pops: &[usize],
        found: &mut Findings,
        examples: &mut Vec<Counterexample>,
    ) -> Result<()> {
        let (cells, mover) = (at.cells, at.mover);
        let all_values: Vec<Vec<crate::game::cgt::Game>> = self
            .orders
            .iter()
            .map(|order| {
                keys.iter()
                    .map(|o| {
                        let mut c = cells.to_vec();
                        c[o.cell as usize] = mover.cell();
                        order.value(&c)
                    })
                    .collect()
            })
            .collect();
        // Each pair's verdict under every convention, against the first.
        let mut depends = 0;
        for i in 0..keys.len() {
            for j in i + 1..keys.len() {
                let first = self.orders[0].truth(all_values[0][i], all_values[0][j], mover);
                depends += u64::from(
                    self.orders
                        .iter()
                        .zip(&all_values)
                        .any(|(o, v)| o.truth(v[i], v[j], mover) != first),
                );
            }
        }
        for &p in pops {
            *found.pops[p].pairs_order_depends_on_c.get_or_insert(0) += depends;
        }
        for (k, order) in self.orders.iter().enumerate() {
            let values = &all_values[k];
            for (r, &(variant, who)) in RANKINGS.iter().enumerate() {
                if who != mover {
                    continue;
                }
                let (tally, broken) = order_tally(order, values, keys, variant, immediate, mover);
                let index = k * RANKINGS.len() + r;
                for &p in pops {
                    found.pops[p].game_order[index].add(&tally);
                }
                if k == 0 {
                    let order_at = OrderAt {
                        order,
                        keys,
                        values,
                        variant,
                    };
                    self.game_order_examples(at, &order_at, &broken, found, examples)?;
                }
            }
        }
        Ok(())
    }

    /// The game-order claims' counterexamples at one position under one variant: a ranked pair
    /// whose higher option is worse, equal or incomparable as a game, and two equivalent options
    /// that are different games.
    fn game_order_examples(
        &self,
        at: &PositionAt<'_>,
        o: &OrderAt<'_>,
        broken: &[Option<(usize, usize)>; 4],
        found: &Findings,
        examples: &mut Vec<Counterexample>,
    ) -> Result<()> {
        let name = o.variant.name();
        let c = o.order.free_moves;
        let claims = [
            ("ranked-above-but-worse", "is really worse than"),
            ("ranked-above-but-equal", "is really equal to"),
            (
                "ranked-above-but-incomparable",
                "is really incomparable with",
            ),
        ];
        let filled = at.cells.iter().filter(|&&s| s != EMPTY).count() as u32;
        for (which, &(claim, how)) in claims.iter().enumerate() {
            let claim_name = format!("order.{name}.{claim}");
            if !found.improves(&claim_name, at.in_play, filled) {
                continue;
            }
            if let Some((hi, lo)) = broken[which] {
                let moves = vec![
                    self.valued(at, o, hi, "ranked higher")?,
                    self.valued(at, o, lo, "ranked lower")?,
                ];
                examples.push(self.counterexample(
                    claim_name,
                    format!(
                        "the option the {name} ranking puts above another {how} it as a \
                         game (C = {c})"
                    ),
                    at,
                    moves,
                    vec![o.keys[hi].cell, o.keys[lo].cell],
                )?);
            }
        }
        if let Some((a, b)) = broken[3]
            && found.improves(
                &format!("order.{name}.equivalent-but-unequal"),
                at.in_play,
                filled,
            )
        {
            let moves = vec![
                self.valued(at, o, a, "equal keys")?,
                self.valued(at, o, b, "equal keys")?,
            ];
            examples.push(self.counterexample(
                format!("order.{name}.equivalent-but-unequal"),
                format!(
                    "two options the {name} ranking calls equivalent are different games \
                     (C = {c})"
                ),
                at,
                moves,
                vec![o.keys[a].cell, o.keys[b].cell],
            )?);
        }
        Ok(())
    }

    /// A move named with its keys and its value as a game.
    fn valued(
        &self,
        at: &PositionAt<'_>,
        o: &OrderAt<'_>,
        i: usize,
        role: &str,
    ) -> Result<NamedMove> {
        let k = &o.keys[i];
        let mut m = self.named(
            at.cells,
            at.mover,
            k.cell,
            &format!(
                "{role} (b after the move {}, after the opponent takes it {})",
                show_b(k.own),
                show_b(k.taken)
            ),
        )?;
        m.game_value = Some(o.order.show(o.values[i]));
        Ok(m)
    }
}

/// The open position a scan is at: its board and its value.
pub(super) struct PositionAt<'a> {
    pub(super) value: Value,
    /// Whether it arises in play with Left moving first.
    pub(super) in_play: bool,
    pub(super) cells: &'a [u8],
    pub(super) mover: Player,
}

/// The counterexample of `claim` at `at` (of remoteness `remoteness`), named by its own board,
/// with the `moves` it names and the `cells` to mark; not drawn yet.
pub(super) fn counterexample_at(
    claim: String,
    explanation: String,
    at: &PositionAt<'_>,
    remoteness: Option<u32>,
    moves: Vec<NamedMove>,
    cells: Vec<u32>,
) -> Counterexample {
    let text = text_of_states(at.cells, at.mover);
    let filled = at.cells.iter().filter(|&&s| s != EMPTY).count() as u32;
    Counterexample {
        claim,
        explanation,
        position: text.clone(),
        value: at.value,
        remoteness,
        in_play: at.in_play,
        moves,
        picture: String::new(),
        svg: None,
        order: (!at.in_play, filled, text),
        cells,
    }
}

/// Whether a board with `mover` to move arises in play with Left moving first: Left to move
/// with equal counts, Right to move with one more Left cell (an open board with these counts
/// is reached by alternation, winning being monotone in a player's cells).
pub(super) fn in_play(cells: &[u8], mover: Player) -> bool {
    let lefts = cells.iter().filter(|&&s| s == LEFT).count();
    let rights = cells.iter().filter(|&&s| s == RIGHT).count();
    match mover {
        Player::Left => lefts == rights,
        Player::Right => lefts == rights + 1,
    }
}

/// One game order's view of a position's options, for the game-order counterexamples.
struct OrderAt<'a> {
    order: &'a GameOrder,
    keys: &'a [OptionKeys],
    /// Each option's value as a game under `order`.
    values: &'a [crate::game::cgt::Game],
    variant: Variant,
}
