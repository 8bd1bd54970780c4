//! `retrodb serve`: tables opened read-only and answered over HTTP — a JSON API
//! (`/api/v1/...`, [`api`]) and a web board at `/` whose page, script and style are compiled
//! into the binary ([`assets`]).
//!
//! The pieces: a [`Catalog`] opens the tables given at start, names each by its file stem and
//! serves the new file when one is renamed over a table (`catalog.rs`);
//! [`api::router`] answers requests from it, the web board's view of a position among them
//! (`board.rs`: the position as asked, its moves best first, who is to move or has won, and the
//! picture, in one answer); [`run`] and [`serve_on`] accept connections (hyper with a
//! header-read timeout, so a client that connects and sends nothing is dropped, and a write
//! timeout, `connection.rs`, so a client that stops reading is dropped too) and stop gracefully
//! on SIGINT or SIGTERM, cancelling what still runs after the grace period.
//!
//! The invariant: a request reaches a table only through a name that is a key of the catalog,
//! whose names and paths are fixed at start. Nothing a client sends is ever used as a path, and
//! nothing is written.

pub mod api;
pub mod assets;
mod board;
mod body;
mod catalog;
mod connection;
mod error;

use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;

use crate::base::budget::Cancel;
use crate::base::error::{Error, Result};
pub use catalog::{Catalog, Served};
use connection::ClientIo;
pub use error::ServeError;

/// What one request may ask, how long it may take, and how much of the machine the requests
/// together may hold (docs/SERVE.md, "Limits and memory").
#[derive(Clone, Debug)]
pub struct Limits {
    /// Longest position text, in bytes.
    pub max_position_bytes: usize,
    /// Largest batch body, in bytes (larger ones are answered 413).
    pub max_batch_bytes: usize,
    /// Time for a whole request, body included (408 after it); work still running for it is
    /// cancelled.
    pub request_timeout: Duration,
    /// Time for a client to send a request's headers, the first or the next on a kept-alive
    /// connection; the connection is closed after it.
    pub header_timeout: Duration,
    /// Time a client may take no data of an answer; the connection is closed after it (and
    /// the work producing the answer stops).
    pub write_timeout: Duration,
    /// Requests answered at once; more wait their turn.
    pub max_in_flight: usize,
    /// Threads for short lookups (a lookup that waits for the disk holds one).
    pub lookup_threads: usize,
    /// Positions the game values of one request may visit, all its values together (422
    /// `work_limit` beyond).
    pub max_value_positions: u64,
    /// Requests computing game values at once (each holds a memo of at most
    /// `max_value_positions` positions); more wait their turn.
    pub max_value_requests: usize,
    /// Bytes of batches held at once: each holds its body and a few MiB of its answer's
    /// buffers ([`api::BATCH_STREAM_BYTES`]) from before its body is read until its answer is
    /// written; more wait their turn.
    pub max_batch_memory: usize,
}

impl Limits {
    /// The limits as the server applies them, made once where they come in ([`api::router`];
    /// the command line has already refused its options outside their ranges): a count of zero
    /// (requests at once, value requests, lookup threads) is one, and the batch memory at least
    /// a KiB. Nothing after this checks them again.
    fn applied(self) -> Limits {
        Limits {
            max_in_flight: self.max_in_flight.max(1),
            max_value_requests: self.max_value_requests.max(1),
            lookup_threads: self.lookup_threads.max(1),
            max_batch_memory: self.max_batch_memory.max(1024),
            ..self
        }
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_position_bytes: 4096,
            max_batch_bytes: 64 << 20,
            request_timeout: Duration::from_secs(60),
            header_timeout: Duration::from_secs(10),
            write_timeout: Duration::from_secs(30),
            max_in_flight: 1024,
            lookup_threads: 16,
            max_value_positions: 3_000_000,
            max_value_requests: 4,
            max_batch_memory: 512 << 20,
        }
    }
}

