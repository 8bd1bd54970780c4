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
