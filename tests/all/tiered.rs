//! The tiered engine against the counter engine: byte-identical table files (values, remoteness,
//! rounds, checksums) on every game's small instances, with one thread and with several; and the
//! tier enumeration every tiered solve relies on (each index once, every move to a higher tier).

use crate::common;

use std::path::Path;

use retrodb::game::Tiered;
use retrodb::games::AnyGame;
use retrodb::solve::Engine;
use retrodb::table::builder::{self, BuildOptions};
use retrodb::with_tiered_game;
use retrodb::{Game, Notation};

const SPECS: &[&str] = &[
    "bridgit:1",
    "bridgit:2",
    "hex:1",
    "hex:2",
    "hex:3",
    "shannon:data/shannon/edge.txt",
    "shannon:data/shannon/path.txt",
    "shannon:data/shannon/parallel.txt",
    "shannon:data/shannon/triangle.txt",
    "shannon:data/shannon/square.txt",
    "shannon:data/shannon/k4.txt",
    "shannon:data/shannon/k4-minus-ab.txt",
    "shannon-vertex:data/shannon/square.txt",
    "shannon-vertex:data/shannon/k4.txt",
    "shannon-vertex:data/shannon/grid3x4.txt",
    "bridgit:2,start=L",
    "bridgit:2,start=R",
    "hex:3,start=L",
    "hex:3,start=R",
    "shannon:data/shannon/k4.txt,start=L",
    "shannon:data/shannon/square.txt,start=R",
    "shannon-vertex:data/shannon/grid3x4.txt,start=L",
    "bridgit:2,start=L,sym",
    "bridgit:2,start=R,sliced",
    "hex:3,start=L,sym",
    "hex:3,start=R,sym",
    "shannon:data/shannon/k4.txt,start=L,sliced",
    "hackenbush:data/hackenbush-house.txt",
    "hackenbush-stalk:BRGBR",
    "hackenbush-tree:l(l;rg);e(r;b)",
];

