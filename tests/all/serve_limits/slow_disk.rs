//! A disk that answers only when told: one read-only file on a FUSE mount served from this
//! process (the kernel's protocol spoken over `/dev/fuse`, a few operations of it), whose reads
//! can be held — a lookup that reads the file then waits as one waits for a cold disk, for as
//! long as the test wants, with no clock involved. Mounting needs root and `/dev/fuse`;
//! elsewhere [`SlowDisk::mount`] says why not and the test is skipped.
//!
//! The test: `/health` answers while a lookup waits for the disk (with one runtime thread, it
//! waited behind the lookup: lookups read tables on the runtime's threads).

use std::ffi::CString;
use std::fs::File;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::{serve, table, within};
use crate::common::server::{Server, request};

const ROOT: u64 = 1;
const FILE: u64 = 2;

/// The mount: its directory, the file's name in it, and the reads held.
pub struct SlowDisk {
    dir: tempfile::TempDir,
    name: String,
    fuse: File,
    holding: Arc<AtomicBool>,
    held: Arc<Mutex<Vec<(u64, u64, u32)>>>,
    backing: Arc<File>,
}

/// What the reader thread shares with the test.
struct Daemon {
    fuse: File,
    backing: Arc<File>,
    size: u64,
    name: String,
    holding: Arc<AtomicBool>,
    held: Arc<Mutex<Vec<(u64, u64, u32)>>>,
}

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn le64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// A reply: `fuse_out_header` (length, error, the request's id) and its body.
fn reply(fuse: &File, unique: u64, error: i32, body: &[u8]) {
    let mut out = Vec::with_capacity(16 + body.len());
    out.extend_from_slice(&((16 + body.len()) as u32).to_le_bytes());
    out.extend_from_slice(&error.to_le_bytes());
    out.extend_from_slice(&unique.to_le_bytes());
    out.extend_from_slice(body);
    // A request the kernel gave up on (its process gone) refuses its reply: nothing to do.
    let _ = (&*fuse).write_all(&out);
}

/// `fuse_attr`: the root directory or the file.
fn attr(node: u64, size: u64) -> Vec<u8> {
    let mut a = Vec::with_capacity(88);
    let (mode, nlink, size) = if node == ROOT {
        (0o040_755u32, 2u32, 0)
    } else {
        (0o100_444, 1, size)
    };
    for v in [node, size, size.div_ceil(512), 0, 0, 0] {
        a.extend_from_slice(&v.to_le_bytes());
    }
    for v in [0u32, 0, 0, mode, nlink, 0, 0, 0, 4096, 0] {
        a.extend_from_slice(&v.to_le_bytes());
    }
    a
}

impl Daemon {
    fn run(self) {
        let mut buf = vec![0u8; (1 << 20) + 4096];
        loop {
            let n = match (&self.fuse).read(&mut buf) {
                Ok(n) => n,
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                // Unmounted (ENODEV): the end.
                Err(_) => return,
            };
            if n < 40 {
                return;
            }
            let req = &buf[..n];
            let (opcode, unique, node) = (le32(req, 4), le64(req, 8), le64(req, 16));
            let body = &req[40..];
            match opcode {
                // INIT: protocol 7.31 at most, reads of a page at most ahead.
                26 => {
                    let minor = le32(body, 4).min(31);
                    let mut out = Vec::with_capacity(64);
                    for v in [7u32, minor, 4096, 0] {
                        out.extend_from_slice(&v.to_le_bytes());
                    }
                    out.extend_from_slice(&16u16.to_le_bytes());
                    out.extend_from_slice(&12u16.to_le_bytes());
                    out.extend_from_slice(&(1u32 << 20).to_le_bytes());
                    out.extend_from_slice(&1u32.to_le_bytes());
                    out.resize(64, 0);
                    reply(&self.fuse, unique, 0, &out);
                }
                // LOOKUP of the one file.
                1 => {
                    let name = body.split(|&b| b == 0).next().unwrap_or(&[]);
                    if node == ROOT && name == self.name.as_bytes() {
                        let mut out = Vec::with_capacity(128);
                        for v in [FILE, 0, 3600, 3600] {
                            out.extend_from_slice(&v.to_le_bytes());
                        }
                        out.extend_from_slice(&[0; 8]);
                        out.extend_from_slice(&attr(FILE, self.size));
                        reply(&self.fuse, unique, 0, &out);
                    } else {
                        reply(&self.fuse, unique, -libc::ENOENT, &[]);
                    }
                }
                // GETATTR.
                3 => {
                    let mut out = Vec::with_capacity(104);
                    out.extend_from_slice(&3600u64.to_le_bytes());
                    out.extend_from_slice(&[0; 8]);
                    out.extend_from_slice(&attr(node, self.size));
                    reply(&self.fuse, unique, 0, &out);
                }
                // OPEN, OPENDIR: no handle needed.
                14 | 27 => reply(&self.fuse, unique, 0, &[0; 16]),
                // READ: held while the test holds reads, else answered from the backing file.
                15 => {
                    let (offset, size) = (le64(body, 8), le32(body, 16));
                    let mut held = self.held.lock().unwrap();
                    if self.holding.load(Ordering::SeqCst) {
                        held.push((unique, offset, size));
                    } else {
                        drop(held);
                        answer_read(&self.fuse, &self.backing, unique, offset, size);
                    }
                }
                // RELEASE, FLUSH, RELEASEDIR, ACCESS: done.
                18 | 25 | 29 | 34 => reply(&self.fuse, unique, 0, &[]),
                // FORGET, BATCH_FORGET, INTERRUPT: no reply.
                2 | 42 | 36 => {}
                // DESTROY: the end.
                38 => return,
                _ => reply(&self.fuse, unique, -libc::ENOSYS, &[]),
            }
        }
    }
}

