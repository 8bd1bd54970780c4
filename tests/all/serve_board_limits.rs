//! The web board's routes under the server's limits, as the API's routes are (issue 45): its
//! view (`/api/v1/tables/{name}/board`), its page and its assets refuse a body over the limit
//! with the API's JSON `too_large`; the view's game values take the value slots the probes
//! take; and a request beyond the in-flight limit waits for a slot, whichever route it asks or
//! holds the slot. The view's timeout and its cap on the positions its values visit are in
//! `serve_limits.rs` (`the_board_route_times_out_and_its_work_stops`,
//! `game_values_beyond_the_request_cap_are_refused_naming_it`).
//!
//! Waiting is read from when the answers come: a request that waits for a slot held by a
//! request that runs into its timeout is answered no sooner than that timeout, where it alone
//! takes milliseconds. The in-flight limit is not an option of the command line, so its test
//! serves in this process ([`retrodb::apps::serve::serve_on`]), on a runtime whose threads are named
//! so that its work can be told from the other tests' in `/proc/self/task`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use retrodb::apps::serve::{Catalog, Limits, serve_on};

use super::serve_limits::{G16_EMPTY, busy_within, serve, table, within};
use crate::common::server::{Response, raw, request};

/// A board with three cells left: its value is found in a moment.
const G16_LATE: &str = "LRLRLRLRLRLRL...";

/// `GET target` with a declared body of `bytes` that is never sent (the limit refuses it by its
/// declared length).
fn get_declaring(addr: SocketAddr, target: &str, bytes: usize) -> Response {
    raw(
        addr,
        format!(
            "GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: {bytes}\r\n\r\n"
        )
        .as_bytes(),
    )
}

/// A body over `--max-batch-mib` is refused on the board's routes as on the API's: 413
/// `too_large`, in JSON; a small one is let through (a GET's body is not read).
#[test]
fn the_board_s_routes_refuse_a_body_over_the_limit_like_the_api() {
    let server = serve("seed001", &["--max-batch-mib", "1"]);
    for target in [
        "/api/v1/tables/seed001/board?position=4",
        "/",
        "/assets/board.js",
        "/assets/board.css",
        "/api/v1/tables/seed001/picture?position=4",
        "/api/v1/tables/seed001?position=4",
    ] {
        let r = get_declaring(server.addr, target, 2 << 20);
        assert_eq!(r.status, 413, "{target}: {}", r.text());
        assert_eq!(r.error(), "too_large", "{target}");
        let r = request(server.addr, "GET", target, b"0123456789");
        assert_eq!(r.status, 200, "{target}: {}", r.text());
    }
}

/// The board's game values and the probe's take the same value slots: with one slot, a view
/// asking values waits while a probe's values run, and a probe waits while a view's run, each
/// until the other's timeout gives the slot back (then it is answered).
#[test]
fn the_board_s_values_take_the_probes_value_slots() {
    let timeout = Duration::from_secs(4);
    let server = serve(
        "g16",
        &[
            "--request-timeout",
            "4",
            "--max-value-requests",
            "1",
            "--max-value-positions",
            "1000000000",
        ],
    );
    let (addr, pid) = (server.addr, server.child.id());
    let probe = |position: &str| format!("/api/v1/tables/g16?position={position}&value=true");
    let board = |position: &str| format!("/api/v1/tables/g16/board?position={position}&value=true");
    for (holder, waiter) in [
        (probe(G16_EMPTY), board(G16_LATE)),
        (board(G16_EMPTY), probe(G16_LATE)),
    ] {
        let started = Instant::now();
        let held = std::thread::spawn(move || request(addr, "GET", &holder, &[]));
        assert!(
            busy_within(pid, Duration::from_secs(30)),
            "the holder's values never started"
        );
        // Well after the holder took the slot, so the waiter's own timeout ends later than
        // the holder's.
        std::thread::sleep(Duration::from_secs(1));
        let r = request(addr, "GET", &waiter, &[]);
        let answered = started.elapsed();
        assert_eq!(r.status, 200, "{waiter}: {}", r.text());
        assert!(r.json()["game_value"].is_string(), "{}", r.text());
        assert!(
            answered >= timeout - Duration::from_millis(500),
            "{waiter} was answered after {answered:?}, while the holder's values ran"
        );
        let r = held.join().unwrap();
        assert_eq!(r.status, 408, "{}", r.text());
        assert_eq!(r.error(), "timeout");
    }
}

