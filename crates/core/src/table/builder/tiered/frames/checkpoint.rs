//! The checkpoint of an out-of-core build, one per key tier: `.NAME.partial-frames` names the
//! last finished key tier `T` with what a resumed run needs and the sums it checks, and
//! `.NAME.partial-frames-data.T` holds the frames' seek table entries and checksums so far and
//! the open frame's cells (the tail).
//!
//! Invariant: a checkpoint names only synced work — the compressed frames in `.NAME.partial`
//! and the finished key tier's loss plane are synced, the data file is written and synced under
//! its key tier's name, and only then is the checkpoint file renamed into place; the previous
//! key tier's data file is deleted after that. A kill between any two steps leaves a checkpoint
//! whose data file is in place, the new one's or the old one's. A resumed run checks every
//! frame so far against its recorded checksum, the plane against its xxh3 and the data file
//! against its own.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::super::super::checkpoint::{Identity, damaged, read_identity, remove_numbered};
use crate::base::error::{Error, Result};
use crate::table::workfiles::sibling;
use crate::table::zstd::{DontCareFill, Entry, Params};

/// The first line of the checkpoint file.
const VERSION_LINE: &str = "retrodb out-of-core build 1";

/// An out-of-core build's checkpoint after a key tier.
#[derive(Clone, Debug, PartialEq)]
pub struct FramesCheckpoint {
    /// The last finished key tier, and the tier (filled cells) from which every tier is
    /// finished (what the kernel resumes below).
    pub key_tier: u32,
    pub done_from: u32,
    /// Where the frames so far end in the table's work file.
    pub stream_end: u64,
    /// The frames so far: their seek table entries and checksums (in the data file).
    pub entries: Vec<Entry>,
    pub sums: Vec<u64>,
    /// The open frame: its first position and cells.
    pub tail_first: u64,
    pub tail: Vec<u64>,
    /// `[unused, win, loss, draw]` of the positions decided.
    pub counts: [u64; 4],
    /// The xxh3 of the finished key tier's loss plane (its words, in the plane's file).
    pub plane_sum: u64,
    /// Positions decided and the seconds spent on them, over all runs.
    pub solved: u64,
    pub seconds: f64,
}

/// `.NAME.partial-frames` beside `out`.
pub fn path(out: &Path) -> PathBuf {
    sibling(out, "partial-frames")
}

/// The data files' common name: `.NAME.partial-frames-data.T` holds key tier `T`'s.
const DATA: &str = "partial-frames-data";

/// `.NAME.partial-frames-data.T` beside `out`: the data of the checkpoint after key tier `T`.
pub fn data_path(out: &Path, key_tier: u32) -> PathBuf {
    sibling(out, &format!("{DATA}.{key_tier}"))
}

/// The files a checkpoint is written to before they are renamed into place.
fn new_paths(out: &Path) -> [PathBuf; 2] {
    [
        sibling(out, "partial-frames-data-new"),
        sibling(out, "partial-frames-new"),
    ]
}

/// The line that names the compression, which the frames so far were made with.
fn params_line(p: Params) -> String {
    let fill = match p.fill {
        DontCareFill::Best => "best",
        DontCareFill::Previous => "previous",
        DontCareFill::Zero => "zero",
        DontCareFill::Second => "second",
        DontCareFill::Stored => "stored",
    };
    format!(
        "frames {} level {} fill {fill} one-mover {}",
        p.frame_positions,
        p.level,
        if p.one_mover { "yes" } else { "no" }
    )
}

/// The data file's bytes: entries (12 bytes each), checksums (8), tail words (8).
fn data_bytes(c: &FramesCheckpoint) -> Vec<u8> {
    let mut b = Vec::with_capacity(c.entries.len() * 20 + c.tail.len() * 8);
    for e in &c.entries {
        b.extend_from_slice(&e.compressed.to_le_bytes());
        b.extend_from_slice(&e.decompressed.to_le_bytes());
        b.extend_from_slice(&e.checksum.to_le_bytes());
    }
    for s in &c.sums {
        b.extend_from_slice(&s.to_le_bytes());
    }
    for w in &c.tail {
        b.extend_from_slice(&w.to_le_bytes());
    }
    b
}

