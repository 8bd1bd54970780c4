//! CGSuite's notation for canonical games, written and read.
//!
//! Written: numbers (`0`, `-2`, `3/4`), a number plus a nimber (`*`, `*3`, `1*`, `1/2*2`), a
//! number plus ups or downs with or without a star (`^`, `v*`, `^^`, `1v`, `^3*`), `+-x` for
//! `{x|-x}` with `x` a positive number, and otherwise `{L|R}`: options separated by commas, the
//! sides by as many bars as the deepest option needs plus one (`{2|0||-1}` is `{{2|0}|-1}`). An
//! option written with bars stands bare only when it is alone on its side; among others it keeps
//! its braces (so a side with bars at its own level is one option). [`parse`] reads all of it back.

use super::numbers::{Dyadic, ParseDyadicError};
use super::{Game, Games, Kind};

pub fn show(games: &Games, g: Game) -> String {
    let (text, bars) = render(games, g);
    if bars > 0 {
        format!("{{{text}}}")
    } else {
        text
    }
}

/// The text of `g` without outer braces, and the bars it uses at its top (0 for atoms).
fn render(games: &Games, g: Game) -> (String, usize) {
    if let Some(a) = atom(games, g) {
        return (a, 0);
    }
    let side = |opts: &[Game]| -> (Vec<String>, usize) {
        let parts: Vec<(String, usize)> = opts.iter().map(|&o| render(games, o)).collect();
        if parts.len() == 1 {
            let (t, b) = parts.into_iter().next().expect("one");
            return (vec![t], b);
        }
        let texts = parts
            .into_iter()
            .map(|(t, b)| if b > 0 { format!("{{{t}}}") } else { t })
            .collect();
        (texts, 0)
    };
    let (l, lb) = side(games.left(g));
    let (r, rb) = side(games.right(g));
    let bars = 1 + lb.max(rb);
    (
        format!("{}{}{}", l.join(","), "|".repeat(bars), r.join(",")),
        bars,
    )
}

fn number_prefix(x: Dyadic) -> String {
    if x == Dyadic::ZERO {
        String::new()
    } else {
        x.to_string()
    }
}

fn atom(games: &Games, g: Game) -> Option<String> {
    match games.kinds[g.index()] {
        Kind::Number(x) => Some(x.to_string()),
        Kind::NumberNimber(x, n) => Some(format!(
            "{}*{}",
            number_prefix(x),
            if n == 1 { String::new() } else { n.to_string() }
        )),
        Kind::NumberUps(x, n, star) => {
            let (c, k) = if n > 0 { ('^', n) } else { ('v', -n) };
            let ups = match k {
                1 => c.to_string(),
                2 => format!("{c}{c}"),
                _ => format!("{c}{k}"),
            };
            Some(format!(
                "{}{ups}{}",
                number_prefix(x),
                if star { "*" } else { "" }
            ))
        }
        Kind::Other => {
            // +-x: {x | -x} with x a positive number.
            if let ([a], [b]) = (games.left(g), games.right(g))
                && let (Some(x), Some(y)) = (games.as_number(*a), games.as_number(*b))
                && x.signum() > 0
                && x.checked_neg() == Some(y)
            {
                return Some(format!("+-{x}"));
            }
            None
        }
    }
}

/// A text that is not a game in CGSuite's notation: the whole text and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", match .reason {
    NotationReason::Empty => reason.to_string(),
    _ => format!("'{}': {reason}", crate::base::error::cut(text)),
})]
pub struct NotationError {
    pub text: String,
    pub reason: NotationReason,
}

/// What is wrong with a game's text (`part`: the piece of it at fault).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotationReason {
    #[error("no game in an empty text")]
    Empty,
    #[error("a '{{' without its '}}'")]
    Unclosed,
    #[error("braces do not match")]
    Unmatched,
    #[error("a '}}' with no '{{'")]
    Unopened,
    #[error("'{part}' needs braces around its bars")]
    BareBars { part: String },
    #[error("braces without a '|' between the sides")]
    NoBar,
    #[error("{runs} runs of {bars} bars at one level: which one splits the sides?")]
    SameBars { runs: usize, bars: usize },
    #[error(transparent)]
    Number(#[from] ParseDyadicError),
    #[error("'+-{part}': the number must be positive")]
    NotPositive { part: String },
    #[error("'{part}': write ^n or ^^, not both")]
    UpsTwice { part: String },
    #[error("'{part}': too many ups")]
    UpsNumber { part: String },
    #[error("'{part}': at most 64 ups")]
    UpsLimit { part: String },
    #[error("'{part}': '*{nimber}' is not a nimber")]
    NotNimber { part: String, nimber: String },
    #[error("'{part}': nimbers up to *64")]
    NimberLimit { part: String },
    #[error("'{part}' is not a game (examples: 0, 3/2, *2, 1*, ^, v*, +-1, {{1|0}})")]
    NotAGame { part: String },
}

