//! `cargo bench --bench serve_load -- stress` (run by `scripts/serve-stress.sh`): `retrodb
//! serve` under 200 concurrent clients on 127.0.0.1 — single lookups, value lookups
//! (`value=true`), batches, stalled readers that never read their batch's answer, and clients
//! that send their headers a byte a second — while a thread samples the server's memory from
//! `/proc/PID/status` and another times `GET /health` every 100 ms on a fresh connection. Then
//! SIGTERM, with the clients still at it: the time to exit, the exit status, and the server's
//! standard error searched for panics. It fails (exit status 101) when the server panicked, did
//! not exit 0 within 10 s, or left `/health` unanswered.
//!
//! Environment: `STRESS_TABLE` (required: the table), `STRESS_VALUE_TABLE` (a table with game
//! values for the value lookups, when the first has none), `STRESS_SECS` (60),
//! `STRESS_SINGLES` (100), `STRESS_VALUES` (40), `STRESS_BATCHES` (30), `STRESS_STALLED` (20),
//! `STRESS_SLOW` (10), `STRESS_BATCH_POSITIONS` (20,000 a batch), `STRESS_STALLED_MIB` (4, a
//! stalled reader's batch), `STRESS_SERVER_ARGS` (more options for the server).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::clients::{Counts, Tally, requester, slow_headers, stalled};
use super::{env_or, percentile};

/// `GET target` on a fresh connection, blocking: the status and body.
fn get(addr: SocketAddr, target: &str) -> (u16, Vec<u8>) {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    write!(
        s,
        "GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut all = Vec::new();
    let _ = s.read_to_end(&mut all);
    let end = all
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head");
    let status = std::str::from_utf8(&all[9..12]).unwrap().parse().unwrap();
    (status, all[end + 4..].to_vec())
}

/// Positions of table `name` by random walks from its start through the API (any game).
fn positions(addr: SocketAddr, name: &str, start: &str, n: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    while out.len() < n {
        let mut at = start.to_string();
        for _ in 0..64 {
            let (status, body) = get(
                addr,
                &format!("/api/v1/tables/{name}?position={}", encode(&at)),
            );
            if status != 200 {
                break;
            }
            out.push(at.clone());
            let j: serde_json::Value = serde_json::from_slice(&body).unwrap();
            let moves = j["moves"].as_array().cloned().unwrap_or_default();
            if moves.is_empty() || out.len() >= n {
                break;
            }
            let m = &moves[(next() % moves.len() as u64) as usize];
            at = m["position"].as_str().unwrap().to_string();
        }
    }
    out
}

fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A field of `/proc/PID/status`, in KiB.
fn status_kib(pid: u32, field: &str) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    s.lines().find_map(|l| {
        l.strip_prefix(field)?
            .trim()
            .strip_suffix("kB")?
            .trim()
            .parse()
            .ok()
    })
}

fn start_server(
    tables: &[PathBuf],
    extra: &[String],
    err: &std::path::Path,
) -> (Child, SocketAddr) {
    let mut server = Command::new(env!("CARGO_BIN_EXE_retrodb"))
        .arg("serve")
        .args(tables)
        .args(["--addr", "127.0.0.1:0"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(err).unwrap())
        .spawn()
        .expect("retrodb serve starts");
    let mut line = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .strip_prefix("listening on http://")
        .and_then(|r| r.split('/').next())
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| {
            panic!(
                "no address in {line:?}: {}",
                std::fs::read_to_string(err).unwrap_or_default()
            )
        });
    (server, addr)
}

/// The tables as the server at `addr` lists them.
fn list_tables(addr: SocketAddr) -> Vec<serde_json::Value> {
    let (_, list) = get(addr, "/api/v1/tables");
    let list: serde_json::Value = serde_json::from_slice(&list).unwrap();
    list["tables"].as_array().unwrap().clone()
}

