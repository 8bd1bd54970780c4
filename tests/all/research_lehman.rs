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