/// Reads a game written as [`show`] writes it.
pub fn parse(games: &mut Games, text: &str) -> Result<Game, NotationError> {
    let t = text.trim();
    let reason = if t.is_empty() {
        NotationReason::Empty
    } else {
        match game(games, t) {
            Ok(g) => return Ok(g),
            Err(r) => r,
        }
    };
    Err(NotationError {
        text: text.to_string(),
        reason,
    })
}

fn game(games: &mut Games, t: &str) -> Result<Game, NotationReason> {
    let t = t.trim();
    if let Some(inner) = t.strip_prefix('{') {
        let Some(inner) = inner.strip_suffix('}') else {
            return Err(NotationReason::Unclosed);
        };
        if matching_close(t) != Some(t.len() - 1) {
            return Err(NotationReason::Unmatched);
        }
        return braces(games, inner);
    }
    if t.contains('|') {
        return Err(NotationReason::BareBars {
            part: t.to_string(),
        });
    }
    atom_value(games, t)
}

/// The index of the '}' that closes the '{' at the start of `t`.
fn matching_close(t: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in t.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The game inside braces: two sides split at the longest run of bars at the top level.
fn braces(games: &mut Games, inner: &str) -> Result<Game, NotationReason> {
    let mut depth = 0i32;
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let bytes = inner.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => depth += 1,
            b'}' => depth -= 1,
            b'|' if depth == 0 => {
                let start = i;
                while i < bytes.len() && bytes[i] == b'|' {
                    i += 1;
                }
                runs.push((start, i - start));
                continue;
            }
            _ => {}
        }
        if depth < 0 {
            return Err(NotationReason::Unopened);
        }
        i += 1;
    }
    let Some(&(_, longest)) = runs.iter().max_by_key(|r| r.1) else {
        return Err(NotationReason::NoBar);
    };
    let at: Vec<&(usize, usize)> = runs.iter().filter(|r| r.1 == longest).collect();
    if at.len() != 1 {
        return Err(NotationReason::SameBars {
            runs: at.len(),
            bars: longest,
        });
    }
    let (start, len) = *at[0];
    let left = side(games, &inner[..start])?;
    let right = side(games, &inner[start + len..])?;
    Ok(games.make(left, right))
}

/// The options of one side: one bare game with bars, or games separated by top-level commas.
fn side(games: &mut Games, t: &str) -> Result<Vec<Game>, NotationReason> {
    let t = t.trim();
    if t.is_empty() {
        return Ok(Vec::new());
    }
    let mut depth = 0i32;
    let mut parts = Vec::new();
    let mut start = 0;
    let mut bars = false;
    for (i, c) in t.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            '|' if depth == 0 => bars = true,
            ',' if depth == 0 => {
                parts.push(&t[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&t[start..]);
    if bars {
        // Bars at this level: the side is one option written bare (its own lists may hold
        // commas); options among others are written in braces.
        return Ok(vec![braces(games, t)?]);
    }
    parts.into_iter().map(|p| game(games, p)).collect()
}

/// A number, nimber, ups and downs, or `+-x`.
fn atom_value(games: &mut Games, t: &str) -> Result<Game, NotationReason> {
    if let Some(rest) = t.strip_prefix("+-") {
        let x: Dyadic = rest.trim().parse()?;
        if x.signum() <= 0 {
            return Err(NotationReason::NotPositive {
                part: rest.to_string(),
            });
        }
        let a = games.number(x);
        let b = games.neg(a);
        return Ok(games.make(vec![a], vec![b]));
    }
    // The number in front: up to the first '^', 'v' or '*'.
    let end = t.find(['^', 'v', '*']).unwrap_or(t.len());
    let (num, mut rest) = t.split_at(end);
    let x: Dyadic = if num.trim().is_empty() {
        Dyadic::ZERO
    } else {
        num.trim().parse()?
    };
    let mut g = games.number(x);
    if let Some(c) = rest.chars().next().filter(|&c| c == '^' || c == 'v') {
        let run = rest.chars().take_while(|&d| d == c).count();
        rest = &rest[run..];
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        let n: i32 = if digits > 0 {
            if run != 1 {
                return Err(NotationReason::UpsTwice {
                    part: t.to_string(),
                });
            }
            let n = rest[..digits]
                .parse()
                .map_err(|_| NotationReason::UpsNumber {
                    part: t.to_string(),
                })?;
            rest = &rest[digits..];
            n
        } else {
            run as i32
        };
        if n > 64 {
            return Err(NotationReason::UpsLimit {
                part: t.to_string(),
            });
        }
        let u = games.ups(if c == '^' { n } else { -n }, false);
        g = games.add(g, u);
    }
    if let Some(r) = rest.strip_prefix('*') {
        let k: u32 = if r.is_empty() {
            1
        } else {
            r.parse().map_err(|_| NotationReason::NotNimber {
                part: t.to_string(),
                nimber: r.to_string(),
            })?
        };
        if k > 64 {
            return Err(NotationReason::NimberLimit {
                part: t.to_string(),
            });
        }
        let s = games.nimber(k);
        g = games.add(g, s);
        rest = "";
    }
    if !rest.is_empty() {
        return Err(NotationReason::NotAGame {
            part: t.to_string(),
        });
    }
    Ok(g)
}
