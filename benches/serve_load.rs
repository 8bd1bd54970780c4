//! A bounded load test of `retrodb serve` on localhost: single-position lookups from 64
//! kept-alive connections for a fixed time (requests/s, p50/p99 latency), then the batch
//! endpoint (positions/s), on a compressed `hex:4` table.
//!
//! `cargo bench --bench serve_load` builds the table into `target/serve-load/` the first time
//! (`RETRODB_LOAD_TABLE=FILE` uses another `hex:4` table), starts the release binary on a free
//! port and stops it at the end. `SERVE_LOAD_SECS` (default 10) and `SERVE_LOAD_CONNS` (default
//! 64) change the single-lookup run; `SERVE_LOAD_SERVER_THREADS` gives the server's `--threads`. Every request goes to 127.0.0.1, and every loop ends by
//! count or by time.
//!
//! `cargo bench --bench serve_load -- stress` is another run, the server under 200 clients of
//! every kind, expensive and hostile ones among them ([`stress`]; `scripts/serve-stress.sh`).

#[path = "serve_load/clients.rs"]
mod clients;
#[path = "serve_load/stress.rs"]
mod stress;

use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;

const TABLE_NAME: &str = "hex4";

fn env_or(key: &str, default: u64) -> u64 {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Random positions of `hex:4` by random play from the empty board (some end after a win and
/// are refused by the server; they are filtered out before the run).
fn random_positions(n: usize, seed: u64) -> Vec<String> {
    let mut s = seed;
    let mut next = move || {
        s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    (0..n)
        .map(|_| {
            let mut cells = [b'.'; 16];
            let moves = (next() % 12) as usize;
            for k in 0..moves {
                let empty: Vec<usize> = (0..16).filter(|&i| cells[i] == b'.').collect();
                let i = empty[(next() % empty.len() as u64) as usize];
                cells[i] = if k % 2 == 0 { b'L' } else { b'R' };
            }
            String::from_utf8(cells.to_vec()).unwrap()
        })
        .collect()
}

type Sender = hyper::client::conn::http1::SendRequest<Full<Bytes>>;

async fn connect(addr: std::net::SocketAddr) -> Sender {
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.set_nodelay(true).unwrap();
    let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(conn);
    sender
}

async fn send(sender: &mut Sender, req: Request<Full<Bytes>>) -> (u16, Bytes) {
    sender.ready().await.unwrap();
    let res = sender.send_request(req).await.unwrap();
    let status = res.status().as_u16();
    let body = res.into_body().collect().await.unwrap().to_bytes();
    (status, body)
}

/// A minimal HTTP/1.1 client for the single-lookup run: one kept-alive connection, requests
/// written whole, responses read to their `content-length`. It does what a client must and
/// nothing more, so the machine's two cores go to the server as much as they can (hyper's
/// client took about 10 us a request here, half of what the server took).
struct Lean {
    stream: tokio::net::TcpStream,
    buf: Vec<u8>,
}

impl Lean {
    async fn connect(addr: std::net::SocketAddr) -> Lean {
        let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        stream.set_nodelay(true).unwrap();
        Lean {
            stream,
            buf: Vec::with_capacity(1 << 16),
        }
    }

    /// Sends `request` and reads the response: its status and body length.
    async fn exchange(&mut self, request: &[u8]) -> (u16, usize) {
        use tokio::io::AsyncWriteExt;
        self.stream.write_all(request).await.unwrap();
        self.buf.clear();
        loop {
            if let Some(end) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = std::str::from_utf8(&self.buf[..end]).expect("an ASCII head");
                let status: u16 = head
                    .get(9..12)
                    .and_then(|s| s.parse().ok())
                    .unwrap_or_else(|| panic!("no status in {head:?}"));
                let len: usize = head
                    .lines()
                    .find_map(|l| {
                        let (k, v) = l.split_once(':')?;
                        k.eq_ignore_ascii_case("content-length")
                            .then(|| v.trim().parse().ok())?
                    })
                    .unwrap_or_else(|| panic!("no content-length in {head:?}"));
                while self.buf.len() < end + 4 + len {
                    self.read_more().await;
                }
                assert_eq!(self.buf.len(), end + 4 + len, "one response a request");
                return (status, len);
            }
            self.read_more().await;
        }
    }

    async fn read_more(&mut self) {
        use tokio::io::AsyncReadExt;
        let at = self.buf.len();
        self.buf.resize(at + 16384, 0);
        let n = self.stream.read(&mut self.buf[at..]).await.unwrap();
        assert!(n > 0, "the server closed the connection");
        self.buf.truncate(at + n);
    }
}

fn post(addr: std::net::SocketAddr, target: &str, body: Bytes) -> Request<Full<Bytes>> {
    Request::post(target)
        .header("host", addr.to_string())
        .body(Full::new(body))
        .unwrap()
}

/// CPU seconds (user + system) a process has used so far, from `/proc/PID/stat`.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name (which ends at the last ')'): utime and stime are the 12th
    // and 13th.
    let rest = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<f64> = rest
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|x| x.parse().ok())
        .collect();
    // SAFETY: sysconf has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    f.iter().sum::<f64>() / ticks.max(1.0)
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let k = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[k] as f64 / 1000.0
}

