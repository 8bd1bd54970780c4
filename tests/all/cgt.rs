//! Game values of whole cell games against their tables: every configuration's canonical value
//! must give the table's outcome for both movers.

use retrodb::Value;
use retrodb::game::Tiered;
use retrodb::games::AnyGame;
use retrodb::games::cell::values::board_values;
use retrodb::table::Table;
use retrodb::table::builder::{self, BuildOptions};

fn check(spec: &str, free_moves: u32) -> usize {
    let game = AnyGame::open(spec, u64::MAX).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.rdb");
    builder::build(&game, &path, &BuildOptions::default()).unwrap();
    let t = Table::open(&path).unwrap();
    let AnyGame::Cell(cell) = &game else {
        panic!("{spec} is a cell game")
    };
    let board = cell
        .board_shape()
        .and_then(|b| b.plain())
        .expect("a full table is a plain board");
    let mut v = board_values(&board, free_moves).unwrap();
    for (config, &g) in v.values.iter().enumerate() {
        let (left_first, left_second) = v.games.outcome(g);
        let c = config as u64;
        let l = t.value(2 * c).unwrap().unwrap();
        let r = t.value(2 * c + 1).unwrap().unwrap();
        assert_eq!(
            l == Value::Win,
            left_first,
            "{spec} config {config} Left to move: {}",
            v.games.show(g)
        );
        assert_eq!(
            r == Value::Win,
            !left_second,
            "{spec} config {config} Right to move: {}",
            v.games.show(g)
        );
    }
    let mut distinct: Vec<_> = v.values.clone();
    distinct.sort_unstable();
    distinct.dedup();
    distinct.len()
}

#[test]
fn values_give_the_tables_outcomes_for_both_movers() {
    for spec in ["bridgit:2", "hex:2", "hex:3", "bridgit:3"] {
        for c in [1, 3] {
            let n = check(spec, c);
            eprintln!("{spec}, C = {c}: {n} distinct values");
            assert!(n > 3);
        }
    }
}

fn hackenbush_value(spec: &str, position: &str) -> String {
    let game = AnyGame::open(spec, u64::MAX).unwrap();
    let pos =
        retrodb::with_game!(&game, g => retrodb::Notation::parse_position(g, position)).unwrap();
    let mut v = retrodb::games::cell::values::PositionValues::new(&game, 1, 1 << 20).unwrap();
    let g = v.value(pos).unwrap();
    v.games.show(g)
}

/// Values derived by hand: a green stalk of n edges is *n; a blue edge on a green one is
/// {0, * | 0} = ^*; a red on a blue is {0 | 1} = 1/2; a green on a blue is {0, 1 | 1} = 1*.
#[test]
fn hackenbush_stalks_have_their_hand_derived_values() {
    for (stalk, value) in [
        ("G", "*"),
        ("GG", "*2"),
        ("GGG", "*3"),
        ("GB", "^*"),
        ("GR", "v*"),
        ("BR", "1/2"),
        ("RB", "-1/2"),
        ("BG", "1*"),
        ("BB", "2"),
        ("BRR", "1/4"),
        // G B B: Left removes G (0), the lower B (G = *) or the upper (G B = ^*); Right
        // removes G (0): {0, *, ^* | 0}, where * < ^* is dominated.
        ("GBB", "{0,^*|0}"),
    ] {
        let spec = format!("hackenbush-stalk:{stalk}");
        let got = hackenbush_value(&spec, stalk);
        // Compared as games: the text of a canonical form is unique, but read it back to be
        // sure the expected text is one.
        let mut games = retrodb::game::cgt::Games::new();
        let (expect, g) = (games.parse(value).unwrap(), games.parse(&got).unwrap());
        assert_eq!(g, expect, "{stalk}: {got}");
        assert_eq!(got, games.show(expect), "{stalk}");
    }
}

/// Where the game already computes a number or a nimber (red-blue or all-green positions), the
/// canonical value is the same.
#[test]
fn hackenbush_values_agree_with_the_surreal_values() {
    for spec in [
        "hackenbush-stalk:BRBBRG",
        "hackenbush-tree:l(l;rl;ee)",
        "hackenbush-tree:e(e;e(e;e))",
        "hackenbush-tree:l(r(l;l);rr)",
    ] {
        let game = AnyGame::open(spec, u64::MAX).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.rdb");
        builder::build(&game, &path, &BuildOptions::default()).unwrap();
        let t = Table::open(&path).unwrap();
        let mut v =
            retrodb::games::cell::values::PositionValues::new(t.game(), 1, 1 << 20).unwrap();
        let mut compared = 0;
        for pos in 0..t.header().size {
            if t.value(pos).unwrap().is_none() {
                continue;
            }
            let p = t.probe(pos).unwrap();
            let g = v.value(pos).unwrap();
            let ours = v.games.show(g);
            if let Some(known) = p.extra.get("game_value") {
                assert_eq!(ours, known, "{spec} {}", p.position);
                compared += 1;
            }
            // The value's outcome is the table's.
            let (left_first, left_second) = v.games.outcome(g);
            let win = p.value == Value::Win;
            if pos % 2 == 0 {
                assert_eq!(win, left_first, "{spec} {}", p.position);
            } else {
                assert_eq!(win, !left_second, "{spec} {}", p.position);
            }
        }
        assert!(compared > 0, "{spec}");
    }
}

