//! The fault suite: damaged tables for every reading command, kills at several moments of every
//! writing command, a full file system (when this process may mount a tmpfs) and readers during
//! a rebuild of the same output. Each part prints its counts; `docs/RELIABILITY.md` records
//! them and `scripts/faults.sh` runs a longer version.
//!
//! What is asserted, everywhere: no panic, no death by a signal, a non-zero exit with a message
//! on stderr for every failure, never an answer that differs from the intact table's, and no
//! file left beside an output that is not a table that verifies (once the next run is done).

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use crate::common::{fails, listing, ok, retrodb, stderr, stdout};

/// Tallies of one part of the suite.
#[derive(Default, Debug)]
struct Tally {
    cases: u64,
    answered: u64,
    clear_errors: u64,
    panics: u64,
    signals: u64,
    wrong_answers: u64,
    leftovers: u64,
    /// Kills: directories found clean after a writer was killed.
    clean_after_kill: u64,
}

impl Tally {
    /// Classifies one run: a success must print `expect` (when given); a failure must be a
    /// clean one.
    fn run(&mut self, what: &str, o: &Output, expect: Option<&str>) {
        self.cases += 1;
        let err = stderr(o);
        if err.contains("panicked") {
            self.panics += 1;
            eprintln!("PANIC in {what}: {err}");
        }
        if let Some(sig) = o.status.signal() {
            self.signals += 1;
            eprintln!("SIGNAL {sig} in {what}: {err}");
            return;
        }
        if o.status.success() {
            self.answered += 1;
            if let Some(e) = expect
                && stdout(o) != e
            {
                self.wrong_answers += 1;
                eprintln!("WRONG ANSWER in {what}");
            }
        } else if err.starts_with("retrodb: ")
            || err.starts_with("error: ")
            // A command that said what it was doing on stderr (research) ends with its error.
            || err.lines().last().is_some_and(|l| l.starts_with("retrodb: "))
        {
            self.clear_errors += 1;
        } else {
            self.panics += 1;
            eprintln!("UNCLEAR ERROR in {what}: {err:?}");
        }
    }

    fn check(&self, part: &str) {
        eprintln!("fault suite, {part}: {self:?}");
        assert_eq!(
            (
                self.panics,
                self.signals,
                self.wrong_answers,
                self.leftovers
            ),
            (0, 0, 0, 0),
            "{part}: {self:?}"
        );
        assert_eq!(
            self.cases,
            self.answered + self.clear_errors + self.clean_after_kill,
            "{part}"
        );
    }
}

/// Random byte flips a table: 40, or `RETRODB_FAULT_FLIPS` (`scripts/faults.sh` asks for more).
fn flips() -> usize {
    std::env::var("RETRODB_FAULT_FLIPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40)
}

fn run(args: &[&str]) -> Output {
    retrodb(args)
}

/// A tmpfs of a given size mounted on a directory while the guard lives (root only).
struct Tmpfs<'a>(&'a Path);

impl<'a> Tmpfs<'a> {
    /// Mounts a tmpfs of `size` (mount's notation: 512k, 64m) on `dir`; None when this
    /// process may not mount.
    fn mount(dir: &'a Path, size: &str) -> Option<Self> {
        Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size}"),
                "tmpfs",
                s(dir),
            ])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|st| st.success())
            .then_some(Tmpfs(dir))
    }
}

impl Drop for Tmpfs<'_> {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.0).status();
    }
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Reproducible offsets to damage: a spread over the file plus the first and last bytes of
/// every 4 KiB page (headers, padding and section edges live there).
fn offsets(len: usize, count: usize, seed: u64) -> Vec<usize> {
    let mut x = seed;
    let mut v: Vec<usize> = (0..count)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) as usize % len
        })
        .collect();
    for page in (0..len).step_by(4096) {
        v.extend([page, (page + 4095).min(len - 1)]);
    }
    v.extend([8, 12, 16, 24, len - 1]);
    v.sort_unstable();
    v.dedup();
    v
}

