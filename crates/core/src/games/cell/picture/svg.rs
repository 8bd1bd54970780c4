//! SVG pictures: the two boards, and graph files with their vertices on a circle. A cell some
//! move claims can carry that move (`target`), drawn by [`svg_move`] for the web board to click.

use std::fmt::Write;

use crate::games::cell::board::Board;
use crate::games::cell::{EMPTY, Graph, LEFT, Layout, RIGHT};

type Target<'a> = dyn Fn(usize) -> Option<&'a str> + 'a;

pub(super) fn svg(
    layout: &Layout,
    states: &[u8],
    mark: &dyn Fn(usize) -> bool,
    target: &Target<'_>,
    to_move: &str,
) -> String {
    match layout {
        Layout::Board(Board::Bridgit(n)) => bridgit_svg(*n, states, mark, target, to_move),
        Layout::Board(Board::Hex(n)) => hex_svg(*n, states, mark, target, to_move),
        Layout::Edges(g) => graph_svg(g, true, states, mark, target, to_move),
        Layout::Vertices(g) => graph_svg(g, false, states, mark, target, to_move),
    }
}

pub(crate) const BLUE: &str = "#1f5fbf";
pub(crate) const RED: &str = "#c8322d";
pub(crate) const GREEN: &str = "#2e9e3e";

/// `text` with the five XML specials escaped, for attributes and text nodes.
pub(crate) fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A move the web board can click: a transparent hit area of radius `hit` and a `.mark` circle
/// of radius `r` at `(x, y)`, grouped under the move's name.
pub(crate) fn svg_move(s: &mut String, name: &str, x: f64, y: f64, r: f64, hit: f64) {
    let name = xml_escape(name);
    writeln!(
        s,
        "<g class=\"move\" data-move=\"{name}\"><circle class=\"hit\" cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"{hit}\" fill=\"transparent\"/><circle class=\"mark\" cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"{r}\" fill=\"#bbbbbb\" stroke=\"#333\" stroke-width=\"1\"/><title>move {name}</title></g>"
    )
    .unwrap();
}

pub(crate) fn svg_open(w: f64, h: f64) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" \
         viewBox=\"0 0 {w:.0} {h:.0}\" font-family=\"sans-serif\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    )
}

