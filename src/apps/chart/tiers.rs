//! The chart of `research tiers`: the positions of each tier stacked as wins, losses and draws,
//! and, for a table with remoteness, the wins and the losses of the whole table by remoteness.

use plotters::prelude::*;
use serde::Deserialize;

use super::{Area, DRAW, FONT, LOSS, WIN, count, swatch, whole, why};
use crate::apps::error::Result;
use crate::apps::research::depth::Depth;

/// What the chart reads of one tier: the counts `research tiers --json` gives.
#[derive(Clone, Debug, Deserialize)]
pub struct TierCounts {
    pub tier: u32,
    pub positions: u64,
    pub wins: u64,
    pub losses: u64,
    pub draws: u64,
    #[serde(default)]
    pub win_remoteness: Vec<u64>,
    #[serde(default)]
    pub loss_remoteness: Vec<u64>,
}

/// What the chart reads of a table by tier: `research tiers` (or its `--json`).
#[derive(Clone, Debug, Deserialize)]
pub struct TierChart {
    pub game: String,
    pub tier_meaning: String,
    pub remoteness: bool,
    pub tiers: Vec<TierCounts>,
}

impl From<&Depth> for TierChart {
    fn from(d: &Depth) -> TierChart {
        TierChart {
            game: d.game.clone(),
            tier_meaning: d.tier_meaning.into(),
            remoteness: d.remoteness,
            tiers: d
                .tiers
                .iter()
                .map(|f| TierCounts {
                    tier: f.tier,
                    positions: f.tally.positions,
                    wins: f.tally.wins,
                    losses: f.tally.losses,
                    draws: f.tally.draws,
                    win_remoteness: f.tally.win_remoteness.clone(),
                    loss_remoteness: f.tally.loss_remoteness.clone(),
                })
                .collect(),
        }
    }
}

impl TierChart {
    /// Refuses a report whose counts do not add up: each tier's wins, losses and draws are its
    /// positions, its histograms (where given) its wins and losses, and every sum the chart
    /// draws fits 64 bits (a report with counts near 2^64 was drawn with a wrapped total).
    pub fn check(&self) -> Result<(), String> {
        let sum = |parts: &[u64]| parts.iter().try_fold(0u64, |a, &b| a.checked_add(b));
        let mut total = 0u64;
        for t in &self.tiers {
            let why = |what: &str| format!("tier {}: {what}", t.tier);
            if sum(&[t.wins, t.losses, t.draws]) != Some(t.positions) {
                return Err(why(&format!(
                    "wins {} + losses {} + draws {} are not its {} positions",
                    t.wins, t.losses, t.draws, t.positions
                )));
            }
            for (hist, of, name) in [
                (&t.win_remoteness, t.wins, "wins"),
                (&t.loss_remoteness, t.losses, "losses"),
            ] {
                if !hist.is_empty() && sum(hist) != Some(of) {
                    return Err(why(&format!(
                        "its {name} by remoteness do not add up to its {of} {name}"
                    )));
                }
            }
            total = total
                .checked_add(t.positions)
                .ok_or_else(|| why("the positions of the tiers so far pass 2^64"))?;
        }
        Ok(())
    }

    /// The wins and the losses of every tier by remoteness: entry `r` is `(wins, losses)`
    /// (each sum at most the positions, which [`TierChart::check`] bounds).
    fn by_remoteness(&self) -> Vec<(u64, u64)> {
        let mut all: Vec<(u64, u64)> = Vec::new();
        for t in &self.tiers {
            let longest = t.win_remoteness.len().max(t.loss_remoteness.len());
            if longest > all.len() {
                all.resize(longest, (0, 0));
            }
            for (r, n) in t.win_remoteness.iter().enumerate() {
                all[r].0 = all[r].0.saturating_add(*n);
            }
            for (r, n) in t.loss_remoteness.iter().enumerate() {
                all[r].1 = all[r].1.saturating_add(*n);
            }
        }
        all
    }
}