/// The table to serve: `RETRODB_LOAD_TABLE`, or `target/serve-load/hex4.rdb`, built with `bin`
/// the first time.
fn find_or_build_table(bin: &str) -> PathBuf {
    match std::env::var_os("RETRODB_LOAD_TABLE") {
        Some(t) => PathBuf::from(t),
        None => {
            let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/serve-load");
            std::fs::create_dir_all(&dir).unwrap();
            let t = dir.join(format!("{TABLE_NAME}.rdb"));
            if !t.exists() {
                eprintln!("building {} (hex:4, compressed) ...", t.display());
                let ok = Command::new(bin)
                    .args(["build", "hex:4", "--compress", "--quiet", "-o"])
                    .arg(&t)
                    .status()
                    .unwrap()
                    .success();
                assert!(ok, "building hex:4 failed");
            }
            t
        }
    }
}

/// Starts `retrodb serve` on `table` on a free port of 127.0.0.1 and reads the address it
/// listens on from its first line of output.
fn start_server(bin: &str, table: &Path) -> (Child, SocketAddr) {
    let mut server = Command::new(bin)
        .arg("serve")
        .arg(table)
        .args(["--addr", "127.0.0.1:0", "--max-batch-mib", "256"])
        .args(
            std::env::var("SERVE_LOAD_SERVER_THREADS")
                .map(|n| vec!["--threads".to_string(), n])
                .unwrap_or_default(),
        )
        .stdout(Stdio::piped())
        .spawn()
        .expect("retrodb serve starts");
    let mut line = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr: SocketAddr = line
        .strip_prefix("listening on http://")
        .and_then(|r| r.split('/').next())
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("no address in {line:?}"));
    (server, addr)
}

/// The positions to look up: random ones, less those the table has not (random play can go
/// past a win), found with one batch request.
async fn choose_positions(addr: SocketAddr, name: &str) -> Vec<String> {
    let candidates = random_positions(200_000, 14);
    let mut c = connect(addr).await;
    let (status, body) = send(
        &mut c,
        post(
            addr,
            &format!("/api/v1/tables/{name}/batch?moves=false"),
            Bytes::from(candidates.join("\n")),
        ),
    )
    .await;
    assert_eq!(status, 200);
    let positions: Vec<String> = String::from_utf8_lossy(&body)
        .lines()
        .zip(&candidates)
        .filter(|(answer, _)| !answer.contains("\"error\""))
        .map(|(_, p)| p.clone())
        .collect();
    assert!(positions.len() > 100_000, "{} positions", positions.len());
    positions
}

/// One connection of a single-lookup phase: lookups one after another until `deadline`, the
/// `k`th of `conns` connections taking every `conns`th position. Its latencies (us) and errors.
async fn lookup_client(
    addr: SocketAddr,
    name: String,
    positions: Arc<Vec<String>>,
    k: usize,
    conns: usize,
    deadline: Instant,
) -> (Vec<u32>, u64) {
    let mut c = Lean::connect(addr).await;
    let mut lat = Vec::with_capacity(1 << 16);
    let mut errors = 0u64;
    let mut i = k * 7919;
    let mut request = Vec::new();
    while Instant::now() < deadline {
        let p = &positions[i % positions.len()];
        i += conns;
        request.clear();
        write!(
            request,
            "GET /api/v1/tables/{name}?position={p} HTTP/1.1\r\nhost: {addr}\r\n\r\n"
        )
        .unwrap();
        let t = Instant::now();
        let (status, body) = c.exchange(&request).await;
        lat.push(t.elapsed().as_micros().min(u32::MAX as u128) as u32);
        if status != 200 || body == 0 {
            errors += 1;
        }
    }
    (lat, errors)
}

/// A single-lookup phase: `conns` connections for `seconds`. Every latency (us, sorted), the
/// errors, and the seconds it took.
async fn single_phase(
    addr: SocketAddr,
    name: &str,
    positions: &Arc<Vec<String>>,
    conns: usize,
    seconds: u64,
) -> (Vec<u32>, u64, f64) {
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let started = Instant::now();
    let mut tasks = Vec::new();
    for k in 0..conns {
        let positions = Arc::clone(positions);
        let name = name.to_string();
        tasks.push(tokio::spawn(lookup_client(
            addr, name, positions, k, conns, deadline,
        )));
    }
    let mut all = Vec::new();
    let mut errors = 0;
    for t in tasks {
        let (lat, e) = t.await.unwrap();
        all.extend(lat);
        errors += e;
    }
    let elapsed = started.elapsed().as_secs_f64();
    all.sort_unstable();
    (all, errors, elapsed)
}

