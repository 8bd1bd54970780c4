//! `retrodb probe FILE POSITION...`: values from a table, one answer per position.

use std::io::{BufRead, BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use retrodb::error::Error;
use retrodb::game::Annotations;
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
    #[arg(long, conflicts_with = "json")]
    show: bool,
}

pub fn run(a: Args) -> Result<ExitCode> {
    let table = Table::open(&a.table)?;
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut failed = false;
    // Positions are answered in batches: stdin streams at batch speed.
    const BATCH: usize = 1 << 14;
    let mut batch: Vec<String> = Vec::new();
    let mut reported = std::collections::HashSet::new();
    // Answers a batch; true when a position failed.
    let mut flush = |batch: &mut Vec<String>, out: &mut BufWriter<_>| -> Result<bool> {
        let mut failed = false;
        for r in table.probe_batch(batch) {
            match r {
                Ok(p) if a.json => writeln!(out, "{}", serde_json::to_string(&p)?)?,
                Ok(p) => {
                    write_probe(out, &p)?;
                    if a.show {
                        write_picture(out, &table, &p)?;
                    }
                }
                Err(e) => {
                    failed = true;
                    // A damaged table fails every position in its damaged block alike: its
                    // message is printed once.
                    if matches!(e, Error::Table { .. }) && !reported.insert(e.to_string()) {
                        continue;
                    }
                    out.flush()?;
                    eprintln!("retrodb: {e}");
                }
            }
        }
        batch.clear();
        Ok(failed)
    };
    for pos in &a.positions {
        if pos == "-" {
            let mut input = std::io::stdin().lock();
            let mut bytes = Vec::new();
            let mut line_no = 0u64;
            loop {
                bytes.clear();
                if input.read_until(b'\n', &mut bytes)? == 0 {
                    break;
                }
                line_no += 1;
                let Ok(line) = std::str::from_utf8(&bytes) else {
                    // Answered in order: what came before is written first.
                    flush(&mut batch, &mut out)?;
                    out.flush()?;
                    eprintln!("retrodb: stdin line {line_no}: not UTF-8 text");
                    failed = true;
                    continue;
                };
                if !line.trim().is_empty() {
                    batch.push(line.trim().to_string());
                    if batch.len() == BATCH {
                        failed |= flush(&mut batch, &mut out)?;
                    }
                }
            }
        } else {
            batch.push(pos.clone());
        }
    }
    failed |= flush(&mut batch, &mut out)?;
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

/// `4  win in 1` and the moves, the ones that keep the value marked with `*`; a game's
/// annotations follow as `key=text` pairs.
fn write_probe(out: &mut dyn Write, p: &Probe) -> std::io::Result<()> {
    let rem = |r: Option<u32>| r.map_or(String::new(), |r| format!(" in {r}"));
    let extra = |a: &Annotations| {
        a.0.iter()
            .map(|(k, v)| format!("\t{k}={v}"))
            .collect::<String>()
    };
    writeln!(
        out,
        "{}\t{}{}{}",
        p.position,
        p.value,
        rem(p.remoteness),
        extra(&p.extra)
    )?;
    for m in &p.moves {
        // A move keeps the mover's value when the child's value for its own mover is the flip.
        let best = m.value == p.value.flip() || (p.value == Value::Loss);
        writeln!(
            out,
            "  {} {} -> {}\t{} for the opponent{}{}",
            if best { '*' } else { ' ' },
            m.name,
            m.position,
            m.value,
            rem(m.remoteness),
            extra(&m.extra)
        )?;
    }
    Ok(())
}
