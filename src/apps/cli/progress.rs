//! The library's [`Progress`] on stderr: a bar for a build's solve or compression and for a
//! research scan ([`Bar`]), a bar a stage at a time for `compress`, `decompress` and `verify`
//! ([`StageBar`]), and notes alone for commands without a bar ([`Notes`]).
//!
//! The invariant: bars are drawn only when stderr is a terminal and `--quiet` was not given;
//! notes are printed always, as `retrodb: LINE`, above a bar that is on the screen, so a
//! command's lines read the same with or without its bars.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::base::progress::Progress;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A note as every front end prints it.
fn print_note(line: &str) {
    errln!("retrodb: {line}");
}

/// Whether bars may be drawn: stderr is a terminal and the command is not `quiet`.
fn drawn(quiet: bool) -> bool {
    !quiet && std::io::stderr().is_terminal()
}

/// An indicatif bar (hidden or drawn) and whether it is on the screen: what [`Bar`] and
/// [`StageBar`] share, the units, the step's words and the notes above the bar.
struct Screen {
    bar: ProgressBar,
    /// Told a stage, so on the screen when drawn: a note goes above it, not across it.
    shown: AtomicBool,
}

impl Screen {
    fn new(bar: ProgressBar) -> Screen {
        Screen {
            bar,
            shown: AtomicBool::new(false),
        }
    }

    /// The bar shows a stage now.
    fn show(&self) {
        self.shown.store(true, Ordering::Relaxed);
    }

    fn advance(&self, n: u64) {
        self.bar.inc(n);
    }

    fn step(&self, what: &str) {
        self.bar.set_message(what.to_string());
    }

    fn reach(&self, done: u64) {
        self.bar.set_position(done);
    }

    fn note(&self, line: &str) {
        if self.shown.load(Ordering::Relaxed) {
            self.bar.suspend(|| print_note(line));
        } else {
            print_note(line);
        }
    }
}

/// A bar labelled with what it shows (`solving`, `compressing`, `counting`): a stage sets its
/// length and its message (a compression's stage words; a solve's stage has none, its steps
/// set the message: `tier 3 of 9`).
pub struct Bar {
    screen: Screen,
    /// The bar this one takes the place of (a build's compression follows its solve): cleared
    /// when this one is first told a stage or a note.
    after: Option<(ProgressBar, AtomicBool)>,
}

impl Bar {
    pub fn new(quiet: bool, what: &str) -> Bar {
        let bar = if drawn(quiet) {
            let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template(&format!(
                    "{what} [{{elapsed_precise}}] {{bar:30}} {{human_pos}}/{{human_len}} ({{per_sec}}, {{eta}} left) {{msg}}"
                ))
                .expect("valid template"),
            );
            bar
        } else {
            ProgressBar::hidden()
        };
        Bar {
            screen: Screen::new(bar),
            after: None,
        }
    }

    /// This bar, taking the place of `before` once it is first told anything.
    pub fn after(mut self, before: &Bar) -> Bar {
        self.after = Some((before.screen.bar.clone(), AtomicBool::new(false)));
        self
    }

    /// A line of the command's own (a tier's line), printed above the bar.
    pub fn line(&self, text: &str) {
        self.screen.bar.suspend(|| errln!("{text}"));
    }

    /// Clears the bar (it is also cleared when the last handle of it goes).
    pub fn clear(&self) {
        self.screen.bar.finish_and_clear();
    }

    fn take_over(&self) {
        if let Some((before, gone)) = &self.after
            && !gone.swap(true, Ordering::Relaxed)
        {
            before.finish_and_clear();
        }
    }
}

impl Progress for Bar {
    fn stage(&self, what: &str, total: u64) {
        self.take_over();
        let bar = &self.screen.bar;
        bar.set_message(what.to_string());
        bar.set_length(total);
        bar.set_position(0);
        self.screen.show();
    }

    fn advance(&self, n: u64) {
        self.screen.advance(n);
    }

    fn step(&self, what: &str) {
        self.screen.step(what);
    }

    fn reach(&self, done: u64) {
        self.screen.reach(done);
    }

    fn note(&self, line: &str) {
        self.take_over();
        self.screen.note(line);
    }
}

/// The progress of `compress`, `decompress` and `verify` on stderr, a stage at a time: a bar
/// for a stage of known length, a spinner with the time spent for one of unknown length (a
/// dictionary being trained). Hidden as [`Bar`] is (`--quiet`, or stderr not a terminal). It is
/// cleared when dropped.
pub struct StageBar {
    screen: Screen,
}

impl StageBar {
    pub fn new(quiet: bool) -> StageBar {
        let bar = if drawn(quiet) {
            let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
            // Redrawn on a timer too, so the elapsed time moves while a stage's units are slow.
            bar.enable_steady_tick(std::time::Duration::from_millis(200));
            bar
        } else {
            ProgressBar::hidden()
        };
        StageBar {
            screen: Screen::new(bar),
        }
    }
}

/// Cleared when done, or when the command fails (its message then stands alone).
impl Drop for StageBar {
    fn drop(&mut self) {
        self.screen.bar.finish_and_clear();
    }
}

impl Progress for StageBar {
    fn stage(&self, what: &str, total: u64) {
        let template = if total == 0 {
            "{spinner} {msg} [{elapsed_precise}]"
        } else {
            "{msg} [{elapsed_precise}] {bar:30} {human_pos}/{human_len} ({eta} left)"
        };
        let bar = &self.screen.bar;
        bar.set_style(ProgressStyle::with_template(template).expect("valid template"));
        bar.set_length(total);
        bar.set_position(0);
        bar.reset_elapsed();
        bar.set_message(what.to_string());
        // Past the redraw rate's limit: every stage is shown, a short one too.
        bar.force_draw();
        self.screen.show();
    }

    fn advance(&self, n: u64) {
        self.screen.advance(n);
    }

    fn step(&self, what: &str) {
        self.screen.step(what);
    }

    fn reach(&self, done: u64) {
        self.screen.reach(done);
    }

    fn note(&self, line: &str) {
        self.screen.note(line);
    }
}

/// Notes alone, for commands that show no bar (`gen`, `play`, `values`, `show`, `demo`).
pub struct Notes;

impl Progress for Notes {
    fn stage(&self, _what: &str, _total: u64) {}
    fn advance(&self, _n: u64) {}
    fn step(&self, _what: &str) {}
    fn reach(&self, _done: u64) {}
    fn note(&self, line: &str) {
        print_note(line);
    }
}
