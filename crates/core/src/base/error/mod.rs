//! The library's error type. Every variant names the input it is about (a file and line, a table
//! file, a position text), so a message printed on its own tells the user where to look.

use std::io;
use std::path::Path;

pub(crate) mod build;
pub(crate) mod convert;
pub(crate) mod lookup;
pub(crate) mod mpi;
pub mod table;

pub use build::BuildError;
pub use convert::ConvertError;
pub use lookup::LookupError;
pub use mpi::MpiError;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A game input file (graph, edge list) that does not parse.
    #[error("{file}:{line}: {msg}")]
    Input {
        file: String,
        line: u64,
        msg: String,
    },

    /// A game input that is well formed line by line but wrong as a whole.
    #[error("{file}: {msg}")]
    InputWhole { file: String, msg: String },

    /// A game spec that names no game or has a bad argument.
    #[error("game spec '{}': {msg}", cut(.spec))]
    Spec { spec: String, msg: String },

    #[error(transparent)]
    Position(#[from] PositionError),

    #[error("{path}: {source}")]
    Io { path: String, source: io::Error },

    /// A table file that is not a table, has another format version, or is damaged.
    #[error(transparent)]
    Table(#[from] table::TableError),

    /// Work that would need more memory than allowed, refused before allocating.
    #[error(
        "{what} needs about {} but the memory limit is {} (raise it with --max-memory if the machine has the room)",
        human_bytes(*need), human_bytes(*limit)
    )]
    Memory { what: String, need: u64, limit: u64 },

    /// Work that would write more than the free space of its file system, refused before
    /// writing.
    #[error(
        "{what} needs about {} of disk beside {path} but only {} is free",
        human_bytes(*need), human_bytes(*free)
    )]
    Disk {
        what: String,
        path: String,
        need: u64,
        free: u64,
    },

    /// Work stopped before it finished because a stop was requested
    /// ([`crate::solve::Stop`]); nothing was written under the output's name.
    #[error("{0}")]
    Interrupted(String),

    /// A lookup that does not fit its table or game (a line asked of a table without
    /// remoteness, game values of a game without them).
    #[error(transparent)]
    Lookup(#[from] LookupError),

    /// A conversion of a table (compressing, decompressing) refused by the table or options.
    #[error(transparent)]
    Convert(#[from] ConvertError),

    /// A build's output refused before writing (locked, another build's work, the input).
    #[error(transparent)]
    Build(#[from] BuildError),

    /// A distributed build's MPI transport.
    #[error(transparent)]
    Mpi(#[from] MpiError),

    /// A request that does not fit the game and has no type of its own (a few arguments of
    /// generated games); the text says what.
    #[error("{0}")]
    Usage(String),

    /// A rank of a distributed build that failed or stopped (the message names what it was
    /// doing).
    #[error("rank {rank}: {msg}")]
    Rank { rank: usize, msg: String },
}

impl Error {
    pub fn io(path: impl AsRef<Path>, source: io::Error) -> Self {
        Error::Io {
            path: path.as_ref().display().to_string(),
            source,
        }
    }

    /// A table error of kind [`TableErrorKind::Other`](table::TableErrorKind::Other).
    pub fn table(path: impl AsRef<Path>, msg: impl Into<String>) -> Self {
        Self::table_kind(path, table::TableErrorKind::Other(msg.into()))
    }

    pub fn table_kind(path: impl AsRef<Path>, kind: table::TableErrorKind) -> Self {
        Error::Table(table::TableError::new(path, kind))
    }
}

/// Characters of an input word a message echoes; longer words are cut to this many.
const KEEP: usize = 60;

/// Why a position text was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("position '{}': {reason}", cut(.text))]
pub struct PositionError {
    pub text: String,
    pub reason: String,
}

impl PositionError {
    pub fn new(text: &str, reason: impl Into<String>) -> Self {
        PositionError {
            text: text.to_string(),
            reason: reason.into(),
        }
    }
}

/// `text` for a message: whole when short, else its first 60 characters and its length (a
/// megabyte-long input line is not echoed back whole). Reads no further than it keeps.
pub fn cut(text: &str) -> String {
    match text.char_indices().nth(KEEP) {
        None => text.to_string(),
        Some((end, _)) => format!("{}... ({} bytes)", &text[..end], text.len()),
    }
}

/// [`cut`] of bytes that may not be UTF-8 (shown lossily): only the kept prefix is decoded, so
/// a gigabyte-long word costs a message no more memory than a short one.
pub fn cut_bytes(bytes: &[u8]) -> String {
    // At most 4 bytes a character: the prefix holds the kept characters and one more.
    let head = &bytes[..bytes.len().min(4 * (KEEP + 1))];
    let text = String::from_utf8_lossy(head);
    match text.char_indices().nth(KEEP) {
        None if head.len() == bytes.len() => text.into_owned(),
        None => format!("{text}... ({} bytes)", bytes.len()),
        Some((end, _)) => format!("{}... ({} bytes)", &text[..end], bytes.len()),
    }
}

/// Words joined by spaces for a message, cut as [`cut`] cuts (without joining what is cut).
pub fn cut_words(words: &[&str]) -> String {
    let total = words.iter().map(|w| w.len()).sum::<usize>() + words.len().saturating_sub(1);
    let mut head = String::new();
    for w in words {
        if head.len() > 4 * (KEEP + 1) {
            break;
        }
        if !head.is_empty() {
            head.push(' ');
        }
        head.push_str(&w[..w.floor_char_boundary(w.len().min(4 * (KEEP + 1)))]);
    }
    match head.char_indices().nth(KEEP) {
        None => head,
        Some((end, _)) => format!("{}... ({total} bytes)", &head[..end]),
    }
}

/// Bytes for people: `512 B`, `3.2 MiB`, `1.50 GiB`.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut v = n as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if v < 10.0 {
        format!("{v:.2} {}", UNITS[unit])
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_bytes_picks_units() {
        assert_eq!(human_bytes(12), "12 B");
        assert_eq!(human_bytes(2048), "2.00 KiB");
        assert_eq!(human_bytes(3 << 30), "3.00 GiB");
        assert_eq!(human_bytes(100 << 20), "100.0 MiB");
    }

    #[test]
    fn long_texts_are_cut_in_messages() {
        assert_eq!(cut("abc"), "abc");
        let long = "x".repeat(1 << 20);
        let c = cut(&long);
        assert!(c.len() < 100 && c.ends_with("(1048576 bytes)"), "{c}");
        let e = PositionError::new(&long, "too long").to_string();
        assert!(e.len() < 150, "{e}");
        assert_eq!(cut_bytes(b"abc\xff"), "abc\u{FFFD}");
        let c = cut_bytes(long.as_bytes());
        assert!(c.len() < 100 && c.ends_with("(1048576 bytes)"), "{c}");
        assert_eq!(cut_words(&["a", "b"]), "a b");
        let c = cut_words(&["a", &long, "b"]);
        assert!(
            c.starts_with("a xxx") && c.ends_with("(1048580 bytes)"),
            "{c}"
        );
    }
}
