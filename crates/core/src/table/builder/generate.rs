//! Writing generated game inputs (a random digraph's edge list) the way every output is written
//! ([`OutputFile`]): a new name or a regular file only, under the output's lock, through a
//! temporary file renamed into place.
//!
//! Invariant: the output appears under its name only complete and synced; on any error the
//! temporary file is removed.

use std::path::Path;

use crate::base::error::Result;
use crate::base::progress::Progress;
use crate::games::digraph;
use crate::table::OutputFile;

/// Writes a random digraph to `path` ([`digraph::write_random_edges`]); the stale work files
/// of a dead writer it removes are told to `progress` as notes.
pub fn random_digraph_file(
    path: &str,
    vertices: u64,
    edges: u64,
    sinks: u64,
    seed: u64,
    progress: &dyn Progress,
) -> Result<()> {
    digraph::check_random(vertices, sinks)?;
    let out_path = Path::new(path);
    // Opened first, so that a device or a FIFO given as the output is named as such rather
    // than measured for free space.
    let mut out = OutputFile::create(out_path, progress)?;
    // Lines `u v`: at most two ids of the largest width, a space and a newline each.
    let width = vertices.to_string().len() as u64;
    crate::base::memory::check_disk(
        format!("writing a random digraph of {edges} edges"),
        out_path,
        edges.saturating_mul(2 * width + 2),
    )?;
    let name = out.temp_path().display().to_string();
    digraph::write_random_edges(&mut out, &name, vertices, edges, sinks, seed)?;
    out.commit().map(drop)
}
