//! `retrodb research bridgit --sample N`: the claims that need values (and remoteness, when the
//! table has it) checked on a uniform random sample of the play population, each proportion
//! with a 95% confidence interval — for boards whose every position would take days to scan
//! (Bridg-It 4: 1.6e11 positions).
//!
//! Sampling is over *boards*, not over the table's stored indices: a board is drawn uniformly
//! from the boards with Left-first counts (an index of the tier-major alternation numbering,
//! which is one-to-one with them, whatever index the table uses), a finished board is drawn
//! again, and the board's value is looked up through the game's index (in a `,sym` table, the
//! stored image's). Drawing stored indices instead would weight a symmetry class by one, not by
//! the boards it stands for.
//!
//! The invariant: sample `k` depends only on the seed and `k` (not on threads or chunking, nor
//! on whether the table has remoteness), so a report is reproduced exactly by its seed; and every
//! proportion's count and total are the sample's, summed the same way as the complete scan's
//! figures.

use std::path::Path;

use rayon::prelude::*;

use super::boards::{bridgit_game, draw_counterexamples};
use super::figures::{
    Counterexample, Estimate, LeftOut, Population, Proportion, RankingFigures, Report,
    SampleFigures, TableOrderFigures,
};
use super::scan::{ClaimChecker, Detail, Findings, PositionAt, RANKINGS};
use super::source::Source;
use crate::error::{Error, ResearchError, Result};
use crate::game::Game;
use crate::games::cell::alternation::Alternation;
use crate::games::cell::{CellGame, Player};
use crate::progress::Progress;
use crate::splitmix::SplitMix64;
use crate::table::Table;

/// The normal quantile of a two-sided 95% interval.
pub(super) const Z95: f64 = 1.959_963_984_540_054;

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

/// The Wilson score interval of `k` successes in `n` independent draws.
pub fn wilson(k: u64, n: u64, z: f64) -> Option<Estimate> {
    if n == 0 {
        return None;
    }
    let (k, n) = (k as f64, n as f64);
    let p = k / n;
    let z2 = z * z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / (1.0 + z2 / n);
    Some(Estimate {
        value: p,
        low: (centre - half).max(0.0),
        high: (centre + half).min(1.0),
    })
}

/// Per-position sums of one ratio `Σy / Σx` (pairs or moves counted per sampled position), for
/// its delta-method variance.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct RatioSums {
    n: f64,
    y: f64,
    x: f64,
    yy: f64,
    xx: f64,
    xy: f64,
}

impl RatioSums {
    pub(super) fn add(&mut self, y: u64, x: u64) {
        let (y, x) = (y as f64, x as f64);
        self.n += 1.0;
        self.y += y;
        self.x += x;
        self.yy += y * y;
        self.xx += x * x;
        self.xy += x * y;
    }

    pub(super) fn merge(&mut self, o: &RatioSums) {
        self.n += o.n;
        self.y += o.y;
        self.x += o.x;
        self.yy += o.yy;
        self.xx += o.xx;
        self.xy += o.xy;
    }

    /// `R = Σy / Σx` with `R ± z·sqrt(Σ(y − R·x)² / (n(n − 1)·x̄²))`, clipped to `[0, 1]`.
    pub(super) fn interval(&self, z: f64) -> Option<Estimate> {
        if self.x == 0.0 || self.n < 2.0 {
            return None;
        }
        let r = self.y / self.x;
        let residual = (self.yy - 2.0 * r * self.xy + r * r * self.xx).max(0.0);
        let mean_x = self.x / self.n;
        let half = z * (residual / (self.n * (self.n - 1.0) * mean_x * mean_x)).sqrt();
        Some(Estimate {
            value: r,
            low: (r - half).max(0.0),
            high: (r + half).min(1.0),
        })
    }
}

/// Reads a share's (count, total) from a population's figures.
pub(super) type Read = Box<dyn Fn(&Population) -> (u64, u64) + Send + Sync>;

