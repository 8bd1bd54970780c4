//! Reading text a line at a time with a cap on a line's length ([`read_capped`]), for the
//! commands that read positions or moves from a stream (`probe -`, `play`): a line of hundreds
//! of megabytes is read to its end and dropped, so it costs no more memory than the cap, and
//! the caller refuses it naming its line number.
//!
//! The invariant: the buffer never holds more than the cap, whatever the input.

use std::io::{BufRead, ErrorKind};

/// The longest line a command takes, its newline not counted: far beyond any position text or sum of
/// tokens a person or a script writes, far below what would strain memory.
pub const MAX_LINE: usize = 1 << 20;

/// What [`read_capped`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Line {
    /// The input has ended; nothing was read.
    End,
    /// A line is in the buffer (with its newline, if the input had one).
    Text,
    /// A line longer than the cap was read to its end and dropped; `bytes` is its length
    /// without the newline.
    TooLong { bytes: u64 },
}

/// Reads the next line of `input` into `buf` (cleared first), up to `cap` bytes and its newline;
/// a longer line is consumed without being kept ([`Line::TooLong`], `buf` left empty).
pub fn read_capped(
    input: &mut dyn BufRead,
    buf: &mut Vec<u8>,
    cap: usize,
) -> std::io::Result<Line> {
    buf.clear();
    let mut total = 0u64;
    let mut too_long = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(match (too_long, total) {
                (true, _) => Line::TooLong { bytes: total },
                (false, 0) => Line::End,
                (false, _) => Line::Text,
            });
        }
        let (take, ends) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        // The newline is kept with the line but not counted against the cap.
        let counted = take - usize::from(ends);
        total += counted as u64;
        if !too_long {
            if buf.len() + counted > cap {
                too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(&chunk[..take]);
            }
        }
        input.consume(take);
        if ends {
            return Ok(if too_long {
                Line::TooLong { bytes: total }
            } else {
                Line::Text
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_dropped_and_the_next_one_read() {
        let long = "x".repeat(100);
        let text = format!("ab\n{long}\ncd");
        // A small reader buffer, so that lines span several fills.
        let mut input = std::io::BufReader::with_capacity(7, text.as_bytes());
        let mut buf = Vec::new();
        let mut got = Vec::new();
        loop {
            let line = read_capped(&mut input, &mut buf, 10).unwrap();
            assert!(buf.capacity() <= 16, "{}", buf.capacity());
            got.push((line, String::from_utf8(buf.clone()).unwrap()));
            if line == Line::End {
                break;
            }
        }
        assert_eq!(
            got,
            [
                (Line::Text, "ab\n".to_string()),
                (Line::TooLong { bytes: 100 }, String::new()),
                (Line::Text, "cd".to_string()),
                (Line::End, String::new()),
            ]
        );
        let mut at_cap = "1234567890\n".as_bytes();
        assert_eq!(read_capped(&mut at_cap, &mut buf, 10).unwrap(), Line::Text);
        let mut unended = "12345678901".as_bytes();
        assert_eq!(
            read_capped(&mut unended, &mut buf, 10).unwrap(),
            Line::TooLong { bytes: 11 }
        );
    }
}
