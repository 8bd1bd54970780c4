//! The structured error of a table file: which file, and what is wrong with it, as a kind a
//! caller can match (a version mismatch, a failed checksum and its place) rather than a string.
//!
//! Invariant: every message names the file (`table PATH: ...`), and a kind that means the bytes
//! are damaged says so, so a user knows not to trust the file.

use std::fmt;

/// A table file that is not a table, has another format version, or is damaged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableError {
    pub path: String,
    pub kind: TableErrorKind,
}

/// What is wrong with a table file.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TableErrorKind {
    /// A directory, a device or another thing that is not a plain file.
    NotAFile,
    Empty,
    /// No `RETRODB` magic at the start.
    NotATable,
    /// A format version this retrodb does not read (it reads `oldest..=expected`).
    Version {
        expected: u32,
        oldest: u32,
        got: u32,
    },
    /// A table of the sliced index (`,sliced`, `,sym`) written in version `got`, before
    /// version `changed` (`table::format::ROW_ORDER_VERSION`), whose rows hold their positions
    /// in another order.
    RowOrder {
        got: u32,
        changed: u32,
    },
    /// The file ends before its header says it does (the text says where).
    Truncated(String),
    /// Bytes that fail their checksum: `block` is the block (raw) or frame (compressed) of the
    /// section, where the check is per block.
    Checksum {
        section: Checked,
        block: Option<u64>,
    },
    /// A header or layout that cannot be right (the text says what).
    Damaged(String),
    /// The game the table names cannot be rebuilt, or is not the one it was built from.
    Game(String),
    /// The table's game family (its spec's kind, named here) is not registered in this
    /// program (`retrodb::register`), so its game cannot be rebuilt.
    FamilyNotRegistered(String),
    /// A build's work file beside the table that fails a check (the text says which).
    WorkFile(String),
    /// The file changed on disk while it was open: truncated or written in place (the text
    /// says how). A table is replaced by renaming a new file over it, never by writing into it.
    Changed(String),
    /// Anything else about the file (the text says what).
    Other(String),
}

/// The part of a table file a checksum covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checked {
    Header,
    /// The list of block checksums, against the hash in the header.
    ChecksumList,
    /// A compressed stream's seek table.
    SeekTable,
    /// Raw blocks of the cells or the remoteness section.
    Blocks,
    /// Compressed frames, checked before decoding.
    Frames,
    /// A decoded frame, against the seek table's checksum of its bytes.
    DecodedFrame,
    /// A compressed table's zstd dictionary.
    Dictionary,
    /// A compressed table's zstd dictionary for its remoteness stream.
    RemotenessDictionary,
}

impl TableError {
    pub fn new(path: impl AsRef<std::path::Path>, kind: TableErrorKind) -> TableError {
        TableError {
            path: path.as_ref().display().to_string(),
            kind,
        }
    }

    /// Whether the bytes of the file were found damaged (not merely another version or game).
    pub fn is_damage(&self) -> bool {
        matches!(
            self.kind,
            TableErrorKind::Truncated(_)
                | TableErrorKind::Checksum { .. }
                | TableErrorKind::Damaged(_)
        )
    }
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "table {}: {}", self.path, self.kind)
    }
}

impl std::error::Error for TableError {}

impl fmt::Display for TableErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use TableErrorKind::*;
        match self {
            NotAFile => write!(f, "is not a regular file (a directory, a pipe or a device)"),
            Empty => write!(f, "file is empty"),
            NotATable => write!(f, "not a retrodb table (no RETRODB magic at the start)"),
            Version {
                expected,
                oldest,
                got,
            } => write!(
                f,
                "format version {got}, this retrodb reads versions {oldest} to {expected}{}",
                if got > expected {
                    " (written by a newer retrodb)"
                } else {
                    ""
                }
            ),
            RowOrder { got, changed } => write!(
                f,
                "format version {got} orders the rows of sliced and symmetric tables in a way this \
                 retrodb no longer reads (version {changed} changed it): build the table again"
            ),
            Truncated(what) => write!(f, "file is truncated: {what}"),
            Checksum { section, block } => {
                let unit = match section {
                    Checked::Header => {
                        return write!(f, "header checksum mismatch: the header is damaged");
                    }
                    Checked::ChecksumList => {
                        return write!(
                            f,
                            "checksum section is damaged (its hash does not match the header)"
                        );
                    }
                    Checked::SeekTable => "seek table",
                    Checked::Dictionary => "zstd dictionary",
                    Checked::RemotenessDictionary => "remoteness zstd dictionary",
                    Checked::Blocks => "block",
                    Checked::Frames => "frame",
                    Checked::DecodedFrame => {
                        let k = block.unwrap_or(0);
                        return write!(
                            f,
                            "frame {k} decodes to bytes whose checksum differs from the seek \
                             table's: the table is damaged"
                        );
                    }
                };
                match block {
                    Some(k) => write!(f, "{unit} {k} fails its checksum: the table is damaged"),
                    None => write!(f, "{unit} fails its checksum: the table is damaged"),
                }
            }
            Damaged(what) => write!(f, "{what}: the table is damaged"),
            Changed(what) => write!(
                f,
                "{what}; no answer is given from it (replace a table by writing a new file and \
                 renaming it over the old one, never by copying into it)"
            ),
            FamilyNotRegistered(kind) => write!(
                f,
                "its game family `{kind}` is not registered in this program \
                 (retrodb::register)"
            ),
            Game(what) | WorkFile(what) | Other(what) => write!(f, "{what}"),
        }
    }
}
