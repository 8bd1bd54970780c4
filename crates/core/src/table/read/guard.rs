//! A table file mapped into memory, guarded against the file changing under the map.
//!
//! A memory map reads the file as it is now, not as it was opened: when another program
//! truncates the file (`cp smaller.rdb served.rdb` truncates before it writes), the next read
//! of a page past the new end raises SIGBUS, which kills the process. Tables written by
//! retrodb are never changed in place (every writer renames a new file over the old one), but
//! an operator's `cp` does exactly that.
//!
//! The mechanism, and why: every mapped table registers its address range in a fixed table of
//! slots read by a SIGBUS handler. A fault inside a registered range is answered by mapping a
//! page of zeros over the faulting page (the read is retried and sees zeros) and marking the
//! slot tripped; a fault anywhere else goes to the handler that was there before (Rust's own,
//! Python's, or the default, which ends the process as it would have). Every read path of a
//! [`super::Table`] checks its slot after reading and answers a tripped table with
//! [`TableErrorKind::Changed`] naming the file, never with the zeros. Reading frames with
//! `pread` instead would cost a copy and a system call per frame on the hot path of raw
//! tables, which are read in place; a per-lookup `fstat` would not close the window between
//! the check and the read. The guard costs one relaxed atomic load per read.
//!
//! A file rewritten in place without shrinking raises no signal: [`FileGuard::check`] compares
//! the file's length, modification time and inode with those seen at open (one `fstat`), and
//! trips the guard when they differ. Long-lived readers (the server, the Python module, `probe`
//! reading stdin) call it between requests or batches.
//!
//! Invariants: a slot is unregistered before its map is unmapped (the guard is dropped before
//! the bytes: [`super::Table`] declares it first), so a fault in a later map at the same
//! address is never taken for this table's; a tripped guard stays tripped.

use std::fs::File;
use std::os::unix::fs::MetadataExt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, Once, OnceLock};

use crate::base::error::table::TableErrorKind;

/// Mapped tables guarded at once in one process; a table opened beyond them is still checked
/// by [`FileGuard::check`] but a truncation would end the process.
const SLOTS: usize = 1024;

struct Slot {
    /// First byte of the mapped range; 0 when the slot is free.
    start: AtomicUsize,
    /// One past the last byte.
    end: AtomicUsize,
    tripped: AtomicBool,
}

#[allow(clippy::declare_interior_mutable_const)]
const FREE: Slot = Slot {
    start: AtomicUsize::new(0),
    end: AtomicUsize::new(0),
    tripped: AtomicBool::new(false),
};

static TABLE: [Slot; SLOTS] = [FREE; SLOTS];
/// Registration and release take this lock; the signal handler never does.
static CLAIM: Mutex<()> = Mutex::new(());
static INSTALL: Once = Once::new();
static PAGE: AtomicUsize = AtomicUsize::new(4096);
/// The handler that was installed before ours (read only by the signal handler after
/// [`install`] wrote it once).
static mut PREVIOUS: Option<libc::sigaction> = None;

/// What [`FileGuard::check`] compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stamp {
    dev: u64,
    ino: u64,
    len: u64,
    mtime: i64,
    mtime_nsec: i64,
}

impl Stamp {
    fn of(meta: &std::fs::Metadata) -> Stamp {
        Stamp {
            dev: meta.dev(),
            ino: meta.ino(),
            len: meta.len(),
            mtime: meta.mtime(),
            mtime_nsec: meta.mtime_nsec(),
        }
    }
}

/// The guard of one mapped table file: its slot (if one was free) and its stamp at open.
#[derive(Debug)]
pub struct FileGuard {
    slot: Option<usize>,
    file: File,
    stamp: Stamp,
    /// Set by [`FileGuard::check`] when the file changed without a fault.
    changed: AtomicBool,
    /// What was first seen of the change, so that every error of it reads the same.
    seen: OnceLock<String>,
}

