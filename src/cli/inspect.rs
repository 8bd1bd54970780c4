//! `retrodb info`, `dump` and `verify`: reading a table as a whole.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use retrodb::error::human_bytes;
use retrodb::table::Table;
use retrodb::table::format::SourceRef;

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
    let file_bytes = std::fs::metadata(&a.table)?.len();
    let [unused, win, loss, draw] = h.counts;
    let used = h.size - unused;
    let bits = if used > 0 {
        file_bytes as f64 * 8.0 / used as f64
    } else {
        0.0
    };
    let (source, source_name) = match &h.source {
        SourceRef::None => ("none", None),
        SourceRef::Embedded { source, .. } => ("embedded", Some(source.name.clone())),
        SourceRef::Referenced(source) => ("referenced", Some(source.name.clone())),
    };
    if a.json {
        let v = serde_json::json!({
            "file": a.table.display().to_string(),
            "game": h.spec,
            "format_version": h.version,
            "encoding": if t.is_compressed() { "zstd" } else { "raw" },
            "frame_positions": h.frame_positions,
            "zstd_level": h.level,
            "size": h.size,
            "positions": used,
            "win": win, "loss": loss, "draw": draw, "unused": unused,
            "rounds": h.rounds,
            "remoteness_bytes": h.remoteness_width,
            "file_bytes": file_bytes,
            "bits_per_position": bits,
            "source": source,
            "source_file": source_name,
        });
        println!("{v}");
        return Ok(ExitCode::SUCCESS);
    }
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
    if let Some(name) = source_name {
        println!("input      {name} ({source} in the table)");
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
