//! The pairwise comparisons behind the ranking claims at one position: the ranking's verdict on
//! every pair of options against the table's (win or loss, then remoteness) and against the game
//! order's. Pure counting over the options' keys, scores and values; the table is read before.
//!
//! The invariant: every pair of options is compared once, `i < j` in key order, and the first
//! pair found of each kind is the one a counterexample names.

use std::cmp::Ordering;

use super::super::order::{GameOrder, OrderFigures, Truth};
use super::super::ranking::{OptionKeys, Variant, compare, top};
use super::figures::{OutcomeClassFigures, RankingFigures, TableOrderFigures};
use crate::games::cell::Player;

/// One option with the table's verdict from the mover's point of view. A values-only scan
/// knows `wins` alone, a scan of a Left-first table with remoteness `remoteness` too; what it
/// does not know is `None`.
#[derive(Clone, Copy)]
pub(super) struct ScoredOption {
    pub(super) cell: u32,
    pub(super) wins: bool,
    /// Whether the mover would win the option if it were his turn again (the second outcome
    /// bit).
    pub(super) wins_moving_first: Option<bool>,
    /// The child's remoteness.
    pub(super) remoteness: Option<u32>,
}

impl ScoredOption {
    /// The table's preference: a win before a loss, a faster win, a slower loss.
    fn table_cmp(&self, other: &ScoredOption) -> Ordering {
        let (a, b) = (self.remoteness, other.remoteness);
        match (self.wins, other.wins) {
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            (true, true) => b.cmp(&a),
            (false, false) => a.cmp(&b),
        }
    }
}

/// The option of `cell` among the scored ones.
pub(super) fn score(scored: &[ScoredOption], cell: u32) -> ScoredOption {
    *scored.iter().find(|s| s.cell == cell).expect("an option")
}

/// The ranking conjecture at one position under one variant: the figures, and the options that
/// break it (the first pair found of each kind).
pub(super) struct RankingTally {
    pub(super) figures: RankingFigures,
    /// The options the ranking puts first.
    pub(super) tops: Vec<u32>,
    /// A winning move exists, but no top option wins.
    pub(super) top_misses_win: bool,
    /// A winning option ranked below a losing one: (winning, losing).
    pub(super) below: Option<(u32, u32)>,
    /// Two options with equal keys and different outcomes.
    pub(super) equivalent: Option<(u32, u32)>,
}

/// Compares the ranking's verdict on every pair of options with the table's. The figures that
/// need remoteness or the second outcome bit are counted when every option has them.
pub(super) fn ranking_tally(
    keys: &[OptionKeys],
    variant: Variant,
    immediate: bool,
    scored: &[ScoredOption],
) -> RankingTally {
    let any_win = scored.iter().any(|s| s.wins);
    let tops = top(keys, variant);
    let top_wins = tops.iter().filter(|&&c| score(scored, c).wins).count();
    let mut tally = RankingFigures::default();
    let mut by_order = scored
        .iter()
        .all(|s| s.remoteness.is_some())
        .then(TableOrderFigures::default);
    let mut by_class = scored
        .iter()
        .all(|s| s.wins_moving_first.is_some())
        .then(OutcomeClassFigures::default);
    let mut below: Option<(u32, u32)> = None;
    let mut equiv: Option<(u32, u32)> = None;
    tally.positions = 1;
    if any_win {
        tally.with_winning_option = 1;
        tally.top_has_win = u64::from(top_wins > 0);
        tally.top_all_win = u64::from(top_wins == tops.len());
    }
    for i in 0..keys.len() {
        for j in i + 1..keys.len() {
            let (a, b) = (&keys[i], &keys[j]);
            let (sa, sb) = (score(scored, a.cell), score(scored, b.cell));
            let conj = compare(a, b, variant);
            tally.pairs += 1;
            if let Some(f) = by_order.as_mut() {
                match (conj, sa.table_cmp(&sb)) {
                    (Ordering::Equal, Ordering::Equal) => f.pairs_both_tie += 1,
                    (Ordering::Equal, _) => f.pairs_conjecture_ties_table_orders += 1,
                    (_, Ordering::Equal) => f.pairs_conjecture_orders_table_ties += 1,
                    (c, t) if c == t => f.pairs_agree += 1,
                    _ => f.pairs_contradict += 1,
                }
            }
            if sa.wins != sb.wins {
                tally.outcome_pairs += 1;
                let (w, l) = if sa.wins { (a, b) } else { (b, a) };
                match compare(w, l, variant) {
                    Ordering::Greater => tally.outcome_right += 1,
                    Ordering::Equal => tally.outcome_tied += 1,
                    Ordering::Less => {
                        tally.outcome_wrong += 1;
                        below.get_or_insert((w.cell, l.cell));
                    }
                }
            }
            if let Some(f) = by_class.as_mut()
                && conj != Ordering::Equal
            {
                let (hi, lo) = if conj == Ordering::Greater {
                    (sa, sb)
                } else {
                    (sb, sa)
                };
                let first = lo.wins && !hi.wins;
                let second =
                    lo.wins_moving_first == Some(true) && hi.wins_moving_first == Some(false);
                if first || second {
                    f.class_ranked_refuted += 1;
                    f.class_refuted_second_bit_only += u64::from(!first);
                } else {
                    f.class_ranked_consistent += 1;
                }
            }
            if conj == Ordering::Equal && !immediate {
                tally.equivalent_pairs += 1;
                if let Some(f) = by_class.as_mut()
                    && (sa.wins != sb.wins || sa.wins_moving_first != sb.wins_moving_first)
                {
                    f.equivalent_class_differs += 1;
                }
                if sa.wins != sb.wins {
                    tally.equivalent_outcome_differs += 1;
                    equiv.get_or_insert((a.cell, b.cell));
                } else if let Some(f) = by_order.as_mut()
                    && sa.remoteness != sb.remoteness
                {
                    f.equivalent_remoteness_differs += 1;
                }
            }
        }
    }
    tally.win_below_loss_positions = u64::from(below.is_some());
    tally.table_order = by_order;
    tally.outcome_class = by_class;
    RankingTally {
        figures: tally,
        top_misses_win: any_win && top_wins == 0,
        tops,
        below,
        equivalent: equiv,
    }
}

