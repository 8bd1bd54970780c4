//! Where a table's bytes go: [`TableSink`], the bytes at given offsets (a table's sections are
//! written out of order: streams before the header, blocks in parallel), implemented by the
//! temporary file a table is committed from ([`TempFile`]: synced and renamed into place) and by
//! any seekable writer ([`Seekable`]: a `Cursor<Vec<u8>>` holds a table in memory, byte for byte
//! the file the same writer would have committed).
//!
//! Invariant: a sink is given every byte of the table exactly where the file has it, and the
//! bytes it never is given (padding) read as zeros; `finish` is the last call.

use std::path::Path;
#[cfg(test)]
use std::{
    io::{Seek, SeekFrom, Write},
    path::PathBuf,
    sync::Mutex,
};

use super::TempFile;
use crate::base::error::{Error, Result};

/// The bytes of a table being written, at offsets (in the manner of `Write + Seek`, shareable
/// between the threads that write a table's blocks).
pub(crate) trait TableSink: Sync {
    /// What the finished sink hands back: a file's length, a writer's bytes.
    type Done;

    /// The name that errors of this sink carry.
    fn name(&self) -> &Path;

    /// Writes `bytes` at `at` (past the end, the gap reads as zeros).
    fn write_at(&self, bytes: &[u8], at: u64) -> Result<()>;

    /// [`TableSink::write_at`] of a large buffer, in pieces where that is faster.
    fn write_at_parallel(&self, bytes: &[u8], at: u64) -> Result<()> {
        self.write_at(bytes, at)
    }

    /// Makes the sink end at `len` (a resumed work file may be longer than its table).
    fn cut(&self, len: u64) -> Result<()>;

    /// Finishes the sink, every byte written.
    fn finish(self) -> Result<Self::Done>;
}

/// The temporary file a table file is written through: finished by its sync and rename into place.
impl TableSink for TempFile {
    type Done = u64;

    fn name(&self) -> &Path {
        &self.path
    }

    fn write_at(&self, bytes: &[u8], at: u64) -> Result<()> {
        TempFile::write_at(self, bytes, at)
    }

    fn write_at_parallel(&self, bytes: &[u8], at: u64) -> Result<()> {
        TempFile::write_at_parallel(self, bytes, at)
    }

    fn cut(&self, len: u64) -> Result<()> {
        self.file.set_len(len).map_err(|e| Error::io(&self.path, e))
    }

    fn finish(self) -> Result<u64> {
        self.commit()
    }
}

/// Any seekable writer as a sink (`Cursor<Vec<u8>>`: a table in memory), behind a lock so that
/// the threads writing a table's blocks may share it; `name` names it in errors. The tests write
/// tables into memory through it.
#[cfg(test)]
pub(crate) struct Seekable<W> {
    name: PathBuf,
    writer: Mutex<W>,
}

#[cfg(test)]
impl<W> Seekable<W> {
    pub fn new(name: impl Into<PathBuf>, writer: W) -> Seekable<W> {
        Seekable {
            name: name.into(),
            writer: Mutex::new(writer),
        }
    }
}

#[cfg(test)]
impl<W: Write + Seek + Send> TableSink for Seekable<W> {
    type Done = W;

    fn name(&self) -> &Path {
        &self.name
    }

    fn write_at(&self, bytes: &[u8], at: u64) -> Result<()> {
        let mut w = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        w.seek(SeekFrom::Start(at))
            .and_then(|_| w.write_all(bytes))
            .map_err(|e| Error::io(&self.name, e))
    }

    /// A writer cannot be cut: it must end at `len` already (a fresh writer does, since a
    /// table's checksums are its last bytes).
    fn cut(&self, len: u64) -> Result<()> {
        let mut w = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        let end = w
            .seek(SeekFrom::End(0))
            .map_err(|e| Error::io(&self.name, e))?;
        if end != len {
            let e = std::io::Error::other(format!("ends at {end}, the table at {len}"));
            return Err(Error::io(&self.name, e));
        }
        Ok(())
    }

    fn finish(self) -> Result<W> {
        let mut w = self.writer.into_inner().unwrap_or_else(|e| e.into_inner());
        w.flush().map_err(|e| Error::io(&self.name, e))?;
        Ok(w)
    }
}