/// Every reading command against every damage of every table encoding: a damaged table is
/// refused or answers exactly as the intact one; `verify` refuses every damage.
#[test]
fn damaged_tables_are_refused_or_answer_as_the_intact_table() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut tables: Vec<(PathBuf, Vec<&str>)> = Vec::new();
    for (name, spec, extra, positions) in [
        (
            "seed-rem",
            "digraph:data/seed001.txt",
            vec!["--remoteness"],
            vec!["0", "4", "9", "11"],
        ),
        (
            "hex3",
            "hex:3",
            vec![],
            vec![".........", "L........", "LR......./L"],
        ),
        (
            "hex3-z",
            "hex:3",
            vec!["--compress"],
            vec![".........", "L........", "LR......./L"],
        ),
        (
            "seed-z-rem",
            "digraph:data/seed001.txt",
            vec!["--remoteness", "--compress"],
            vec!["0", "4", "9", "11"],
        ),
    ] {
        let out = d.join(format!("{name}.rdb"));
        let mut args = vec!["build", spec, "-o", s(&out), "--quiet"];
        args.extend(extra);
        let o = run(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        tables.push((out, positions));
    }
    let mut tally = Tally::default();
    let mut verify_missed = 0;
    let mut dump_missed = 0;
    let mut tiers_missed = 0;
    for (table, positions) in &tables {
        let intact = std::fs::read(table).unwrap();
        let probe_args = |t: &Path| {
            let mut a = vec!["probe".to_string(), s(t).to_string(), "--json".to_string()];
            a.extend(positions.iter().map(|p| p.to_string()));
            a
        };
        let expect_probe = stdout(&run(&probe_args(table)
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()));
        let expect_dump = stdout(&run(&["dump", s(table)]));
        assert!(!expect_probe.is_empty() && !expect_dump.is_empty());
        // `research tiers` reads every position of a table of a game with tiers, as dump.
        let tiers_args =
            |t: &Path| ["research", "tiers", "--json", "--table", s(t)].map(String::from);
        let expect_tiers = (table.ends_with("hex3.rdb") || table.ends_with("hex3-z.rdb"))
            .then(|| stdout(&run(&tiers_args(table).each_ref().map(String::as_str))));
        let mut damages: Vec<(String, Vec<u8>)> = Vec::new();
        for at in offsets(intact.len(), flips(), intact.len() as u64) {
            let mut b = intact.clone();
            b[at] ^= 1 << (at % 8);
            damages.push((format!("bit flip at byte {at}"), b));
        }
        for cut in [1, 8, 100, intact.len() / 2, intact.len() - 1] {
            damages.push((
                format!("truncated by {cut} bytes"),
                intact[..intact.len() - cut].to_vec(),
            ));
        }
        for extra in [1, 8, 100] {
            let mut b = intact.clone();
            b.extend(std::iter::repeat_n(0u8, extra));
            damages.push((format!("{extra} zero bytes appended"), b));
        }
        let bad = d.join("bad.rdb");
        for (what, bytes) in &damages {
            std::fs::write(&bad, bytes).unwrap();
            let what = format!("{} {what}", table.display());
            let args = probe_args(&bad);
            let a: Vec<&str> = args.iter().map(String::as_str).collect();
            tally.run(&format!("probe, {what}"), &run(&a), Some(&expect_probe));
            let o = run(&["dump", s(&bad)]);
            tally.run(&format!("dump, {what}"), &o, Some(&expect_dump));
            if o.status.success() {
                dump_missed += 1;
                eprintln!("dump answered from a damaged table: {what}");
            }
            if let Some(expect) = &expect_tiers {
                let o = run(&tiers_args(&bad).each_ref().map(String::as_str));
                tally.run(&format!("research tiers, {what}"), &o, Some(expect));
                if o.status.success() {
                    tiers_missed += 1;
                    eprintln!("research tiers answered from a damaged table: {what}");
                }
            }
            tally.run(&format!("info, {what}"), &run(&["info", s(&bad)]), None);
            let o = run(&["verify", s(&bad), "--quiet"]);
            tally.run(&format!("verify, {what}"), &o, None);
            if o.status.success() {
                verify_missed += 1;
                eprintln!("verify passed a damaged table: {what}");
            }
            // Conversions refuse damaged input or write a table that answers as the intact one.
            let conv = d.join("conv.rdb");
            let _ = std::fs::remove_file(&conv);
            let is_z = table.to_str().unwrap().contains("-z");
            let cmd = if is_z { "decompress" } else { "compress" };
            let o = run(&[cmd, s(&bad), s(&conv), "--quiet"]);
            tally.run(&format!("{cmd}, {what}"), &o, None);
            if o.status.success() {
                let d2 = run(&["dump", s(&conv)]);
                if stdout(&d2) != expect_dump {
                    tally.wrong_answers += 1;
                    eprintln!("{cmd} of a damaged table wrote a different table: {what}");
                }
            }
            let left: Vec<String> = listing(d)
                .into_iter()
                .filter(|n| n.starts_with(".conv.rdb"))
                .collect();
            if !left.is_empty() {
                tally.leftovers += 1;
                eprintln!("{cmd} left {left:?}: {what}");
            }
        }
    }
    tally.check("damaged tables");
    assert_eq!(verify_missed, 0, "verify must refuse every damaged byte");
    // Every byte is covered (checksums, padding and length checked on open), and a dump reads
    // every position: it must refuse every damage too.
    assert_eq!(dump_missed, 0, "dump must refuse every damaged byte");
    assert_eq!(
        tiers_missed, 0,
        "research tiers must refuse every damaged byte"
    );
    // Enough cases to mean something.
    assert!(tally.cases > 500, "{tally:?}");
}

