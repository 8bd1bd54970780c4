//! Converting tables between encodings: raw to zstd-compressed (`compress`, and `build
//! --compress`) and back (`decompress`, [`decompress`]). They are the builder's: the table a
//! conversion writes comes from another table, and a one-mover table's decompression decides
//! its left-out positions with the solver's row kernel (`super::rows`).
//!
//! Compression fills the "don't care" cells — positions the rules decide alone — with whatever
//! compresses best (the value of the cell before, so runs get longer), in frames compressed in
//! parallel a batch at a time, so memory stays bounded whatever the table's size ([`frames`]
//! makes each frame's contents). Decompression puts the rules' values back, so a round trip
//! gives back the raw table byte for byte.

mod decompress;
mod frames;

pub use decompress::decompress;
pub(crate) use frames::cell_candidates;
use frames::{candidates, cell_frame, remoteness_frame};

use std::path::Path;

use rayon::prelude::*;

use crate::base::error::{ConvertError, Error, Result};
use crate::base::progress::Progress;
use crate::game::{Game, Omissions};
use crate::table::format::{self, Encoding, Header, Section};
use crate::table::read::Table;
use crate::table::workfiles::OutputLock;
use crate::table::write::{GameFields, TableFile, TableSink};
use crate::table::zstd::{DontCareFill, Entry, Params, compress_frame, seek_table};
use crate::with_game;

/// Frames compressed together before they are written (per thread).
const BATCH_PER_THREAD: usize = 4;

/// Writes a compressed copy of the raw table `input` to `out`; returns the file's size. Its
/// stages (checking the checksums, choosing a dictionary, compressing each section) are told to
/// `progress`, and so are the stale work files of `out` it removes, as notes.
pub fn compress(input: &Table, out: &Path, params: Params, progress: &dyn Progress) -> Result<u64> {
    let h = input.header();
    if input.is_compressed() {
        return Err(ConvertError::AlreadyCompressed {
            path: input.path().display().to_string(),
        }
        .into());
    }
    let f = params.frame_positions;
    if f == 0 || !f.is_multiple_of(32) || f > 1 << 30 {
        return Err(ConvertError::FrameSize { frame_positions: f }.into());
    }
    if !(1..=22).contains(&params.level) {
        return Err(ConvertError::Level {
            level: params.level,
        }
        .into());
    }
    let no_side = with_game!(input.game(), g => g.size() > 0 && g.omissible(0).is_none());
    if params.one_mover && no_side {
        return Err(ConvertError::OneMoverGame {
            path: input.path().display().to_string(),
            spec: h.spec.clone(),
        }
        .into());
    }
    // The output may be the input (a conversion in place): the raw table is replaced only by
    // its complete compressed copy.
    crate::table::check_output(out, &[])?;
    // Every byte that goes into a frame is checked first.
    input.verify_checksums_with(progress)?;
    let _lock = OutputLock::acquire(out, progress)?;
    write_compressed(input, TableFile::create(out)?, params, progress)
}

