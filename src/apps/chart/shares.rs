//! The chart of the Bridg-It reports' shares by board size: per size, the share of each claim
//! in one population, exact from a complete report (every position of a table) and with its
//! 95% interval from a sample (a table's or Lehman's criterion's).

use plotters::prelude::*;

use super::{FONT, whole, why};
use crate::apps::error::Result;

/// The shares drawn unless others are asked: the ones `docs/RESEARCH.md` tabulates by size.
pub const DEFAULT_SHARES: &[&str] = &[
    "mover_wins",
    "optional.neither",
    "optional.won_not_executable",
    "ranking.stated.left.win_below_loss",
    "ranking.reversed.left.win_below_loss",
    "ranking.reversed.left.top_has_win",
];

/// One share of one report: `count` of `of`, with its interval (`low == high` when exact).
#[derive(Clone, Debug, PartialEq)]
pub struct Share {
    pub name: String,
    pub what: String,
    pub count: u64,
    pub of: u64,
    pub value: f64,
    pub low: f64,
    pub high: f64,
}

/// The shares of one report (one board size).
#[derive(Clone, Debug)]
pub struct SizeShares {
    pub size: u32,
    /// How the positions were counted: `every position` or `N sampled`.
    pub method: String,
    pub shares: Vec<Share>,
}

/// The colours of the series, in the order of the shares asked.
const COLORS: [RGBColor; 8] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x8c, 0x56, 0x4b),
    RGBColor(0xe3, 0x77, 0xc2),
    RGBColor(0x17, 0xbe, 0xcf),
];

/// The chart as SVG: a line per share across the sizes, a point per size (filled: exact;
/// open, with its 95% interval: sampled). `sizes` is sorted by size, each holding every share
/// of `names`. The `<desc>` lines: `size N NAME: count=C of=O share=S low=L high=H`.
pub fn svg(population: &str, names: &[String], sizes: &[SizeShares]) -> Result<String> {
    let mut desc = Vec::new();
    for s in sizes {
        desc.push(format!("size {}: {}", s.size, s.method));
        for h in &s.shares {
            desc.push(format!(
                "size {} {}: count={} of={} share={} low={} high={}",
                s.size, h.name, h.count, h.of, h.value, h.low, h.high
            ));
        }
    }
    let title = format!("Bridg-It, population '{population}': shares by board size");
    let first = sizes.first().map_or(2, |s| s.size) as f64;
    let last = sizes.last().map_or(2, |s| s.size) as f64;
    let labels: Vec<(u32, String)> = sizes.iter().map(|s| (s.size, s.method.clone())).collect();
    let height = 560 + 18 * names.len() as u32;
    super::svg("the shares chart", (960, height), &title, &desc, |root| {
        let root = root.titled(&title, (FONT, 22)).map_err(why)?;
        let (upper, lower) = root.split_vertically(500);
        let mut chart = ChartBuilder::on(&upper)
            .margin(14)
            .caption(
                "filled: every position (exact); open: a sample, with its 95% interval",
                (FONT, 15),
            )
            .x_label_area_size(58)
            .y_label_area_size(60)
            .build_cartesian_2d(first - 0.5..last + 0.5, 0f64..100f64)
            .map_err(why)?;
        let size_label = |x: &f64| {
            let w = whole(x);
            match labels.iter().find(|(n, _)| w == n.to_string()) {
                Some((n, how)) => format!("{n} ({how})"),
                None => String::new(),
            }
        };
        chart
            .configure_mesh()
            .disable_x_mesh()
            .light_line_style(WHITE)
            .x_labels(sizes.len() * 2 + 1)
            .x_desc("board size")
            .y_desc("share (%)")
            .x_label_formatter(&size_label)
            .y_label_formatter(&|y| format!("{y:.0}%"))
            .draw()
            .map_err(why)?;
        for (k, name) in names.iter().enumerate() {
            let color = COLORS[k % COLORS.len()];
            // Side by side, so that intervals at one size do not hide each other.
            let dx = (k as f64 - (names.len() as f64 - 1.0) / 2.0) * 0.015;
            let points: Vec<(f64, &Share)> = sizes
                .iter()
                .filter_map(|s| {
                    let h = s.shares.iter().find(|h| &h.name == name)?;
                    Some((f64::from(s.size) + dx, h))
                })
                .collect();
            let what = points.first().map_or("", |(_, h)| h.what.as_str());
            let line: Vec<(f64, f64)> = points.iter().map(|(x, h)| (*x, 100.0 * h.value)).collect();
            chart
                .draw_series(std::iter::once(PathElement::new(
                    line,
                    color.stroke_width(2),
                )))
                .map_err(why)?;
            // The legend, below the chart: a line of the colour, the share's name and meaning.
            let y = 10 + 18 * k as i32;
            lower
                .draw(&PathElement::new(
                    vec![(30, y), (56, y)],
                    color.stroke_width(3),
                ))
                .map_err(why)?;
            lower
                .draw(&Text::new(
                    format!("{name}: {what}"),
                    (64, y - 7),
                    (FONT, 13).into_font(),
                ))
                .map_err(why)?;
            for (x, h) in &points {
                let exact = h.low == h.high && h.low == h.value;
                if !exact {
                    let whisker = vec![(*x, 100.0 * h.low), (*x, 100.0 * h.high)];
                    chart
                        .draw_series(std::iter::once(PathElement::new(
                            whisker,
                            color.stroke_width(2),
                        )))
                        .map_err(why)?;
                }
                let style = if exact {
                    color.filled()
                } else {
                    WHITE.filled()
                };
                chart
                    .draw_series([
                        Circle::new((*x, 100.0 * h.value), 4, style),
                        Circle::new((*x, 100.0 * h.value), 4, color.stroke_width(2)),
                    ])
                    .map_err(why)?;
            }
        }
        Ok(())
    })
}
