//! Where a game's input came from, and the shared reader for line-oriented input files.
//!
//! A table embeds the bytes of the file its game was built from (up to [`EMBED_LIMIT`], or
//! whatever its size with [`Embed::Always`], `build --embed`), so the table answers on its own
//! even when the file has moved. Larger inputs are referred to by their absolute path, length and
//! hash (so the table opens from any working directory), and a table refuses to answer for a
//! file that has changed since the build.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use memmap2::Mmap;

use crate::base::error::{Error, Result};
use crate::base::progress::Progress;

/// Inputs up to this size are copied into the table header.
pub const EMBED_LIMIT: u64 = 64 << 20;

/// Whether a table keeps its game's input file in its header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Embed {
    /// Inputs up to `EMBED_LIMIT` are embedded; a larger one is referred to by its absolute
    /// path, and the table needs the file where it was.
    #[default]
    UpToLimit,
    /// The input is embedded whatever its size (`build --embed`; a table's own embedded input
    /// read again stays embedded).
    Always,
}

/// The identity of a game's input file, and its bytes when they are small enough to embed.
#[derive(Clone, Debug)]
pub struct Source {
    /// The path as the user gave it in the spec.
    pub name: String,
    pub len: u64,
    /// xxh3-64 of the bytes.
    pub hash: u64,
    /// The bytes, kept when at most `EMBED_LIMIT` long.
    pub bytes: Option<Arc<[u8]>>,
}

impl Source {
    pub fn of(name: &str, bytes: &[u8]) -> Source {
        Source {
            name: name.to_string(),
            len: bytes.len() as u64,
            hash: xxhash_rust::xxh3::xxh3_64(bytes),
            bytes: (bytes.len() as u64 <= EMBED_LIMIT).then(|| Arc::from(bytes)),
        }
    }

    /// [`Source::of`] an input, its mapped pages released behind the hash a block at a time,
    /// so a large input never counts whole in the process's memory. Kept whole with
    /// [`Embed::Always`]; otherwise an input over `EMBED_LIMIT` is named by its absolute path
    /// (`absolute_name`), so that the table that refers to it opens from any directory.
    pub fn of_released(name: &str, input: &InputBytes<'_>, embed: Embed) -> Source {
        let bytes = input.bytes();
        if embed == Embed::Always || bytes.len() as u64 <= EMBED_LIMIT {
            return Source {
                name: name.to_string(),
                len: bytes.len() as u64,
                hash: xxhash_rust::xxh3::xxh3_64(bytes),
                bytes: Some(Arc::from(bytes)),
            };
        }
        let name = &absolute_name(name);
        const BLOCK: usize = 64 << 20;
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        for at in (0..bytes.len()).step_by(BLOCK) {
            let end = (at + BLOCK).min(bytes.len());
            hasher.update(&bytes[at..end]);
            input.release(at..end);
        }
        Source {
            name: name.to_string(),
            len: bytes.len() as u64,
            hash: hasher.digest(),
            bytes: None,
        }
    }

    /// Whether two sources name the same bytes (by name, length and hash).
    pub fn same_as(&self, other: &Source) -> bool {
        self.name == other.name && self.len == other.len && self.hash == other.hash
    }
}

/// The name a table refers to a file by: its canonical absolute path, or `name` itself where
/// that has none (a file gone since it was read) or is not UTF-8.
pub fn absolute_name(name: &str) -> String {
    std::fs::canonicalize(name)
        .ok()
        .and_then(|p| p.to_str().map(str::to_string))
        .unwrap_or_else(|| name.to_string())
}

/// The bytes of an input file: memory-mapped from disk or borrowed from a table's header.
pub enum InputBytes<'a> {
    Mapped(Mmap),
    Empty,
    Borrowed(&'a [u8]),
    /// Read from a pipe or FIFO to its end.
    Read(Vec<u8>),
}

impl InputBytes<'_> {
    /// Tells the system the mapped pages of `range` are not needed now: they leave the
    /// process's resident memory (the file's pages stay cached and are read again if touched).
    /// Only whole pages inside the range; nothing for bytes that are not mapped.
    pub fn release(&self, range: std::ops::Range<usize>) {
        if let InputBytes::Mapped(m) = self {
            const PAGE: usize = 4096;
            let start = range.start.next_multiple_of(PAGE);
            let end = range.end.min(m.len()) / PAGE * PAGE;
            if end > start {
                // SAFETY: the map is a read-only shared mapping of a file: dropping its pages
                // loses nothing (they are read from the file again if touched), and no slice of
                // ours changes its contents.
                let _ = unsafe {
                    m.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, start, end - start)
                };
            }
        }
    }

    pub fn bytes(&self) -> &[u8] {
        match self {
            InputBytes::Mapped(m) => m,
            InputBytes::Empty => &[],
            InputBytes::Borrowed(b) => b,
            InputBytes::Read(b) => b,
        }
    }
}

