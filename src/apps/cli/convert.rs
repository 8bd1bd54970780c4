//! `retrodb compress` and `decompress`: converting a table between raw and zstd encodings.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::base::error::human_bytes;
use crate::table::zstd::{DontCareFill, Params};
use crate::table::{self, Table};
use anyhow::Result;

/// How to compress (shared with `build --compress`).
#[derive(clap::Args, Clone)]
pub struct ZstdArgs {
    /// zstd level, 1..=22 [default: 15] (for build: only with --compress).
    #[arg(long, value_parser = clap::value_parser!(i32).range(1..=22))]
    level: Option<i32>,
    /// Positions per independently compressed frame, a multiple of 32 from 32 to 2^30
    /// [default: 65536] (for build: only with --compress).
    #[arg(long, value_parser = clap::value_parser!(u64).range(32..=1 << 30))]
    frame_positions: Option<u64>,
    /// What to store for positions the rules decide alone; only the file size depends on it
    /// [default: best] (for build: only with --compress).
    #[arg(long, value_enum)]
    fill: Option<Fill>,
    /// Store only the positions with Left to move (cell games); a position with Right to move
    /// is answered by a one-move search over its children, all stored (its remoteness too, in
    /// a table with remoteness). About half the size; a lookup of such a position reads up to
    /// one frame per move.
    #[arg(long)]
    one_mover: bool,
    /// Make no zstd dictionary. By default one is trained on a sample of the frames and kept
    /// when it makes the file smaller (stock zstd then decodes a frame with `-D`, the dictionary
    /// being the bytes after the header: docs/FORMAT.md).
    #[arg(long)]
    no_dictionary: bool,
}

/// `--fill`: the table layer's [`DontCareFill`], as the command line names it.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum Fill {
    /// Per frame, whichever of `stored`, `previous` and `second` compresses smallest.
    Best,
    /// The code of the cell before, so runs grow longer.
    Previous,
    /// Zero.
    Zero,
    /// The code two cells before (in layouts that alternate the mover, the same mover's
    /// neighbour).
    Second,
    /// The true value, as a raw table has it (no don't-care at all).
    Stored,
}

impl From<Fill> for DontCareFill {
    fn from(f: Fill) -> DontCareFill {
        match f {
            Fill::Best => DontCareFill::Best,
            Fill::Previous => DontCareFill::Previous,
            Fill::Zero => DontCareFill::Zero,
            Fill::Second => DontCareFill::Second,
            Fill::Stored => DontCareFill::Stored,
        }
    }
}

impl ZstdArgs {
    pub fn params(&self) -> Params {
        let d = Params::default();
        Params {
            frame_positions: self.frame_positions.unwrap_or(d.frame_positions),
            level: self.level.unwrap_or(d.level),
            fill: self.fill.map_or(d.fill, DontCareFill::from),
            one_mover: self.one_mover,
            dictionary: !self.no_dictionary,
        }
    }

    /// The first of these options given, for `build` to refuse without `--compress` (they were
    /// ignored there without a word).
    pub fn given(&self) -> Option<&'static str> {
        [
            (self.level.is_some(), "--level"),
            (self.frame_positions.is_some(), "--frame-positions"),
            (self.fill.is_some(), "--fill"),
            (self.one_mover, "--one-mover"),
            (self.no_dictionary, "--no-dictionary"),
        ]
        .into_iter()
        .find_map(|(given, name)| given.then_some(name))
    }
}

#[derive(clap::Args)]
pub struct CompressArgs {
    /// A raw table.
    input: PathBuf,
    /// The compressed table to write (may be the input: it is replaced when the copy is
    /// complete).
    output: PathBuf,
    #[command(flatten)]
    zstd: ZstdArgs,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(clap::Args)]
pub struct DecompressArgs {
    /// A compressed table.
    input: PathBuf,
    /// The raw table to write.
    output: PathBuf,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

pub fn compress(a: CompressArgs) -> Result<ExitCode> {
    let t = Table::open(&a.input)?;
    // Taken before writing: the output may replace the input (a conversion in place).
    let raw = std::fs::metadata(&a.input)?.len();
    let bar = super::StageBar::new(a.quiet);
    let bytes = table::compress(&t, &a.output, a.zstd.params(), &bar)?;
    drop(bar);
    let used = t.header().size - t.header().counts[0];
    outln!(
        "wrote {}: {} ({:.1}% of {}), {:.3} bits per position",
        a.output.display(),
        human_bytes(bytes),
        100.0 * bytes as f64 / raw as f64,
        human_bytes(raw),
        bytes as f64 * 8.0 / used.max(1) as f64
    )?;
    Ok(ExitCode::SUCCESS)
}

pub fn decompress(a: DecompressArgs) -> Result<ExitCode> {
    let t = Table::open(&a.input)?;
    let bar = super::StageBar::new(a.quiet);
    let bytes = table::decompress(&t, &a.output, &bar)?;
    drop(bar);
    outln!("wrote {}: {}", a.output.display(), human_bytes(bytes))?;
    Ok(ExitCode::SUCCESS)
}
