//! Every share a sampled report of Bridg-It gives (the optional strategy, the ranking against
//! win/loss and, from a table with remoteness, against the table's order of options), and what a
//! sample leaves out of the complete report.
//!
//! The invariant: each share reads its count and total from a population's figures, the same
//! figures the complete scan sums, so a sample and a scan are compared name by name.

use super::figures::{LeftOut, Population, RankingFigures, TableOrderFigures};
use super::scan::RANKINGS;

/// What a sample of Bridg-It from a Left-first table cannot give, whatever its size; from a
/// table without remoteness, the figures against the table's order of options too.
pub(super) fn left_out(remoteness: bool) -> Vec<LeftOut> {
    let table_order = LeftOut {
        figures: "ranking: pairs agree / contradict / conj. ties / table ties / both tie; \
                  'equivalent' pairs that differ in remoteness",
        needs: "remoteness: the table orders two winning (or two losing) options by how fast \
                they win (or how slowly they lose)",
    };
    let mut out: Vec<LeftOut> = (!remoteness).then_some(table_order).into_iter().collect();
    out.extend([
        LeftOut {
            figures: "ranking: ranked pairs by outcome class (consistent / refuted / second bit \
                      only); 'equivalent' pairs whose outcome classes differ",
            needs: "the second outcome bit: the option with the same player to move again, a \
                    board that alternation never reaches, so no Left-first table holds it",
        },
        LeftOut {
            figures: "the option-ranking conjecture against the game order (every figure of the \
                      game-order table)",
            needs: "canonical forms (game values) of every configuration of the board with \
                    either player to move",
        },
        LeftOut {
            figures: "the 'all' population (every open configuration, either player to move)",
            needs: "a table of every configuration with either player to move, not only those \
                    alternation reaches with Left first",
        },
        LeftOut {
            figures: "the spanning-tree strategy against every reply sequence of Right",
            needs: "nothing beyond values, but the reply sequences are too many to play out at \
                    this size (and the strategy is a theorem)",
        },
        LeftOut {
            figures: "exact counts",
            needs: "the complete scan; the sample gives shares with intervals",
        },
    ]);
    out
}

/// Reads a share's (count, total) from a population's figures.
pub(super) type Read = Box<dyn Fn(&Population) -> (u64, u64) + Send + Sync>;

/// One measured share: its name, what it counts, and how to read (count, total) from a
/// population's figures.
pub(super) struct Measure {
    pub(super) name: String,
    pub(super) what: String,
    /// Counted in pairs or moves (clusters per position), not in positions.
    pub(super) clustered: bool,
    pub(super) get: Read,
}

fn measure(
    name: impl Into<String>,
    what: impl Into<String>,
    clustered: bool,
    get: impl Fn(&Population) -> (u64, u64) + Send + Sync + 'static,
) -> Measure {
    Measure {
        name: name.into(),
        what: what.into(),
        clustered,
        get: Box::new(get),
    }
}

/// Every share of the population `p` that needs values only, as `(name, what, count, of)`: the
/// shares a sample reports, named alike, here exact (`research chart` draws them by size).
pub fn exact_shares(p: &Population) -> Vec<(String, String, u64, u64)> {
    measures(false)
        .into_iter()
        .map(|m| {
            let (count, of) = (m.get)(p);
            (m.name, m.what, count, of)
        })
        .collect()
}

/// Every share a sampled report gives, in the order it prints them; with `remoteness`, the
/// ranking against the table's order of options too.
pub(super) fn measures(remoteness: bool) -> Vec<Measure> {
    let mut m = optional_measures();
    for (r, (variant, mover)) in RANKINGS.iter().enumerate() {
        let who = format!("{}.{}", variant.name(), format!("{mover:?}").to_lowercase());
        let to_move = format!("{mover:?} to move, {} ranking", variant.name());
        m.extend(ranking_measures(r, &who, &to_move));
        if remoteness {
            m.extend(table_order_measures(r, &who, &to_move));
        }
    }
    m
}

/// The shares of the whole population and of the optional strategy.
fn optional_measures() -> Vec<Measure> {
    let won = |p: &Population| p.optional.mover_executable_won + p.optional.won_not_executable;
    vec![
        measure(
            "mover_wins",
            "positions the player to move wins, of all positions",
            false,
            move |p| (won(p), p.positions),
        ),
        measure(
            "left_wins",
            "positions Left wins (either player to move), of all positions",
            false,
            |p| (p.left_wins, p.positions),
        ),
        measure(
            "optional.mover_only",
            "optional strategy executable by the mover only, of all positions",
            false,
            |p| (p.optional.mover_only, p.positions),
        ),
        measure(
            "optional.opponent_only",
            "executable by the opponent only, of all positions",
            false,
            |p| (p.optional.opponent_only, p.positions),
        ),
        measure(
            "optional.both",
            "executable by both players, of all positions",
            false,
            |p| (p.optional.both, p.positions),
        ),
        measure(
            "optional.neither",
            "executable by neither player, of all positions",
            false,
            |p| (p.optional.neither, p.positions),
        ),
        measure(
            "optional.executable_won",
            "won, of the positions where the mover can execute it (soundness)",
            false,
            |p| {
                let o = &p.optional;
                (
                    o.mover_executable_won,
                    o.mover_executable_won + o.mover_executable_lost,
                )
            },
        ),
        measure(
            "optional.all_moves_keep",
            "every move it offers keeps the win, of the won positions where the mover can \
             execute it",
            false,
            |p| {
                (
                    p.optional.won_all_moves_keep,
                    p.optional.mover_executable_won,
                )
            },
        ),
        measure(
            "optional.some_move_keeps",
            "some move it offers keeps the win, of the won positions where the mover can \
             execute it",
            false,
            |p| {
                (
                    p.optional.won_some_move_keeps,
                    p.optional.mover_executable_won,
                )
            },
        ),
        measure(
            "optional.won_not_executable",
            "the mover cannot execute it, of the won positions",
            false,
            move |p| (p.optional.won_not_executable, won(p)),
        ),
        measure(
            "optional.moves_keeping_win",
            "moves it offers in won positions that keep the win, of those moves",
            true,
            |p| (p.optional.moves_keeping_win, p.optional.moves_from_won),
        ),
    ]
}

