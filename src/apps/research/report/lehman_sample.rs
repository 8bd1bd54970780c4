//! `retrodb research bridgit --sample K` without a table: the claims that need values checked
//! on a uniform random sample of Bridg-It positions of any size from 2 to 6, each value decided
//! by Lehman's criterion ([`super::value_source::Source::Lehman`]) — far beyond any table (size 6 has
//! 61 cells, `2·3^61` configurations).
//!
//! Two populations: **all**, every open configuration with either player to move (each cell
//! empty, Left's or Right's with probability 1/3, the mover a fair coin; a finished board is
//! drawn again), and **play**, the boards with Left-first counts (drawn as the table sample
//! draws them; sizes up to 4, where their numbering fits).
//!
//! The invariant: sample `k` depends only on the seed and `k`, and every figure is the one a
//! table sample of the same population computes, read through the same [`ClaimChecker`].

use std::path::Path;

use super::boards::draw_counterexamples;
use super::figures::{Report, SampleFigures};
use super::measures::{left_out, measures};
use super::sample::sample_with;
use super::scan::{ClaimChecker, Detail, Findings, PositionAt, in_play};
use super::value_source::{Source, finished, lehman_game};
use crate::apps::error::{ResearchError, Result};
use crate::base::progress::Progress;
use crate::base::splitmix::SplitMix64;
use crate::games::cell::alternation::Alternation;
use crate::games::cell::{EMPTY, LEFT, Player, RIGHT};

/// The population a Lehman sample draws from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SamplePopulation {
    /// Every open configuration, either player to move.
    All,
    /// The positions that arise with Left moving first.
    Play,
}

impl SamplePopulation {
    pub fn name(self) -> &'static str {
        match self {
            SamplePopulation::All => "all",
            SamplePopulation::Play => "play",
        }
    }

    /// The index of this population in [`Findings::pops`].
    fn index(self) -> usize {
        match self {
            SamplePopulation::All => 0,
            SamplePopulation::Play => 1,
        }
    }
}

/// One configuration drawn uniformly: each cell empty, Left's or Right's, the mover either.
fn any_configuration(rng: &mut SplitMix64, cells: usize) -> (Vec<u8>, Player) {
    let states = (0..cells)
        .map(|_| [EMPTY, LEFT, RIGHT][rng.below(3) as usize])
        .collect();
    let mover = if rng.below(2) == 0 {
        Player::Left
    } else {
        Player::Right
    };
    (states, mover)
}

/// The cell states of the boards `(l, r)`.
fn states_of_masks(cells: usize, l: u64, r: u64) -> Vec<u8> {
    (0..cells)
        .map(|i| match (l >> i & 1, r >> i & 1) {
            (1, _) => LEFT,
            (_, 1) => RIGHT,
            _ => EMPTY,
        })
        .collect()
}

/// Checks every claim that needs values at the open position `cells` with `mover` to move,
/// into population `pop` only.
fn check(scan: &ClaimChecker<'_>, cells: &[u8], mover: Player, pop: usize) -> Result<Findings> {
    let at = PositionAt {
        value: scan.value(cells, mover)?,
        in_play: in_play(cells, mover),
        cells,
        mover,
    };
    let mut here = Findings::new(&[], Detail::ValuesOnly);
    scan.check(&at, &[pop], &mut here)?;
    Ok(here)
}

/// Draws `count` open positions of Bridg-It `n` uniformly from `population` with `seed` and
/// checks every claim that needs values only on each, the values by Lehman's criterion. The
/// positions checked are reported on `progress` (one stage, no words); `svg_dir` receives the
/// counterexamples' pictures.
pub fn research_lehman(
    n: u32,
    population: SamplePopulation,
    count: u64,
    seed: u64,
    svg_dir: Option<&Path>,
    progress: &dyn Progress,
) -> Result<Report> {
    let max = match population {
        SamplePopulation::All => 6,
        SamplePopulation::Play => 4,
    };
    if !(2..=max).contains(&n) {
        return Err(ResearchError::LehmanSize {
            n,
            population: population.name().into(),
        }
        .into());
    }
    if count == 0 {
        return Err(ResearchError::EmptySample.into());
    }
    let scan = ClaimChecker::new(Source::Lehman(lehman_game(n)?), n, &[], Detail::ValuesOnly);
    let cells = scan.labels.len();
    let measures = measures(false);
    let pop = population.index();
    // The Left-first numbering, for 'play' only (its counts overflow beyond size 4).
    let boards = (population == SamplePopulation::Play)
        .then(|| Alternation::new(cells as u32, Player::Left));
    let sampled = sample_with(
        count,
        seed,
        Detail::ValuesOnly,
        &measures,
        pop,
        progress,
        |rng| {
            let (states, mover) = match population {
                SamplePopulation::All => any_configuration(rng, cells),
                SamplePopulation::Play => {
                    let boards = boards.as_ref().expect("the play numbering");
                    let (l, r) = boards.masks(rng.below(boards.size()));
                    let t = (l | r).count_ones();
                    (states_of_masks(cells, l, r), boards.mover(t))
                }
            };
            if finished(&scan.graphs, &states) {
                return Ok(None);
            }
            check(&scan, &states, mover, pop).map(Some)
        },
    )?;
    let figures = sampled.population(population.name());
    let (boards_count, method) = match population {
        SamplePopulation::All => (
            2.0 * 3f64.powi(cells as i32),
            format!(
                "{count} open positions drawn uniformly (with replacement) from the 2·3^{cells} \
                 configurations with either player to move (each cell empty, Left's or Right's \
                 with probability 1/3, the mover a fair coin; SplitMix64 from the seed, one \
                 stream per sample; finished boards drawn again), each valued by Lehman's \
                 criterion"
            ),
        ),
        SamplePopulation::Play => {
            let size = boards.as_ref().map_or(0, Alternation::size);
            (
                size as f64,
                format!(
                    "{count} open boards drawn uniformly (with replacement) from the {size} boards \
                     with Left-first counts (SplitMix64 from the seed, one stream per sample; \
                     finished boards drawn again), each valued by Lehman's criterion"
                ),
            )
        }
    };
    let sample = SampleFigures {
        method,
        population_name: population.name().into(),
        seed,
        positions: count,
        draws: sampled.draws,
        boards: boards_count,
        remoteness: false,
        confidence: 0.95,
        population: sampled.population_size(count, boards_count),
        proportions: sampled.proportions(&measures, &figures),
        left_out: lehman_left_out(population),
    };
    let mut counterexamples = sampled.counterexamples();
    draw_counterexamples(n, &mut counterexamples, svg_dir, progress)?;
    Ok(Report {
        game: format!("bridgit:{n}"),
        size: n,
        table: scan.source.describe(),
        lehman_check: None,
        spanning_tree: None,
        populations: vec![figures],
        game_values: Vec::new(),
        game_order_same_for_every_c: None,
        sample: Some(sample),
        counterexamples,
    })
}

/// What a Lehman sample cannot give: a table sample's left-outs without remoteness, less the
/// 'all' population when that is the one drawn.
fn lehman_left_out(population: SamplePopulation) -> Vec<super::figures::LeftOut> {
    left_out(false)
        .into_iter()
        .filter(|l| population == SamplePopulation::Play || !l.figures.contains("'all'"))
        .map(|mut l| {
            if l.needs.starts_with("the second outcome bit") {
                l.needs = "the second outcome bit (the option with the same player to move \
                           again), which Lehman's criterion would give but this sample does \
                           not read";
            }
            l
        })
        .collect()
}