pub(crate) fn open(spec: &str) -> AnyGame {
    let here = env!("CARGO_MANIFEST_DIR");
    let spec = match spec.split_once(':') {
        Some((kind, arg)) if arg.starts_with("data/") => format!("{kind}:{here}/{arg}"),
        _ => spec.to_string(),
    };
    AnyGame::open(&spec, u64::MAX).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

fn build(game: &AnyGame, dir: &Path, engine: Engine, threads: usize, rem: bool) -> Vec<u8> {
    let out = dir.join(format!("{}-{threads}-{rem}.rdb", engine.name()));
    let opts = BuildOptions {
        remoteness: rem,
        engine: Some(engine),
        ..BuildOptions::default()
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let summary = pool
        .install(|| builder::build(game, &out, &opts))
        .unwrap_or_else(|e| panic!("{}: {e}", game.spec()));
    assert_eq!(summary.engine, engine);
    std::fs::read(&out).unwrap()
}

#[test]
fn tiered_and_counter_write_identical_files() {
    let dir = tempfile::tempdir().unwrap();
    for spec in SPECS {
        let game = open(spec);
        for rem in [false, true] {
            let reference = build(&game, dir.path(), Engine::Counter, 1, rem);
            for threads in [1, 2, 4] {
                for engine in [Engine::Tiered, Engine::Counter] {
                    let got = build(&game, dir.path(), engine, threads, rem);
                    assert!(
                        got == reference,
                        "{spec}: the {} engine with {threads} thread(s) (remoteness {rem}) \
                         wrote a different file from the counter engine with one",
                        engine.name()
                    );
                }
            }
        }
    }
}

#[test]
fn tiers_list_every_index_once_and_moves_go_up_and_visits_agree() {
    for spec in SPECS {
        let game = open(spec);
        with_tiered_game!(&game, g => {
            if let Err(e) = retrodb::game::check_tiers(g) {
                panic!("{spec}: {e}");
            }
        }, _ => panic!("{spec} is acyclic and lists its tiers"));
    }
}

/// The contract check fails where it should: a game whose walk leaves out a position, lists one
/// twice, or misreports its children is refused.
#[test]
fn check_tiers_catches_a_broken_walk() {
    use retrodb::game::{TierPosition, TierVisitor};
    struct Broken<'a> {
        inner: &'a retrodb::games::cell::CellGame,
        how: u8,
    }
    impl Game for Broken<'_> {
        fn spec(&self) -> String {
            self.inner.spec()
        }
        fn size(&self) -> u64 {
            self.inner.size()
        }
        fn status(&self, pos: u64) -> retrodb::Status {
            self.inner.status(pos)
        }
        fn for_each_child(&self, pos: u64, f: impl FnMut(u64)) {
            self.inner.for_each_child(pos, f)
        }
        fn for_each_parent(&self, pos: u64, f: impl FnMut(u64)) {
            self.inner.for_each_parent(pos, f)
        }
        fn max_children(&self) -> u64 {
            self.inner.max_children()
        }
    }
    impl Notation for Broken<'_> {
        fn parse_position(&self, text: &str) -> Result<u64, retrodb::game::PositionError> {
            self.inner.parse_position(text)
        }
        fn position_text(&self, pos: u64) -> String {
            self.inner.position_text(pos)
        }
        fn moves(&self, pos: u64) -> Vec<retrodb::Move> {
            self.inner.moves(pos)
        }
    }
    struct Tamper<'v, V> {
        v: &'v mut V,
        how: u8,
        seen: u64,
    }
    impl<V: TierVisitor> TierVisitor for Tamper<'_, V> {
        fn visit<I: ExactSizeIterator<Item = u64>>(&mut self, p: TierPosition<I>) {
            self.seen += 1;
            match (self.how, self.seen) {
                // Leave out the first position.
                (0, 1) => {}
                // List the first position twice.
                (1, 1) => {
                    let kids: Vec<u64> = p.children.collect();
                    for _ in 0..2 {
                        self.v.visit(TierPosition {
                            index: p.index,
                            status: p.status,
                            children: kids.iter().copied(),
                        });
                    }
                }
                // List nothing at all.
                (3, _) => {}
                // Drop the last child of every open position.
                (2, _) => {
                    let mut kids: Vec<u64> = p.children.collect();
                    kids.pop();
                    self.v.visit(TierPosition {
                        index: p.index,
                        status: p.status,
                        children: kids.into_iter(),
                    });
                }
                _ => self.v.visit(p),
            }
        }
    }
    impl Tiered for Broken<'_> {
        fn tier_count(&self) -> u32 {
            self.inner.tier_count()
        }
        fn tier_units(&self, t: u32) -> u64 {
            self.inner.tier_units(t)
        }
        fn visit_tier(&self, t: u32, unit: u64, v: &mut impl TierVisitor) {
            let mut tamper = Tamper {
                v,
                how: self.how,
                seen: 0,
            };
            self.inner.visit_tier(t, unit, &mut tamper)
        }
        fn tier_range(&self, t: u32) -> Option<std::ops::Range<u64>> {
            self.inner.tier_range(t)
        }
    }
    let game = open("hex:2");
    let AnyGame::Cell(inner) = &game else {
        unreachable!()
    };
    assert!(retrodb::game::check_tiers(inner).is_ok());
    for how in 0..4 {
        let broken = Broken { inner, how };
        assert!(
            retrodb::game::check_tiers(&broken).is_err(),
            "a broken walk ({how}) passes the check"
        );
    }
    // The engine itself refuses a walk that lists nothing, rather than a table of unused
    // indices.
    let broken = Broken { inner, how: 3 };
    let words = retrodb::base::cells::zeroed_words(retrodb::base::cells::words_for(broken.size()));
    let cells = retrodb::base::cells::Cells::new(&words, broken.size());
    let err = retrodb::solve::tiered::solve(&broken, &cells, &Default::default())
        .err()
        .expect("refused")
        .to_string();
    assert!(err.contains("listed no position"), "{err}");
}

#[test]
fn tiered_engine_refuses_cyclic_games_clearly() {
    let game = open("digraph:data/seed001.txt");
    let dir = tempfile::tempdir().unwrap();
    let opts = BuildOptions {
        engine: Some(Engine::Tiered),
        ..BuildOptions::default()
    };
    let err = builder::build(&game, &dir.path().join("t.rdb"), &opts)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("tiered engine") && err.contains("counter"),
        "{err}"
    );
    // The default picks the counter engine for it.
    let summary =
        builder::build(&game, &dir.path().join("t.rdb"), &BuildOptions::default()).unwrap();
    assert_eq!(summary.engine, Engine::Counter);
}

