//! The raw table's layout: where its sections go ([`raw_sections`], [`raw_grundy_sections`]),
//! what its header says ([`RawFields`], [`raw_header`]), and a rank's share of a raw table
//! written by several processes ([`RawLayout`]). A raw table is finished through
//! [`TableFile::commit_raw`].
//!
//! Invariant: the sections follow the header in the format's order (cells, remoteness, the
//! Sprague-Grundy values and reach sets, the checksums), each where these functions place it.

use std::path::Path;

use rayon::prelude::*;

use super::{GameFields, TableFile, TableSink, block_sums, sums_section};
use crate::base::cells;
use crate::base::error::{Error, Result};
use crate::table::format::{self, Encoding, Header, PAGE, RemotenessEncoding, Section, align};

/// A raw table's layout when several processes write it, each a share of the positions
/// (a build across ranks): where a share's cells and remoteness go, and their checksums.
pub(crate) struct RawLayout {
    cells: Section,
    remoteness: Section,
    width: u8,
}

impl RawLayout {
    /// The layout of a raw table with a header of `header_len` bytes, `size` positions and
    /// remoteness `width` bytes a position (0 for none; a share's remoteness is whole bytes).
    pub fn new(header_len: u64, size: u64, width: u8) -> RawLayout {
        let encoding = match width {
            0 => RemotenessEncoding::None,
            w => RemotenessEncoding::Bytes(w),
        };
        let (cells, remoteness) = raw_sections(header_len, size, encoding);
        RawLayout {
            cells,
            remoteness,
            width,
        }
    }

    /// Writes the share that starts at position `first` (a multiple of the positions in a
    /// checksum block of the cells and of the remoteness) into `file`, the table's work file
    /// opened at `path`, and syncs it; returns the checksums of its cells' blocks and of its
    /// remoteness' blocks, which [`TableFile::push_sums`] takes from every share in position
    /// order, the cells' before the remoteness'.
    pub fn write_share(
        &self,
        file: &std::fs::File,
        path: &Path,
        first: u64,
        cell_bytes: &[u8],
        rem_bytes: &[u8],
    ) -> Result<(Vec<u64>, Vec<u64>)> {
        use std::os::unix::fs::FileExt;
        let per_byte = cells::CELLS_PER_WORD / 8;
        file.write_all_at(cell_bytes, self.cells.offset + first / per_byte)
            .map_err(|e| Error::io(path, e))?;
        if self.width > 0 {
            file.write_all_at(
                rem_bytes,
                self.remoteness.offset + first * self.width as u64,
            )
            .map_err(|e| Error::io(path, e))?;
        }
        file.sync_data().map_err(|e| Error::io(path, e))?;
        let block = format::BLOCK as u64;
        Ok((block_sums(cell_bytes, block), block_sums(rem_bytes, block)))
    }
}

/// The cells and remoteness sections of a raw table with a header of `header_len` bytes, `size`
/// positions and remoteness stored as `rem` (an empty section at 0 when none).
pub(crate) fn raw_sections(
    header_len: u64,
    size: u64,
    rem: RemotenessEncoding,
) -> (Section, Section) {
    let cells_sec = Section {
        offset: align(header_len, PAGE),
        len: cells::words_for(size) * 8,
    };
    let rem_sec = if rem.is_stored() {
        Section {
            offset: align(cells_sec.end(), PAGE),
            len: rem.section_len(size),
        }
    } else {
        Section::default()
    };
    (cells_sec, rem_sec)
}

/// A table's generalized Sprague-Grundy values as its sections hold them: the codes, `width`
/// bytes a position, and the reach sets' words (docs/FORMAT.md).
pub(crate) struct GrundyBytes {
    pub finite: u32,
    pub width: u8,
    pub set_count: u64,
    pub values: Vec<u8>,
    pub sets: Vec<u8>,
}

impl GrundyBytes {
    /// The sections of a labelling (codes past the width's reach are refused by the
    /// labelling, which keeps them below `u32::MAX`).
    pub fn of(labels: &crate::base::grundy::Labels) -> GrundyBytes {
        let set_count = labels.set_count();
        let width = format::GrundyFields::width_for(labels.finite, set_count);
        let w = width as usize;
        let mut values = vec![0u8; labels.codes.len() * w];
        values
            .par_chunks_mut(w * 4096)
            .zip(labels.codes.par_chunks(4096))
            .for_each(|(dst, src)| {
                for (d, &c) in dst.chunks_mut(w).zip(src) {
                    d.copy_from_slice(&c.to_le_bytes()[..w]);
                }
            });
        GrundyBytes {
            finite: labels.finite,
            width,
            set_count,
            values,
            sets: labels.sets.iter().flat_map(|x| x.to_le_bytes()).collect(),
        }
    }
}

