//! Verifying a table: every checksum (raw blocks, or compressed frames and what they decode
//! to), the padding, and every position (or a random sample) against its children under the
//! decision rule ([`crate::base::cells::verdict`]).
//!
//! Invariant: verification reads through the same checked paths as lookups, so it can only
//! pass a table whose every byte matched its checksum.

use rayon::prelude::*;

use super::Table;
use super::payload::{ZstdFrames, check_padding};
use crate::base::cells;
use crate::base::error::table::{Checked, TableErrorKind};
use crate::base::error::{Error, Result};
use crate::base::progress::{Progress, Silent};
use crate::base::splitmix;
use crate::game::{Game, Notation, Status, Value};
use crate::with_game;

impl<B: AsRef<[u8]> + Sync> Table<B> {
    /// Checks the bytes no checksum covers (see [`check_padding`]).
    fn verify_padding(&self) -> Result<()> {
        check_padding(self.header(), self.bytes()).map_err(|k| self.fail(k))
    }

    /// Checks every checksum: raw blocks, or compressed frames (their bytes, their zstd content
    /// checksum and the seek table's checksum of the decoded bytes), and the padding.
    pub fn verify_checksums(&self) -> Result<()> {
        self.verify_checksums_with(&Silent)
    }

    /// [`Table::verify_checksums`], telling `progress` how many blocks or frames are checked.
    pub fn verify_checksums_with(&self, progress: &dyn Progress) -> Result<()> {
        self.verify_padding()?;
        let h = self.header();
        h.check_unused(&self.bytes()[..h.header_len as usize])
            .map_err(|kind| self.fail(kind))?;
        self.verify_blocks(progress)?;
        self.verify_tail()?;
        self.check_unchanged()
    }

    /// Checks that the cells past the last position (the rest of a raw table's last 64-bit
    /// word, the rest of a compressed table's last frame) are zero, as every writer leaves them;
    /// no lookup reads them, so only this can tell. Call after the checksums.
    fn verify_tail(&self) -> Result<()> {
        let size = self.header().size;
        let (bytes, first): (std::borrow::Cow<'_, [u8]>, u64) = match self.payload().frames() {
            None => {
                let c = self.header().cells;
                (self.bytes()[c.offset as usize..c.end() as usize].into(), 0)
            }
            Some(ZstdFrames { cells, .. }) => {
                let frames = self.frame_count();
                if frames == 0 {
                    return Ok(());
                }
                let last = self
                    .decode(cells, 0, frames - 1)
                    .map_err(|k| self.fail(k))?;
                (
                    last.into(),
                    (frames as u64 - 1) * self.header().frame_positions,
                )
            }
        };
        match (size - first..bytes.len() as u64 * 4).find(|&i| cells::get_in_bytes(&bytes, i) != 0)
        {
            Some(i) => Err(self.fail(TableErrorKind::Damaged(format!(
                "the cell of index {} is not zero, past the last position ({} positions)",
                first + i,
                size
            )))),
            None => Ok(()),
        }
    }

    /// Checks every block's or frame's checksum.
    fn verify_blocks(&self, progress: &dyn Progress) -> Result<()> {
        self.verify_grundy_blocks()?;
        match self.payload().frames() {
            None => {
                let block = self.header().block as u64;
                let cells_blocks = self.header().cells.blocks(block);
                // The Sprague-Grundy sections' blocks, which come after, were checked above.
                let end = match self.header().grundy {
                    Some(_) => self.header().grundy_sums().0,
                    None => self.sums().len() as u64,
                };
                progress.stage("checking checksums", end);
                let bad = (0..end).into_par_iter().find_first(|&k| {
                    let (sec, first) = if k < cells_blocks {
                        (self.header().cells, 0)
                    } else {
                        (self.header().remoteness, cells_blocks)
                    };
                    let bad = self.check_block(sec, first, (k - first) * block).is_err();
                    progress.advance(1);
                    bad
                });
                match bad {
                    None => Ok(()),
                    Some(k) => Err(self.fail(TableErrorKind::Checksum {
                        section: Checked::Blocks,
                        block: Some(k),
                    })),
                }
            }
            Some(ZstdFrames {
                cells,
                remoteness,
                grundy,
                ..
            }) => {
                let frames = self.frame_count();
                let mut streams = vec![(cells, 0)];
                if let Some(r) = remoteness {
                    streams.push((r, frames + 1));
                }
                if let Some(g) = grundy {
                    streams.push((g, self.header().grundy_sums().0 as usize));
                }
                progress.stage("checking checksums", (frames * streams.len()) as u64);
                for (stream, first) in streams {
                    (0..frames)
                        .into_par_iter()
                        .try_for_each(|k| {
                            let bytes = self.decode(stream, first, k)?;
                            if xxhash_rust::xxh64::xxh64(&bytes, 0) as u32
                                != stream.entries[k].checksum
                            {
                                return Err(TableErrorKind::Checksum {
                                    section: Checked::DecodedFrame,
                                    block: Some(k as u64),
                                });
                            }
                            progress.advance(1);
                            Ok(())
                        })
                        .map_err(|k| self.fail(k))?;
                }
                Ok(())
            }
        }
    }

