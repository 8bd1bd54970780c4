//! `retrodb show GAME POSITION [--svg FILE]`: a picture of a position, drawn by its game.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use retrodb::games::{self, PictureStyle};

#[derive(clap::Args)]
pub struct Args {
    /// The game, e.g. bridgit:3, hex:4 or shannon:FILE (no table needed; any board size).
    game: String,
    /// The position in the game's notation (docs/NOTATION.md), e.g. '.L.R..../L'.
    position: String,
    /// Also write the picture as SVG to this file (cell games: Bridg-It, Hex, Shannon graphs).
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
}

pub fn run(a: Args) -> Result<ExitCode> {
    let style = if std::io::stdout().is_terminal() {
        PictureStyle::Colour
    } else {
        PictureStyle::Plain
    };
    print!("{}", games::picture(&a.game, &a.position, style)?);
    if let Some(path) = &a.svg {
        let svg = games::picture(&a.game, &a.position, PictureStyle::Svg)?;
        std::fs::write(path, svg)
            .map_err(|e| anyhow::anyhow!("writing the SVG to {}: {e}", path.display()))?;
        println!("wrote {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}
