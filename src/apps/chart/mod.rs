//! Charts of tables, research and the census, as SVG drawn with `plotters`: the positions of a
//! table by tier and remoteness ([`tiers`]), the Bridg-It reports' shares by board size
//! ([`shares`]) and the Shannon census' classes by number of vertices ([`census`]). The
//! command line only parses its flags and calls them (`research tiers --svg`, `research
//! chart`); [`from_files`] reads the JSON reports a chart is drawn from.
//!
//! Every chart says what it shows twice: in the picture, and as text in the SVG's `<title>`
//! and `<desc>` (read by screen readers, and by the tests, which check that the numbers there
//! equal the JSON's), one line per bar or point, `LABEL: key=value key=value`. Both are made
//! from the same figures in the same function, so neither can drift from the other.

pub mod census;
mod input;
pub mod shares;
pub mod tiers;

pub use input::{Chart, from_files};

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::apps::error::{ResearchError, Result};

/// The colours of a win, a loss and a draw (for the player to move).
pub(crate) const WIN: RGBColor = RGBColor(0x2e, 0x7d, 0x32);
pub(crate) const LOSS: RGBColor = RGBColor(0xc6, 0x28, 0x28);
pub(crate) const DRAW: RGBColor = RGBColor(0x90, 0x90, 0x90);

/// The font of every label.
pub(crate) const FONT: &str = "sans-serif";

/// One series of bars: its name in the legend, its colour, and what it reads of a bar's data.
pub(crate) type Part<T, S> = (&'static str, RGBColor, fn(&T) -> S);

/// A drawing area of the SVG being drawn.
pub(crate) type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// Draws a chart of `size` pixels with `draw` and returns the SVG, with `title` and `desc`
/// (the chart's numbers, one line each) put first inside it. `chart` names it in an error.
pub(crate) fn svg(
    chart: &str,
    size: (u32, u32),
    title: &str,
    desc: &[String],
    draw: impl FnOnce(&Area<'_>) -> Result<(), String>,
) -> Result<String> {
    let failed = |reason: String| ResearchError::ChartDraw {
        chart: chart.into(),
        reason,
    };
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, size).into_drawing_area();
        root.fill(&WHITE).map_err(|e| failed(e.to_string()))?;
        draw(&root).map_err(failed)?;
        root.present().map_err(|e| failed(e.to_string()))?;
    }
    // After the opening tag: the first '>' of the document closes `<svg ...>`.
    let Some(end) = out.find('>') else {
        return Err(failed("the SVG backend wrote no <svg> element".into()).into());
    };
    let text = format!(
        "\n<title>{}</title>\n<desc>\n{}\n</desc>",
        escape(title),
        desc.iter()
            .map(|l| escape(l))
            .collect::<Vec<_>>()
            .join("\n")
    );
    out.insert_str(end + 1, &text);
    Ok(out)
}

/// A drawing library's error as a sentence.
pub(crate) fn why<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// Text made safe inside an XML element.
pub(crate) fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A whole-number axis label: the tick itself where it is a whole number, else nothing.
pub(crate) fn whole(x: &f64) -> String {
    if (x - x.round()).abs() < 1e-6 {
        format!("{}", x.round() as i64)
    } else {
        String::new()
    }
}

/// A count as an axis label: exact below 10,000, else three figures (`12.3k`, `4.56M`).
pub(crate) fn count(n: &u64) -> String {
    if *n == 0 {
        "0".into()
    } else {
        crate::apps::research::depth::short(*n)
    }
}

/// A legend box of `color` at a legend entry's point.
pub(crate) fn swatch(color: RGBColor) -> impl Fn((i32, i32)) -> Rectangle<(i32, i32)> {
    move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled())
}
