//! Writing table files: [`TableFile`], the one writer that assembles a table (its sections,
//! their block checksums in order, the checksums section and the header) into any sink
//! (`sink.rs`: [`TableSink`]; a table file's is the temporary file, synced and renamed into
//! place; the tests' a `Cursor<Vec<u8>>`), and the header's game and source fields;
//! `raw.rs` holds the raw table's layout and header and a rank's share of a raw table written
//! by several processes ([`RawLayout::write_share`]); `raw_writer.rs` the raw table a build
//! fills over a [`TableFile`] ([`RawWriter`]). Every table file —
//! a single-process build, a build across ranks, compression, decompression — is committed by
//! [`TableFile::commit`]. It knows files and bytes; what goes into the cells is the caller's
//! business.
//!
//! Invariant: a file appears under its final name only complete — written, checksummed, synced
//! and renamed; on any error the temporary file is removed (a resumable work file is kept).

use std::path::Path;

use rayon::prelude::*;

use super::format::{self, Header, Section, SourceRef, align};
pub(crate) use super::workfiles::TempFile;
use crate::base::error::Result;
use crate::games::{AnyGame, Source};

mod raw;
mod raw_writer;
mod sink;

use raw::raw_header;
#[cfg(test)]
pub(crate) use raw::write_raw;
pub(crate) use raw::{GrundyBytes, RawFields, RawLayout, raw_sections};
pub(crate) use raw_writer::RawWriter;
#[cfg(test)]
pub(crate) use sink::Seekable;
pub(crate) use sink::TableSink;

/// The header's description of the game: its spec, and its input embedded or referred to; and
/// whether the header has the generalized Sprague-Grundy fields (which change its length).
pub(crate) struct GameFields {
    pub spec: String,
    pub source: SourceRef,
    pub embedded: Vec<u8>,
    pub grundy: bool,
}

impl GameFields {
    pub fn of(game: &AnyGame) -> GameFields {
        GameFields::of_source(game.spec(), game.source())
    }

    /// The fields of a game with this spec and input.
    pub fn of_source(spec: String, source: Option<&Source>) -> GameFields {
        let (source, embedded) = match source {
            None => (SourceRef::None, Vec::new()),
            Some(src) => match &src.bytes {
                Some(bytes) => (
                    SourceRef::Embedded {
                        source: src.clone(),
                        offset: format::FIXED as u64 + spec.len() as u64,
                    },
                    bytes.to_vec(),
                ),
                None => (SourceRef::Referenced(src.clone()), Vec::new()),
            },
        };
        GameFields {
            spec,
            source,
            embedded,
            grundy: false,
        }
    }

    /// These fields for a table with generalized Sprague-Grundy values.
    pub fn with_grundy(self) -> GameFields {
        GameFields {
            grundy: true,
            ..self
        }
    }

    /// The same fields as a table's header has them (the embedded bytes read from `map`).
    pub fn from_header(h: &Header, map: &[u8]) -> GameFields {
        let embedded = match &h.source {
            SourceRef::Embedded { source, offset } => {
                map[*offset as usize..(*offset + source.len) as usize].to_vec()
            }
            _ => Vec::new(),
        };
        GameFields {
            spec: h.spec.clone(),
            source: h.source.clone(),
            embedded,
            grundy: h.grundy.is_some(),
        }
    }

    pub fn header_len(&self) -> u64 {
        let embedded = if matches!(self.source, SourceRef::Embedded { .. }) {
            self.embedded.len() as u64
        } else {
            0
        };
        Header::len_for(&self.spec, embedded, self.grundy)
    }
}

/// xxh3-64 of every `block` bytes of `bytes` (the last block may be shorter).
pub(crate) fn block_sums(bytes: &[u8], block: u64) -> Vec<u64> {
    bytes
        .par_chunks(block as usize)
        .map(xxhash_rust::xxh3::xxh3_64)
        .collect()
}

/// A table being written, in the manner of fst's `raw::Builder<W>`: its sink (the temporary or
/// resumable work file of a table file, or any seekable writer: [`TableSink`]) and the
/// checksums of the blocks written so far, in the order the format lists them.
/// [`TableFile::commit`] is the one place a table is finished: the checksums section, the
/// header, and the sink's finish (for a file, the sync and the rename). Dropped uncommitted, a
/// temporary file is removed ([`TempFile`]).
pub(crate) struct TableFile<S: TableSink = TempFile> {
    sink: S,
    sums: Vec<u64>,
}

