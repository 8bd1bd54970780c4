//! `retrodb probe FILE POSITION...`: values from a table, one answer per position.

use std::io::{BufRead, BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use retrodb::games::PictureStyle;
use retrodb::table::{Probe, Table};
use retrodb::{Game, Value};

#[derive(clap::Args)]
pub struct Args {
    /// The table file.
    table: PathBuf,
    /// Positions in the game's notation; '-' reads them from stdin, one a line.
    #[arg(required = true)]
    positions: Vec<String>,
    /// One JSON object a line.
    #[arg(long)]
    json: bool,
    /// After each answer, draw the position (board and graph games) with the winning moves
    /// marked.
    #[arg(long)]
    show: bool,
}

pub fn run(a: Args) -> Result<ExitCode> {
    let table = Table::open(&a.table)?;
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut failed = false;
    let mut answer = |text: &str, out: &mut dyn Write| -> Result<()> {
        match table.probe_text(text) {
            Ok(p) => {
                if a.json {
                    writeln!(out, "{}", serde_json::to_string(&p)?)?;
                } else {
                    write_probe(out, &p)?;
                }
                if a.show {
                    write_picture(out, &table, &p)?;
                }
            }
            Err(e) => {
                out.flush()?;
                eprintln!("retrodb: {e}");
                failed = true;
            }
        }
        Ok(())
    };
    for pos in &a.positions {
        if pos == "-" {
            for line in std::io::stdin().lock().lines() {
                let line = line?;
                if !line.trim().is_empty() {
                    answer(line.trim(), &mut out)?;
                }
            }
        } else {
            answer(pos, &mut out)?;
        }
    }
    out.flush()?;
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The game's picture of the probed position, its winning moves (children lost for their
/// mover) marked; nothing for games without pictures.
fn write_picture(out: &mut dyn Write, table: &Table, p: &Probe) -> Result<()> {
    let children: Vec<u64> = retrodb::with_game!(table.game(), g => g.moves(p.index).into_iter().map(|m| m.child).collect());
    let winning: Vec<u64> = children
        .into_iter()
        .zip(&p.moves)
        .filter(|(_, m)| m.value == Value::Loss)
        .map(|(c, _)| c)
        .collect();
    let style = if std::io::stdout().is_terminal() {
        PictureStyle::Colour
    } else {
        PictureStyle::Plain
    };
    if let Some(pic) = table.game().picture(p.index, &winning, style) {
        writeln!(out, "{pic}")?;
    }
    Ok(())
}

/// `4  win in 1` and the moves, the ones that keep the value marked with `*`.
fn write_probe(out: &mut dyn Write, p: &Probe) -> std::io::Result<()> {
    let rem = |r: Option<u32>| r.map_or(String::new(), |r| format!(" in {r}"));
    writeln!(out, "{}\t{}{}", p.position, p.value, rem(p.remoteness))?;
    for m in &p.moves {
        // A move keeps the mover's value when the child's value for its own mover is the flip.
        let best = m.value == p.value.flip() || (p.value == Value::Loss);
        writeln!(
            out,
            "  {} {} -> {}\t{} for the opponent{}",
            if best { '*' } else { ' ' },
            m.name,
            m.position,
            m.value,
            rem(m.remoteness)
        )?;
    }
    Ok(())
}