#[test]
fn tiered_is_the_default_for_acyclic_games() {
    let game = open("hex:2");
    assert_eq!(Engine::default_for(&game), Engine::Tiered);
}

#[test]
fn build_refuses_to_replace_a_special_file() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("not-a-table");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let game = open("hex:1");
    let err = builder::build(&game, &socket, &BuildOptions::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("not a regular file"), "{err}");
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata(&socket).unwrap().file_type().is_socket());
}

#[test]
fn memory_guard_refuses_with_the_estimate_and_the_limit() {
    let game = open("hex:3");
    let dir = tempfile::tempdir().unwrap();
    for engine in [Engine::Tiered, Engine::Counter] {
        let opts = BuildOptions {
            engine: Some(engine),
            max_memory: 5_000,
            ..BuildOptions::default()
        };
        let need = builder::estimate(&game, &opts).memory_bytes;
        assert!(need > 5_000);
        let err = builder::build(&game, &dir.path().join("t.rdb"), &opts)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(engine.name()) && err.contains(&retrodb::base::error::human_bytes(need)),
            "{err}"
        );
        assert!(!dir.path().join("t.rdb").exists());
    }
    // The tiered engine's estimate is far below the counter engine's.
    let t = builder::estimate(
        &game,
        &BuildOptions {
            engine: Some(Engine::Tiered),
            ..BuildOptions::default()
        },
    );
    let c = builder::estimate(
        &game,
        &BuildOptions {
            engine: Some(Engine::Counter),
            ..BuildOptions::default()
        },
    );
    let own = |b: u64| b - retrodb::solve::PROCESS_BYTES;
    assert!(own(t.memory_bytes) * 4 < own(c.memory_bytes), "{t:?} {c:?}");
}

#[test]
fn an_interrupted_tiered_build_resumes_to_the_same_file() {
    let dir = tempfile::tempdir().unwrap();
    for (spec, rem) in [
        ("hex:3", true),
        // A plain board without remoteness: the bit-parallel step writes each tier's cells, and
        // the resumed runs read them with the per-position kernel.
        ("hex:3", false),
        ("bridgit:2", false),
        ("hackenbush:data/hackenbush-house.txt", true),
        // Tier-major and without remoteness: the build discards finished tiers' remoteness.
        ("hex:3,start=L", false),
        ("shannon-vertex:data/shannon/grid3x4.txt,start=R", false),
    ] {
        let game = open(spec);
        let whole = build(&game, dir.path(), Engine::Counter, 2, rem);
        let out = dir.path().join("resumed.rdb");
        let mut runs = 0;
        loop {
            let opts = BuildOptions {
                remoteness: rem,
                engine: Some(Engine::Tiered),
                stop_after_tiers: Some(2),
                ..BuildOptions::default()
            };
            let s = builder::build(&game, &out, &opts).unwrap();
            assert_eq!(
                s.resumed_from_tier.is_some(),
                runs > 0,
                "{spec}: run {runs}"
            );
            runs += 1;
            if s.complete {
                break;
            }
            assert!(!out.exists(), "{spec}: no table before the last tier");
        }
        let tiers = with_tiered_game!(&game, g => g.tier_count(), _ => unreachable!());
        assert_eq!(runs, tiers.div_ceil(2), "{spec}: two tiers a run");
        assert!(
            std::fs::read(&out).unwrap() == whole,
            "{spec}: resumed table differs"
        );
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains("partial"))
            .collect();
        assert!(left.is_empty(), "{spec}: work files left: {left:?}");
        std::fs::remove_file(&out).unwrap();
    }
}

/// A symmetric build killed with SIGKILL after its first checkpoint, between or inside key tiers
/// (rows of the tier being decided half written), resumes to the table a build without a kill
/// writes, byte for byte: the row kernel clears the rows below the last complete key tier (and,
/// with remoteness, their nibbles in the work file).
#[test]
fn a_sigkilled_sym_build_resumes_to_the_identical_table() {
    for rem in [false, true] {
        sigkilled_sym_build_resumes(rem);
    }
}