/// Compares the ranking's verdict on every pair of options with the game order's, and whether
/// a top option is dominated; the pairs that break a claim: `[worse, equal, incomparable,
/// equivalent but unequal]`.
pub(super) fn order_tally(
    order: &GameOrder,
    values: &[crate::game::cgt::Game],
    keys: &[OptionKeys],
    variant: Variant,
    immediate: bool,
    mover: Player,
) -> (OrderFigures, [Option<(usize, usize)>; 4]) {
    order_tally_by(
        &mut |a, b| order.truth(a, b, mover),
        values,
        keys,
        variant,
        immediate,
    )
}

/// [`order_tally`] with the truth of a pair (how option `a` really compares with `b` for the
/// mover) given by `truth`, for values kept outside a [`GameOrder`].
pub(super) fn order_tally_by(
    truth: &mut dyn FnMut(crate::game::cgt::Game, crate::game::cgt::Game) -> Truth,
    values: &[crate::game::cgt::Game],
    keys: &[OptionKeys],
    variant: Variant,
    immediate: bool,
) -> (OrderFigures, [Option<(usize, usize)>; 4]) {
    let mut tally = OrderFigures {
        positions: 1,
        ..OrderFigures::default()
    };
    let mut broken: [Option<(usize, usize)>; 4] = [None; 4];
    let mut all_hold = true;
    for i in 0..keys.len() {
        for j in i + 1..keys.len() {
            tally.pairs += 1;
            match compare(&keys[i], &keys[j], variant) {
                Ordering::Equal if immediate => tally.tied_beside_immediate_win += 1,
                Ordering::Equal => {
                    tally.equivalent += 1;
                    match truth(values[i], values[j]) {
                        Truth::Equal => tally.equivalent_equal += 1,
                        Truth::Incomparable => {
                            tally.equivalent_incomparable += 1;
                            broken[3].get_or_insert((i, j));
                        }
                        _ => {
                            tally.equivalent_ordered += 1;
                            broken[3].get_or_insert((i, j));
                        }
                    }
                    all_hold &= values[i] == values[j];
                }
                c => {
                    let (hi, lo) = if c == Ordering::Greater {
                        (i, j)
                    } else {
                        (j, i)
                    };
                    tally.ranked += 1;
                    let t = truth(values[hi], values[lo]);
                    all_hold &= t == Truth::Better;
                    if (keys[hi].own == Some(0)) != (keys[lo].own == Some(0)) {
                        tally.ranked_with_immediate_win += 1;
                        match t {
                            Truth::Better => tally.ranked_with_immediate_win_better += 1,
                            Truth::Worse => tally.ranked_with_immediate_win_worse += 1,
                            Truth::Incomparable => {
                                tally.ranked_with_immediate_win_incomparable += 1
                            }
                            Truth::Equal => {}
                        }
                    }
                    match t {
                        Truth::Better => tally.ranked_better += 1,
                        Truth::Equal => {
                            tally.ranked_equal += 1;
                            broken[1].get_or_insert((hi, lo));
                        }
                        Truth::Worse => {
                            tally.ranked_worse += 1;
                            broken[0].get_or_insert((hi, lo));
                        }
                        Truth::Incomparable => {
                            tally.ranked_incomparable += 1;
                            broken[2].get_or_insert((hi, lo));
                        }
                    }
                }
            }
        }
    }
    tally.positions_all_claims_hold = u64::from(all_hold);
    let tops = top(keys, variant);
    let dominated = tops.iter().any(|&t| {
        let ti = keys.iter().position(|o| o.cell == t).expect("an option");
        (0..keys.len()).any(|o| truth(values[o], values[ti]) == Truth::Better)
    });
    tally.positions_top_dominated = u64::from(dominated);
    (tally, broken)
}
