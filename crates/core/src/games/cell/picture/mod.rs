//! Pictures of cell-game positions: text (plain or with ANSI colours) and SVG for every layout
//! (the two boards, and graph files drawn with their vertices on a circle). Left is drawn blue,
//! Right red, marked cells (moves a prober wants to show, e.g. the winning ones) green. The web
//! board's SVG ([`board_svg`]) also carries each move as a `<g class="move" data-move="NAME">`
//! with a `.mark` circle that the page colours by the move's value.
//!
//! The invariant: a picture reads only the cell states and the layout's geometry, never an
//! index, so boards too large to solve (e.g. `bridgit:5`) can still be drawn.
//!
//! The files: this one chooses the picture and says who is to move; `text` draws on a grid of
//! characters, `svg` writes SVG.

mod svg;
mod text;

use super::{EMPTY, LEFT, Layout, Player};

pub(crate) use svg::{BLUE, GREEN, RED, parallel_control, svg_move, svg_open, xml_escape};

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

/// Draws a position given by its cell states. Every layout has every style today; the `Option`
/// leaves room for one that has not.
pub fn draw(
    layout: &Layout,
    states: &[u8],
    mover: Player,
    marked: &[u32],
    style: Style,
) -> Option<String> {
    let mark = |i: usize| marked.contains(&(i as u32));
    let to_move = to_move_text(layout, states, mover);
    Some(match style {
        Style::Svg => svg::svg(layout, states, &mark, &|_| None, to_move),
        Style::Plain | Style::Colour => text::text(
            layout,
            states,
            &mark,
            to_move,
            marked.len(),
            style == Style::Colour,
        ),
    })
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

/// The SVG of a position for the web board: each cell that a move claims is a
/// `<g class="move" data-move="NAME">` holding a `.mark` circle (and a larger transparent `.hit`
/// area); `moves` pairs a cell with the name of the move that claims it.
pub fn board_svg(layout: &Layout, states: &[u8], mover: Player, moves: &[(u32, String)]) -> String {
    let target = |i: usize| {
        moves
            .iter()
            .find(|(c, _)| *c as usize == i)
            .map(|(_, name)| name.as_str())
    };
    svg::svg(
        layout,
        states,
        &|_| false,
        &target,
        to_move_text(layout, states, mover),
    )
}

/// Who is to move, or who has won when the board is finished.
fn to_move_text(layout: &Layout, states: &[u8], mover: Player) -> &'static str {
    match winner(layout, states) {
        Some(w) => won_text(w),
        None => match mover {
            Player::Left => "Left (L, blue) to move",
            Player::Right => "Right (R, red) to move",
        },
    }
}

/// A player's name in pictures and on the web board.
pub fn player_name(p: Player) -> &'static str {
    match p {
        Player::Left => "Left (L, blue)",
        Player::Right => "Right (R, red)",
    }
}

/// Who has won a finished board, and how.
pub fn won_text(winner: Player) -> &'static str {
    match winner {
        Player::Left => "Left (L, blue) has won: its sides are joined",
        Player::Right => "Right (R, red) has won: Left's sides can no longer be joined",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::cell::{Board, Graph, RIGHT};

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
    fn svg_for_every_layout() {
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
        let g = Graph {
            vertices: 2,
            edges: vec![(0, 1)],
            a: 0,
            b: 1,
        };
        let svg = draw(
            &Layout::Edges(g.clone()),
            &[LEFT],
            Player::Right,
            &[],
            Style::Svg,
        )
        .unwrap();
        assert!(svg.contains(BLUE) && svg.trim_end().ends_with("</svg>"));
        // The web board's SVG names each move's cell, escaped.
        let web = board_svg(
            &Layout::Edges(g),
            &[EMPTY],
            Player::Left,
            &[(0, "0(0-1)".into())],
        );
        assert_eq!(web.matches("data-move=\"0(0-1)\"").count(), 1);
        let hex = board_svg(
            &Layout::Board(Board::Hex(2)),
            &[LEFT, EMPTY, EMPTY, EMPTY],
            Player::Right,
            &[(1, "1(0,1)".into()), (3, "a\"<b".into())],
        );
        assert_eq!(hex.matches("class=\"move\"").count(), 2);
        assert!(hex.contains("data-move=\"a&quot;&lt;b\""));
    }
}
