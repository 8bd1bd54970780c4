//! Pictures of cell-game positions: text (plain or with ANSI colours) for every layout, SVG for
//! the two boards. Left is drawn blue, Right red, marked cells (moves a prober wants to show,
//! e.g. the winning ones) green.
//!
//! The invariant: a picture reads only the cell states and the layout's geometry, never an
//! index, so boards too large to solve (e.g. `bridgit:5`) can still be drawn.

use std::fmt::Write;

use super::board::Board;
use super::{EMPTY, LEFT, Layout, Player, RIGHT};

/// How to draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Text, no escape codes.
    Plain,
    /// Text with ANSI colours, for terminals.
    Colour,
    /// An SVG document (boards only).
    Svg,
}

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

/// Draws a position given by its cell states. `None` when the layout has no picture in this
/// style (graph files have no SVG).
pub fn draw(
    layout: &Layout,
    states: &[u8],
    mover: Player,
    marked: &[u32],
    style: Style,
) -> Option<String> {
    let mark = |i: usize| marked.contains(&(i as u32));
    let to_move = match (winner(layout, states), mover) {
        (Some(Player::Left), _) => "Left (L, blue) has won: its sides are joined",
        (Some(Player::Right), _) => "Right (R, red) has won: Left's sides can no longer be joined",
        (None, Player::Left) => "Left (L, blue) to move",
        (None, Player::Right) => "Right (R, red) to move",
    };
    match (layout, style) {
        (Layout::Board(Board::Bridgit(n)), Style::Svg) => {
            Some(bridgit_svg(*n, states, &mark, to_move))
        }
        (Layout::Board(Board::Hex(n)), Style::Svg) => Some(hex_svg(*n, states, &mark, to_move)),
        (_, Style::Svg) => None,
        (Layout::Board(Board::Bridgit(n)), _) => Some(
            bridgit_text(*n, states, &mark, to_move, marked.len()).render(style == Style::Colour),
        ),
        (Layout::Board(Board::Hex(n)), _) => {
            Some(hex_text(*n, states, &mark, to_move, marked.len()).render(style == Style::Colour))
        }
        (Layout::Edges(_) | Layout::Vertices(_), _) => Some(
            graph_text(layout, states, &mark, to_move, marked.len()).render(style == Style::Colour),
        ),
    }
}

/// Who has won on these cells, if anyone (boards of at most 64 cells; larger ones are drawn
/// without the question).
fn winner(layout: &Layout, states: &[u8]) -> Option<Player> {
    if states.len() > 64 {
        return None;
    }
    let set = |want: u8| {
        states
            .iter()
            .enumerate()
            .filter(|&(_, &s)| s == want)
            .fold(0u64, |m, (i, _)| m | 1 << i)
    };
    let links = layout.links();
    if links.connects(set(LEFT)) {
        Some(Player::Left)
    } else if !links.connects(set(EMPTY) | set(LEFT)) {
        Some(Player::Right)
    } else {
        None
    }
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

const BLUE: &str = "#1f5fbf";
const RED: &str = "#c8322d";
const GREEN: &str = "#2e9e3e";

fn svg_open(w: f64, h: f64) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" \
         viewBox=\"0 0 {w:.0} {h:.0}\" font-family=\"sans-serif\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    )
}

fn bridgit_svg(n: u32, states: &[u8], mark: &dyn Fn(usize) -> bool, to_move: &str) -> String {
    let (u, margin) = (40.0, 30.0);
    let m = 2 * n;
    let p = |v: u32| margin + v as f64 * u;
    let size = p(m) + margin;
    let mut s = svg_open(size, size + 24.0);
    for (i, &(x, y)) in Board::Bridgit(n).coordinates().iter().enumerate() {
        let state = states[i];
        if state == EMPTY {
            let (r, fill) = if mark(i) {
                (8.0, GREEN)
            } else {
                (3.0, "#bbbbbb")
            };
            writeln!(
                s,
                "<circle cx=\"{}\" cy=\"{}\" r=\"{r}\" fill=\"{fill}\"><title>cell {i} ({x},{y})</title></circle>",
                p(x),
                p(y)
            )
            .unwrap();
            continue;
        }
        let horizontal = (state == LEFT) == (x % 2 == 1);
        let (x1, y1, x2, y2) = if horizontal {
            (x - 1, y, x + 1, y)
        } else {
            (x, y - 1, x, y + 1)
        };
        let colour = if state == LEFT { BLUE } else { RED };
        writeln!(
            s,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{colour}\" stroke-width=\"8\" stroke-linecap=\"round\"/>",
            p(x1),
            p(y1),
            p(x2),
            p(y2)
        )
        .unwrap();
    }
    for y in 0..=m {
        for x in 0..=m {
            let colour = match (x % 2, y % 2) {
                (0, 1) => BLUE,
                (1, 0) => RED,
                _ => continue,
            };
            writeln!(
                s,
                "<circle cx=\"{}\" cy=\"{}\" r=\"7\" fill=\"{colour}\"/>",
                p(x),
                p(y)
            )
            .unwrap();
        }
    }
    writeln!(
        s,
        "<text x=\"{margin}\" y=\"{}\" font-size=\"14\">{to_move}</text>\n</svg>",
        size + 12.0
    )
    .unwrap();
    s
}

