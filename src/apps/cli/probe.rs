//! `retrodb probe FILE POSITION...`: values from a table, one answer per position.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use crate::Value;
use crate::base::error::Error;
use crate::base::lines::{self, Line};
use crate::game::Annotations;
use crate::games::PictureStyle;
use crate::table::lookup::{Ask, Lookups};
use crate::table::{LineStep, Probe, ProbeMove, Table};
use anyhow::Result;

/// How to read `probe`'s text, for `--help` (docs/NOTATION.md, "Values of moves").
pub const READING: &str = "\
Reading the answer (docs/NOTATION.md, \"Values of moves\"):
  11  wins in 3        the position and its value for the player to move: a win with best
                       play, the game over 3 plies (moves of either player) from now;
                       'draws': neither player can force a win; 'wins'/'loses' without
                       'in N': the table has no remoteness
  * 8 -> 8  wins in 3  (opponent: loses in 2)
                       a move, the position it makes, the move's result for the player
                       making it (its plies count the move), and that position's value for
                       the opponent, who moves there (JSON: result and plies; value and
                       remoteness)
  *                    the move keeps the position's value: a winning move of a won
                       position, a drawing move of a drawn one, any move of a lost one
  best: ...            --best: the best move alone
  line 1. ...          --line: the principal line, a ply a line, written as a move is
  * token 1: 2 -> 9    a sum (--sum, 4+9+11): a winning move of token 1, and the sum it leaves";

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
    /// One JSON object a line. The moves are best first (docs/NOTATION.md, "Moves, best
    /// first"), `best` is the best move. Each move has its `result` and `plies` for the player
    /// making it and the `value` and `remoteness` of the position it makes for the opponent;
    /// `remoteness` and `plies` are null where there are none (docs/NOTATION.md, "Values of
    /// moves").
    #[arg(long)]
    json: bool,
    /// Give the best move only (and its value and remoteness), not every move.
    #[arg(long, conflicts_with = "sum")]
    best: bool,
    /// Also give the principal line: the best move ply after ply to the end of the game (the
    /// winner quickest, the loser slowest), each with its position and remoteness. Needs a
    /// table with remoteness; a draw has none.
    #[arg(long, conflicts_with = "sum")]
    line: bool,
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

/// Answers the sum of tokens `text` (its outcome and every winning move); true when it failed.
fn answer_sum(table: &Table, a: &Args, text: &str, out: &mut super::out::Stdout) -> Result<bool> {
    // What a sum's answer has no room for; refused, not left out without a word.
    let single_only = [
        (a.best, "--best"),
        (a.line, "--line"),
        (a.value, "--value"),
        (a.show, "--show"),
    ]
    .into_iter()
    .find_map(|(given, flag)| given.then_some(flag));
    if let Some(flag) = single_only {
        out.flush()?;
        errln!(
            "retrodb: sum '{}': {flag} applies to single positions; a sum of tokens is \
             answered with its outcome and every winning move",
            crate::base::error::cut(text)
        );
        return Ok(true);
    }
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
}

