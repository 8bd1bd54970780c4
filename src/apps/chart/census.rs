//! The chart of the Shannon census: per number of vertices, the share of the terminal pairs in
//! each class of the empty position (Short wins even moving second, Cut does, the first player
//! wins), the vertex version's bar beside the edge version's.

use plotters::prelude::*;
use serde::Deserialize;

use super::{FONT, whole, why};
use crate::apps::error::Result;

/// One number of vertices of the census: what `sweep shannon-vertex --json` gives per row.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct CensusRow {
    pub vertices: u32,
    pub terminal_pairs: u64,
    pub short: u64,
    pub cut: u64,
    pub first: u64,
    pub edge_short: u64,
    pub edge_cut: u64,
    pub edge_first: u64,
}

const SHORT: RGBColor = RGBColor(0x1f, 0x77, 0xb4);
const CUT: RGBColor = RGBColor(0xff, 0x7f, 0x0e);
const FIRST: RGBColor = RGBColor(0x7f, 0x7f, 0x7f);

/// The chart as SVG, of the rows with terminal pairs, sorted by vertices. The `<desc>` lines:
/// `vertices N: pairs=P short=S cut=C first=F edge_short=S edge_cut=C edge_first=F`.
pub fn svg(rows: &[CensusRow]) -> Result<String> {
    let rows: Vec<&CensusRow> = rows.iter().filter(|r| r.terminal_pairs > 0).collect();
    let desc: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                "vertices {}: pairs={} short={} cut={} first={} edge_short={} edge_cut={} \
                 edge_first={}",
                r.vertices,
                r.terminal_pairs,
                r.short,
                r.cut,
                r.first,
                r.edge_short,
                r.edge_cut,
                r.edge_first
            )
        })
        .collect();
    let title = "Shannon switching game: the class of the empty position by number of vertices";
    let first = rows.first().map_or(1, |r| r.vertices) as f64;
    let last = rows.last().map_or(1, |r| r.vertices) as f64;
    super::svg("the census chart", (960, 560), title, &desc, |root| {
        let root = root.titled(title, (FONT, 20)).map_err(why)?;
        let mut chart = ChartBuilder::on(&root)
            .margin(14)
            .caption(
                "of the terminal pairs (connected graphs, pairs up to automorphism); each n: \
                 the vertex version (left, solid), the edge version (right, light)",
                (FONT, 14),
            )
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(first - 0.5..last + 0.5, 0f64..118f64)
            .map_err(why)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .light_line_style(WHITE)
            .x_desc("vertices n")
            .y_desc("share of the terminal pairs (%)")
            .x_label_formatter(&whole)
            // Above 100%: room for the legend, no tick.
            .y_label_formatter(&|y| {
                if *y <= 100.0 {
                    format!("{y:.0}%")
                } else {
                    String::new()
                }
            })
            .draw()
            .map_err(why)?;
        let classes: [super::Part<CensusRow, [u64; 2]>; 3] = [
            ("Short wins even moving second", SHORT, |r| {
                [r.short, r.edge_short]
            }),
            ("Cut wins even moving second", CUT, |r| [r.cut, r.edge_cut]),
            ("the first player wins", FIRST, |r| [r.first, r.edge_first]),
        ];
        // Each bar's height so far: [vertex version, edge version] per row.
        let mut below = vec![[0u64; 2]; rows.len()];
        for (name, color, of) in classes {
            let mut bars = Vec::new();
            for (r, under) in rows.iter().zip(below.iter_mut()) {
                let x = f64::from(r.vertices);
                let pct = |n: u64| 100.0 * n as f64 / r.terminal_pairs as f64;
                for (version, n) in of(r).into_iter().enumerate() {
                    let (from, style) = if version == 0 {
                        (x - 0.4, color.filled())
                    } else {
                        (x + 0.02, color.mix(0.5).filled())
                    };
                    if n > 0 {
                        let (low, high) = (pct(under[version]), pct(under[version] + n));
                        bars.push(Rectangle::new([(from, low), (from + 0.38, high)], style));
                    }
                    under[version] += n;
                }
            }
            chart
                .draw_series(bars)
                .map_err(why)?
                .label(name)
                .legend(super::swatch(color));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .draw()
            .map_err(why)
    })
}