fn sigkilled_sym_build_resumes(rem: bool) {
    use std::process::Command;
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let spec = "hex:4,start=L,sym";
    let bin = env!("CARGO_BIN_EXE_retrodb");
    let reference = dir.path().join("reference.rdb");
    let out = dir.path().join("killed.rdb");
    let mark = dir.path().join(".killed.rdb.partial-tier");
    let build = |path: &std::path::Path| {
        let mut c = Command::new(bin);
        c.args(["build", spec, "-q", "--checkpoint-every", "0", "-o"])
            .arg(path)
            .args(if rem { &["--remoteness"][..] } else { &[] })
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        c
    };
    assert!(build(&reference).status().unwrap().success());
    let want = std::fs::read(&reference).unwrap();
    let mut killed_running = 0;
    for delay_us in [0u64, 300, 1_000, 3_000, 10_000, 30_000] {
        let _ = std::fs::remove_file(&out);
        let mut child = build(&out).spawn().unwrap();
        let start = Instant::now();
        while !mark.exists()
            && child.try_wait().unwrap().is_none()
            && start.elapsed() < Duration::from_secs(120)
        {
            std::thread::sleep(Duration::from_micros(100));
        }
        std::thread::sleep(Duration::from_micros(delay_us));
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap();
            killed_running += 1;
        }
        child.wait().unwrap();
        assert!(
            build(&out).status().unwrap().success(),
            "resume after {delay_us} us (remoteness {rem})"
        );
        assert!(
            std::fs::read(&out).unwrap() == want,
            "killed {delay_us} us after the first checkpoint (remoteness {rem}): the resumed \
             table differs"
        );
    }
    assert!(killed_running > 0, "every build had ended before its kill");
}

/// A build that dies between checkpoints resumes below the last one. Run 1 stops after two
/// tiers (a checkpoint); run 2 solves four more without a checkpoint and aborts; run 3 resumes
/// from run 1's checkpoint, whose remoteness run 2 had to keep while discarding its own.
#[test]
fn a_build_killed_between_checkpoints_resumes_from_the_last_one() {
    let dir = tempfile::tempdir().unwrap();
    for (spec, rem) in [
        ("hex:3,start=L", false),
        ("hex:3,start=L,sym", false),
        ("bridgit:3,start=R,sym", false),
        ("hex:3,start=L,sym", true),
        ("bridgit:3,start=R,sym", true),
        ("shannon-vertex:data/shannon/grid3x4.txt,start=R", false),
        ("hex:3", false),
        ("hex:3", true),
    ] {
        let tiers = with_tiered_game!(&open(spec), g => g.tier_count(), _ => unreachable!());
        let out = dir.path().join("killed.rdb");
        let out_s = out.to_str().unwrap();
        let reference = dir.path().join("reference.rdb");
        let mut args = vec!["build", spec, "-q"];
        if rem {
            args.push("--remoteness");
        }
        let run = |extra: &[&str], crash: Option<u32>| {
            let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_retrodb"));
            cmd.args(&args)
                .args(["-o", out_s, "--engine", "tiered"])
                .args(extra)
                .current_dir(env!("CARGO_MANIFEST_DIR"));
            if let Some(t) = crash {
                cmd.env("RETRODB_CRASH_AFTER_TIER", t.to_string());
            }
            cmd.output().unwrap()
        };
        let mark = dir.path().join(".killed.rdb.partial-tier");
        let first = run(&["--tiers", "2"], None);
        assert!(first.status.success(), "{spec}: {first:?}");
        let named = format!("finished-tier {}\n", tiers - 2);
        assert!(std::fs::read_to_string(&mark).unwrap().contains(&named));
        let killed = run(&["--checkpoint-every", "3600"], Some(tiers - 6));
        assert!(
            !killed.status.success(),
            "{spec}: the crash was not injected"
        );
        assert!(!out.exists(), "{spec}: a table before the last tier");
        assert!(
            std::fs::read_to_string(&mark).unwrap().contains(&named),
            "{spec}: run 2 wrote a checkpoint it should not have"
        );
        let last = run(&["--json"], None);
        assert!(last.status.success(), "{spec}: {last:?}");
        let summary: serde_json::Value = serde_json::from_slice(&last.stdout).unwrap();
        assert_eq!(summary["resumed_from_tier"], tiers - 2, "{spec}");
        let counter = common::retrodb(
            &[
                &args[..],
                &["-o", reference.to_str().unwrap(), "--engine", "counter"],
            ]
            .concat(),
        );
        assert!(counter.status.success(), "{spec}: {counter:?}");
        assert!(
            std::fs::read(&out).unwrap() == std::fs::read(&reference).unwrap(),
            "{spec}: the resumed table differs from the counter engine's"
        );
        std::fs::remove_file(&out).unwrap();
    }
}

