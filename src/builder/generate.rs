//! Writing generated game inputs (a random digraph's edge list) the way tables are written:
//! under the output's lock, through a temporary file renamed into place.
//!
//! Invariant: the output appears under its name only complete and synced; on any error the
//! temporary file is removed.

use std::io::{BufWriter, Write};
use std::path::Path;

use crate::base::progress::Progress;
use crate::error::{Error, Result};
use crate::games::digraph;
use crate::table::OutputLock;
use crate::table::workfiles::sibling;

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
    // Lines `u v`: at most two ids of the largest width, a space and a newline each.
    let width = vertices.to_string().len() as u64;
    crate::base::memory::check_disk(
        format!("writing a random digraph of {edges} edges"),
        out_path,
        edges.saturating_mul(2 * width + 2),
    )?;
    let _lock = OutputLock::acquire(out_path, progress)?;
    let tmp = sibling(out_path, &format!("tmp-{}", std::process::id()));
    let written = write_synced(&tmp, |out, name| {
        digraph::write_random_edges(out, name, vertices, edges, sinks, seed)
    })
    .and_then(|()| std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e)));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// Creates `tmp`, lets `fill` write it through a buffer, and syncs it.
fn write_synced(
    tmp: &Path,
    fill: impl FnOnce(&mut BufWriter<std::fs::File>, &str) -> Result<()>,
) -> Result<()> {
    let name = tmp.display().to_string();
    let file = std::fs::File::create(tmp).map_err(|e| Error::io(tmp, e))?;
    let mut out = BufWriter::with_capacity(1 << 22, file);
    fill(&mut out, &name)?;
    out.flush().map_err(|e| Error::io(tmp, e))?;
    out.into_inner()
        .map_err(|e| Error::io(tmp, e.into_error()))?
        .sync_all()
        .map_err(|e| Error::io(tmp, e))
}
