//! `retrodb demo`: the built-in example, built and probed, so a new user sees the whole path.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use retrodb::games::{AnyGame, Input};
use retrodb::table::{self, BuildOptions, Table};

/// Seed 001's worked example: 12 vertices, 14 edges, a cycle through 0, 1 and 2.
const SEED001: &[u8] = include_bytes!("../../data/seed001.txt");

#[derive(clap::Args)]
pub struct Args {
    /// Where to write the example's table.
    #[arg(short, long, default_value = "seed001.rdb")]
    output: PathBuf,
}

pub fn run(a: Args) -> Result<ExitCode> {
    let game = AnyGame::load(
        "digraph:data/seed001.txt",
        Input::Embedded(SEED001),
        u64::MAX,
    )?;
    println!("building the table of the token game on seed 001's digraph (data/seed001.txt)");
    let opts = BuildOptions {
        remoteness: true,
        ..BuildOptions::default()
    };
    let summary = table::build(&game, &a.output, &opts)?;
    super::build::print_summary(&summary, None);
    let t = Table::open(&a.output)?;
    t.verify_checksums()?;
    println!("\nvertex  value  remoteness  moves (value for the opponent)");
    for v in 0..t.header().size {
        if t.value(v)?.is_none() {
            continue;
        }
        let p = t.probe(v)?;
        let moves: Vec<String> = p
            .moves
            .iter()
            .map(|m| format!("{}:{}", m.name, m.value))
            .collect();
        println!(
            "{:>6}  {:<5}  {:>10}  {}",
            p.position,
            p.value.as_str(),
            p.remoteness.map_or("-".to_string(), |r| r.to_string()),
            moves.join(" ")
        );
    }
    println!(
        "\nnext: retrodb probe {} 4 --json, retrodb info {}, retrodb verify {}",
        a.output.display(),
        a.output.display(),
        a.output.display()
    );
    Ok(ExitCode::SUCCESS)
}