/// A server in this process (the in-flight limit is not an option of the command line) over
/// seed001 and g16, stopped when dropped; its runtime's threads are named `threads`.
struct InProcess {
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl InProcess {
    fn start(limits: Limits, threads: &'static str) -> InProcess {
        let paths = [PathBuf::from(table("seed001")), PathBuf::from(table("g16"))];
        let catalog = Catalog::open(&paths, true).unwrap();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name(threads)
            .enable_all()
            .build()
            .unwrap();
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            runtime.block_on(serve_on(listener, catalog, limits, async {
                let _ = stopped.await;
            }));
            runtime.shutdown_timeout(Duration::from_secs(1));
        });
        InProcess {
            addr,
            stop: Some(stop),
            thread: Some(thread),
        }
    }
}

impl Drop for InProcess {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Threads of this process named `name` that are running (state `R`).
fn running_threads_named(name: &str) -> usize {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0;
    };
    tasks
        .filter_map(|t| {
            let dir = t.ok()?.path();
            let comm = std::fs::read_to_string(dir.join("comm")).ok()?;
            let stat = std::fs::read_to_string(dir.join("stat")).ok()?;
            Some((comm, stat))
        })
        .filter(|(comm, stat)| {
            comm.trim_end() == name
                && stat
                    .rsplit_once(')')
                    .is_some_and(|(_, rest)| rest.trim_start().starts_with('R'))
        })
        .count()
}

/// With one request in flight at a time, the board's view, its page and a probe wait while a
/// view computes values, and the view waits while a probe does, each answered once the
/// holder's timeout has ended it, as every route of the API waits.
#[test]
fn requests_beyond_the_in_flight_limit_wait_on_the_board_s_routes_too() {
    const THREADS: &str = "inflight-board";
    let timeout = Duration::from_secs(4);
    let server = InProcess::start(
        Limits {
            max_in_flight: 1,
            request_timeout: timeout,
            max_value_positions: 1_000_000_000,
            ..Limits::default()
        },
        THREADS,
    );
    let addr = server.addr;
    let busy = || {
        let mut busy = 0;
        within(Duration::from_secs(30), || {
            busy = if running_threads_named(THREADS) > 0 {
                busy + 1
            } else {
                0
            };
            busy >= 3
        })
    };
    let probe_values = format!("/api/v1/tables/g16?position={G16_EMPTY}&value=true");
    let board_values = "/api/v1/tables/g16/board?value=true".to_string();
    for (holder, waiters) in [
        (
            board_values,
            &[
                "/api/v1/tables/seed001/board?position=4",
                "/",
                "/assets/board.js",
                "/api/v1/tables/seed001?position=4",
            ][..],
        ),
        (
            probe_values,
            &["/api/v1/tables/seed001/board?position=4"][..],
        ),
    ] {
        let started = Instant::now();
        let held = std::thread::spawn(move || request(addr, "GET", &holder, &[]));
        assert!(busy(), "the holder's values never started");
        std::thread::sleep(Duration::from_secs(1));
        let waiting: Vec<_> = waiters
            .iter()
            .map(|&target| {
                std::thread::spawn(move || (request(addr, "GET", target, &[]), started.elapsed()))
            })
            .collect();
        for (w, target) in waiting.into_iter().zip(waiters) {
            let (r, answered) = w.join().unwrap();
            assert_eq!(r.status, 200, "{target}: {}", r.text());
            assert!(
                answered >= timeout - Duration::from_millis(500),
                "{target} was answered after {answered:?}, while the one request in flight ran"
            );
        }
        let r = held.join().unwrap();
        assert_eq!(r.status, 408, "{}", r.text());
        assert_eq!(r.error(), "timeout");
    }
}
