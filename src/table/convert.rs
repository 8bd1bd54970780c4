//! Converting tables between encodings: raw to zstd-compressed (`compress`, and `build
//! --compress`) and back (`decompress`).
//!
//! Compression fills the "don't care" cells — positions the rules decide alone — with whatever
//! compresses best (the value of the cell before, so runs get longer), in frames compressed in
//! parallel a batch at a time, so memory stays bounded whatever the table's size. Decompression
//! puts the rules' values back, so a round trip gives back the raw table byte for byte.

use std::path::Path;

use rayon::prelude::*;

use super::format::put_remoteness;
use super::format::{self, Encoding, Header, RemotenessEncoding, Section};
use super::read::Table;
use super::workfiles::OutputLock;
use super::write::{GameFields, RawWriter, TableFile, TableSink};
use super::zstd::{DontCareFill, Entry, Params, compress_frame, seek_table};
use crate::base::cells;
use crate::base::error::{ConvertError, Error, Result};
use crate::base::progress::Progress;
use crate::game::{Game, Omissions, Rules, by_rules};
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
/// ([`super::zstd::train_dictionaries`]); of the dictionaries and none, the one with which those
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
    let dictionaries = super::zstd::train_dictionaries(&samples, params.level);
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

/// The contents to try for one frame: every fill for [`DontCareFill::Best`], else the one asked for.
fn candidates(
    fill: DontCareFill,
    make: impl Fn(DontCareFill) -> Result<Vec<u8>>,
) -> Result<Vec<Vec<u8>>> {
    match fill {
        DontCareFill::Best => [
            DontCareFill::Stored,
            DontCareFill::Previous,
            DontCareFill::Second,
        ]
        .into_iter()
        .map(make)
        .collect(),
        f => Ok(vec![make(f)?]),
    }
}

/// The cell bytes of positions `first..first + n`, don't-care cells filled as `fill` says;
/// with `omitted`, the positions the game marks omissible are don't-care too.
fn cell_frame(
    input: &Table,
    first: u64,
    n: u64,
    fill: DontCareFill,
    omitted: bool,
) -> Result<Vec<u8>> {
    let raw = input.raw_cells(first, n)?;
    Ok(with_game!(input.game(), g => cell_frame_of(g, raw, first, n, fill, omitted)))
}

/// [`cell_frame`] from the cells themselves: `raw` holds positions `first..first + n` as a raw
/// table's bytes do (`first` a multiple of 4), the bits past the last zero. A build that writes
/// its frames as it solves (the out-of-core kernel) makes them here, so they are the frames
/// `compress` makes of the raw table.
pub(crate) fn cell_frame_of<G: Game + Omissions>(
    g: &G,
    raw: &[u8],
    first: u64,
    n: u64,
    fill: DontCareFill,
    omitted: bool,
) -> Vec<u8> {
    let bytes = n.div_ceil(4) as usize;
    // Stored values need no rules: the raw bytes are the frame, left-out cells zeroed.
    if fill == DontCareFill::Stored {
        let mut out = raw[..bytes].to_vec();
        if omitted {
            for r in g.omissible_ranges(first, n).into_iter().flatten() {
                clear_cells(&mut out, r.start - first..r.end - first);
            }
        }
        return out;
    }
    let left_out = if omitted {
        g.omissible_run(first, n)
    } else {
        None
    };
    let mut out = vec![0u8; bytes];
    let mut prev = 0u8;
    let searched = g.searched_run(first, n);
    for i in 0..n {
        let pos = first + i;
        let rules = match &searched {
            _ if left_out.as_ref().is_some_and(|o| o[i as usize]) => Rules::Unused,
            Some(s) if s[i as usize] => Rules::Search,
            // Only whether the rules decide matters here, not their value.
            Some(_) => Rules::Unused,
            None => by_rules(g, pos),
        };
        let code = match (rules, fill) {
            (Rules::Search, _) | (_, DontCareFill::Stored) => {
                prev = cells::get_in_bytes(raw, i);
                prev
            }
            (_, DontCareFill::Previous | DontCareFill::Best) => prev,
            (_, DontCareFill::Zero) => 0,
            (_, DontCareFill::Second) if i >= 2 => cells::get_in_bytes(&out, i - 2),
            (_, DontCareFill::Second) => 0,
        };
        out[(i / 4) as usize] |= code << ((i % 4) * 2);
    }
    out
}

/// Zeroes the 2-bit cells `range` of `bytes`: whole bytes at once, the cells at its ends one by
/// one.
fn clear_cells(bytes: &mut [u8], range: std::ops::Range<u64>) {
    let (mut a, b) = (range.start, range.end);
    while a < b && !a.is_multiple_of(4) {
        bytes[(a / 4) as usize] &= !(3 << ((a % 4) * 2));
        a += 1;
    }
    let whole = (b - a) / 4;
    bytes[(a / 4) as usize..(a / 4 + whole) as usize].fill(0);
    a += whole * 4;
    while a < b {
        bytes[(a / 4) as usize] &= !(3 << ((a % 4) * 2));
        a += 1;
    }
}

