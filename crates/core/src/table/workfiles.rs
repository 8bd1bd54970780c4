//! The files a writer keeps beside its output: who is writing it (a lock), which work files a
//! dead process left (removed by the next writer), and disk blocks reserved before a file is
//! mapped (so a full disk is an error, never a SIGBUS); the temporary file a table is
//! written through ([`TempFile`]: renamed into place only when complete, removed otherwise);
//! and the same for every other file a command writes ([`OutputFile`]). Either refuses an
//! output that exists and is not a regular file ([`check_output`]): a FIFO, a device or a
//! directory is never replaced nor written into.
//!
//! Every command that writes a table `NAME` first takes `.NAME.lock` beside it with `flock`
//! (exclusive, not waiting): a second writer of the same output is refused with a message. The
//! lock dies with its process, so once it is held, every temporary file of `NAME` that exists
//! belongs to a process that is gone: `.NAME.tmp-PID` (a table being written), `.NAME.raw`
//! and its own work files (the raw table a compressed build solves into), and the
//! `.NAME.raw-PID*` files older retrodb versions used. They are removed, each told to the
//! writer's [`Progress`] as a note. The resumable work files of a tiered build (`.NAME.partial*`) are kept: rerunning
//! the same build resumes from them.

use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::base::error::{Error, Result};
use crate::base::progress::Progress;

/// `.NAME.WHAT` beside `out`.
pub(crate) fn sibling(out: &Path, what: &str) -> PathBuf {
    out.with_file_name(format!(".{}.{what}", file_name(out)))
}

fn file_name(out: &Path) -> String {
    out.file_name()
        .map_or_else(|| "table".into(), |n| n.to_string_lossy().into_owned())
}

/// `.NAME.raw` beside `out`: the raw table a compressed build solves into before compressing.
pub fn raw_sibling(out: &Path) -> PathBuf {
    sibling(out, "raw")
}

/// The exclusive right to write `out`, held until dropped (or the process dies).
#[derive(Debug)]
pub struct OutputLock {
    path: PathBuf,
    _file: File,
}

/// Tries `flock(LOCK_EX | LOCK_NB)` on `file`: `Ok(false)` when another process holds it.
fn try_lock(file: &File) -> std::io::Result<bool> {
    // SAFETY: flock on an open descriptor; no memory is passed.
    let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if rc == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
        Ok(false)
    } else {
        Err(e)
    }
}

impl OutputLock {
    /// Takes `.NAME.lock` beside `out`, then removes what dead writers of `out` left there,
    /// a note to `progress` for each file. Refused when another process is writing `out`.
    pub fn acquire(out: &Path, progress: &dyn Progress) -> Result<OutputLock> {
        let path = sibling(out, "lock");
        refuse_missing_directory(out)?;
        loop {
            let file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(|e| Error::io(&path, e))?;
            if !try_lock(&file).map_err(|e| Error::io(&path, e))? {
                return Err(crate::base::error::BuildError::Locked {
                    output: out.display().to_string(),
                    lock: path.display().to_string(),
                }
                .into());
            }
            // A writer that finished removes its lock file: the lock counts only if the name
            // still leads to the file locked here (else take the new one).
            let mine = file.metadata().map_err(|e| Error::io(&path, e))?;
            match std::fs::metadata(&path) {
                Ok(m) if m.ino() == mine.ino() && m.dev() == mine.dev() => {
                    let lock = OutputLock { path, _file: file };
                    remove_stale(out, progress);
                    return Ok(lock);
                }
                _ => continue,
            }
        }
    }

    /// Whether some process holds the lock of `out` now.
    pub fn is_held(out: &Path) -> bool {
        let path = sibling(out, "lock");
        match File::open(&path) {
            Ok(f) => !try_lock(&f).unwrap_or(true),
            Err(_) => false,
        }
    }
}