/// Serves `catalog` on `addr` until SIGINT or SIGTERM, on a Tokio runtime of its own with
/// `threads` workers; `ready` is told the bound address (port 0 picks a free one) before the
/// first connection is accepted. Returns within [`STOP_WITHIN`] of the signal whatever is
/// running: lookups still running after the grace period are cancelled, and threads that are
/// still busy are not waited for (the process that called this is about to exit).
pub fn run(
    catalog: Catalog,
    addr: SocketAddr,
    limits: Limits,
    threads: usize,
    ready: impl FnOnce(SocketAddr),
) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads.max(1))
        .max_blocking_threads(BLOCKING_THREADS)
        .enable_all()
        .build()
        .map_err(|e| Error::io("the server's runtime", e))?;
    let served = runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| Error::io(format!("binding {addr}"), e))?;
        let local = listener
            .local_addr()
            .map_err(|e| Error::io(format!("binding {addr}"), e))?;
        let stop = shutdown_signal().map_err(|e| Error::io("installing signal handlers", e))?;
        ready(local);
        serve_on(listener, catalog, limits, stop).await;
        Ok(())
    });
    // Dropping the runtime would wait for every blocking thread, a lookup that ignores its
    // cancellation included; this waits a little, then leaves them to the process's exit.
    runtime.shutdown_timeout(RUNTIME_GRACE);
    served
}

/// Threads for game values and batches (Tokio's blocking pool; the value slots and the batch
/// memory bound how many work at once); short lookups have threads of their own
/// ([`Limits::lookup_threads`]).
const BLOCKING_THREADS: usize = 512;

/// After SIGINT or SIGTERM, open requests have this long to finish ...
const GRACE: Duration = Duration::from_secs(7);
/// ... then what still runs is cancelled, and its answers (503) have this long to go out ...
const CANCELLED_GRACE: Duration = Duration::from_secs(1);
/// ... and the runtime this long to stop its threads.
const RUNTIME_GRACE: Duration = Duration::from_millis(500);
/// The most a stop takes after the signal, as docs/SERVE.md promises (10 s).
pub const STOP_WITHIN: Duration = Duration::from_secs(10);
const _: () = assert!(
    GRACE.as_millis() + CANCELLED_GRACE.as_millis() + RUNTIME_GRACE.as_millis()
        < STOP_WITHIN.as_millis()
);

/// A future that resolves at the first SIGINT (Ctrl-C) or SIGTERM. The handlers are installed
/// by this call, not by the future's first poll, so a signal sent as soon as the server says it
/// listens stops it gracefully rather than killing it.
fn shutdown_signal() -> std::io::Result<impl Future<Output = ()>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut interrupt = signal(SignalKind::interrupt())?;
        let mut term = signal(SignalKind::terminate())?;
        Ok(async move {
            tokio::select! {
                _ = interrupt.recv() => {}
                _ = term.recv() => {}
            }
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
        })
    }
}

/// Accepts connections on `listener` and answers them from `catalog` until `shutdown`
/// resolves; then stops accepting, gives open requests a grace period (`GRACE`, 7 s) to finish, and cancels what
/// still runs.
pub async fn serve_on(
    listener: tokio::net::TcpListener,
    catalog: Catalog,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
) {
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true);
    let stopping = Cancel::new();
    let write_timeout = limits.write_timeout;
    let app = api::router(catalog, limits, stopping.clone());
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let stream = match accepted {
                    Ok((stream, _)) => stream,
                    Err(_) => {
                        // Out of file descriptors and the like: wait a little rather than spin.
                        tokio::time::sleep(Duration::from_millis(20)).await;
                        continue;
                    }
                };
                let _ = stream.set_nodelay(true);
                let conn = http.serve_connection(
                    TokioIo::new(ClientIo::new(stream, write_timeout)),
                    TowerToHyperService::new(app.clone()),
                );
                let conn = graceful.watch(conn);
                tokio::spawn(async move {
                    // A connection's errors (a client gone, a header or write timeout) end
                    // only it.
                    let _ = conn.await;
                });
            }
            _ = &mut shutdown => break,
        }
    }
    drop(listener);
    let finished = graceful.shutdown();
    tokio::pin!(finished);
    if tokio::time::timeout(GRACE, &mut finished).await.is_err() {
        // Lookups still running stop at their next check; their clients get 503.
        stopping.cancel();
        let _ = tokio::time::timeout(CANCELLED_GRACE, finished).await;
    }
}

#[cfg(test)]
mod tests {
    use super::Limits;

    #[test]
    fn limits_are_applied_with_counts_of_at_least_one() {
        let zero = Limits {
            max_in_flight: 0,
            max_value_requests: 0,
            lookup_threads: 0,
            max_batch_memory: 0,
            ..Limits::default()
        }
        .applied();
        assert_eq!(
            (
                zero.max_in_flight,
                zero.max_value_requests,
                zero.lookup_threads,
                zero.max_batch_memory
            ),
            (1, 1, 1, 1024)
        );
        let defaults = Limits::default().applied();
        assert_eq!(
            (defaults.max_in_flight, defaults.max_batch_memory),
            (1024, 512 << 20)
        );
    }
}
