//! `retrodb gen`: random inputs for benchmarks and experiments.

use std::process::ExitCode;

use anyhow::Result;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(clap::Subcommand)]
enum What {
    /// A random digraph as an edge list: uniform random edges, loops and multi-edges possible.
    Digraph {
        /// Vertices, 1 to 2^32 - 1 (ids 0 to N - 1).
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..=crate::games::digraph::MAX_VERTICES))]
        vertices: u64,
        #[arg(long)]
        edges: u64,
        /// Fraction of the vertices (the lowest ids) that get no out-edge.
        #[arg(long, default_value_t = 0.0)]
        sinks: f64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(short, long)]
        output: String,
    },
}

pub fn run(a: Args) -> Result<ExitCode> {
    match a.what {
        What::Digraph {
            vertices,
            edges,
            sinks,
            seed,
            output,
        } => {
            if !(0.0..1.0).contains(&sinks) {
                anyhow::bail!("--sinks is a fraction in [0, 1), got {sinks}");
            }
            let sink_count = (sinks * vertices as f64) as u64;
            crate::table::builder::generate::random_digraph_file(
                &output,
                vertices,
                edges,
                sink_count,
                seed,
                &super::Notes,
            )?;
            outln!(
                "wrote {output}: {vertices} vertices ({sink_count} sinks), {edges} edges (seed {seed})"
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
