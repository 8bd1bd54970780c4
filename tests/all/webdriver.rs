//! The few WebDriver commands the browser test uses (W3C WebDriver, as chromedriver speaks it),
//! over a plain blocking HTTP/1.1 connection per command (chromedriver refuses HTTP/1.0): a session, navigation, finding
//! elements by CSS, reading their attributes, properties and text, clicking, a screenshot.
//!
//! A client crate would do the same, but the usual ones bring a URL parser with Unicode tables,
//! cookies and a time library: about a third of what `cargo test` compiled on a fresh clone,
//! for one test (docs/BENCHMARKS.md, "Building the tests").

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::{Value as Json, json};

/// The key under which WebDriver returns an element's reference.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// A failed command: the driver's error and message, or what went wrong on the way.
#[derive(Debug)]
pub struct Error(String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

pub type Result<T> = std::result::Result<T, Error>;

/// A CSS selector, the one locator the test uses.
pub enum Locator<'a> {
    Css(&'a str),
}

impl Locator<'_> {
    fn body(&self) -> Json {
        match self {
            Locator::Css(css) => json!({"using": "css selector", "value": css}),
        }
    }
}

/// A browser session.
#[derive(Clone)]
pub struct Client {
    addr: String,
    session: String,
}

/// An element of the page.
pub struct Element {
    client: Client,
    id: String,
}

/// The page's address, as the browser reports it.
pub struct Url(String);

impl Url {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn query(&self) -> Option<&str> {
        let q = self.0.split_once('?')?.1;
        Some(q.split_once('#').map_or(q, |(q, _)| q))
    }

    /// The query's `key=value` pairs, percent-decoded (`+` is a space).
    pub fn query_pairs(&self) -> std::vec::IntoIter<(String, String)> {
        let Some(q) = self.query() else {
            return Vec::new().into_iter();
        };
        q.split('&')
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (k, v) = p.split_once('=').unwrap_or((p, ""));
                (decode(k), decode(v))
            })
            .collect::<Vec<_>>()
            .into_iter()
    }
}

impl std::fmt::Display for Url {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => match std::str::from_utf8(&b[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                Some(v) => {
                    out.push(v);
                    i += 2;
                }
                None => out.push(b'%'),
            },
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// One HTTP request to the driver; the answer's `value`, or the driver's error.
fn request(addr: &str, method: &str, path: &str, body: Option<&Json>) -> Result<Json> {
    let fail =
        |what: &str, e: &dyn std::fmt::Display| Error(format!("{method} {path}: {what}: {e}"));
    let mut s = TcpStream::connect(addr).map_err(|e| fail("connect", &e))?;
    s.set_read_timeout(Some(Duration::from_secs(60)))
        .map_err(|e| fail("timeout", &e))?;
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes())
        .and_then(|_| s.write_all(body.as_bytes()))
        .map_err(|e| fail("send", &e))?;
    // Read the head, then the body by its length (or its chunks, or to the end).
    let mut raw = Vec::new();
    let mut buf = [0u8; 16384];
    let split = loop {
        if let Some(i) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = s.read(&mut buf).map_err(|e| fail("read", &e))?;
        if n == 0 {
            return Err(fail("answer", &"closed before the header's end"));
        }
        raw.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
    let mut payload = raw[split + 4..].to_vec();
    let length = head.lines().find_map(|l| {
        let v = l.strip_prefix("content-length:")?;
        v.trim().parse::<usize>().ok()
    });
    match length {
        Some(len) => {
            while payload.len() < len {
                let n = s.read(&mut buf).map_err(|e| fail("read", &e))?;
                if n == 0 {
                    return Err(fail("answer", &"closed inside the body"));
                }
                payload.extend_from_slice(&buf[..n]);
            }
            payload.truncate(len);
        }
        None => {
            s.read_to_end(&mut payload).map_err(|e| fail("read", &e))?;
            if head.contains("transfer-encoding: chunked") {
                payload = dechunk(&payload).ok_or_else(|| fail("answer", &"bad chunks"))?;
            }
        }
    }
    let status: u16 = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| fail("answer", &"no status"))?;
    let json: Json = serde_json::from_slice(&payload).map_err(|e| fail("json", &e))?;
    let value = json.get("value").cloned().unwrap_or(Json::Null);
    if status != 200 {
        return Err(Error(format!(
            "{method} {path}: {status} {}: {}",
            value["error"].as_str().unwrap_or("?"),
            value["message"].as_str().unwrap_or("")
        )));
    }
    Ok(value)
}

fn dechunk(mut b: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let eol = b.windows(2).position(|w| w == b"\r\n")?;
        let size = std::str::from_utf8(&b[..eol]).ok()?;
        let size = usize::from_str_radix(size.split(';').next()?.trim(), 16).ok()?;
        b = &b[eol + 2..];
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(b.get(..size)?);
        b = b.get(size + 2..)?;
    }
}

fn element_id(v: &Json) -> Result<String> {
    v[ELEMENT]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| Error(format!("not an element: {v}")))
}

