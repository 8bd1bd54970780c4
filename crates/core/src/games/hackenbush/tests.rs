//! Tests of Hackenbush: the list of grounded sets, the round trip of positions, the parsers and
//! the values.

use super::parse::TreeParser;
use super::*;
use crate::base::error::Error;
use crate::game::check_round_trip;
use crate::game::{Game, Notation};

fn file(text: &str) -> Result<Hackenbush> {
    Hackenbush::parse_file("h.txt", text.as_bytes(), u64::MAX)
}

#[test]
fn lists_exactly_the_grounded_sets() {
    for seed in 0..30 {
        let text = random_text(9, 5, &[Colour::Blue, Colour::Red, Colour::Green], seed);
        let g = file(&text).unwrap();
        let brute: Vec<u64> = (0..1u64 << 9).filter(|&s| g.grounded(s) == s).collect();
        assert_eq!(g.sets, brute, "{text}");
    }
    let stalk = Hackenbush::parse_stalk("BRRGB", u64::MAX).unwrap();
    assert_eq!(stalk.size(), 12);
}

#[test]
fn round_trip_on_random_graphs_with_loops_multi_edges_and_cycles() {
    let all = [Colour::Blue, Colour::Red, Colour::Green];
    for seed in 0..40 {
        let text = random_text(3 + (seed % 9) as usize, 1 + seed % 5, &all, seed);
        let g = file(&text).unwrap();
        check_round_trip(&g, 0..g.size()).unwrap_or_else(|e| panic!("{e}\n{text}"));
    }
    // Hand-made: a triangle with a pendant, a loop on the ground, a loop up high, a
    // double edge.
    let g = file("0 1 B\n1 2 R\n2 0 G\n2 3 B\n0 0 R\n3 3 G\n1 4 B\n1 4 R\n").unwrap();
    check_round_trip(&g, 0..g.size()).unwrap();
}

#[test]
fn pruning_and_moves() {
    // A blue edge on the ground holding a red and a green edge above it.
    let g = file("0 1 B\n1 2 R\n1 3 G\n").unwrap();
    let full = g.parse_position("BRG/R").unwrap();
    let names: Vec<String> = g.moves(full).iter().map(|m| m.name.clone()).collect();
    assert_eq!(names, ["e1", "e2"]);
    let left = g.parse_position("BRG").unwrap();
    let m: Vec<String> = g
        .moves(left)
        .iter()
        .map(|m| g.position_text(m.child))
        .collect();
    // Cutting the trunk drops everything.
    assert_eq!(m, [".../R", "BR./R"]);
}

#[test]
fn position_errors_are_clear() {
    let g = file("0 1 B\n1 2 R\n").unwrap();
    let e = g.parse_position("B").unwrap_err().to_string();
    assert!(e.contains("expected 2 edge characters"), "{e}");
    let e = g.parse_position("BB").unwrap_err().to_string();
    assert!(e.contains("edge e1 (1-2) is red"), "{e}");
    let e = g.parse_position(".R").unwrap_err().to_string();
    assert!(e.contains("e1 are not connected to the ground"), "{e}");
    assert!(e.ends_with("(without them it is '../L')"), "{e}");
    let e = g.parse_position("BR/X").unwrap_err().to_string();
    assert!(e.contains("/L or /R"), "{e}");
    assert_eq!(g.parse_position("BR"), g.parse_position("BR/L"));
    assert_ne!(g.parse_position("BR/R"), g.parse_position("BR/L"));
}

