//! The progress of `compress`, `decompress` and `verify` (a bar per stage: `StageBar` in
//! src/apps/cli/progress.rs over the library's `progress::Progress`): drawn when stderr is a terminal,
//! hidden with `--quiet` or when stderr is not a terminal, and never changing what the commands
//! write — their files byte for byte, their standard output line for line.

use std::fs::File;
use std::io::Read;
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::Path;
use std::process::{Command, Stdio};

use crate::common::{retrodb, stderr, stdout};

/// What a command wrote: standard output, and standard error (from a terminal or a pipe).
struct Run {
    stdout: String,
    stderr: String,
}

/// Runs `retrodb ARGS` with stderr on a pseudo-terminal of 24 rows and 120 columns (stdout on
/// a pipe), as a person at a terminal who redirects the output would.
fn on_terminal(args: &[&str]) -> Run {
    let (mut master, mut slave) = (0, 0);
    let size = libc::winsize {
        ws_row: 24,
        ws_col: 120,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: openpty writes the two descriptors it opens into `master` and `slave`; the name
    // and terminal settings may be null, the window size is read only.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            &size,
        )
    };
    assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors were just opened by openpty and are owned by nothing else.
    let (mut master, slave) = unsafe { (File::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    let child = {
        let mut c = Command::new(env!("CARGO_BIN_EXE_retrodb"));
        c.args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("TERM", "xterm")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(slave));
        c.spawn().expect("retrodb runs")
        // The command, and with it this process's copy of the terminal's slave end, is
        // dropped here: the master reads EOF (EIO) once the child has gone.
    };
    let reader = std::thread::spawn(move || {
        let mut all = Vec::new();
        let mut buf = [0u8; 4096];
        while let Ok(n) = master.read(&mut buf) {
            if n == 0 {
                break;
            }
            all.extend_from_slice(&buf[..n]);
        }
        String::from_utf8_lossy(&all).into_owned()
    });
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "retrodb {args:?} failed");
    Run {
        stdout: stdout(&out),
        stderr: reader.join().unwrap(),
    }
}

/// Runs `retrodb ARGS` with stderr on a pipe.
fn on_pipe(args: &[&str]) -> Run {
    let o = retrodb(args);
    assert!(o.status.success(), "retrodb {args:?}: {}", stderr(&o));
    Run {
        stdout: stdout(&o),
        stderr: stderr(&o),
    }
}

/// Runs a command that writes `out` three ways — on a terminal, on a terminal with `--quiet`,
/// and with stderr on a pipe — and checks that only the terminal without `--quiet` shows
/// progress, with each of `stages` named, and that the file and stdout are the same every time.
/// Returns the file's bytes.
fn three_ways(args: &[&str], out: Option<&Path>, stages: &[&str]) -> Option<Vec<u8>> {
    let fresh = || {
        if let Some(out) = out {
            let _ = std::fs::remove_file(out);
        }
    };
    let read = || out.map(|p| std::fs::read(p).unwrap());
    fresh();
    let shown = on_terminal(args);
    let bytes = read();
    for stage in stages {
        assert!(
            shown.stderr.contains(stage),
            "{args:?}: no '{stage}' on the terminal: {:?}",
            shown.stderr
        );
    }
    let quiet_args: Vec<&str> = args.iter().copied().chain(["--quiet"]).collect();
    fresh();
    let quiet = on_terminal(&quiet_args);
    assert_eq!(read(), bytes, "{args:?}: --quiet wrote another file");
    assert_eq!(quiet.stdout, shown.stdout, "{args:?}");
    assert!(
        quiet.stderr.trim().is_empty(),
        "{args:?} --quiet: {:?}",
        quiet.stderr
    );
    fresh();
    let piped = on_pipe(args);
    assert_eq!(read(), bytes, "{args:?}: a pipe wrote another file");
    assert_eq!(piped.stdout, shown.stdout, "{args:?}");
    assert_eq!(piped.stderr, "", "{args:?}: progress on a pipe");
    assert!(!shown.stdout.is_empty());
    bytes
}

#[test]
fn progress_shows_on_a_terminal_only_and_changes_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let (raw, z, back) = (path("raw.rdb"), path("z.rdb"), path("back.rdb"));
    let o = retrodb(&["build", "bridgit:3", "--remoteness", "-o", &raw, "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let original = std::fs::read(&raw).unwrap();

    let compressed = three_ways(
        &["compress", &raw, &z, "--level", "3"],
        Some(Path::new(&z)),
        &[
            "checking checksums",
            "sampling cells frames for a dictionary",
            "sampling remoteness frames for a dictionary",
            "compressing cells",
            "compressing remoteness",
        ],
    )
    .unwrap();
    assert!(compressed.len() < original.len());
    let restored = three_ways(
        &["decompress", &z, &back],
        Some(Path::new(&back)),
        &["decompressing cells and remoteness"],
    )
    .unwrap();
    assert!(restored == original, "decompress gave another table");
    three_ways(
        &["verify", &raw],
        None,
        &[
            "checking checksums",
            "checking every position against its children",
        ],
    );
    three_ways(
        &["verify", &z, "--sample", "20000"],
        None,
        &[
            "checking checksums",
            "checking sampled positions against their children",
        ],
    );
}
