//! Distributed builds (`retrodb build ... --mpi`): tables byte-identical to the single-process
//! build, misuse refused with a clear message, and a build whose rank is killed fails clearly and
//! leaves a rerun to write the same table.
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
        let mut child = Command::new("mpirun")
            .args(["-np", "3", "--oversubscribe"])
            .arg(env!("CARGO_BIN_EXE_retrodb"))
            .args(["build", &spec, "--mpi", "--remoteness", "-o", o_str])
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Once rank 0 has made the work file, kill one of the ranks (mpirun's children).
        let started = std::time::Instant::now();
        let killed = loop {
            let work = std::fs::read_dir(dir.path())
                .unwrap()
                .flatten()
                .any(|e| e.file_name().to_string_lossy().contains(".t.rdb.tmp-"));
            let ranks = String::from_utf8(
                Command::new("pgrep")
                    .args(["-P", &child.id().to_string()])
                    .output()
                    .unwrap()
                    .stdout,
            )
            .unwrap();
            let pids: Vec<&str> = ranks.split_whitespace().collect();
            if work && pids.len() == 3 {
                let victim = pids[1];
                assert!(
                    Command::new("kill")
                        .args(["-9", victim])
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
        assert!(killed, "the build ended before a rank could be killed");
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
}