/// Writes checkpoint `c` of build `id` (compressing with `params`) beside `out`: the data
/// file of its key tier, synced, then the checkpoint file, synced and renamed over the old one,
/// and then the old one's data file deleted.
pub fn write(out: &Path, id: &Identity, params: Params, c: &FramesCheckpoint) -> Result<()> {
    let data = data_bytes(c);
    let dpath = data_path(out, c.key_tier);
    let [dtmp, tmp] = new_paths(out);
    let f = File::create(&dtmp).map_err(|e| Error::io(&dtmp, e))?;
    f.write_all_at(&data, 0)
        .and_then(|_| f.sync_all())
        .map_err(|e| Error::io(&dtmp, e))?;
    let mut text = id.lines().replacen(
        super::super::super::checkpoint::VERSION_LINE,
        VERSION_LINE,
        1,
    );
    let [u, w, l, d] = c.counts;
    text.push_str(&format!(
        "{}\nkey-tier {}\ndone-from {}\nstream-end {}\nframes-count {}\ntail-first {}\n\
         tail-words {}\ncounts {u} {w} {l} {d}\nplane-xxh3 {}\ndata-xxh3 {}\n\
         solved-positions {}\nsolve-seconds {}\n",
        params_line(params),
        c.key_tier,
        c.done_from,
        c.stream_end,
        c.entries.len(),
        c.tail_first,
        c.tail.len(),
        c.plane_sum,
        xxhash_rust::xxh3::xxh3_64(&data),
        c.solved,
        c.seconds.round() as u64,
    ));
    let cpath = path(out);
    let f = File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
    f.write_all_at(text.as_bytes(), 0)
        .and_then(|_| f.sync_all())
        .map_err(|e| Error::io(&tmp, e))?;
    // The data file first, under its own key tier's name: the checkpoint in place, old or
    // new, names a data file that is in place whenever the run stops.
    std::fs::rename(&dtmp, &dpath).map_err(|e| Error::io(&dpath, e))?;
    std::fs::rename(&tmp, &cpath).map_err(|e| Error::io(&cpath, e))?;
    remove_numbered(out, DATA, Some(c.key_tier));
    Ok(())
}

/// What lies beside an output for an out-of-core build.
#[derive(Debug)]
pub enum Found {
    Nothing,
    Resume(FramesCheckpoint),
    /// A checkpoint this build must not resume, and why.
    Differs(String),
}