impl Drop for OutputLock {
    fn drop(&mut self) {
        // Removed while still locked; the descriptor closes (and unlocks) after this.
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Removes the temporary files of `out` left by dead processes (the caller holds its lock),
/// telling `progress` of each.
fn remove_stale(out: &Path, progress: &dyn Progress) {
    let name = file_name(out);
    let dir = crate::base::memory::dir_of(out);
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let own = format!(".{name}.");
    let raw = raw_sibling(out);
    let raw_busy = OutputLock::is_held(&raw);
    let raw_own = format!(".{}.", file_name(&raw));
    for e in entries.flatten() {
        let f = e.file_name().to_string_lossy().into_owned();
        let stale = match f.strip_prefix(&own) {
            Some(rest) => {
                rest.starts_with("tmp-") || rest.starts_with("raw-") || (rest == "raw" && !raw_busy)
            }
            None => {
                // The raw table's own temporaries; its resumable work files stay.
                f.strip_prefix(&raw_own)
                    .is_some_and(|rest| rest.starts_with("tmp-") && !raw_busy)
                    // `..NAME.raw-PID.*`: work files of the raw tables older versions named by PID.
                    || f.strip_prefix(&format!(".{own}"))
                        .is_some_and(|rest| rest.starts_with("raw-"))
            }
        };
        if stale && e.file_type().is_ok_and(|t| t.is_file()) {
            let path = e.path();
            if std::fs::remove_file(&path).is_ok() {
                progress.note(&format!(
                    "removed {} (a work file of {} left by a process that is gone)",
                    path.display(),
                    out.display()
                ));
            }
        }
    }
}

/// Reserves the blocks of `file`'s first `len` bytes (and sets its length to at least `len`),
/// so that writing through a map of them cannot meet a full disk: a file system that cannot
/// supply them fails here with the bytes needed, before any work.
pub(crate) fn allocate(file: &File, path: &Path, len: u64) -> Result<()> {
    if len == 0 {
        return Ok(());
    }
    let Ok(off_len) = libc::off_t::try_from(len) else {
        return Err(Error::io(
            path,
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "file too large"),
        ));
    };
    // SAFETY: posix_fallocate on an open descriptor; no memory is passed.
    let rc = unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, off_len) };
    match rc {
        0 => Ok(()),
        libc::ENOSPC => Err(Error::Disk {
            what: format!("writing {}", path.display()),
            path: crate::base::memory::dir_of(path).display().to_string(),
            need: len,
            free: crate::base::memory::disk_free(crate::base::memory::dir_of(path)).unwrap_or(0),
        }),
        // File systems without the call: fall back to the length alone.
        libc::EOPNOTSUPP | libc::EINVAL => {
            let cur = file.metadata().map_err(|e| Error::io(path, e))?.len();
            if cur < len {
                file.set_len(len).map_err(|e| Error::io(path, e))?;
            }
            Ok(())
        }
        e => Err(Error::io(path, std::io::Error::from_raw_os_error(e))),
    }
}

/// The one rule for a command's output `out`, checked before any work: refused when it exists
/// and is not a regular file (renaming over a device or a FIFO would replace it, `-o /dev/null`
/// turning the device into a plain file, and writing into one is no file at all), when its
/// directory does not exist (the work would be lost at its end), and when it is one of the
/// command's `inputs` by device and inode (a link to an input counts): the output would replace
/// it (`research tiers --table t.rdb --svg t.rdb` wrote the chart over the table). The name is
/// followed, so a link to a FIFO or a device is refused as they are; a link to a regular file
/// is replaced by the new file, as any output is.
pub fn check_output(out: &Path, inputs: &[&Path]) -> Result<()> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(out);
    if let Ok(meta) = &meta
        && !meta.is_file()
    {
        let (kind, why) = if meta.is_dir() {
            (
                std::io::ErrorKind::IsADirectory,
                "is a directory, not a file",
            )
        } else {
            (
                std::io::ErrorKind::AlreadyExists,
                "exists and is not a regular file; refusing to replace it",
            )
        };
        return Err(Error::io(out, std::io::Error::new(kind, why)));
    }
    refuse_missing_directory(out)?;
    let Ok(meta) = meta else { return Ok(()) };
    for input in inputs {
        if let Ok(m) = std::fs::metadata(input)
            && (m.dev(), m.ino()) == (meta.dev(), meta.ino())
        {
            return Err(Error::io(
                out,
                std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!(
                        "this output is an input of the command ({}); writing it would destroy \
                         that input: give another output",
                        input.display()
                    ),
                ),
            ));
        }
    }
    Ok(())
}

/// Refuses an output `out` whose directory does not exist: a file error (Python's FileError,
/// an OSError), as opening a file there would be.
fn refuse_missing_directory(out: &Path) -> Result<()> {
    let dir = crate::base::memory::dir_of(out);
    if dir.is_dir() {
        return Ok(());
    }
    Err(Error::io(
        out,
        std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!(
                "cannot write it: the directory {} does not exist",
                dir.display()
            ),
        ),
    ))
}

/// A file being written under a temporary name beside its destination; removed on drop unless
/// [`TempFile::commit`] renamed it into place.
pub(crate) struct TempFile {
    pub path: PathBuf,
    pub file: File,
    out: PathBuf,
    done: bool,
    /// Kept on drop too: a resumable build's work file.
    keep: bool,
}

impl TempFile {
    /// `.NAME.tmp-PID` beside `out` (the caller holds `out`'s [`OutputLock`], which is what
    /// lets a later writer remove it if this process dies).
    pub fn create(out: &Path) -> Result<TempFile> {
        Self::open(
            out,
            sibling(out, &format!("tmp-{}", std::process::id())),
            false,
        )
    }

