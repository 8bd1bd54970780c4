//! Decompression: the raw table a compressed table stands for, byte for byte what `build`
//! wrote; a one-mover table's left-out positions decided again by the row kernel
//! ([`super::super::rows`]).

use std::path::Path;

use crate::base::error::{ConvertError, Result};
use crate::base::progress::Progress;
use crate::table::format::{self, RemotenessEncoding};
use crate::table::read::Table;
use crate::table::workfiles::OutputLock;
use crate::table::write::{GameFields, RawWriter};

/// Writes the raw table a compressed table stands for (byte for byte what `build` wrote); its
/// stages (each section decompressed, the table written) are told to `progress`, and so are the
/// stale work files of `out` it removes, as notes.
pub fn decompress(input: &Table, out: &Path, progress: &dyn Progress) -> Result<u64> {
    let h = input.header();
    if !input.is_compressed() {
        return Err(ConvertError::NotCompressed {
            path: input.path().display().to_string(),
        }
        .into());
    }
    let size = h.size;
    let game = GameFields::from_header(h, input.bytes());
    crate::table::check_output(out, &[input.path()])?;
    let _lock = OutputLock::acquire(out, progress)?;
    // The raw file: header, sections (each page-aligned) and 8 bytes of checksum a block.
    let data = crate::base::cells::words_for(size) * 8
        + h.remoteness_encoding.section_len(size)
        + h.grundy.map_or(0, |g| size * g.width as u64 + g.sets.len);
    let raw_bytes = game.header_len() + data + 2 * format::PAGE + (data / h.block as u64 + 2) * 8;
    crate::base::memory::check_disk(
        format!("decompressing {}", input.path().display()),
        out,
        raw_bytes,
    )?;
    let encoding = h.remoteness_encoding;
    let mut writer = RawWriter::create(out, game, size)?;
    // Nibbles go straight into the output's mapping; remoteness in bytes and the
    // Sprague-Grundy codes are handed to the writer whole, as a raw table's writer takes them.
    if encoding == RemotenessEncoding::Nibbles {
        writer = writer.with_nibbles()?;
    }
    // A table of a sliced board that leaves Right's positions out, remoteness in nibbles: its
    // stored frames copied as they are, then the rest restored a row at a time by the row
    // kernel.
    if super::super::rows::restore_rows(input, &writer, progress)? {
        input.check_unchanged()?;
        progress.stage("writing the raw table", 0);
        return writer.finish(h.counts, h.rounds, encoding, &[]);
    }
    let mut rem = vec![
        0u8;
        if encoding == RemotenessEncoding::Nibbles {
            0
        } else {
            encoding.section_len(size) as usize
        }
    ];
    let width = h.grundy.map_or(0, |g| g.width as usize);
    let mut values = vec![0u8; size as usize * width];
    // One pass: every section's frames restored together.
    let stage = match (encoding.is_stored(), h.grundy.is_some()) {
        (false, false) => "decompressing cells",
        (true, false) => "decompressing cells and remoteness",
        (false, true) => "decompressing cells and grundy values",
        (true, true) => "decompressing cells, remoteness and grundy values",
    };
    progress.stage(stage, size);
    // Frames restored in parallel a batch at a time, front to back, each copied into place.
    input.restore_frames(Ok, |frame| {
        let (first, n) = (frame.first as usize, frame.n as usize);
        writer.bytes_mut()[first / 4..first / 4 + frame.cells.len()].copy_from_slice(&frame.cells);
        match encoding {
            RemotenessEncoding::Nibbles => {
                // Frames start at multiples of 32 positions: two whole words of 16 nibbles.
                crate::table::frames::store_bytes(
                    &writer.nibble_words()[first / 16..],
                    &frame.remoteness,
                );
            }
            RemotenessEncoding::Bytes(w) => {
                let w = w as usize;
                rem[first * w..(first + n) * w].copy_from_slice(&frame.remoteness);
            }
            RemotenessEncoding::None => {}
        }
        values[first * width..(first + n) * width].copy_from_slice(&frame.grundy);
        progress.advance(frame.n);
        Ok(())
    })?;
    if let Some(g) = h.grundy {
        writer.set_grundy(crate::table::write::GrundyBytes {
            finite: g.finite,
            width: g.width,
            set_count: g.set_count,
            values,
            sets: input.grundy_sets_bytes()?.to_vec(),
        });
    }
    input.check_unchanged()?;
    progress.stage("writing the raw table", 0);
    writer.finish(h.counts, h.rounds, encoding, &rem)
}
