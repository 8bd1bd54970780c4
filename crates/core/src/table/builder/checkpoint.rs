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

use crate::base::error::{Error, Result, cut};
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
    /// The digest of the finished tiers' cells (`crate::solve::digest`); `None` in
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

/// Deletes the numbered work files `.NAME.WHAT.T` beside `out` (one per checkpoint, named by
/// its tier), all or all but tier `keep`'s.
pub(super) fn remove_numbered(out: &Path, what: &str, keep: Option<u32>) {
    let prefix = sibling(out, &format!("{what}."));
    let Some(prefix) = prefix.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(crate::base::memory::dir_of(out)) else {
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

/// Deletes the remoteness work files beside `out`, all or all but tier `keep`'s.
pub(super) fn remove_rem_files(out: &Path, keep: Option<u32>) {
    remove_numbered(out, "partial-rem", keep);
}

/// Bytes a checkpoint's remoteness moves through at a time (no copy of a whole tier).
const REM_CHUNK: usize = 16 << 20;

/// The message of a work file that fails a check; it names the file.
pub(super) fn damaged(path: &Path, what: String) -> Error {
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

/// What a tiered build's cells depend on: a checkpoint is resumed only by a build of the same
/// game (its full spec, its size and the bytes of its input file) with the same options that
/// change the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    pub spec: String,
    pub positions: u64,
    pub remoteness: bool,
    /// The input file's name, length and xxh3, for games read from one.
    pub input: Option<(String, u64, u64)>,
    /// The per-position kernel solves a sliced board (`--kernel per-position`): its tiers are
    /// filled cells where the row kernels' are key tiers, so neither resumes the other's
    /// checkpoint. Written as a line `kernel per-position` only then.
    pub per_position_rows: bool,
}

impl Identity {
    pub fn of(game: &crate::games::AnyGame, opts: &super::BuildOptions) -> Identity {
        use crate::solve::plan::{Kernel, Shape};
        Identity {
            spec: game.spec(),
            positions: game.size(),
            remoteness: opts.remoteness,
            input: game.source().map(|s| (s.name.clone(), s.len, s.hash)),
            per_position_rows: opts.kernel == Some(Kernel::PerPosition)
                && Shape::of(game) == Shape::SlicedBoard,
        }
    }

    /// The lines that open a checkpoint file of this build.
    pub(super) fn lines(&self) -> String {
        let input = match &self.input {
            Some((_, len, hash)) => format!("{len} {hash}"),
            None => "none".to_string(),
        };
        let kernel = if self.per_position_rows {
            "kernel per-position\n"
        } else {
            ""
        };
        format!(
            "{VERSION_LINE}\nspec {}\npositions {}\nremoteness {}\ninput {input}\n{kernel}",
            self.spec,
            self.positions,
            if self.remoteness { "yes" } else { "no" }
        )
    }

    /// What differs between the build that wrote a checkpoint (`self`) and this one (`now`),
    /// in words; empty when nothing does.
    pub(super) fn differences(&self, now: &Identity) -> Vec<String> {
        let mut d = Vec::new();
        if self.spec != now.spec {
            d.push(format!(
                "it is a build of '{}' and this one of '{}'",
                cut(&self.spec),
                cut(&now.spec)
            ));
        }
        match (&self.input, &now.input) {
            (Some((_, len, hash)), Some((name, now_len, now_hash)))
                if (len, hash) != (now_len, now_hash) =>
            {
                d.push(format!(
                    "the input file {} changed since it was written ({len} bytes with xxh3 \
                     {hash:016x} then, {now_len} bytes with xxh3 {now_hash:016x} now)",
                    cut(name)
                ));
            }
            (None, Some(_)) | (Some(_), None) if self.spec == now.spec => {
                d.push("one build reads an input file and the other does not".into());
            }
            _ => {}
        }
        if self.spec == now.spec && self.positions != now.positions && d.is_empty() {
            d.push(format!(
                "the game has {} positions now, {} then",
                now.positions, self.positions
            ));
        }
        if self.per_position_rows != now.per_position_rows {
            d.push(
                "the kernels differ: one build solves with the per-position kernel \
                 (--kernel per-position) and the other with the row kernels, which count tiers \
                 otherwise"
                    .into(),
            );
        }
        if self.remoteness != now.remoteness {
            d.push(if self.remoteness {
                "the options differ: it stores remoteness (--remoteness) and this build does not"
                    .to_string()
            } else {
                "the options differ: this build stores remoteness (--remoteness) and it does not"
                    .to_string()
            });
        }
        d
    }
}

/// The first line of a checkpoint file this version writes and reads. Version 2 did not record
/// the input file or the options (a resume trusted them); version 3 does.
pub(super) const VERSION_LINE: &str = "retrodb tiered build 3";

/// What lies beside an output for a build to resume.
#[derive(Clone, Debug)]
pub enum Found {
    /// No checkpoint: the build starts fresh.
    Nothing,
    /// A checkpoint of this very build.
    Resume(Checkpoint),
    /// A checkpoint this build must not resume: why, in words (what differs).
    Differs(String),
}

/// The checkpoint beside `out`, matched against the build `id`.
pub(super) fn read(out: &Path, id: &Identity) -> Found {
    let Ok(text) = std::fs::read_to_string(path(out)) else {
        return Found::Nothing;
    };
    let mut lines = text.lines().peekable();
    let first = lines.next().unwrap_or("");
    if first == "retrodb tiered build 2" {
        return Found::Differs(
            "it was written by an earlier retrodb, which did not record the input file and the \
             options it depends on"
                .into(),
        );
    }
    let unreadable = || Found::Differs("the checkpoint file is not one this retrodb reads".into());
    if first != VERSION_LINE {
        return unreadable();
    }
    let Some(written) = read_identity(&mut lines) else {
        return unreadable();
    };
    let differences = written.differences(id);
    if !differences.is_empty() {
        return Found::Differs(differences.join("; "));
    }
    let Some(c) = (|| {
        let tier = lines.next()?.strip_prefix("finished-tier ")?.parse().ok()?;
        let rounds = lines.next()?.strip_prefix("rounds ")?.parse().ok()?;
        let mut field = |key: &str| lines.next().and_then(|l| l.strip_prefix(key)?.parse().ok());
        let solved = field("solved-positions ")?;
        let timed = field("timed-positions ")?;
        let seconds = field("solve-seconds ").map(|s: u64| s as f64)?;
        let rem_bytes = field("remoteness-bytes ")?;
        let rem_sum = field("remoteness-xxh3 ")?;
        let cells_sum = Some(field("cells-xxh3 ")?);
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
    })() else {
        return unreadable();
    };
    Found::Resume(c)
}

/// The identity lines after the version line of a checkpoint file (see [`Identity::lines`]);
/// `None` when they do not read as such.
pub(super) fn read_identity<'a>(
    lines: &mut std::iter::Peekable<impl Iterator<Item = &'a str>>,
) -> Option<Identity> {
    let spec = lines.next()?.strip_prefix("spec ")?.to_string();
    let positions = lines.next()?.strip_prefix("positions ")?.parse().ok()?;
    let remoteness = match lines.next()?.strip_prefix("remoteness ")? {
        "yes" => true,
        "no" => false,
        _ => return None,
    };
    let input = match lines.next()?.strip_prefix("input ")? {
        "none" => None,
        words => {
            let (len, hash) = words.split_once(' ')?;
            Some((String::new(), len.parse().ok()?, hash.parse().ok()?))
        }
    };
    let per_position_rows = lines.next_if_eq(&"kernel per-position").is_some();
    Some(Identity {
        spec,
        positions,
        remoteness,
        input,
        per_position_rows,
    })
}

/// Writes checkpoint `c` of build `id` beside `out` (a new file, synced, renamed over the old
/// one).
pub(super) fn write(out: &Path, id: &Identity, c: &Checkpoint) -> Result<()> {
    let path = path(out);
    let tmp = path.with_extension("new");
    let mut text = id.lines();
    text.push_str(&format!(
        "finished-tier {}\nrounds {}\nsolved-positions {}\ntimed-positions {}\n\
         solve-seconds {}\nremoteness-bytes {}\nremoteness-xxh3 {}\n",
        c.tier,
        c.rounds,
        c.solved,
        c.timed,
        c.seconds.round() as u64,
        c.rem_bytes,
        c.rem_sum
    ));
    if let Some(sum) = c.cells_sum {
        text.push_str(&format!("cells-xxh3 {sum}\n"));
    }
    let f = File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
    f.write_all_at(text.as_bytes(), 0)
        .and_then(|_| f.sync_all())
        .map_err(|e| Error::io(&tmp, e))?;
    std::fs::rename(&tmp, &path).map_err(|e| Error::io(&path, e))
}
