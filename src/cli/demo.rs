//! `retrodb demo`: the built-in examples, built and probed, so a new user sees the whole path —
//! a game with cycles and draws, then a board game built, compressed and asked for its best moves.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use retrodb::Value;
use retrodb::build::{self, BuildOptions};
use retrodb::games::{AnyGame, Input, PictureStyle};
use retrodb::table::{self, Table, zstd::Params};

/// Seed 001's worked example: 12 vertices, 14 edges, a cycle through 0, 1 and 2.
const SEED001: &[u8] = include_bytes!("../../data/seed001.txt");

#[derive(clap::Args)]
pub struct Args {
    /// Where to write the examples' tables.
    #[arg(short, long, default_value = "retrodb-demo")]
    dir: PathBuf,
}

pub fn run(a: Args) -> Result<ExitCode> {
    std::fs::create_dir_all(&a.dir).map_err(|e| anyhow::anyhow!("{}: {e}", a.dir.display()))?;
    digraph(&a)?;
    bridgit(&a)?;
    outln!(
        "\nnext: retrodb probe {0}/seed001.rdb 4 --json; retrodb info {0}/bridgit-3.rdb; retrodb verify {0}/bridgit-3.rdb",
        a.dir.display()
    )?;
    Ok(ExitCode::SUCCESS)
}

/// The token game on seed 001's digraph: every vertex's value, remoteness and moves.
fn digraph(a: &Args) -> Result<()> {
    let out = a.dir.join("seed001.rdb");
    let game = AnyGame::load(
        "digraph:data/seed001.txt",
        Input::Embedded(SEED001),
        u64::MAX,
    )?;
    outln!("1. the token game on seed 001's digraph (data/seed001.txt): cycles, so draws exist")?;
    let opts = BuildOptions {
        remoteness: true,
        ..BuildOptions::default()
    };
    let summary = build::build(&game, &out, &opts)?;
    super::build::print_summary(&summary, None)?;
    let t = Table::open(&out)?;
    t.verify_checksums()?;
    outln!("\nvertex  value  remoteness  moves (value for the opponent)")?;
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
        outln!(
            "{:>6}  {:<5}  {:>10}  {}",
            p.position,
            p.value.as_str(),
            p.remoteness.map_or("-".to_string(), |r| r.to_string()),
            moves.join(" ")
        )?;
    }
    Ok(())
}

/// Bridg-It on the size-3 board: every position solved, compressed, and the empty board probed.
fn bridgit(a: &Args) -> Result<()> {
    let out = a.dir.join("bridgit-3.rdb");
    let raw = a.dir.join(".bridgit-3.raw.rdb");
    outln!(
        "\n2. Bridg-It on the size-3 board (13 bridge sites, both players to move: 3,188,646 positions)"
    )?;
    let game = AnyGame::open("bridgit:3", retrodb::memory::default_limit())?;
    let summary = build::build(&game, &raw, &BuildOptions::default())?;
    let [_, win, loss, _] = summary.counts;
    outln!(
        "solved in {:.2} s with {} threads: {} win, {} loss, raw table {}",
        summary.solve_seconds,
        rayon::current_num_threads(),
        super::grouped(win),
        super::grouped(loss),
        retrodb::error::human_bytes(summary.file_bytes)
    )?;
    let hidden = indicatif::ProgressBar::hidden();
    let bytes = table::compress(&Table::open(&raw)?, &out, Params::default(), &hidden)?;
    std::fs::remove_file(&raw)?;
    outln!(
        "compressed to {} ({:.3} bits per position): {}",
        retrodb::error::human_bytes(bytes),
        bytes as f64 * 8.0 / summary.positions as f64,
        out.display()
    )?;
    let t = Table::open(&out)?;
    let p = t.probe_text(".............")?;
    let winning: Vec<u64> = retrodb::with_game!(t.game(), g => retrodb::Game::moves(g, p.index))
        .into_iter()
        .zip(&p.moves)
        .filter(|(_, m)| m.value == Value::Loss)
        .map(|(m, _)| m.child)
        .collect();
    outln!(
        "\nthe empty board, Left (blue) to move: {} — {} of {} first moves win (marked):",
        p.value,
        winning.len(),
        p.moves.len()
    )?;
    let style = if std::io::stdout().is_terminal() {
        PictureStyle::Colour
    } else {
        PictureStyle::Plain
    };
    if let Some(pic) = t.game().picture(p.index, &winning, style) {
        outln!("{pic}")?;
    }
    Ok(())
}