/// A checkpoint of another game beside the output is neither resumed nor silently thrown away:
/// the build is refused, naming both games, until `restart` asks to start over.
#[test]
fn a_checkpoint_of_another_game_is_not_resumed() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.rdb");
    let stop = BuildOptions {
        engine: Some(Engine::Tiered),
        stop_after_tiers: Some(3),
        ..BuildOptions::default()
    };
    assert!(
        !builder::build(&open("hex:3"), &out, &stop)
            .unwrap()
            .complete
    );
    let game = open("bridgit:2");
    let err = builder::build(&game, &out, &BuildOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("'hex:3'") && err.contains("'bridgit:2'") && err.contains("--restart"),
        "{err}"
    );
    assert!(!out.exists());
    let restart = BuildOptions {
        restart: true,
        ..BuildOptions::default()
    };
    let s = builder::build(&game, &out, &restart).unwrap();
    assert!(s.complete && s.resumed_from_tier.is_none());
    assert!(std::fs::read(&out).unwrap() == build(&game, dir.path(), Engine::Counter, 1, false));
}

#[test]
fn alternation_games_keep_the_contract_and_agree_with_the_full_table() {
    use retrodb::game::check_round_trip;
    for (spec, full) in [
        ("bridgit:2,start=L", "bridgit:2"),
        ("hex:3,start=R", "hex:3"),
        (
            "shannon:data/shannon/k4.txt,start=L",
            "shannon:data/shannon/k4.txt",
        ),
    ] {
        let (AnyGame::Cell(g), AnyGame::Cell(f)) = (open(spec), open(full)) else {
            panic!("{spec} is a cell game");
        };
        check_round_trip(&g, 0..g.size()).unwrap_or_else(|e| panic!("{spec}: {e}"));
        assert!(
            g.size() < f.size() / 2,
            "{spec}: alternation holds fewer positions"
        );
        // Every position of the alternation game is the same configuration in the full game,
        // with the same status and the same children (as configurations).
        for pos in 0..g.size() {
            let text = g.position_text(pos);
            let there = f.parse_position(&text).unwrap();
            assert_eq!(g.status(pos), f.status(there), "{spec}: {text}");
            let mut mine = Vec::new();
            g.for_each_child(pos, |c| mine.push(g.position_text(c)));
            let mut theirs = Vec::new();
            f.for_each_child(there, |c| theirs.push(f.position_text(c)));
            mine.sort();
            theirs.sort();
            assert_eq!(mine, theirs, "{spec}: children of {text}");
        }
        // A position alternation does not reach is refused with the reason.
        let bad = if g.start() == Some(retrodb::games::cell::Player::Left) {
            format!("R{}", ".".repeat(g.cells() as usize - 1))
        } else {
            format!("L{}", ".".repeat(g.cells() as usize - 1))
        };
        let err = g.parse_position(&bad).unwrap_err().to_string();
        assert!(err.contains("not reachable"), "{spec}: {err}");
        // The first player's single cell, without a suffix: the other player is to move.
        let first = match g.start() {
            Some(retrodb::games::cell::Player::Left) => 'L',
            _ => 'R',
        };
        let one = format!("{first}{}", ".".repeat(g.cells() as usize - 1));
        let pos = g
            .parse_position(&one)
            .unwrap_or_else(|e| panic!("{spec}: {e}"));
        assert_ne!(g.mover(pos), g.start().unwrap(), "{spec}: {one}");
    }
}

#[test]
fn bad_start_is_refused() {
    let err = AnyGame::open("hex:3,start=X", u64::MAX)
        .err()
        .expect("refused")
        .to_string();
    assert!(err.contains("start=X"), "{err}");
}