impl Client {
    /// A new session on the driver at `addr` (`127.0.0.1:PORT`) with these capabilities.
    pub fn connect(addr: &str, capabilities: &Json) -> Result<Client> {
        let v = request(
            addr,
            "POST",
            "/session",
            Some(&json!({"capabilities": {"alwaysMatch": capabilities}})),
        )?;
        let session = v["sessionId"]
            .as_str()
            .ok_or_else(|| Error(format!("no session in {v}")))?
            .to_string();
        Ok(Client {
            addr: addr.to_string(),
            session,
        })
    }

    fn cmd(&self, method: &str, path: &str, body: Option<Json>) -> Result<Json> {
        let path = format!("/session/{}{path}", self.session);
        request(&self.addr, method, &path, body.as_ref())
    }

    pub fn goto(&self, url: &str) -> Result<()> {
        self.cmd("POST", "/url", Some(json!({"url": url})))
            .map(drop)
    }

    pub fn current_url(&self) -> Result<Url> {
        let v = self.cmd("GET", "/url", None)?;
        Ok(Url(v.as_str().unwrap_or_default().to_string()))
    }

    pub fn find(&self, l: Locator) -> Result<Element> {
        let v = self.cmd("POST", "/element", Some(l.body()))?;
        self.element(&v)
    }

    pub fn find_all(&self, l: Locator) -> Result<Vec<Element>> {
        let v = self.cmd("POST", "/elements", Some(l.body()))?;
        let items = v.as_array().cloned().unwrap_or_default();
        items.iter().map(|e| self.element(e)).collect()
    }

    /// The page as a PNG.
    pub fn screenshot(&self) -> Result<Vec<u8>> {
        let v = self.cmd("GET", "/screenshot", None)?;
        base64(v.as_str().unwrap_or_default()).ok_or_else(|| Error("bad base64".into()))
    }

    /// Sizes the browser's window (the screenshots' size).
    pub fn set_window_size(&self, width: u32, height: u32) -> Result<()> {
        self.cmd(
            "POST",
            "/window/rect",
            Some(json!({"width": width, "height": height})),
        )
        .map(drop)
    }

    /// Ends the session (the browser closes).
    pub fn close(&self) -> Result<()> {
        request(
            &self.addr,
            "DELETE",
            &format!("/session/{}", self.session),
            None,
        )
        .map(drop)
    }

    fn element(&self, v: &Json) -> Result<Element> {
        Ok(Element {
            client: self.clone(),
            id: element_id(v)?,
        })
    }
}

impl Element {
    fn cmd(&self, method: &str, what: &str, body: Option<Json>) -> Result<Json> {
        self.client
            .cmd(method, &format!("/element/{}{what}", self.id), body)
    }

    /// An element inside this one.
    pub fn find(&self, l: Locator) -> Result<Element> {
        let v = self.cmd("POST", "/element", Some(l.body()))?;
        self.client.element(&v)
    }

    pub fn attr(&self, name: &str) -> Result<Option<String>> {
        let v = self.cmd("GET", &format!("/attribute/{name}"), None)?;
        Ok(v.as_str().map(str::to_string))
    }

    pub fn prop(&self, name: &str) -> Result<Option<String>> {
        let v = self.cmd("GET", &format!("/property/{name}"), None)?;
        Ok(match v {
            Json::Null => None,
            Json::String(s) => Some(s),
            other => Some(other.to_string()),
        })
    }

    /// The computed value of a CSS property (`color`: `rgba(31, 95, 191, 1)`).
    pub fn css(&self, property: &str) -> Result<String> {
        let v = self.cmd("GET", &format!("/css/{property}"), None)?;
        Ok(v.as_str().unwrap_or_default().to_string())
    }

    pub fn text(&self) -> Result<String> {
        let v = self.cmd("GET", "/text", None)?;
        Ok(v.as_str().unwrap_or_default().to_string())
    }

    pub fn click(&self) -> Result<()> {
        self.cmd("POST", "/click", Some(json!({}))).map(drop)
    }

    /// Picks the `<option>` of this `<select>` with this value.
    pub fn select_by_value(&self, value: &str) -> Result<()> {
        self.find(Locator::Css(&format!("option[value=\"{value}\"]")))?
            .click()
    }
}

/// Standard base64 (with padding), as WebDriver sends screenshots.
fn base64(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() / 4 * 3);
    let (mut acc, mut bits) = (0u32, 0);
    for c in s.bytes().filter(|c| !c.is_ascii_whitespace()) {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => break,
            _ => return None,
        };
        acc = acc << 6 | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[test]
fn base64_and_percent_decoding() {
    assert_eq!(base64("aGVsbG8gd29ybGQ=").unwrap(), b"hello world");
    assert_eq!(base64("AAEC/w==").unwrap(), [0, 1, 2, 255]);
    let u = Url("http://h/?table=bridgit-3&position=L..%2FR+x#top".into());
    assert_eq!(
        u.query_pairs().collect::<Vec<_>>(),
        [
            ("table".to_string(), "bridgit-3".to_string()),
            ("position".to_string(), "L../R x".to_string())
        ]
    );
}