/// Writes the compressed copy of the raw table `input` (checked by [`compress`]) into `table`,
/// any sink, and finishes it.
pub(crate) fn write_compressed<S: TableSink>(
    input: &Table,
    mut table: TableFile<S>,
    params: Params,
    progress: &dyn Progress,
) -> Result<S::Done> {
    let h = input.header();
    let (f, omitted) = (params.frame_positions, params.one_mover);
    let game = GameFields::from_header(h, input.bytes());
    let size = h.size;
    let frames = size.div_ceil(f) as usize;
    let encoding = h.remoteness_encoding;
    let [(dictionary, dict_sec), (rem_dictionary, rem_dict_sec)] =
        write_dictionaries(&table, input, params, frames, game.header_len(), progress)?;
    let header_len = game.header_len()
        + if rem_dictionary.is_some() {
            format::REMOTENESS_DICTIONARY_FIELDS
        } else {
            0
        };
    let prepare = |d: &Option<Vec<u8>>| {
        d.as_ref()
            .map(|d| zstd::dict::EncoderDictionary::copy(d, params.level))
    };
    let (prepared, rem_prepared) = (prepare(&dictionary), prepare(&rem_dictionary));
    let start = header_len + dict_sec.len + rem_dict_sec.len;

    // Each stream with its own dictionary, where one paid.
    let stream = |table: &mut TableFile<S>, what: &str, at: u64, frame: Frame, dict| {
        compress_section(table, input, params, (what, at), frame, dict, progress)
    };
    let cells_sec = stream(
        &mut table,
        "compressing cells",
        start,
        cell_frame,
        prepared.as_ref(),
    )?;
    let rem_sec = if encoding.is_stored() {
        stream(
            &mut table,
            "compressing remoteness",
            cells_sec.end(),
            remoteness_frame,
            rem_prepared.as_ref(),
        )?
    } else {
        Section::default()
    };
    let mut end = rem_sec.end().max(cells_sec.end());
    let grundy = match h.grundy {
        Some(g) => {
            let g = compress_grundy(&mut table, input, g, params, end, progress)?;
            end = g.sets.end();
            Some(g)
        }
        None => None,
    };
    // The dictionaries' checksums come last (the cells', then the remoteness'), so the
    // streams' checksums keep their places.
    for d in [&dictionary, &rem_dictionary].into_iter().flatten() {
        table.push_sums([xxhash_rust::xxh3::xxh3_64(d)]);
    }
    // No padding before the checksums either.
    let (sums_sec, sums_hash) = table.sums_section(end, 1);
    let header = Header {
        version: format::version_for(&game.spec),
        header_len,
        size,
        encoding: if omitted {
            Encoding::ZstdOmitted
        } else {
            Encoding::Zstd
        },
        remoteness_encoding: h.remoteness_encoding,
        block: format::BLOCK,
        counts: h.counts,
        cells: cells_sec,
        remoteness: rem_sec,
        sums: sums_sec,
        sums_hash,
        rounds: h.rounds,
        frame_positions: f,
        level: params.level,
        dictionary: dict_sec,
        remoteness_dictionary: rem_dict_sec,
        grundy,
        spec: game.spec,
        source: game.source,
    };
    // The input was read in place: a file changed under it is not copied as a table.
    input.check_unchanged()?;
    table.commit(&header, &game.embedded)
}

/// A function that makes a section's frame from the raw table: positions `first..first + n`,
/// the don't-care cells filled as asked, positions the rules decide left out when `omitted`.
type Frame = fn(&Table, u64, u64, DontCareFill, bool) -> Result<Vec<u8>>;

/// Compresses one section of `input` (told to `progress` as stage `what`) into a seekable stream
/// at `at`, each frame made by `frame` with the fill that compresses best; returns its section.
fn compress_section<S: TableSink>(
    table: &mut TableFile<S>,
    input: &Table,
    params: Params,
    (what, at): (&str, u64),
    frame: Frame,
    dictionary: Option<&zstd::dict::EncoderDictionary<'_>>,
    progress: &dyn Progress,
) -> Result<Section> {
    let f = params.frame_positions;
    let size = input.header().size;
    let frames = size.div_ceil(f) as usize;
    progress.stage(what, frames as u64);
    let codec = (params.level, dictionary);
    let (sink, sums) = table.parts();
    write_stream(sink, at, frames, codec, sums, progress, |k| {
        let first = k as u64 * f;
        candidates(params.fill, |fill| {
            frame(input, first, f.min(size - first), fill, params.one_mover)
        })
    })
}

/// A chosen dictionary (or none) and its section (empty at 0 when there is none).
type Dictionary = (Option<Vec<u8>>, Section);

/// The dictionaries for the cells' frames and for the remoteness' when `params` asks for them
/// and each pays, written right after the header (a compressed file has no padding: every byte
/// is covered by a checksum), the cells' first; `header_len` is the header's length without
/// the remoteness dictionary's fields, which a table with one has too (version 7).
fn write_dictionaries<S: TableSink>(
    table: &TableFile<S>,
    input: &Table,
    params: Params,
    frames: usize,
    header_len: u64,
    progress: &dyn Progress,
) -> Result<[Dictionary; 2]> {
    let (cells, remoteness) = if params.dictionary {
        let cells = choose_dictionary(input, params, frames, ("cells", cell_frame), progress)?;
        let remoteness = if input.header().remoteness_encoding.is_stored() {
            let frame = ("remoteness", remoteness_frame as Frame);
            choose_dictionary(input, params, frames, frame, progress)?
        } else {
            None
        };
        (cells, remoteness)
    } else {
        (None, None)
    };
    let header_len = header_len
        + if remoteness.is_some() {
            format::REMOTENESS_DICTIONARY_FIELDS
        } else {
            0
        };
    let mut at = header_len;
    let mut place = |d: Option<Vec<u8>>| -> Result<Dictionary> {
        let sec = Section {
            offset: if d.is_some() { at } else { 0 },
            len: d.as_ref().map_or(0, |d| d.len() as u64),
        };
        if let Some(d) = &d {
            table.write_at(d, sec.offset)?;
        }
        at += sec.len;
        Ok((d, sec))
    };
    Ok([place(cells)?, place(remoteness)?])
}