impl FileGuard {
    /// Guards the mapped range `bytes` of `file` (as it is described by `meta`).
    pub fn new(file: File, meta: &std::fs::Metadata, bytes: &[u8]) -> FileGuard {
        install();
        let start = bytes.as_ptr() as usize;
        let slot = if bytes.is_empty() {
            None
        } else {
            let _claim = CLAIM.lock().unwrap_or_else(|e| e.into_inner());
            let free = TABLE
                .iter()
                .position(|s| s.start.load(Ordering::Relaxed) == 0);
            if let Some(i) = free {
                let s = &TABLE[i];
                s.tripped.store(false, Ordering::Relaxed);
                s.end.store(start + bytes.len(), Ordering::Relaxed);
                // The handler reads `start` first: the rest is visible once it is.
                s.start.store(start, Ordering::Release);
            }
            free
        };
        FileGuard {
            slot,
            file,
            stamp: Stamp::of(meta),
            changed: AtomicBool::new(false),
            seen: OnceLock::new(),
        }
    }

    /// Whether `meta` describes the file this guard was made for (same device and inode).
    pub fn is_file(&self, meta: &std::fs::Metadata) -> bool {
        (meta.dev(), meta.ino()) == (self.stamp.dev, self.stamp.ino)
    }

    /// Whether a read fell past the file's end or [`FileGuard::check`] saw it change.
    #[inline]
    pub fn tripped(&self) -> bool {
        self.slot
            .is_some_and(|i| TABLE[i].tripped.load(Ordering::Relaxed))
            || self.changed.load(Ordering::Relaxed)
    }

    fn trip(&self) {
        self.changed.store(true, Ordering::Relaxed);
    }

    /// `Err` with what happened when the file has changed since it was opened: a read fell
    /// past its end, or its length, modification time or inode differ (the guard trips and
    /// stays tripped).
    pub fn check(&self) -> Result<(), TableErrorKind> {
        if !self.tripped() {
            match self.file.metadata() {
                Ok(meta) if Stamp::of(&meta) == self.stamp => return Ok(()),
                _ => self.trip(),
            }
        }
        Err(self.changed_kind())
    }

    /// The error of a tripped guard: what the file was first seen to be after the change.
    pub fn changed_kind(&self) -> TableErrorKind {
        let what =
            self.seen
                .get_or_init(|| match self.file.metadata().ok().map(|m| Stamp::of(&m)) {
                    Some(s) if s.len < self.stamp.len => format!(
                        "changed on disk while open: truncated from {} to {} bytes",
                        self.stamp.len, s.len
                    ),
                    Some(s) if s.len != self.stamp.len => format!(
                        "changed on disk while open: written in place ({} bytes, now {})",
                        self.stamp.len, s.len
                    ),
                    _ => "changed on disk while open: written in place".to_string(),
                });
        TableErrorKind::Changed(what.clone())
    }
}

impl Drop for FileGuard {
    fn drop(&mut self) {
        if let Some(i) = self.slot {
            let _claim = CLAIM.lock().unwrap_or_else(|e| e.into_inner());
            TABLE[i].start.store(0, Ordering::Release);
            TABLE[i].end.store(0, Ordering::Relaxed);
        }
    }
}

/// Installs the SIGBUS handler once per process, keeping the one before it.
fn install() {
    INSTALL.call_once(|| {
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        if page > 0 {
            PAGE.store(page as usize, Ordering::Relaxed);
        }
        // SAFETY: a zeroed sigaction is a valid value to fill; `on_sigbus` has the signature
        // SA_SIGINFO asks for; PREVIOUS is written here once, before the handler can run
        // (it is installed by the same call that reads the old one into `old`, and the
        // handler reads PREVIOUS only for faults that are not ours).
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_sigbus as *const () as usize;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut action.sa_mask);
            let mut old: libc::sigaction = std::mem::zeroed();
            // Read the old action first, store it, then install ours.
            if libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut old) != 0 {
                return;
            }
            PREVIOUS = Some(old);
            libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
        }
    });
}

