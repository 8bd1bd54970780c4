//! `retrodb bench`: measurements of this machine and of retrodb itself.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use retrodb::error::human_bytes;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(clap::Subcommand)]
enum What {
    /// Probe latencies (hot, cold) and batch throughput of a table.
    Probe {
        table: PathBuf,
        /// Samples per latency figure.
        #[arg(long, default_value_t = 20_000)]
        samples: usize,
        /// Positions in the batch.
        #[arg(long, default_value_t = 1_000_000)]
        batch: usize,
        #[arg(long)]
        json: bool,
    },
}

pub fn run(a: Args) -> Result<ExitCode> {
    match a.what {
        What::Probe {
            table,
            samples,
            batch,
            json,
        } => {
            let r = retrodb::bench::probe(&table, samples, batch)?;
            if json {
                println!("{}", serde_json::to_string(&r)?);
            } else {
                println!(
                    "{}: {} ({}), {} positions, {:.3} bits/position",
                    r.table,
                    human_bytes(r.file_bytes),
                    if r.compressed { "zstd" } else { "raw" },
                    super::grouped(r.positions),
                    r.bits_per_position
                );
                println!(
                    "  hot value {:.0} ns, hot full probe {:.0} ns, cold value {:.0} ns, batch {:.2}M probes/s ({} positions)",
                    r.hot_value_ns,
                    r.hot_probe_ns,
                    r.cold_value_ns,
                    r.batch_per_second / 1e6,
                    r.batch_size
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
