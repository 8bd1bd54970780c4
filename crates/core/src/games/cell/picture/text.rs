//! Text pictures: a grid of characters, each with an ink, rendered plain or with ANSI colours.
//! Bridg-It and Hex draw their boards; graph files list their cells one a line.

use std::fmt::Write;

use crate::games::cell::board::Board;
use crate::games::cell::{EMPTY, LEFT, Layout, RIGHT};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Ink {
    None,
    Left,
    Right,
    Mark,
    Dim,
}

impl Ink {
    fn ansi(self) -> &'static str {
        match self {
            Ink::None => "",
            Ink::Left => "\x1b[1;34m",
            Ink::Right => "\x1b[1;31m",
            Ink::Mark => "\x1b[1;32m",
            Ink::Dim => "\x1b[2m",
        }
    }
}

/// A grid of characters, each with an ink.
struct Canvas {
    rows: Vec<Vec<(char, Ink)>>,
}

impl Canvas {
    fn new() -> Canvas {
        Canvas { rows: Vec::new() }
    }

    fn put(&mut self, row: usize, col: usize, ch: char, ink: Ink) {
        if self.rows.len() <= row {
            self.rows.resize(row + 1, Vec::new());
        }
        let line = &mut self.rows[row];
        if line.len() <= col {
            line.resize(col + 1, (' ', Ink::None));
        }
        line[col] = (ch, ink);
    }

    fn text(&mut self, row: usize, col: usize, s: &str, ink: Ink) {
        for (k, ch) in s.chars().enumerate() {
            self.put(row, col + k, ch, ink);
        }
    }

    fn render(&self, colour: bool) -> String {
        let mut out = String::new();
        for line in &self.rows {
            let mut current = Ink::None;
            let mut s = String::new();
            for &(ch, ink) in line {
                if colour && ink != current {
                    s.push_str("\x1b[0m");
                    s.push_str(ink.ansi());
                    current = ink;
                }
                s.push(ch);
            }
            if colour && current != Ink::None {
                s.push_str("\x1b[0m");
            }
            out.push_str(s.trim_end());
            out.push('\n');
        }
        out
    }
}

/// The text picture of a layout; `colour` adds ANSI escape codes.
pub(super) fn text(
    layout: &Layout,
    states: &[u8],
    mark: &dyn Fn(usize) -> bool,
    to_move: &str,
    marks: usize,
    colour: bool,
) -> String {
    let canvas = match layout {
        Layout::Board(Board::Bridgit(n)) => bridgit_text(*n, states, mark, to_move, marks),
        Layout::Board(Board::Hex(n)) => hex_text(*n, states, mark, to_move, marks),
        Layout::Edges(_) | Layout::Vertices(_) => graph_text(layout, states, mark, to_move, marks),
    };
    canvas.render(colour)
}

fn cell_ink(state: u8) -> Ink {
    match state {
        LEFT => Ink::Left,
        RIGHT => Ink::Right,
        _ => Ink::None,
    }
}

fn legend(c: &mut Canvas, row: usize, to_move: &str, marks: usize) {
    let mut s = to_move.to_string();
    if marks > 0 {
        write!(s, "; * marks the {marks} move(s) asked for").unwrap();
    }
    c.text(row, 0, &s, Ink::None);
}

