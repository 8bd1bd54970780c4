//! Random digraphs: written as edge lists for the command line, or built in memory for benches
//! and tests, from the same distribution.
//!
//! Invariant: the same seed gives the same edges on every machine and thread count.

use std::io::Write;

use rayon::prelude::*;

use super::{Digraph, MAX_VERTICES};
use crate::base::error::{Error, Result};
use crate::base::splitmix::SplitMix64;
use crate::games::source::Source;

pub fn check_random(vertices: u64, sinks: u64) -> Result<()> {
    if vertices == 0 || vertices > MAX_VERTICES {
        return Err(Error::Usage(format!(
            "a random digraph needs between 1 and {MAX_VERTICES} vertices"
        )));
    }
    if sinks >= vertices {
        return Err(Error::Usage(format!(
            "{sinks} sinks leave no vertex of {vertices} to move from"
        )));
    }
    Ok(())
}

/// Writes a random digraph as an edge list to `out` (`name` in errors): `edges` edges with
/// uniformly random heads, and tails uniform over the vertices from `sinks` on (vertices
/// `0..sinks` have no move, which gives the retrograde pass lost positions to start from; loops
/// and multi-edges are possible). The same seed gives the same bytes on every machine. The
/// arguments must pass [`check_random`].
pub fn write_random_edges(
    out: &mut impl Write,
    name: &str,
    vertices: u64,
    edges: u64,
    sinks: u64,
    seed: u64,
) -> Result<()> {
    writeln!(
        out,
        "# random digraph: {vertices} vertices, {edges} edges, {sinks} sinks, seed {seed}"
    )
    .map_err(|e| Error::io(name, e))?;
    const BLOCK: u64 = 1 << 20;
    let blocks = edges.div_ceil(BLOCK);
    // Format blocks in parallel, a batch at a time, and write them in order.
    let batch = (rayon::current_num_threads() as u64 * 4).max(1);
    let mut b = 0;
    while b < blocks {
        let end = (b + batch).min(blocks);
        let texts: Vec<Vec<u8>> = (b..end)
            .into_par_iter()
            .map(|i| {
                let mut rng = SplitMix64(seed ^ i.wrapping_mul(0xA24B_AED4_963E_E407));
                let count = BLOCK.min(edges - i * BLOCK);
                let mut s = Vec::with_capacity(count as usize * 18);
                for _ in 0..count {
                    let u = sinks + rng.below(vertices - sinks);
                    let v = rng.below(vertices);
                    writeln!(s, "{u} {v}").expect("writing to memory");
                }
                s
            })
            .collect();
        for t in texts {
            out.write_all(&t).map_err(|e| Error::io(name, e))?;
        }
        b = end;
    }
    Ok(())
}

/// A random digraph in memory (for benches and tests), the distribution of
/// [`write_random_edges`].
pub fn random(vertices: u64, edges: u64, sinks: u64, seed: u64) -> Digraph {
    let mut rng = SplitMix64(seed);
    let sinks = sinks.min(vertices - 1);
    let list: Vec<(u32, u32)> = (0..edges)
        .map(|_| {
            let u = sinks + rng.below(vertices - sinks);
            (u as u32, rng.below(vertices) as u32)
        })
        .collect();
    let name = format!("random-{vertices}-{edges}-{seed}");
    Digraph::from_edges(Source::of(&name, &[]), vertices, &list)
}
