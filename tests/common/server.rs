//! A `retrodb serve` process for the tests: started on a free local port, stopped with SIGTERM
//! when dropped; and a plain HTTP/1.1 client over `TcpStream` that can send any bytes.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

pub struct Server {
    pub child: Child,
    pub addr: SocketAddr,
}

impl Server {
    /// Runs `retrodb serve ARGS --addr 127.0.0.1:0` and waits for its "listening on" line.
    pub fn start(args: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_retrodb"))
            .arg("serve")
            .args(args)
            .args(["--addr", "127.0.0.1:0"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("retrodb serve starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line
            .strip_prefix("listening on http://")
            .and_then(|r| r.split('/').next())
            .unwrap_or_else(|| {
                let mut err = String::new();
                let _ = child.stderr.take().unwrap().read_to_string(&mut err);
                panic!("no address from retrodb serve: {line:?} {err}")
            })
            .parse()
            .unwrap();
        Server { child, addr }
    }

    pub fn url(&self, target: &str) -> String {
        format!("http://{}{target}", self.addr)
    }

    pub fn get(&self, target: &str) -> Response {
        request(self.addr, "GET", target, &[])
    }

    pub fn post(&self, target: &str, body: &[u8]) -> Response {
        request(self.addr, "POST", target, body)
    }

    /// SIGTERM, then the exit status (the server shuts down gracefully).
    pub fn stop(&mut self) -> std::process::ExitStatus {
        // SAFETY: sending a signal to our own child process.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        self.child.wait().unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            self.stop();
        }
    }
}

pub struct Response {
    pub status: u16,
    pub headers: String,
    pub body: Vec<u8>,
}

impl Response {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }

    /// The JSON error's code, after checking the shape `{error, detail}`.
    pub fn error(&self) -> String {
        let j = self.json();
        assert!(
            j["detail"].as_str().is_some_and(|d| !d.is_empty()),
            "no detail: {j}"
        );
        assert!(
            self.headers
                .to_ascii_lowercase()
                .contains("content-type: application/json"),
            "{}",
            self.headers
        );
        j["error"].as_str().expect("an error code").to_string()
    }
}

/// One request on a fresh connection (`Connection: close`); `target` is sent as it is.
pub fn request(addr: SocketAddr, method: &str, target: &str, body: &[u8]) -> Response {
    let mut head = format!(
        "{method} {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    head.extend_from_slice(body);
    raw(addr, &head)
}

/// Sends `bytes` and reads the whole answer.
pub fn raw(addr: SocketAddr, bytes: &[u8]) -> Response {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    // The server may answer (413) before reading everything: a failed write is not an error.
    let _ = s.write_all(bytes);
    let mut all = Vec::new();
    let _ = s.read_to_end(&mut all);
    parse(&all)
}

fn parse(all: &[u8]) -> Response {
    let split = all
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no response head in {:?}", String::from_utf8_lossy(all)));
    let headers = String::from_utf8_lossy(&all[..split]).into_owned();
    let status = headers
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    let mut body = all[split + 4..].to_vec();
    if headers
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        let mut out = Vec::new();
        let mut at = 0;
        loop {
            let end = at + body[at..].windows(2).position(|w| w == b"\r\n").unwrap();
            let len =
                usize::from_str_radix(std::str::from_utf8(&body[at..end]).unwrap(), 16).unwrap();
            if len == 0 {
                break;
            }
            out.extend_from_slice(&body[end + 2..end + 2 + len]);
            at = end + 2 + len + 2;
        }
        body = out;
    }
    Response {
        status,
        headers,
        body,
    }
}

/// `text` percent-encoded for a query or a path segment.
pub fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