/// The contents to try for one frame of cells made by [`cell_frame_of`]: every fill for
/// [`DontCareFill::Best`], else the one asked for.
pub(crate) fn cell_candidates<G: Game + Omissions>(
    g: &G,
    raw: &[u8],
    first: u64,
    n: u64,
    params: Params,
) -> Vec<Vec<u8>> {
    let made = candidates(params.fill, |fill| {
        Ok(cell_frame_of(g, raw, first, n, fill, params.one_mover))
    });
    made.expect("making a frame from cells does not fail")
}

/// Which of positions `first..first + n` a one-mover table leaves out (`None`: none).
fn left_out(input: &Table, first: u64, n: u64, omitted: bool) -> Option<Vec<bool>> {
    if omitted {
        with_game!(input.game(), g => g.omissible_run(first, n))
    } else {
        None
    }
}

/// The remoteness bytes of positions `first..first + n`, don't-care entries filled as `fill`
/// says; with `omitted`, the positions the game marks omissible are don't-care too (fill
/// `stored`: zero).
fn remoteness_frame(
    input: &Table,
    first: u64,
    n: u64,
    fill: DontCareFill,
    omitted: bool,
) -> Result<Vec<u8>> {
    let out_of_table = left_out(input, first, n, omitted);
    let w = match input.header().remoteness_encoding {
        RemotenessEncoding::Nibbles => return nibble_frame(input, first, n, fill, out_of_table),
        RemotenessEncoding::Bytes(w) => w as usize,
        RemotenessEncoding::None => 0,
    };
    let mut out = vec![0u8; n as usize * w];
    let mut prev = crate::base::remoteness::NONE;
    with_game!(input.game(), g => {
        for i in 0..n as usize {
            let pos = first + i as u64;
            let omitted_here = out_of_table.as_ref().is_some_and(|o| o[i]);
            let rules = if omitted_here { Rules::Unused } else { by_rules(g, pos) };
            let r = match (rules, fill) {
                (_, DontCareFill::Stored) if omitted_here => 0,
                (Rules::Search, _) | (_, DontCareFill::Stored) => {
                    prev = input.remoteness(pos)?.unwrap_or(crate::base::remoteness::NONE);
                    prev
                }
                (_, DontCareFill::Previous | DontCareFill::Second | DontCareFill::Best) => prev,
                (_, DontCareFill::Zero) => 0,
            };
            put_remoteness(&mut out[i * w..(i + 1) * w], r);
        }
        Ok::<(), Error>(())
    })?;
    Ok(out)
}

/// [`remoteness_frame`] of a table with remoteness in nibbles: the stored bytes as they are,
/// or with the positions the rules decide filled as `fill` says (the previous nibble, or 0);
/// the positions `left_out` marks are don't-care too (zero with fill `stored`).
fn nibble_frame(
    input: &Table,
    first: u64,
    n: u64,
    fill: DontCareFill,
    left_out: Option<Vec<bool>>,
) -> Result<Vec<u8>> {
    let stored = input.raw_nibbles(first, n)?;
    if fill == DontCareFill::Stored {
        let mut out = stored.to_vec();
        for (i, _) in left_out.iter().flatten().enumerate().filter(|(_, o)| **o) {
            out[i / 2] &= !(15 << (4 * (i % 2)));
        }
        return Ok(out);
    }
    let nibble = |i: u64| stored[(i / 2) as usize] >> (4 * (i % 2)) & 15;
    let mut out = vec![0u8; n.div_ceil(2) as usize];
    let mut prev = 0u8;
    with_game!(input.game(), g => {
        let searched = g.searched_run(first, n);
        for i in 0..n {
            let search = match &searched {
                _ if left_out.as_ref().is_some_and(|o| o[i as usize]) => false,
                Some(s) => s[i as usize],
                None => matches!(by_rules(g, first + i), Rules::Search),
            };
            let x = match fill {
                _ if search => {
                    prev = nibble(i);
                    prev
                }
                DontCareFill::Zero => 0,
                DontCareFill::Second if i >= 2 => out[((i - 2) / 2) as usize] >> (4 * (i % 2)) & 15,
                DontCareFill::Second => 0,
                _ => prev,
            };
            out[(i / 2) as usize] |= x << (4 * (i % 2));
        }
    });
    Ok(out)
}

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
    if super::rows::restore_rows(input, &writer, progress)? {
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
                super::frames::store_bytes(&writer.nibble_words()[first / 16..], &frame.remoteness);
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
        writer.set_grundy(super::write::GrundyBytes {
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
