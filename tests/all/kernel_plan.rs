//! The kernel as a choice a user sees and makes (issue 46): `build --plan` lists every kernel
//! that applies with its memory and disk and whether they fit, and builds nothing; `--kernel`
//! builds with the kernel named, each one that applies writing the same file as the default;
//! one that does not apply, or does not fit, is refused before anything is written.

use std::path::Path;

use serde_json::Value as Json;

use crate::common::{fails, listing, ok, path_str as s, retrodb, stderr};

/// The kernels `build SPEC --plan --json` lists, each with its figures checked for shape.
fn plan_json(spec: &str, out: &Path, extra: &[&str]) -> Vec<(String, bool)> {
    let mut args = vec!["build", spec, "-o", s(out), "--plan", "--json"];
    args.extend_from_slice(extra);
    let v: Json = serde_json::from_str(&ok(&args)).unwrap();
    v.as_array()
        .expect("a JSON list")
        .iter()
        .map(|k| {
            let obj = k.as_object().expect("an object a kernel");
            let mut keys: Vec<&str> = obj.keys().map(String::as_str).collect();
            keys.sort_unstable();
            assert_eq!(
                keys,
                ["disk_bytes", "fits", "kernel", "memory_bytes"],
                "{spec}"
            );
            assert!(k["memory_bytes"].as_u64().unwrap() > 0, "{spec}: {k}");
            assert!(k["disk_bytes"].as_u64().is_some(), "{spec}: {k}");
            let name = k["kernel"].as_str().unwrap().to_string();
            (name, k["fits"].as_bool().unwrap())
        })
        .collect()
}

fn names(plan: &[(String, bool)]) -> Vec<&str> {
    plan.iter().map(|(k, _)| k.as_str()).collect()
}

/// `--plan` lists the kernels that apply (hex:3 with and without remoteness, its symmetric
/// table, a digraph, the counter engine alone), one a line with the build's own marked, as JSON
/// the same; with a tiny `--max-memory` none fits; nothing is written.
#[test]
fn plan_lists_every_kernel_that_applies_with_its_estimates() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.rdb");
    let text = ok(&["build", "hex:3", "-o", s(&out), "--plan"]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    for (line, name) in lines.iter().zip(["counter", "per-position", "bitplane"]) {
        assert!(line.starts_with(name), "{text}");
        assert!(line.contains("memory") && line.contains("disk"), "{text}");
        assert!(line.contains(" fits"), "{text}");
        assert_eq!(
            line.contains("(the build's kernel)"),
            name == "bitplane",
            "{text}"
        );
    }
    for (spec, extra, want) in [
        (
            "hex:3",
            &[][..],
            &["counter", "per-position", "bitplane"][..],
        ),
        (
            "hex:3",
            &["--remoteness"][..],
            &["counter", "per-position", "plain-remoteness"][..],
        ),
        (
            "hex:3,sym",
            &[][..],
            &["counter", "per-position", "sliced-rows", "sliced-frames"][..],
        ),
        (
            "bridgit:2,start=L,sliced",
            &["--remoteness"][..],
            &["counter", "per-position", "sliced-remoteness"][..],
        ),
        ("digraph:data/seed001.txt", &[][..], &["counter"][..]),
        ("hex:3", &["--engine", "counter"][..], &["counter"][..]),
    ] {
        let plan = plan_json(spec, &out, extra);
        assert_eq!(names(&plan), want, "{spec} {extra:?}");
        assert!(plan.iter().all(|(_, fits)| *fits), "{spec} {extra:?}");
    }
    let tight = plan_json("hex:3", &out, &["--max-memory", "1K"]);
    assert!(tight.iter().all(|(_, fits)| !fits), "{tight:?}");
    let text = ok(&[
        "build",
        "hex:3",
        "-o",
        s(&out),
        "--plan",
        "--max-memory",
        "1K",
    ]);
    assert_eq!(text.matches("does not fit").count(), 3, "{text}");
    assert!(listing(dir.path()).is_empty(), "{:?}", listing(dir.path()));
}

/// Every kernel that applies, forced with `--kernel`, writes the same file byte for byte as the
/// default build, and `build --json` names it; on plain, alternation, sliced and symmetric
/// boards, with and without remoteness. The out-of-core kernel writes the table compressed: the
/// default build compressed with its parameters (docs/OUT_OF_CORE.md).
#[test]
fn every_applicable_kernel_writes_the_same_table() {
    let dir = tempfile::tempdir().unwrap();
    for spec in [
        "hex:3",
        "bridgit:2",
        "hex:3,start=L",
        "hex:3,sym",
        "bridgit:2,sym",
        "bridgit:3,start=L,sym",
    ] {
        for rem in [&[][..], &["--remoteness"][..]] {
            let default = dir.path().join("default.rdb");
            let mut args = vec!["build", spec, "-o", s(&default), "--quiet"];
            args.extend_from_slice(rem);
            ok(&args);
            let plan = plan_json(spec, &default, rem);
            assert!(plan.len() >= 2, "{spec} {rem:?}: {plan:?}");
            for (kernel, _) in &plan {
                let out = dir.path().join(format!("{kernel}.rdb"));
                let mut args = vec!["build", spec, "-o", s(&out), "--quiet", "--json"];
                args.extend_from_slice(&["--kernel", kernel]);
                args.extend_from_slice(rem);
                let summary: Json = serde_json::from_str(&ok(&args)).unwrap();
                assert_eq!(summary["kernel"], kernel.as_str(), "{spec} {rem:?}");
                let want = if kernel == "sliced-frames" {
                    let z = dir.path().join("default-z.rdb");
                    ok(&[
                        "compress",
                        s(&default),
                        s(&z),
                        "--level",
                        "3",
                        "--fill",
                        "stored",
                        "--one-mover",
                        "--no-dictionary",
                        "--quiet",
                    ]);
                    z
                } else {
                    default.clone()
                };
                assert!(
                    std::fs::read(&out).unwrap() == std::fs::read(&want).unwrap(),
                    "{spec} {rem:?}: --kernel {kernel} wrote another table"
                );
                std::fs::remove_file(&out).unwrap();
            }
        }
    }
}

