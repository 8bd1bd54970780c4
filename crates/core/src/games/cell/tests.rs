//! Tests of the cell-game core against an independent naive minimax, the parent/child contract,
//! the notation and the board symmetries.

use std::collections::HashMap;
use std::sync::atomic::AtomicU64;

use proptest::prelude::*;

use super::*;
use crate::base::cells::{self, Cells};
use crate::base::splitmix::SplitMix64;
use crate::game::check_round_trip;
use crate::solve::{self, SolveOptions};

fn board(b: Board) -> CellGame {
    CellGame::new(format!("{b:?}"), Layout::Board(b), None, u64::MAX).unwrap()
}

fn graph_game(edges: &[(u32, u32)], vertices: u32, vertex_game: bool) -> CellGame {
    let g = Graph {
        vertices,
        edges: edges.to_vec(),
        a: 0,
        b: 1,
    };
    let layout = if vertex_game {
        Layout::Vertices(g)
    } else {
        Layout::Edges(g)
    };
    CellGame::new("test".into(), layout, None, u64::MAX).unwrap()
}

/// Every position's value from the counter engine.
fn solve_all(game: &CellGame) -> Vec<Value> {
    let size = game.size();
    let words: Vec<AtomicU64> = (0..cells::words_for(size))
        .map(|_| AtomicU64::new(0))
        .collect();
    let c = Cells::new(&words, size);
    solve::counter::solve(game, &c, &SolveOptions::default());
    (0..size)
        .map(|p| cells::value(c.get(p)).expect("every index is a position"))
        .collect()
}

/// Reachability over points, following `links` from the `from` points; true if a `to` point is
/// reached. The naive reference: plain search over the game's own geometry, no bitboards.
fn reaches<P: Copy + Eq + std::hash::Hash>(
    from: Vec<P>,
    is_goal: impl Fn(P) -> bool,
    links: &[(P, P)],
) -> bool {
    let mut seen: std::collections::HashSet<P> = from.iter().copied().collect();
    let mut stack = from;
    while let Some(p) = stack.pop() {
        if is_goal(p) {
            return true;
        }
        for &(u, v) in links {
            for (x, y) in [(u, v), (v, u)] {
                if x == p && seen.insert(y) {
                    stack.push(y);
                }
            }
        }
    }
    false
}

/// The rules written out plainly, per layout: (Left has won, Right has won).
fn naive_winners(layout: &Layout, states: &[u8]) -> (bool, bool) {
    match layout {
        Layout::Edges(g) => {
            let through = |ok: &dyn Fn(u8) -> bool| {
                let links: Vec<(u32, u32)> = g
                    .edges
                    .iter()
                    .zip(states)
                    .filter(|&(_, &s)| ok(s))
                    .map(|(&e, _)| e)
                    .collect();
                reaches(vec![g.a], |v| v == g.b, &links)
            };
            (through(&|s| s == LEFT), !through(&|s| s != RIGHT))
        }
        Layout::Vertices(g) => {
            let inner = g.inner_vertices();
            let through = |ok: &dyn Fn(u8) -> bool| {
                let usable = |v: u32| {
                    v == g.a || v == g.b || ok(states[inner.iter().position(|&w| w == v).unwrap()])
                };
                let links: Vec<(u32, u32)> = g
                    .edges
                    .iter()
                    .copied()
                    .filter(|&(u, v)| usable(u) && usable(v))
                    .collect();
                reaches(vec![g.a], |v| v == g.b, &links)
            };
            (through(&|s| s == LEFT), !through(&|s| s != RIGHT))
        }
        Layout::Board(Board::Hex(n)) => {
            let n = *n as i32;
            // Each player through his own cells: Left columns, Right rows.
            let own =
                |who: u8, start: &dyn Fn(i32, i32) -> bool, end: &dyn Fn(i32, i32) -> bool| {
                    let mine: Vec<(i32, i32)> = (0..n * n)
                        .filter(|&i| states[i as usize] == who)
                        .map(|i| (i / n, i % n))
                        .collect();
                    let mut links = Vec::new();
                    for &(r, c) in &mine {
                        for (dr, dc) in [(0, 1), (1, 0), (1, -1)] {
                            if mine.contains(&(r + dr, c + dc)) {
                                links.push(((r, c), (r + dr, c + dc)));
                            }
                        }
                    }
                    let from = mine.iter().copied().filter(|&(r, c)| start(r, c)).collect();
                    reaches(from, |(r, c)| end(r, c), &links)
                };
            (
                own(LEFT, &|_, c| c == 0, &|_, c| c == n - 1),
                own(RIGHT, &|r, _| r == 0, &|r, _| r == n - 1),
            )
        }
        Layout::Board(b @ Board::Bridgit(n)) => {
            let m = 2 * *n;
            // Left's bridges join his dots (x even, y odd) to the columns x = 0 and x = 2N;
            // Right's join his dots (x odd, y even) to the rows y = 0 and y = 2N.
            let bridges = |who: u8| -> Vec<((u32, u32), (u32, u32))> {
                b.coordinates()
                    .iter()
                    .zip(states)
                    .filter(|&(_, &s)| s == who)
                    .map(|(&(x, y), _)| {
                        let horizontal = (who == LEFT) == (x % 2 == 1);
                        if horizontal {
                            ((x - 1, y), (x + 1, y))
                        } else {
                            ((x, y - 1), (x, y + 1))
                        }
                    })
                    .collect()
            };
            let left_from = (1..m).step_by(2).map(|y| (0, y)).collect();
            let right_from = (1..m).step_by(2).map(|x| (x, 0)).collect();
            (
                reaches(left_from, |(x, _)| x == m, &bridges(LEFT)),
                reaches(right_from, |(_, y)| y == m, &bridges(RIGHT)),
            )
        }
    }
}

