//! Running the binary where it can be watched from outside: a FIFO given as its output, held
//! open for reading so that a wrong write finishes and can be seen, and the peak memory of a
//! process that reads a long line, taken while it waits for the next one.

use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::process::Output;

use crate::common::path_str;

/// A named FIFO at `path`, held open for reading (without waiting for a writer), so that a
/// command that wrongly writes into it finishes instead of blocking; read it afterwards to see
/// whether anything was written.
pub fn fifo(path: &Path) -> File {
    let name = std::ffi::CString::new(path_str(path)).unwrap();
    // SAFETY: mkfifo with a NUL-terminated path; no memory is kept.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o644) }, 0);
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .unwrap()
}

/// Bytes waiting in a FIFO opened by [`fifo`] (none when nothing was written).
pub fn waiting(reader: &mut File) -> usize {
    let mut buf = Vec::new();
    let _ = reader.read_to_end(&mut buf); // WouldBlock once it is empty
    buf.len()
}

/// Runs `retrodb ARGS`, writes `first` to its stdin, reads its stdout (`on_stdout`) or its
/// stderr until a line contains `marker`, then reads the process's peak resident memory
/// (`VmHWM` of /proc, the memory of this program alone: its peak so far, while it waits for
/// more input), writes `rest` and closes stdin. Returns the whole output and that peak in bytes.
/// A line with `answer` but not `marker` is another answer: the process is killed (it would wait
/// for input for ever) and the test fails.
pub fn peak_after(
    args: &[&str],
    first: Vec<u8>,
    (on_stdout, marker, answer): (bool, &str, &str),
    rest: &[u8],
) -> (Output, u64) {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_retrodb"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(&first);
        stdin
    });
    let (watched, other) = if on_stdout {
        (
            Box::new(child.stdout.take().unwrap()) as Box<dyn Read + Send>,
            Box::new(child.stderr.take().unwrap()) as Box<dyn Read + Send>,
        )
    } else {
        (
            Box::new(child.stderr.take().unwrap()) as Box<dyn Read + Send>,
            Box::new(child.stdout.take().unwrap()) as Box<dyn Read + Send>,
        )
    };
    let other = std::thread::spawn(move || {
        let mut v = Vec::new();
        let mut other = other;
        other.read_to_end(&mut v).unwrap();
        v
    });
    let mut watched = BufReader::new(watched);
    let mut seen = Vec::new();
    loop {
        let before = seen.len();
        assert!(
            watched.read_until(b'\n', &mut seen).unwrap() > 0,
            "{marker:?} never came"
        );
        let line = String::from_utf8_lossy(&seen[before..]).into_owned();
        if line.contains(marker) {
            break;
        }
        if line.contains(answer) {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{marker:?} expected, got {}",
                retrodb::base::error::cut(&line)
            );
        }
    }
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/PID/status");
    let mut stdin = feeder.join().unwrap();
    stdin.write_all(rest).unwrap();
    drop(stdin);
    watched.read_to_end(&mut seen).unwrap();
    let status = child.wait().unwrap();
    let other = other.join().unwrap();
    let (stdout, stderr) = if on_stdout {
        (seen, other)
    } else {
        (other, seen)
    };
    (
        Output {
            status,
            stdout,
            stderr,
        },
        kb * 1024,
    )
}