    /// Checks the raw blocks of the generalized Sprague-Grundy sections: a raw table's codes and
    /// the reach sets (a compressed table's codes are a stream, checked with the others).
    fn verify_grundy_blocks(&self) -> Result<()> {
        if !self.has_grundy() {
            return Ok(());
        }
        if !self.is_compressed() {
            self.raw_grundy_codes(0, self.header().size)?;
        }
        self.grundy_sets_bytes().map(|_| ())
    }

    /// Checks every position against the rules and its children's values (and remoteness when
    /// stored; and where the table holds generalized Sprague-Grundy values, the value against
    /// its followers' by [`crate::base::grundy::check_local`] and against the position's own
    /// outcome). Returns the number of indices checked.
    pub fn verify_positions(&self, progress: &dyn Progress) -> Result<u64> {
        const CHUNK: u64 = 1 << 14;
        let size = self.header().size;
        progress.stage("checking every position against its children", size);
        let err = (0..size.div_ceil(CHUNK))
            .into_par_iter()
            .find_map_first(|k| {
                let start = k * CHUNK;
                let end = (start + CHUNK).min(size);
                let r = (start..end).find_map(|pos| self.check_position(pos).err());
                progress.advance(end - start);
                r
            });
        match err {
            None => self.check_unchanged().map(|()| size),
            Some(e) => Err(e),
        }
    }

    /// Like [`Table::verify_positions`] on `count` indices drawn at random (the same ones for
    /// the same `seed`), for tables too large to check whole; returns how many were checked.
    pub fn verify_sample(&self, count: u64, seed: u64, progress: &dyn Progress) -> Result<u64> {
        let size = self.header().size;
        if size == 0 {
            return Ok(0);
        }
        progress.stage("checking sampled positions against their children", count);
        let err = (0..count).into_par_iter().find_map_any(|k| {
            // SplitMix64 of the draw number, mixed with the seed.
            let pos = splitmix::hash(seed ^ k.wrapping_mul(0xD6E8_FEB8_6659_FD93)) % size;
            let r = self.check_position(pos).err();
            progress.advance(1);
            r
        });
        match err {
            None => Ok(count),
            Some(e) => Err(e),
        }
    }

