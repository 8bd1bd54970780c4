//! The JSON reports a chart is drawn from (`retrodb research chart`): what each file is, read
//! by its fields, and the chart of them all.
//!
//! - `research tiers --json`: one table by tier, the tiers chart;
//! - `research bridgit --json` (complete or sampled): a board size each, the shares chart;
//! - `sweep shannon-vertex --json` (or a file of its `rows`): vertices, the census chart.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value as Json;

use super::census::CensusRow;
use super::shares::{Share, SizeShares};
use super::tiers::TierChart;
use crate::apps::error::{ResearchError, Result};
use crate::apps::research::report::{Population, exact_shares};

/// A chart drawn from reports: what it is, and its SVG.
#[derive(Clone, Debug)]
pub struct Chart {
    /// `tiers`, `shares` or `census`.
    pub kind: &'static str,
    pub svg: String,
}

/// What one file holds.
enum Input {
    Tiers(TierChart),
    Shares(SizeShares),
    Census(Vec<CensusRow>),
}

impl Input {
    fn kind(&self) -> &'static str {
        match self {
            Input::Tiers(_) => "tiers",
            Input::Shares(_) => "shares",
            Input::Census(_) => "census",
        }
    }
}

/// The chart of `files`: the tiers of one table, the shares of Bridg-It reports by size (of the
/// population `population`, the shares `names`), or the census' rows by vertices. Files of two
/// kinds, two reports of one size or two rows of one number of vertices are refused, naming
/// both files. Each file is read as [`crate::base::inputs`] reads (a device refused, a FIFO's
/// wait told to `progress`, at most [`crate::base::inputs::MAX_REPORT`] bytes).
pub fn from_files(
    paths: &[&Path],
    population: &str,
    names: &[String],
    progress: &dyn crate::base::progress::Progress,
) -> Result<Chart> {
    let mut read: Vec<(String, Input)> = Vec::new();
    for path in paths {
        let name = path.display().to_string();
        let input = read_input(path, population, names, progress)?;
        if let Some((first, other)) = read.first()
            && other.kind() != input.kind()
        {
            return Err(clash(first, &name, "one chart draws reports of one kind"));
        }
        read.push((name, input));
    }
    let Some((first, _)) = read.first() else {
        return Err(ResearchError::ChartInput {
            path: "(none)".into(),
            reason: "no report given".into(),
        }
        .into());
    };
    match &read[0].1 {
        Input::Tiers(t) => {
            if let Some((second, _)) = read.get(1) {
                return Err(clash(first, second, "a tiers chart draws one table"));
            }
            let svg = super::tiers::svg(t)?;
            Ok(Chart { kind: "tiers", svg })
        }
        Input::Shares(_) => {
            let mut sizes: BTreeMap<u32, (String, SizeShares)> = BTreeMap::new();
            for (name, input) in read {
                let Input::Shares(s) = input else { continue };
                if let Some((earlier, _)) = sizes.get(&s.size) {
                    let why = format!("two reports of size {}", s.size);
                    return Err(clash(earlier, &name, &why));
                }
                sizes.insert(s.size, (name, s));
            }
            let sizes: Vec<SizeShares> = sizes.into_values().map(|(_, s)| s).collect();
            let svg = super::shares::svg(population, names, &sizes)?;
            Ok(Chart {
                kind: "shares",
                svg,
            })
        }
        Input::Census(_) => {
            let mut rows: BTreeMap<u32, (String, CensusRow)> = BTreeMap::new();
            for (name, input) in read {
                let Input::Census(r) = input else { continue };
                for row in r {
                    if let Some((earlier, _)) = rows.get(&row.vertices) {
                        let why = format!("two rows of {} vertices", row.vertices);
                        return Err(clash(earlier, &name, &why));
                    }
                    rows.insert(row.vertices, (name.clone(), row));
                }
            }
            let rows: Vec<CensusRow> = rows.into_values().map(|(_, r)| r).collect();
            let svg = super::census::svg(&rows)?;
            Ok(Chart {
                kind: "census",
                svg,
            })
        }
    }
}

fn clash(first: &str, second: &str, reason: &str) -> crate::apps::error::AppError {
    ResearchError::ChartClash {
        first: first.into(),
        second: second.into(),
        reason: reason.into(),
    }
    .into()
}