impl TableFile {
    /// A new table `out`, written through `.NAME.tmp-PID` beside it.
    pub fn create(out: &Path) -> Result<TableFile> {
        Ok(TableFile::over(TempFile::create(out)?))
    }

    /// Waits for the bytes written so far to reach the disk.
    pub fn sync(&self) -> Result<()> {
        self.sink.sync()
    }
}

impl<S: TableSink> TableFile<S> {
    /// A table written to `sink`, which holds nothing of it yet (or a resumed work file's
    /// sections, which the writer checksums where they are).
    pub fn over(sink: S) -> TableFile<S> {
        TableFile {
            sink,
            sums: Vec::new(),
        }
    }

    /// Writes `bytes` at `at`, outside any checksummed section (a token, a dictionary whose
    /// checksum [`TableFile::push_sums`] adds later).
    pub fn write_at(&self, bytes: &[u8], at: u64) -> Result<()> {
        self.sink.write_at(bytes, at)
    }

    /// Writes a section's `bytes` at `at` and appends their blocks' checksums.
    pub fn write_section(&mut self, bytes: &[u8], at: u64) -> Result<()> {
        self.sink.write_at_parallel(bytes, at)?;
        self.sums.extend(block_sums(bytes, format::BLOCK as u64));
        Ok(())
    }

    /// Appends checksums of blocks written otherwise (mapped, streamed, by other ranks).
    pub fn push_sums(&mut self, sums: impl IntoIterator<Item = u64>) {
        self.sums.extend(sums);
    }

    /// The sink and the checksums so far, for a writer that interleaves both (the compressed
    /// streams).
    pub fn parts(&mut self) -> (&S, &mut Vec<u64>) {
        (&self.sink, &mut self.sums)
    }

    /// The checksums section after `end` (aligned to `align_to`) and its hash, as a header
    /// records them.
    pub fn sums_section(&self, end: u64, align_to: u64) -> (Section, u64) {
        sums_section(end, align_to, &self.sums)
    }

    /// Finishes the table: writes the checksums where `header` places them (its checksums
    /// section and hash must be [`TableFile::sums_section`]'s), cuts the sink there, writes the
    /// header (with `embedded`, the game's input where the header holds it) and finishes the
    /// sink (a file: synced and renamed into place; returns its size).
    pub fn commit(self, header: &Header, embedded: &[u8]) -> Result<S::Done> {
        let bytes = sums_bytes(&self.sums);
        assert_eq!(
            header.sums.len,
            bytes.len() as u64,
            "the header's checksums"
        );
        debug_assert_eq!(header.sums_hash, xxhash_rust::xxh3::xxh3_64(&bytes));
        let sink = self.sink;
        sink.write_at(&bytes, header.sums.offset)?;
        // The file ends with the checksums: a resumed work file longer than this table (it
        // cannot be, but a damaged one might) is cut to them.
        sink.cut(header.sums.end())?;
        sink.write_at(&header.encode(embedded), 0)?;
        sink.finish()
    }

    /// Finishes a raw table with the header fields `fields` whose sections are all written and
    /// checksummed.
    pub fn commit_raw(self, fields: &RawFields<'_>) -> Result<S::Done> {
        let header = raw_header(fields, &self.sums);
        self.commit(&header, &fields.game.embedded)
    }
}

/// The checksums section's bytes.
fn sums_bytes(sums: &[u64]) -> Vec<u8> {
    sums.iter().flat_map(|s| s.to_le_bytes()).collect()
}

/// The checksums section holding `sums` after `end` (aligned to `align_to`: 8 in a raw table,
/// 1 in a compressed one, which has no padding) and its hash.
fn sums_section(end: u64, align_to: u64, sums: &[u64]) -> (Section, u64) {
    let section = Section {
        offset: align(end, align_to),
        len: sums.len() as u64 * 8,
    };
    (section, xxhash_rust::xxh3::xxh3_64(&sums_bytes(sums)))
}
