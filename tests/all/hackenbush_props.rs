//! Hackenbush against answers worked out here, independently of the game module: the naive
//! minimax on its own edge-list representation, Berlekamp's sign expansion for stalks, the colon
//! principle for green trees, and the outcome classes the exact values imply.

use std::collections::HashMap;

use retrodb::Value;
use retrodb::base::cells::{self, Cells};
use retrodb::base::splitmix::SplitMix64;
use retrodb::game::cgt::numbers::Dyadic;
use retrodb::games::hackenbush::{Colour, Hackenbush, outcome_class, random_text};
use retrodb::solve::{SolveOptions, counter};
use retrodb::{Game, Notation};

/// Solves `g` in memory with the counter engine; the value of every index.
fn solve(g: &Hackenbush) -> Vec<Value> {
    let words = cells::zeroed_words(cells::words_for(g.size()));
    let c = Cells::new(&words, g.size());
    counter::solve(g, &c, &SolveOptions::default());
    (0..g.size())
        .map(|i| cells::value(c.get(i)).expect("every index is a position"))
        .collect()
}

fn file(text: &str) -> Hackenbush {
    Hackenbush::parse_file("random.txt", text.as_bytes(), u64::MAX)
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// The rules once more, on a plain edge list with presence flags.
struct Naive {
    edges: Vec<(u64, u64, char)>,
}

impl Naive {
    fn from_text(text: &str) -> Naive {
        let edges = text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| {
                let w: Vec<&str> = l.split_whitespace().collect();
                (
                    w[0].parse().unwrap(),
                    w[1].parse().unwrap(),
                    w[2].chars().next().unwrap(),
                )
            })
            .collect();
        Naive { edges }
    }

    /// Keeps the present edges reachable from vertex 0 by walking the present edges.
    fn prune(&self, present: &[bool]) -> Vec<bool> {
        let mut seen_vertex = vec![0u64];
        let mut keep = vec![false; present.len()];
        let mut grew = true;
        while grew {
            grew = false;
            for (i, &(u, v, _)) in self.edges.iter().enumerate() {
                if present[i] && !keep[i] && (seen_vertex.contains(&u) || seen_vertex.contains(&v))
                {
                    keep[i] = true;
                    grew = true;
                    for x in [u, v] {
                        if !seen_vertex.contains(&x) {
                            seen_vertex.push(x);
                        }
                    }
                }
            }
        }
        keep
    }

    /// Whether the mover wins (`right`: Right moves), by plain recursion with a memo.
    fn wins(
        &self,
        present: &[bool],
        right: bool,
        memo: &mut HashMap<(Vec<bool>, bool), bool>,
    ) -> bool {
        if let Some(&w) = memo.get(&(present.to_vec(), right)) {
            return w;
        }
        let mine = if right { 'R' } else { 'B' };
        let mut win = false;
        for (i, &(_, _, c)) in self.edges.iter().enumerate() {
            if present[i] && (c == mine || c == 'G') {
                let mut next = present.to_vec();
                next[i] = false;
                let next = self.prune(&next);
                if !self.wins(&next, !right, memo) {
                    win = true;
                    break;
                }
            }
        }
        memo.insert((present.to_vec(), right), win);
        win
    }
}

fn presence(g: &Hackenbush, pos: u64) -> Vec<bool> {
    let text = g.position_text(pos);
    text.split('/')
        .next()
        .unwrap()
        .chars()
        .map(|c| c != '.')
        .collect()
}

#[test]
fn outcome_table_agrees_with_naive_minimax_on_random_graphs() {
    let all = [Colour::Blue, Colour::Red, Colour::Green];
    let mut checked = 0;
    for seed in 0..60u64 {
        let n = 1 + (seed % 12) as usize;
        let vertices = 1 + seed % 7;
        let text = random_text(n, vertices, &all, seed * 7919 + 1);
        let g = file(&text);
        let naive = Naive::from_text(&text);
        // The game lists every grounded set, and only those.
        let grounded = (0..1u64 << n)
            .filter(|&m| {
                let p: Vec<bool> = (0..n).map(|i| m >> i & 1 == 1).collect();
                naive.prune(&p) == p
            })
            .count() as u64;
        assert_eq!(g.size(), 2 * grounded, "{text}");
        let values = solve(&g);
        let mut memo = HashMap::new();
        for pos in 0..g.size() {
            let present = presence(&g, pos);
            let right = g.position_text(pos).ends_with("/R");
            let expect = if naive.wins(&present, right, &mut memo) {
                Value::Win
            } else {
                Value::Loss
            };
            assert_eq!(
                values[pos as usize],
                expect,
                "{} in\n{text}",
                g.position_text(pos)
            );
            checked += 1;
        }
    }
    assert!(checked > 10_000, "only {checked} positions checked");
}

/// Berlekamp's rule: the first run of equal colours counts whole edges, and after the first
/// change of colour each edge is worth half the one below it.
fn sign_expansion(colours: &[bool]) -> Dyadic {
    let sign = |blue: bool| if blue { 1 } else { -1 };
    let run = colours.iter().take_while(|&&c| c == colours[0]).count();
    let mut v = Dyadic::int(if colours.is_empty() {
        0
    } else {
        sign(colours[0]) * run as i64
    });
    for (k, &c) in colours[run..].iter().enumerate() {
        let step = Dyadic::new(sign(c) as i128, k as u32 + 1).unwrap();
        v = v.checked_add(step).unwrap();
    }
    v
}