/// Prints the measured single-lookup phase: requests/s, latency percentiles, and the CPU time
/// the server and this client took since `cpu` (their CPU seconds when it began). Fails on any
/// error.
fn report_single(all: &[u32], errors: u64, elapsed: f64, cpu: (f64, f64), server_pid: u32) {
    println!(
        "single lookups: {} requests in {elapsed:.2} s = {:.0} requests/s; latency p50 {:.3} ms, p99 {:.3} ms, p99.9 {:.3} ms, max {:.3} ms; {errors} errors",
        all.len(),
        all.len() as f64 / elapsed,
        percentile(all, 0.50),
        percentile(all, 0.99),
        percentile(all, 0.999),
        percentile(all, 1.0),
    );
    let server_cpu = cpu_seconds(server_pid) - cpu.0;
    let client_cpu = cpu_seconds(std::process::id()) - cpu.1;
    let n = all.len() as f64;
    println!(
        "  CPU: server {:.1} us a request ({server_cpu:.2} s), this client {:.1} us a request ({client_cpu:.2} s); {:.0} requests/s if both had the 2 cores to themselves",
        server_cpu / n * 1e6,
        client_cpu / n * 1e6,
        2.0 * n / (server_cpu + client_cpu)
    );
    assert_eq!(errors, 0, "some lookups failed");
}

/// A batch phase: `rounds` batch requests of `n` positions (`query` on the target), each on a
/// fresh connection; prints the best and mean positions/s.
async fn batch_phase(
    addr: SocketAddr,
    name: &str,
    positions: &[String],
    (what, query, n, rounds): (&str, &str, usize, i32),
) {
    let body: Vec<&str> = positions
        .iter()
        .cycle()
        .take(n)
        .map(|s| s.as_str())
        .collect();
    let body = Bytes::from(body.join("\n"));
    let mut best = f64::MAX;
    let mut total = 0.0;
    for _ in 0..rounds {
        let mut c = connect(addr).await;
        let t = Instant::now();
        let (status, answer) = send(
            &mut c,
            post(
                addr,
                &format!("/api/v1/tables/{name}/batch{query}"),
                body.clone(),
            ),
        )
        .await;
        let e = t.elapsed().as_secs_f64();
        assert_eq!(status, 200);
        let lines = answer.iter().filter(|&&b| b == b'\n').count();
        assert_eq!(lines, n, "one answer a position");
        best = best.min(e);
        total += e;
    }
    println!(
        "{what}: {n} positions a request, {rounds} requests: best {:.0} positions/s ({best:.3} s), mean {:.0} positions/s",
        n as f64 / best,
        n as f64 * rounds as f64 / total
    );
}

/// Stops the server with SIGTERM and fails unless it exits cleanly.
fn stop_server(mut server: Child) {
    // SAFETY: a signal to our own child process.
    unsafe { libc::kill(server.id() as i32, libc::SIGTERM) };
    let status = server.wait().unwrap();
    assert!(
        status.success(),
        "the server did not stop cleanly: {status:?}"
    );
}

fn main() {
    // `cargo bench` passes `--bench`; the one argument of this program's own is `stress`.
    if std::env::args().skip(1).any(|a| a == "stress") {
        return stress::run();
    }
    let secs = env_or("SERVE_LOAD_SECS", 10);
    let conns = env_or("SERVE_LOAD_CONNS", 64) as usize;
    let bin = env!("CARGO_BIN_EXE_retrodb");
    let table = find_or_build_table(bin);
    let (server, addr) = start_server(bin, &table);
    let name = table.file_stem().unwrap().to_str().unwrap().to_string();
    let server_pid = server.id();

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let positions = Arc::new(choose_positions(addr, &name).await);
        println!(
            "serve_load: {} ({}), {} distinct positions, {conns} connections, {secs} s",
            table.display(),
            name,
            positions.len()
        );

        // Single lookups: a short warm-up, then the measured run.
        for (phase, seconds) in [("warm-up", 1), ("single", secs)] {
            let cpu = (cpu_seconds(server_pid), cpu_seconds(std::process::id()));
            let (all, errors, elapsed) =
                single_phase(addr, &name, &positions, conns, seconds).await;
            if phase == "single" {
                report_single(&all, errors, elapsed, cpu, server_pid);
            }
        }

        // Batches: values only (1M positions a request) and full probes (100k a request).
        for phase in [
            ("batch, values only", "?moves=false", 1_000_000usize, 3),
            ("batch, with every move", "", 100_000, 3),
        ] {
            batch_phase(addr, &name, &positions, phase).await;
        }
    });
    stop_server(server);
}
