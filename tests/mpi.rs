//! Distributed builds (`retrodb build ... --mpi`), of digraphs and of sliced cell games: tables
//! byte-identical to the single-process build, misuse refused with a clear message, and a build
//! whose rank is killed fails clearly and leaves a rerun to write the same table (a sliced
//! build's rerun resumes from its last checkpoint).
//!
//! The runs under `mpirun` need a retrodb built with the `mpi` feature and OpenMPI's `mpirun`:
//! `cargo test --features mpi --test mpi` (`.ci/run` installs OpenMPI and runs it). Without the
//! feature only the refusal is tested.

mod common;

use common::{retrodb, stderr};

#[cfg(not(feature = "mpi"))]
#[test]
fn mpi_without_the_feature_is_refused() {
    let o = retrodb(&[
        "build",
        "digraph:data/seed001.txt",
        "--mpi",
        "-o",
        "/nonexistent/x.rdb",
    ]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("--features mpi"), "{e}");
}

#[cfg(feature = "mpi")]
mod under_mpirun {
    use super::*;
    use std::path::Path;
    use std::process::{Command, Output, Stdio};

    fn mpirun(np: usize, args: &[&str]) -> Output {
        Command::new("mpirun")
            .args(["-np", &np.to_string(), "--oversubscribe"])
            .arg(env!("CARGO_BIN_EXE_retrodb"))
            .args(args)
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .output()
            .expect("mpirun (install openmpi-bin)")
    }

    fn same_as_single(spec: &str, dir: &Path, extra: &[&str]) {
        let single = dir.join("single.rdb");
        let mut args = vec!["build", spec, "-o", single.to_str().unwrap(), "--quiet"];
        args.extend(extra);
        assert!(retrodb(&args).status.success());
        let want = std::fs::read(&single).unwrap();
        let out = dir.join("mpi.rdb");
        let mut args = vec!["build", spec, "--mpi", "-o", out.to_str().unwrap()];
        args.extend(extra);
        let o = mpirun(3, &args);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(
            std::fs::read(&out).unwrap() == want,
            "{spec} {extra:?}: tables differ"
        );
        std::fs::remove_file(&out).unwrap();
        std::fs::remove_file(&single).unwrap();
    }