/// Memoised minimax over cell states: the value for the player to move.
fn naive_value(
    layout: &Layout,
    states: &mut Vec<u8>,
    mover: Player,
    memo: &mut HashMap<(Vec<u8>, Player), Value>,
) -> Value {
    if let Some(&v) = memo.get(&(states.clone(), mover)) {
        return v;
    }
    let (left, right) = naive_winners(layout, states);
    assert!(!(left && right), "both players have won in {states:?}");
    let v = if left || right {
        if left == (mover == Player::Left) {
            Value::Win
        } else {
            Value::Loss
        }
    } else {
        let mut v = Value::Loss;
        for i in 0..states.len() {
            if states[i] == EMPTY {
                states[i] = mover.cell();
                let child = naive_value(layout, states, mover.other(), memo);
                states[i] = EMPTY;
                if child == Value::Loss {
                    v = Value::Win;
                    break;
                }
            }
        }
        v
    };
    memo.insert((states.clone(), mover), v);
    v
}

/// The counter engine's table equals the naive minimax on every position, both movers.
fn agrees_with_minimax(game: &CellGame) {
    let table = solve_all(game);
    let mut memo = HashMap::new();
    for pos in 0..game.size() {
        let mut states = game.states(pos);
        let want = naive_value(game.layout(), &mut states, game.mover(pos), &mut memo);
        assert_eq!(
            table[pos as usize],
            want,
            "{} at {}",
            game.spec,
            game.position_text(pos)
        );
    }
}

#[test]
fn boards_agree_with_minimax() {
    for b in [
        Board::Hex(1),
        Board::Hex(2),
        Board::Hex(3),
        Board::Bridgit(1),
        Board::Bridgit(2),
    ] {
        agrees_with_minimax(&board(b));
    }
}