/// The checkpoint beside `out`, matched against the build `id` compressing with `params`; its
/// data file read and checked. A data file that fails its sum is an error naming it.
pub fn read(out: &Path, id: &Identity, params: Params) -> Result<Found> {
    let Ok(text) = std::fs::read_to_string(path(out)) else {
        return Ok(Found::Nothing);
    };
    let mut lines = text.lines().peekable();
    let unreadable = || {
        Ok(Found::Differs(
            "the checkpoint file is not one this retrodb reads".into(),
        ))
    };
    if lines.next() != Some(VERSION_LINE) {
        return unreadable();
    }
    let Some(written) = read_identity(&mut lines) else {
        return unreadable();
    };
    let mut differences = written.differences(id);
    let Some(p) = lines.next() else {
        return unreadable();
    };
    if p != params_line(params) {
        differences.push(format!(
            "its frames were made with '{p}' and this build makes '{}'",
            params_line(params)
        ));
    }
    if !differences.is_empty() {
        return Ok(Found::Differs(differences.join("; ")));
    }
    let fields = (|| {
        let mut field =
            |key: &str| -> Option<u64> { lines.next()?.strip_prefix(key)?.parse().ok() };
        let key_tier = field("key-tier ")? as u32;
        let done_from = field("done-from ")? as u32;
        let stream_end = field("stream-end ")?;
        let frames = field("frames-count ")? as usize;
        let tail_first = field("tail-first ")?;
        let tail_words = field("tail-words ")? as usize;
        let counts: Vec<u64> = lines
            .next()?
            .strip_prefix("counts ")?
            .split(' ')
            .map(|x| x.parse().ok())
            .collect::<Option<_>>()?;
        let mut field =
            |key: &str| -> Option<u64> { lines.next()?.strip_prefix(key)?.parse().ok() };
        let plane_sum = field("plane-xxh3 ")?;
        let data_sum = field("data-xxh3 ")?;
        let solved = field("solved-positions ")?;
        let seconds = field("solve-seconds ")? as f64;
        Some((
            key_tier, done_from, stream_end, frames, tail_first, tail_words, counts, plane_sum,
            data_sum, solved, seconds,
        ))
    })();
    let Some((
        key_tier,
        done_from,
        stream_end,
        frames,
        tail_first,
        tail_words,
        counts,
        plane_sum,
        data_sum,
        solved,
        seconds,
    )) = fields.filter(|f| f.6.len() == 4)
    else {
        return unreadable();
    };
    let dpath = data_path(out, key_tier);
    let data = std::fs::read(&dpath).map_err(|e| Error::io(&dpath, e))?;
    if data.len() != frames * 20 + tail_words * 8 || xxhash_rust::xxh3::xxh3_64(&data) != data_sum {
        return Err(damaged(
            &dpath,
            format!(
                "{} bytes (the checkpoint of key tier {key_tier} recorded {} frames and {} tail \
                 words) or another checksum",
                data.len(),
                frames,
                tail_words
            ),
        ));
    }
    let u32_at = |o: usize| u32::from_le_bytes(data[o..o + 4].try_into().expect("4 bytes"));
    let u64_at = |o: usize| u64::from_le_bytes(data[o..o + 8].try_into().expect("8 bytes"));
    let entries = (0..frames)
        .map(|k| Entry {
            compressed: u32_at(12 * k),
            decompressed: u32_at(12 * k + 4),
            checksum: u32_at(12 * k + 8),
        })
        .collect();
    let sums = (0..frames).map(|k| u64_at(12 * frames + 8 * k)).collect();
    let tail = (0..tail_words)
        .map(|k| u64_at(20 * frames + 8 * k))
        .collect();
    Ok(Found::Resume(FramesCheckpoint {
        key_tier,
        done_from,
        stream_end,
        entries,
        sums,
        tail_first,
        tail,
        counts: [counts[0], counts[1], counts[2], counts[3]],
        plane_sum,
        solved,
        seconds,
    }))
}

/// Removes an out-of-core build's checkpoint files beside `out`.
pub fn remove(out: &Path) {
    let _ = std::fs::remove_file(path(out));
    remove_numbered(out, DATA, None);
    for p in new_paths(out) {
        let _ = std::fs::remove_file(p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checkpoint(key_tier: u32, frames: usize, tail: usize) -> FramesCheckpoint {
        let entry = Entry {
            compressed: 7,
            decompressed: 9,
            checksum: key_tier,
        };
        FramesCheckpoint {
            key_tier,
            done_from: key_tier,
            stream_end: 100 * frames as u64,
            entries: vec![entry; frames],
            sums: (0..frames as u64).collect(),
            tail_first: 3,
            tail: vec![u64::from(key_tier); tail],
            counts: [1, 2, 3, 4],
            plane_sum: 5,
            solved: 6,
            seconds: 7.0,
        }
    }

    fn resumed(out: &Path, id: &Identity, params: Params) -> FramesCheckpoint {
        match read(out, id, params).unwrap() {
            Found::Resume(c) => c,
            other => panic!("{other:?}"),
        }
    }

    /// A run killed between the data file's rename and the checkpoint's resumes the previous
    /// checkpoint (its data file still in place), and a finished write leaves one data file.
    #[test]
    fn a_kill_between_the_two_renames_resumes_the_previous_checkpoint() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("t.rdb");
        let id = Identity {
            spec: "hex:4,sym".into(),
            positions: 1000,
            remoteness: false,
            input: None,
            per_position_rows: false,
        };
        let params = super::super::FRAMES_DEFAULT;
        let first = checkpoint(9, 3, 5);
        write(&out, &id, params, &first).unwrap();
        assert_eq!(resumed(&out, &id, params), first);
        // What the next write has done when a kill lands between its two renames.
        let next = checkpoint(8, 4, 2);
        std::fs::write(data_path(&out, 8), data_bytes(&next)).unwrap();
        assert_eq!(resumed(&out, &id, params), first);
        write(&out, &id, params, &next).unwrap();
        assert_eq!(resumed(&out, &id, params), next);
        assert!(!data_path(&out, 9).exists());
        remove(&out);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