    #[test]
    fn three_ranks_write_the_single_process_table() {
        let dir = tempfile::tempdir().unwrap();
        same_as_single("digraph:data/seed001.txt", dir.path(), &["--remoteness"]);
        same_as_single("digraph:data/seed001.txt", dir.path(), &[]);
        let graph = dir.path().join("r1m.txt");
        let g = graph.to_str().unwrap();
        let o = retrodb(&[
            "gen",
            "digraph",
            "--vertices",
            "800000",
            "--edges",
            "1000000",
            "--sinks",
            "0.01",
            "-o",
            g,
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let spec = format!("digraph:{g}");
        same_as_single(&spec, dir.path(), &["--remoteness"]);
        same_as_single(&spec, dir.path(), &[]);
    }

    #[test]
    fn outside_mpirun_is_refused() {
        let o = retrodb(&[
            "build",
            "digraph:data/seed001.txt",
            "--mpi",
            "-o",
            "/tmp/never.rdb",
        ]);
        assert!(!o.status.success());
        assert!(
            stderr(&o).contains("not started by an MPI launcher"),
            "{}",
            stderr(&o)
        );
    }

    #[test]
    fn a_killed_rank_stops_the_build_and_a_rerun_writes_the_table() {
        let dir = tempfile::tempdir().unwrap();
        let graph = dir.path().join("g.txt");
        let g = graph.to_str().unwrap();
        let o = retrodb(&[
            "gen",
            "digraph",
            "--vertices",
            "2000000",
            "--edges",
            "3000000",
            "--sinks",
            "0.01",
            "-o",
            g,
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let spec = format!("digraph:{g}");
        let out = dir.path().join("t.rdb");
        let o_str = out.to_str().unwrap();
        let killed = kill_a_rank_once(
            &["build", &spec, "--mpi", "--remoteness", "-o", o_str],
            |dir_has| dir_has(".t.rdb.tmp-"),
            dir.path(),
        );
        let o = killed.expect("the build ended before a rank could be killed");
        assert!(!o.status.success());
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.contains("rank") && e.contains("signal 9"), "{e}");
        assert!(!out.exists(), "no table after a failed build");

        let single = dir.path().join("single.rdb");
        let s = single.to_str().unwrap();
        assert!(
            retrodb(&["build", &spec, "--remoteness", "-o", s, "--quiet"])
                .status
                .success()
        );
        let o = mpirun(3, &["build", &spec, "--mpi", "--remoteness", "-o", o_str]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(std::fs::read(&out).unwrap() == std::fs::read(&single).unwrap());
    }

    /// Runs `mpirun -np 3 retrodb ARGS` and, once `ready` says the build has got far enough (it
    /// is given a test of whether `dir` holds a file whose name contains a string), kills rank 1
    /// with SIGKILL; the run's output, or `None` when it ended before.
    fn kill_a_rank_once(
        args: &[&str],
        ready: impl Fn(&dyn Fn(&str) -> bool) -> bool,
        dir: &Path,
    ) -> Option<Output> {
        let mut child = Command::new("mpirun")
            .args(["-np", "3", "--oversubscribe"])
            .arg(env!("CARGO_BIN_EXE_retrodb"))
            .args(args)
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let dir_has = |part: &str| {
            std::fs::read_dir(dir)
                .unwrap()
                .flatten()
                .any(|e| e.file_name().to_string_lossy().contains(part))
        };
        let started = std::time::Instant::now();
        let killed = loop {
            // The ranks are mpirun's children, started in rank order.
            let ranks = String::from_utf8(
                Command::new("pgrep")
                    .args(["-P", &child.id().to_string()])
                    .output()
                    .unwrap()
                    .stdout,
            )
            .unwrap();
            let mut pids: Vec<u32> = ranks
                .split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect();
            pids.sort_unstable();
            if pids.len() == 3 && ready(&dir_has) {
                let victim = pids[1].to_string();
                assert!(
                    Command::new("kill")
                        .args(["-9", &victim])
                        .status()
                        .unwrap()
                        .success()
                );
                break true;
            }
            if child.try_wait().unwrap().is_some() || started.elapsed().as_secs() > 60 {
                break false;
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        };
        let o = child.wait_with_output().unwrap();
        killed.then_some(o)
    }

    #[test]
    fn three_ranks_write_the_single_process_sliced_tables() {
        let dir = tempfile::tempdir().unwrap();
        same_as_single("hex:4,start=L,sym", dir.path(), &[]);
        same_as_single("bridgit:3,start=L,sym", dir.path(), &[]);
        same_as_single("bridgit:3,start=R,sliced", dir.path(), &[]);
    }

    /// The out-of-core kernel across ranks (issue: every Bridg-It 4 position): every
    /// configuration of small boards, either player to move, and other compression parameters.
    #[test]
    fn three_ranks_write_the_single_process_out_of_core_tables() {
        let dir = tempfile::tempdir().unwrap();
        let frames = ["--kernel", "sliced-frames"];
        for spec in ["bridgit:2,sym", "hex:3,sym", "bridgit:3,sym", "hex:4,sym"] {
            same_as_single(spec, dir.path(), &frames);
        }
        same_as_single(
            "bridgit:3,sym",
            dir.path(),
            &[
                "--kernel",
                "sliced-frames",
                "--compress",
                "--level",
                "6",
                "--frame-positions",
                "4096",
            ],
        );
    }

    /// A rank killed during an out-of-core build stops it; the rerun resumes from the last
    /// key tier's checkpoint and writes the single-process table.
    #[test]
    fn a_killed_rank_stops_an_out_of_core_build_and_the_rerun_resumes_it() {
        // Rank 1 is killed once the first key tier's checkpoint is written.
        kill_and_resume(
            "hex:4,sym",
            &["--kernel", "sliced-frames"],
            ".t.rdb.partial-frames",
        );
    }

    /// Builds `spec` (with `extra`) in one process, then under `mpirun` with rank 1 killed
    /// once a file whose name contains `ready` is in the build's directory: the build fails
    /// naming the signal and leaves no table; the rerun resumes and writes the single
    /// process's table, and only the two tables are left.
    fn kill_and_resume(spec: &str, extra: &[&str], ready: &str) {
        let dir = tempfile::tempdir().unwrap();
        let single = dir.path().join("single.rdb");
        let s = single.to_str().unwrap();
        let mut args = vec!["build", spec, "--quiet", "-o", s];
        args.extend(extra);
        assert!(retrodb(&args).status.success());
        let out = dir.path().join("t.rdb");
        let o_str = out.to_str().unwrap();
        let mut args = vec!["build", spec, "--mpi", "-o", o_str];
        args.extend(extra);
        let o = kill_a_rank_once(&args, |dir_has| dir_has(ready), dir.path())
            .expect("the build ended before a rank could be killed");
        assert!(!o.status.success());
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.contains("rank") && e.contains("signal 9"), "{e}");
        assert!(!out.exists(), "no table after a failed build");

        let o = mpirun(3, &args);
        assert!(o.status.success(), "{}", stderr(&o));
        let said = String::from_utf8_lossy(&o.stdout);
        assert!(
            said.contains("resumed the interrupted build below tier"),
            "{said}"
        );
        assert!(std::fs::read(&out).unwrap() == std::fs::read(&single).unwrap());
        // The work files are gone with the build.
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["single.rdb", "t.rdb"]);
    }

    #[test]
    fn sliced_builds_refuse_what_they_cannot_do() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("x.rdb");
        let o_str = out.to_str().unwrap();
        for (args, says) in [
            (
                vec![
                    "build",
                    "hex:4,start=L,sym",
                    "--mpi",
                    "--remoteness",
                    "-o",
                    o_str,
                ],
                "values only",
            ),
            (vec!["build", "hex:3", "--mpi", "-o", o_str], "sliced index"),
            (
                vec![
                    "build",
                    "hex:3,start=L,sym",
                    "--mpi",
                    "--compress",
                    "-o",
                    o_str,
                ],
                "--compress",
            ),
        ] {
            let o = mpirun(2, &args);
            assert!(!o.status.success(), "{args:?}");
            let e = stderr(&o);
            assert!(e.contains(says), "{args:?}: {e}");
            assert!(!out.exists());
        }
        // Nothing is left behind.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_killed_rank_stops_a_sliced_build_and_the_rerun_resumes_it() {
        // Every tier a checkpoint; rank 1 is killed once the first one is written, while the
        // ranks decide the key tiers below it.
        kill_and_resume(
            "hex:4,start=L,sliced",
            &["--checkpoint-every", "0"],
            ".t.rdb.partial-tier",
        );
    }
}
