//! The clients of the stress run ([`super::stress`]), each a loop on 127.0.0.1 until told to
//! stop: a requester (lookups or batches on a kept-alive connection, its answers read whole), a
//! stalled reader (a batch whose answer it does not read for a while), a client that sends its
//! headers a line a second; and what each saw ([`Tally`], [`Counts`]).

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// What each kind of client saw: answers by status, and its other outcomes.
#[derive(Default)]
pub struct Tally {
    by_status: Mutex<std::collections::BTreeMap<u16, u64>>,
    /// Connections that failed (refused, reset) before an answer.
    failed: AtomicU64,
    /// Batches: positions answered; stalled readers: answers cut by the server; slow
    /// headers: connections the server closed.
    units: AtomicU64,
    /// Stalled readers: answers that were complete (not cut).
    complete: AtomicU64,
}

/// A tally's figures at one moment.
#[derive(Clone, Default)]
pub struct Counts {
    pub by_status: std::collections::BTreeMap<u16, u64>,
    pub failed: u64,
    pub units: u64,
    pub complete: u64,
}

impl Tally {
    fn status(&self, s: u16) {
        *self.by_status.lock().unwrap().entry(s).or_default() += 1;
    }

    pub fn counts(&self) -> Counts {
        Counts {
            by_status: self.by_status.lock().unwrap().clone(),
            failed: self.failed.load(Relaxed),
            units: self.units.load(Relaxed),
            complete: self.complete.load(Relaxed),
        }
    }
}