fn bridgit_svg(
    n: u32,
    states: &[u8],
    mark: &dyn Fn(usize) -> bool,
    target: &Target<'_>,
    to_move: &str,
) -> String {
    let (u, margin) = (40.0, 30.0);
    let m = 2 * n;
    let p = |v: u32| margin + v as f64 * u;
    let size = p(m) + margin;
    let mut s = svg_open(size, size + 24.0);
    for (i, &(x, y)) in Board::Bridgit(n).coordinates().iter().enumerate() {
        let state = states[i];
        if state == EMPTY
            && let Some(name) = target(i)
        {
            svg_move(&mut s, name, p(x), p(y), 9.0, 16.0);
            continue;
        }
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
    bridgit_goals(&mut s, m, &p);
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

/// Bridg-It's goal sides, as Hex's are drawn: a bar in each player's colour just outside the
/// dots he joins, Left's (blue) beside columns 0 and `m`, Right's (red) beside rows 0 and `m`.
fn bridgit_goals(s: &mut String, m: u32, p: &dyn Fn(u32) -> f64) {
    let (lo, hi, out) = (p(1), p(m - 1), 14.0);
    for (player, colour, far) in [
        ("left", BLUE, false),
        ("left", BLUE, true),
        ("right", RED, false),
        ("right", RED, true),
    ] {
        let at = if far { p(m) + out } else { p(0) - out };
        let (x1, y1, x2, y2) = if player == "left" {
            (at, lo, at, hi)
        } else {
            (lo, at, hi, at)
        };
        writeln!(
            s,
            "<line class=\"goal\" data-player=\"{player}\" x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\" stroke=\"{colour}\" stroke-width=\"5\" stroke-linecap=\"round\"/>"
        )
        .unwrap();
    }
}

fn hex_svg(
    n: u32,
    states: &[u8],
    mark: &dyn Fn(usize) -> bool,
    target: &Target<'_>,
    to_move: &str,
) -> String {
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
            if states[i] == EMPTY
                && let Some(name) = target(i)
            {
                svg_move(&mut s, name, ctr.0, ctr.1, 9.0, s_len * 0.85);
            } else if states[i] == EMPTY && mark(i) {
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
        let player = if colour == BLUE { "left" } else { "right" };
        let mut pts = Vec::new();
        for (r, c) in cells {
            for &k in ks {
                let (x, y) = corner(centre(r, c), k);
                pts.push(format!("{x:.1},{y:.1}"));
            }
        }
        writeln!(
            s,
            "<polyline class=\"goal\" data-player=\"{player}\" points=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"5\"/>",
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

/// A graph file's position: vertices on a circle (terminal `a` on the left, `b` on the right),
/// edges as lines or, when parallel, arcs. Edge game: Left's edges thick blue, Right's deleted
/// edges thin dashed red, open edges grey. Vertex game: Left's vertices blue, Right's red.
fn graph_svg(
    g: &Graph,
    edge_cells: bool,
    states: &[u8],
    mark: &dyn Fn(usize) -> bool,
    target: &Target<'_>,
    to_move: &str,
) -> String {
    let (radius, margin) = (150.0f64, 40.0f64);
    let centre = margin + radius;
    let at = circle(g, centre, radius);
    let size = 2.0 * centre;
    let mut s = svg_open(size, size + 24.0);
    let mut seen: std::collections::HashMap<(u32, u32), u32> = std::collections::HashMap::new();
    for (i, &(u, v)) in g.edges.iter().enumerate() {
        let key = (u.min(v), u.max(v));
        let k = *seen.entry(key).and_modify(|c| *c += 1).or_insert(0);
        let ((x1, y1), (x2, y2)) = (at[u as usize], at[v as usize]);
        let (path, mid) = graph_edge_path((x1, y1), (x2, y2), u == v, k, centre);
        let (stroke, width, dash) = match (edge_cells, states.get(i).copied()) {
            (true, Some(LEFT)) => (BLUE, 6.0, ""),
            (true, Some(RIGHT)) => (RED, 2.0, " stroke-dasharray=\"6 5\""),
            (true, _) if mark(i) => (GREEN, 4.0, ""),
            _ => ("#999999", 3.0, ""),
        };
        writeln!(
            s,
            "<path d=\"{path}\" fill=\"none\" stroke=\"{stroke}\" stroke-width=\"{width}\"{dash}><title>edge {i} ({u}-{v})</title></path>"
        )
        .unwrap();
        if edge_cells
            && states.get(i) == Some(&EMPTY)
            && let Some(name) = target(i)
        {
            svg_move(&mut s, name, mid.0, mid.1, 8.0, 14.0);
        }
    }
    graph_vertices(&mut s, g, &at, edge_cells, states, mark, target);
    writeln!(
        s,
        "<text x=\"8\" y=\"{:.0}\" font-size=\"14\">terminals {} and {} (black); {to_move}</text>\n</svg>",
        size + 12.0,
        g.a,
        g.b
    )
    .unwrap();
    s
}

/// Where [`graph_svg`] draws each vertex: on a circle of `radius` about (`centre`, `centre`),
/// terminal a first (left), b half way round (right), the rest in id order between them.
fn circle(g: &Graph, centre: f64, radius: f64) -> Vec<(f64, f64)> {
    let n = g.vertices.max(2) as usize;
    let mut order: Vec<u32> = (0..g.vertices).filter(|&v| v != g.a && v != g.b).collect();
    order.insert(0, g.a);
    order.insert((n / 2).min(order.len()), g.b);
    let mut at = vec![(0.0, 0.0); n];
    for (k, &v) in order.iter().enumerate() {
        let angle = std::f64::consts::PI - 2.0 * std::f64::consts::PI * k as f64 / n as f64;
        at[v as usize] = (centre + radius * angle.cos(), centre - radius * angle.sin());
    }
    at
}

/// The control point of the `k`-th edge from `(x1, y1)` to `(x2, y2)` between the same two
/// vertices, drawn as a quadratic curve: parallel edges bend alternately to either side, `spread`
/// further each pair, the first straight.
pub(crate) fn parallel_control(
    (x1, y1): (f64, f64),
    (x2, y2): (f64, f64),
    k: u32,
    spread: f64,
) -> (f64, f64) {
    let bend = if k == 0 {
        0.0
    } else {
        let side = if k % 2 == 1 { 1.0 } else { -1.0 };
        side * spread * k.div_ceil(2) as f64
    };
    let (dx, dy) = (x2 - x1, y2 - y1);
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    (
        (x1 + x2) / 2.0 - dy / len * bend * 2.0,
        (y1 + y2) / 2.0 + dx / len * bend * 2.0,
    )
}

/// The path of the `k`-th edge between two vertices of [`graph_svg`] and where its move mark
/// goes: a loop is a small circle beside its vertex (away from `centre`), parallel edges bend
/// alternately to either side.
fn graph_edge_path(
    (x1, y1): (f64, f64),
    (x2, y2): (f64, f64),
    self_loop: bool,
    k: u32,
    centre: f64,
) -> (String, (f64, f64)) {
    if self_loop {
        let (cx, cy) = (x1 + (x1 - centre) * 0.12, y1 + (y1 - centre) * 0.12);
        return (
            format!(
                "M {x1:.1} {y1:.1} A 12 12 0 1 1 {:.1} {:.1}",
                x1 + 0.1,
                y1 + 0.1
            ),
            (cx, cy),
        );
    }
    let (qx, qy) = parallel_control((x1, y1), (x2, y2), k, 22.0);
    // The mark sits 40% of the way along, so crossing edges (the diagonals of a square) keep
    // their marks apart.
    let t = 0.4;
    let at_t =
        |a: f64, q: f64, b: f64| (1.0 - t) * (1.0 - t) * a + 2.0 * (1.0 - t) * t * q + t * t * b;
    (
        format!("M {x1:.1} {y1:.1} Q {qx:.1} {qy:.1} {x2:.1} {y2:.1}"),
        (at_t(x1, qx, x2), at_t(y1, qy, y2)),
    )
}

/// [`graph_svg`]'s vertices at `at`: terminals black, a vertex game's claimed cells in their
/// player's colour, each labelled with its id, and a move mark on each empty cell `target` names.
fn graph_vertices(
    s: &mut String,
    g: &Graph,
    at: &[(f64, f64)],
    edge_cells: bool,
    states: &[u8],
    mark: &dyn Fn(usize) -> bool,
    target: &Target<'_>,
) {
    let inner = g.inner_vertices();
    for v in 0..g.vertices {
        let (x, y) = at[v as usize];
        let terminal = v == g.a || v == g.b;
        let cell = (!edge_cells && !terminal)
            .then(|| inner.iter().position(|&w| w == v))
            .flatten();
        let fill = match cell.map(|i| states[i]) {
            _ if terminal => "#222222",
            Some(LEFT) => BLUE,
            Some(RIGHT) => RED,
            Some(_) if cell.is_some_and(mark) => GREEN,
            _ => "white",
        };
        let r = if terminal || !edge_cells { 13.0 } else { 9.0 };
        writeln!(
            s,
            "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"{r}\" fill=\"{fill}\" stroke=\"#333\" stroke-width=\"1.5\"><title>vertex {v}</title></circle>"
        )
        .unwrap();
        let label_colour = if fill == "white" { "#222" } else { "white" };
        writeln!(
            s,
            "<text x=\"{x:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"middle\" fill=\"{label_colour}\">{v}</text>",
            y + 4.0
        )
        .unwrap();
        if let Some(i) = cell
            && states[i] == EMPTY
            && let Some(name) = target(i)
        {
            svg_move(s, name, x, y, 13.0, 16.0);
        }
    }
}
