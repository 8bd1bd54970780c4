//! Standard output and standard error for every command: the one path their text takes.
//!
//! `println!` panics when stdout cannot be written (a full device, a closed pipe: "failed
//! printing to stdout", exit 101), and so does `eprintln!` for stderr. Commands print with
//! `outln!` and `out!` (or write to a [`Stdout`]) instead: a
//! failed write is a [`StdoutError`], passed up with `?` like any error, and `main` turns it
//! into a quiet exit 0 when the reader closed the pipe (`retrodb dump t.rdb | head`), as Unix
//! tools do, and into a one-line message naming stdout and exit 1 otherwise. Messages go to
//! stderr with `errln!`, which drops what cannot be written: there is nowhere
//! left to say it.
//!
//! Invariant: no command writes to stdout or stderr any other way.

use std::fmt;
use std::io::{self, BufWriter, Write};

/// A failed write to standard output.
#[derive(Debug)]
pub struct StdoutError(pub io::Error);

impl fmt::Display for StdoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot write to stdout: {}", self.0)
    }
}

impl std::error::Error for StdoutError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

impl StdoutError {
    /// The reader has gone (`| head`, `| true`): not an error of ours.
    pub fn is_closed_pipe(&self) -> bool {
        self.0.kind() == io::ErrorKind::BrokenPipe
    }
}

/// An `io::Error` that carries a [`StdoutError`], for writers that return `io::Result`.
fn wrapped(e: io::Error) -> io::Error {
    if e.get_ref().is_some_and(|inner| inner.is::<StdoutError>()) {
        return e;
    }
    io::Error::new(e.kind(), StdoutError(e))
}

/// Writes `args` to stdout and flushes, so a failure is reported at the line that met it.
pub fn print(args: fmt::Arguments<'_>) -> Result<(), StdoutError> {
    let mut out = io::stdout().lock();
    out.write_fmt(args)
        .and_then(|_| out.flush())
        .map_err(StdoutError)
}

/// Writes `args` to stderr; a failure is dropped (stderr is where failures would be told).
pub fn eprint(args: fmt::Arguments<'_>) {
    let _ = io::stderr().lock().write_fmt(args);
}

/// Buffered stdout for commands that stream many lines (`dump`, `probe`, `play`): every write
/// error carries a [`StdoutError`]. Call [`Write::flush`] at the end; dropping it unflushed
/// loses the error.
pub struct Stdout(BufWriter<io::StdoutLock<'static>>);

impl Stdout {
    pub fn new() -> Stdout {
        Stdout(BufWriter::new(io::stdout().lock()))
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf).map_err(wrapped)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.0.write_all(buf).map_err(wrapped)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush().map_err(wrapped)
    }
}

/// The [`StdoutError`] somewhere in an error's chain (directly, or inside an `io::Error` a
/// [`Stdout`] returned, however the library wrapped it).
pub fn stdout_error(e: &anyhow::Error) -> Option<&StdoutError> {
    e.chain().find_map(|c| {
        c.downcast_ref::<StdoutError>().or_else(|| {
            c.downcast_ref::<io::Error>()
                .and_then(|io| io.get_ref())
                .and_then(|inner| inner.downcast_ref::<StdoutError>())
        })
    })
}

/// Prints clap's help, version or usage error and gives the exit code: help and version go to
/// stdout through the same rules as a command's output (clap alone drops a failed write).
pub fn clap_exit(e: &clap::Error) -> std::process::ExitCode {
    let code = std::process::ExitCode::from(e.exit_code().clamp(0, 255) as u8);
    if e.use_stderr() {
        // Clap echoes a bad value whole; a long one is cut as the library's messages cut input.
        let long: Vec<String> = std::env::args_os()
            .skip(1)
            .map(|a| a.to_string_lossy().into_owned())
            .flat_map(|a| {
                let value = a.split_once('=').map(|(_, v)| v.to_string());
                [Some(a), value]
            })
            .flatten()
            .filter(|a| a.len() > 200)
            .collect();
        if long.is_empty() {
            let _ = e.print();
        } else {
            let mut text = e.render().to_string();
            for a in &long {
                text = text.replace(a.as_str(), &crate::base::error::cut(a));
            }
            eprint(format_args!("{text}"));
        }
        return code;
    }
    match e.print().and_then(|_| io::stdout().flush()) {
        Ok(()) => code,
        Err(io) if io.kind() == io::ErrorKind::BrokenPipe => code,
        Err(io) => {
            eprint(format_args!("retrodb: {}\n", StdoutError(io)));
            std::process::ExitCode::FAILURE
        }
    }
}

/// `println!` for commands: `outln!(...)?`.
macro_rules! outln {
    () => {
        $crate::apps::cli::out::print(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::apps::cli::out::print(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` for commands: `out!(...)?`.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::apps::cli::out::print(format_args!($($arg)*))
    };
}

/// `eprintln!` that never panics.
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::apps::cli::out::eprint(format_args!("{}\n", format_args!($($arg)*)))
    };
}