/// The chart as SVG: one panel of the tiers, and a second of the remoteness when the table has
/// it. The `<desc>` lines: `tier T: positions=P wins=W losses=L draws=D`, then
/// `remoteness R: wins=W losses=L`.
pub fn svg(c: &TierChart) -> Result<String> {
    let remoteness = c.by_remoteness();
    let mut desc: Vec<String> = c
        .tiers
        .iter()
        .map(|t| {
            format!(
                "tier {}: positions={} wins={} losses={} draws={}",
                t.tier, t.positions, t.wins, t.losses, t.draws
            )
        })
        .collect();
    if c.remoteness {
        desc.extend(
            remoteness
                .iter()
                .enumerate()
                .filter(|(_, (w, l))| w + l > 0)
                .map(|(r, (w, l))| format!("remoteness {r}: wins={w} losses={l}")),
        );
    }
    let title = format!(
        "{}: positions by tier ({}){}",
        c.game,
        c.tier_meaning,
        if c.remoteness {
            " and by remoteness"
        } else {
            ""
        }
    );
    let height = if c.remoteness { 820 } else { 460 };
    super::svg("the tiers chart", (960, height), &title, &desc, |root| {
        let root = root.titled(&title, (FONT, 22)).map_err(why)?;
        if c.remoteness {
            let (upper, lower) = root.split_vertically(height / 2 - 20);
            tier_panel(&upper, c)?;
            remoteness_panel(&lower, &remoteness)
        } else {
            tier_panel(&root, c)
        }
    })
}

/// The tiers: a bar per tier, wins at the bottom, losses on them, draws on top.
fn tier_panel(area: &Area<'_>, c: &TierChart) -> Result<(), String> {
    let most = c.tiers.iter().map(|t| t.positions).max().unwrap_or(0);
    let last = c.tiers.len().max(1) as f64 - 0.5;
    let mut chart = ChartBuilder::on(area)
        .margin(12)
        .caption(
            "positions by tier: wins, losses and draws for the player to move",
            (FONT, 16),
        )
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(-0.5f64..last, 0u64..most.saturating_add(most / 20).max(1))
        .map_err(why)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(WHITE)
        .x_desc(format!("tier ({})", c.tier_meaning))
        .y_desc("positions")
        .x_label_formatter(&whole)
        .y_label_formatter(&count)
        .draw()
        .map_err(why)?;
    let parts: [super::Part<TierCounts, (u64, u64)>; 3] = [
        ("wins", WIN, |t| (0, t.wins)),
        ("losses", LOSS, |t| (t.wins, t.wins + t.losses)),
        ("draws", DRAW, |t| {
            (t.wins + t.losses, t.wins + t.losses + t.draws)
        }),
    ];
    // Draws only where a table has them.
    let draws = c.tiers.iter().any(|t| t.draws > 0);
    for (name, color, span) in parts.into_iter().take(if draws { 3 } else { 2 }) {
        let bars = c.tiers.iter().filter_map(|t| {
            let (low, high) = span(t);
            let x = f64::from(t.tier);
            (high > low).then(|| Rectangle::new([(x - 0.4, low), (x + 0.4, high)], color.filled()))
        });
        chart
            .draw_series(bars)
            .map_err(why)?
            .label(name)
            .legend(swatch(color));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(why)
}

/// A half of the remoteness' bars: its series, and where it starts from the remoteness.
type Half = (super::Part<(u64, u64), u64>, f64);

/// The remoteness: at each remoteness the wins (left half) and the losses (right half).
fn remoteness_panel(area: &Area<'_>, by: &[(u64, u64)]) -> Result<(), String> {
    let most = by.iter().map(|&(w, l)| w.max(l)).max().unwrap_or(0);
    let last = by.len().max(1) as f64 - 0.5;
    let mut chart = ChartBuilder::on(area)
        .margin(12)
        .caption(
            "wins and losses by remoteness, every tier together",
            (FONT, 16),
        )
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(-0.5f64..last, 0u64..most.saturating_add(most / 20).max(1))
        .map_err(why)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(WHITE)
        .x_desc("remoteness (plies to the end under best play)")
        .y_desc("positions")
        .x_label_formatter(&whole)
        .y_label_formatter(&count)
        .draw()
        .map_err(why)?;
    let halves: [Half; 2] = [
        (("wins", WIN, |&(w, _)| w), -0.4),
        (("losses", LOSS, |&(_, l)| l), 0.0),
    ];
    for ((name, color, of), from) in halves {
        let bars = by.iter().enumerate().filter_map(|(r, n)| {
            let x = r as f64 + from;
            (of(n) > 0).then(|| Rectangle::new([(x, 0), (x + 0.4, of(n))], color.filled()))
        });
        chart
            .draw_series(bars)
            .map_err(why)?
            .label(name)
            .legend(swatch(color));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(why)
}
