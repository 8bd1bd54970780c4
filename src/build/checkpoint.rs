//! The checkpoint of a resumable tiered build: the file `.NAME.partial-tier` that names the
//! lowest finished tier, the remoteness file `.NAME.partial-rem.T` a run resumed below tier `T`
//! starts from, and the checks a resumed run makes of both and of the cells in `.NAME.partial`.
//!
//! Invariant: a checkpoint names only work that is on disk and synced — its remoteness file is
//! written and synced, the cells are synced, and only then is the checkpoint file renamed into
//! place; whatever a run reads back is checked against the sums the checkpoint recorded.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};

use serde::Serialize;

use crate::error::{Error, Result};
use crate::table::TableErrorKind;
use crate::table::workfiles::sibling;

/// The checkpoint of a resumable tiered build.
#[derive(Clone, Debug, Serialize)]
pub struct Checkpoint {
    /// The lowest finished tier.
    pub tier: u32,
    /// The rounds figure of the finished tiers.
    pub rounds: u32,
    /// Positions the finished tiers hold (exact where tiers are ranges; otherwise as recorded,
    /// 0 for checkpoints that did not record it).
    pub solved: u64,
    /// Positions solved by runs that recorded their time, and the seconds they spent: the rate
    /// of the earlier runs.
    pub timed: u64,
    pub seconds: f64,
    /// Size and xxh3 of the checkpoint's remoteness file.
    pub rem_bytes: u64,
    pub rem_sum: u64,
    /// The digest of the finished tiers' cells ([`crate::solve::digest`]); `None` in
    /// checkpoints written before it was recorded.
    pub cells_sum: Option<u64>,
}

/// `.NAME.partial-tier` beside `out`.
pub(super) fn path(out: &Path) -> PathBuf {
    sibling(out, "partial-tier")
}

/// `.NAME.partial-rem.T` beside `out`: the remoteness a build resumed below tier `T` starts
/// from (one per checkpoint; the previous one is deleted once the next is named).
pub(super) fn rem_path(out: &Path, tier: u32) -> PathBuf {
    sibling(out, &format!("partial-rem.{tier}"))
}

