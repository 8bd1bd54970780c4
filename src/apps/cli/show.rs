//! `retrodb show GAME POSITION [--svg FILE]`: a picture of a position, drawn by its game.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use crate::Notation;
use crate::games::cell::values::{ValueOf, value_of};
use crate::games::{self, AnyGame, PictureStyle};
use crate::with_game;
use anyhow::Result;

#[derive(clap::Args)]
pub struct Args {
    /// The game, e.g. bridgit:3, hex:4 or shannon:FILE (no table needed; any board size).
    game: String,
    /// The position in the game's notation (docs/NOTATION.md), e.g. '.L.R..../L'.
    position: String,
    /// Also write the picture as SVG to this file (cell games: Bridg-It, Hex, Shannon graphs).
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// The free moves a finished cell board is worth to its winner, for the value.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    free_moves: u32,
    /// Leave out the value (computing it visits every position below, at most 2,000,000).
    #[arg(long)]
    no_value: bool,
}

/// Positions visited at most for the value.
const VALUE_LIMIT: usize = crate::table::lookup::VALUE_LIMIT;

pub fn run(a: Args) -> Result<ExitCode> {
    // Taken first, so that an output that cannot be written (a device, a FIFO, a missing
    // directory) is refused before anything is printed.
    let svg_out = match &a.svg {
        Some(path) => {
            // The game's input file (`shannon:g.txt`, with or without a suffix) is not written.
            let arg = a.game.split_once(':').map_or("", |(_, arg)| arg);
            let file = arg.split(',').next().unwrap_or(arg);
            let inputs = [std::path::Path::new(arg), std::path::Path::new(file)];
            crate::table::check_output(path, &inputs)?;
            Some(crate::table::OutputFile::create(path, &super::Notes)?)
        }
        None => None,
    };
    let style = if std::io::stdout().is_terminal() {
        PictureStyle::Colour
    } else {
        PictureStyle::Plain
    };
    out!(
        "{}",
        games::picture(&a.game, &a.position, style, &super::Notes)?
    )?;
    if !a.no_value {
        outln!("{}", value_line(&a)?)?;
    }
    if let (Some(mut file), Some(path)) = (svg_out, &a.svg) {
        let svg = games::picture(&a.game, &a.position, PictureStyle::Svg, &super::Notes)?;
        file.write_all(svg.as_bytes())
            .map_err(|e| crate::Error::io(file.temp_path(), e))?;
        file.commit()?;
        outln!("wrote {}", path.display())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `value: TEXT` for games with values, or why there is none.
fn value_line(a: &Args) -> Result<String> {
    let game =
        match AnyGame::open_with(&a.game, crate::base::memory::default_limit(), &super::Notes) {
            Ok(g) => g,
            Err(e) => return Ok(format!("value: not computed ({e})")),
        };
    let pos = with_game!(&game, g => g.parse_position(&a.position))?;
    Ok(match value_of(&game, pos, a.free_moves, VALUE_LIMIT) {
        ValueOf::Value(v) => format!(
            "value: {v}{}",
            match game.cell_game() {
                Some(_) => format!(" (a finished board worth {} to its winner)", a.free_moves),
                None => String::new(),
            }
        ),
        ValueOf::NoValues => "value: none (game values are defined for cell games' full tables \
                              and Hackenbush)"
            .to_string(),
        ValueOf::TooLarge(n) => {
            format!("value: not computed (more than {n} positions below this one)")
        }
    })
}
