//! Errors of starting the server: the tables given do not make a catalogue. They are the
//! server's own; the core's error ([`crate::Error`]) has no variant for them.

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// What the library's core refused (a table that does not open, a directory not read).
    #[error(transparent)]
    Core(#[from] crate::Error),

    /// A directory given that holds no `*.rdb` file.
    #[error("{dir}: no table file (*.rdb) in this directory")]
    NoTableIn { dir: String },

    /// A table file whose stem is not UTF-8 text (or is empty), so it names no table.
    #[error("{path}: a table's file name must be UTF-8 text (its stem names the table)")]
    FileName { path: String },

    /// Two table files with the same stem.
    #[error("two tables would be named '{name}': {first} and {second} (rename one)")]
    SameName {
        name: String,
        first: String,
        second: String,
    },

    #[error("no table to serve")]
    NoTable,
}