    /// The work file of a resumable build of `out` (`.NAME.partial` beside it), opened without
    /// truncation and kept when dropped, so an interrupted build can continue from it.
    pub fn resumable(out: &Path) -> Result<TempFile> {
        Self::open(out, sibling(out, "partial"), true)
    }

    /// A resumable work file of `out` named `.NAME.partial-WHAT` (a build whose work file holds
    /// something else than `.NAME.partial`'s raw cells, so that neither build takes the
    /// other's for its own).
    pub fn resumable_as(out: &Path, what: &str) -> Result<TempFile> {
        Self::open(out, sibling(out, &format!("partial-{what}")), true)
    }

    /// Opens `path` as the file that will become `out`; a resumable file keeps its contents and
    /// survives a failed build, a temporary one starts empty and is removed.
    fn open(out: &Path, path: PathBuf, resumable: bool) -> Result<TempFile> {
        check_output(out, &[])?;
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(!resumable)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        Ok(TempFile {
            path,
            file,
            out: out.to_path_buf(),
            done: false,
            keep: resumable,
        })
    }

    pub fn write_at(&self, bytes: &[u8], at: u64) -> Result<()> {
        self.file
            .write_all_at(bytes, at)
            .map_err(|e| Error::io(&self.path, e))
    }

    /// [`TempFile::write_at`] for large buffers, 8 MiB pieces written by the thread pool: the
    /// kernel's page-cache work for an 86 MB remoteness section took 0.17 s from one thread.
    pub fn write_at_parallel(&self, bytes: &[u8], at: u64) -> Result<()> {
        const PIECE: usize = 8 << 20;
        bytes
            .par_chunks(PIECE)
            .enumerate()
            .try_for_each(|(k, piece)| self.write_at(piece, at + (k * PIECE) as u64))
    }

    /// Starts writing the bytes `at..at + len` of the file to the disk without waiting for them
    /// (`sync_file_range`), so that the sync that commits the file waits for less. Advice: an
    /// error is left to that sync, which reports it.
    pub fn start_writeback(&self, at: u64, len: u64) {
        use std::os::fd::AsRawFd;
        // SAFETY: a plain system call on this file's open descriptor.
        unsafe {
            libc::sync_file_range(
                self.file.as_raw_fd(),
                at as libc::off64_t,
                len as libc::off64_t,
                libc::SYNC_FILE_RANGE_WRITE,
            );
        }
    }

    /// Waits for the bytes written so far to reach the disk.
    pub fn sync(&self) -> Result<()> {
        self.file.sync_data().map_err(|e| Error::io(&self.path, e))
    }