fn answer_read(fuse: &File, backing: &File, unique: u64, offset: u64, size: u32) {
    let mut data = vec![0u8; size as usize];
    let mut got = 0;
    while got < data.len() {
        match backing.read_at(&mut data[got..], offset + got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(_) => break,
        }
    }
    data.truncate(got);
    reply(fuse, unique, 0, &data);
}

impl SlowDisk {
    /// `source` served read-only as `name` in a new FUSE mount; `Err` says why there is none
    /// (not root, no `/dev/fuse`, mounting refused).
    pub fn mount(source: &Path, name: &str) -> Result<SlowDisk, String> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return Err("mounting FUSE needs root".into());
        }
        let fuse = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/fuse")
            .map_err(|e| format!("/dev/fuse: {e}"))?;
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let target = CString::new(dir.path().to_str().unwrap()).unwrap();
        let options = CString::new(format!(
            "fd={},rootmode=40000,user_id=0,group_id=0",
            fuse.as_raw_fd()
        ))
        .unwrap();
        // SAFETY: every pointer is a valid NUL-terminated string for the call's duration.
        let rc = unsafe {
            libc::mount(
                c"retrodb-slow-disk".as_ptr(),
                target.as_ptr(),
                c"fuse".as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV | libc::MS_RDONLY,
                options.as_ptr().cast(),
            )
        };
        if rc != 0 {
            return Err(format!(
                "mounting FUSE: {}",
                std::io::Error::last_os_error()
            ));
        }
        let backing = Arc::new(File::open(source).map_err(|e| e.to_string())?);
        let size = backing.metadata().map_err(|e| e.to_string())?.len();
        let holding = Arc::new(AtomicBool::new(false));
        let held = Arc::new(Mutex::new(Vec::new()));
        let daemon = Daemon {
            fuse: fuse.try_clone().map_err(|e| e.to_string())?,
            backing: Arc::clone(&backing),
            size,
            name: name.to_string(),
            holding: Arc::clone(&holding),
            held: Arc::clone(&held),
        };
        // Not joined: it ends when the mount goes, after the server.
        std::thread::spawn(move || daemon.run());
        Ok(SlowDisk {
            dir,
            name: name.to_string(),
            fuse,
            holding,
            held,
            backing,
        })
    }

    pub fn path(&self) -> PathBuf {
        self.dir.path().join(&self.name)
    }

    /// Reads from now on wait until [`SlowDisk::release`].
    pub fn hold(&self) {
        self.holding.store(true, Ordering::SeqCst);
    }

    /// Reads waiting.
    pub fn held(&self) -> usize {
        self.held.lock().unwrap().len()
    }

    /// Answers the reads held and every read after.
    pub fn release(&self) {
        let mut held = self.held.lock().unwrap();
        self.holding.store(false, Ordering::SeqCst);
        for (unique, offset, size) in held.drain(..) {
            answer_read(&self.fuse, &self.backing, unique, offset, size);
        }
    }
}

impl Drop for SlowDisk {
    fn drop(&mut self) {
        // Nothing may stay blocked on this disk: answer first, then unmount (lazily: the
        // server may still map the file).
        self.release();
        let target = CString::new(self.dir.path().to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        unsafe { libc::umount2(target.as_ptr(), libc::MNT_DETACH) };
    }
}

/// The status of `GET target`, or `None` when no answer came within `wait`.
fn status_within(addr: std::net::SocketAddr, target: &str, wait: Duration) -> Option<u16> {
    let mut s = TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(wait)).ok()?;
    write!(
        s,
        "GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut head = [0u8; 12];
    s.read_exact(&mut head).ok()?;
    std::str::from_utf8(&head[9..12]).ok()?.parse().ok()
}

/// Defect 9: `/health` answers while a lookup waits for the disk. With a single runtime
/// thread and the lookup on it, `/health` waited for as long as the disk did.
#[test]
fn health_answers_while_a_lookup_waits_for_the_disk() {
    let disk = match SlowDisk::mount(Path::new(&table("g16")), "g16.rdb") {
        Ok(d) => d,
        Err(why) => {
            eprintln!("SKIPPED: {why}");
            return;
        }
    };
    let path = disk.path();
    let server = Server::start(&[path.to_str().unwrap(), "--no-verify", "--threads", "1"]);
    // The same table from the real disk, for the answer.
    let plain = serve("g16", &[]);
    // A position in the middle of the table, whose page no opening read.
    let position = "..............LR";
    let target = format!("/api/v1/tables/g16?position={position}&moves=false");
    disk.hold();
    let addr = server.addr;
    let asked = target.clone();
    let lookup = std::thread::spawn(move || request(addr, "GET", &asked, &[]));
    let waited = within(Duration::from_secs(30), || disk.held() > 0);
    let health = status_within(server.addr, "/health", Duration::from_secs(20));
    // Let the lookup finish whatever happened, before judging (nothing may stay blocked on
    // the disk when the server is stopped).
    disk.release();
    let answer = lookup.join().unwrap();
    assert!(
        waited,
        "the lookup never read the disk: {} {}",
        answer.status,
        answer.text()
    );
    assert_eq!(health, Some(200), "/health waited for the disk");
    assert_eq!(answer.status, 200, "{}", answer.text());
    assert_eq!(answer.json(), plain.get(&target).json());
}
