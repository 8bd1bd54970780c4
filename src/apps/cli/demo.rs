//! `retrodb demo`: the built-in examples, built and probed, so a new user sees the whole path —
//! a game with cycles and draws, then a board game built, compressed and asked for its best moves.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::Value;
use crate::games::{AnyGame, Input, PictureStyle};
use crate::table::builder::{self, BuildOptions};
use crate::table::{self, ProbeMove, Table, zstd::Params};
use anyhow::Result;

/// Seed 001's worked example: 12 vertices, 14 edges, a cycle through 0, 1 and 2.
const SEED001: &[u8] = include_bytes!("../../../data/seed001.txt");

#[derive(clap::Args)]
pub struct Args {
    /// Where to write the examples' tables.
    #[arg(short, long, default_value = "retrodb-demo")]
    dir: PathBuf,
}

pub fn run(a: Args) -> Result<ExitCode> {
    crate::table::output_dir(&a.dir)?;
    digraph(&a)?;
    bridgit(&a)?;
    outln!(
        "\nnext: retrodb probe {0}/seed001.rdb 4 --json; retrodb info {0}/bridgit-3.rdb; retrodb verify {0}/bridgit-3.rdb",
        a.dir.display()
    )?;
    Ok(ExitCode::SUCCESS)
}

/// A move's result for the player making it: `wins in 3`, `draws` (the same words as `probe`).
fn move_text(m: &ProbeMove) -> String {
    m.result.in_words(m.plies)
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
        progress: Some(std::sync::Arc::new(super::Notes)),
        ..BuildOptions::default()
    };
    let summary = builder::build(&game, &out, &opts)?;
    super::build::print_summary(&summary, None)?;
    let t = Table::open(&out)?;
    t.verify_checksums()?;
    outln!(
        "\nEach value is for the player who moves the token; \"in N\" counts the moves (plies) to \
         the end with best play."
    )?;
    outln!("{:>6}  {:<12}  its moves, best first", "vertex", "to move")?;
    for v in 0..t.header().size {
        if t.value(v)?.is_none() {
            continue;
        }
        let mut p = t.probe(v)?;
        p.sort_moves_best_first();
        let moves: Vec<String> = p
            .moves
            .iter()
            .map(|m| format!("to {} {}", m.name, move_text(m)))
            .collect();
        outln!(
            "{:>6}  {:<12}  {}",
            p.position,
            p.value.in_words(p.remoteness),
            if moves.is_empty() {
                "none: the player to move is stuck".to_string()
            } else {
                moves.join(", ")
            }
        )?;
    }
    Ok(())
}

/// Bridg-It on the size-3 board: every position solved with remoteness, compressed, and the
/// empty board probed.
fn bridgit(a: &Args) -> Result<()> {
    let out = a.dir.join("bridgit-3.rdb");
    let raw = a.dir.join(".bridgit-3.raw.rdb");
    outln!(
        "\n2. Bridg-It on the size-3 board (13 bridge sites, both players to move: 3,188,646 positions)"
    )?;
    let game = AnyGame::open("bridgit:3", crate::base::memory::default_limit())?;
    let opts = BuildOptions {
        remoteness: true,
        progress: Some(std::sync::Arc::new(super::Notes)),
        ..BuildOptions::default()
    };
    let summary = builder::build(&game, &raw, &opts)?;
    let [_, win, loss, _] = summary.counts;
    outln!(
        "solved with remoteness in {} with {} threads: {} win, {} loss, raw table {}",
        super::duration(summary.solve_seconds),
        rayon::current_num_threads(),
        super::grouped(win),
        super::grouped(loss),
        crate::base::error::human_bytes(summary.file_bytes)
    )?;
    let bytes = table::compress(&Table::open(&raw)?, &out, Params::default(), &super::Notes)?;
    std::fs::remove_file(&raw)?;
    outln!(
        "compressed to {} ({:.3} bits per position): {}",
        crate::base::error::human_bytes(bytes),
        bytes as f64 * 8.0 / summary.positions as f64,
        out.display()
    )?;
    let t = Table::open(&out)?;
    let mut p = t.probe_text(".............")?;
    let winning: Vec<u64> = crate::with_game!(t.game(), g => crate::Notation::moves(g, p.index))
        .into_iter()
        .zip(&p.moves)
        .filter(|(_, m)| m.value == Value::Loss)
        .map(|(m, _)| m.child)
        .collect();
    outln!(
        "\nthe empty board: Left (blue), to move, {} — {} of {} first moves win (marked):",
        p.value.in_words(p.remoteness),
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
    p.sort_moves_best_first();
    let best: Vec<String> = p
        .moves
        .iter()
        .take(4)
        .map(|m| format!("{} {}", m.name, move_text(m)))
        .collect();
    outln!(
        "best first moves for Left: {}{}",
        best.join(", "),
        if p.moves.len() > best.len() {
            ", ..."
        } else {
            ""
        }
    )?;
    Ok(())
}