/// Deletes the remoteness work files beside `out`, all or all but tier `keep`'s.
pub(super) fn remove_rem_files(out: &Path, keep: Option<u32>) {
    let prefix = sibling(out, "partial-rem.");
    let Some(prefix) = prefix.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(crate::memory::dir_of(out)) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(tier) = name.strip_prefix(&prefix) else {
            continue;
        };
        if keep.is_none_or(|k| tier != k.to_string()) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// Bytes a checkpoint's remoteness moves through at a time (no copy of a whole tier).
const REM_CHUNK: usize = 16 << 20;

/// The message of a work file that fails a check; it names the file.
fn damaged(path: &Path, what: String) -> Error {
    Error::table_kind(
        path,
        TableErrorKind::WorkFile(format!(
            "work file damaged: {what}; delete the .partial files beside it to start over"
        )),
    )
}

/// Reads the remoteness work file of checkpoint `c` into `buf`, which must be as long as the
/// engine expects; it must be that long and match the checkpoint's sum.
pub(super) fn read_rem(out: &Path, c: &Checkpoint, buf: &mut [u8]) -> Result<()> {
    let path = rem_path(out, c.tier);
    let file = File::open(&path).map_err(|e| Error::io(&path, e))?;
    let len = file.metadata().map_err(|e| Error::io(&path, e))?.len();
    let mut hash = xxhash_rust::xxh3::Xxh3Default::new();
    let whole = len == c.rem_bytes && len == buf.len() as u64;
    if whole {
        for (k, chunk) in buf.chunks_mut(REM_CHUNK).enumerate() {
            file.read_exact_at(chunk, (k * REM_CHUNK) as u64)
                .map_err(|e| Error::io(&path, e))?;
            hash.update(chunk);
        }
    }
    if !whole || hash.digest() != c.rem_sum {
        return Err(damaged(
            &path,
            format!(
                "{len} bytes (the checkpoint of tier {} recorded {} and the engine expects {}) \
                 or another checksum",
                c.tier,
                c.rem_bytes,
                buf.len()
            ),
        ));
    }
    Ok(())
}

/// Checks the digest of the finished tiers' cells in `cells_path` against checkpoint `c`.
pub(super) fn check_cells(cells_path: &Path, c: &Checkpoint, digest: u64) -> Result<()> {
    match c.cells_sum {
        Some(sum) if sum != digest => Err(damaged(
            cells_path,
            format!(
                "the cells of tiers {} and up fail the checksum their checkpoint recorded",
                c.tier
            ),
        )),
        _ => Ok(()),
    }
}

/// Writes a finished tier's remoteness to `path` a chunk at a time and syncs it; returns its
/// size and xxh3.
pub(super) fn write_rem(path: &Path, rem: &[AtomicU8]) -> Result<(u64, u64)> {
    let file = File::create(path).map_err(|e| Error::io(path, e))?;
    let mut hash = xxhash_rust::xxh3::Xxh3Default::new();
    let mut buf = Vec::with_capacity(REM_CHUNK.min(rem.len()));
    for (k, chunk) in rem.chunks(REM_CHUNK).enumerate() {
        buf.clear();
        buf.extend(chunk.iter().map(|b| b.load(Ordering::Relaxed)));
        hash.update(&buf);
        file.write_all_at(&buf, (k * REM_CHUNK) as u64)
            .map_err(|e| Error::io(path, e))?;
    }
    file.sync_all().map_err(|e| Error::io(path, e))?;
    Ok((rem.len() as u64, hash.digest()))
}

/// The checkpoint beside `out` of a build of `spec` with `size` positions, if there is one of
/// that build.
pub(super) fn read(out: &Path, spec: &str, size: u64) -> Option<Checkpoint> {
    let text = std::fs::read_to_string(path(out)).ok()?;
    let mut lines = text.lines();
    // Version 2 of the work files: no remoteness file content for values-only builds, and the
    // engine's `2 * (remoteness + 1) + lost` bytes; an older checkpoint starts the build over.
    (lines.next()? == "retrodb tiered build 2").then_some(())?;
    (lines.next()?.strip_prefix("spec ")? == spec).then_some(())?;
    (lines
        .next()?
        .strip_prefix("positions ")?
        .parse::<u64>()
        .ok()?
        == size)
        .then_some(())?;
    let tier = lines.next()?.strip_prefix("finished-tier ")?.parse().ok()?;
    let rounds = lines.next()?.strip_prefix("rounds ")?.parse().ok()?;
    // Checkpoints written before these lines existed resume all the same.
    let mut field = |key: &str| lines.next().and_then(|l| l.strip_prefix(key)?.parse().ok());
    let solved = field("solved-positions ").unwrap_or(0u64);
    let timed = field("timed-positions ").unwrap_or(0);
    let seconds = field("solve-seconds ").unwrap_or(0) as f64;
    let rem_bytes = field("remoteness-bytes ")?;
    let rem_sum = field("remoteness-xxh3 ")?;
    let cells_sum = field("cells-xxh3 ");
    Some(Checkpoint {
        tier,
        rounds,
        solved,
        timed,
        seconds,
        rem_bytes,
        rem_sum,
        cells_sum,
    })
}

/// Writes checkpoint `c` beside `out` (a new file, synced, renamed over the old one).
pub(super) fn write(out: &Path, spec: &str, size: u64, c: &Checkpoint) -> Result<()> {
    let path = path(out);
    let tmp = path.with_extension("new");
    let mut text = format!(
        "retrodb tiered build 2\nspec {spec}\npositions {size}\nfinished-tier {}\nrounds {}\n\
         solved-positions {}\ntimed-positions {}\nsolve-seconds {}\nremoteness-bytes {}\n\
         remoteness-xxh3 {}\n",
        c.tier,
        c.rounds,
        c.solved,
        c.timed,
        c.seconds.round() as u64,
        c.rem_bytes,
        c.rem_sum
    );
    if let Some(sum) = c.cells_sum {
        text.push_str(&format!("cells-xxh3 {sum}\n"));
    }
    let f = File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
    f.write_all_at(text.as_bytes(), 0)
        .and_then(|_| f.sync_all())
        .map_err(|e| Error::io(&tmp, e))?;
    std::fs::rename(&tmp, &path).map_err(|e| Error::io(&path, e))
}