/// The sections of a raw table with generalized Sprague-Grundy values after the cells and
/// remoteness ending at `end`: the codes (`size` of `width` bytes) on the next page, the reach
/// sets (`sets_len` bytes) on the next multiple of 8.
pub(crate) fn raw_grundy_sections(
    end: u64,
    size: u64,
    width: u8,
    sets_len: u64,
) -> (Section, Section) {
    let values = Section {
        offset: align(end, PAGE),
        len: size * width as u64,
    };
    let sets = Section {
        offset: align(values.end(), 8),
        len: sets_len,
    };
    (values, sets)
}

/// What a raw table's header says besides where its sections are: the game, the positions, the
/// values' counts, the rounds, the remoteness' encoding and the Sprague-Grundy values' fields.
pub(crate) struct RawFields<'a> {
    pub game: &'a GameFields,
    pub size: u64,
    pub counts: [u64; 4],
    pub rounds: Option<u32>,
    pub rem: RemotenessEncoding,
    pub grundy: Option<&'a GrundyBytes>,
}

/// The header of a raw table with `fields` whose blocks (cells', then remoteness', then the
/// Sprague-Grundy values' and reach sets' when it has them) have the checksums `sums`.
pub(super) fn raw_header(fields: &RawFields<'_>, sums: &[u64]) -> Header {
    let RawFields {
        game,
        size,
        counts,
        rounds,
        rem,
        grundy,
    } = *fields;
    let (cells_sec, rem_sec) = raw_sections(game.header_len(), size, rem);
    let mut end = rem_sec.end().max(cells_sec.end());
    let grundy = grundy.map(|g| {
        let (values, sets) = raw_grundy_sections(end, size, g.width, g.sets.len() as u64);
        end = sets.end().max(values.end());
        format::GrundyFields {
            values,
            sets,
            finite: g.finite,
            width: g.width,
            set_count: g.set_count,
        }
    });
    let (sums_sec, sums_hash) = sums_section(end, 8, sums);
    Header {
        version: format::version_for(&game.spec),
        header_len: game.header_len(),
        size,
        encoding: Encoding::Raw,
        remoteness_encoding: rem,
        block: format::BLOCK,
        counts,
        cells: cells_sec,
        remoteness: rem_sec,
        sums: sums_sec,
        sums_hash,
        rounds,
        frame_positions: 0,
        level: 0,
        dictionary: Section::default(),
        remoteness_dictionary: Section::default(),
        grundy,
        spec: game.spec.clone(),
        source: game.source.clone(),
    }
}

/// Writes the generalized Sprague-Grundy sections of a raw table with `fields` (nothing when
/// it has none), after its cells and remoteness, into `file`.
pub(super) fn write_grundy_sections<S: TableSink>(
    file: &mut TableFile<S>,
    fields: &RawFields<'_>,
) -> Result<()> {
    let Some(g) = fields.grundy else {
        return Ok(());
    };
    let (cells_sec, rem_sec) = raw_sections(fields.game.header_len(), fields.size, fields.rem);
    let end = rem_sec.end().max(cells_sec.end());
    let (values, sets) = raw_grundy_sections(end, fields.size, g.width, g.sets.len() as u64);
    file.write_section(&g.values, values.offset)?;
    file.write_section(&g.sets, sets.offset)
}

/// Writes a whole raw table with `fields` into `file` from its packed cells and remoteness
/// bytes (as [`super::RawWriter`] writes a build's, without the maps): the sink-generic form a
/// test writes into memory.
#[cfg(test)]
pub(crate) fn write_raw<S: TableSink>(
    mut file: TableFile<S>,
    fields: &RawFields<'_>,
    cells: &[u8],
    rem_bytes: &[u8],
) -> Result<S::Done> {
    let (cells_sec, rem_sec) = raw_sections(fields.game.header_len(), fields.size, fields.rem);
    assert_eq!(
        cells.len() as u64,
        cells_sec.len,
        "the cells section's length"
    );
    file.write_section(cells, cells_sec.offset)?;
    file.write_section(rem_bytes, rem_sec.offset)?;
    write_grundy_sections(&mut file, fields)?;
    file.commit_raw(fields)
}