/// One measured share: its name, what it counts, and how to read (count, total) from a
/// population's figures.
pub(super) struct Measure {
    name: String,
    what: String,
    /// Counted in pairs or moves (clusters per position), not in positions.
    clustered: bool,
    get: Read,
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

/// Every share a sampled report gives, in the order it prints them; with `remoteness`, the
/// ranking against the table's order of options too.
pub(super) fn measures(remoteness: bool) -> Vec<Measure> {
    let won = |p: &Population| p.optional.mover_executable_won + p.optional.won_not_executable;
    let mut m = vec![
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
    ];
    for (r, (variant, mover)) in RANKINGS.iter().enumerate() {
        let who = format!("{}.{}", variant.name(), format!("{mover:?}").to_lowercase());
        let to_move = format!("{mover:?} to move, {} ranking", variant.name());
        let get =
            move |f: fn(&RankingFigures) -> (u64, u64)| move |p: &Population| f(&p.ranking[r]);
        m.extend([
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
                format!("{to_move}: every top-ranked option wins, of the positions with a winning option"),
                false,
                get(|k| (k.top_all_win, k.with_winning_option)),
            ),
            measure(
                format!("ranking.{who}.win_below_loss"),
                format!("{to_move}: a winning option ranked below a losing one, of the positions with two options or more"),
                false,
                get(|k| (k.win_below_loss_positions, k.positions)),
            ),
            measure(
                format!("ranking.{who}.outcome_right"),
                format!("{to_move}: pairs of a winning and a losing option ranked win first, of those pairs"),
                true,
                get(|k| (k.outcome_right, k.outcome_pairs)),
            ),
            measure(
                format!("ranking.{who}.outcome_wrong"),
                format!("{to_move}: ... ranked loss first (the pair contradicts the table), of those pairs"),
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
                format!("{to_move}: 'equivalent' pairs (equal keys, no immediate win) that differ in outcome, of those pairs"),
                true,
                get(|k| (k.equivalent_outcome_differs, k.equivalent_pairs)),
            ),
        ]);
        if remoteness {
            m.extend(table_order_measures(r, &who, &to_move));
        }
    }
    m
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

/// What a chunk of samples accumulates.
struct Chunk {
    found: Findings,
    sums: Vec<RatioSums>,
    draws: u64,
}

/// What a sample found: the figures of the population `pop` of `found`, each measure's
/// per-position sums, and the draws it took (finished boards drawn again included).
pub(super) struct Sampled {
    found: Findings,
    sums: Vec<RatioSums>,
    pub(super) draws: u64,
    pop: usize,
}

/// Draws `count` positions with `seed` and checks each: `draw` turns one random stream into
/// the figures of one position (into population `pop`), or `None` for a finished board, drawn
/// again. Sample `k` depends only on the seed and `k`. The positions checked are reported on
/// `progress` (one stage, no words).
pub(super) fn sample_with(
    count: u64,
    seed: u64,
    detail: Detail,
    measures: &[Measure],
    pop: usize,
    progress: &dyn Progress,
    draw: impl Fn(&mut SplitMix64) -> Result<Option<Findings>> + Sync,
) -> Result<Sampled> {
    // One stream per sample, mixed from the seed and the sample's number.
    let base = SplitMix64(seed).next_u64();
    let one = |k: u64, chunk: &mut Chunk| -> Result<()> {
        let mut rng = SplitMix64(base ^ SplitMix64(k).next_u64());
        let here = loop {
            chunk.draws += 1;
            if let Some(here) = draw(&mut rng)? {
                break here;
            }
        };
        for (m, s) in measures.iter().zip(&mut chunk.sums) {
            let (y, x) = (m.get)(&here.pops[pop]);
            s.add(y, x);
        }
        let found = std::mem::take(&mut chunk.found);
        chunk.found = found.merge(here);
        Ok(())
    };
    let empty = || Chunk {
        found: Findings::new(&[], detail),
        sums: vec![RatioSums::default(); measures.len()],
        draws: 0,
    };
    const CHUNK: u64 = 1 << 10;
    progress.stage("", count);
    let acc = (0..count.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let mut chunk = empty();
            let end = ((c + 1) * CHUNK).min(count);
            for k in c * CHUNK..end {
                one(k, &mut chunk)?;
            }
            progress.advance(end - c * CHUNK);
            Ok::<Chunk, Error>(chunk)
        })
        .try_reduce(empty, |mut a, b| {
            a.found = a.found.merge(b.found);
            for (x, y) in a.sums.iter_mut().zip(&b.sums) {
                x.merge(y);
            }
            a.draws += b.draws;
            Ok(a)
        })?;
    Ok(Sampled {
        found: acc.found,
        sums: acc.sums,
        draws: acc.draws,
        pop,
    })
}

impl Sampled {
    /// The sampled population's figures, named `name`.
    pub(super) fn population(&self, name: &str) -> Population {
        let mut p = self.found.pops[self.pop].clone();
        p.name = name.into();
        p
    }