/// Starts the server on `table`, and again with `STRESS_VALUE_TABLE` beside it when `table` has
/// no game values: the server, its address, and its tables as it lists them (which takes value
/// lookups, and where walks start).
fn start_with_values(
    table: &Path,
    extra: &[String],
    err_file: &Path,
) -> (Child, SocketAddr, Vec<serde_json::Value>) {
    let mut tables = vec![table.to_path_buf()];
    let (mut server, mut addr) = start_server(&tables, extra, err_file);
    let mut listed = list_tables(addr);
    if listed[0]["game_values"] != true
        && let Some(v) = std::env::var_os("STRESS_VALUE_TABLE")
    {
        // The value lookups need a table with game values beside this one.
        // SAFETY: a signal to our own child process.
        unsafe { libc::kill(server.id() as i32, libc::SIGTERM) };
        let _ = server.wait();
        tables.push(PathBuf::from(v));
        (server, addr) = start_server(&tables, extra, err_file);
        listed = list_tables(addr);
    }
    (server, addr, listed)
}

/// Prints what the run will do: the table, the clients of each kind, the server's options.
fn print_plan(
    table: &Path,
    main: &serde_json::Value,
    value_pool: &Option<(String, Arc<Vec<String>>)>,
    counts: &[u64; 5],
    secs: u64,
    extra: &[String],
) {
    println!(
        "serve-stress: {} ({}, {}), value lookups on {}; {} clients for {secs} s: {} single lookups, {} value lookups, {} batches, {} stalled readers, {} slow headers; server options: {}",
        table.display(),
        main["game"].as_str().unwrap_or(""),
        main["encoding"].as_str().unwrap_or(""),
        value_pool
            .as_ref()
            .map_or("(no table with game values)".to_string(), |(n, _)| n
                .clone()),
        counts.iter().sum::<u64>(),
        counts[0],
        counts[1],
        counts[2],
        counts[3],
        counts[4],
        if extra.is_empty() {
            "defaults".to_string()
        } else {
            extra.join(" ")
        },
    );
}

/// The two threads that watch the server during the run: one samples its memory, the other
/// times `/health`; each runs until its flag is cleared.
struct Watchers {
    sampling: Arc<AtomicBool>,
    sampler: JoinHandle<[u64; 4]>,
    probing: Arc<AtomicBool>,
    health: JoinHandle<(Vec<u32>, u64)>,
}