/// The SIGBUS handler: a fault in a registered range reads zeros from then on and trips its
/// slot; any other fault goes to the previous handler.
extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo for SA_SIGINFO handlers.
    let addr = unsafe { (*info).si_addr() } as usize;
    for slot in &TABLE {
        let start = slot.start.load(Ordering::Acquire);
        if start == 0 || addr < start || addr >= slot.end.load(Ordering::Relaxed) {
            continue;
        }
        let page = PAGE.load(Ordering::Relaxed);
        let at = addr & !(page - 1);
        // SAFETY: the page lies inside a mapping this process made and still holds (the slot
        // is released before the map is unmapped); replacing it with a private anonymous page
        // of zeros changes only what reads of this table see, and they are checked.
        let r = unsafe {
            libc::mmap(
                at as *mut libc::c_void,
                page,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                -1,
                0,
            )
        };
        if r != libc::MAP_FAILED {
            slot.tripped.store(true, Ordering::Relaxed);
            return;
        }
        break;
    }
    // Not ours (or no page could be mapped): what would have happened without this handler.
    // SAFETY: PREVIOUS was written before this handler was installed and never after.
    let previous = unsafe { (*std::ptr::addr_of!(PREVIOUS)).as_ref().copied() };
    match previous {
        Some(p)
            if p.sa_sigaction != libc::SIG_DFL
                && p.sa_sigaction != libc::SIG_IGN
                && p.sa_flags & libc::SA_SIGINFO != 0 =>
        {
            // SAFETY: the previous handler asked for these three arguments (SA_SIGINFO).
            let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                unsafe { std::mem::transmute(p.sa_sigaction) };
            f(sig, info, ctx);
        }
        Some(p) if p.sa_sigaction != libc::SIG_DFL && p.sa_sigaction != libc::SIG_IGN => {
            // SAFETY: a handler without SA_SIGINFO takes the signal number only.
            let f: extern "C" fn(libc::c_int) = unsafe { std::mem::transmute(p.sa_sigaction) };
            f(sig);
        }
        _ => {
            // The default action: restore it; returning retries the read, which faults again
            // and ends the process as it would have without the guard.
            // SAFETY: resetting a signal's disposition to the default is always valid.
            unsafe {
                libc::signal(libc::SIGBUS, libc::SIG_DFL);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A file truncated under its map: the read past the new end trips the guard and reads
    /// zeros instead of ending the process; a file rewritten in place without shrinking is
    /// seen by `check`.
    #[test]
    fn a_truncated_file_trips_the_guard_instead_of_a_signal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.bin");
        std::fs::write(&path, vec![7u8; 64 << 10]).unwrap();
        let file = File::open(&path).unwrap();
        let meta = file.metadata().unwrap();
        // SAFETY: the test changes the file under the map on purpose; that is what is tested.
        let map = unsafe { memmap2::Mmap::map(&file) }.unwrap();
        let guard = FileGuard::new(file, &meta, &map);
        assert!(!guard.tripped());
        assert_eq!(map[60 << 10], 7);
        assert!(guard.check().is_ok());
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(4096)
            .unwrap();
        // The first page is still the file's; the last is past its end now.
        assert_eq!(map[10], 7);
        let past = std::hint::black_box(&map[..])[60 << 10];
        assert_eq!(past, 0);
        assert!(guard.tripped());
        let kind = guard.check().unwrap_err();
        assert!(kind.to_string().contains("truncated"), "{kind}");
        drop(guard);
        drop(map);

        // Rewritten in place, same length: no fault, but `check` sees the new time or inode.
        std::fs::write(&path, vec![1u8; 4096]).unwrap();
        let file = File::open(&path).unwrap();
        let meta = file.metadata().unwrap();
        let map = unsafe { memmap2::Mmap::map(&file) }.unwrap();
        let guard = FileGuard::new(file, &meta, &map);
        std::thread::sleep(std::time::Duration::from_millis(20));
        let mut f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.write_all(&[2u8; 4096]).unwrap();
        f.sync_all().unwrap();
        drop(f);
        assert!(guard.check().is_err());
        assert!(guard.tripped());
    }
}