#[test]
fn file_errors_name_file_and_line() {
    let e = file("0 1 B\n1 2 X\n").unwrap_err().to_string();
    assert_eq!(
        e,
        "h.txt:2: unknown colour 'X' (expected B for blue/Left, R for red/Right or G for green)"
    );
    let e = file("1 2 B\n2 3 R\n").unwrap_err().to_string();
    assert!(e.starts_with("h.txt: no edge touches the ground"), "{e}");
    let e = file("# only a comment\n").unwrap_err().to_string();
    assert!(e.starts_with("h.txt: contains no edges"), "{e}");
    let e = file("0 1 B\n# gap\n2 3 R\n").unwrap_err().to_string();
    assert!(
        e.starts_with("h.txt:3: edge 2-3 is not connected to the ground"),
        "{e}"
    );
    let e = file("0 1\n").unwrap_err().to_string();
    assert!(e.starts_with("h.txt:1: expected an edge 'u v C'"), "{e}");
    let e = file("0 -1 B\n").unwrap_err().to_string();
    assert!(e.starts_with("h.txt:1: negative vertex id"), "{e}");
    let e = file("0 a B\n").unwrap_err().to_string();
    assert!(e.starts_with("h.txt:1: 'a' is not a vertex id"), "{e}");
    let e = file("0 1 BR\n").unwrap_err().to_string();
    assert!(e.contains("unknown colour 'BR'"), "{e}");
    let many: String = (0..64).map(|i| format!("0 {} B\n", i + 1)).collect();
    let e = file(&many).unwrap_err().to_string();
    assert!(e.starts_with("h.txt:64: too many edges"), "{e}");
}

#[test]
fn refuses_huge_pictures_before_listing_them() {
    // 40 edges on the ground: 2^40 grounded sets.
    let star: String = (0..40).map(|i| format!("0 {} B\n", i + 1)).collect();
    let e = Hackenbush::parse_file("h.txt", star.as_bytes(), 1 << 24).unwrap_err();
    assert!(matches!(e, Error::Memory { .. }), "{e}");
    assert!(
        e.to_string()
            .contains("listing the positions of hackenbush:h.txt"),
        "{e}"
    );
    let e = Hackenbush::parse_stalk(&"B".repeat(64), u64::MAX)
        .unwrap_err()
        .to_string();
    assert!(e.contains("more than 63 edges"), "{e}");
    let e = Hackenbush::parse_tree(&"l".repeat(70), u64::MAX)
        .unwrap_err()
        .to_string();
    assert!(e.contains("more than 63 edges"), "{e}");
    assert_eq!(
        Hackenbush::parse_stalk(&"R".repeat(63), u64::MAX)
            .unwrap()
            .size(),
        128
    );
}

#[test]
fn tree_grammar() {
    let edges = TreeParser::parse("l(l;rl)").unwrap();
    let got: Vec<(u64, u64, char)> = edges
        .iter()
        .map(|e| (e.u, e.v, e.colour.letter()))
        .collect();
    assert_eq!(got, [(0, 1, 'B'), (1, 2, 'B'), (1, 3, 'R'), (3, 4, 'B')]);
    let edges = TreeParser::parse(" e e ; BR(g) ").unwrap();
    let got: Vec<(u64, u64, char)> = edges
        .iter()
        .map(|e| (e.u, e.v, e.colour.letter()))
        .collect();
    assert_eq!(
        got,
        [
            (0, 1, 'G'),
            (1, 2, 'G'),
            (0, 3, 'B'),
            (3, 4, 'R'),
            (4, 5, 'G')
        ]
    );
    assert!(TreeParser::parse("").unwrap().is_empty());
    for (bad, msg) in [
        ("l(l;rl", "the '(' at character 2 is never closed"),
        ("l)", "unexpected ')' at character 2"),
        (
            "l(;r)",
            "expected an edge letter (l, r, e or B, R, G) at character 3 but found ';'",
        ),
        ("l()", "at character 3 but found ')'"),
        ("(l)", "at character 1 but found '('"),
        ("lx", "unexpected 'x' at character 2"),
        ("l(r)(l)", "unexpected '(' at character 5"),
        ("l;", "a branch is empty at the end"),
        ("l(rq)", "expected ';' or ')' at character 4 but found 'q'"),
    ] {
        let e = TreeParser::parse(bad).unwrap_err().to_string();
        assert!(e.contains(msg), "{bad}: {e}");
    }
    let e = Hackenbush::parse_tree("l(x)", u64::MAX)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("game spec 'hackenbush-tree:l(x)': expected an edge letter"),
        "{e}"
    );
    let e = Hackenbush::parse_stalk("BRQ", u64::MAX)
        .unwrap_err()
        .to_string();
    assert!(e.contains("character 3 is 'Q', not an edge colour"), "{e}");
}

