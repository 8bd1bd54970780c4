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
        #[arg(long)]
        vertices: u64,
        #[arg(long)]
        edges: u64,
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
            seed,
            output,
        } => {
            retrodb::games::digraph::write_random(&output, vertices, edges, seed)?;
            println!("wrote {output}: {vertices} vertices, {edges} edges (seed {seed})");
        }
    }
    Ok(ExitCode::SUCCESS)
}
