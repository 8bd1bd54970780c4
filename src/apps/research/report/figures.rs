//! The figures `retrodb research bridgit` reports, as serialised to JSON: counts per population
//! and claim, and the counterexamples with what `retrodb probe` needs to reproduce them.
//!
//! The invariant: figures only ever add up — merging two scans' figures gives the figures of
//! the union of their positions.

use serde::{Deserialize, Serialize};

use super::super::order::OrderFigures;
use crate::game::Value;

/// One move named in a counterexample, with the table's answer for the position it leads to.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct NamedMove {
    /// As `retrodb probe` names it: cell number and coordinates.
    #[serde(rename = "move")]
    pub name: String,
    /// The child's value for its own mover (the opponent).
    pub value: Value,
    pub remoteness: Option<u32>,
    /// What the claim says about the move (e.g. "ranked first", "ranked below").
    pub role: String,
    /// The option's value as a game (CGSuite's notation), for claims about the game order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game_value: Option<String>,
}

/// The smallest position that breaks a claim.
#[derive(Clone, Debug, Serialize)]
pub struct Counterexample {
    /// Which claim: e.g. `optional.move-loses`, `ranking.stated.top-misses-win`.
    pub claim: String,
    pub explanation: String,
    /// Position text (`retrodb probe` reads it).
    pub position: String,
    pub value: Value,
    pub remoteness: Option<u32>,
    /// Whether the position arises in play with Left moving first.
    pub in_play: bool,
    pub moves: Vec<NamedMove>,
    /// The board, drawn as plain text.
    pub picture: String,
    /// The SVG file written for it, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub svg: Option<String>,
    #[serde(skip)]
    pub(super) cells: Vec<u32>,
    #[serde(skip)]
    pub(super) order: (bool, u32, String),
}

impl Counterexample {
    /// The smaller of two counterexamples of one claim: out of play after in play, then fewer
    /// filled cells, then the position text.
    pub(super) fn smaller(self, other: Option<Counterexample>) -> Counterexample {
        match other {
            Some(o) if o.order <= self.order => o,
            _ => self,
        }
    }
}

/// The spanning-tree strategy against every reply sequence from the empty board.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SpanningTreeFigures {
    /// The cells of the two edge-disjoint trees before the first move; the virtual edge joining
    /// the ends belongs to the second.
    pub trees: [Vec<String>; 2],
    pub first_move: String,
    /// Complete games (Right tries every reply at every turn).
    pub lines: u64,
    pub losses: u64,
    /// Positions with Left to move along the lines, and how many the table calls lost.
    pub left_to_move: u64,
    pub table_says_lost: u64,
}

/// The optional strategy over one population of positions.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct OptionalFigures {
    pub positions: u64,
    pub mover_only: u64,
    pub opponent_only: u64,
    pub both: u64,
    pub neither: u64,
    /// Of the positions where the mover can execute it: won and lost (by the table).
    pub mover_executable_won: u64,
    pub mover_executable_lost: u64,
    /// Won positions where the mover cannot execute it.
    pub won_not_executable: u64,
    /// Moves the strategy may choose in won positions, and how many keep the win.
    pub moves_from_won: u64,
    pub moves_keeping_win: u64,
    /// Won executable positions where every move it may choose keeps the win, and where some
    /// move does.
    pub won_all_moves_keep: u64,
    pub won_some_move_keeps: u64,
}

/// The ranking conjecture for one variant and one mover, over one population. The figures that
/// need more than each position's value are in groups a scan leaves out when its table lacks
/// what they need (`None`, and absent from the JSON): remoteness, the second outcome bit.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct RankingFigures {
    pub variant: String,
    pub mover: String,
    /// Positions with at least two options.
    pub positions: u64,
    /// ... of which some option wins.
    pub with_winning_option: u64,
    /// ... and the top-ranked options include a winning one / are all winning.
    pub top_has_win: u64,
    pub top_all_win: u64,
    /// Positions where a winning option is ranked strictly below a losing one.
    pub win_below_loss_positions: u64,
    /// Pairs of options.
    pub pairs: u64,
    /// Pairs of a winning and a losing option: ranked right, ranked wrong, tied.
    pub outcome_pairs: u64,
    pub outcome_right: u64,
    pub outcome_wrong: u64,
    pub outcome_tied: u64,
    /// Pairs the conjecture calls equivalent (equal keys, no immediate win), and how many differ
    /// in outcome.
    pub equivalent_pairs: u64,
    pub equivalent_outcome_differs: u64,
    /// Figures against the table's order of options, which needs remoteness.
    #[serde(flatten)]
    pub table_order: Option<TableOrderFigures>,
    /// Figures by outcome class, which need the second outcome bit.
    #[serde(flatten)]
    pub outcome_class: Option<OutcomeClassFigures>,
}