/// Starts `retrodb ARGS` and kills it with SIGKILL after `after`; true if it was still running.
fn kill_after(args: &[&str], after: Duration) -> bool {
    let mut child = Command::new(env!("CARGO_BIN_EXE_retrodb"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Waits for the moment to kill, or for the command's end if it comes first (most of these
    // commands end in tens of milliseconds: sleeping the whole time took most of the test's).
    let started = std::time::Instant::now();
    while started.elapsed() < after {
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        std::thread::sleep(Duration::from_millis(2).min(after));
    }
    let running = child.try_wait().unwrap().is_none();
    let _ = child.kill();
    let _ = child.wait();
    running
}

/// Whether every file in `dir` named like `out` (the output or a work file of it) is either a
/// table that verifies, a resumable work file of a tiered build, or gone. Returns the names of
/// files that are none of these.
fn bad_files(dir: &Path, out: &str) -> Vec<String> {
    let mut bad = Vec::new();
    for name in listing(dir) {
        if !name.contains(out) {
            continue;
        }
        let path = dir.join(&name);
        if name == out {
            let o = run(&["verify", s(&path), "--quiet"]);
            if !o.status.success() {
                bad.push(format!("{name}: {}", stderr(&o)));
            }
        } else if !name.contains(".partial") && !name.ends_with(".lock") {
            // Temporaries of a killed process are allowed until the next run removes them.
            if !(name.contains(".tmp-") || name.ends_with(".raw")) {
                bad.push(name);
            }
        }
    }
    bad
}

/// SIGKILL at several moments of every writing command, then the directory checked; the same
/// command run again completes and leaves nothing but its output.
#[test]
fn killed_writers_leave_nothing_that_is_taken_for_a_table() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A table to convert.
    let src = d.join("src.rdb");
    let o = run(&[
        "build",
        "bridgit:3",
        "-o",
        s(&src),
        "--quiet",
        "--remoteness",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let srcz = d.join("srcz.rdb");
    let o = run(&["compress", s(&src), s(&srcz), "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let graph = d.join("g.txt");
    let cases: Vec<(&str, Vec<String>)> = vec![
        (
            "tiered.rdb",
            vec!["build", "bridgit:3", "--remoteness"]
                .into_iter()
                .map(String::from)
                .collect(),
        ),
        (
            "counter.rdb",
            vec!["build", "bridgit:3", "--engine", "counter"]
                .into_iter()
                .map(String::from)
                .collect(),
        ),
        (
            "packed.rdb",
            vec!["build", "bridgit:3", "--compress"]
                .into_iter()
                .map(String::from)
                .collect(),
        ),
        (
            "conv.rdb",
            vec!["compress".to_string(), s(&src).to_string()],
        ),
        (
            "back.rdb",
            vec!["decompress".to_string(), s(&srcz).to_string()],
        ),
    ];
    let mut tally = Tally::default();
    let mut killed_running = 0;
    for (out, cmd) in &cases {
        let path = d.join(out);
        let mut args: Vec<String> = cmd.clone();
        match args[0].as_str() {
            "build" => args.extend(["-o".to_string(), s(&path).to_string()]),
            _ => args.push(s(&path).to_string()),
        }
        args.push("--quiet".into());
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        for ms in [20, 80, 200, 500, 1200] {
            killed_running += kill_after(&a, Duration::from_millis(ms)) as u64;
            tally.cases += 1;
            let bad = bad_files(d, out);
            if bad.is_empty() {
                tally.clean_after_kill += 1;
            } else {
                tally.leftovers += 1;
                eprintln!("after SIGKILL at {ms} ms of {a:?}: {bad:?}");
            }
        }
        // The next run completes, removes what the killed ones left, and keeps only its table.
        let o = run(&a);
        tally.run(&format!("{a:?} after kills"), &o, None);
        let left: Vec<String> = listing(d)
            .into_iter()
            .filter(|n| n.contains(out) && n != out)
            .collect();
        if !left.is_empty() {
            tally.leftovers += 1;
            eprintln!("{a:?} left {left:?}");
        }
        let v = run(&["verify", s(&path), "--quiet"]);
        tally.run(&format!("verify after {a:?}"), &v, None);
    }
    // gen digraph: its temporary goes too.
    let g = s(&graph).to_string();
    let gen_args = [
        "gen",
        "digraph",
        "--vertices",
        "100000",
        "--edges",
        "3000000",
        "-o",
        &g,
    ];
    for ms in [10, 50, 150] {
        kill_after(&gen_args, Duration::from_millis(ms));
    }
    let o = run(&gen_args);
    tally.run("gen digraph after kills", &o, None);
    let left: Vec<String> = listing(d)
        .into_iter()
        .filter(|n| n.contains("g.txt") && n != "g.txt")
        .collect();
    if !left.is_empty() {
        tally.leftovers += 1;
        eprintln!("gen left {left:?}");
    }
    tally.check("kills");
    eprintln!("fault suite, kills: {killed_running} of the kills hit a running writer");
    assert!(tally.cases >= 30, "{tally:?}");
    assert!(
        killed_running >= 10,
        "too few kills hit a running writer: {killed_running}"
    );
}

/// Readers probing a table while the same output name is rebuilt over and over never see a
/// half-written file: every probe answers, and answers the same.
#[test]
fn readers_never_see_a_half_written_table() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.rdb");
    let o = run(&["build", "hex:3", "-o", s(&out), "--quiet"]);
    assert!(o.status.success());
    let expect = stdout(&run(&["probe", s(&out), ".........", "--json"]));
    let done = std::sync::atomic::AtomicBool::new(false);
    let mut tally = Tally::default();
    std::thread::scope(|scope| {
        let writer = scope.spawn(|| {
            for k in 0..12 {
                let engine = if k % 2 == 0 { "counter" } else { "tiered" };
                let o = run(&[
                    "build",
                    "hex:3",
                    "-o",
                    s(&out),
                    "--quiet",
                    "--engine",
                    engine,
                ]);
                assert!(o.status.success(), "{}", stderr(&o));
            }
            done.store(true, std::sync::atomic::Ordering::Relaxed);
        });
        while !done.load(std::sync::atomic::Ordering::Relaxed) {
            let o = run(&["probe", s(&out), ".........", "--json"]);
            tally.run("probe during rebuilds", &o, Some(&expect));
        }
        writer.join().unwrap();
    });
    assert_eq!(tally.clear_errors, 0, "a reader was refused: {tally:?}");
    tally.check("readers during rebuilds");
}

/// Two writers of one output at once: the second is refused with a message while the first
/// runs, and the first's table is whole.
#[test]
fn a_second_writer_of_the_same_output_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.rdb");
    let mut first = Command::new(env!("CARGO_BIN_EXE_retrodb"))
        .args([
            "build",
            "bridgit:3",
            "--remoteness",
            "-o",
            s(&out),
            "--quiet",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait until the first holds the lock.
    let lock = dir.path().join(".t.rdb.lock");
    for _ in 0..200 {
        if lock.exists() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let second = run(&["build", "hex:3", "-o", s(&out), "--quiet"]);
    let running = first.try_wait().unwrap().is_none();
    assert!(first.wait().unwrap().success());
    if running {
        assert!(!second.status.success());
        assert!(
            stderr(&second).contains("another retrodb process is writing it"),
            "{}",
            stderr(&second)
        );
    }
    let info = stdout(&run(&["info", s(&out)]));
    assert!(info.contains("bridgit:3"), "{info}");
    assert!(run(&["verify", s(&out), "--quiet"]).status.success());
}

/// A small file system for every writing command: a clean "disk" error, no signal, nothing
/// left on it. Needs to mount a tmpfs (root); skipped with a message otherwise.
#[test]
fn a_full_file_system_is_a_clear_error_for_every_writer() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mnt = d.join("small");
    std::fs::create_dir(&mnt).unwrap();
    let Some(_mounted) = Tmpfs::mount(&mnt, "512k") else {
        eprintln!(
            "fault suite, full file system: SKIPPED (cannot mount a tmpfs here; run as root)"
        );
        return;
    };
    let src = d.join("src.rdb");
    assert!(
        run(&["build", "hex:4", "-o", s(&src), "--quiet"])
            .status
            .success()
    );
    let srcz = d.join("srcz.rdb");
    assert!(
        run(&[
            "build",
            "bridgit:3",
            "--remoteness",
            "--compress",
            "-o",
            s(&srcz),
            "--quiet"
        ])
        .status
        .success()
    );
    let small = |n: &str| s(&mnt.join(n)).to_string();
    let cases: Vec<Vec<String>> = vec![
        vec![
            "build".into(),
            "bridgit:3".into(),
            "--engine".into(),
            "counter".into(),
            "-o".into(),
            small("a.rdb"),
        ],
        vec![
            "build".into(),
            "bridgit:3".into(),
            "-o".into(),
            small("b.rdb"),
        ],
        vec![
            "build".into(),
            "bridgit:3".into(),
            "--remoteness".into(),
            "-o".into(),
            small("c.rdb"),
        ],
        vec![
            "build".into(),
            "hex:4".into(),
            "--compress".into(),
            "-o".into(),
            small("d.rdb"),
        ],
        // Quick settings whose output (over 1 MiB) cannot fit: the defaults made 375 KiB, which
        // fit, after 45 s of compressing.
        vec![
            "compress".into(),
            s(&src).into(),
            small("e.rdb"),
            "--level".into(),
            "1".into(),
            "--no-dictionary".into(),
        ],
        vec!["decompress".into(), s(&srcz).into(), small("f.rdb")],
        vec![
            "gen".into(),
            "digraph".into(),
            "--vertices".into(),
            "100000".into(),
            "--edges".into(),
            "1000000".into(),
            "-o".into(),
            small("g.txt"),
        ],
    ];
    let mut tally = Tally::default();
    for args in &cases {
        let mut a: Vec<&str> = args.iter().map(String::as_str).collect();
        if a[0] != "gen" {
            a.push("--quiet");
        }
        let o = run(&a);
        tally.run(&format!("{a:?}"), &o, None);
        if o.status.success() {
            // It fit after all: then it must be a whole table.
            eprintln!("{a:?} fit in 512 KiB");
        } else {
            let err = stderr(&o);
            assert!(
                err.contains("disk") || err.contains("No space left"),
                "{a:?}: {err}"
            );
        }
        let left = listing(&mnt);
        if !left.is_empty() && !o.status.success() {
            tally.leftovers += 1;
            eprintln!("{a:?} left {left:?} on the full file system");
        }
        for n in left {
            let _ = std::fs::remove_file(mnt.join(n));
        }
    }
    tally.check("full file system");
}

// One test per defect found by trying retrodb as a new user would; each failed before its fix.

/// A 25-cell build prints its plan (the sliced index's rows, memory, disk and a time estimate)
/// and, when the output's file system cannot hold the table, refuses before writing anything.
/// Needs to mount a tmpfs (root); skipped with a message otherwise.
#[test]
fn a_25_cell_build_prints_its_plan_and_refuses_a_disk_too_small() {
    let dir = tempfile::tempdir().unwrap();
    let mnt = dir.path().join("small");
    std::fs::create_dir(&mnt).unwrap();
    let Some(_mounted) = Tmpfs::mount(&mnt, "64m") else {
        eprintln!("fault suite, 25-cell plan: SKIPPED (cannot mount a tmpfs here; run as root)");
        return;
    };
    for spec in ["bridgit:4,start=L,sym", "hex:5,start=L,sym"] {
        let out = mnt.join("big.rdb");
        let o = run(&["build", spec, "-o", s(&out)]);
        assert!(!o.status.success(), "{spec}: refused");
        let err = String::from_utf8_lossy(&o.stderr);
        for want in [
            "sliced index: 13 key cells and 12 low cells",
            "rows in 14 key tiers",
            "estimated peak memory",
            "roughly",
            " threads at ",
        ] {
            assert!(err.contains(want), "{spec}: '{want}' in {err}");
        }
        assert!(
            err.contains("disk") && err.contains(s(&mnt)) && err.contains("free"),
            "{spec}: {err}"
        );
        assert!(listing(&mnt).is_empty(), "{spec}: nothing written");
    }
}

// The second round (issue 27): each test failed on the binary of the commit before its fix.

/// Where a command's stdout goes in [`stdout_faults`].
#[derive(Clone, Copy, Debug)]
enum Sink {
    /// `/dev/full`: every write fails with ENOSPC.
    Full,
    /// A pipe whose reading end is closed before the command starts (`| true`).
    ClosedPipe,
}

/// Runs `retrodb ARGS` with stdout into `sink`, stdin empty.
fn run_into(args: &[&str], sink: Sink) -> Output {
    let stdout = match sink {
        Sink::Full => Stdio::from(std::fs::File::create("/dev/full").unwrap()),
        Sink::ClosedPipe => {
            let (reader, writer) = std::io::pipe().unwrap();
            drop(reader);
            Stdio::from(writer)
        }
    };
    Command::new(env!("CARGO_BIN_EXE_retrodb"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

/// Every subcommand that prints (but `bench` and `serve`), as argument lists, with the tables
/// and directories they need made in `d`.
fn printing_commands(d: &Path) -> Vec<Vec<String>> {
    let t = d.join("t.rdb");
    let tr = d.join("tr.rdb");
    let z = d.join("z.rdb");
    for (out, extra) in [
        (&t, None),
        (&tr, Some("--remoteness")),
        (&z, Some("--compress")),
    ] {
        let mut a = vec!["build", "hex:2", "-o", s(out), "--quiet"];
        a.extend(extra);
        assert!(run(&a).status.success());
    }
    let p = |n: &str| s(&d.join(n)).to_string();
    let cmds: Vec<Vec<&str>> = vec![
        vec!["info", s(&t)],
        vec!["info", s(&t), "--json"],
        vec!["verify", s(&t), "--quiet"],
        vec!["dump", s(&t)],
        vec!["probe", s(&t), "....", "--json"],
        vec!["probe", s(&tr), "...."],
        vec!["show", "hex:2", "L..."],
        vec!["values", "hex:2"],
        vec!["values", "hex:2", "--json"],
        vec!["build", "hex:2", "--quiet", "-o"],
        vec!["build", "hex:2", "--quiet", "--json", "-o"],
        vec!["build", "hex:2", "--quiet", "--compress", "-o"],
        vec!["compress", s(&t), "--quiet"],
        vec!["decompress", s(&z), "--quiet"],
        vec!["gen", "digraph", "--vertices", "10", "--edges", "20", "-o"],
        vec!["sweep", "shannon", "--max-vertices", "3"],
        vec!["sweep", "shannon", "--max-vertices", "3", "--json"],
        vec!["research", "bridgit", "--size", "1", "--table"],
        vec!["research", "bridgit", "--size", "1", "--json", "--table"],
        vec!["research", "tiers", "--table", s(&tr)],
        vec!["research", "tiers", "--json", "--table", s(&tr)],
        vec!["demo", "--dir"],
        vec!["play", "hex:2", "--table", s(&tr)],
        vec!["--version"],
        vec!["help"],
    ];
    cmds.into_iter()
        .enumerate()
        .map(|(k, c)| {
            let mut v: Vec<String> = c.iter().map(|w| w.to_string()).collect();
            // The commands that write a file write a new one each.
            if matches!(c.last(), Some(&("-o" | "--table" | "--dir"))) || c[0] == "compress" {
                v.push(p(&format!("out{k}.rdb")));
            }
            if c[0] == "decompress" {
                v.push(p(&format!("out{k}.rdb")));
            }
            v
        })
        .collect()
}

/// Stdout on a full device or a closed pipe, for every command: never a panic. A closed pipe
/// is the reader's choice (exit 0, nothing said); a full device is a one-line error naming
/// stdout, exit 1.
#[test]
fn stdout_write_errors_are_messages_and_a_closed_pipe_is_quiet() {
    let dir = tempfile::tempdir().unwrap();
    let cmds = printing_commands(dir.path());
    let mut tally = Tally::default();
    let mut wrong = Vec::new();
    for cmd in &cmds {
        for sink in [Sink::Full, Sink::ClosedPipe] {
            let a: Vec<&str> = cmd.iter().map(String::as_str).collect();
            let o = run_into(&a, sink);
            tally.run(&format!("{a:?} into {sink:?}"), &o, None);
            let err = stderr(&o);
            let ok = match sink {
                Sink::Full => {
                    o.status.code() == Some(1)
                        && err.lines().last().is_some_and(|l| {
                            l.starts_with("retrodb: cannot write to stdout: No space left")
                        })
                }
                Sink::ClosedPipe => o.status.code() == Some(0) && !err.contains("stdout"),
            };
            if !ok {
                wrong.push(format!("{a:?} into {sink:?}: {:?} {err:?}", o.status));
            }
        }
    }
    tally.check("stdout faults");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(tally.cases >= 40, "{tally:?}");
}

/// `build shannon:g.txt --tiers 3 --remoteness`, `g.txt` edited to another graph with as many
/// edges, the build run again: it must not resume (the old binary did, and wrote a table that
/// differs from a fresh build's), must write no table, and must say the input changed;
/// `--restart` starts over and builds the fresh build's table. A checkpoint's options are
/// matched too: a resume that drops or adds `--remoteness` says the options differ (the old
/// binary called the work file damaged).
#[test]
fn a_resume_after_the_input_or_the_options_changed_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let graph = d.join("g.txt");
    let out = d.join("t.rdb");
    let k4 = std::fs::read_to_string("data/shannon/k4.txt").unwrap();
    assert!(k4.contains("terminals 0 1\n"));
    std::fs::write(&graph, &k4).unwrap();
    let spec = format!("shannon:{}", s(&graph));
    let build = |extra: &[&str]| {
        let mut a = vec!["build", &spec, "-o", s(&out), "--quiet"];
        a.extend(extra);
        run(&a)
    };
    let stopped = build(&["--tiers", "3", "--remoteness"]);
    assert!(stopped.status.success(), "{}", stderr(&stopped));
    assert!(stdout(&stopped).contains("stopped as asked"));
    std::fs::write(&graph, k4.replace("terminals 0 1\n", "terminals 0 2\n")).unwrap();
    let resumed = build(&["--remoteness"]);
    let err = stderr(&resumed);
    assert!(
        !resumed.status.success(),
        "resumed from a changed input: {err}"
    );
    assert!(
        err.contains("the input file")
            && err.contains("g.txt changed")
            && err.contains("--restart"),
        "{err}"
    );
    assert!(!out.exists(), "a table was written from a changed input");
    // Asked to, it starts over: the table is a fresh build's.
    let restarted = build(&["--remoteness", "--restart"]);
    assert!(restarted.status.success(), "{}", stderr(&restarted));
    assert!(!stdout(&restarted).contains("resumed"));
    let fresh = d.join("fresh.rdb");
    assert!(
        run(&["build", &spec, "-o", s(&fresh), "--quiet", "--remoteness"])
            .status
            .success()
    );
    assert_eq!(
        stdout(&run(&["dump", s(&out)])),
        stdout(&run(&["dump", s(&fresh)]))
    );
    // Options: a stop with remoteness resumed without, and the other way round.
    for (first, then) in [
        ("--remoteness", None),
        ("--checkpoint-every=0", Some("--remoteness")),
    ] {
        std::fs::remove_file(&out).unwrap();
        let o = build(&["--tiers", "3", first]);
        assert!(o.status.success(), "{}", stderr(&o));
        let o = build(&then.into_iter().collect::<Vec<_>>());
        let err = stderr(&o);
        assert!(!o.status.success(), "{first} then {then:?}: {err}");
        assert!(
            err.contains("the options differ") && err.contains("--remoteness"),
            "{first} then {then:?}: {err}"
        );
        assert!(!err.contains("damaged"), "{err}");
        assert!(!out.exists());
        // The same build as before resumes it.
        let again = build(&["--tiers", "1", first]);
        assert!(again.status.success(), "{}", stderr(&again));
        assert!(stdout(&again).contains("resumed the interrupted build"));
        let o = build(&["--restart"]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
}

/// `build digraph:in/seed.txt -o in/seed.txt` turned the edge list into a table. The output (or
/// the raw table `--compress` solves into) may not be the input file, under its own name, a
/// hard link or a symbolic link: refused, the input untouched.
#[test]
fn a_build_never_writes_over_its_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let seed = std::fs::read("data/seed001.txt").unwrap();
    let input = d.join("seed.txt");
    std::fs::write(&input, &seed).unwrap();
    std::fs::hard_link(&input, d.join("hard.rdb")).unwrap();
    std::os::unix::fs::symlink(&input, d.join("soft.rdb")).unwrap();
    std::os::unix::fs::symlink(&input, d.join(".z.rdb.raw")).unwrap();
    let spec = format!("digraph:{}", s(&input));
    for (out, extra) in [
        ("seed.txt", None),
        ("hard.rdb", None),
        ("soft.rdb", None),
        ("seed.txt", Some("--compress")),
        ("z.rdb", Some("--compress")),
    ] {
        let out = d.join(out);
        let mut a = vec!["build", &spec, "-o", s(&out), "--quiet"];
        a.extend(extra);
        let o = run(&a);
        let err = stderr(&o);
        assert!(!o.status.success(), "{a:?} wrote over its input");
        assert!(
            err.starts_with("retrodb: ") && err.contains("is the input file"),
            "{a:?}: {err}"
        );
        assert_eq!(std::fs::read(&input).unwrap(), seed, "{a:?}");
    }
    // Another name is fine.
    let ok = run(&["build", &spec, "-o", s(&d.join("t.rdb")), "--quiet"]);
    assert!(ok.status.success(), "{}", stderr(&ok));
}

/// A long word in an input file, or a long option value, is echoed cut to its first characters
/// and its length (a 1 GB line of digits as a vertex id gave a 1 GB message and 1.96 GB of peak
/// memory): every message here stays short.
#[test]
fn long_input_words_and_option_values_are_cut_in_messages() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    const LONG: usize = 100_000;
    let digits = "7".repeat(LONG);
    let letters = "x".repeat(LONG);
    let files = [
        ("digraph", format!("0 1\n1 {digits}\n")),
        ("digraph", format!("0 1\n{letters}\n")),
        ("digraph", format!("0 1\n1 2 {letters}\n")),
        ("digraph", format!("0 1\n-{digits} 1\n")),
        ("shannon", format!("terminals 0 1\n0 {digits}\n")),
        ("shannon", format!("terminals 0 1\n0 1 {letters}\n")),
        ("shannon", format!("terminals 0 {letters}\n0 1\n")),
        ("hackenbush", format!("0 1 B\n1 2 {letters}\n")),
        ("hackenbush", format!("0 {digits} B\n")),
    ];
    let mut cases: Vec<Vec<String>> = Vec::new();
    for (k, (kind, text)) in files.iter().enumerate() {
        let f = d.join(format!("in{k}.txt"));
        std::fs::write(&f, text).unwrap();
        let out = s(&d.join("t.rdb")).to_string();
        cases.push(vec![
            "build".into(),
            format!("{kind}:{}", s(&f)),
            "-o".into(),
            out,
        ]);
    }
    for args in [
        vec!["--threads", &digits, "info", "x.rdb"],
        vec!["build", "hex:2", &format!("--checkpoint-every={digits}")],
        vec!["build", "hex:2", "--max-memory", &letters],
        vec!["play", "hex:2", "--as", &letters],
        vec!["research", &letters, "--size", "2"],
        vec!["show", "hex:2", &letters],
        vec!["build", &format!("hex:{digits}")],
    ] {
        cases.push(args.into_iter().map(String::from).collect());
    }
    for args in &cases {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = run(&a);
        let err = stderr(&o);
        let what: Vec<String> = a.iter().map(|w| w.chars().take(40).collect()).collect();
        assert!(!o.status.success(), "{what:?}");
        assert!(err.len() < 600, "{what:?}: {} bytes of message", err.len());
        assert!(
            err.contains("bytes)"),
            "{what:?}: the length is given: {err}"
        );
    }
}

/// `hex:4,start=L,sym,sym` was told "the first player is L, R or both"; a repeated option is
/// named as one. `--checkpoint-every 18446744073709551615` was refused as
/// "18446744073709552000" (an `f64`): whole seconds are taken exactly.
#[test]
fn repeated_spec_options_and_huge_checkpoint_intervals_are_told_as_they_are() {
    for (spec, want) in [
        ("hex:2,start=L,sym,sym", "',sym' is given twice"),
        ("hex:2,start=L,sliced,sliced", "',sliced' is given twice"),
        (
            "hex:2,start=L,sliced,sym",
            "',sym' and ',sliced' are both given",
        ),
        ("hex:2,start=L,start=R", "',start=' is given twice"),
    ] {
        let err = fails(&["build", spec, "-o", "/nonexistent/t.rdb"]);
        assert!(err.contains(want), "{spec}: {err}");
        assert!(!err.contains("first player"), "{spec}: {err}");
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.rdb");
    let max = u64::MAX.to_string();
    ok(&[
        "build",
        "hex:2",
        "-o",
        s(&out),
        "--quiet",
        "--checkpoint-every",
        &max,
    ]);
    let over = "18446744073709551616";
    let err = fails(&["build", "hex:2", "-o", s(&out), "--checkpoint-every", over]);
    assert!(
        err.contains(over) && !err.contains("18446744073709552000"),
        "{err}"
    );
}

/// Pipes and FIFOs as inputs: `digraph:/dev/stdin` fed by a pipe and a named FIFO are read to
/// their end (the old binary said "contains no edges" for both), the FIFO after a line saying
/// it waits for a writer; `/dev/zero` is refused as a device instead of read forever or taken
/// as an empty file.
#[test]
fn pipes_and_fifos_are_read_as_streams() {
    use crate::common::retrodb_stdin;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = d.join("p.rdb");
    let o = retrodb_stdin(
        &["build", "digraph:/dev/stdin", "-o", s(&out), "--quiet"],
        "0 1\n1 2\n",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(ok(&["probe", s(&out), "0"]).starts_with("0\tloses"));
    assert!(ok(&["probe", s(&out), "1"]).starts_with("1\twins"));
    let err = fails(&["build", "digraph:/dev/zero", "-o", s(&d.join("z.rdb"))]);
    assert!(
        err.contains("/dev/zero") && err.contains("character device"),
        "{err}"
    );
    // A named FIFO: the build says it waits for a writer, then reads what the writer sends.
    let fifo = d.join("edges.fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let fifo_out = d.join("f.rdb");
    let child = Command::new(env!("CARGO_BIN_EXE_retrodb"))
        .args([
            "build",
            &format!("digraph:{}", s(&fifo)),
            "-o",
            s(&fifo_out),
            "--quiet",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Opening for writing waits until the build opens the FIFO for reading.
    std::fs::write(&fifo, "0 1\n").unwrap();
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("is a FIFO: waiting for a writer"), "{err}");
    assert!(ok(&["probe", s(&fifo_out), "0"]).starts_with("0\twins"));
}

/// `build --level 5` (or `--frame-positions`, `--fill`, `--one-mover`) without `--compress`
/// ignored the option without a word; it is refused, naming it.
#[test]
fn compression_options_without_compress_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.rdb");
    for option in [
        vec!["--level", "5"],
        vec!["--frame-positions", "1024"],
        vec!["--fill", "zero"],
        vec!["--one-mover"],
    ] {
        let mut a = vec!["build", "hex:2", "-o", s(&out), "--quiet"];
        a.extend(&option);
        let err = fails(&a);
        assert!(
            err.contains(option[0]) && err.contains("--compress"),
            "{err}"
        );
        assert!(!out.exists());
        a.push("--compress");
        ok(&a);
        std::fs::remove_file(&out).unwrap();
    }
}

/// A table whose header fields it does not use (reserved bytes, a raw table's level, the rounds
/// of a table without remoteness) hold something, or whose cells past the last position are not
/// zero, with every checksum made to match: `verify` accepted them all; it refuses each now,
/// while lookups still answer.
#[test]
fn verify_checks_unused_header_fields_and_the_cells_past_the_last_position() {
    use xxhash_rust::xxh3::xxh3_64;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let table = d.join("t.rdb");
    // 12 vertices: the 64-bit word of cells has 20 cells past the last position.
    ok(&[
        "build",
        "digraph:data/seed001.txt",
        "-o",
        s(&table),
        "--quiet",
    ]);
    let intact = std::fs::read(&table).unwrap();
    let u32_at = |b: &[u8], o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap()) as usize;
    let u64_at = |b: &[u8], o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap()) as usize;
    let size = u64_at(&intact, 16);
    assert_eq!(size % 32, 12, "a table with cells past its last position");
    // Makes every checksum match again: the cells' blocks, the list's hash, the header's.
    let reseal = |b: &mut Vec<u8>| {
        let (cells, cells_len) = (u64_at(b, 64), u64_at(b, 72));
        let sums = u64_at(b, 96);
        assert!(cells_len <= 64 << 10, "one block");
        let block = xxh3_64(&b[cells..cells + cells_len]);
        b[sums..sums + 8].copy_from_slice(&block.to_le_bytes());
        let list = xxh3_64(&b[sums..sums + u64_at(b, 104)]);
        b[112..120].copy_from_slice(&list.to_le_bytes());
        let h = u32_at(b, 12);
        let sum = xxh3_64(&b[..h - 8]);
        b[h - 8..h].copy_from_slice(&sum.to_le_bytes());
    };
    let mut resealed = intact.clone();
    reseal(&mut resealed);
    assert_eq!(resealed, intact, "the test's checksums are the writer's");
    let cells = u64_at(&intact, 64);
    type Edit = Box<dyn Fn(&mut Vec<u8>)>;
    let edits: Vec<(&str, Edit)> = vec![
        ("reserved byte 27", Box::new(|b| b[27] = 1)),
        ("reserved bytes 164..168", Box::new(|b| b[165] = 1)),
        ("level of a raw table", Box::new(|b| b[160] = 3)),
        ("frame size of a raw table", Box::new(|b| b[153] = 1)),
        (
            "rounds without remoteness",
            Box::new(|b| b[120..124].copy_from_slice(&5u32.to_le_bytes())),
        ),
        ("cell of index 12", Box::new(move |b| b[cells + 3] |= 1)),
        (
            "cell of index 31",
            Box::new(move |b| b[cells + 7] |= 0b0100_0000),
        ),
    ];
    let bad = d.join("bad.rdb");
    for (what, edit) in &edits {
        let mut b = intact.clone();
        edit(&mut b);
        reseal(&mut b);
        std::fs::write(&bad, &b).unwrap();
        // Opened and probed as the intact table (no lookup reads these bytes)...
        assert_eq!(
            ok(&["probe", s(&bad), "4", "--json"]),
            ok(&["probe", s(&table), "4", "--json"]),
            "{what}"
        );
        // ...but verify refuses it.
        let err = fails(&["verify", s(&bad), "--quiet"]);
        assert!(err.contains("bad.rdb"), "{what}: {err}");
    }
}

/// `build --compress` on a disk that holds the raw table but not the compressed copy beside it
/// (`bridgit:3`: 783 KiB raw, 42 KiB compressed, on 820 KiB): the old binary solved, then failed
/// writing the copy; the disk check now counts the copy, and refuses before the solve.
/// Needs to mount a tmpfs (root); skipped with a message otherwise.
#[test]
fn a_compressed_build_counts_the_compressed_copy_in_its_disk_check() {
    let dir = tempfile::tempdir().unwrap();
    let mnt = dir.path().join("small");
    std::fs::create_dir(&mnt).unwrap();
    let Some(_mounted) = Tmpfs::mount(&mnt, "820k") else {
        eprintln!("fault suite, compressed copy: SKIPPED (cannot mount a tmpfs here; run as root)");
        return;
    };
    let out = mnt.join("b.rdb");
    let o = run(&["build", "bridgit:3", "--compress", "-o", s(&out)]);
    let err = stderr(&o);
    assert!(!o.status.success(), "it fit after all");
    assert!(
        err.contains("the raw table and the compressed copy beside it") && err.contains("free"),
        "{err}"
    );
    // Refused before the solve: no tier was reported.
    assert!(!err.contains(" done: "), "{err}");
    assert!(listing(&mnt).is_empty(), "{:?}", listing(&mnt));
    // The raw table alone fits.
    ok(&["build", "bridgit:3", "-o", s(&out), "--quiet"]);
}