fn small_graph() -> impl Strategy<Value = (u32, Vec<(u32, u32)>)> {
    (2u32..=6).prop_flat_map(|n| (Just(n), prop::collection::vec((0..n, 0..n), 1..=7)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn edge_games_agree_with_minimax((n, edges) in small_graph()) {
        let g = graph_game(&edges, n, false);
        check_round_trip(&g, 0..g.size()).unwrap();
        agrees_with_minimax(&g);
    }

    #[test]
    fn vertex_games_agree_with_minimax((n, edges) in small_graph()) {
        let g = graph_game(&edges, n.max(2), true);
        check_round_trip(&g, 0..g.size()).unwrap();
        agrees_with_minimax(&g);
    }

    #[test]
    fn position_text_round_trips(seed in any::<u64>()) {
        let g = board(Board::Hex(4));
        let pos = SplitMix64(seed).below(g.size());
        let text = g.position_text(pos);
        prop_assert_eq!(g.parse_position(&text), Ok(pos));
        let cells = text.split('/').next().unwrap();
        prop_assert_eq!(Some(g.tier(pos)), Some(cells.chars().filter(|&c| c == 'L' || c == 'R').count() as u32));
    }
}

#[test]
fn round_trip_on_random_board_positions() {
    for b in [
        Board::Bridgit(2),
        Board::Bridgit(3),
        Board::Bridgit(4),
        Board::Hex(3),
        Board::Hex(4),
        Board::Hex(5),
    ] {
        let g = board(b);
        let mut rng = SplitMix64(0xC0FFEE ^ g.size());
        let sample: Vec<u64> = (0..3000).map(|_| rng.below(g.size())).collect();
        check_round_trip(&g, sample).unwrap_or_else(|e| panic!("{b:?}: {e}"));
    }
    check_round_trip(&board(Board::Bridgit(2)), 0..486).unwrap();
}

#[test]
fn boards_equal_their_graphs_written_out() {
    // Bridg-It is the edge game on its board graph and Hex the vertex game on its: solving the
    // graph as a plain Shannon game must give the same table, position for position.
    for (b, vertex_game) in [
        (Board::Bridgit(2), false),
        (Board::Bridgit(3), false),
        (Board::Hex(3), true),
    ] {
        let on_board = board(b);
        let graph = b.graph();
        let layout = if vertex_game {
            Layout::Vertices(graph)
        } else {
            Layout::Edges(graph)
        };
        let as_graph = CellGame::new("graph".into(), layout, None, u64::MAX).unwrap();
        assert!(as_graph.wins.links().grid.is_none());
        assert_eq!(solve_all(&on_board), solve_all(&as_graph), "{b:?}");
    }
}

#[test]
fn hex_shift_flood_matches_the_cell_by_cell_flood() {
    let mut rng = SplitMix64(7);
    for n in 1..=8 {
        let fast = Layout::Board(Board::Hex(n)).links();
        assert!(fast.grid.is_some());
        let slow = Links {
            grid: None,
            ..fast.clone()
        };
        let full = if n * n == 64 {
            !0
        } else {
            (1u64 << (n * n)) - 1
        };
        for _ in 0..20_000 {
            // Dense random sets, so long paths occur.
            let set = (rng.next_u64() | rng.next_u64()) & full;
            assert_eq!(
                fast.connects(set),
                slow.connects(set),
                "hex:{n} set {set:#x}"
            );
        }
    }
}

#[test]
fn symmetric_positions_have_equal_values() {
    // A symmetry that swaps the colours also swaps the mover, so the value for the player to
    // move is the same on both sides of every symmetry.
    for b in [Board::Bridgit(2), Board::Bridgit(3), Board::Hex(3)] {
        let g = board(b);
        let values = solve_all(&g);
        let syms = g.symmetries();
        assert_eq!(syms.len(), if matches!(b, Board::Hex(_)) { 3 } else { 7 });
        for s in &syms {
            for pos in 0..g.size() {
                let image = g.apply(s, pos);
                assert_eq!(
                    values[pos as usize],
                    values[image as usize],
                    "{b:?} {}: {} vs {}",
                    s.name,
                    g.position_text(pos),
                    g.position_text(image)
                );
                if s.swaps_colours {
                    assert_ne!(g.mover(image), g.mover(pos));
                    assert_eq!(
                        g.states(image).iter().filter(|&&c| c == LEFT).count(),
                        g.states(pos).iter().filter(|&&c| c == RIGHT).count()
                    );
                }
            }
        }
    }
}

#[test]
fn colour_swap_turns_left_wins_into_right_wins() {
    // On the transposed board Right stands where Left stood: a position Left has won becomes
    // one Right has won.
    let g = board(Board::Bridgit(3));
    let t = g
        .symmetries()
        .into_iter()
        .find(|s| s.name == "transpose")
        .unwrap();
    // Left's bridges along the row y = 1: (1,1), (3,1), (5,1) are cells 0, 1, 2.
    let pos = g.parse_position("LLL.R.R.R..../R").unwrap();
    assert_eq!(g.winner(g.masks(pos).0, g.masks(pos).1), Some(Player::Left));
    let image = g.apply(&t, pos);
    let (l, r) = g.masks(image);
    assert_eq!(g.winner(l, r), Some(Player::Right));
    assert_eq!(g.mover(image), Player::Left);
    assert_eq!(g.status(pos), Status::Over(Value::Loss));
    assert_eq!(g.status(image), Status::Over(Value::Loss));
}

/// The plain index's rules a run at a time (`rules_run` and `searched_run`, which `decompress`
/// and `compress` take instead of the rules a position at a time) and its tiers from the index (`tier_of`)
/// agree with [`crate::game::by_rules`] and the tier walk on every position, runs starting
/// anywhere (odd or even, at any length), with the join table and without.
#[test]
fn plain_runs_of_rules_and_tiers_agree_with_the_positions() {
    use crate::game::{Rules, Tiered, by_rules, check_tiers};
    for b in [Board::Hex(2), Board::Hex(3), Board::Bridgit(2)] {
        let g = board(b);
        for prepared in [false, true] {
            if prepared {
                g.prepare();
            }
            for (first, n) in [(0, g.size()), (1, 7), (5, 64), (g.size() - 3, 3)] {
                let run = g.searched_run(first, n).expect("the plain index has runs");
                assert_eq!(run.len() as u64, n);
                let rules = g.rules_run(first, n).expect("the plain index has runs");
                assert_eq!(rules.len() as u64, n);
                for (i, (&s, &r)) in run.iter().zip(&rules).enumerate() {
                    let pos = first + i as u64;
                    assert_eq!(s, by_rules(&g, pos) == Rules::Search, "{b:?} {pos}");
                    assert_eq!(r, by_rules(&g, pos), "{b:?} {pos}");
                }
            }
        }
        assert_eq!(g.tier_of(5), Some(g.tier(5)));
        check_tiers(&g).unwrap();
    }
}

#[test]
fn index_layout_is_mover_plus_base_three() {
    let g = board(Board::Hex(2));
    assert_eq!(g.size(), 2 * 81);
    assert_eq!(g.parse_position("..../L"), Ok(0));
    assert_eq!(g.parse_position("..../R"), Ok(1));
    assert_eq!(g.parse_position("L.../R"), Ok(2 + 1));
    assert_eq!(g.parse_position(".R../L"), Ok(2 * 2 * 3));
    assert_eq!(g.position_text(2 * 2 * 3 + 1), ".R../R");
}

#[test]
fn mover_follows_from_counts_without_suffix() {
    let g = board(Board::Hex(2));
    assert_eq!(g.mover(g.parse_position("....").unwrap()), Player::Left);
    assert_eq!(g.mover(g.parse_position("L...").unwrap()), Player::Right);
    assert_eq!(g.mover(g.parse_position("L.R.").unwrap()), Player::Left);
    assert_eq!(g.mover(g.parse_position("LL R.").unwrap()), Player::Right);
    assert_eq!(g.parse_position("LL R./R"), g.parse_position("LLR."));
    assert_eq!(
        g.parse_position(" L. \n.. / R "),
        g.parse_position("L.../R")
    );
}

#[test]
fn bad_positions_are_refused_with_reasons() {
    let g = board(Board::Hex(2));
    let e = |t: &str| g.parse_position(t).unwrap_err().to_string();
    assert_eq!(e("..."), "position '...': has 3 cells but this game has 4");
    assert_eq!(
        e("....."),
        "position '.....': has 5 cells but this game has 4"
    );
    assert_eq!(
        e(".x.."),
        "position '.x..': character 'x' at cell 1: cells are '.' (empty), 'L' or 'R'"
    );
    assert_eq!(
        e("..../B"),
        "position '..../B': '/B': the player to move is '/L' or '/R'"
    );
    assert!(
        e("LL..").contains("Left has 2 cells and Right 0"),
        "{}",
        e("LL..")
    );
    assert!(e("R...").contains("add '/L' or '/R'"));
    assert!(g.parse_position("R.../L").is_ok());
}

#[test]
fn moves_name_cells_and_coordinates() {
    let g = board(Board::Hex(2));
    let names: Vec<String> = g
        .moves(g.parse_position("L.../R").unwrap())
        .into_iter()
        .map(|m| m.name)
        .collect();
    assert_eq!(names, vec!["1(0,1)", "2(1,0)", "3(1,1)"]);
    let b = board(Board::Bridgit(2));
    assert_eq!(b.moves(0)[2].name, "2(2,2)");
    let s = graph_game(&[(0, 2), (2, 1), (0, 1)], 3, false);
    assert_eq!(s.moves(0)[1].name, "1(2-1)");
    let v = graph_game(&[(0, 2), (2, 3), (3, 1)], 4, true);
    assert_eq!(v.moves(0)[1].name, "1(v3)");
}

#[test]
fn over_positions_have_no_moves_and_the_winner_is_reported_to_the_mover() {
    let g = board(Board::Hex(2));
    // Left holds column... Left joins column 0 to column 1 along row 0.
    let won = g.parse_position("LL.R/R").unwrap();
    assert_eq!(g.status(won), Status::Over(Value::Loss));
    assert_eq!(g.status(won - 1), Status::Over(Value::Win));
    assert!(g.moves(won).is_empty());
    // Right joins row 0 to row 1 down column 1.
    let cut = g.parse_position("LRLR/L").unwrap();
    assert_eq!(g.status(cut), Status::Over(Value::Loss));
}

#[test]
fn too_many_cells_fail_at_once_with_estimate_and_limit() {
    let e = CellGame::load("bridgit", "5", || unreachable!(), 8 << 30)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("game spec 'bridgit:5': 41 cells make 2*3^41"),
        "{e}"
    );
    assert!(
        e.contains("positions") && e.contains("8.00 GiB") && e.contains("bytes"),
        "{e}"
    );
    // 39 cells still number; the memory check of the build refuses them later.
    let g = graph_game(&vec![(0, 1); 39], 2, false);
    assert_eq!(g.size(), 2 * 3u64.pow(39));
    assert!(solve::memory_estimate(g.size(), g.max_children(), true) == u64::MAX);
    let e = CellGame::load("hex", "32", || unreachable!(), 1 << 30)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("1024 cells make 2*3^1024 = 7.47e488 positions"),
        "{e}"
    );
    assert!(e.contains("about 9.89e489 bytes"), "{e}");
    let forty = Graph {
        vertices: 2,
        edges: vec![(0, 1); 40],
        a: 0,
        b: 1,
    };
    assert!(CellGame::new("x".into(), Layout::Edges(forty), None, 1 << 30).is_err());
}

