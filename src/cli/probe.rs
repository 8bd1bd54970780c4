//! `retrodb probe FILE POSITION...`: values from a table, one answer per position.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use retrodb::cgt::values::PositionValues;
use retrodb::error::Error;
use retrodb::game::Annotations;
use retrodb::games::PictureStyle;
use retrodb::table::{Probe, Table};
use retrodb::{Game, Value};

#[derive(clap::Args)]
pub struct Args {
    /// The table file.
    table: PathBuf,
    /// Positions in the game's notation; '-' reads them from stdin, one a line. On a digraph
    /// table built with --grundy, a sum of tokens too: vertices joined by '+' (4+9+11).
    #[arg(required = true)]
    positions: Vec<String>,
    /// Read every position as a sum of tokens (a single vertex is a sum of one): its outcome
    /// (first player wins, second player wins, draw) and every winning move (docs/SUMS.md).
    #[arg(long)]
    sum: bool,
    /// One JSON object a line.
    #[arg(long)]
    json: bool,
    /// Also give each position's and move's value as a game (its canonical form in CGSuite's
    /// notation, `game_value`): cell games' full tables (a finished board is worth
    /// --free-moves to its winner) and Hackenbush. Off by default: an early position's value
    /// needs the values of every position below it (at most 2,000,000 are visited; beyond,
    /// the value is left out).
    #[arg(long)]
    value: bool,
    /// The free moves a finished cell board is worth to its winner, for --value.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    free_moves: u32,
    /// After each answer, draw the position (board and graph games) with the winning moves
    /// marked.
    #[arg(long, conflicts_with = "json")]
    show: bool,
}

pub fn run(a: Args) -> Result<ExitCode> {
    let table = Table::open(&a.table)?;
    let mut out = super::out::Stdout::new();
    let mut failed = false;
    // Positions are answered in batches: stdin streams at batch speed.
    const BATCH: usize = 1 << 14;
    let mut batch: Vec<String> = Vec::new();
    let mut reported = std::collections::HashSet::new();
    let mut values = if a.value {
        let v = retrodb::cgt::values::PositionValues::new(table.game(), a.free_moves, VALUE_LIMIT);
        if v.is_none() {
            anyhow::bail!(
                "{} has no game values (they are defined for cell games' full tables and \
                 Hackenbush)",
                table.game().spec()
            );
        }
        v
    } else {
        None
    };
    // Answers a batch; true when a position failed.
    let mut flush = |batch: &mut Vec<String>, out: &mut super::out::Stdout| -> Result<bool> {
        let mut failed = false;
        for mut r in table.probe_batch(batch) {
            if let (Ok(p), Some(v)) = (&mut r, values.as_mut()) {
                add_values(p, table.game(), v);
            }
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
                    if matches!(e, Error::Table(_)) && !reported.insert(e.to_string()) {
                        continue;
                    }
                    out.flush()?;
                    errln!("retrodb: {e}");
                }
            }
        }
        batch.clear();
        Ok(failed)
    };
    // A sum is answered on its own, after the positions before it.
    let is_sum = |text: &str| a.sum || table.is_sum_text(text);
    let answer_sum = |text: &str, out: &mut super::out::Stdout| -> Result<bool> {
        match table.probe_sum(text) {
            Ok(s) if a.json => writeln!(out, "{}", serde_json::to_string(&s)?)?,
            Ok(s) => write_sum(out, &s)?,
            Err(e) => {
                out.flush()?;
                errln!("retrodb: {e}");
                return Ok(true);
            }
        }
        Ok(false)
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
                    errln!("retrodb: stdin line {line_no}: not UTF-8 text");
                    failed = true;
                    continue;
                };
                let line = line.trim();
                if line.is_empty() {
                    continue;
                }
                if is_sum(line) {
                    failed |= flush(&mut batch, &mut out)?;
                    failed |= answer_sum(line, &mut out)?;
                    continue;
                }
                batch.push(line.to_string());
                if batch.len() == BATCH {
                    failed |= flush(&mut batch, &mut out)?;
                }
            }
        } else if is_sum(pos) {
            failed |= flush(&mut batch, &mut out)?;
            failed |= answer_sum(pos, &mut out)?;
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

/// Positions visited at most for one `--value` answer.
const VALUE_LIMIT: usize = 2_000_000;

/// Sets `game_value` of the position and of each move (where it is within the limit).
fn add_values(p: &mut Probe, game: &retrodb::games::AnyGame, v: &mut PositionValues<'_>) {
    let set = |extra: &mut Annotations, text: Option<String>| {
        extra.0.retain(|(k, _)| k != "game_value");
        if let Some(t) = text {
            extra.push("game_value", t);
        }
    };
    let mut text = |pos: u64| v.value(pos).map(|g| v.games.show(g));
    set(&mut p.extra, text(p.index));
    let children: Vec<u64> =
        retrodb::with_game!(game, g => g.moves(p.index).into_iter().map(|m| m.child).collect());
    for (m, c) in p.moves.iter_mut().zip(children) {
        set(&mut m.extra, text(c));
    }
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

/// `2+9  first player wins  grundy inf{2} + 2 = inf{0}`, then each winning move:
/// `  * token 1: 2 -> 9  9+9` (the sum it leaves, lost for the opponent).
fn write_sum(out: &mut dyn Write, s: &retrodb::table::SumProbe) -> std::io::Result<()> {
    let parts: Vec<String> = s.tokens.iter().map(|t| t.grundy.to_string()).collect();
    writeln!(
        out,
        "{}\t{}\tgrundy {} = {}",
        s.sum,
        s.outcome,
        parts.join(" + "),
        s.grundy
    )?;
    for m in &s.moves {
        writeln!(
            out,
            "  * token {}: {} -> {}\t{}",
            m.token + 1,
            m.from,
            m.to,
            m.sum
        )?;
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
    let grundy = |g: &Option<retrodb::grundy::Grundy>| {
        g.as_ref()
            .map_or(String::new(), |g| format!("\tgrundy={g}"))
    };
    writeln!(
        out,
        "{}\t{}{}{}{}",
        p.position,
        p.value,
        rem(p.remoteness),
        extra(&p.extra),
        grundy(&p.grundy)
    )?;
    if p.stored_image.is_some() {
        writeln!(
            out,
            "  (the table holds the asked position as this symmetric image; its moves follow)"
        )?;
    }
    for m in &p.moves {
        // A move keeps the mover's value when the child's value for its own mover is the flip.
        let best = m.value == p.value.flip() || (p.value == Value::Loss);
        writeln!(
            out,
            "  {} {} -> {}\t{} for the opponent{}{}{}",
            if best { '*' } else { ' ' },
            m.name,
            m.position,
            m.value,
            rem(m.remoteness),
            extra(&m.extra),
            grundy(&m.grundy)
        )?;
    }
    Ok(())
}
