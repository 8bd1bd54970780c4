//! `retrodb research bridgit --sample N` without a table: the values by Lehman's criterion. On
//! Bridg-It 3 the sample of every configuration and the sample of the play population hold the
//! complete scan's figures (committed in `docs/research/bridgit-3.json`) in their intervals;
//! sizes 5 and 6 run; what cannot be asked is refused.

use crate::common;
use crate::research_sample::{assert_intervals_hold, exhaustive};
use common::{ok, retrodb};

use serde_json::Value as Json;

fn lehman(size: u32, population: &str, n: u64, seed: u64) -> Json {
    let (size, n, seed) = (size.to_string(), n.to_string(), seed.to_string());
    let args = [
        "research",
        "bridgit",
        "--size",
        &size,
        "--population",
        population,
        "--sample",
        &n,
        "--seed",
        &seed,
        "--json",
    ];
    serde_json::from_str(&ok(&args)).unwrap()
}

/// Every configuration of Bridg-It 3, sampled by Lehman's criterion: the intervals hold the
/// exhaustive figures of the 'all' population, and the population's size too.
#[test]
fn size_3_lehman_sample_of_every_configuration_holds_the_exhaustive_figures() {
    let report = lehman(3, "all", 20_000, 5);
    let all = exhaustive("all");
    let s = &report["sample"];
    assert_eq!(s["population_name"], "all");
    assert_eq!(report["populations"][0]["name"], "all");
    assert_eq!(report["populations"][0]["positions"], 20_000);
    let size = all["positions"].as_f64().unwrap();
    let pop = &s["population"];
    assert!(
        pop["low"].as_f64().unwrap() <= size && size <= pop["high"].as_f64().unwrap(),
        "{pop} should hold {size}"
    );
    let names = assert_intervals_hold(&report, &all);
    assert!(names.len() >= 40);
    // Not vacuous: the 'all' population differs from 'play' in a figure the sample resolves
    // (in 'all', Left to move and Right to move are symmetric: Left wins about half).
    let play = exhaustive("play");
    let share = |p: &Json| p["left_wins"].as_f64().unwrap() / p["positions"].as_f64().unwrap();
    let e = s["proportions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "left_wins")
        .unwrap()["share"]
        .clone();
    let (low, high) = (e["low"].as_f64().unwrap(), e["high"].as_f64().unwrap());
    assert!(low <= share(&all) && share(&all) <= high);
    assert!(
        !(low <= share(&play) && share(&play) <= high),
        "{e} {}",
        share(&play)
    );
}

/// The play population of Bridg-It 3 sampled by Lehman's criterion holds the exhaustive play
/// figures.
#[test]
fn size_3_lehman_sample_of_the_play_population_holds_the_exhaustive_figures() {
    let report = lehman(3, "play", 20_000, 6);
    assert_eq!(report["sample"]["population_name"], "play");
    let names = assert_intervals_hold(&report, &exhaustive("play"));
    assert!(names.len() >= 40);
}

/// Sizes 5 and 6 (41 and 61 cells, no table) run, and a counterexample's position text has one
/// character per cell.
#[test]
fn sizes_5_and_6_are_sampled_without_a_table() {
    for (size, cells) in [(5, 41), (6, 61)] {
        let report = lehman(size, "all", 200, 1);
        assert_eq!(report["populations"][0]["positions"], 200);
        assert!(report["sample"]["boards"].as_f64().unwrap() > 1e19);
        for c in report["counterexamples"].as_array().unwrap() {
            assert_eq!(c["position"].as_str().unwrap().len(), cells + 2, "{c}");
        }
    }
}

#[test]
fn lehman_sampling_refuses_clearly() {
    let out = retrodb(&[
        "research",
        "bridgit",
        "--size",
        "7",
        "--population",
        "all",
        "--sample",
        "10",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("sizes 2 to 6"), "{err}");
    let out = retrodb(&[
        "research",
        "bridgit",
        "--size",
        "5",
        "--population",
        "play",
        "--sample",
        "10",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("'play'"));
}

/// Lehman's value of a position text of Bridg-It `n`, through the oracle's own parser and the
/// board's graph (not the research's sources).
pub(crate) fn oracle_value(n: u32, text: &str) -> &'static str {
    use retrodb::apps::oracle::lehman::EdgeGame;
    use retrodb::games::cell::Board;
    let g = Board::Bridgit(n).graph();
    let edges = g
        .edges
        .iter()
        .map(|&(u, v)| (u as usize, v as usize))
        .collect();
    let game = EdgeGame::new(g.vertices as usize, edges, g.a as usize, g.b as usize).unwrap();
    let (claims, mover) =
        retrodb::apps::oracle::sweep::parse_position(text, g.edges.len()).unwrap();
    match game.value(&claims, mover).unwrap() {
        retrodb::game::Value::Win => "win",
        retrodb::game::Value::Loss => "loss",
        v => panic!("{text}: {v:?}"),
    }
}

/// The cell a counterexample's named move (`m`, as `retrodb probe` names it: "7(3,5)") claims,
/// and the position text after it.
pub(crate) fn after_move(text: &str, m: &Json) -> (usize, String) {
    let name = m["move"].as_str().unwrap();
    let cell: usize = name[..name.find('(').unwrap()].parse().unwrap();
    (cell, after(text, cell))
}

/// The position text after the mover claims cell `cell` of `text`.
fn after(text: &str, cell: usize) -> String {
    let (cells, mover) = text.split_once('/').unwrap();
    let mut c: Vec<char> = cells.chars().collect();
    assert_eq!(c[cell], '.', "{text}: cell {cell} is taken");
    c[cell] = mover.chars().next().unwrap();
    let next = if mover == "L" { "R" } else { "L" };
    format!("{}/{next}", c.into_iter().collect::<String>())
}

/// Every counterexample committed from a Lehman sample (sizes 4 to 6) is confirmed through the
/// oracle's own position parser: the position's value and each named move's value are
/// Lehman's, and each claim's condition holds on them (a losing option ranked above a winning
/// one; no top option winning though some option wins; 'equivalent' options of different
/// outcomes; neither player able to execute the optional strategy).
#[test]
fn committed_lehman_counterexamples_are_confirmed_by_the_oracle() {
    use retrodb::apps::research::{PlayerGraph, optional_moves};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/research");
    let mut confirmed = 0;
    for (n, file) in [
        (4, "bridgit-4-all-lehman.json"),
        (4, "bridgit-4-play-lehman.json"),
        (5, "bridgit-5-all-lehman.json"),
        (6, "bridgit-6-all-lehman.json"),
    ] {
        let report: Json =
            serde_json::from_str(&std::fs::read_to_string(dir.join(file)).unwrap()).unwrap();
        for c in report["counterexamples"].as_array().unwrap() {
            let (claim, text) = (
                c["claim"].as_str().unwrap(),
                c["position"].as_str().unwrap(),
            );
            assert_eq!(oracle_value(n, text), c["value"], "{file} {claim}");
            let moves: Vec<(usize, &str)> = c["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| {
                    let (cell, child) = after_move(text, m);
                    let v = oracle_value(n, &child);
                    assert_eq!(v, m["value"], "{file} {claim} {}", m["move"]);
                    (cell, v)
                })
                .collect();
            let empties: Vec<usize> = text
                .char_indices()
                .filter(|&(_, ch)| ch == '.')
                .map(|(i, _)| i)
                .collect();
            let some_win = empties
                .iter()
                .any(|&e| oracle_value(n, &after(text, e)) == "loss");
            if claim.ends_with("win-below-loss") {
                assert_eq!((moves[0].1, moves[1].1), ("win", "loss"), "{file} {claim}");
            } else if claim.ends_with("top-misses-win") {
                assert!(
                    some_win && moves.iter().all(|m| m.1 == "win"),
                    "{file} {claim}"
                );
            } else if claim.ends_with("equivalent-differ") {
                assert_ne!(moves[0].1, moves[1].1, "{file} {claim}");
            } else if claim == "optional.neither-executable" {
                let cells: Vec<u8> = text[..text.find('/').unwrap()]
                    .chars()
                    .map(|ch| match ch {
                        'L' => retrodb::games::cell::LEFT,
                        'R' => retrodb::games::cell::RIGHT,
                        _ => retrodb::games::cell::EMPTY,
                    })
                    .collect();
                for p in [
                    retrodb::games::cell::Player::Left,
                    retrodb::games::cell::Player::Right,
                ] {
                    assert!(!optional_moves(&PlayerGraph::bridgit(n, p), &cells).executable());
                }
            } else {
                panic!("{file}: unexpected claim {claim}");
            }
            confirmed += 1;
        }
    }
    assert!(confirmed >= 20, "{confirmed}");
}