/// Starts the [`Watchers`] of the server `pid` at `addr`.
fn watch(pid: u32, addr: SocketAddr) -> Watchers {
    // Memory, sampled until the process is gone.
    let sampling = Arc::new(AtomicBool::new(true));
    let sampler = {
        let sampling = Arc::clone(&sampling);
        std::thread::spawn(move || {
            let mut peak = [0u64; 4];
            while sampling.load(Relaxed) {
                for (i, f) in ["VmRSS:", "RssAnon:", "RssFile:", "VmHWM:"]
                    .iter()
                    .enumerate()
                {
                    if let Some(v) = status_kib(pid, f) {
                        peak[i] = peak[i].max(v);
                    }
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            peak
        })
    };
    // `/health` every 100 ms on a fresh connection, from a thread of its own.
    let probing = Arc::new(AtomicBool::new(true));
    let health = {
        let probing = Arc::clone(&probing);
        std::thread::spawn(move || {
            let (mut lat, mut failures) = (Vec::new(), 0u64);
            while probing.load(Relaxed) {
                let t = Instant::now();
                let ok = TcpStream::connect(addr).ok().and_then(|mut s| {
                    s.set_read_timeout(Some(Duration::from_secs(30))).ok()?;
                    s.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                        .ok()?;
                    let mut all = Vec::new();
                    s.read_to_end(&mut all).ok()?;
                    all.starts_with(b"HTTP/1.1 200").then_some(())
                });
                match ok {
                    Some(()) => lat.push(t.elapsed().as_micros().min(u32::MAX as u128) as u32),
                    None => failures += 1,
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            (lat, failures)
        })
    };
    Watchers {
        sampling,
        sampler,
        probing,
        health,
    }
}

/// A batch request of `batch_positions` positions from `pool`, values only.
fn batch_request(name: &str, pool: &[String], batch_positions: usize) -> Arc<Vec<u8>> {
    let batch_body: Vec<u8> = pool
        .iter()
        .cycle()
        .take(batch_positions)
        .flat_map(|p| [p.as_bytes(), b"\n"].concat())
        .collect();
    Arc::new(
        [
            format!(
                "POST /api/v1/tables/{name}/batch?moves=false HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n",
                batch_body.len()
            )
            .into_bytes(),
            batch_body,
        ]
        .concat(),
    )
}

/// A stalled reader's batch request: positions from `pool` up to `stalled_bytes` of body, with
/// every move (a large answer).
fn stalled_request(name: &str, pool: &[String], stalled_bytes: usize) -> Arc<Vec<u8>> {
    let mut stalled_body = Vec::with_capacity(stalled_bytes);
    for p in pool.iter().cycle() {
        if stalled_body.len() + p.len() + 1 > stalled_bytes {
            break;
        }
        stalled_body.extend_from_slice(p.as_bytes());
        stalled_body.push(b'\n');
    }
    Arc::new(
        [
            format!(
                "POST /api/v1/tables/{name}/batch HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n",
                stalled_body.len()
            )
            .into_bytes(),
            stalled_body,
        ]
        .concat(),
    )
}

/// The load: the server's address, how many clients of each kind (single lookups, value
/// lookups, batches, stalled readers, slow headers), and what they send.
struct Load {
    addr: SocketAddr,
    counts: [u64; 5],
    name: String,
    pool: Arc<Vec<String>>,
    value_pool: Option<(String, Arc<Vec<String>>)>,
    batch_request: Arc<Vec<u8>>,
    stalled_request: Arc<Vec<u8>>,
    hold: Duration,
}

/// Starts every client of `load`, each counting into its kind's tally of `tallies`, then lets
/// them run for `secs` seconds (they go on until `stop`).
async fn run_clients(load: &Load, stop: &Arc<AtomicBool>, tallies: &[Arc<Tally>], secs: u64) {
    let Load {
        addr,
        counts,
        name,
        pool,
        value_pool,
        batch_request,
        stalled_request,
        hold,
    } = load;
    let (addr, hold) = (*addr, *hold);
    for k in 0..counts[0] {
        let (pool, name) = (Arc::clone(pool), name.clone());
        let mut i = k as usize * 7919;
        tokio::spawn(requester(
            addr,
            Arc::clone(stop),
            Arc::clone(&tallies[0]),
            move || {
                i += 1;
                format!(
                    "GET /api/v1/tables/{name}?position={} HTTP/1.1\r\nHost: x\r\n\r\n",
                    encode(&pool[i % pool.len()])
                )
                .into_bytes()
            },
        ));
    }
    if let Some((vname, vpool)) = value_pool {
        for k in 0..counts[1] {
            let (vpool, vname) = (Arc::clone(vpool), vname.clone());
            let mut i = k as usize * 104_729;
            tokio::spawn(requester(
                addr,
                Arc::clone(stop),
                Arc::clone(&tallies[1]),
                move || {
                    i += 1;
                    format!(
                    "GET /api/v1/tables/{vname}?position={}&value=true HTTP/1.1\r\nHost: x\r\n\r\n",
                    encode(&vpool[i % vpool.len()])
                )
                .into_bytes()
                },
            ));
        }
    }
    for _ in 0..counts[2] {
        let request = Arc::clone(batch_request);
        tokio::spawn(requester(
            addr,
            Arc::clone(stop),
            Arc::clone(&tallies[2]),
            move || request.to_vec(),
        ));
    }
    for _ in 0..counts[3] {
        tokio::spawn(stalled(
            addr,
            Arc::clone(stop),
            Arc::clone(&tallies[3]),
            Arc::clone(stalled_request),
            hold,
        ));
    }
    for _ in 0..counts[4] {
        tokio::spawn(slow_headers(
            addr,
            Arc::clone(stop),
            Arc::clone(&tallies[4]),
        ));
    }
    tokio::time::sleep(Duration::from_secs(secs)).await;
}

/// What was seen up to and during the SIGTERM.
struct Stopped {
    /// The server's VmHWM (KiB) just before the signal.
    hwm_before: u64,
    /// The tallies just before the signal.
    during: Vec<Counts>,
    /// The server's CPU seconds just before the signal.
    cpu: f64,
    /// The `/health` latencies (us) and the probes unanswered.
    lat: Vec<u32>,
    health_failures: u64,
    /// How the server exited (`None`: not at all), and how long after the signal.
    status: Option<ExitStatus>,
    took: Duration,
    /// The sampled peaks of VmRSS, RssAnon, RssFile and VmHWM (KiB).
    peak: [u64; 4],
}

/// SIGTERM with every client still at work: waits up to 60 s for the server to exit (then kills
/// it), stops the watchers and the clients.
fn stop_under_load(
    server: &mut Child,
    watchers: Watchers,
    tallies: &[Arc<Tally>],
    stop: &AtomicBool,
    runtime: tokio::runtime::Runtime,
) -> Stopped {
    let pid = server.id();
    let hwm_before = status_kib(pid, "VmHWM:").unwrap_or(0);
    let during: Vec<Counts> = tallies.iter().map(|t| t.counts()).collect();
    let cpu = super::cpu_seconds(pid);
    watchers.probing.store(false, Relaxed);
    let (lat, health_failures) = watchers.health.join().unwrap();
    let signalled = Instant::now();
    // SAFETY: a signal to our own child process.
    unsafe { libc::kill(pid as i32, libc::SIGTERM) };
    let mut status = None;
    while signalled.elapsed() < Duration::from_secs(60) {
        if let Some(s) = server.try_wait().unwrap() {
            status = Some(s);
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let took = signalled.elapsed();
    if status.is_none() {
        let _ = server.kill();
        status = server.wait().ok();
    }
    watchers.sampling.store(false, Relaxed);
    let peak = watchers.sampler.join().unwrap();
    stop.store(true, Relaxed);
    runtime.shutdown_timeout(Duration::from_secs(1));
    Stopped {
        hwm_before,
        during,
        cpu,
        lat,
        health_failures,
        status,
        took,
        peak,
    }
}

/// Prints what the clients got: each kind until SIGTERM (`during`), then all lookups and
/// batches together while the server stopped.
fn report_clients(
    during: &[Counts],
    tallies: &[Arc<Tally>],
    batch_positions: usize,
    stalled_bytes: usize,
    hold: Duration,
) {
    let [singles, values, batches, stalls, slow] = [0, 1, 2, 3, 4].map(|i| during[i].clone());
    println!("during the run, until SIGTERM:");
    println!(
        "  single lookups: {}; {} connection errors",
        singles.statuses(),
        singles.failed
    );
    println!(
        "  value lookups: {}; {} connection errors",
        values.statuses(),
        values.failed
    );
    println!(
        "  batches of {batch_positions}: {} ({} positions answered); {} connection errors",
        batches.statuses(),
        batches.units,
        batches.failed
    );
    println!(
        "  stalled readers ({} MiB batches, holding {} s): {} answers cut by the server, {} complete",
        stalled_bytes >> 20,
        hold.as_secs(),
        stalls.units,
        stalls.complete
    );
    println!(
        "  slow headers: {} connections closed by the server",
        slow.units
    );
    let stopping: Vec<Counts> = tallies
        .iter()
        .zip(during)
        .map(|(t, d)| t.counts().since(d))
        .collect();
    let mut answers = Counts::default();
    for c in &stopping[..3] {
        for (s, n) in &c.by_status {
            *answers.by_status.entry(*s).or_default() += n;
        }
        answers.failed += c.failed;
    }
    println!(
        "while stopping: lookups and batches answered {}; {} connection errors (refused once it stopped accepting)",
        answers.statuses(),
        answers.failed
    );
}

/// Prints how the server fared (`/health`, memory, CPU, the exit and any panics in its standard
/// error, `err_file`, which it removes) and fails the run on a panic, an exit other than 0
/// within 10 s, or an unanswered `/health`.
fn report_server(stopped: Stopped, compressed: usize, err_file: &Path) {
    let Stopped {
        hwm_before,
        cpu,
        mut lat,
        health_failures,
        status,
        took,
        peak,
        ..
    } = stopped;
    let mib = |kib: u64| kib as f64 / 1024.0;
    lat.sort_unstable();
    println!(
        "/health: {} probes, median {:.2} ms, p99 {:.2} ms, max {:.2} ms; {health_failures} unanswered",
        lat.len(),
        percentile(&lat, 0.5),
        percentile(&lat, 0.99),
        percentile(&lat, 1.0),
    );
    println!(
        "server memory: peak VmRSS {:.0} MiB (anonymous {:.0} MiB, file-backed {:.0} MiB), VmHWM {:.0} MiB; CPU {cpu:.0} s; {compressed} compressed table(s)",
        mib(peak[0]),
        mib(peak[1]),
        mib(peak[2]),
        mib(peak[3].max(hwm_before)),
    );
    let err = std::fs::read_to_string(err_file).unwrap_or_default();
    let _ = std::fs::remove_file(err_file);
    let panics = err.matches("panicked").count();
    println!(
        "SIGTERM: exited after {:.2} s with {:?}; panics in the server's stderr: {panics}",
        took.as_secs_f64(),
        status
    );
    assert_eq!(panics, 0, "the server panicked: {err}");
    assert!(
        status.is_some_and(|s| s.success()),
        "the server did not exit 0: {status:?}"
    );
    assert!(took < Duration::from_secs(10), "SIGTERM took {took:?}");
    assert_eq!(health_failures, 0, "/health went unanswered");
}

/// The stress run: starts the server, finds positions for the clients, puts it under the load
/// for `STRESS_SECS`, stops it with SIGTERM under that load, and reports.
pub fn run() {
    let secs = env_or("STRESS_SECS", 60);
    let counts = [
        env_or("STRESS_SINGLES", 100),
        env_or("STRESS_VALUES", 40),
        env_or("STRESS_BATCHES", 30),
        env_or("STRESS_STALLED", 20),
        env_or("STRESS_SLOW", 10),
    ];
    let table = PathBuf::from(std::env::var_os("STRESS_TABLE").expect("STRESS_TABLE=FILE"));
    let extra: Vec<String> = std::env::var("STRESS_SERVER_ARGS")
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let err_file = std::env::temp_dir().join(format!("serve-stress-{}.err", std::process::id()));
    let (mut server, addr, listed) = start_with_values(&table, &extra, &err_file);
    let pid = server.id();
    let main = &listed[0];
    let name = main["name"].as_str().unwrap().to_string();
    let valued = listed.iter().find(|t| t["game_values"] == true).cloned();
    let pool = Arc::new(positions(
        addr,
        &name,
        main["start"].as_str().unwrap(),
        5000,
    ));
    let value_pool = valued.as_ref().map(|t| {
        let n = t["name"].as_str().unwrap().to_string();
        let p = positions(addr, &n, t["start"].as_str().unwrap(), 2000);
        (n, Arc::new(p))
    });
    let compressed = listed.iter().filter(|t| t["encoding"] == "zstd").count();
    print_plan(&table, main, &value_pool, &counts, secs, &extra);

    let watchers = watch(pid, addr);
    let stop = Arc::new(AtomicBool::new(false));
    let tallies: Vec<Arc<Tally>> = (0..5).map(|_| Arc::new(Tally::default())).collect();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let batch_positions = env_or("STRESS_BATCH_POSITIONS", 20_000) as usize;
    let stalled_bytes = (env_or("STRESS_STALLED_MIB", 4) as usize) << 20;
    let load = Load {
        addr,
        counts,
        batch_request: batch_request(&name, &pool, batch_positions),
        stalled_request: stalled_request(&name, &pool, stalled_bytes),
        hold: Duration::from_secs(env_or("STRESS_STALL_HOLD_SECS", 15)),
        name,
        pool,
        value_pool,
    };
    runtime.block_on(run_clients(&load, &stop, &tallies, secs));

    let stopped = stop_under_load(&mut server, watchers, &tallies, &stop, runtime);
    report_clients(
        &stopped.during,
        &tallies,
        batch_positions,
        stalled_bytes,
        load.hold,
    );
    report_server(stopped, compressed, &err_file);
}
