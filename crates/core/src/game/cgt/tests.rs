use super::*;

/// A game as a plain tree of options, compared by the definition alone: the reference the
/// arena's canonical forms are checked against.
#[derive(Clone, Debug)]
struct Tree {
    l: Vec<Tree>,
    r: Vec<Tree>,
}

fn naive_le(g: &Tree, h: &Tree) -> bool {
    !g.l.iter().any(|x| naive_le(h, x)) && !h.r.iter().any(|y| naive_le(y, g))
}

fn canon(games: &mut Games, t: &Tree) -> Game {
    let l = t.l.iter().map(|x| canon(games, x)).collect();
    let r = t.r.iter().map(|x| canon(games, x)).collect();
    games.make(l, r)
}

/// Reproducible random trees of depth at most `depth`.
fn next(seed: &mut u64, n: u64) -> u64 {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (*seed >> 33) % n
}

fn random_tree(seed: &mut u64, depth: u32) -> Tree {
    if depth == 0 {
        return Tree {
            l: vec![],
            r: vec![],
        };
    }
    let (nl, nr) = (next(seed, 3), next(seed, 3));
    let mut side = |n: u64| -> Vec<Tree> {
        (0..n)
            .map(|_| {
                let d = next(seed, depth as u64) as u32;
                random_tree(seed, d)
            })
            .collect()
    };
    let l = side(nl);
    let r = side(nr);
    Tree { l, r }
}

#[test]
fn canonical_forms_keep_the_order_of_random_games() {
    let mut games = Games::new();
    let mut seed = 7u64;
    // Thousands of games, each compared with itself and a few dozen others.
    let trees: Vec<Tree> = (0..2000).map(|_| random_tree(&mut seed, 4)).collect();
    let ids: Vec<Game> = trees.iter().map(|t| canon(&mut games, t)).collect();
    let mut equal_pairs = 0;
    for i in 0..trees.len() {
        for j in (i..trees.len()).step_by(53) {
            let le = naive_le(&trees[i], &trees[j]);
            let ge = naive_le(&trees[j], &trees[i]);
            assert_eq!(games.le(ids[i], ids[j]), le, "{i} <= {j}");
            assert_eq!(games.le(ids[j], ids[i]), ge, "{j} <= {i}");
            // Equal as games exactly when the canonical forms are the same node.
            assert_eq!(ids[i] == ids[j], le && ge, "{i} = {j}");
            equal_pairs += (le && ge && i != j) as u32;
        }
    }
    assert!(equal_pairs > 0, "the sample should hold some equal games");
}

#[test]
fn canonical_forms_have_no_dominated_or_reversible_options() {
    let mut games = Games::new();
    let mut seed = 11u64;
    for _ in 0..300 {
        let t = random_tree(&mut seed, 4);
        canon(&mut games, &t);
    }
    for k in 0..games.len() {
        let g = Game(k as u32);
        let (l, r) = (games.left(g).to_vec(), games.right(g).to_vec());
        for &a in &l {
            for &b in &l {
                assert!(
                    a == b || !games.le(a, b),
                    "dominated Left option in {}",
                    games.show(g)
                );
            }
            for &ar in games.right(a).to_vec().iter() {
                assert!(
                    !games.le(ar, g),
                    "reversible Left option in {}",
                    games.show(g)
                );
            }
        }
        for &a in &r {
            for &b in &r {
                assert!(
                    a == b || !games.le(b, a),
                    "dominated Right option in {}",
                    games.show(g)
                );
            }
            for &al in games.left(a).to_vec().iter() {
                assert!(
                    !games.le(g, al),
                    "reversible Right option in {}",
                    games.show(g)
                );
            }
        }
    }
}

