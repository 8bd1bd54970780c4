//! `retrodb research bridgit --size N [--json]`: the spanning-tree strategies, `b_L`/`b_R` and the
//! option-ranking conjecture checked on every position of Bridg-It against its table.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Result, bail};
use retrodb::research;

#[derive(clap::Args)]
pub struct Args {
    /// What to study; only 'bridgit' so far.
    subject: String,
    /// The board size (2 takes a second, 3 about a minute and a half with a progress bar; 4
    /// would need a table of 2*3^25 positions).
    #[arg(long)]
    size: u32,
    /// The table to use, built there (with remoteness) if the file is absent. Default: a cache
    /// file bridgit_N-remoteness.rdb in $RETRODB_CACHE, $XDG_CACHE_HOME/retrodb or
    /// ~/.cache/retrodb.
    #[arg(long, value_name = "FILE")]
    table: Option<PathBuf>,
    /// Write one SVG picture per counterexample into this directory.
    #[arg(long, value_name = "DIR")]
    svg_dir: Option<PathBuf>,
    /// The conventions tested for the game order: a finished board is worth C free moves to its
    /// winner (comma-separated; the first gives the counterexamples).
    #[arg(long, value_name = "C,...", value_delimiter = ',', default_values_t = research::report::DEFAULT_CONVENTIONS, value_parser = clap::value_parser!(u32).range(1..=64))]
    free_moves: Vec<u32>,
    /// The report as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<ExitCode> {
    if a.subject != "bridgit" {
        bail!("research: unknown subject '{}' (known: bridgit)", a.subject);
    }
    if !(1..=3).contains(&a.size) {
        bail!(
            "research bridgit: --size {} is not supported; the report needs the complete table, \
             which retrodb builds for sizes 1 to 3",
            a.size
        );
    }
    let (table, built) = research::open_or_build(a.size, a.table.as_deref())?;
    if built {
        eprintln!("built {}", table.path().display());
    }
    if !a.json {
        eprintln!(
            "checking every position of bridgit:{} against {}",
            a.size,
            table.path().display()
        );
    }
    let bar = super::progress_bar(false, "researching");
    let report = research::research_with_progress(
        a.size,
        &table,
        &a.free_moves,
        a.svg_dir.as_deref(),
        &bar,
    )?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", research::render_text(&report));
    }
    Ok(ExitCode::SUCCESS)
}