/// The generalized Sprague-Grundy codes `g` of `input` compressed at `end`: a stream of frames
/// as stored (no don't-care), then the reach sets as they are, checksummed a block at a time.
fn compress_grundy<S: TableSink>(
    table: &mut TableFile<S>,
    input: &Table,
    g: format::GrundyFields,
    params: Params,
    end: u64,
    progress: &dyn Progress,
) -> Result<format::GrundyFields> {
    let f = params.frame_positions;
    let size = input.header().size;
    let frames = size.div_ceil(f) as usize;
    progress.stage("compressing grundy values", frames as u64);
    let (sink, sums) = table.parts();
    let values = write_stream(
        sink,
        end,
        frames,
        (params.level, None),
        sums,
        progress,
        |k| {
            let first = k as u64 * f;
            Ok(vec![
                input.raw_grundy_codes(first, f.min(size - first))?.to_vec(),
            ])
        },
    )?;
    let set_bytes = input.grundy_sets_bytes()?;
    let sets = Section {
        offset: values.end(),
        len: set_bytes.len() as u64,
    };
    table.write_section(set_bytes, sets.offset)?;
    Ok(format::GrundyFields { values, sets, ..g })
}

/// Compresses `frames` frames made by `make` into a seekable stream at `at`; pushes each frame's
/// checksum and then the seek table's onto `sums`.
fn write_stream(
    sink: &impl TableSink,
    at: u64,
    frames: usize,
    (level, dictionary): (i32, Option<&zstd::dict::EncoderDictionary<'_>>),
    sums: &mut Vec<u64>,
    progress: &dyn Progress,
    make: impl Fn(usize) -> Result<Vec<Vec<u8>>> + Sync,
) -> Result<Section> {
    let batch = rayon::current_num_threads() * BATCH_PER_THREAD;
    let mut stream = StreamWriter::new(at, frames);
    for first in (0..frames).step_by(batch.max(1)) {
        let last = (first + batch).min(frames);
        let done: Vec<Result<(Vec<u8>, Entry)>> = (first..last)
            .into_par_iter()
            .map(|k| smallest(make(k)?, level, dictionary, sink.name()))
            .collect();
        for d in done {
            stream.push(sink, sums, d?)?;
            progress.advance(1);
        }
    }
    stream.finish(sink, sums)
}

/// The smallest of the candidate contents of one frame, compressed (with its seek table entry).
pub(crate) fn smallest(
    candidates: Vec<Vec<u8>>,
    level: i32,
    dictionary: Option<&zstd::dict::EncoderDictionary<'_>>,
    name: &Path,
) -> Result<(Vec<u8>, Entry)> {
    let mut best: Option<(Vec<u8>, Entry)> = None;
    for raw in candidates {
        let c = compress_frame(&raw, level, dictionary).map_err(|e| Error::io(name, e))?;
        if best.as_ref().is_none_or(|b| c.0.len() < b.0.len()) {
            best = Some(c);
        }
    }
    Ok(best.expect("at least one candidate"))
}

/// A seekable stream being written front to back: compressed frames appended in order, each
/// one's checksum pushed as it goes, and the seek table at the end.
pub(crate) struct StreamWriter {
    at: u64,
    pos: u64,
    entries: Vec<Entry>,
}

impl StreamWriter {
    /// A stream at `at` of about `frames` frames.
    pub fn new(at: u64, frames: usize) -> StreamWriter {
        StreamWriter {
            at,
            pos: at,
            entries: Vec::with_capacity(frames),
        }
    }

    /// A stream at `at` taken up after `entries`' frames, which end at `pos`.
    pub fn resumed(at: u64, pos: u64, entries: Vec<Entry>) -> StreamWriter {
        StreamWriter { at, pos, entries }
    }

    /// Where the next frame goes, and the frames so far.
    pub fn end(&self) -> u64 {
        self.pos
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Appends one compressed frame and pushes its checksum onto `sums`.
    pub fn push(
        &mut self,
        sink: &impl TableSink,
        sums: &mut Vec<u64>,
        (bytes, entry): (Vec<u8>, Entry),
    ) -> Result<()> {
        sink.write_at(&bytes, self.pos)?;
        self.pos += bytes.len() as u64;
        sums.push(xxhash_rust::xxh3::xxh3_64(&bytes));
        self.entries.push(entry);
        Ok(())
    }

    /// Writes the seek table, pushes its checksum; the stream's section.
    pub fn finish(self, sink: &impl TableSink, sums: &mut Vec<u64>) -> Result<Section> {
        let table = seek_table(&self.entries);
        sink.write_at(&table, self.pos)?;
        sums.push(xxhash_rust::xxh3::xxh3_64(&table));
        Ok(Section {
            offset: self.at,
            len: self.pos + table.len() as u64 - self.at,
        })
    }
}

/// Frames a dictionary is trained on and judged by, at most.
const DICTIONARY_SAMPLES: usize = 1024;

/// A zstd dictionary for one stream's frames (`what`, made by `frame`: the cells' or the
/// remoteness'), when one makes the file smaller: trained on up to [`DICTIONARY_SAMPLES`]
/// frames of the stream spread evenly over the table
/// ([`crate::table::zstd::train_dictionaries`]); of the dictionaries and none, the one with which those
/// frames, compressed and scaled to the whole table, plus the dictionary's own bytes (and its
/// checksum and header fields), come to the least. `None` for tables of a few frames.
fn choose_dictionary(
    input: &Table,
    params: Params,
    frames: usize,
    (what, frame): (&str, Frame),
    progress: &dyn Progress,
) -> Result<Option<Vec<u8>>> {
    let (f, size) = (params.frame_positions, input.header().size);
    let n = frames.min(DICTIONARY_SAMPLES);
    if n < 16 {
        return Ok(None);
    }
    // `best` tries `stored` first: the samples hold what most frames of the cell games keep.
    let fill = match params.fill {
        DontCareFill::Best => DontCareFill::Stored,
        fill => fill,
    };
    progress.stage(
        &format!("sampling {what} frames for a dictionary"),
        n as u64,
    );
    let samples: Vec<Vec<u8>> = (0..n)
        .into_par_iter()
        .map(|i| {
            let first = (i * frames / n) as u64 * f;
            let made = frame(input, first, f.min(size - first), fill, params.one_mover);
            progress.advance(1);
            made
        })
        .collect::<Result<_>>()?;
    let sizes = |d: Option<&zstd::dict::EncoderDictionary<'_>>| -> Result<u64> {
        samples
            .par_iter()
            .map(|s| {
                let bytes = compress_frame(s, params.level, d)
                    .map(|(c, _)| c.len() as u64)
                    .map_err(|e| Error::io(input.path(), e));
                progress.advance(1);
                bytes
            })
            .sum()
    };
    // The samples' bytes scaled to the table, plus the dictionary's own.
    let scale = |bytes: u64| bytes as f64 * frames as f64 / n as f64;
    progress.stage(&format!("training {what} dictionaries"), 0);
    let dictionaries = crate::table::zstd::train_dictionaries(&samples, params.level);
    progress.stage(
        &format!("judging the {what} dictionaries"),
        (n * (1 + dictionaries.len())) as u64,
    );
    // A dictionary's checksum, and for the remoteness' its header fields (version 7).
    let overhead = 8 + if what == "remoteness" {
        format::REMOTENESS_DICTIONARY_FIELDS
    } else {
        0
    };
    let mut best = (scale(sizes(None)?), None);
    for dict in dictionaries {
        let prepared = zstd::dict::EncoderDictionary::copy(&dict, params.level);
        let bytes = scale(sizes(Some(&prepared))?) + (dict.len() as u64 + overhead) as f64;
        if bytes < best.0 {
            best = (bytes, Some(dict));
        }
    }
    Ok(best.1)
}
