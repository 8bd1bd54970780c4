//! `retrodb serve TABLE_OR_DIR... [--addr HOST:PORT]`: the HTTP API and the web board over
//! tables (the work is in `crate::apps::serve`). Every numeric option is checked against its range
//! here, at the boundary, so that no later sum of a duration or shift of a size can overflow.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use crate::apps::serve::{Catalog, Limits};
use anyhow::Result;

/// The longest timeout an option takes, in seconds: a day.
const MAX_SECS: u64 = 86_400;

#[derive(clap::Args)]
pub struct Args {
    /// Table files, or directories whose *.rdb files are all served; each table is named by
    /// its file stem (seed001.rdb is /api/v1/tables/seed001).
    #[arg(required = true, value_name = "TABLE_OR_DIR")]
    tables: Vec<PathBuf>,
    /// The address to listen on (only this one); port 0 picks a free port.
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// Skip checking every table's checksums at start (large tables start faster; a damaged
    /// block is still refused when a lookup reaches it).
    #[arg(long)]
    no_verify: bool,
    /// Largest batch body, in MiB (1 to 4096).
    #[arg(long, default_value_t = 64, value_name = "MIB",
          value_parser = clap::value_parser!(u64).range(1..=4096))]
    max_batch_mib: u64,
    /// Memory for batches held at once, in MiB (1 to 1048576): each batch reserves its body
    /// and 4 MiB for its answer's buffers before its body is read; more wait their turn.
    #[arg(long, default_value_t = 512, value_name = "MIB",
          value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
    max_batch_memory_mib: u64,
    /// Seconds a request may take, body included (1 to 86400); its work is cancelled after it.
    #[arg(long, default_value_t = 60, value_name = "SECS",
          value_parser = clap::value_parser!(u64).range(1..=MAX_SECS))]
    request_timeout: u64,
    /// Seconds a client has to send a request's headers before its connection is closed (1 to
    /// 86400).
    #[arg(long, default_value_t = 10, value_name = "SECS",
          value_parser = clap::value_parser!(u64).range(1..=MAX_SECS))]
    header_timeout: u64,
    /// Seconds a client may take no data of an answer before its connection is closed and the
    /// work for it stopped (1 to 86400).
    #[arg(long, default_value_t = 30, value_name = "SECS",
          value_parser = clap::value_parser!(u64).range(1..=MAX_SECS))]
    write_timeout: u64,
    /// Positions the game values of one request (value=true) may visit, all its values
    /// together (1 to 1000000000); beyond, the answer is 422 work_limit.
    #[arg(long, default_value_t = 3_000_000, value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
    max_value_positions: u64,
    /// Requests computing game values at once (1 to 1024); more wait their turn.
    #[arg(long, default_value_t = 4, value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=1024))]
    max_value_requests: u64,
    /// Threads answering requests (1 to 256; batches also use the solver's thread pool);
    /// default: one a core.
    #[arg(long, value_name = "N", value_parser = threads)]
    threads: Option<usize>,
}

/// `--threads N`, 1 to 256 (a `usize`, as the global `--threads` it shares its name with).
fn threads(text: &str) -> std::result::Result<usize, String> {
    match text.parse::<u64>() {
        Ok(n @ 1..=256) => Ok(n as usize),
        Ok(n) => Err(format!("{n} is not in 1..=256")),
        Err(e) => Err(e.to_string()),
    }
}

pub fn run(a: Args) -> Result<ExitCode> {
    let catalog = Catalog::open(&a.tables, !a.no_verify)?;
    let names: Vec<String> = catalog
        .tables()
        .iter()
        .map(|t| format!("{} ({})", t.name, t.table.header().spec))
        .collect();
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let threads = a.threads.unwrap_or(cores);
    // The ranges above keep every product and sum here far from overflowing.
    let limits = Limits {
        max_batch_bytes: usize::try_from(a.max_batch_mib << 20).unwrap_or(usize::MAX),
        max_batch_memory: usize::try_from(a.max_batch_memory_mib << 20).unwrap_or(usize::MAX),
        request_timeout: Duration::from_secs(a.request_timeout),
        header_timeout: Duration::from_secs(a.header_timeout),
        write_timeout: Duration::from_secs(a.write_timeout),
        max_value_positions: a.max_value_positions,
        max_value_requests: a.max_value_requests as usize,
        // Enough for the runtime's threads to hand each a lookup, and for a few disk reads
        // at once on a cold table.
        lookup_threads: (2 * threads).max(16),
        ..Limits::default()
    };

    crate::apps::serve::run(catalog, a.addr, limits, threads, |addr| {
        // One line scripts and tests can read to find the port.
        // A server keeps serving when no one reads this line; it goes through the one path
        // all the same (no panic on a closed stdout).
        let _ = outln!("listening on http://{addr}/ serving {}", names.join(", "));
    })?;
    errln!("retrodb serve: stopped");
    Ok(ExitCode::SUCCESS)
}
