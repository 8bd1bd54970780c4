//! `retrodb.build`: a game's table built from Python as `retrodb build` builds it, with the
//! interpreter released while solving and Ctrl-C turned into the library's stop request.
//!
//! Invariant: no panic of the build reaches Python, and a stopped build leaves nothing half
//! written under the table's name (a tiered build's work files stay for the same call to resume).

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use retrodb::base::progress::Progress;
use retrodb::games::AnyGame;
use retrodb::table::builder::threads::{self, ThreadsError};
use retrodb::table::builder::{self as table_build, BuildOptions};

use crate::{error, raise, serialized};

/// The width a progress line is padded to, so a shorter line covers a longer one.
const LINE: usize = 79;

/// How often a running build looks for Ctrl-C and redraws its progress line.
const POLL: Duration = Duration::from_millis(100);

/// The pool of `threads` threads a build runs on (`None`: rayon's global one).
fn pool_of(threads: Option<usize>) -> PyResult<Option<rayon::ThreadPool>> {
    let Some(n) = threads else {
        return Ok(None);
    };
    threads::pool(n).map(Some).map_err(|e| match e {
        ThreadsError::Zero => PyValueError::new_err(format!("threads {e}")),
        ThreadsError::TooMany { .. } => PyValueError::new_err(format!("threads={n}: {e}")),
        ThreadsError::Start { .. } => raise("BuildError", e.to_string()),
    })
}

/// Builds a game's table into `path` as `retrodb build` does: the same engines, memory and
/// disk estimates, and refusals (BuildError before any work when the estimate exceeds
/// `max_memory` or the free disk). The interpreter is released while solving; Ctrl-C stops the
/// build (KeyboardInterrupt; a tiered build's work files stay, so the same call resumes).
/// `grundy` also stores every vertex's generalized Sprague-Grundy value (digraph games), so
/// that `Table.sum` answers sums of tokens. Returns the build's summary as a dict.
#[pyfunction]
#[pyo3(signature = (spec, path, remoteness=false, compress=false, threads=None, progress=true, max_memory=None, grundy=false))]
#[allow(clippy::too_many_arguments)]
pub fn build<'py>(
    py: Python<'py>,
    spec: &Bound<'py, PyAny>,
    path: PathBuf,
    remoteness: bool,
    compress: bool,
    threads: Option<usize>,
    progress: bool,
    max_memory: Option<u64>,
    grundy: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let pool = pool_of(threads)?;
    let max_memory = max_memory.unwrap_or_else(retrodb::base::memory::default_limit);
    let solving = Arc::new(Kept::default());
    let compressing = Arc::new(Kept::default());
    let game = match spec.extract::<String>() {
        Ok(spec) => py
            .detach(|| AnyGame::open_with(&spec, max_memory, &*solving))
            .map_err(error)?,
        // A game written in Python: its move graph, read through its callbacks.
        Err(_) => crate::pygame::read(py, spec, progress)?,
    };
    let spec = game.spec();
    let tier_lines: Arc<Mutex<Vec<String>>> = Arc::default();
    let mut opts = BuildOptions {
        remoteness,
        progress: Some(solving.clone()),
        max_memory,
        compress: compress.then(retrodb::table::zstd::Params::default),
        compress_progress: Some(compressing.clone()),
        grundy,
        ..BuildOptions::default()
    };
    table_build::check_options(&game, &opts).map_err(error)?;
    let stderr = py.import("sys")?.getattr("stderr")?;
    let say = |text: &str| -> PyResult<()> {
        stderr.call_method1("write", (text,))?;
        stderr.call_method0("flush")?;
        Ok(())
    };
    let plan = py
        .detach(|| table_build::BuildPlan::make(&game, &path, &opts))
        .map_err(error)?;
    if progress {
        let lines = table_build::report::before_build(&game, &opts, &plan);
        for line in &lines {
            say(&format!("{line}\n"))?;
        }
        let sink = Arc::clone(&tier_lines);
        opts.on_tier = Some(table_build::report::tier_lines(move |line| {
            if let Ok(mut lines) = sink.lock() {
                lines.push(line);
            }
        }));
    }
    let stop = opts.stop.clone();
    let started = Instant::now();
    let (result, interrupted) = std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::channel();
        let rx = Mutex::new(rx);
        let (game, opts, path) = (&game, &opts, &path);
        let pool = pool.as_ref();
        s.spawn(move || {
            let run = || table_build::build_planned(game, path, opts, plan);
            // A panic stays on this thread (as an error), never unwinding into Python.
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match pool {
                Some(p) => p.install(run),
                None => run(),
            }));
            let _ = tx.send(r);
        });
        let mut interrupted = None;
        let mut shown = Instant::now();
        loop {
            // (A receiver is not `Sync`; the mutex lets the released thread borrow it.)
            let wait = || {
                rx.lock()
                    .map_or(Err(std::sync::mpsc::RecvTimeoutError::Disconnected), |rx| {
                        rx.recv_timeout(POLL)
                    })
            };
            match py.detach(wait) {
                Ok(r) => break (Some(r), interrupted),
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break (None, interrupted),
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            }
            if interrupted.is_none()
                && let Err(e) = py.check_signals()
            {
                // Ctrl-C (or another signal handler's exception): the build is asked to stop
                // and waited for, so nothing is left running or half written under its name.
                stop.request();
                interrupted = Some(e);
            }
            if progress && interrupted.is_none() && shown.elapsed() >= Duration::from_secs(1) {
                shown = Instant::now();
                let text = progress_text(&tier_lines, &solving, &compressing, started);
                if say(&text).is_err() {
                    // A closed stderr only loses the progress line.
                }
            }
        }
    });
    if progress && started.elapsed() >= Duration::from_secs(1) {
        let _ = say(&format!("\r{:LINE$}\r", ""));
    }
    if let Some(e) = interrupted {
        return Err(e);
    }
    let summary = match result {
        Some(Ok(r)) => r.map_err(error)?,
        _ => {
            return Err(raise(
                "BuildError",
                format!("the build of {spec} failed inside retrodb (a bug: please report it)"),
            ));
        }
    };
    serialized(py, &summary)
}