    /// Every measure's share of the population `p` (this sample's), with its 95% interval.
    pub(super) fn proportions(&self, measures: &[Measure], p: &Population) -> Vec<Proportion> {
        measures
            .iter()
            .zip(&self.sums)
            .map(|(m, s)| {
                let (count, of) = (m.get)(p);
                Proportion {
                    name: m.name.clone(),
                    what: m.what.clone(),
                    count,
                    of,
                    share: if m.clustered {
                        s.interval(Z95)
                    } else {
                        wilson(count, of, Z95)
                    },
                    interval: if m.clustered { "ratio" } else { "wilson" },
                }
            })
            .collect()
    }

    /// The population's size, estimated from the share of open draws among `boards` boards.
    pub(super) fn population_size(&self, positions: u64, boards: f64) -> Estimate {
        let open = wilson(positions, self.draws, Z95).expect("at least one draw");
        Estimate {
            value: open.value * boards,
            low: open.low * boards,
            high: open.high * boards,
        }
    }

    /// The smallest counterexample of each claim found.
    pub(super) fn counterexamples(self) -> Vec<Counterexample> {
        self.found.found.into_values().collect()
    }
}

/// Checks every claim the scan's detail allows at the open board `(l, r)` with `t` cells
/// claimed (Left-first counts), looked up through the table's index: the figures of that one
/// position, in the play population.
fn check_board(
    scan: &ClaimChecker<'_>,
    game: &CellGame,
    boards: &Alternation,
    l: u64,
    r: u64,
    t: u32,
) -> Result<Findings> {
    let mover = boards.mover(t);
    let cells = game.states_of_masks(l, r);
    if game.try_index(l, r, mover).is_none() {
        return Err(Error::Research(ResearchError::NoIndex {
            spec: game.spec(),
        }));
    }
    let at = PositionAt {
        value: scan.value(&cells, mover)?,
        in_play: true,
        cells: &cells,
        mover,
    };
    let mut here = Findings::new(&[], scan.detail);
    scan.check(&at, &[1], &mut here)?;
    Ok(here)
}