/// The shares of the ranking `r` (named `who`) against win and loss.
fn ranking_measures(r: usize, who: &str, to_move: &str) -> Vec<Measure> {
    let get = move |f: fn(&RankingFigures) -> (u64, u64)| move |p: &Population| f(&p.ranking[r]);
    vec![
        measure(
            format!("ranking.{who}.with_winning_option"),
            format!("{to_move}: some option wins, of the positions with two options or more"),
            false,
            get(|k| (k.with_winning_option, k.positions)),
        ),
        measure(
            format!("ranking.{who}.top_has_win"),
            format!("{to_move}: a top-ranked option wins, of the positions with a winning option"),
            false,
            get(|k| (k.top_has_win, k.with_winning_option)),
        ),
        measure(
            format!("ranking.{who}.top_all_win"),
            format!(
                "{to_move}: every top-ranked option wins, of the positions with a winning option"
            ),
            false,
            get(|k| (k.top_all_win, k.with_winning_option)),
        ),
        measure(
            format!("ranking.{who}.win_below_loss"),
            format!(
                "{to_move}: a winning option ranked below a losing one, of the positions with two options or more"
            ),
            false,
            get(|k| (k.win_below_loss_positions, k.positions)),
        ),
        measure(
            format!("ranking.{who}.outcome_right"),
            format!(
                "{to_move}: pairs of a winning and a losing option ranked win first, of those pairs"
            ),
            true,
            get(|k| (k.outcome_right, k.outcome_pairs)),
        ),
        measure(
            format!("ranking.{who}.outcome_wrong"),
            format!(
                "{to_move}: ... ranked loss first (the pair contradicts the table), of those pairs"
            ),
            true,
            get(|k| (k.outcome_wrong, k.outcome_pairs)),
        ),
        measure(
            format!("ranking.{who}.outcome_tied"),
            format!("{to_move}: ... tied by the ranking, of those pairs"),
            true,
            get(|k| (k.outcome_tied, k.outcome_pairs)),
        ),
        measure(
            format!("ranking.{who}.equivalent_outcome_differs"),
            format!(
                "{to_move}: 'equivalent' pairs (equal keys, no immediate win) that differ in outcome, of those pairs"
            ),
            true,
            get(|k| (k.equivalent_outcome_differs, k.equivalent_pairs)),
        ),
    ]
}

/// The shares of the ranking `r` (named `who`) against the table's order of options: every pair
/// of options by how the ranking and the table order it, and the 'equivalent' pairs that agree
/// in outcome but differ in remoteness.
fn table_order_measures(r: usize, who: &str, to_move: &str) -> Vec<Measure> {
    type Field = fn(&TableOrderFigures) -> u64;
    let pairs: [(&str, &str, Field); 5] = [
        (
            "pairs_agree",
            "pairs of options the ranking and the table's order (win before loss, then a faster \
             win or a slower loss) both order, the same way, of all pairs",
            |t| t.pairs_agree,
        ),
        (
            "pairs_contradict",
            "... both order, opposite ways, of all pairs",
            |t| t.pairs_contradict,
        ),
        (
            "pairs_conjecture_ties",
            "... the ranking ties, the table orders, of all pairs",
            |t| t.pairs_conjecture_ties_table_orders,
        ),
        (
            "pairs_table_ties",
            "... the ranking orders, the table ties, of all pairs",
            |t| t.pairs_conjecture_orders_table_ties,
        ),
        ("pairs_both_tie", "... both tie, of all pairs", |t| {
            t.pairs_both_tie
        }),
    ];
    let of = |k: &RankingFigures, f: Field| k.table_order.as_ref().map_or(0, f);
    let mut m: Vec<Measure> = pairs
        .into_iter()
        .map(|(name, what, f)| {
            measure(
                format!("ranking.{who}.{name}"),
                format!("{to_move}: {what}"),
                true,
                move |p: &Population| (of(&p.ranking[r], f), p.ranking[r].pairs),
            )
        })
        .collect();
    m.push(measure(
        format!("ranking.{who}.equivalent_remoteness_differs"),
        format!(
            "{to_move}: 'equivalent' pairs (equal keys, no immediate win) of the same outcome \
             that differ in remoteness, of all 'equivalent' pairs"
        ),
        true,
        move |p: &Population| {
            let k = &p.ranking[r];
            (
                of(k, |t| t.equivalent_remoteness_differs),
                k.equivalent_pairs,
            )
        },
    ));
    m
}