/// A kernel that does not apply is refused on one line naming why and the kernels that do; a
/// kernel of the other engine than `--engine` names; an unknown name lists the kernels; nothing
/// is written.
#[test]
fn a_kernel_that_does_not_apply_is_refused_with_the_ones_that_do() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.rdb");
    for (spec, extra, want) in [
        (
            "hex:3",
            &["--kernel", "sliced-rows"][..],
            &[
                "--kernel sliced-rows does not apply",
                "a sliced board",
                "counter, per-position, bitplane",
            ][..],
        ),
        (
            "hex:3",
            &["--kernel", "bitplane", "--remoteness"][..],
            &[
                "--kernel bitplane does not apply",
                "values only",
                "counter, per-position, plain-remoteness",
            ][..],
        ),
        (
            "digraph:data/seed001.txt",
            &["--kernel", "per-position"][..],
            &["does not apply", "are counter"][..],
        ),
        (
            "hex:3",
            &["--kernel", "bitplane", "--engine", "counter"][..],
            &["--kernel bitplane is a kernel of the tiered engine"][..],
        ),
        (
            "hex:3",
            &["--kernel", "fastest"][..],
            &["unknown kernel 'fastest'", "sliced-remoteness"][..],
        ),
    ] {
        let mut args = vec!["build", spec, "-o", s(&out), "--quiet"];
        args.extend_from_slice(extra);
        let err = fails(&args);
        assert!(!err.contains("panicked"), "{err}");
        for w in want {
            assert!(err.contains(w), "{spec} {extra:?}: {err}");
        }
        if !extra.contains(&"fastest") {
            assert_eq!(err.trim_end().lines().count(), 1, "{err}");
            assert!(err.contains(spec), "the spec is named: {err}");
        }
    }
    assert!(listing(dir.path()).is_empty(), "{:?}", listing(dir.path()));
}

/// A chosen kernel whose memory does not fit `--max-memory` is refused before anything is
/// written, its memory and disk named.
#[test]
fn a_kernel_that_does_not_fit_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.rdb");
    for kernel in ["per-position", "counter"] {
        let o = retrodb(&[
            "build",
            "hex:3",
            "-o",
            s(&out),
            "--kernel",
            kernel,
            "--max-memory",
            "1M",
        ]);
        let err = stderr(&o);
        assert!(!o.status.success(), "{err}");
        assert!(!err.contains("panicked"), "{err}");
        let refusal = err.lines().last().unwrap();
        let named = format!("with --kernel {kernel}");
        for w in [
            named.as_str(),
            "estimated peak memory",
            "disk",
            "the memory limit is 1.00 MiB",
        ] {
            assert!(refusal.contains(w), "{kernel}: {err}");
        }
        assert!(listing(dir.path()).is_empty(), "{:?}", listing(dir.path()));
    }
}

/// A build stopped with a forced kernel resumes with the same kernel only where the kernels
/// count tiers otherwise (the per-position kernel on a sliced board), and a kernel that solves
/// from scratch only is refused for a resume, `--restart` named; the finished tables are the
/// default build's.
#[test]
fn a_forced_kernel_resumes_its_own_checkpoint_only() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.rdb");
    let reference = dir.path().join("ref.rdb");
    let build = |spec: &str, extra: &[&str]| {
        let mut args = vec!["build", spec, "-o", s(&out), "--quiet"];
        args.extend_from_slice(extra);
        retrodb(&args)
    };
    let spec = "bridgit:3,start=L,sym";
    ok(&["build", spec, "-o", s(&reference), "--quiet"]);
    let pp = ["--kernel", "per-position"];
    assert!(
        build(spec, &[&pp[..], &["--tiers", "3"]].concat())
            .status
            .success()
    );
    let err = stderr(&build(spec, &[]));
    assert!(err.contains("the kernels differ"), "{err}");
    assert!(build(spec, &pp).status.success());
    assert!(std::fs::read(&out).unwrap() == std::fs::read(&reference).unwrap());
    std::fs::remove_file(&out).unwrap();

    let spec = "hex:3";
    ok(&["build", spec, "-o", s(&reference), "--quiet"]);
    let bp = ["--kernel", "bitplane"];
    assert!(
        build(spec, &[&bp[..], &["--tiers", "2"]].concat())
            .status
            .success()
    );
    let err = stderr(&build(spec, &bp));
    assert!(err.contains("--kernel bitplane does not apply"), "{err}");
    assert!(
        err.contains("resumes below tier") && err.contains("--restart"),
        "{err}"
    );
    // Any other kernel resumes it (they count tiers alike), and so does the default.
    assert!(build(spec, &[]).status.success());
    assert!(std::fs::read(&out).unwrap() == std::fs::read(&reference).unwrap());
}