#[test]
fn bad_board_sizes_are_refused() {
    for arg in ["0", "-1", "x", "33", ""] {
        let e = CellGame::load("hex", arg, || unreachable!(), u64::MAX)
            .unwrap_err()
            .to_string();
        assert!(e.contains("is not a board size"), "{e}");
    }
}

#[test]
fn prepared_win_table_equals_the_flood_on_every_cell_set() {
    for b in [Board::Hex(4), Board::Bridgit(3), Board::Hex(2)] {
        let game = board(b);
        let flooded: Vec<(bool, bool)> = (0..1u64 << game.cells())
            .map(|s| (game.left_has_won(s), game.right_has_won(s)))
            .collect();
        game.prepare();
        assert!(game.wins.table().is_some(), "{b:?}: prepared");
        for (s, &want) in flooded.iter().enumerate() {
            let s = s as u64;
            assert_eq!(
                (game.left_has_won(s), game.right_has_won(s)),
                want,
                "{b:?}: {s:b}"
            );
        }
    }
    // Beyond the limit nothing is tabulated, and the floods answer.
    let huge = board(Board::Hex(6));
    huge.prepare();
    assert!(huge.cells() > MAX_TABULATED_CELLS && huge.wins.table().is_none());
}

/// The sliced index on the boards' own groups (the colour-keeping symmetries): the half-turn of
/// a Hex board, the reflections of a Bridg-It board.
#[test]
fn sliced_index_holds_every_reachable_board_under_the_boards_symmetries() {
    for (b, first) in [
        (Board::Hex(3), Some(Player::Left)),
        (Board::Hex(3), Some(Player::Right)),
        (Board::Hex(3), None),
        (Board::Bridgit(2), Some(Player::Left)),
        (Board::Bridgit(2), None),
        (Board::Bridgit(3), Some(Player::Left)),
    ] {
        let group: Vec<Vec<u32>> = b
            .symmetries()
            .into_iter()
            .filter(|s| !s.swaps_colours)
            .map(|s| s.perm)
            .collect();
        let what = format!("{b:?}, first {first:?}");
        crate::game::shape::sliced::check_index(&what, b.cell_count() as u32, first, &group);
    }
}

/// The join table (built by monotone shortcuts: a word of 64 sets decided by its largest and
/// smallest set where they agree) answers as a flood of each set does, on every set of boards
/// with and without the grid's fast flood and of a graph file.
#[test]
fn the_join_table_is_the_flood_on_every_set() {
    for layout in [
        Layout::Board(Board::Hex(4)),
        Layout::Board(Board::Bridgit(3)),
        Layout::Board(Board::Hex(2)),
    ] {
        let links = layout.links();
        let cells = layout.cell_count() as u32;
        let table = wins::WinTable::new(layout.links(), cells);
        table.prepare();
        let joins = table.table().expect("small boards are tabulated");
        for set in 0..1u64 << cells {
            assert_eq!(
                joins[(set >> 6) as usize] >> (set & 63) & 1 == 1,
                links.connects(set),
                "{layout:?}: set {set:#x}"
            );
        }
    }
}