/// Points `(x, y)` at text row `y + 1`, column `3 + 2x`: Left's dots `o`, Right's dots `x`,
/// bridges `---` and `|`, empty cells `.`.
fn bridgit_text(
    n: u32,
    states: &[u8],
    mark: &dyn Fn(usize) -> bool,
    to_move: &str,
    marks: usize,
) -> Canvas {
    let board = Board::Bridgit(n);
    let mut c = Canvas::new();
    let m = 2 * n;
    let col = |x: u32| 3 + 2 * x as usize;
    for x in 0..=m {
        c.put(0, col(x), char::from_digit(x % 10, 10).unwrap(), Ink::Dim);
    }
    for y in 0..=m {
        let row = y as usize + 1;
        c.text(row, 0, &format!("{y:>2}"), Ink::Dim);
        for x in 0..=m {
            if x % 2 == 0 && y % 2 == 1 {
                c.put(row, col(x), 'o', Ink::Left);
            } else if x % 2 == 1 && y % 2 == 0 {
                c.put(row, col(x), 'x', Ink::Right);
            }
        }
    }
    for (i, &(x, y)) in board.coordinates().iter().enumerate() {
        let row = y as usize + 1;
        let state = states[i];
        // A cell with x odd carries Left's horizontal bridge and Right's vertical one.
        let horizontal = (state == LEFT) == (x % 2 == 1);
        match state {
            EMPTY if mark(i) => c.put(row, col(x), '*', Ink::Mark),
            EMPTY => c.put(row, col(x), '.', Ink::Dim),
            _ if horizontal => c.text(row, col(x) - 1, "---", cell_ink(state)),
            _ => c.put(row, col(x), '|', cell_ink(state)),
        }
    }
    let r = m as usize + 2;
    c.text(
        r,
        0,
        &format!(
            "o: Left's dots, joining columns 0 and {m}; x: Right's dots, joining rows 0 and {m}"
        ),
        Ink::None,
    );
    legend(&mut c, r + 1, to_move, marks);
    c
}

/// Row `r` indented by `r`, cell `(r, c)` at column `5 + r + 2c`; Left's sides `\`, Right's `-`.
fn hex_text(
    n: u32,
    states: &[u8],
    mark: &dyn Fn(usize) -> bool,
    to_move: &str,
    marks: usize,
) -> Canvas {
    let mut c = Canvas::new();
    let n = n as usize;
    for k in 0..n {
        c.put(
            0,
            5 + 2 * k,
            char::from_digit((k % 10) as u32, 10).unwrap(),
            Ink::Dim,
        );
        c.put(1, 5 + 2 * k, '-', Ink::Right);
        c.put(n + 2, 5 + n - 1 + 2 * k, '-', Ink::Right);
    }
    for r in 0..n {
        let row = r + 2;
        c.text(row, r, &format!("{r:>2}"), Ink::Dim);
        c.put(row, r + 3, '\\', Ink::Left);
        c.put(row, r + 5 + 2 * n, '\\', Ink::Left);
        for k in 0..n {
            let i = r * n + k;
            let (ch, ink) = match states[i] {
                LEFT => ('L', Ink::Left),
                RIGHT => ('R', Ink::Right),
                _ if mark(i) => ('*', Ink::Mark),
                _ => ('.', Ink::Dim),
            };
            c.put(row, 5 + r + 2 * k, ch, ink);
        }
    }
    c.text(
        n + 3,
        0,
        &format!(
            "Left (\\) joins column 0 to column {}; Right (-) joins row 0 to row {}",
            n - 1,
            n - 1
        ),
        Ink::None,
    );
    legend(&mut c, n + 4, to_move, marks);
    c
}

/// One line per cell: its number, what it is, who holds it.
fn graph_text(
    layout: &Layout,
    states: &[u8],
    mark: &dyn Fn(usize) -> bool,
    to_move: &str,
    marks: usize,
) -> Canvas {
    let mut c = Canvas::new();
    let (g, what) = match layout {
        Layout::Edges(g) => (g, "edge"),
        Layout::Vertices(g) => (g, "vertex"),
        Layout::Board(_) => unreachable!("boards have their own pictures"),
    };
    c.text(
        0,
        0,
        &format!("terminals {} and {}; Left claims, Right deletes", g.a, g.b),
        Ink::None,
    );
    for (i, label) in layout.labels().iter().enumerate() {
        let (who, ink) = match states[i] {
            LEFT => ("Left", Ink::Left),
            RIGHT => ("Right", Ink::Right),
            _ if mark(i) => ("* empty", Ink::Mark),
            _ => ("empty", Ink::Dim),
        };
        c.text(i + 1, 0, &format!("{i:>4}  {what} {label:<12} {who}"), ink);
    }
    legend(&mut c, states.len() + 1, to_move, marks);
    c
}