    /// Syncs and renames into place; returns the file's length.
    pub fn commit(mut self) -> Result<u64> {
        self.file.sync_all().map_err(|e| Error::io(&self.path, e))?;
        let len = self
            .file
            .metadata()
            .map_err(|e| Error::io(&self.path, e))?
            .len();
        std::fs::rename(&self.path, &self.out).map_err(|e| Error::io(&self.out, e))?;
        self.done = true;
        Ok(len)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.done && !self.keep {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Any file retrodb writes that is not a table (a generated input, a picture, a report, a
/// list), written the way tables are: `out` must be a new name or a regular file, its lock is
/// held, the bytes go to `.NAME.tmp-PID` through a buffer, and [`OutputFile::commit`] syncs
/// and renames it into place. Dropped uncommitted, the temporary file is removed and `out` is
/// as it was.
pub struct OutputFile {
    // Field order is drop order: the buffer, then the temporary file, then the lock.
    buf: std::io::BufWriter<File>,
    tmp: TempFile,
    _lock: OutputLock,
}

impl OutputFile {
    /// Starts writing `out`; the stale work files of a dead writer it removes are told to
    /// `progress` as notes. Refused when `out` exists and is not a regular file, when its
    /// directory is missing, or when another process writes it.
    pub fn create(out: &Path, progress: &dyn Progress) -> Result<OutputFile> {
        check_output(out, &[])?;
        let lock = OutputLock::acquire(out, progress)?;
        let tmp = TempFile::create(out)?;
        let file = tmp.file.try_clone().map_err(|e| Error::io(&tmp.path, e))?;
        Ok(OutputFile {
            buf: std::io::BufWriter::with_capacity(1 << 20, file),
            tmp,
            _lock: lock,
        })
    }

    /// The temporary file's name, for the messages of write errors.
    pub fn temp_path(&self) -> &Path {
        &self.tmp.path
    }

    /// Writes what is buffered, syncs the file and renames it into place; returns its length.
    pub fn commit(mut self) -> Result<u64> {
        use std::io::Write;
        self.buf.flush().map_err(|e| Error::io(&self.tmp.path, e))?;
        let OutputFile { tmp, _lock, .. } = self;
        tmp.commit()
    }
}

impl std::io::Write for OutputFile {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.buf.write(bytes)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.buf.flush()
    }
}

/// Writes `bytes` to `out` whole, as [`OutputFile`] does.
pub fn write_output(out: &Path, bytes: &[u8], progress: &dyn Progress) -> Result<()> {
    use std::io::Write;
    let mut file = OutputFile::create(out, progress)?;
    let tmp = file.temp_path().to_path_buf();
    file.write_all(bytes).map_err(|e| Error::io(tmp, e))?;
    file.commit().map(drop)
}

/// Makes the directory `dir` (and its parents) to write files into; a path that exists and is
/// not a directory is refused with a message naming it.
pub fn output_dir(dir: &Path) -> Result<()> {
    if let Ok(meta) = std::fs::metadata(dir)
        && !meta.is_dir()
    {
        return Err(Error::io(
            dir,
            std::io::Error::new(
                std::io::ErrorKind::NotADirectory,
                "exists and is not a directory",
            ),
        ));
    }
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::progress::Silent;

    #[test]
    fn a_second_writer_is_refused_and_the_lock_file_goes_away() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("t.rdb");
        let lock = OutputLock::acquire(&out, &Silent).unwrap();
        assert!(sibling(&out, "lock").exists());
        let err = OutputLock::acquire(&out, &Silent).unwrap_err().to_string();
        assert!(err.contains("another retrodb process"), "{err}");
        drop(lock);
        assert!(!sibling(&out, "lock").exists());
        drop(OutputLock::acquire(&out, &Silent).unwrap());
    }

    #[test]
    fn an_output_appears_whole_or_not_at_all() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("o.txt");
        std::fs::write(&out, "old").unwrap();
        let mut f = OutputFile::create(&out, &Silent).unwrap();
        f.write_all(b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "old");
        drop(f);
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "old");
        write_output(&out, b"new", &Silent).unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "new");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["o.txt"]);
        let e = output_dir(&out).unwrap_err().to_string();
        assert!(e.ends_with("o.txt: exists and is not a directory"), "{e}");
    }

    #[test]
    fn stale_temporaries_are_removed_and_resumable_work_kept() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("t.rdb");
        let names = [
            ".t.rdb.tmp-123",
            ".t.rdb.raw-77",
            "..t.rdb.raw-77.partial",
            ".t.rdb.raw",
            "..t.rdb.raw.tmp-9",
            "..t.rdb.raw.partial",
            ".t.rdb.partial",
            ".t.rdb.partial-tier",
            ".u.rdb.tmp-1",
            "t.rdb.tmp-1",
        ];
        for n in names {
            std::fs::write(dir.path().join(n), b"x").unwrap();
        }
        let told = crate::base::progress::tests::Kept::default();
        drop(OutputLock::acquire(&out, &told).unwrap());
        let mut notes = told.notes.into_inner().unwrap();
        notes.sort();
        let removed = |name: &str| {
            format!(
                "removed {} (a work file of {} left by a process that is gone)",
                dir.path().join(name).display(),
                out.display()
            )
        };
        assert_eq!(
            notes,
            [
                "..t.rdb.raw-77.partial",
                "..t.rdb.raw.tmp-9",
                ".t.rdb.raw",
                ".t.rdb.raw-77",
                ".t.rdb.tmp-123"
            ]
            .map(removed)
        );
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(
            left,
            [
                "..t.rdb.raw.partial",
                ".t.rdb.partial",
                ".t.rdb.partial-tier",
                ".u.rdb.tmp-1",
                "t.rdb.tmp-1"
            ]
        );
    }

    /// A file system too small for the blocks is an error naming the bytes, not a file that
    /// a map would later fault on. Needs to mount a tmpfs (root); skipped otherwise.
    #[test]
    fn allocating_more_than_the_disk_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let mnt = dir.path();
        let mounted = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=256k", "tmpfs"])
            .arg(mnt)
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !mounted {
            eprintln!("SKIPPED: cannot mount a tmpfs here (run as root)");
            return;
        }
        let path = mnt.join("big");
        let file = File::create(&path).unwrap();
        let small = allocate(&file, &path, 64 << 10);
        let big = allocate(&file, &path, 4 << 20);
        drop(file);
        let _ = std::process::Command::new("umount").arg(mnt).status();
        small.unwrap();
        let e = big.unwrap_err().to_string();
        assert!(e.contains("4.00 MiB") && e.contains("big"), "{e}");
    }

    #[test]
    fn a_raw_table_being_built_is_not_touched() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("t.rdb");
        let raw = raw_sibling(&out);
        let busy = OutputLock::acquire(&raw, &Silent).unwrap();
        std::fs::write(&raw, b"x").unwrap();
        drop(OutputLock::acquire(&out, &Silent).unwrap());
        assert!(raw.exists());
        drop(busy);
    }
}