fn hex_svg(n: u32, states: &[u8], mark: &dyn Fn(usize) -> bool, to_move: &str) -> String {
    let s_len = 24.0f64;
    let w = 3f64.sqrt() * s_len;
    let margin = 20.0;
    let nf = n as f64;
    let centre = |r: u32, c: u32| {
        (
            margin + (c as f64 + r as f64 / 2.0) * w + w / 2.0,
            margin + r as f64 * 1.5 * s_len + s_len,
        )
    };
    let corner = |(cx, cy): (f64, f64), k: u32| {
        let a = (30.0 + 60.0 * k as f64).to_radians();
        (cx + s_len * a.cos(), cy + s_len * a.sin())
    };
    let width = 2.0 * margin + (nf + (nf - 1.0) / 2.0) * w;
    let height = 2.0 * margin + (1.5 * nf + 0.5) * s_len;
    let mut s = svg_open(width, height + 24.0);
    for r in 0..n {
        for c in 0..n {
            let i = (r * n + c) as usize;
            let ctr = centre(r, c);
            let pts: Vec<String> = (0..6)
                .map(|k| {
                    let (x, y) = corner(ctr, k);
                    format!("{x:.1},{y:.1}")
                })
                .collect();
            let fill = match states[i] {
                LEFT => BLUE,
                RIGHT => RED,
                _ => "#f4f4f4",
            };
            writeln!(
                s,
                "<polygon points=\"{}\" fill=\"{fill}\" stroke=\"#555\" stroke-width=\"1\"><title>cell {i} ({r},{c})</title></polygon>",
                pts.join(" ")
            )
            .unwrap();
            if states[i] == EMPTY && mark(i) {
                writeln!(
                    s,
                    "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"8\" fill=\"{GREEN}\"/>",
                    ctr.0, ctr.1
                )
                .unwrap();
            }
        }
    }
    // The sides: corners k of each border hexagon (k = 0 at 30 degrees, clockwise in SVG).
    let mut side = |cells: Vec<(u32, u32)>, ks: &[u32], colour: &str| {
        let mut pts = Vec::new();
        for (r, c) in cells {
            for &k in ks {
                let (x, y) = corner(centre(r, c), k);
                pts.push(format!("{x:.1},{y:.1}"));
            }
        }
        writeln!(
            s,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"5\"/>",
            pts.join(" ")
        )
        .unwrap();
    };
    // Consecutive border hexagons share a corner, so joining these corners in order traces the
    // outline.
    side((0..n).map(|c| (0, c)).collect(), &[3, 4, 5], RED);
    side((0..n).map(|c| (n - 1, c)).collect(), &[2, 1, 0], RED);
    side((0..n).map(|r| (r, 0)).collect(), &[3, 2], BLUE);
    side((0..n).map(|r| (r, n - 1)).collect(), &[5, 0], BLUE);
    writeln!(
        s,
        "<text x=\"{margin}\" y=\"{:.0}\" font-size=\"14\">{to_move}</text>\n</svg>",
        height + 12.0
    )
    .unwrap();
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bridgit_2_plain_picture() {
        // Cells (1,1) (3,1) (2,2) (1,3) (3,3): Left bridges (1,1), Right (2,2), (3,3) marked.
        let states = [LEFT, EMPTY, RIGHT, EMPTY, EMPTY];
        let text = draw(
            &Layout::Board(Board::Bridgit(2)),
            &states,
            Player::Left,
            &[4],
            Style::Plain,
        )
        .unwrap();
        let want = "   0 1 2 3 4
 0   x   x
 1 o---o . o
 2   x---x
 3 o . o * o
 4   x   x
o: Left's dots, joining columns 0 and 4; x: Right's dots, joining rows 0 and 4
Left (L, blue) to move; * marks the 1 move(s) asked for
";
        assert_eq!(text, want);
    }

    #[test]
    fn hex_3_plain_picture() {
        let mut states = [EMPTY; 9];
        states[4] = LEFT;
        states[2] = RIGHT;
        let text = draw(
            &Layout::Board(Board::Hex(3)),
            &states,
            Player::Right,
            &[],
            Style::Plain,
        )
        .unwrap();
        let want = "     0 1 2
     - - -
 0 \\ . . R \\
  1 \\ . L . \\
   2 \\ . . . \\
       - - -
Left (\\) joins column 0 to column 2; Right (-) joins row 0 to row 2
Right (R, red) to move
";
        assert_eq!(text, want);
    }

    #[test]
    fn colour_only_when_asked() {
        let l = Layout::Board(Board::Hex(2));
        let plain = draw(&l, &[LEFT, 0, 0, 0], Player::Right, &[], Style::Plain).unwrap();
        let colour = draw(&l, &[LEFT, 0, 0, 0], Player::Right, &[], Style::Colour).unwrap();
        assert!(!plain.contains('\x1b'));
        assert!(colour.contains("\x1b[1;34mL"));
    }

    #[test]
    fn svg_for_boards_only() {
        let svg = draw(
            &Layout::Board(Board::Bridgit(5)),
            &[EMPTY; 41],
            Player::Left,
            &[0],
            Style::Svg,
        )
        .unwrap();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches(GREEN).count(), 1);
        let g = super::super::Graph {
            vertices: 2,
            edges: vec![(0, 1)],
            a: 0,
            b: 1,
        };
        assert!(draw(&Layout::Edges(g), &[EMPTY], Player::Left, &[], Style::Svg).is_none());
    }
}