    fn check_position(&self, pos: u64) -> Result<()> {
        let stored = self.value(pos)?;
        let rem = self.remoteness(pos)?;
        with_game!(self.game(), g => {
            let describe = |what: String| {
                Error::table(
                    self.path(),
                    format!("position {} (index {pos}): {what}", g.position_text(pos)),
                )
            };
            let (expect, expect_rem) = match g.status(pos) {
                Status::Unused => (None, None),
                Status::Over(v) => (Some(v), (v != Value::Draw).then_some(0)),
                Status::Open => {
                    let mut any_loss = false;
                    let mut any_draw = false;
                    let mut has_child = false;
                    let mut min_loss = u32::MAX;
                    let mut max_win = 0u32;
                    let mut failure = None;
                    g.for_each_child(pos, |c| {
                        has_child = true;
                        if failure.is_some() {
                            return;
                        }
                        match (self.value(c), self.remoteness(c)) {
                            (Ok(Some(Value::Loss)), Ok(r)) => {
                                any_loss = true;
                                min_loss = min_loss.min(r.unwrap_or(0));
                            }
                            (Ok(Some(Value::Win)), Ok(r)) => max_win = max_win.max(r.unwrap_or(0)),
                            (Ok(Some(Value::Draw)), Ok(_)) => any_draw = true,
                            (Ok(None), _) => {
                                failure = Some(describe(format!("child index {c} is unused")))
                            }
                            (Err(e), _) | (_, Err(e)) => failure = Some(e),
                        }
                    });
                    if let Some(e) = failure {
                        return Err(e);
                    }
                    let value = cells::value(cells::verdict(any_loss, any_draw));
                    let rem = match value {
                        Some(Value::Win) => Some(min_loss + 1),
                        // Every child won for its mover (or there is none): lost, as slowly as
                        // the longest child allows.
                        Some(Value::Loss) => Some(if has_child { max_win + 1 } else { 0 }),
                        _ => None,
                    };
                    (value, rem)
                }
            };
            if stored != expect {
                return Err(describe(format!(
                    "stored {} but its children make it {}",
                    stored.map_or("unused", Value::as_str),
                    expect.map_or("unused", Value::as_str)
                )));
            }
            if self.has_remoteness() && expect.is_some() && rem != expect_rem {
                return Err(describe(format!(
                    "stored remoteness {rem:?} but its children give {expect_rem:?}"
                )));
            }
            if self.has_grundy() {
                let value = self.grundy(pos)?;
                match (&value, stored) {
                    (None, None) => {}
                    (Some(x), Some(v)) if x.value() == v => {
                        let mut followers = Vec::new();
                        let mut failure = None;
                        g.for_each_child(pos, |c| match self.grundy(c) {
                            Ok(Some(y)) => followers.push(y),
                            Ok(None) => {
                                failure = Some(describe(format!("child index {c} has no value")))
                            }
                            Err(e) => failure = Some(e),
                        });
                        if let Some(e) = failure {
                            return Err(e);
                        }
                        crate::base::grundy::check_local(x, &followers).map_err(|m| {
                            describe(format!("generalized Sprague-Grundy {m}"))
                        })?;
                    }
                    _ => {
                        return Err(describe(format!(
                            "stored {} with the generalized Sprague-Grundy value {}",
                            stored.map_or("unused", Value::as_str),
                            value.map_or("none".to_string(), |x| x.to_string())
                        )));
                    }
                }
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    //! A table whose generalized Sprague-Grundy codes are wrong though every checksum matches
    //! (as a writer's mistake would leave it): verification names the position.

    use crate::base::grundy::{Grundy, Labels};
    use crate::games::{AnyGame, Input};
    use crate::table::Table;
    use crate::table::write::{GameFields, GrundyBytes, RawWriter};

    /// The seed's graph (12 vertices, values worked out in docs/SUMS.md).
    const SEED: &str = "0 1\n1 2\n2 0\n2 9\n3 1\n4 3\n5 3\n4 6\n5 7\n8 4\n8 5\n11 8\n9 11\n9 10\n";

    /// The seed's labels: sets `{}`, `{2}` and `{0}` as ids 0, 1 and 2 after 3 finite values.
    fn labels() -> Labels {
        Labels {
            codes: vec![3, 3, 4, 3, 5, 5, 0, 0, 0, 2, 0, 1],
            finite: 3,
            sets: vec![0, 0b100, 0b1],
            stages: 4,
            parent_visits: 0,
            stage_reports: Vec::new(),
        }
    }

    /// Writes the seed's table with `labels` (the cells the true ones', which the checks of
    /// values alone pass) and verifies every position.
    fn verify_with(labels: &Labels) -> crate::Result<u64> {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("t.rdb");
        let game = AnyGame::load(
            "digraph:seed.txt",
            Input::Embedded(SEED.as_bytes()),
            u64::MAX,
        )
        .unwrap();
        let mut w = RawWriter::create(&out, GameFields::of(&game).with_grundy(), 12).unwrap();
        let cells = w.cells(12);
        for v in 0..12 {
            cells.decide(
                v,
                crate::base::cells::code(self::labels().get(v).unwrap().value()),
            );
        }
        let counts = cells.counts();
        w.set_grundy(GrundyBytes::of(labels));
        w.finish(
            counts,
            None,
            crate::table::format::RemotenessEncoding::None,
            &[],
        )
        .unwrap();
        let t = Table::open(&out).unwrap();
        t.verify_checksums()?;
        t.verify_positions(&crate::base::progress::Silent)
    }

    #[test]
    fn wrong_values_are_found() {
        assert_eq!(verify_with(&labels()).unwrap(), 12, "the true labels pass");
        // 11 as 2 (still a win): then 9's followers have values 2 and 0, and 9 is not 2.
        let mut l = labels();
        l.codes[11] = 2;
        let e = verify_with(&l).unwrap_err().to_string();
        assert!(
            e.contains("position 9") && e.contains("generalized Sprague-Grundy value 2"),
            "{e}"
        );
        // 9 as 1: then 2, which reaches only 9's value, does not reach 2.
        let mut l = labels();
        l.codes[9] = 1;
        let e = verify_with(&l).unwrap_err().to_string();
        assert!(e.contains("position 2") && e.contains("[1]"), "{e}");
        // 4 reaches 0 (its follower 6): inf{} would make it a draw, which its cell is not.
        let mut l = labels();
        l.codes[4] = 3;
        let e = verify_with(&l).unwrap_err().to_string();
        assert!(
            e.contains("position 4")
                && e.contains("stored win with the generalized")
                && e.contains("inf{}"),
            "{e}"
        );
        // 2 as inf{} (a draw, as its cell): but its follower 9 has value 2.
        let mut l = labels();
        l.codes[2] = 3;
        let e = verify_with(&l).unwrap_err().to_string();
        assert!(e.contains("position 2") && e.contains("[2]"), "{e}");
        assert_eq!(labels().get(2), Some(Grundy::Infinite(vec![2])));
    }
}