/// The UTF-8 byte-order mark some editors put at the start of a text file; inputs skip it.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Maps a file for reading (an empty file maps to no bytes); a pipe or FIFO is read whole, a
/// named FIFO's wait for its writer told to `progress` as a note first.
pub fn map_file(path: &str, progress: &dyn Progress) -> Result<InputBytes<'static>> {
    if path.is_empty() {
        return Err(Error::Usage(
            "the game spec names no file after its ':' (e.g. digraph:data/seed001.txt)".into(),
        ));
    }
    use std::os::unix::fs::FileTypeExt;
    let kind = std::fs::metadata(path)
        .map_err(|e| Error::io(path, e))?
        .file_type();
    if kind.is_fifo() || kind.is_socket() {
        return read_stream(path, progress);
    }
    if kind.is_char_device() || kind.is_block_device() {
        return Err(Error::InputWhole {
            file: path.to_string(),
            msg: format!(
                "is a {} device, not an input file (give a file, or a pipe such as /dev/stdin \
                 fed by another command)",
                if kind.is_char_device() {
                    "character"
                } else {
                    "block"
                }
            ),
        });
    }
    let file = File::open(Path::new(path)).map_err(|e| Error::io(path, e))?;
    let meta = file.metadata().map_err(|e| Error::io(path, e))?;
    if meta.is_dir() {
        return Err(Error::InputWhole {
            file: path.to_string(),
            msg: "is a directory, not an input file".into(),
        });
    }
    let len = meta.len();
    if len == 0 {
        return Ok(InputBytes::Empty);
    }
    // SAFETY: the map is read-only and lives as long as the bytes are used. Mapping is sound
    // only while no one modifies or truncates the file: the slices handed out promise unchanging
    // bytes, and a truncated file faults (SIGBUS) on access. That is the contract of a game
    // input here, as of any mmap reader: retrodb never writes an input it reads (generated
    // inputs are written under a temporary name and renamed), and a user who edits an input
    // while a command parses it is outside it. A table that refers to its input checks the
    // input's length and hash when opened (`Source::same_as`), so a changed input is refused.
    let map = unsafe { Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
    Ok(InputBytes::Mapped(map))
}

/// Reads a pipe or FIFO (`digraph:/dev/stdin`, `digraph:<(cmd)`, a named FIFO) to its end. A
/// table keeps such an input in its header (a pipe cannot be read again), so at most
/// [`EMBED_LIMIT`] bytes are taken. A named FIFO's open waits for a writer: that is told to
/// `progress` first, so a build never waits without saying on what.
fn read_stream(path: &str, progress: &dyn Progress) -> Result<InputBytes<'static>> {
    use std::io::Read;
    use std::os::unix::fs::FileTypeExt;
    // A FIFO in the file system (not an anonymous pipe reached through /dev/fd or /proc).
    let named = std::fs::canonicalize(path)
        .and_then(std::fs::symlink_metadata)
        .is_ok_and(|m| m.file_type().is_fifo());
    if named {
        progress.note(&format!(
            "{path} is a FIFO: waiting for a writer to open it and write the input"
        ));
    }
    let file = File::open(Path::new(path)).map_err(|e| Error::io(path, e))?;
    let mut bytes = Vec::new();
    file.take(EMBED_LIMIT + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > EMBED_LIMIT {
        return Err(Error::InputWhole {
            file: path.to_string(),
            msg: format!(
                "a pipe with more than {} MiB: a table keeps an input read from a pipe in its \
                 header, up to that size; write the input to a file and give the file",
                EMBED_LIMIT >> 20
            ),
        });
    }
    Ok(InputBytes::Read(bytes))
}

/// One meaningful line of a small text input: its 1-based number and its whitespace-separated
/// words, with `#` comments and blank lines already dropped.
pub struct Line<'a> {
    pub number: u64,
    pub words: Vec<&'a str>,
}

/// Splits a text input into meaningful lines. Fails on bytes that are not UTF-8, naming the line.
pub fn lines<'a>(name: &str, bytes: &'a [u8]) -> Result<Vec<Line<'a>>> {
    let bytes = bytes.strip_prefix(BOM).unwrap_or(bytes);
    let mut out = Vec::new();
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let number = i as u64 + 1;
        let text = std::str::from_utf8(raw).map_err(|_| Error::Input {
            file: name.to_string(),
            line: number,
            msg: "not valid UTF-8 text".into(),
        })?;
        let text = text.split('#').next().unwrap_or("");
        let words: Vec<&str> = text.split_whitespace().collect();
        if !words.is_empty() {
            out.push(Line { number, words });
        }
    }
    Ok(out)
}

/// Reads a non-negative vertex id below `limit`, naming the file and line when it is not one.
pub fn vertex_id(name: &str, line: u64, word: &str, limit: u64) -> Result<u64> {
    let err = |msg: String| Error::Input {
        file: name.to_string(),
        line,
        msg,
    };
    let text = || crate::base::error::cut(word);
    if word.starts_with('-') && word[1..].bytes().all(|b| b.is_ascii_digit()) && word.len() > 1 {
        return Err(err(format!("negative vertex id '{}'", text())));
    }
    if !word.bytes().all(|b| b.is_ascii_digit()) {
        return Err(err(format!(
            "'{}' is not a vertex id (a non-negative integer)",
            text()
        )));
    }
    match word.parse::<u64>() {
        Ok(v) if v < limit => Ok(v),
        _ => Err(err(format!(
            "vertex id {} is too large (ids must be below {limit})",
            text()
        ))),
    }
}
