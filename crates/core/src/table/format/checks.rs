//! What a header must hold beyond its bytes' reading: a fixed start this build reads, unused
//! fields left zero, sections laid out within the file, lengths that agree.

use super::*;

impl Header {
    /// Checks a header's fixed start: the magic, a length that holds the fixed fields, a
    /// version this build reads, a header length that fits `bytes`, and the header's checksum.
    /// Returns the version and the header's length.
    pub(super) fn check_prefix(bytes: &[u8]) -> std::result::Result<(u32, u64), TableErrorKind> {
        if bytes.len() < 8 || bytes[..8] != MAGIC {
            return Err(TableErrorKind::NotATable);
        }
        if bytes.len() < FIXED + 8 {
            return Err(TableErrorKind::Truncated(format!(
                "{} bytes, shorter than a header",
                bytes.len()
            )));
        }
        let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
        let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().unwrap());
        let version = u32_at(8);
        if !(OLDEST_VERSION..=VERSION).contains(&version) {
            return Err(TableErrorKind::Version {
                expected: VERSION,
                oldest: OLDEST_VERSION,
                got: version,
            });
        }
        let header_len = u32_at(12) as u64;
        if header_len < FIXED as u64 + 8 || header_len > bytes.len() as u64 {
            return Err(TableErrorKind::Damaged(format!(
                "header length {header_len} does not fit the file ({} bytes)",
                bytes.len()
            )));
        }
        let h = header_len as usize;
        let stored = u64_at(h - 8);
        if xxhash_rust::xxh3::xxh3_64(&bytes[..h - 8]) != stored {
            return Err(TableErrorKind::Checksum {
                section: Checked::Header,
                block: None,
            });
        }
        Ok((version, header_len))
    }

    /// Checks the header fields this table does not use, in the header's bytes: the reserved
    /// bytes, the frame size and level of a raw table, the rounds of a version 2 table without
    /// remoteness, and the input's length and hash where there is no input, or no copy of it.
    /// They are zero (rounds: all-ones) in every table retrodb writes; the header's checksum
    /// covers them, so only a table written otherwise has anything else there.
    pub fn check_unused(&self, bytes: &[u8]) -> std::result::Result<(), TableErrorKind> {
        let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
        let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().unwrap());
        let mut unused = vec![("the reserved byte 27", bytes[27] as u64, 0)];
        if self.version < DICTIONARY_VERSION || self.encoding == Encoding::Raw {
            unused.push(("the reserved bytes 164..168", u32_at(164) as u64, 0));
        }
        if self.encoding == Encoding::Raw {
            unused.push(("the frame size of a raw table", u64_at(152), 0));
            unused.push(("the zstd level of a raw table", u32_at(160) as u64, 0));
        }
        if self.version >= 2 && !self.remoteness_encoding.is_stored() {
            unused.push((
                "the rounds of a table without remoteness",
                u32_at(120) as u64,
                NO_ROUNDS as u64,
            ));
        }
        match bytes[26] {
            0 => {
                unused.push(("the input length of a game without input", u64_at(136), 0));
                unused.push(("the input hash of a game without input", u64_at(144), 0));
            }
            1 => unused.push((
                "the input length beside the embedded input's",
                u64_at(136),
                u64_at(128),
            )),
            _ => {}
        }
        if self.remoteness_dictionary.len > 0 {
            unused.push((
                "the reserved bytes after the remoteness dictionary's length",
                u32_at(self.header_len as usize - 12) as u64,
                0,
            ));
        }
        if self.grundy.is_some() {
            let g = self.header_len as usize
                - 8
                - GRUNDY_FIELDS as usize
                - if self.remoteness_dictionary.len > 0 {
                    REMOTENESS_DICTIONARY_FIELDS as usize
                } else {
                    0
                };
            unused.push((
                "the reserved bytes after the Sprague-Grundy code width",
                u32_at(g + 36) as u64 >> 8,
                0,
            ));
        }
        match unused.iter().find(|(_, got, want)| got != want) {
            Some((what, got, want)) => Err(TableErrorKind::Damaged(format!(
                "{what} is {got}, not {want} (a field this table does not use)"
            ))),
            None => Ok(()),
        }
    }

    /// Where the generalized Sprague-Grundy sections' checksums start in the checksum list:
    /// the values' (a raw table's first block, or a compressed table's first frame, its seek
    /// table's after the last) and the reach sets' first block. They follow the cells' and the
    /// remoteness' (and come before a dictionary's).
    pub fn grundy_sums(&self) -> (u64, u64) {
        let block = self.block as u64;
        match (self.encoding, &self.grundy) {
            (_, None) => (0, 0),
            (Encoding::Raw, Some(g)) => {
                let first = self.cells.blocks(block) + self.remoteness.blocks(block);
                (first, first + g.values.blocks(block))
            }
            (_, Some(_)) => {
                let frames = self.size.div_ceil(self.frame_positions.max(1));
                let first = (frames + 1) * (1 + self.remoteness_encoding.is_stored() as u64);
                (first, first + frames + 1)
            }
        }
    }

    /// Checks that the sections fit the file and agree with the size.
    pub(super) fn check_layout(&self, file_len: u64) -> std::result::Result<(), TableErrorKind> {
        self.check_lengths()?;
        let (values, sets) = self
            .grundy
            .map_or((Section::default(), Section::default()), |g| {
                (g.values, g.sets)
            });
        for (name, s) in [
            ("dictionary", self.dictionary),
            ("remoteness dictionary", self.remoteness_dictionary),
            ("cells", self.cells),
            ("remoteness", self.remoteness),
            ("Sprague-Grundy values", values),
            ("reach sets", sets),
            ("checksum", self.sums),
        ] {
            if s.len > 0
                && (s.offset < self.header_len
                    || s.offset.checked_add(s.len).is_none_or(|e| e > file_len))
            {
                return Err(TableErrorKind::Truncated(format!(
                    "the {name} section ends at byte {} but the file has {file_len}",
                    s.offset.saturating_add(s.len)
                )));
            }
        }
        if self.encoding == Encoding::Raw && !self.cells.offset.is_multiple_of(8) {
            return Err(TableErrorKind::Damaged(
                "cells section is not aligned".into(),
            ));
        }
        Ok(())
    }

    /// Checks that the sections' lengths agree with the size and the encoding.
    pub(super) fn check_lengths(&self) -> std::result::Result<(), TableErrorKind> {
        if self.counts.iter().try_fold(0u64, |a, &c| a.checked_add(c)) != Some(self.size) {
            return Err(TableErrorKind::Damaged(
                "value counts do not add up to the size".into(),
            ));
        }
        let block = self.block as u64;
        // The Sprague-Grundy sections' checksums: the values' (raw blocks; a stream's are
        // counted with the streams) and the reach sets' blocks.
        let mut grundy_sums = 0u64;
        if let Some(g) = &self.grundy {
            if g.width != GrundyFields::width_for(g.finite, g.set_count) {
                return Err(TableErrorKind::Damaged(format!(
                    "{} finite values and {} reach sets take codes of {} bytes, not {}",
                    g.finite,
                    g.set_count,
                    GrundyFields::width_for(g.finite, g.set_count),
                    g.width
                )));
            }
            if g.sets.len != GrundyFields::sets_len(g.finite, g.set_count) {
                return Err(TableErrorKind::Damaged(
                    "the reach sets section has the wrong length".into(),
                ));
            }
            if g.set_count > self.size {
                return Err(TableErrorKind::Damaged(
                    "more reach sets than positions".into(),
                ));
            }
            grundy_sums = g.sets.blocks(block);
            if self.encoding == Encoding::Raw {
                if g.values.len != self.size.saturating_mul(g.width as u64) {
                    return Err(TableErrorKind::Damaged(
                        "the Sprague-Grundy values section has the wrong length".into(),
                    ));
                }
                grundy_sums = grundy_sums.saturating_add(g.values.blocks(block));
            }
        }
        match self.encoding {
            Encoding::Raw => {
                let cell_bytes = crate::base::cells::words_for(self.size) * 8;
                if self.cells.len != cell_bytes {
                    return Err(TableErrorKind::Damaged(format!(
                        "cells section is {} bytes, {} positions need {cell_bytes}",
                        self.cells.len, self.size
                    )));
                }
                let rem_bytes = self.remoteness_encoding.section_len(self.size);
                if self.remoteness.len != rem_bytes {
                    return Err(TableErrorKind::Damaged(
                        "remoteness section has the wrong length".into(),
                    ));
                }
                let blocks = self.cells.blocks(block) + self.remoteness.blocks(block);
                if self.sums.len != blocks.saturating_add(grundy_sums).saturating_mul(8) {
                    return Err(TableErrorKind::Damaged(
                        "checksum section has the wrong length".into(),
                    ));
                }
            }
            Encoding::Zstd | Encoding::ZstdOmitted => {
                let f = self.frame_positions;
                if f == 0 || !f.is_multiple_of(32) || f > 1 << 30 {
                    return Err(TableErrorKind::Damaged(format!(
                        "bad frame size {f} positions"
                    )));
                }
                let streams =
                    1 + self.remoteness_encoding.is_stored() as u64 + self.grundy.is_some() as u64;
                let dictionary =
                    (self.dictionary.len > 0) as u64 + (self.remoteness_dictionary.len > 0) as u64;
                if self.remoteness_encoding.is_stored() != (self.remoteness.len > 0) {
                    return Err(TableErrorKind::Damaged(
                        "remoteness section disagrees with its width".into(),
                    ));
                }
                if self.remoteness_dictionary.len > 0 && self.remoteness.len == 0 {
                    return Err(TableErrorKind::Damaged(
                        "a remoteness dictionary in a table without remoteness".into(),
                    ));
                }
                if self.sums.len
                    != (self.size.div_ceil(f) + 1)
                        .saturating_mul(streams)
                        .saturating_add(dictionary)
                        .saturating_add(grundy_sums)
                        .saturating_mul(8)
                {
                    return Err(TableErrorKind::Damaged(
                        "checksum section has the wrong length".into(),
                    ));
                }
            }
        }
        Ok(())
    }
}