#[test]
fn every_stalk_up_to_16_edges_has_its_sign_expansion_value() {
    for n in 0..=16u32 {
        for bits in 0..1u32 << n {
            let colours: Vec<bool> = (0..n).map(|i| bits >> i & 1 == 0).collect();
            let spec: String = colours.iter().map(|&b| if b { 'B' } else { 'R' }).collect();
            let g = Hackenbush::parse_stalk(&spec, u64::MAX).unwrap();
            let full = g.parse_position(&spec).unwrap();
            let v = g.game_value(full).unwrap();
            assert_eq!(v.nimber, 0, "{spec}");
            assert_eq!(v.number, sign_expansion(&colours), "{spec}");
        }
    }
}

#[test]
fn outcome_classes_follow_the_sign_of_the_value() {
    // Red-blue graphs: every position is a number, positive L, negative R, zero P.
    let rb = [Colour::Blue, Colour::Red];
    let mut seen = HashMap::new();
    for seed in 0..80u64 {
        let text = random_text(4 + (seed % 9) as usize, 1 + seed % 6, &rb, seed ^ 0xABCD);
        let g = file(&text);
        let values = solve(&g);
        for pos in (0..g.size()).step_by(2) {
            let class = outcome_class(values[pos as usize], values[pos as usize + 1]).unwrap();
            let v = g.game_value(pos).expect("red-blue positions have values");
            assert_eq!(v.nimber, 0);
            let expect = match v.number.signum() {
                1 => 'L',
                -1 => 'R',
                _ => 'P',
            };
            assert_eq!(class, expect, "{} = {v} in\n{text}", g.position_text(pos));
            *seen.entry(class).or_insert(0) += 1;
        }
    }
    // The test only means something if all three classes occurred.
    assert!(seen.len() == 3, "{seen:?}");

    // Sums of red-blue and green-only components: x + *n, whose class the value also fixes
    // (a non-zero nimber makes a zero number a first-player win).
    let mut kinds = HashMap::new();
    for seed in 0..40u64 {
        let mut text = random_text(3 + (seed % 5) as usize, 3, &rb, seed);
        // Green edges on fresh vertices far from the red-blue part, hung from the ground.
        let mut rng = SplitMix64(seed);
        let base = 100;
        let greens = 1 + rng.below(4);
        for i in 0..greens {
            let from = if i == 0 { 0 } else { base + rng.below(i) };
            text.push_str(&format!("{from} {} G\n", base + i));
        }
        let g = file(&text);
        let values = solve(&g);
        for pos in (0..g.size()).step_by(2) {
            let class = outcome_class(values[pos as usize], values[pos as usize + 1]).unwrap();
            let v = g.game_value(pos).expect("number plus nimber");
            assert_eq!(
                class,
                v.outcome(),
                "{} = {v} in\n{text}",
                g.position_text(pos)
            );
            *kinds.entry(class).or_insert(0) += 1;
        }
    }
    assert!(kinds.len() == 4, "{kinds:?}");
}

#[test]
fn green_stalks_have_nim_value_their_length() {
    for n in 0..=24usize {
        let spec = "G".repeat(n);
        let g = Hackenbush::parse_stalk(&spec, u64::MAX).unwrap();
        let full = g.parse_position(&spec).unwrap();
        let v = g.game_value(full).unwrap();
        assert_eq!(v.number, Dyadic::ZERO);
        assert_eq!(v.nimber, n as u64, "{spec}");
    }
    // And the table agrees: a non-empty green stalk is a first-player win.
    let g = Hackenbush::parse_tree("eeeee", u64::MAX).unwrap();
    let values = solve(&g);
    for pos in (0..g.size()).step_by(2) {
        let class = outcome_class(values[pos as usize], values[pos as usize + 1]).unwrap();
        let n = g.game_value(pos).unwrap().nimber;
        assert_eq!(class, if n == 0 { 'P' } else { 'N' });
    }
}

/// The colon principle: a vertex of a green tree is worth the nim sum, over the branches
/// growing from it, of one more than the value of the vertex at the branch's top.
fn colon_value(children: &[Vec<usize>], v: usize) -> u64 {
    children[v]
        .iter()
        .fold(0, |acc, &c| acc ^ (colon_value(children, c) + 1))
}

#[test]
fn green_trees_follow_the_colon_principle() {
    let mut rng = SplitMix64(2024);
    for round in 0..300 {
        let n = 1 + rng.below(18) as usize;
        // Vertex k + 1 hangs from a random earlier vertex (0 is the ground).
        let mut children = vec![Vec::new(); n + 1];
        let mut text = String::new();
        for k in 0..n {
            let parent = rng.below(k as u64 + 1) as usize;
            children[parent].push(k + 1);
            text.push_str(&format!("{parent} {} G\n", k + 1));
        }
        let g = file(&text);
        let full = g.index((1u64 << n) - 1, false).unwrap();
        let v = g.game_value(full).unwrap();
        assert_eq!(
            v.nimber,
            colon_value(&children, 0),
            "round {round}:\n{text}"
        );
        assert_eq!(v.number, Dyadic::ZERO);
    }
    // The tree syntax gives the same answers: a fork of stalks of 1 and 2 under an edge.
    let g = Hackenbush::parse_tree("e(e;ee)", u64::MAX).unwrap();
    let full = g.parse_position("GGGG").unwrap();
    assert_eq!(g.game_value(full).unwrap().nimber, (1 ^ 2) + 1);
}
