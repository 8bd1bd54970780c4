//! `retrodb values GAME`: the value of every configuration of a cell game as a canonical game,
//! with how long it took, the memory it used, and how many distinct values each tier holds.

use std::process::ExitCode;
use std::time::Instant;

use crate::Game;
use crate::base::error::human_bytes;
use crate::game::Tiered;
use crate::games::AnyGame;
use crate::games::cell::values::{MAX_CELLS, board_values, tier_census};
use anyhow::{Result, bail};

#[derive(clap::Args)]
pub struct Args {
    /// A cell game with its full table: bridgit:N, hex:N, shannon:FILE, shannon-vertex:FILE
    /// (at most 20 cells).
    game: String,
    /// The free moves a finished board is worth to its winner (the value of a won board is C
    /// for Left, -C for Right).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    free_moves: u32,
    /// Refuse games whose values would need more memory than this (e.g. 8G; default: 80% of
    /// the memory available).
    #[arg(long, value_name = "SIZE", value_parser = crate::base::memory::parse_size)]
    max_memory: Option<u64>,
    /// The figures as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<ExitCode> {
    let limit = a
        .max_memory
        .unwrap_or_else(crate::base::memory::default_limit);
    let game = AnyGame::open_with(&a.game, limit, &super::Notes)?;
    let Some(cell) = game.cell_game() else {
        bail!(
            "values {}: only cell games (bridgit, hex, shannon, shannon-vertex) have board values",
            a.game
        );
    };
    let Some(board) = cell.board_shape().and_then(|b| b.plain()) else {
        let plain = crate::games::cell::plain_spec(&a.game);
        let dropped = &a.game[plain.len()..];
        bail!(
            "values {}: the values need every configuration of the board in its plain index; \
             drop '{dropped}' from the spec: {plain}",
            a.game
        );
    };
    if board.cells > MAX_CELLS {
        bail!(
            "values {}: {} cells, 3^{} configurations; at most {MAX_CELLS} cells are supported",
            a.game,
            board.cells,
            board.cells
        );
    }
    let configurations = 3u64.pow(board.cells);
    // The values and their atomic working copy (4 bytes each), and the census's walk.
    crate::base::memory::check(
        format!("the values of {}", a.game),
        configurations * 8,
        limit,
    )?;
    let threads = rayon::current_num_threads();
    let start = Instant::now();
    let v = board_values(&board, a.free_moves)?;
    let seconds = start.elapsed().as_secs_f64();
    let peak = crate::base::memory::peak_rss();
    let start = Instant::now();
    let tiers = tier_census(&board, &v);
    let census_seconds = start.elapsed().as_secs_f64();
    let mut seen = vec![false; v.games.len()];
    for g in &v.values {
        seen[g.index()] = true;
    }
    let distinct = seen.iter().filter(|&&b| b).count();
    let empty = v.games.show(v.values[0]);
    if a.json {
        let j = serde_json::json!({
            "game": cell.spec(),
            "cells": board.cells,
            "configurations": configurations,
            "free_moves": a.free_moves,
            "threads": threads,
            "seconds": seconds,
            "peak_rss_bytes": peak,
            "distinct_values": distinct,
            "arena_games": v.games.len(),
            "option_lists": v.option_lists,
            "empty_board_value": empty,
            "census_seconds": census_seconds,
            "tiers": tiers,
        });
        outln!("{}", serde_json::to_string_pretty(&j)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    outln!(
        "{}: {} configurations, a finished board worth C = {} to its winner",
        cell.spec(),
        super::grouped(configurations),
        a.free_moves
    )?;
    outln!(
        "values in {seconds:.3} s with {threads} thread(s){}",
        peak.map_or(String::new(), |p| format!(
            ", peak memory {}",
            human_bytes(p)
        ))
    )?;
    outln!(
        "{distinct} distinct values ({} games in the arena, {} option lists made)",
        v.games.len(),
        v.option_lists
    )?;
    outln!("empty board: {empty}")?;
    outln!("\ntier (claimed cells)  configurations  open  distinct values of the open ones")?;
    for t in &tiers {
        outln!(
            "{:>4}  {:>14}  {:>12}  {:>6}",
            t.tier,
            super::grouped(t.configurations),
            super::grouped(t.open),
            t.distinct_open_values
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
