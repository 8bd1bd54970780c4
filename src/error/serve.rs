//! Errors of starting the server: the tables given do not make a catalogue.

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
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