/// Draws `count` open boards uniformly from the play population of Bridg-It `n` (Left moving
/// first) with `seed`, and checks every claim that needs values only on each against `table`
/// (any table of the board: every configuration, or Left-first, sliced or symmetric) — and,
/// when `table` has remoteness, the ranking against the table's order of options too. The
/// boards checked are reported on `progress` (one stage, no words).
pub fn research_sample(
    n: u32,
    table: &Table,
    count: u64,
    seed: u64,
    svg_dir: Option<&Path>,
    progress: &dyn Progress,
) -> Result<Report> {
    let game = bridgit_game(n, table)?;
    if game.start() == Some(Player::Right) {
        return Err(ResearchError::RightFirst {
            path: table.path().display().to_string(),
            spec: game.spec(),
        }
        .into());
    }
    if count == 0 {
        return Err(ResearchError::EmptySample.into());
    }
    let remoteness = table.has_remoteness();
    let detail = if remoteness {
        Detail::Remoteness
    } else {
        Detail::ValuesOnly
    };
    let scan = ClaimChecker::new(Source::Table { game, table }, n, &[], detail);
    let boards = Alternation::new(game.cells(), Player::Left);
    let measures = measures(remoteness);
    let sampled = sample_with(count, seed, detail, &measures, 1, progress, |rng| {
        let (l, r) = boards.masks(rng.below(boards.size()));
        if game.winner(l, r).is_some() {
            return Ok(None);
        }
        let t = (l | r).count_ones();
        check_board(&scan, game, &boards, l, r, t).map(Some)
    })?;
    let play = sampled.population("play");
    let sample = SampleFigures {
        method: format!(
            "{count} open boards drawn uniformly (with replacement) from the {} boards with \
             Left-first counts (SplitMix64 from the seed, one stream per sample; finished boards \
             drawn again), each looked up through the table's index",
            boards.size()
        ),
        population_name: "play".into(),
        seed,
        positions: count,
        draws: sampled.draws,
        boards: boards.size() as f64,
        remoteness,
        confidence: 0.95,
        population: sampled.population_size(count, boards.size() as f64),
        proportions: sampled.proportions(&measures, &play),
        left_out: left_out(remoteness),
    };
    let mut counterexamples = sampled.counterexamples();
    draw_counterexamples(n, &mut counterexamples, svg_dir)?;
    Ok(Report {
        game: game.spec(),
        size: n,
        table: table.path().display().to_string(),
        spanning_tree: None,
        populations: vec![play],
        game_values: Vec::new(),
        game_order_same_for_every_c: None,
        sample: Some(sample),
        counterexamples,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every board of Bridg-It 2's play population checked as a sample checks it, from a
    /// symmetric Left-first table with remoteness, gives the complete scan's figures for the
    /// play population (from the plain table with remoteness) exactly: the ranking against
    /// the table's order of options included, the second outcome bit left out.
    #[test]
    fn every_board_from_a_symmetric_table_with_remoteness_gives_the_complete_figures() {
        use crate::games::AnyGame;
        let dir = tempfile::tempdir().unwrap();
        let opts = crate::build::BuildOptions {
            remoteness: true,
            ..Default::default()
        };
        let open = |spec: &str, file: &str| {
            let path = dir.path().join(file);
            let game = AnyGame::open(spec, u64::MAX).unwrap();
            crate::build::build(&game, &path, &opts).unwrap();
            Table::open(&path).unwrap()
        };
        let plain = open("bridgit:2", "b2.rdb");
        let sym = open("bridgit:2,start=L,sym", "b2s.rdb");
        let complete = super::super::research(2, &plain, &[1], None).unwrap();
        let want = complete
            .populations
            .iter()
            .find(|p| p.name == "play")
            .unwrap();
        let game = bridgit_game(2, &sym).unwrap();
        let scan = ClaimChecker::new(
            Source::Table { game, table: &sym },
            2,
            &[],
            Detail::Remoteness,
        );
        let boards = Alternation::new(game.cells(), Player::Left);
        let mut got = Findings::new(&[], Detail::Remoteness);
        for k in 0..boards.size() {
            let (l, r) = boards.masks(k);
            if game.winner(l, r).is_none() {
                let t = (l | r).count_ones();
                got = got.merge(check_board(&scan, game, &boards, l, r, t).unwrap());
            }
        }
        let got = &got.pops[1];
        assert_eq!(got.positions, want.positions);
        assert_eq!(got.left_wins, want.left_wins);
        for (a, b) in got.ranking.iter().zip(&want.ranking) {
            assert!(
                a.outcome_class.is_none(),
                "no second bit in a Left-first table"
            );
            let mut b = b.clone();
            b.outcome_class = None;
            let (a, b) = (
                serde_json::to_value(a).unwrap(),
                serde_json::to_value(&b).unwrap(),
            );
            assert_eq!(a, b);
            // Not vacuous: remoteness was read, some pairs of the same outcome are ordered by
            // it (more pairs agree with the table than win-vs-loss pairs are ranked right).
            assert!(
                a["pairs_agree"].as_u64() > a["outcome_right"].as_u64(),
                "{a}"
            );
        }
        assert_eq!(
            serde_json::to_value(&got.optional).unwrap(),
            serde_json::to_value(&want.optional).unwrap()
        );
    }

    #[test]
    fn wilson_matches_known_intervals() {
        // 0 of 10: [0, 0.2775]; 5 of 10: [0.2366, 0.7634] (the textbook values).
        let e = wilson(0, 10, Z95).unwrap();
        assert_eq!(e.low, 0.0);
        assert!((e.high - 0.2775).abs() < 1e-4, "{e:?}");
        let e = wilson(5, 10, Z95).unwrap();
        assert!((e.low - 0.2366).abs() < 1e-4 && (e.high - 0.7634).abs() < 1e-4);
        assert!(wilson(0, 0, Z95).is_none());
    }

    #[test]
    fn ratio_interval_is_the_wilson_width_for_one_item_a_position() {
        // With x = 1 everywhere, the ratio is a plain proportion: the delta method gives the
        // Wald interval, close to Wilson's for a large sample.
        let mut s = RatioSums::default();
        for i in 0..10_000u64 {
            s.add(u64::from(i % 4 == 0), 1);
        }
        let r = s.interval(Z95).unwrap();
        let w = wilson(2500, 10_000, Z95).unwrap();
        assert!((r.value - 0.25).abs() < 1e-12);
        assert!((r.low - w.low).abs() < 1e-3 && (r.high - w.high).abs() < 1e-3);
        // Clusters of equal items widen it: the same shares in blocks of 10 are 10 times fewer
        // independent draws.
        let mut c = RatioSums::default();
        for i in 0..1_000u64 {
            c.add(if i % 4 == 0 { 10 } else { 0 }, 10);
        }
        let wide = c.interval(Z95).unwrap();
        assert!(wide.high - wide.low > 3.0 * (r.high - r.low));
    }
}
