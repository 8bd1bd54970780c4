//! Parsing a digraph's edge list (`u v` a line, `#` comments), in parallel chunks with a fast
//! path for plain lines and the careful one for everything else.
//!
//! Invariant: the fast path takes a line exactly as the careful path would, or hands it over.

use rayon::prelude::*;

use super::MAX_VERTICES;
use crate::base::error::{Error, Result, cut_bytes};
use crate::games::source::{BOM, InputBytes};

/// Parses the whole edge list, in parallel over line-aligned chunks.
pub(super) fn parse_edges(name: &str, input: &InputBytes<'_>) -> Result<Vec<Vec<(u32, u32)>>> {
    let bytes = input.bytes();
    // A UTF-8 byte-order mark (some editors write one) is not part of the first line.
    let start = if bytes.starts_with(BOM) { BOM.len() } else { 0 };
    parse_lines(name, bytes, start, 1, |range| input.release(range))
}

/// The bytes of an edge list of `len` bytes that rank `rank` of `ranks` parses: the lines that
/// start in its near-equal share of the bytes, the first share after a byte-order mark. `read_at`
/// reads the bytes from an offset into a buffer (fewer at the end), so a rank finds its bounds by
/// reading a few bytes around them, not the file. The shares of all ranks tile the file.
pub fn share_bounds(
    len: u64,
    rank: usize,
    ranks: usize,
    mut read_at: impl FnMut(u64, &mut [u8]) -> std::io::Result<usize>,
) -> std::io::Result<std::ops::Range<u64>> {
    let mut line_start = |at: u64| -> std::io::Result<u64> {
        if at == 0 {
            let mut head = [0u8; 3];
            let n = read_at(0, &mut head)?;
            return Ok(if head[..n] == *BOM {
                BOM.len() as u64
            } else {
                0
            });
        }
        // The first line starting at or after `at`: after the first newline from `at - 1` on.
        let mut pos = at - 1;
        let mut buf = [0u8; 4096];
        while pos < len {
            let n = read_at(pos, &mut buf)?;
            if n == 0 {
                break;
            }
            if let Some(i) = buf[..n].iter().position(|&b| b == b'\n') {
                return Ok(pos + i as u64 + 1);
            }
            pos += n as u64;
        }
        Ok(len)
    };
    let nominal = |r: usize| (len as u128 * r as u128 / ranks as u128) as u64;
    let start = line_start(nominal(rank))?;
    let end = if rank + 1 == ranks {
        len
    } else {
        line_start(nominal(rank + 1))?
    };
    Ok(start.min(end)..end)
}

/// Parses the lines of `bytes` (a whole number of lines of the file `name`, the first of them
/// line `first_line`), in parallel over line-aligned chunks.
pub fn parse_share(name: &str, bytes: &[u8], first_line: u64) -> Result<Vec<(u32, u32)>> {
    Ok(parse_lines(name, bytes, 0, first_line, |_| {})?
        .into_iter()
        .flatten()
        .collect())
}

/// Parses `bytes[start..]` in line-aligned chunks, calling `done` with each chunk's range once
/// parsed; an error names the line, counting `first_line` as the line at `start`.
fn parse_lines(
    name: &str,
    bytes: &[u8],
    start: usize,
    first_line: u64,
    done: impl Fn(std::ops::Range<usize>) + Sync,
) -> Result<Vec<Vec<(u32, u32)>>> {
    const MIN_CHUNK: usize = 1 << 20;
    let pieces = (rayon::current_num_threads() * 8).max(1);
    let target = (bytes.len() / pieces).max(MIN_CHUNK);
    let mut bounds = vec![start];
    let mut at = start;
    while at < bytes.len() {
        let mut end = (at + target).min(bytes.len());
        while end < bytes.len() && bytes[end - 1] != b'\n' {
            end += 1;
        }
        bounds.push(end);
        at = end;
    }
    let parts: Vec<ChunkResult> = bounds
        .par_windows(2)
        .map(|w| {
            let parsed = parse_chunk(&bytes[w[0]..w[1]]).map_err(|(off, msg)| (w[0] + off, msg));
            done(w[0]..w[1]);
            parsed
        })
        .collect();
    let mut chunks = Vec::with_capacity(parts.len());
    for part in parts {
        match part {
            Ok(p) => chunks.push(p),
            Err((offset, msg)) => {
                let line = bytes[start..offset].iter().filter(|&&b| b == b'\n').count() as u64
                    + first_line;
                return Err(Error::Input {
                    file: name.to_string(),
                    line,
                    msg: msg.to_string(),
                });
            }
        }
    }
    Ok(chunks)
}

/// Edges of one chunk, or the byte offset of the bad line in the chunk and what is wrong.
type ChunkResult = std::result::Result<Vec<(u32, u32)>, (usize, LineError)>;