/// The ranking against the table's order of options — win before loss, then a faster win or a
/// slower loss first: needs remoteness.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TableOrderFigures {
    pub pairs_agree: u64,
    pub pairs_contradict: u64,
    pub pairs_conjecture_ties_table_orders: u64,
    pub pairs_conjecture_orders_table_ties: u64,
    pub pairs_both_tie: u64,
    /// 'Equivalent' pairs that agree in outcome but differ in remoteness.
    pub equivalent_remoteness_differs: u64,
}

/// Both outcome bits of each option (the mover wins it moving second — the first bit — and
/// moving first): `G >= H` needs both of `H`'s wins to be `G`'s. Needs the second bit, which
/// only a table of every configuration with either mover holds.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct OutcomeClassFigures {
    /// Of the pairs the ranking orders, how many satisfy this and how many break it (of those,
    /// how many only by the second bit).
    pub class_ranked_consistent: u64,
    pub class_ranked_refuted: u64,
    pub class_refuted_second_bit_only: u64,
    /// 'Equivalent' pairs whose outcome classes (both bits) differ.
    pub equivalent_class_differs: u64,
}

/// Figures for one population (read back from a report's JSON by `research chart`, the game
/// order left out).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Population {
    /// `all` (every open configuration, either mover) or `play` (arising in play).
    pub name: String,
    pub positions: u64,
    pub left_wins: u64,
    pub optional: OptionalFigures,
    pub ranking: Vec<RankingFigures>,
    /// The ranking against the game order, per convention `C` (in the order of
    /// [`Report::game_values`]), variant and mover; empty when the scan has values only.
    #[serde(skip_serializing_if = "Vec::is_empty", skip_deserializing)]
    pub game_order: Vec<OrderFigures>,
    /// Pairs of options (every position and mover with two options or more) whose order as
    /// games — better, equal, worse or incomparable — is not the same under every convention.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pairs_order_depends_on_c: Option<u64>,
}

/// The whole report for one board size.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub game: String,
    pub size: u32,
    pub table: String,
    /// The table's values compared with Lehman's criterion (reports from a table only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lehman_check: Option<LehmanFigures>,
    /// The spanning-tree strategy against every reply sequence (left out of sampled reports).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spanning_tree: Option<SpanningTreeFigures>,
    pub populations: Vec<Population>,
    /// The conventions the game order was tested under, with the distinct values of the board.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub game_values: Vec<ValuesSummary>,
    /// Whether every game-order figure is the same for every convention `C`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game_order_same_for_every_c: Option<bool>,
    /// How the positions were sampled, each proportion with its interval, and the figures left
    /// out; only in sampled reports.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sample: Option<SampleFigures>,
    pub counterexamples: Vec<Counterexample>,
}

/// A table's values compared with Lehman's criterion. A report exists only when none disagreed:
/// a disagreement refuses the report (the table is wrong).
#[derive(Clone, Debug, Serialize)]
pub struct LehmanFigures {
    /// Which values were compared.
    pub compared: String,
    pub values: u64,
    pub disagreements: u64,
}

/// One convention's values.
#[derive(Clone, Debug, Serialize)]
pub struct ValuesSummary {
    /// A finished board is worth this many free moves to its winner.
    pub free_moves: u32,
    /// Distinct values over every configuration of the board.
    pub distinct_values: usize,
}

macro_rules! add_fields {
    ($a:expr, $b:expr, $($f:ident),*) => { $( $a.$f += $b.$f; )* };
}

