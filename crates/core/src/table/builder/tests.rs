//! A build's progress ([`crate::base::progress`]): every kernel keeps the invariant (the work done in a
//! stage never passes its total), names its steps, and ends its solve with the stage done, a
//! resumed build too; the compression tells its stages on its own progress.

use std::sync::Arc;

use super::*;
use crate::base::progress::tests::Kept;
use crate::solve::plan::Kernel;

/// Builds `spec` into `dir` with `opts`, its solve reporting to a [`Kept`] (which panics on
/// a broken invariant); returns the summary and what was told.
fn built(dir: &Path, spec: &str, opts: BuildOptions) -> (BuildSummary, Arc<Kept>) {
    let kept = Arc::new(Kept::default());
    let game = AnyGame::open(spec, u64::MAX).unwrap();
    let opts = BuildOptions {
        progress: Some(kept.clone()),
        ..opts
    };
    let out = dir.join("t.rdb");
    let s = build(&game, &out, &opts).unwrap();
    (s, kept)
}

fn done_and_total(kept: &Kept) -> (u64, u64) {
    use std::sync::atomic::Ordering::SeqCst;
    (kept.done.load(SeqCst), kept.total.load(SeqCst))
}

#[test]
fn every_kernel_keeps_the_invariant_and_names_its_steps() {
    let cases = [
        ("hex:3", false, false, Kernel::BitPlane, "level "),
        ("hex:3", true, false, Kernel::PlainRemoteness, "level "),
        ("hex:3,start=L", false, false, Kernel::PerPosition, "tier "),
        (
            "hex:3,start=L,sym",
            false,
            false,
            Kernel::SlicedRows,
            "key tier ",
        ),
        (
            "hex:3,start=L,sym",
            true,
            false,
            Kernel::SlicedRemoteness,
            "key tier ",
        ),
        (
            concat!(
                "digraph:",
                env!("CARGO_MANIFEST_DIR"),
                "/../../data/seed001.txt"
            ),
            true,
            false,
            Kernel::Counter,
            "round ",
        ),
        (
            concat!(
                "digraph:",
                env!("CARGO_MANIFEST_DIR"),
                "/../../data/seed001.txt"
            ),
            false,
            true,
            Kernel::Counter,
            "stage ",
        ),
    ];
    for (spec, remoteness, grundy, kernel, step) in cases {
        let dir = tempfile::tempdir().unwrap();
        let opts = BuildOptions {
            remoteness,
            grundy,
            ..BuildOptions::default()
        };
        let (s, kept) = built(dir.path(), spec, opts);
        assert_eq!(s.kernel, kernel, "{spec}");
        let (done, total) = done_and_total(&kept);
        assert!(total > 0 && done == total, "{spec}: {done} of {total}");
        let words = kept.words.lock().unwrap();
        assert!(
            words.iter().any(|w| w.starts_with(step)),
            "{spec}: {words:?}"
        );
    }
}

#[test]
fn a_resumed_build_ends_with_its_stage_done() {
    for spec in ["hex:3,start=L,sym", "hex:3,start=L"] {
        let dir = tempfile::tempdir().unwrap();
        let stop = BuildOptions {
            stop_after_tiers: Some(2),
            ..BuildOptions::default()
        };
        let (first, _) = built(dir.path(), spec, stop);
        assert!(!first.complete, "{spec}");
        // The rest only: the stage is what this run solves.
        let (rest, kept) = built(dir.path(), spec, BuildOptions::default());
        assert!(rest.complete && rest.resumed_from_tier.is_some(), "{spec}");
        let (done, total) = done_and_total(&kept);
        assert!(total > 0 && done == total, "{spec}: {done} of {total}");
    }
}