/// The plan a tiered run prints before it starts, and the report after each tier, agree with
/// the tiers the game lists and with the checkpoint the run leaves.
#[test]
fn tier_reports_and_plans_follow_the_checkpoints() {
    use std::sync::{Arc, Mutex};
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("planned.rdb");
    let game = open("hex:3,start=L");
    let (size, tiers) =
        with_tiered_game!(&game, g => (g.size(), g.tier_count()), _ => unreachable!());
    let len = |t: u32| with_tiered_game!(&game, g => g.tier_range(t).map_or(0, |r| r.end - r.start), _ => 0);
    let fresh = builder::plan_tiered(&game, &out, &BuildOptions::default());
    assert!(fresh.resumed.is_none());
    assert_eq!(
        (fresh.done_from, fresh.lowest, fresh.positions_left),
        (tiers, 0, size)
    );
    assert!(fresh.seconds_left.is_none());
    let reports = Arc::new(Mutex::new(Vec::new()));
    let sink = reports.clone();
    let opts = BuildOptions {
        engine: Some(Engine::Tiered),
        stop_after_tiers: Some(3),
        on_tier: Some(Arc::new(move |r: &builder::TierReport| {
            sink.lock().unwrap().push(r.clone())
        })),
        ..BuildOptions::default()
    };
    let s = builder::build(&game, &out, &opts).unwrap();
    assert!(!s.complete);
    let got = reports.lock().unwrap().clone();
    let listed: Vec<(u32, u64)> = got.iter().map(|r| (r.tier, r.positions)).collect();
    let want: Vec<(u32, u64)> = (tiers - 3..tiers).rev().map(|t| (t, len(t))).collect();
    assert_eq!(listed, want);
    let done: u64 = want.iter().map(|w| w.1).sum();
    let last = got.last().unwrap();
    assert_eq!((last.solved, last.left), (done, size - done));
    assert!(last.checkpoint, "the run's last tier is a checkpoint");
    // The next run's plan resumes below it, with the time at the first run's rate.
    let next = builder::plan_tiered(&game, &out, &BuildOptions::default());
    let m = next.resumed.as_ref().expect("a checkpoint");
    assert_eq!((m.tier, m.solved), (tiers - 3, done));
    assert_eq!(
        (next.done_from, next.positions_left),
        (tiers - 3, size - done)
    );
}

/// A checkpoint whose remoteness file was damaged or lost is refused with the file's name, not
/// resumed into a wrong table; deleting the work files starts over.
#[test]
fn a_damaged_checkpoint_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("damaged.rdb");
    let game = open("hex:3");
    let tiers = with_tiered_game!(&game, g => g.tier_count(), _ => unreachable!());
    // With remoteness: a checkpoint keeps every index's remoteness in its work file.
    let stop = BuildOptions {
        remoteness: true,
        engine: Some(Engine::Tiered),
        stop_after_tiers: Some(4),
        ..BuildOptions::default()
    };
    assert!(!builder::build(&game, &out, &stop).unwrap().complete);
    let rem = dir
        .path()
        .join(format!(".damaged.rdb.partial-rem.{}", tiers - 4));
    let mut bytes = std::fs::read(&rem).unwrap();
    let at = bytes.iter().position(|&b| b != 0).expect("some remoteness");
    bytes[at] ^= 1;
    std::fs::write(&rem, &bytes).unwrap();
    let err = builder::build(&game, &out, &stop).unwrap_err().to_string();
    assert!(
        err.contains("work file damaged") && err.contains(".damaged.rdb.partial-rem."),
        "{err}"
    );
    std::fs::remove_file(&rem).unwrap();
    let err = builder::build(&game, &out, &stop).unwrap_err().to_string();
    assert!(err.contains(".damaged.rdb.partial-rem."), "{err}");
    assert!(!out.exists());
    for e in std::fs::read_dir(dir.path()).unwrap() {
        std::fs::remove_file(e.unwrap().path()).unwrap();
    }
    let whole = builder::build(&game, &out, &BuildOptions::default()).unwrap();
    assert!(whole.complete && whole.resumed_from_tier.is_none());
}