/// Reads one file and tells what it is by its fields.
fn read_input(
    path: &Path,
    population: &str,
    names: &[String],
    progress: &dyn crate::base::progress::Progress,
) -> Result<Input> {
    use crate::base::inputs;
    let bad = |reason: String| ResearchError::ChartInput {
        path: path.display().to_string(),
        reason,
    };
    let (_, bytes) = inputs::read_whole(path, inputs::MAX_REPORT, progress)?;
    let text = String::from_utf8(bytes).map_err(|_| bad("not UTF-8 text".into()))?;
    let json: Json = serde_json::from_str(&text).map_err(|e| bad(format!("not JSON: {e}")))?;
    let field = |name: &str| json.get(name).filter(|v| !v.is_null());
    let parse = |what: &str, e: serde_json::Error| bad(format!("a {what} report, but {e}"));
    if field("tiers").is_some() && field("tier_meaning").is_some() {
        let t: TierChart =
            serde_json::from_value(json.clone()).map_err(|e| parse("research tiers", e))?;
        t.check().map_err(|e| {
            bad(format!(
                "a research tiers report whose counts are wrong: {e}"
            ))
        })?;
        return Ok(Input::Tiers(t));
    }
    if field("populations").is_some() && field("size").is_some() {
        return shares_of(&json, population, names).map_err(|e| bad(e).into());
    }
    if let Some(rows) = field("rows") {
        let rows = serde_json::from_value(rows.clone()).map_err(|e| parse("census", e))?;
        return Ok(Input::Census(rows));
    }
    Err(bad(
        "not a report research chart draws (research tiers --json, research bridgit --json, \
         sweep shannon-vertex --json)"
            .into(),
    )
    .into())
}

/// The shares `names` of a Bridg-It report's population `population`: a sample's proportions
/// with their intervals, or the complete report's exact figures.
fn shares_of(json: &Json, population: &str, names: &[String]) -> Result<Input, String> {
    let size = json["size"]
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .ok_or("a Bridg-It report without a board size")?;
    let sample = json.get("sample").filter(|s| !s.is_null());
    let (method, found): (String, Vec<Share>) = match sample {
        Some(s) if s["population_name"] == population => {
            let positions = s["positions"].as_u64().unwrap_or(0);
            let method = format!(
                "{} sampled",
                crate::table::builder::report::grouped(positions)
            );
            (method, sampled_shares(s)?)
        }
        _ => {
            let pops = json["populations"].as_array().ok_or("no populations")?;
            let Some(p) = pops.iter().find(|p| p["name"] == population) else {
                return Err(format!(
                    "the report of bridgit:{size} holds no population '{population}'"
                ));
            };
            let p: Population = serde_json::from_value(p.clone())
                .map_err(|e| format!("a research bridgit report, but {e}"))?;
            let exact = exact_shares(&p).into_iter().map(|(name, what, count, of)| {
                let value = if of == 0 {
                    0.0
                } else {
                    count as f64 / of as f64
                };
                Share {
                    name,
                    what,
                    count,
                    of,
                    value,
                    low: value,
                    high: value,
                }
            });
            ("every position".into(), exact.collect())
        }
    };
    let mut shares = Vec::new();
    for name in names {
        match found.iter().find(|s| &s.name == name) {
            Some(s) => shares.push(s.clone()),
            None => {
                return Err(format!(
                    "the report of bridgit:{size} has no share '{name}'"
                ));
            }
        }
    }
    Ok(Input::Shares(SizeShares {
        size,
        method,
        shares,
    }))
}

/// A sample's proportions, each with its interval (a share of nothing is left out).
fn sampled_shares(s: &Json) -> Result<Vec<Share>, String> {
    let list = s["proportions"]
        .as_array()
        .ok_or("a sample without proportions")?;
    let mut out = Vec::new();
    for p in list {
        let (Some(name), Some(count), Some(of)) =
            (p["name"].as_str(), p["count"].as_u64(), p["of"].as_u64())
        else {
            return Err("a proportion without its name, count or total".into());
        };
        let share = &p["share"];
        let (Some(value), Some(low), Some(high)) = (
            share["value"].as_f64(),
            share["low"].as_f64(),
            share["high"].as_f64(),
        ) else {
            continue;
        };
        out.push(Share {
            name: name.into(),
            what: p["what"].as_str().unwrap_or("").into(),
            count,
            of,
            value,
            low,
            high,
        });
    }
    Ok(out)
}