/// The tier-parallel `board_values` against `PositionValues`, which recurses through the game's
/// own children one position at a time (no tiers; its own memo and map of option lists), on
/// every configuration; and the same canonical forms whatever the number of threads.
#[test]
fn board_values_agree_with_values_computed_position_by_position() {
    let k4 = format!("shannon:{}/data/shannon/k4.txt", env!("CARGO_MANIFEST_DIR"));
    for spec in ["bridgit:2", "hex:3", &k4] {
        let game = AnyGame::open(spec, u64::MAX).unwrap();
        let AnyGame::Cell(cell) = &game else {
            panic!("{spec} is a cell game")
        };
        let board = cell
            .board_shape()
            .and_then(|b| b.plain())
            .expect("a full table is a plain board");
        for c in [1, 2] {
            let v = board_values(&board, c).unwrap();
            let mut p =
                retrodb::games::cell::values::PositionValues::new(&game, c, usize::MAX).unwrap();
            for (config, &g) in v.values.iter().enumerate() {
                let theirs = p.value(2 * config as u64).unwrap();
                assert_eq!(
                    v.games.show(g),
                    p.games.show(theirs),
                    "{spec} C = {c} config {config}"
                );
            }
            // Each distinct pair of option lists was made canonical once, as by board_values
            // (every open configuration lies below the empty board, so both saw the same
            // lists), not once per configuration.
            let mut fresh =
                retrodb::games::cell::values::PositionValues::new(&game, c, usize::MAX).unwrap();
            fresh.value(0).unwrap();
            assert_eq!(fresh.option_lists(), v.option_lists, "{spec} C = {c}");
            assert!(
                v.option_lists * 4 < v.values.len(),
                "{spec}: far fewer lists than boards"
            );
            let one = rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .build()
                .unwrap()
                .install(|| board_values(&board, c).unwrap());
            let three = rayon::ThreadPoolBuilder::new()
                .num_threads(3)
                .build()
                .unwrap()
                .install(|| board_values(&board, c).unwrap());
            assert_eq!(one.values, v.values, "{spec}: ids do not depend on threads");
            assert_eq!(
                three.values, v.values,
                "{spec}: ids do not depend on threads"
            );
        }
    }
}

#[test]
fn board_values_refuse_bad_requests() {
    let game = AnyGame::open("bridgit:2", u64::MAX).unwrap();
    let AnyGame::Cell(cell) = &game else {
        unreachable!()
    };
    let board = cell.board_shape().and_then(|b| b.plain()).unwrap();
    let err = board_values(&board, 0).err().expect("C = 0 is refused");
    assert!(err.to_string().contains("at least one free move"), "{err}");
}

/// A game as an explicit tree of options, for brute force without canonical forms.
#[derive(Clone)]
struct Tree {
    l: Vec<Tree>,
    r: Vec<Tree>,
}

/// The whole game tree of a Hackenbush position, from the game's own moves (no memo, no
/// canonical forms).
fn hackenbush_tree(game: &AnyGame, pos: u64) -> Tree {
    let key = pos & !1;
    let mut sides = [Vec::new(), Vec::new()];
    for (mover, side) in sides.iter_mut().enumerate() {
        let mut children = Vec::new();
        retrodb::with_game!(game, g => retrodb::Game::for_each_child(g, key + mover as u64, |c| children.push(c)));
        *side = children
            .into_iter()
            .map(|c| hackenbush_tree(game, c))
            .collect();
    }
    let [l, r] = sides;
    Tree { l, r }
}

/// A canonical game of an arena as an explicit tree.
fn arena_tree(games: &retrodb::game::cgt::Games, g: retrodb::game::cgt::Game) -> Tree {
    Tree {
        l: games
            .left(g)
            .iter()
            .map(|&x| arena_tree(games, x))
            .collect(),
        r: games
            .right(g)
            .iter()
            .map(|&x| arena_tree(games, x))
            .collect(),
    }
}

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

/// Whether the player to move wins, by plain minimax: Left moving first in `t` if `left`.
fn mover_wins(t: &Tree, left: bool) -> bool {
    let opts = if left { &t.l } else { &t.r };
    opts.iter().any(|o| !mover_wins(o, !left))
}