pub fn run(a: Args) -> Result<ExitCode> {
    let table = Table::open(&a.table)?;
    let mut out = super::out::Stdout::new();
    let mut failed = false;
    // Positions are answered in batches: stdin streams at batch speed.
    const BATCH: usize = 1 << 14;
    let mut batch: Vec<String> = Vec::new();
    let mut reported = std::collections::HashSet::new();
    let ask = Ask {
        line: a.line,
        game_values: a.value.then_some(a.free_moves),
    };
    let mut lookups = Lookups::new(&table, &ask)?;
    // Answers a batch; true when a position failed.
    let mut flush = |batch: &mut Vec<String>, out: &mut super::out::Stdout| -> Result<bool> {
        let mut failed = false;
        // A table changed on disk since it was opened (an operator's `cp` over it) trips its
        // guard here, and every lookup below answers that error (printed once) instead of a
        // value read from the changed file.
        let _ = table.check_unchanged();
        for r in lookups.probe_batch(batch) {
            match r {
                Ok(mut p) if a.json => {
                    if a.best {
                        p.moves.clear();
                        writeln!(out, "{}", best_json(&p)?)?;
                    } else {
                        writeln!(out, "{}", serde_json::to_string(&p)?)?;
                    }
                }
                Ok(p) => {
                    write_probe(out, &p, a.best)?;
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
    let answer_sum = |text: &str, out: &mut super::out::Stdout| answer_sum(&table, &a, text, out);
    for pos in &a.positions {
        if pos == "-" {
            each_stdin_line(|line| {
                match line {
                    StdinLine::Refused(why) => {
                        // Answered in order: what came before is written first.
                        failed |= flush(&mut batch, &mut out)?;
                        out.flush()?;
                        errln!("retrodb: {why}");
                        failed = true;
                    }
                    StdinLine::Text(line) if is_sum(line) => {
                        failed |= flush(&mut batch, &mut out)?;
                        failed |= answer_sum(line, &mut out)?;
                    }
                    StdinLine::Text(line) => {
                        batch.push(line.to_string());
                        if batch.len() == BATCH {
                            failed |= flush(&mut batch, &mut out)?;
                        }
                    }
                }
                Ok(())
            })?;
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

/// A line of stdin for `probe -`: its text (trimmed, not empty), or why it was skipped.
enum StdinLine<'a> {
    Text(&'a str),
    Refused(String),
}

/// Hands every non-empty line of stdin to `each`, in order, or why a line was skipped (longer
/// than [`lines::MAX_LINE`], not UTF-8), until stdin ends.
fn each_stdin_line(mut each: impl FnMut(StdinLine<'_>) -> Result<()>) -> Result<()> {
    let mut input = std::io::stdin().lock();
    let mut bytes = Vec::new();
    let mut line_no = 0u64;
    loop {
        let read = lines::read_capped(&mut input, &mut bytes, lines::MAX_LINE)?;
        line_no += 1;
        if let Line::TooLong { bytes } = read {
            each(StdinLine::Refused(format!(
                "stdin line {line_no}: {bytes} bytes, longer than any position or sum this \
                 command takes ({} at most); skipped",
                crate::base::error::human_bytes(lines::MAX_LINE as u64)
            )))?;
            continue;
        }
        if read == Line::End {
            return Ok(());
        }
        match std::str::from_utf8(&bytes) {
            Err(_) => each(StdinLine::Refused(format!(
                "stdin line {line_no}: not UTF-8 text"
            )))?,
            Ok(line) if line.trim().is_empty() => {}
            Ok(line) => each(StdinLine::Text(line.trim()))?,
        }
    }
}

/// The answer of `--best --json`: the probe's object without `moves` (`best` holds the one).
fn best_json(p: &Probe) -> Result<String> {
    let mut j = serde_json::to_value(p)?;
    if let Some(o) = j.as_object_mut() {
        o.remove("moves");
        o.entry("best").or_insert(serde_json::Value::Null);
    }
    Ok(serde_json::to_string(&j)?)
}

/// The game's picture of the probed position, its winning moves (children lost for their
/// mover) marked; nothing for games without pictures.
fn write_picture(out: &mut dyn Write, table: &Table, p: &Probe) -> Result<()> {
    let winning: Vec<u64> = p
        .moves
        .iter()
        .filter(|m| m.value == Value::Loss)
        .map(|m| m.child)
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
fn write_sum(out: &mut dyn Write, s: &crate::table::SumProbe) -> std::io::Result<()> {
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

/// `4  wins in 1` and the moves best first, each with its result for the player making it and
/// the opponent's value after it, the ones that keep the value marked with `*` (with `best`,
/// only `  best: 6 -> 6  wins in 1  (opponent: loses in 0)`); then the principal line where
/// asked for, a ply a line (`  line 1. 6 -> 6  wins in 1  (opponent: loses in 0)`). A game's
/// annotations follow as `key=text` pairs. The words are [`Value::in_words`]'s, the numbers
/// the JSON's (docs/NOTATION.md, "Values of moves").
fn write_probe(out: &mut dyn Write, p: &Probe, best_only: bool) -> std::io::Result<()> {
    writeln!(
        out,
        "{}\t{}{}{}",
        p.position,
        p.value.in_words(p.remoteness),
        extra(&p.extra),
        grundy(&p.grundy)
    )?;
    if p.stored_image.is_some() {
        writeln!(
            out,
            "  (the table holds the asked position as this symmetric image; its moves follow)"
        )?;
    }
    if best_only {
        if let Some(m) = &p.best {
            writeln!(out, "  best: {}", move_text(m))?;
        }
    } else {
        for m in &p.moves {
            // A move keeps the mover's value when the child's value for its own mover is the flip.
            let keeps = m.value == p.value.flip() || (p.value == Value::Loss);
            writeln!(out, "  {} {}", if keeps { '*' } else { ' ' }, move_text(m))?;
        }
    }
    for (k, step) in p.line.iter().flatten().enumerate() {
        write_step(out, k + 1, step)?;
    }
    Ok(())
}

/// `6 -> 6  wins in 1  (opponent: loses in 0)`: the move, the position it makes, its result for
/// the player making it, the opponent's value there, and the child's annotations.
fn move_text(m: &ProbeMove) -> String {
    format!(
        "{} -> {}\t{}{}{}",
        m.name,
        m.position,
        both_views(m.result, m.plies, m.value, m.remoteness),
        extra(&m.extra),
        grundy(&m.grundy)
    )
}

/// `  line 2. 4 -> 4  loses in 2  (opponent: wins in 1)`: the ply and the move, as a move is
/// written.
fn write_step(out: &mut dyn Write, ply: usize, s: &LineStep) -> std::io::Result<()> {
    let views = both_views(s.result, Some(s.plies), s.value, Some(s.remoteness));
    writeln!(out, "  line {ply}. {} -> {}\t{views}", s.name, s.position)
}

/// A move's result for its player and the opponent's value after it: `wins in 1  (opponent:
/// loses in 0)`.
fn both_views(result: Value, plies: Option<u32>, child: Value, remoteness: Option<u32>) -> String {
    format!(
        "{}\t(opponent: {})",
        result.in_words(plies),
        child.in_words(remoteness)
    )
}

fn extra(a: &Annotations) -> String {
    a.0.iter().map(|(k, v)| format!("\t{k}={v}")).collect()
}

fn grundy(g: &Option<crate::base::grundy::Grundy>) -> String {
    g.as_ref()
        .map_or(String::new(), |g| format!("\tgrundy={g}"))
}
