//! The web board's picture of a Hackenbush position (SVG), drawn with the colours and move
//! marks of the cell games' pictures.
//!
//! The invariant: a picture reads the edge set and the graph only, never the table.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::{Colour, Hackenbush};

impl Hackenbush {
    /// The web board's picture of a position: the ground at the bottom, vertices in rows by
    /// their distance from the ground, present edges in their colours (removed ones faint and
    /// dotted), and each move in `moves` (edge, name) as a clickable `.mark` at its edge's middle
    /// (see [`crate::games::cell::picture::board_svg`]).
    pub fn svg(&self, pos: u64, moves: &[(usize, String)]) -> String {
        use crate::games::cell::picture::{BLUE, GREEN, RED, svg_move, svg_open};
        let set = self.set_of(pos);
        let rows = self.rows();
        let (step, width, margin) = (80.0f64, 420.0f64, 30.0f64);
        let ground = margin + step * (rows.len() - 1) as f64 + 20.0;
        let mut at: HashMap<u64, (f64, f64)> = HashMap::new();
        for (d, row) in rows.iter().enumerate().skip(1) {
            for (k, &v) in row.iter().enumerate() {
                let x = margin + (width - 2.0 * margin) * (k as f64 + 0.5) / row.len() as f64;
                at.insert(v, (x, ground - step * d as f64));
            }
        }
        let height = ground + 50.0;
        let mut s = svg_open(width, height);
        let _ = writeln!(
            s,
            "<line x1=\"0\" y1=\"{ground:.1}\" x2=\"{width:.0}\" y2=\"{ground:.1}\" stroke=\"#6b4f2a\" stroke-width=\"4\"/>"
        );
        let mut seen: HashMap<(u64, u64), u32> = HashMap::new();
        let mut marks = Vec::new();
        for (i, e) in self.edges.iter().enumerate() {
            // An edge at the ground stands on its own foot below its other end.
            let end = |v: u64, other: u64| {
                if v == 0 {
                    (at.get(&other).map_or(width / 2.0, |p| p.0), ground)
                } else {
                    at[&v]
                }
            };
            let ((x1, y1), (x2, y2)) = (end(e.u, e.v), end(e.v, e.u));
            let k = *seen
                .entry((e.u.min(e.v), e.u.max(e.v)))
                .and_modify(|c| *c += 1)
                .or_insert(0);
            let (path, mid) = edge_path((x1, y1), (x2, y2), e.u == e.v, k);
            let colour = match e.colour {
                Colour::Blue => BLUE,
                Colour::Red => RED,
                Colour::Green => GREEN,
            };
            let present = set >> i & 1 == 1;
            let style = if present {
                format!("stroke=\"{colour}\" stroke-width=\"6\"")
            } else {
                "stroke=\"#cccccc\" stroke-width=\"2\" stroke-dasharray=\"3 4\"".to_string()
            };
            let _ = writeln!(
                s,
                "<path d=\"{path}\" fill=\"none\" {style} stroke-linecap=\"round\"><title>e{i} {}-{} {}</title></path>",
                e.u,
                e.v,
                e.colour.name()
            );
            if let Some((_, name)) = moves.iter().find(|(edge, _)| *edge == i) {
                marks.push((name.clone(), mid));
            }
        }
        // Row by row, so the same position always gives the same bytes.
        for &v in rows.iter().skip(1).flatten() {
            let (x, y) = at[&v];
            let _ = writeln!(
                s,
                "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"4\" fill=\"#333\"><title>vertex {v}</title></circle>"
            );
        }
        for (name, (x, y)) in marks {
            svg_move(&mut s, &name, x, y, 8.0, 14.0);
        }
        let _ = writeln!(
            s,
            "<text x=\"8\" y=\"{:.0}\" font-size=\"14\">{} to move</text>\n</svg>",
            height - 14.0,
            if Self::right_to_move(pos) {
                "Right (red)"
            } else {
                "Left (blue)"
            }
        );
        s
    }

    /// The vertices in rows by their distance from the ground over all edges, the ground alone
    /// in row 0; vertices nothing joins to the ground go on the top row.
    fn rows(&self) -> Vec<Vec<u64>> {
        let mut depth: HashMap<u64, usize> = HashMap::from([(0, 0)]);
        let mut rows: Vec<Vec<u64>> = vec![vec![0]];
        loop {
            let last = rows.len() - 1;
            let mut next = Vec::new();
            for e in &self.edges {
                for (a, b) in [(e.u, e.v), (e.v, e.u)] {
                    if depth.get(&a) == Some(&last) && !depth.contains_key(&b) {
                        depth.insert(b, last + 1);
                        next.push(b);
                    }
                }
            }
            if next.is_empty() {
                break;
            }
            rows.push(next);
        }
        let mut stray: Vec<u64> = Vec::new();
        for e in &self.edges {
            for v in [e.u, e.v] {
                if let std::collections::hash_map::Entry::Vacant(e) = depth.entry(v) {
                    e.insert(rows.len());
                    stray.push(v);
                }
            }
        }
        if !stray.is_empty() {
            rows.push(stray);
        }
        rows
    }
}

/// The path of an edge from `(x1, y1)` to `(x2, y2)` and the middle where its move mark goes: a
/// loop above its vertex, or for the `k`-th edge between the same two vertices a curve bent to
/// alternate sides, further each pair (the first straight).
fn edge_path(
    (x1, y1): (f64, f64),
    (x2, y2): (f64, f64),
    self_loop: bool,
    k: u32,
) -> (String, (f64, f64)) {
    if self_loop {
        (
            format!(
                "M {x1:.1} {y1:.1} C {:.1} {:.1} {:.1} {:.1} {x1:.1} {y1:.1}",
                x1 - 30.0,
                y1 - 45.0,
                x1 + 30.0,
                y1 - 45.0
            ),
            (x1, y1 - 34.0),
        )
    } else {
        let (qx, qy) = crate::games::cell::picture::parallel_control((x1, y1), (x2, y2), k, 18.0);
        (
            format!("M {x1:.1} {y1:.1} Q {qx:.1} {qy:.1} {x2:.1} {y2:.1}"),
            ((x1 + 2.0 * qx + x2) / 4.0, (y1 + 2.0 * qy + y2) / 4.0),
        )
    }
}