/// Red-blue-green values derived by hand, each checked two ways: the canonical form printed is
/// the expected text, and, by brute force on explicit game trees, `G - H` (the position minus
/// the expected value) is lost by whoever moves first, i.e. `G - H = 0`.
#[test]
fn hackenbush_hand_derived_values_hold_by_brute_force() {
    let cases = [
        // A green stalk of n edges is *n.
        ("hackenbush-stalk:G", "*"),
        ("hackenbush-stalk:GG", "*2"),
        ("hackenbush-stalk:GGG", "*3"),
        ("hackenbush-stalk:GGGG", "*4"),
        // Blue on green: Left takes the blue (*) or the green (0), Right only the green (0):
        // {0, * | 0} = ^*. Red on green is the negative, v*.
        ("hackenbush-stalk:GB", "^*"),
        ("hackenbush-stalk:GR", "v*"),
        // Green on blue: {0, 1 | 1} = 1*; green on red: {-1 | -1, 0} = {-1 | -1} = -1*.
        ("hackenbush-stalk:BG", "1*"),
        ("hackenbush-stalk:RG", "-1*"),
        // Numbers: BB = 2, BR = {0 | 1} = 1/2, BRR = {0 | 1/2} = 1/4, RB = -1/2.
        ("hackenbush-stalk:BB", "2"),
        ("hackenbush-stalk:BR", "1/2"),
        ("hackenbush-stalk:BRR", "1/4"),
        ("hackenbush-stalk:RB", "-1/2"),
        // Side by side: a sum. * + * = 0; 1 + * = 1*; 1/2 + (-1/2) = 0.
        ("hackenbush-tree:e;e", "0"),
        ("hackenbush-tree:l;e", "1*"),
        ("hackenbush-tree:lr;rl", "0"),
        // The colon principle: branches on a green edge add as nimbers and become a stalk:
        // e(e;e) = 1 : (* + *) = 1 : 0 = *; e(ee;e) = 1 : (*2 + *) = 1 : *3 = *4.
        ("hackenbush-tree:e(e;e)", "*"),
        ("hackenbush-tree:e(ee;e)", "*4"),
        // G B R: Left takes G (0) or B (leaving G = *); Right takes G (0) or R (leaving GB =
        // ^*). Neither side's options dominate (0 and * are confused, so are 0 and ^*), and none
        // reverses: {0, * | 0, ^*}.
        ("hackenbush-stalk:GBR", "{0,*|0,^*}"),
    ];
    for (spec, value) in cases {
        let game = AnyGame::open(spec, u64::MAX).unwrap();
        let start = game.start().unwrap();
        let mut v = retrodb::games::cell::values::PositionValues::new(&game, 1, 1 << 20).unwrap();
        let g = v.value(start).unwrap();
        assert_eq!(v.games.show(g), value, "{spec}");
        let expected = v.games.parse(value).unwrap();
        let d = tree_sum(
            &hackenbush_tree(&game, start),
            &tree_neg(&arena_tree(&v.games, expected)),
        );
        assert!(
            !mover_wins(&d, true) && !mover_wins(&d, false),
            "{spec}: G - {value} is not a second-player win"
        );
        // Not vacuous: against a different value the difference is not zero.
        let other = v.games.parse(if value == "*" { "0" } else { "*" }).unwrap();
        let d = tree_sum(
            &hackenbush_tree(&game, start),
            &tree_neg(&arena_tree(&v.games, other)),
        );
        assert!(mover_wins(&d, true) || mover_wins(&d, false), "{spec}");
    }
}

/// The limit bounds the positions one value visits anew, not the memo's size: many small values
/// in a row are all computed, while one value needing more than the limit is not (and its
/// refusal leaves the next values right).
#[test]
fn position_values_limit_each_value_not_the_memo() {
    let game = AnyGame::open("hex:3", u64::MAX).unwrap();
    let AnyGame::Cell(cell) = &game else {
        unreachable!()
    };
    let board = cell.board_shape().and_then(|b| b.plain()).unwrap();
    let all = board_values(&board, 1).unwrap();
    let mut v = retrodb::games::cell::values::PositionValues::new(&game, 1, 200).unwrap();
    assert!(
        v.value(0).is_none(),
        "the empty board lies over 19,683 boards"
    );
    // Boards with 7 of 9 cells claimed: at most 3^2 boards below each.
    let mut computed = 0;
    for config in 0..3u64.pow(9) {
        let (l, r) = retrodb::game::shape::digit_masks(config, 9);
        if (l | r).count_ones() != 7 {
            continue;
        }
        let g = v.value(2 * config + 1).expect("a small value is computed");
        assert_eq!(v.games.show(g), all.games.show(all.values[config as usize]));
        computed += 1;
    }
    assert!(
        computed > 200 * 4,
        "{computed}: far more boards than the limit, all computed"
    );
    assert!(v.value(0).is_none(), "still over the limit");
}