#[test]
fn a_compressed_build_tells_its_compression_apart() {
    let dir = tempfile::tempdir().unwrap();
    let compressing = Arc::new(Kept::default());
    let opts = BuildOptions {
        compress: Some(crate::table::zstd::Params::default()),
        compress_progress: Some(compressing.clone()),
        ..BuildOptions::default()
    };
    let (s, solving) = built(dir.path(), "hex:3", opts);
    assert!(s.compress_seconds.is_some());
    let told = compressing.words.lock().unwrap().clone();
    assert!(told.contains(&"compressing cells".to_string()), "{told:?}");
    let solved = solving.words.lock().unwrap().clone();
    assert!(!solved.iter().any(|w| w.contains("compress")), "{solved:?}");
}

/// A build makes its plan once, and reads the checkpoint beside its output once, whatever the
/// engine and kernel, compressed or not, and a resumed build too.
#[test]
fn a_build_plans_once() {
    use super::plan::counts;
    let dir = tempfile::tempdir().unwrap();
    let compress = Some(crate::table::zstd::Params::default());
    let cases: [(&str, BuildOptions, u64); 6] = [
        ("hex:3", BuildOptions::default(), 1),
        ("hex:3,start=L,sym", BuildOptions::default(), 1),
        (
            "hex:3,start=L,sym",
            BuildOptions {
                remoteness: true,
                compress,
                ..BuildOptions::default()
            },
            1,
        ),
        (
            "hex:3",
            BuildOptions {
                engine: Some(solve::Engine::Counter),
                compress,
                ..BuildOptions::default()
            },
            0,
        ),
        (
            "hex:3,start=L,sym",
            BuildOptions {
                kernel: Some(Kernel::SlicedFrames),
                ..BuildOptions::default()
            },
            1,
        ),
        (
            "hex:3,start=L",
            BuildOptions {
                stop_after_tiers: Some(4),
                ..BuildOptions::default()
            },
            1,
        ),
    ];
    for (i, (spec, opts, tiered)) in cases.into_iter().enumerate() {
        let game = AnyGame::open(spec, u64::MAX).unwrap();
        let out = dir.path().join(format!("{i}.rdb"));
        let [b, t] = counts::now();
        let first = build(&game, &out, &opts).unwrap();
        assert_eq!(counts::now(), [b + 1, t + tiered], "{spec}, case {i}");
        if !first.complete {
            // The resumed run plans once too.
            let [b, t] = counts::now();
            let opts = BuildOptions {
                stop_after_tiers: None,
                ..opts
            };
            assert!(build(&game, &out, &opts).unwrap().complete);
            assert_eq!(counts::now(), [b + 1, t + 1], "{spec} resumed");
        }
    }
}

/// `heap:N,BUG`, a family from outside with tiers and a planted bug: a heap of N tokens, a move
/// takes one or two, tier `t` the heap of `N - t` tokens. `parents` drops a parent from
/// `for_each_parent`; `tiers` numbers the tiers backwards (moves go to lower ones); `none` is
/// the correct game.
mod planted {
    use crate::base::error::{Error, Result};
    use crate::game::{
        Game, Move, Notation, Omissions, PositionError, Status, TierPosition, TierVisitor, Tiered,
    };
    use crate::games::{Family, SpecInput};

    pub struct Heap {
        n: u64,
        bug: &'static str,
    }

    impl Family for Heap {
        const KINDS: &'static [(&'static str, &'static str)] = &[("heap", "N,BUG")];
        fn open(spec: &SpecInput<'_>) -> Result<Heap> {
            let bad = || Error::Spec {
                spec: spec.spec.into(),
                msg: "expected N,BUG".into(),
            };
            let (n, bug) = spec.arg.split_once(',').ok_or_else(bad)?;
            let bug = ["none", "parents", "tiers"]
                .into_iter()
                .find(|&b| b == bug)
                .ok_or_else(bad)?;
            Ok(Heap {
                n: n.parse().map_err(|_| bad())?,
                bug,
            })
        }
    }