/// A canonical text of the subtree above vertex `v`: its branches' texts, sorted.
fn canonical(children: &[Vec<(usize, char)>], v: usize) -> String {
    let mut parts: Vec<String> = children[v]
        .iter()
        .map(|&(c, colour)| format!("{colour}[{}]", canonical(children, c)))
        .collect();
    parts.sort();
    parts.concat()
}

/// Writes the forest above `v` in the tree syntax, each edge with its own letter.
fn write_forest(children: &[Vec<(usize, char)>], v: usize, out: &mut String) {
    for (i, &(c, colour)) in children[v].iter().enumerate() {
        if i > 0 {
            out.push(';');
        }
        out.push(colour);
        let mut top = c;
        while children[top].len() == 1 {
            out.push(children[top][0].1);
            top = children[top][0].0;
        }
        if children[top].len() > 1 {
            out.push('(');
            write_forest(children, top, out);
            out.push(')');
        }
    }
}

proptest::proptest! {
    /// Any tree written in the tree syntax reads back as the same tree.
    #[test]
    fn tree_syntax_round_trips(
        shape in proptest::collection::vec((0usize..1000, 0usize..6), 0..40)
    ) {
        let letters = ['l', 'r', 'e', 'B', 'R', 'G'];
        let mut children = vec![Vec::new(); shape.len() + 1];
        for (k, &(p, c)) in shape.iter().enumerate() {
            children[p % (k + 1)].push((k + 1, letters[c]));
        }
        let mut text = String::new();
        write_forest(&children, 0, &mut text);
        let edges = TreeParser::parse(&text).unwrap();
        let mut parsed = vec![Vec::new(); edges.len() + 1];
        for e in &edges {
            parsed[e.u as usize].push((e.v as usize, e.colour.letter()));
        }
        let normal: Vec<Vec<(usize, char)>> = children
            .iter()
            .map(|cs| {
                cs.iter()
                    .map(|&(v, l)| (v, Colour::from_spec_letter(l).unwrap().letter()))
                    .collect()
            })
            .collect();
        proptest::prop_assert_eq!(canonical(&parsed, 0), canonical(&normal, 0), "{}", text);
    }
}

#[test]
fn components_meet_only_at_the_ground() {
    let g = file("0 1 B\n1 2 R\n0 3 G\n3 1 B\n0 4 R\n0 0 G\n").unwrap();
    let mut comps = g.components(g.all);
    comps.sort_unstable();
    assert_eq!(comps, [0b001111, 0b010000, 0b100000]);
}

#[test]
fn values_of_small_positions() {
    let v = |spec: &str| {
        let g = Hackenbush::parse_tree(spec, u64::MAX).unwrap();
        g.value_of_set(g.all).map(|v| v.to_string())
    };
    assert_eq!(v("").as_deref(), Some("0"));
    assert_eq!(v("l").as_deref(), Some("1"));
    assert_eq!(v("r").as_deref(), Some("-1"));
    assert_eq!(v("lr").as_deref(), Some("1/2"));
    assert_eq!(v("lrr").as_deref(), Some("1/4"));
    assert_eq!(v("l;r").as_deref(), Some("0"));
    assert_eq!(v("l(r;r)").as_deref(), Some("1/4"));
    assert_eq!(v("eee").as_deref(), Some("*3"));
    assert_eq!(v("e;lr").as_deref(), Some("1/2*"));
    assert_eq!(v("er"), None);
}
