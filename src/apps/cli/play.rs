//! `retrodb play GAME`: play a cell game in the terminal against the table or a strategy.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use crate::apps::cache;
use crate::apps::play::{Match, Opponent};
use crate::base::error::cut;
use crate::games::PictureStyle;
use crate::games::cell::Player;
use anyhow::Result;

#[derive(clap::Args)]
pub struct Args {
    /// The game, e.g. bridgit:3, hex:3 or shannon:FILE.
    game: String,
    /// The table to play from, built there (with remoteness) if absent. Default: the table
    /// cache ($RETRODB_CACHE, $XDG_CACHE_HOME/retrodb or ~/.cache/retrodb).
    #[arg(long, value_name = "FILE")]
    table: Option<PathBuf>,
    /// Your side: left (moves first from the empty board) or right.
    #[arg(long = "as", value_name = "SIDE", default_value = "left")]
    side: String,
    /// The computer: table (perfect play), spanning-tree, optional, ranking, ranking-reversed
    /// (the last four on Bridg-It).
    #[arg(long, default_value = "table")]
    opponent: String,
    /// Start from this position instead of the empty board.
    #[arg(long, value_name = "POSITION")]
    from: Option<String>,
}

pub fn run(a: Args) -> Result<ExitCode> {
    let human = match a.side.to_ascii_lowercase().as_str() {
        "left" | "l" => Player::Left,
        "right" | "r" => Player::Right,
        s => anyhow::bail!("--as {}: the side is 'left' or 'right'", cut(s)),
    };
    let opponent = Opponent::parse(&a.opponent)?;
    // Refuse other games before building a table for them.
    let kind = a.game.split_once(':').map_or(a.game.as_str(), |(k, _)| k);
    if !matches!(kind, "bridgit" | "hex" | "shannon" | "shannon-vertex") {
        anyhow::bail!(
            "play: '{}' is not a cell game (bridgit:N, hex:N, shannon:FILE, shannon-vertex:FILE)",
            cut(&a.game)
        );
    }
    let (table, built) = cache::open_or_build(&a.game, a.table.as_deref(), Arc::new(super::Notes))?;
    if built {
        errln!("built {}", table.path().display());
    }
    let style = if std::io::stdout().is_terminal() {
        PictureStyle::Colour
    } else {
        PictureStyle::Plain
    };
    let mut game = Match::new(&table, human, opponent, a.from.as_deref(), style)?;
    let stdin = std::io::stdin();
    let mut out = super::out::Stdout::new();
    game.run(&mut stdin.lock(), &mut out)?;
    std::io::Write::flush(&mut out)?;
    Ok(ExitCode::SUCCESS)
}
