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
use super::figures::{Counterexample, Estimate, Population, Proportion, Report, SampleFigures};
use super::measures::{Measure, left_out, measures};
use super::scan::{ClaimChecker, Detail, Findings, PositionAt};
use super::value_source::{LehmanCheck, Source};
use crate::apps::error::{AppError, ResearchError, Result};
use crate::base::progress::Progress;
use crate::base::splitmix::SplitMix64;
use crate::game::Game;
use crate::games::cell::alternation::Alternation;
use crate::games::cell::{CellGame, Player};
use crate::table::Table;

/// The normal quantile of a two-sided 95% interval.
pub(super) const Z95: f64 = 1.959_963_984_540_054;

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
            Ok::<Chunk, AppError>(chunk)
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
        return Err(AppError::Research(ResearchError::NoIndex {
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
    let lehman = LehmanCheck::new(n)?;
    let source = Source::Table {
        game,
        table,
        check: Some(&lehman),
    };
    let scan = ClaimChecker::new(source, n, &[], detail);
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
    let lehman_check = lehman.figures(table, "every value the sample read")?;
    let mut counterexamples = sampled.counterexamples();
    draw_counterexamples(n, &mut counterexamples, svg_dir, progress)?;
    Ok(Report {
        game: game.spec(),
        size: n,
        table: table.path().display().to_string(),
        lehman_check: Some(lehman_check),
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
        let opts = crate::table::builder::BuildOptions {
            remoteness: true,
            ..Default::default()
        };
        let open = |spec: &str, file: &str| {
            let path = dir.path().join(file);
            let game = AnyGame::open(spec, u64::MAX).unwrap();
            crate::table::builder::build(&game, &path, &opts).unwrap();
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
            Source::Table {
                game,
                table: &sym,
                check: None,
            },
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
