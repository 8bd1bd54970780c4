//! The `retrodb` command line: flags (clap derive) and the dispatch to one module per
//! subcommand, which calls the library and prints. No game logic lives here.
//!
//! It is a part of the library so that another program can run it: [`main`] (what the
//! `retrodb` binary calls) and [`run_from`] are its only public items. A program that registers
//! its own game family ([`crate::register`]) and then calls [`main`] gets the whole
//! command line (`build`, `probe`, `verify`, `serve`, ...) for its games too.

#[macro_use]
pub(crate) mod out;

mod bench;
mod build;
mod convert;
mod demo;
mod generate;
mod inspect;
mod play;
mod probe;
mod progress;
mod research;
#[cfg(feature = "serve")]
mod serve;
mod show;
mod sweep;
mod values;

use std::ffi::OsString;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};

/// Runs the command line on this process's arguments and says how it ended: what the `retrodb`
/// binary's `main` does.
pub fn main() -> ExitCode {
    run_from(std::env::args_os())
}

/// Runs the command line on `args` (the first is the program's name, as in
/// [`std::env::args_os`]), printing to this process's standard output and error, and says how it
/// ended.
pub fn run_from<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    // Before anything that may use an instruction of the build's x86-64 level: the variables
    // of docs/RELIABILITY.md handed to the core (which reads none), then the check.
    let cpu = crate::base::cpu::Choice::from_variables(|name| std::env::var(name).ok());
    crate::base::cpu::choose(cpu);
    if let Some(message) = crate::base::cpu::unsupported_message() {
        errln!("retrodb: {message}");
        return ExitCode::FAILURE;
    }
    let args = match Cli::try_parse_from(args) {
        Ok(args) => args,
        Err(e) => return out::clap_exit(&e),
    };
    match run(args) {
        Ok(code) => code,
        Err(e) => match stdout_error(&e) {
            // The reader closed the pipe (`| head`): what it wanted it has.
            Some(out) if out.is_closed_pipe() => ExitCode::SUCCESS,
            Some(out) => {
                errln!("retrodb: {out}");
                ExitCode::FAILURE
            }
            None => {
                // The library's messages already name the file and the cause: one line.
                errln!("retrodb: {e}");
                ExitCode::FAILURE
            }
        },
    }
}

/// Win/loss/draw tables for finite two-player games, by parallel retrograde analysis.
#[derive(Parser)]
#[command(name = "retrodb", version, about, long_about = None)]
pub(crate) struct Cli {
    /// Worker threads for the commands that work in parallel: build, probe (batches), verify,
    /// compress, decompress, sweep, research, values, bench and gen; the others ignore it (default:
    /// all cores).
    #[arg(long, global = true, value_name = "N")]
    threads: Option<usize>,

    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Solve a game and write its table.
    Build(build::Args),
    /// Look positions up in a table: value, remoteness and every move's value, best first
    /// (--best: the best move alone; --line: the principal line); on a digraph table built
    /// with --grundy, sums of tokens too (4+9+11).
    #[command(after_help = probe::READING)]
    Probe(probe::Args),
    /// Describe a table: its game, size, value counts and layout.
    Info(inspect::InfoArgs),
    /// Print every used position of a table as "position<TAB>value", plus "<TAB>remoteness"
    /// when the table has it ("-" for draws) and "<TAB>grundy" when it holds generalized
    /// Sprague-Grundy values ("3", "inf{0,2}").
    Dump(inspect::DumpArgs),
    /// Check a table: every checksum, then every position against its children.
    Verify(inspect::VerifyArgs),
    /// Convert a raw table into a zstd-compressed one (same answers, a fraction of the size).
    Compress(convert::CompressArgs),
    /// Convert a compressed table back into the raw table it was made from.
    Decompress(convert::DecompressArgs),
    /// Write a random input file (e.g. a large digraph for benchmarks).
    Gen(generate::Args),
    /// Benchmarks: the suite (plain `retrodb bench`) and probe measurements of a table.
    Bench(bench::Args),
    /// Draw a position of a board or graph game (colour on a terminal, SVG with --svg).
    Show(show::Args),
    /// Build and probe the built-in examples: seed 001's 12-vertex digraph (cycles and draws)
    /// and Bridg-It 3 (built, compressed, its best first moves shown).
    Demo(demo::Args),
    /// Solve a game on every small graph and compare the tables with an oracle.
    Sweep(sweep::Args),
    /// Research on tables: Bridg-It strategies and conjectures checked on every position
    /// (bridgit), the distribution of value and remoteness by tier (tiers).
    Research(research::Args),
    /// The value of every configuration of a cell game as a canonical game (combinatorial game
    /// theory), with distinct values per tier.
    Values(values::Args),
    /// Play a board game in the terminal against the table or a Bridg-It strategy.
    Play(play::Args),
    /// Serve tables over HTTP: a JSON API and a web board (see docs/SERVE.md).
    #[cfg(feature = "serve")]
    Serve(serve::Args),
}

fn run(cli: Cli) -> Result<ExitCode> {
    if let Some(n) = cli.threads {
        use crate::table::builder::threads::{self, ThreadsError};
        threads::set_global(n).map_err(|e| match e {
            ThreadsError::Zero => anyhow::anyhow!("--threads {e}"),
            ThreadsError::TooMany { .. } => anyhow::anyhow!("--threads {n}: {e}"),
            ThreadsError::Start { .. } => anyhow::anyhow!("{e}"),
        })?;
    }
    match cli.command {
        Command::Build(a) => build::run(a),
        Command::Probe(a) => probe::run(a),
        Command::Info(a) => inspect::info(a),
        Command::Dump(a) => inspect::dump(a),
        Command::Verify(a) => inspect::verify(a),
        Command::Compress(a) => convert::compress(a),
        Command::Decompress(a) => convert::decompress(a),
        Command::Gen(a) => generate::run(a),
        Command::Demo(a) => demo::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Show(a) => show::run(a),
        Command::Sweep(a) => sweep::run(a),
        Command::Research(a) => research::run(a),
        Command::Play(a) => play::run(a),
        Command::Values(a) => values::run(a),
        #[cfg(feature = "serve")]
        Command::Serve(a) => serve::run(a),
    }
}

/// The most draws a sampling option takes (`verify --sample`, `--lehman`, `research ...
/// --sample`): about a quarter of an hour of lookups at a microsecond each, beyond which a
/// complete check is the better tool; larger counts ran for years and overflowed their chunks'
/// arithmetic near 2^64.
pub(crate) const MAX_SAMPLE: u64 = 1_000_000_000;

pub(crate) use crate::table::builder::report::grouped;
use out::stdout_error;
pub(crate) use progress::{Bar, Notes, StageBar};

/// A duration for people: milliseconds under a second (`0.4 ms`, `38 ms`), else seconds
/// (`2.41 s`).
pub(crate) fn duration(seconds: f64) -> String {
    if seconds < 0.01 {
        format!("{:.1} ms", seconds * 1e3)
    } else if seconds < 1.0 {
        format!("{:.0} ms", seconds * 1e3)
    } else {
        format!("{seconds:.2} s")
    }
}

/// A rate for people: `12.3M/s`.
pub(crate) fn rate(n: f64, seconds: f64) -> String {
    let r = if seconds > 0.0 { n / seconds } else { 0.0 };
    if r >= 1e9 {
        format!("{:.2}G/s", r / 1e9)
    } else if r >= 1e6 {
        format!("{:.2}M/s", r / 1e6)
    } else if r >= 1e3 {
        format!("{:.1}k/s", r / 1e3)
    } else {
        format!("{r:.0}/s")
    }
}