/// The tier lines finished since the last redraw and the progress line after them, in plain
/// carriage returns and padding (no terminal escapes), so the line redraws in a terminal and
/// in a notebook alike.
fn progress_text(
    tier_lines: &Mutex<Vec<String>>,
    solving: &Kept,
    compressing: &Kept,
    started: Instant,
) -> String {
    let lines: Vec<String> = tier_lines
        .lock()
        .map(|mut l| std::mem::take(&mut *l))
        .unwrap_or_default();
    let mut text = String::new();
    for l in lines {
        text.push_str(&format!("\r{l:<LINE$}\n"));
    }
    let (kept, what) = if compressing.total.load(Ordering::Relaxed) > 0 {
        (compressing, "compressing")
    } else {
        (solving, "solving")
    };
    let len = kept.total.load(Ordering::Relaxed).max(1);
    let line = format!(
        "{what} {:.0}% ({:.0} s) {}",
        100.0 * kept.done.load(Ordering::Relaxed) as f64 / len as f64,
        started.elapsed().as_secs_f64(),
        kept.words()
    );
    text.push_str(&format!("\r{line:<LINE$}"));
    text
}

/// What a build tells its progress, kept for the progress line the interpreter's thread draws
/// (the stage's length, the work done, the words of its step); a note is written to stderr at
/// once, as `retrodb: LINE` (the command line's way), progress line or not.
#[derive(Default)]
struct Kept {
    total: AtomicU64,
    done: AtomicU64,
    words: Mutex<String>,
}

impl Kept {
    fn words(&self) -> String {
        self.words.lock().map(|w| w.clone()).unwrap_or_default()
    }

    fn say(&self, what: &str) {
        if let Ok(mut w) = self.words.lock() {
            what.clone_into(&mut w);
        }
    }
}

impl Progress for Kept {
    fn stage(&self, what: &str, total: u64) {
        self.say(what);
        self.total.store(total, Ordering::Relaxed);
        self.done.store(0, Ordering::Relaxed);
    }

    fn advance(&self, n: u64) {
        self.done.fetch_add(n, Ordering::Relaxed);
    }

    fn step(&self, what: &str) {
        self.say(what);
    }

    fn reach(&self, done: u64) {
        self.done.store(done, Ordering::Relaxed);
    }

    fn note(&self, line: &str) {
        crate::note(line);
    }
}
