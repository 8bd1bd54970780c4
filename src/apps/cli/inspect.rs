//! `retrodb info`, `dump` and `verify`: reading a table as a whole.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::base::error::human_bytes;
use crate::table::Table;
use anyhow::Result;

#[derive(clap::Args)]
pub struct InfoArgs {
    /// The table file (raw or compressed).
    table: PathBuf,
    /// One JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
pub struct DumpArgs {
    /// The table file (raw or compressed).
    table: PathBuf,
}

#[derive(clap::Args)]
pub struct VerifyArgs {
    table: PathBuf,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
    /// Check N indices drawn at random against the rules and their children instead of every
    /// index (for tables too large to check whole; the checksums are checked in full either way).
    /// 1 to 1,000,000,000.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=super::MAX_SAMPLE))]
    sample: Option<u64>,
    /// Also compare N random positions with Lehman's criterion (tables of Shannon edge games:
    /// shannon: and bridgit:), 1 to 1,000,000,000.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=super::MAX_SAMPLE))]
    lehman: Option<u64>,
    /// Also compare the positions of another table of the same board (e.g. a `,start=L,sym`
    /// table against a `,sym` one): --against-sample N of its positions drawn at random, each
    /// looked up here by its text; any disagreement fails.
    #[arg(long, value_name = "TABLE")]
    against: Option<PathBuf>,
    /// How many positions --against draws, 1 to 1,000,000,000.
    #[arg(long, value_name = "N", default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..=super::MAX_SAMPLE))]
    against_sample: u64,
    /// Seed of the random draws of --sample, --lehman and --against.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

pub fn info(a: InfoArgs) -> Result<ExitCode> {
    let t = Table::open(&a.table)?;
    let h = t.header();
    let i = t.info();
    if a.json {
        // Through a `Value`: its keys come out sorted, as they always have.
        outln!("{}", serde_json::to_value(&i)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    let (used, win, loss, draw, bits, file_bytes) = (
        i.positions,
        i.win,
        i.loss,
        i.draw,
        i.bits_per_position,
        i.file_bytes,
    );
    let pct = |n: u64| {
        if used > 0 {
            100.0 * n as f64 / used as f64
        } else {
            0.0
        }
    };
    use super::grouped;
    outln!("table      {}", a.table.display())?;
    outln!("game       {}", h.spec)?;
    let encoding = if t.is_compressed() {
        format!(
            "zstd frames of {} positions (level {}){}{}",
            grouped(h.frame_positions),
            h.level,
            if h.encoding == crate::table::format::Encoding::ZstdOmitted {
                ", one mover stored"
            } else {
                ""
            },
            match (h.dictionary.len, h.remoteness_dictionary.len) {
                (0, 0) => String::new(),
                (d, 0) => format!(", a {} dictionary", human_bytes(d)),
                (0, r) => format!(", a {} dictionary for the remoteness", human_bytes(r)),
                (d, r) => format!(
                    ", a {} dictionary, a {} one for the remoteness",
                    human_bytes(d),
                    human_bytes(r)
                ),
            }
        )
    } else {
        "raw 2-bit cells".to_string()
    };
    outln!(
        "format     version {}, {encoding}{}",
        h.version,
        match h.remoteness_encoding {
            crate::table::format::RemotenessEncoding::None => String::new(),
            e => format!(", {e}"),
        }
    )?;
    outln!(
        "positions  {} of {} indices",
        grouped(used),
        grouped(h.size)
    )?;
    outln!("win        {} ({:.2}%)", grouped(win), pct(win))?;
    outln!("loss       {} ({:.2}%)", grouped(loss), pct(loss))?;
    outln!("draw       {} ({:.2}%)", grouped(draw), pct(draw))?;
    match h.rounds {
        Some(r) => outln!("rounds     {r}")?,
        None => outln!("rounds     not recorded (a values-only build)")?,
    }
    if let Some(g) = &i.grundy {
        outln!(
            "grundy     generalized Sprague-Grundy values: largest finite {}, {} reach sets, {} \
             byte(s) a position",
            g.largest_finite
                .map_or("none".to_string(), |l| l.to_string()),
            grouped(g.reach_sets),
            g.bytes_per_value
        )?;
    }
    outln!(
        "file       {} ({bits:.3} bits per position)",
        human_bytes(file_bytes)
    )?;
    if let Some(name) = &i.source_file {
        outln!("input      {name} ({} in the table)", i.source)?;
    }
    Ok(ExitCode::SUCCESS)
}

pub fn dump(a: DumpArgs) -> Result<ExitCode> {
    let t = Table::open(&a.table)?;
    let mut out = super::out::Stdout::new();
    // A closed pipe (`dump | head`) ends it quietly, in `main`, as every other write error of
    // stdout is told there.
    t.dump(&mut out)?;
    std::io::Write::flush(&mut out)?;
    Ok(ExitCode::SUCCESS)
}

/// Prints a sample's examples of disagreement; whether there were none.
fn examples_agree(r: &crate::apps::oracle::check::LehmanReport) -> Result<bool> {
    for e in &r.examples {
        outln!("  {e}")?;
    }
    Ok(r.disagreements == 0)
}

pub fn verify(a: VerifyArgs) -> Result<ExitCode> {
    let t = Table::open(&a.table)?;
    let bar = super::StageBar::new(a.quiet);
    t.verify_checksums_with(&bar)?;
    let checked = match a.sample {
        Some(n) => {
            // Random indices and their children: no read-ahead (the checksums above read it
            // front to back with it).
            t.advise_random();
            t.verify_sample(n, a.seed, &bar)?
        }
        None => t.verify_positions(&bar)?,
    };
    drop(bar);
    let what = match a.sample {
        Some(_) => format!(
            "{} indices drawn at random (seed {}) agree",
            super::grouped(checked),
            a.seed
        ),
        None => format!("all {} indices agree", super::grouped(checked)),
    };
    outln!(
        "{}: ok — checksums match and {what} with the rules and their children{}",
        a.table.display(),
        if t.has_remoteness() && a.sample.is_none() {
            " (values and remoteness: a complete proof of the table)"
        } else {
            ""
        }
    )?;
    if let Some(n) = a.lehman {
        let r = crate::apps::oracle::check::lehman_sample(&t, n, a.seed)?;
        outln!(
            "{}: {} random positions compared with Lehman's criterion (seed {}): {} disagreements",
            a.table.display(),
            super::grouped(r.checked),
            a.seed,
            super::grouped(r.disagreements)
        )?;
        if !examples_agree(&r)? {
            return Ok(ExitCode::FAILURE);
        }
    }
    if let Some(other) = &a.against {
        let o = Table::open(other)?;
        o.advise_random();
        let r = crate::apps::oracle::check::tables_sample(&t, &o, a.against_sample, a.seed)?;
        outln!(
            "{}: {} random positions of {} ({}) compared (seed {}): {} disagreements",
            a.table.display(),
            super::grouped(r.checked),
            other.display(),
            o.header().spec,
            a.seed,
            super::grouped(r.disagreements)
        )?;
        if !examples_agree(&r)? {
            return Ok(ExitCode::FAILURE);
        }
    }
    Ok(ExitCode::SUCCESS)
}