/// Adds an optional group of figures: `None` plus a group is that group (a merge starts from
/// empty figures), two `None`s stay `None` (a scan that does not measure them).
fn add_group<T: Default>(a: &mut Option<T>, b: &Option<T>, add: impl FnOnce(&mut T, &T)) {
    if let Some(b) = b {
        add(a.get_or_insert_with(T::default), b);
    }
}

impl RankingFigures {
    /// Adds another tally's counts to these (the variant and mover stay).
    pub(super) fn add(&mut self, o: &RankingFigures) {
        add_fields!(
            self,
            o,
            positions,
            with_winning_option,
            top_has_win,
            top_all_win,
            win_below_loss_positions,
            pairs,
            outcome_pairs,
            outcome_right,
            outcome_wrong,
            outcome_tied,
            equivalent_pairs,
            equivalent_outcome_differs
        );
        add_group(&mut self.table_order, &o.table_order, |a, b| {
            add_fields!(
                a,
                b,
                pairs_agree,
                pairs_contradict,
                pairs_conjecture_ties_table_orders,
                pairs_conjecture_orders_table_ties,
                pairs_both_tie,
                equivalent_remoteness_differs
            );
        });
        add_group(&mut self.outcome_class, &o.outcome_class, |a, b| {
            add_fields!(
                a,
                b,
                class_ranked_consistent,
                class_ranked_refuted,
                class_refuted_second_bit_only,
                equivalent_class_differs
            );
        });
    }
}

impl Population {
    pub(super) fn merge(&mut self, o: Population) {
        add_fields!(self, o, positions, left_wins);
        add_group(
            &mut self.pairs_order_depends_on_c,
            &o.pairs_order_depends_on_c,
            |a, b| *a += b,
        );
        add_fields!(
            self.optional,
            o.optional,
            positions,
            mover_only,
            opponent_only,
            both,
            neither,
            mover_executable_won,
            mover_executable_lost,
            won_not_executable,
            moves_from_won,
            moves_keeping_win,
            won_all_moves_keep,
            won_some_move_keeps
        );
        for (a, b) in self.ranking.iter_mut().zip(o.ranking) {
            a.add(&b);
        }
        for (a, b) in self.game_order.iter_mut().zip(o.game_order) {
            a.add(&b);
        }
    }
}

/// How a sampled report was drawn, what it found, and what it leaves out.
#[derive(Clone, Debug, Serialize)]
pub struct SampleFigures {
    pub method: String,
    /// The population drawn from: `play` (Left moving first) or `all` (every open
    /// configuration, either player to move).
    pub population_name: String,
    pub seed: u64,
    /// Open positions in the sample (each a board of the play population).
    pub positions: u64,
    /// Boards drawn, finished ones (drawn again) included.
    pub draws: u64,
    /// Boards a draw chooses from, open or finished: those with Left-first counts, or every
    /// configuration with either mover (`2·3^cells`, beyond a 64-bit integer at size 6).
    pub boards: f64,
    /// Whether the table holds remoteness, so that the figures against the table's order of
    /// options are given.
    pub remoteness: bool,
    /// The confidence of every interval.
    pub confidence: f64,
    /// The size of the population (open boards), estimated from the share of open draws.
    pub population: Estimate,
    pub proportions: Vec<Proportion>,
    /// The complete report's figures this one does not give, and why.
    pub left_out: Vec<LeftOut>,
}

/// A number estimated from the sample, with its interval.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Estimate {
    pub value: f64,
    pub low: f64,
    pub high: f64,
}

/// One proportion of the sample, `count` of `of`.
#[derive(Clone, Debug, Serialize)]
pub struct Proportion {
    /// A stable name, e.g. `optional.neither` or `ranking.stated.left.top_has_win`.
    pub name: String,
    /// What is counted, of what.
    pub what: String,
    pub count: u64,
    pub of: u64,
    /// `count / of`, with its interval (`None` when `of` is 0).
    pub share: Option<Estimate>,
    /// `wilson` for a share of sampled positions (independent draws); `ratio` for a share of
    /// pairs or moves, which come in clusters per position: the ratio estimator's interval by
    /// the delta method over positions.
    pub interval: &'static str,
}

/// Figures of the complete report a sampled one leaves out.
#[derive(Clone, Debug, Serialize)]
pub struct LeftOut {
    pub figures: &'static str,
    pub needs: &'static str,
}
