//! The kernels compiled twice (for the baseline and for x86-64-v3, chosen at run time, see
//! `retrodb::base::cpu`): tables built with the CPU's choice and with `RETRODB_CPU=baseline`
//! are byte-identical, for a game solved by each dispatched kernel and engine.

use std::path::Path;
use std::process::Command;

use crate::common::stderr;

/// Builds `args` into `out` with `RETRODB_CPU` set to `cpu` (unset for `None`); returns the
/// build's report (stderr).
fn build(args: &[&str], out: &Path, cpu: Option<&str>) -> String {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_retrodb"));
    cmd.arg("build")
        .args(args)
        .arg("-o")
        .arg(out)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("RETRODB_CPU")
        .env_remove("RETRODB_PRETEND_CPU_LACKS");
    if let Some(cpu) = cpu {
        cmd.env("RETRODB_CPU", cpu);
    }
    let o = cmd.output().expect("the retrodb binary runs");
    assert!(o.status.success(), "{args:?} ({cpu:?}): {}", stderr(&o));
    stderr(&o)
}

#[test]
fn the_baseline_kernels_build_the_same_tables() {
    // Each spec with the kernel or engine its report names.
    let cases: &[(&[&str], &str)] = &[
        (&["hex:3"], "(bitplane kernel)"),
        (&["shannon:data/shannon/k4.txt"], "(bitplane kernel)"),
        (&["hex:3,start=L,sym"], "(sliced-rows kernel)"),
        (&["hex:3", "--remoteness"], "(plain-remoteness kernel)"),
        (
            &["shannon:data/shannon/square.txt", "--remoteness"],
            "(plain-remoteness kernel)",
        ),
        (
            &["hex:3,start=L,sym", "--remoteness"],
            "(sliced-remoteness kernel)",
        ),
        (&["hex:3,start=L"], "(per-position kernel)"),
        (&["hex:3,start=L", "--remoteness"], "(per-position kernel)"),
        (
            &["hackenbush:data/hackenbush-house.txt"],
            "(per-position kernel)",
        ),
        (&["digraph:data/seed001.txt"], "(counter kernel)"),
        (
            &["digraph:data/seed001.txt", "--remoteness"],
            "(counter kernel)",
        ),
        (&["hex:3", "--engine", "counter"], "(counter kernel)"),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (i, (args, kernel)) in cases.iter().enumerate() {
        let chosen = dir.path().join(format!("{i}-chosen.rdb"));
        let baseline = dir.path().join(format!("{i}-baseline.rdb"));
        let report = build(args, &chosen, None);
        assert!(report.contains(kernel), "{args:?}: {report}");
        let report = build(args, &baseline, Some("baseline"));
        assert!(report.contains(kernel), "{args:?}: {report}");
        let (a, b) = (
            std::fs::read(&chosen).unwrap(),
            std::fs::read(&baseline).unwrap(),
        );
        assert!(a == b, "{args:?}: the baseline kernels built another table");
    }
}
