//! A client's connection as the server writes to it ([`ClientIo`], a TCP stream under hyper):
//! a client that takes no data of an answer for the write timeout is cut off, and the bare
//! error answers the HTTP layer makes by itself are sent as the API's JSON errors.
//!
//! Why here: hyper has a timeout for reading a request's headers but none for writing, so a
//! client that stops reading a streamed batch answer would keep the connection, the answer's
//! buffers and the worker producing it for as long as it keeps its socket open; and hyper
//! answers a request line it cannot parse (a URI over 64 KiB, raw bytes, headers over its
//! buffer) with a bare status and no body, before any handler sees the request. The
//! invariant: the bytes the client receives are hyper's, except an answer hyper made alone,
//! which is replaced whole (head and body) by its JSON form with the same status.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::Sleep;

/// A TCP stream with a write timeout and JSON for the HTTP layer's own error answers.
pub(super) struct ClientIo {
    stream: TcpStream,
    write_timeout: Duration,
    /// Armed when a write could not proceed; reset by every write that does.
    stalled_since: Option<Pin<Box<Sleep>>>,
    /// A replacement answer being written: its bytes, how many went out, and how many bytes
    /// of hyper's own answer it stands for (reported written once it is all out).
    replacing: Option<(Vec<u8>, usize, usize)>,
}

impl ClientIo {
    pub(super) fn new(stream: TcpStream, write_timeout: Duration) -> ClientIo {
        ClientIo {
            stream,
            write_timeout,
            stalled_since: None,
            replacing: None,
        }
    }

    /// A write that could not proceed: pending until the timeout, then the error that ends
    /// the connection (hyper drops it, and with it the answer and its producer).
    fn stalled<T>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        let timeout = self.write_timeout;
        let sleep = self
            .stalled_since
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        match sleep.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "the client took no data for {} s (--write-timeout)",
                    timeout.as_secs()
                ),
            ))),
            Poll::Pending => Poll::Pending,
        }
    }

    /// Writes what remains of a replacement answer; `Ok(n)` (hyper's bytes it stands for)
    /// once it is all out.
    fn poll_replacement(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        loop {
            let (bytes, sent, stands_for) = self.replacing.as_mut().expect("a replacement");
            if *sent == bytes.len() {
                let n = *stands_for;
                self.replacing = None;
                return Poll::Ready(Ok(n));
            }
            match Pin::new(&mut self.stream).poll_write(cx, &bytes[*sent..]) {
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(n)) => {
                    *sent += n;
                    self.stalled_since = None;
                }
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return self.stalled(cx),
            }
        }
    }
}

/// hyper's own answer to a request it could not parse (`HTTP/1.1 414 URI Too Long`, `400`,
/// `431`): a head with `content-length: 0` and no content type, which no handler of the API
/// ever writes (every error of theirs has a JSON body). Its JSON replacement and the length of
/// the head it replaces.
fn replacement(buf: &[u8]) -> Option<(Vec<u8>, usize)> {
    let rest = buf.strip_prefix(b"HTTP/1.1 4")?;
    let end = buf.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    let head = std::str::from_utf8(&buf[..end]).ok()?.to_ascii_lowercase();
    if !head.contains("\r\ncontent-length: 0\r\n") || head.contains("\r\ncontent-type:") {
        return None;
    }
    let status: u16 = std::str::from_utf8(rest.get(..2)?).ok()?.parse().ok()?;
    let (status, code, reason, detail) = match status + 400 {
        414 => (
            414,
            "uri_too_long",
            "URI Too Long",
            "the request's path and query are longer than 65,534 bytes; send many positions as a batch (POST .../batch)",
        ),
        431 => (
            431,
            "headers_too_large",
            "Request Header Fields Too Large",
            "the request's headers are larger than the server reads (send position texts in the query or a batch body)",
        ),
        400 => (
            400,
            "bad_request",
            "Bad Request",
            "the request line or a header is not HTTP/1.1 (raw bytes that are not ASCII, a malformed method, path or header)",
        ),
        _ => return None,
    };
    let body = serde_json::json!({ "error": code, "detail": detail }).to_string();
    let answer = format!(
        "HTTP/1.1 {status} {reason}\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    Some((answer.into_bytes(), end))
}

impl AsyncRead for ClientIo {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for ClientIo {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        if this.replacing.is_none()
            && let Some((answer, stands_for)) = replacement(buf)
        {
            this.replacing = Some((answer, 0, stands_for));
        }
        if this.replacing.is_some() {
            return this.poll_replacement(cx);
        }
        match Pin::new(&mut this.stream).poll_write(cx, buf) {
            Poll::Pending => this.stalled(cx),
            done => {
                this.stalled_since = None;
                done
            }
        }
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        // hyper's own answers are a head alone, written first (behind a pipelined answer too:
        // hyper has flushed that one before it reads the next request).
        if this.replacing.is_some() || bufs.first().and_then(|b| replacement(b)).is_some() {
            return Pin::new(this).poll_write(cx, bufs.first().expect("a first slice"));
        }
        match Pin::new(&mut this.stream).poll_write_vectored(cx, bufs) {
            Poll::Pending => this.stalled(cx),
            done => {
                this.stalled_since = None;
                done
            }
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::replacement;

    #[test]
    fn only_hyper_s_bare_answers_are_replaced() {
        let bare = b"HTTP/1.1 414 URI Too Long\r\nconnection: close\r\ncontent-length: 0\r\ndate: Fri, 27 Nov 2026 20:17:25 GMT\r\n\r\n";
        let (answer, n) = replacement(bare).expect("replaced");
        assert_eq!(n, bare.len());
        let answer = String::from_utf8(answer).unwrap();
        assert!(
            answer.starts_with("HTTP/1.1 414 URI Too Long\r\n"),
            "{answer}"
        );
        let body = answer.split("\r\n\r\n").nth(1).unwrap();
        let j: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(j["error"], "uri_too_long");
        let bad = b"HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n";
        assert!(replacement(bad).is_some());
        // The API's own answers (a JSON body), successes, and bodies are left alone.
        let ours = b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: 0\r\n\r\n";
        assert!(replacement(ours).is_none());
        assert!(replacement(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n").is_none());
        assert!(replacement(b"{\"position\":\"4\"}\n").is_none());
        assert!(replacement(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n").is_none());
    }
}