#[test]
fn sums_and_negatives_agree_with_the_definition() {
    let mut games = Games::new();
    let mut seed = 3u64;
    let trees: Vec<Tree> = (0..60).map(|_| random_tree(&mut seed, 3)).collect();
    fn tree_sum(a: &Tree, b: &Tree) -> Tree {
        let mut l: Vec<Tree> = a.l.iter().map(|x| tree_sum(x, b)).collect();
        l.extend(b.l.iter().map(|x| tree_sum(a, x)));
        let mut r: Vec<Tree> = a.r.iter().map(|x| tree_sum(x, b)).collect();
        r.extend(b.r.iter().map(|x| tree_sum(a, x)));
        Tree { l, r }
    }
    fn tree_neg(a: &Tree) -> Tree {
        Tree {
            l: a.r.iter().map(tree_neg).collect(),
            r: a.l.iter().map(tree_neg).collect(),
        }
    }
    for i in 0..trees.len() {
        let j = (i * 7 + 3) % trees.len();
        let (a, b) = (canon(&mut games, &trees[i]), canon(&mut games, &trees[j]));
        let s = games.add(a, b);
        assert_eq!(s, canon(&mut games, &tree_sum(&trees[i], &trees[j])));
        let n = games.neg(a);
        assert_eq!(n, canon(&mut games, &tree_neg(&trees[i])));
        // G - G = 0.
        assert_eq!(games.sub(a, a), Games::ZERO);
    }
}

#[test]
fn known_values_print_in_cgsuite_notation() {
    let mut g = Games::new();
    let z = Games::ZERO;
    let one = g.make(vec![z], vec![]);
    let minus_one = g.make(vec![], vec![z]);
    let star = g.make(vec![z], vec![z]);
    let two = g.make(vec![one], vec![]);
    let half = g.make(vec![z], vec![one]);
    let up = g.make(vec![z], vec![star]);
    let star2 = g.make(vec![z, star], vec![z, star]);
    let cases = [
        (z, "0"),
        (one, "1"),
        (minus_one, "-1"),
        (two, "2"),
        (half, "1/2"),
        (star, "*"),
        (star2, "*2"),
        (up, "^"),
    ];
    for (game, text) in cases {
        assert_eq!(g.show(game), text);
    }
    let up_star = g.add(up, star);
    assert_eq!(g.show(up_star), "^*");
    let down = g.neg(up);
    assert_eq!(g.show(down), "v");
    let double_up = g.add(up, up);
    assert_eq!(g.show(double_up), "^^");
    let triple_up_star = g.ups(3, true);
    assert_eq!(g.show(triple_up_star), "^3*");
    // {1|0} is not 1/2: a hot game; {1|-1} is +-1.
    let pm1 = g.make(vec![one], vec![minus_one]);
    assert_eq!(g.show(pm1), "+-1");
    let two_zero = g.make(vec![two], vec![z]);
    let nested = g.make(vec![two_zero], vec![minus_one]);
    assert_eq!(g.show(nested), "{2|0||-1}");
    // 1 + * and 3/2.
    let one_star = g.add(one, star);
    assert_eq!(g.show(one_star), "1*");
    let three_halves = g.add(one, half);
    assert_eq!(g.show(three_halves), "3/2");
    // Facts: * + * = 0, ^ > 0, ^* and * are confused with 0, +-1 + +-1 = 0.
    assert_eq!(g.add(star, star), z);
    assert_eq!(g.compare(up, z), Order::Greater);
    assert_eq!(g.compare(up_star, z), Order::Confused);
    assert_eq!(g.compare(star, z), Order::Confused);
    assert_eq!(g.add(pm1, pm1), z);
    assert_eq!(g.outcome(star), (true, false));
    assert_eq!(g.outcome(up), (true, true));
}

#[test]
fn notation_reads_back_what_it_writes() {
    let mut games = Games::new();
    let mut seed = 5u64;
    for _ in 0..400 {
        let t = random_tree(&mut seed, 4);
        let g = canon(&mut games, &t);
        let text = games.show(g);
        let back = games.parse(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(back, g, "{text} read back as {}", games.show(back));
    }
    for text in [
        "0",
        "-3/4",
        "*5",
        "1/2*2",
        "v*",
        "vv",
        "2^",
        "+-3/2",
        "{2|0,*}",
        "{2|0||-1}",
        "{1||1|+-1|||1,+-1|-1,+-1||-1}",
    ] {
        let g = games.parse(text).unwrap();
        assert_eq!(games.show(g), text, "{text}");
    }
    for bad in [
        "",
        "{1|0",
        "1|0",
        "{1||0||1}",
        "x",
        "*x",
        "+--1",
        "{a|b}",
        "{1|0},2||3}",
    ] {
        assert!(games.parse(bad).is_err(), "{bad:?} should not parse");
    }
}