impl Counts {
    pub fn statuses(&self) -> String {
        if self.by_status.is_empty() {
            return "no answer".into();
        }
        self.by_status
            .iter()
            .map(|(s, n)| format!("{n} x {s}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// What came after `before`.
    pub fn since(&self, before: &Counts) -> Counts {
        let mut by_status = self.by_status.clone();
        for (s, n) in &before.by_status {
            *by_status.entry(*s).or_default() -= n;
        }
        by_status.retain(|_, n| *n > 0);
        Counts {
            by_status,
            failed: self.failed - before.failed,
            units: self.units - before.units,
            complete: self.complete - before.complete,
        }
    }
}

/// One answer read off a kept-alive connection: the status, and the body's newlines.
async fn answer(
    stream: &mut tokio::net::TcpStream,
    buf: &mut Vec<u8>,
) -> std::io::Result<(u16, u64)> {
    buf.clear();
    let eof = || std::io::Error::from(std::io::ErrorKind::UnexpectedEof);
    let end = loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break end;
        }
        if read_more(stream, buf).await? == 0 {
            return Err(eof());
        }
    };
    let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
    let status: u16 = head
        .get(9..12)
        .and_then(|s| s.parse().ok())
        .ok_or_else(eof)?;
    let mut body: Vec<u8> = buf.split_off(end + 4);
    let length = head.lines().find_map(|l| {
        l.strip_prefix("content-length:")
            .and_then(|v| v.trim().parse::<usize>().ok())
    });
    if let Some(length) = length {
        while body.len() < length {
            if read_more(stream, &mut body).await? == 0 {
                return Err(eof());
            }
        }
        return Ok((status, body.iter().filter(|&&b| b == b'\n').count() as u64));
    }
    // Chunked: each chunk's size line, its bytes, until the chunk of size 0.
    let mut lines = 0u64;
    loop {
        let at = loop {
            if let Some(at) = body.windows(2).position(|w| w == b"\r\n") {
                break at;
            }
            if read_more(stream, &mut body).await? == 0 {
                return Err(eof());
            }
        };
        let size =
            usize::from_str_radix(std::str::from_utf8(&body[..at]).unwrap_or("x").trim(), 16)
                .map_err(|_| eof())?;
        while body.len() < at + 2 + size + 2 {
            if read_more(stream, &mut body).await? == 0 {
                return Err(eof());
            }
        }
        lines += body[at + 2..at + 2 + size]
            .iter()
            .filter(|&&b| b == b'\n')
            .count() as u64;
        body.drain(..at + 2 + size + 2);
        if size == 0 {
            return Ok((status, lines));
        }
    }
}

async fn read_more(
    stream: &mut tokio::net::TcpStream,
    buf: &mut Vec<u8>,
) -> std::io::Result<usize> {
    let at = buf.len();
    buf.resize(at + 65536, 0);
    let n = stream.read(&mut buf[at..]).await;
    buf.truncate(at + *n.as_ref().unwrap_or(&0));
    n
}

/// A client that sends `requests()` one after the other on a kept-alive connection
/// (reconnecting after an error) until `stop`.
pub async fn requester(
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    tally: Arc<Tally>,
    mut request: impl FnMut() -> Vec<u8>,
) {
    let mut buf = Vec::new();
    while !stop.load(Relaxed) {
        let Ok(mut s) = tokio::net::TcpStream::connect(addr).await else {
            tally.failed.fetch_add(1, Relaxed);
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        let _ = s.set_nodelay(true);
        while !stop.load(Relaxed) {
            if s.write_all(&request()).await.is_err() {
                tally.failed.fetch_add(1, Relaxed);
                break;
            }
            match answer(&mut s, &mut buf).await {
                Ok((status, lines)) => {
                    tally.status(status);
                    tally.units.fetch_add(lines, Relaxed);
                }
                Err(_) => {
                    tally.failed.fetch_add(1, Relaxed);
                    break;
                }
            }
        }
    }
}

/// A client that posts a batch, never reads its answer for `hold`, then reads what is there:
/// an answer cut by the server (no end of its chunks) or a complete one.
pub async fn stalled(
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    tally: Arc<Tally>,
    request: Arc<Vec<u8>>,
    hold: Duration,
) {
    while !stop.load(Relaxed) {
        let Ok(mut s) = tokio::net::TcpStream::connect(addr).await else {
            tally.failed.fetch_add(1, Relaxed);
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        if s.write_all(&request).await.is_err() {
            tally.failed.fetch_add(1, Relaxed);
            continue;
        }
        let until = Instant::now() + hold;
        while Instant::now() < until && !stop.load(Relaxed) {
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        if stop.load(Relaxed) {
            return;
        }
        // Read it all now: the last bytes say whether the answer was whole.
        let mut tail = Vec::new();
        let mut buf = vec![0u8; 1 << 16];
        let read = tokio::time::timeout(Duration::from_secs(120), async {
            loop {
                match s.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        tail.extend_from_slice(&buf[..n]);
                        let keep = tail.len().saturating_sub(16);
                        tail.drain(..keep);
                    }
                }
            }
        })
        .await;
        if read.is_ok() && tail.ends_with(b"\r\n0\r\n\r\n") {
            tally.complete.fetch_add(1, Relaxed);
        } else {
            tally.units.fetch_add(1, Relaxed);
        }
    }
}

/// A client that sends a request's headers a line a second, until the server closes.
pub async fn slow_headers(addr: SocketAddr, stop: Arc<AtomicBool>, tally: Arc<Tally>) {
    while !stop.load(Relaxed) {
        let Ok(mut s) = tokio::net::TcpStream::connect(addr).await else {
            tally.failed.fetch_add(1, Relaxed);
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        let _ = s.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n").await;
        let mut buf = [0u8; 1024];
        loop {
            tokio::select! {
                r = s.read(&mut buf) => {
                    if matches!(r, Ok(0) | Err(_)) {
                        tally.units.fetch_add(1, Relaxed);
                    }
                    break;
                }
                _ = tokio::time::sleep(Duration::from_secs(1)) => {
                    if stop.load(Relaxed) {
                        return;
                    }
                    if s.write_all(b"X-Slow: 1\r\n").await.is_err() {
                        tally.units.fetch_add(1, Relaxed);
                        break;
                    }
                }
            }
        }
    }
}
