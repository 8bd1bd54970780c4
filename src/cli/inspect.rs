//! `retrodb info`, `dump` and `verify`: reading a table as a whole.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use retrodb::error::human_bytes;
use retrodb::table::Table;

#[derive(clap::Args)]
pub struct InfoArgs {
    /// The table file (raw or compressed).
    table: PathBuf,
    /// One JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
pub struct DumpArgs {
    /// The table file (raw or compressed).
    table: PathBuf,
}

#[derive(clap::Args)]
pub struct VerifyArgs {
    table: PathBuf,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

pub fn info(a: InfoArgs) -> Result<ExitCode> {
    let t = Table::open(&a.table)?;
    let h = t.header();
    let i = t.info();
    if a.json {
        // Through a `Value`: its keys come out sorted, as they always have.
        println!("{}", serde_json::to_value(&i)?);
        return Ok(ExitCode::SUCCESS);
    }
    let (used, win, loss, draw, bits, file_bytes) = (
        i.positions,
        i.win,
        i.loss,
        i.draw,
        i.bits_per_position,
        i.file_bytes,
    );
    let pct = |n: u64| {
        if used > 0 {
            100.0 * n as f64 / used as f64
        } else {
            0.0
        }
    };
    use super::grouped;
    println!("table      {}", a.table.display());
    println!("game       {}", h.spec);
    let encoding = if t.is_compressed() {
        format!(
            "zstd frames of {} positions (level {})",
            grouped(h.frame_positions),
            h.level
        )
    } else {
        "raw 2-bit cells".to_string()
    };
    println!(
        "format     version {}, {encoding}{}",
        h.version,
        if h.remoteness_width > 0 {
            format!(", remoteness in {} byte(s)", h.remoteness_width)
        } else {
            String::new()
        }
    );
    println!(
        "positions  {} of {} indices",
        grouped(used),
        grouped(h.size)
    );
    println!("win        {} ({:.2}%)", grouped(win), pct(win));
    println!("loss       {} ({:.2}%)", grouped(loss), pct(loss));
    println!("draw       {} ({:.2}%)", grouped(draw), pct(draw));
    match h.rounds {
        Some(r) => println!("rounds     {r}"),
        None => println!("rounds     not recorded (a values-only build)"),
    }
    println!(
        "file       {} ({bits:.3} bits per position)",
        human_bytes(file_bytes)
    );
    if let Some(name) = &i.source_file {
        println!("input      {name} ({} in the table)", i.source);
    }
    Ok(ExitCode::SUCCESS)
}

pub fn dump(a: DumpArgs) -> Result<ExitCode> {
    let t = Table::open(&a.table)?;
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    match t.dump(&mut lock) {
        // A closed pipe (`dump | head`) is the reader's choice, not an error.
        Err(retrodb::Error::Io { source, .. })
            if source.kind() == std::io::ErrorKind::BrokenPipe =>
        {
            Ok(ExitCode::SUCCESS)
        }
        r => {
            r?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

pub fn verify(a: VerifyArgs) -> Result<ExitCode> {
    let t = Table::open(&a.table)?;
    t.verify_checksums()?;
    let bar = super::progress_bar(a.quiet, "verifying");
    let n = t.verify_positions(&bar)?;
    bar.finish_and_clear();
    println!(
        "{}: ok — checksums match and all {} indices agree with the rules and their children{}",
        a.table.display(),
        super::grouped(n),
        if t.has_remoteness() {
            " (values and remoteness: a complete proof of the table)"
        } else {
            ""
        }
    );
    Ok(ExitCode::SUCCESS)
}