    impl Game for Heap {
        fn spec(&self) -> String {
            format!("heap:{},{}", self.n, self.bug)
        }
        fn size(&self) -> u64 {
            self.n + 1
        }
        fn status(&self, pos: u64) -> Status {
            if pos == 0 {
                Status::Over(crate::Value::Loss)
            } else {
                Status::Open
            }
        }
        fn for_each_child(&self, pos: u64, mut f: impl FnMut(u64)) {
            (1..=2.min(pos)).for_each(|t| f(pos - t));
        }
        fn for_each_parent(&self, pos: u64, mut f: impl FnMut(u64)) {
            let most = if self.bug == "parents" { 1 } else { 2 };
            (1..=most)
                .filter(|t| pos + t <= self.n)
                .for_each(|t| f(pos + t));
        }
        fn max_children(&self) -> u64 {
            2
        }
    }

    impl Tiered for Heap {
        fn tier_count(&self) -> u32 {
            self.n as u32 + 1
        }
        fn tier_units(&self, _t: u32) -> u64 {
            1
        }
        fn visit_tier(&self, t: u32, _unit: u64, visitor: &mut impl TierVisitor) {
            let pos = self.n - t as u64;
            let mut children = Vec::new();
            self.for_each_child(pos, |c| children.push(c));
            visitor.visit(TierPosition {
                index: pos,
                status: self.status(pos),
                children: children.into_iter(),
            });
        }
        fn tier_range(&self, _t: u32) -> Option<std::ops::Range<u64>> {
            None
        }
        fn tier_of(&self, pos: u64) -> Option<u32> {
            Some(if self.bug == "tiers" {
                pos
            } else {
                self.n - pos
            } as u32)
        }
    }

    impl Notation for Heap {
        fn parse_position(&self, text: &str) -> Result<u64, PositionError> {
            match text.strip_prefix("heap ").map(str::parse) {
                Some(Ok(n)) if n <= self.n => Ok(n),
                _ => Err(PositionError::new(text, "expected a heap")),
            }
        }
        fn position_text(&self, pos: u64) -> String {
            format!("heap {pos}")
        }
        fn moves(&self, pos: u64) -> Vec<Move> {
            let mut moves = Vec::new();
            self.for_each_child(pos, |child| {
                moves.push(Move {
                    name: format!("take{}", pos - child),
                    child,
                })
            });
            moves
        }
    }

    impl Omissions for Heap {}
}

/// A family from outside is solved by the engine its registration reaches (the tiered engine
/// for one with tiers, its values the counter engine's), and a planted bug in its parents or
/// its tiers is refused before anything is written, the first position that shows it named.
#[test]
fn a_family_from_outside_is_checked_and_reaches_the_tiered_engine() {
    crate::register_tiered::<planted::Heap>().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let good = AnyGame::open("heap:30,none", u64::MAX).unwrap();
    let tiered = dir.path().join("tiered.rdb");
    let s = build(&good, &tiered, &BuildOptions::default()).unwrap();
    assert_eq!(s.engine, solve::Engine::Tiered);
    let counter = dir.path().join("counter.rdb");
    let opts = BuildOptions {
        engine: Some(solve::Engine::Counter),
        ..BuildOptions::default()
    };
    assert_eq!(build(&good, &counter, &opts).unwrap().counts, s.counts);
    let (t, c) = (
        crate::table::Table::open(&tiered).unwrap(),
        crate::table::Table::open(&counter).unwrap(),
    );
    for pos in 0..=30u64 {
        let want = if pos % 3 == 0 { "loss" } else { "win" };
        let got = t.probe(pos).unwrap().value;
        assert_eq!(format!("{got:?}").to_lowercase(), want, "heap {pos}");
        assert_eq!(c.probe(pos).unwrap().value, got, "heap {pos}");
    }
    for (spec, says) in [
        (
            "heap:30,parents",
            "position 2 (heap 2) moves 1 time(s) to 0 (heap 0)",
        ),
        ("heap:30,tiers", "not a higher one"),
    ] {
        let bad = AnyGame::open(spec, u64::MAX).unwrap();
        let out = dir.path().join("bad.rdb");
        let e = build(&bad, &out, &BuildOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("breaks the contract") && e.contains(says),
            "{spec}: {e}"
        );
        assert!(!out.exists(), "{spec}: nothing written");
    }
}