/// Parses the lines of one chunk. Plain `u v` lines take a fast path; anything else (comments,
/// `\r`, errors) goes through [`parse_line`], which also words the error messages.
fn parse_chunk(chunk: &[u8]) -> ChunkResult {
    let mut edges = Vec::with_capacity(chunk.len() / 16);
    let mut i = 0;
    while i < chunk.len() {
        let start = i;
        match fast_line(chunk, &mut i) {
            Some(Some(e)) => edges.push(e),
            Some(None) => {}
            None => {
                let end = chunk[start..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(chunk.len(), |p| start + p);
                if let Some(e) = parse_line(&chunk[start..end]).map_err(|m| (start, m))? {
                    edges.push(e);
                }
                i = end + 1;
            }
        }
    }
    Ok(edges)
}

/// The fast path: `[ \t]*digits[ \t]+digits[ \t]*(\n|end)` or an empty line. `None` sends the
/// line to the careful parser.
#[inline]
fn fast_line(b: &[u8], i: &mut usize) -> Option<Option<(u32, u32)>> {
    let mut j = *i;
    let blank = |j: &mut usize| {
        while *j < b.len() && (b[*j] == b' ' || b[*j] == b'\t') {
            *j += 1;
        }
    };
    let number = |j: &mut usize| -> Option<u64> {
        let s = *j;
        let mut v = 0u64;
        while *j < b.len() && b[*j].is_ascii_digit() && *j - s < 11 {
            v = v * 10 + (b[*j] - b'0') as u64;
            *j += 1;
        }
        (*j > s && v < MAX_VERTICES).then_some(v)
    };
    blank(&mut j);
    if j == b.len() || b[j] == b'\n' {
        *i = j + 1;
        return Some(None);
    }
    let u = number(&mut j)?;
    let before = j;
    blank(&mut j);
    if j == before {
        return None;
    }
    let v = number(&mut j)?;
    blank(&mut j);
    if j < b.len() && b[j] != b'\n' {
        return None;
    }
    *i = j + 1;
    Some(Some((u as u32, v as u32)))
}

/// Why a line of an edge list is not an edge (`word`: the word at fault, cut for a message).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    #[error("expected an edge 'u v' but found one word '{word}'")]
    OneWord { word: String },
    #[error("expected an edge 'u v' but found a third word '{word}'")]
    ThirdWord { word: String },
    #[error("negative vertex id '{word}'")]
    Negative { word: String },
    #[error("'{word}' is not a vertex id (a non-negative integer)")]
    NotAnId { word: String },
    #[error("vertex id {word} is too large (ids must be below {max})")]
    TooLarge { word: String, max: u64 },
}

fn parse_line(line: &[u8]) -> std::result::Result<Option<(u32, u32)>, LineError> {
    let line = match line.iter().position(|&b| b == b'#') {
        Some(p) => &line[..p],
        None => line,
    };
    let mut words = line
        .split(|&b| b == b' ' || b == b'\t' || b == b'\r')
        .filter(|w| !w.is_empty());
    let Some(a) = words.next() else {
        return Ok(None);
    };
    let Some(b) = words.next() else {
        return Err(LineError::OneWord { word: cut_bytes(a) });
    };
    if let Some(c) = words.next() {
        return Err(LineError::ThirdWord { word: cut_bytes(c) });
    }
    Ok(Some((vertex(a)?, vertex(b)?)))
}

fn vertex(word: &[u8]) -> std::result::Result<u32, LineError> {
    let text = || cut_bytes(word);
    if word[0] == b'-' && word.len() > 1 && word[1..].iter().all(u8::is_ascii_digit) {
        return Err(LineError::Negative { word: text() });
    }
    let mut v: u64 = 0;
    for &b in word {
        if !b.is_ascii_digit() {
            return Err(LineError::NotAnId { word: text() });
        }
        v = v * 10 + (b - b'0') as u64;
        if v >= MAX_VERTICES {
            return Err(LineError::TooLarge {
                word: text(),
                max: MAX_VERTICES,
            });
        }
    }
    Ok(v as u32)
}

/// Checks the arguments of a random digraph ([`write_random_edges`]).
#[cfg(test)]
mod parser_tests {
    use super::*;
    use proptest::prelude::*;

    /// Lines of every shape the fast path must either take exactly or hand over.
    fn line() -> impl Strategy<Value = String> {
        let id = prop_oneof![
            (0u64..1000).prop_map(|v| v.to_string()),
            Just("4294967294".to_string()),
            Just("007".to_string()),
        ];
        let ws = prop_oneof![Just(" "), Just("\t"), Just("  "), Just(" \t")];
        prop_oneof![
            (id.clone(), ws.clone(), id.clone(), ws.clone())
                .prop_map(|(a, w, b, t)| format!("{a}{w}{b}{t}")),
            (ws.clone(), id.clone(), ws.clone(), id.clone())
                .prop_map(|(w, a, x, b)| format!("{w}{a}{x}{b}\r")),
            (id.clone(), ws.clone(), id).prop_map(|(a, w, b)| format!("{a}{w}{b} # note")),
            Just(String::new()),
            Just("# comment".to_string()),
            Just("   ".to_string()),
        ]
    }

    proptest! {
        #[test]
        fn fast_and_careful_parsers_agree(lines in prop::collection::vec(line(), 0..40)) {
            let text = lines.join("\n");
            let fast = parse_chunk(text.as_bytes()).unwrap();
            let careful: Vec<(u32, u32)> = text
                .lines()
                .filter_map(|l| parse_line(l.as_bytes()).unwrap())
                .collect();
            prop_assert_eq!(fast, careful);
        }
    }
}
