//! `retrodb serve TABLE_OR_DIR... [--addr HOST:PORT]`: the HTTP API and the web board over
//! tables (the work is in `retrodb::serve`).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;
use retrodb::serve::{Catalog, Limits};

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
    /// Largest batch body, in MiB.
    #[arg(long, default_value_t = 64, value_name = "MIB")]
    max_batch_mib: usize,
    /// Seconds a request may take, body included.
    #[arg(long, default_value_t = 60, value_name = "SECS")]
    request_timeout: u64,
    /// Seconds a client has to send a request's headers before its connection is closed.
    #[arg(long, default_value_t = 10, value_name = "SECS")]
    header_timeout: u64,
    /// Threads answering requests (batches also use the solver's thread pool); default: one a
    /// core.
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
}

pub fn run(a: Args) -> Result<ExitCode> {
    if a.request_timeout == 0 || a.header_timeout == 0 {
        anyhow::bail!("--request-timeout and --header-timeout must be at least 1 second");
    }
    let catalog = Catalog::open(&a.tables, !a.no_verify)?;
    let names: Vec<String> = catalog
        .tables()
        .iter()
        .map(|t| format!("{} ({})", t.name, t.table.header().spec))
        .collect();
    let limits = Limits {
        max_batch_bytes: a.max_batch_mib.max(1) << 20,
        request_timeout: Duration::from_secs(a.request_timeout),
        header_timeout: Duration::from_secs(a.header_timeout),
        ..Limits::default()
    };
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let threads = match a.threads {
        None => cores,
        Some(n) if (1..=256).contains(&n) => n,
        Some(n) => anyhow::bail!("--threads {n}: give 1 to 256 threads"),
    };
    retrodb::serve::run(catalog, a.addr, limits, threads, |addr| {
        // One line scripts and tests can read to find the port.
        // A server keeps serving when no one reads this line; it goes through the one path
        // all the same (no panic on a closed stdout).
        let _ = outln!("listening on http://{addr}/ serving {}", names.join(", "));
    })?;
    errln!("retrodb serve: stopped");
    Ok(ExitCode::SUCCESS)
}
