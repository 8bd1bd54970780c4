//! `retrodb research` and `retrodb play` through the binary: every counterexample a report
//! prints is confirmed by `retrodb probe`, the strategies' claimed facts hold, the committed
//! reports in `docs/research/` still describe the current code, and scripted games end with the
//! winner the table names.

use std::path::Path;

use crate::common::retrodb_stdin as retrodb;

use serde_json::Value as Json;

fn ok(args: &[&str], stdin: &str) -> String {
    let out = retrodb(args, stdin);
    assert!(
        out.status.success(),
        "retrodb {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn build(dir: &Path, n: u32) -> String {
    let path = dir.join(format!("bridgit-{n}.rdb"));
    let p = path.to_str().unwrap().to_string();
    ok(
        &[
            "build",
            &format!("bridgit:{n}"),
            "-o",
            &p,
            "--remoteness",
            "--quiet",
        ],
        "",
    );
    p
}

fn probe(table: &str, position: &str) -> Json {
    serde_json::from_str(&ok(&["probe", table, position, "--json"], "")).unwrap()
}

/// Checks every counterexample of a report against `probe` on `table`; returns how many.
fn confirm_counterexamples(report: &Json, table: &str) -> usize {
    let list = report["counterexamples"].as_array().unwrap();
    for c in list {
        let claim = c["claim"].as_str().unwrap();
        let p = probe(table, c["position"].as_str().unwrap());
        assert_eq!(p["value"], c["value"], "{claim}: the position's value");
        assert_eq!(p["remoteness"], c["remoteness"], "{claim}: remoteness");
        // Each named move is a legal move whose value probe confirms.
        let value_of = |m: &Json| -> String {
            let name = m["move"].as_str().unwrap();
            let found = p["moves"]
                .as_array()
                .unwrap()
                .iter()
                .find(|pm| pm["move"] == name)
                .unwrap_or_else(|| panic!("{claim}: move {name} is not legal"));
            assert_eq!(found["value"], m["value"], "{claim}: move {name}");
            assert_eq!(found["remoteness"], m["remoteness"], "{claim}: move {name}");
            found["value"].as_str().unwrap().to_string()
        };
        let moves: Vec<String> = c["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(value_of)
            .collect();
        // A child "win" is a win for the opponent: the move loses.
        let some_move_wins = p["moves"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["value"] == "loss");
        let kind = claim.rsplit('.').next().unwrap();
        match kind {
            "move-loses-win" => {
                assert_eq!(p["value"], "win", "{claim}");
                assert_eq!(moves, ["win"], "{claim}: the move hands the win over");
            }
            "executable-in-lost-position" => {
                assert_eq!(p["value"], "loss", "{claim}");
                assert!(
                    !moves.is_empty() && moves.iter().all(|v| v == "win"),
                    "{claim}"
                );
            }
            "top-misses-win" => {
                assert!(some_move_wins, "{claim}: a winning move exists");
                assert!(
                    !moves.is_empty() && moves.iter().all(|v| v == "win"),
                    "{claim}"
                );
            }
            "win-below-loss" => {
                assert_eq!(moves, ["win", "loss"], "{claim}: higher loses, lower wins");
            }
            "equivalent-differ" => {
                assert_eq!(moves.len(), 2, "{claim}");
                assert_ne!(moves[0], moves[1], "{claim}: outcomes differ");
            }
            "neither-executable" => assert!(moves.is_empty()),
            "ranked-above-but-worse"
            | "ranked-above-but-equal"
            | "ranked-above-but-incomparable"
            | "equivalent-but-unequal" => {
                let children: Vec<String> = c["moves"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|m| {
                        let found = p["moves"].as_array().unwrap().iter();
                        let found = found.clone().find(|pm| pm["move"] == m["move"]);
                        found.unwrap()["position"].as_str().unwrap().to_string()
                    })
                    .collect();
                confirm_game_order(c, &children, kind)
            }
            other => panic!("unknown claim kind {other} ({claim})"),
        }
    }
    list.len()
}

/// Re-derives a game-order counterexample without the report's values: each option's value is
/// computed position by position from the game's own moves (`PositionValues`, not
/// `board_values` nor the late positions' forms), the difference of the two options is formed
/// with `sub`, and its outcome (who wins moving first and moving second) must be the one the
/// claim says. `children` are the two options' position texts.
pub(crate) fn confirm_game_order(c: &Json, children: &[String], kind: &str) {
    use retrodb::games::cell::values::PositionValues;
    let claim = c["claim"].as_str().unwrap();
    let position = c["position"].as_str().unwrap();
    // N^2 + (N-1)^2 cells.
    let spec = match position.split('/').next().unwrap().len() {
        5 => "bridgit:2",
        13 => "bridgit:3",
        25 => "bridgit:4",
        other => panic!("{claim}: a board of {other} cells"),
    };
    let game = retrodb::games::AnyGame::open(spec, u64::MAX).unwrap();
    // The counterexamples are taken under the first convention, C = 1.
    let mut v = PositionValues::new(&game, 1, usize::MAX).unwrap();
    let moves = c["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 2, "{claim}");
    assert_eq!(children.len(), 2, "{claim}");
    let values: Vec<_> = moves
        .iter()
        .zip(children)
        .map(|(m, child)| {
            let pos = retrodb::with_game!(&game, g => retrodb::Notation::parse_position(g, child))
                .unwrap();
            let g = v.value(pos).unwrap();
            assert_eq!(
                v.games.show(g),
                m["game_value"].as_str().unwrap(),
                "{claim}: the value of {child}"
            );
            g
        })
        .collect();
    let d = v.games.sub(values[0], values[1]);
    // (Left wins D moving first, Left wins D moving second).
    let outcome = v.games.outcome(d);
    let left = position.ends_with("/L");
    let expected = match (kind, left) {
        // The higher-ranked option is worse for the mover: below for Left, above for Right.
        ("ranked-above-but-worse", true) => (false, false),
        ("ranked-above-but-worse", false) => (true, true),
        ("ranked-above-but-equal", _) => (false, true),
        ("ranked-above-but-incomparable", _) => (true, false),
        ("equivalent-but-unequal", _) => {
            assert_ne!(outcome, (false, true), "{claim}: the two options differ");
            return;
        }
        _ => unreachable!(),
    };
    assert_eq!(outcome, expected, "{claim}: G_higher - G_lower");
}

/// Every game-order figure of a report adds up, the outcome-class figures cover every ranked
/// pair, and the figures are the same for every convention C.
fn check_game_order_figures(report: &Json) {
    let conventions = report["game_values"].as_array().unwrap().len();
    assert!(conventions >= 3, "at least three conventions are tested");
    assert_eq!(report["game_order_same_for_every_c"], true);
    let n = |f: &Json, k: &str| f[k].as_u64().unwrap_or_else(|| panic!("{k}"));
    for pop in report["populations"].as_array().unwrap() {
        // Pair by pair, not only in the totals.
        assert_eq!(pop["pairs_order_depends_on_c"], 0);
        let order = pop["game_order"].as_array().unwrap();
        let ranking = pop["ranking"].as_array().unwrap();
        assert_eq!(order.len(), conventions * ranking.len());
        for (i, f) in order.iter().enumerate() {
            let r = &ranking[i % ranking.len()];
            assert_eq!(f["variant"], r["variant"]);
            assert_eq!(f["mover"], r["mover"]);
            assert_eq!(
                n(f, "ranked"),
                n(f, "ranked_better")
                    + n(f, "ranked_equal")
                    + n(f, "ranked_worse")
                    + n(f, "ranked_incomparable")
            );
            assert_eq!(
                n(f, "equivalent"),
                n(f, "equivalent_equal")
                    + n(f, "equivalent_ordered")
                    + n(f, "equivalent_incomparable")
            );
            assert_eq!(
                n(f, "pairs"),
                n(f, "ranked") + n(f, "equivalent") + n(f, "tied_beside_immediate_win")
            );
            // An immediate win (the number C) is never better than another option that does not
            // win at once, nor equal: that option keeps the winning cell free, so it has C among
            // its mover's options.
            assert_eq!(n(f, "ranked_with_immediate_win_better"), 0);
            assert_eq!(
                n(f, "ranked_with_immediate_win_worse")
                    + n(f, "ranked_with_immediate_win_incomparable"),
                n(f, "ranked_with_immediate_win")
            );
            assert!(n(f, "ranked_with_immediate_win") <= n(f, "ranked"));
            // The same pairs and positions as the outcome-based figures.
            assert_eq!(n(f, "pairs"), n(r, "pairs"));
            assert_eq!(n(f, "positions"), n(r, "positions"));
            assert_eq!(n(f, "equivalent"), n(r, "equivalent_pairs"));
            assert_eq!(
                n(f, "ranked"),
                n(r, "class_ranked_consistent") + n(r, "class_ranked_refuted")
            );
            // A refuted outcome class rules out "better": the game order finds at least as
            // many failures as the outcome classes do.
            assert!(
                n(f, "ranked_equal") + n(f, "ranked_worse") + n(f, "ranked_incomparable")
                    >= n(r, "class_ranked_refuted")
            );
            assert!(
                n(f, "equivalent_ordered") + n(f, "equivalent_incomparable")
                    >= n(r, "equivalent_class_differs")
            );
            // The first outcome bit's refutations are the win-vs-loss pairs ranked wrong.
            assert_eq!(
                n(r, "class_ranked_refuted") - n(r, "class_refuted_second_bit_only"),
                n(r, "outcome_wrong")
            );
            // The same counts under every convention.
            let base = &order[i % ranking.len()];
            let strip = |j: &Json| {
                let mut j = j.clone();
                j["free_moves"] = Json::Null;
                j
            };
            assert_eq!(strip(f), strip(base), "convention {}", f["free_moves"]);
        }
        // Over every configuration, transposing the board swaps the players: Left's figures
        // are Right's (a check that Right's options are compared the right way round).
        if pop["name"] == "all" {
            for pair in order.chunks(2) {
                let strip = |j: &Json| {
                    let mut j = j.clone();
                    j["mover"] = Json::Null;
                    j
                };
                assert_eq!(pair[0]["mover"], "left");
                assert_eq!(pair[1]["mover"], "right");
                assert_eq!(strip(&pair[0]), strip(&pair[1]));
            }
        }
    }
}

fn research(n: u32, table: &str) -> Json {
    let out = ok(
        &[
            "research",
            "bridgit",
            "--size",
            &n.to_string(),
            "--table",
            table,
            "--json",
        ],
        "",
    );
    serde_json::from_str(&out).unwrap()
}

#[test]
fn size_2_report_counterexamples_are_confirmed_by_probe() {
    let dir = tempfile::tempdir().unwrap();
    let table = build(dir.path(), 2);
    let report = research(2, &table);
    // Every position of the table (2 * 3^5, finished boards included) agreed with Lehman's
    // criterion.
    assert_eq!(report["lehman_check"]["values"], 486);
    assert_eq!(report["lehman_check"]["disagreements"], 0);
    let st = &report["spanning_tree"];
    assert!(st["lines"].as_u64().unwrap() > 0);
    assert_eq!(st["losses"], 0);
    assert_eq!(st["table_says_lost"], 0);
    for pop in report["populations"].as_array().unwrap() {
        let o = &pop["optional"];
        let parts: u64 = ["mover_only", "opponent_only", "both", "neither"]
            .iter()
            .map(|k| o[k].as_u64().unwrap())
            .sum();
        assert_eq!(parts, o["positions"].as_u64().unwrap());
        // Lehman: a player who can double an edge into two spanning trees wins.
        assert_eq!(o["mover_executable_lost"], 0);
        assert_eq!(o["moves_keeping_win"], o["moves_from_won"]);
    }
    // Over every configuration with either mover, swapping the colours (a transposition of the
    // board) maps Left's figures onto Right's: a check of Right's graph and the mirror rule.
    let all = &report["populations"][0];
    assert_eq!(all["name"], "all");
    assert_eq!(
        all["optional"]["mover_only"],
        all["optional"]["opponent_only"]
    );
    let ranking = all["ranking"].as_array().unwrap();
    for pair in ranking.chunks(2) {
        let strip = |j: &Json| {
            let mut j = j.clone();
            j["mover"] = Json::Null;
            j
        };
        assert_eq!(pair[0]["variant"], pair[1]["variant"]);
        assert_eq!(strip(&pair[0]), strip(&pair[1]));
    }
    confirm_counterexamples(&report, &table);
    check_game_order_figures(&report);
    // The committed report is this one, figure for figure.
    let docs: Json = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/research/bridgit-2.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(docs["populations"], report["populations"]);
    assert_eq!(docs["game_values"], report["game_values"]);
    assert_eq!(docs["spanning_tree"], report["spanning_tree"]);
    assert_eq!(
        crate::common::counterexample_positions(&docs),
        crate::common::counterexample_positions(&report)
    );
}

/// The size-3 report in docs/ takes a minute to recompute; its counterexamples are checked
/// against a freshly built table.
#[test]
fn size_3_committed_counterexamples_are_confirmed_by_probe() {
    let dir = tempfile::tempdir().unwrap();
    let table = build(dir.path(), 3);
    let docs: Json = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/research/bridgit-3.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(docs["spanning_tree"]["losses"], 0);
    assert!(confirm_counterexamples(&docs, &table) > 0);
    check_game_order_figures(&docs);
    let claims: Vec<&str> = docs["counterexamples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["claim"].as_str().unwrap())
        .collect();
    assert!(claims.contains(&"order.stated.ranked-above-but-worse"));
    assert!(claims.contains(&"order.stated.equivalent-but-unequal"));
}

#[test]
fn research_refuses_bad_requests() {
    let err = |args: &[&str]| {
        let out = retrodb(args, "");
        assert!(!out.status.success(), "{args:?} should fail");
        String::from_utf8(out.stderr).unwrap()
    };
    assert!(err(&["research", "hex", "--size", "2"]).contains("unrecognized subcommand 'hex'"));
    assert!(err(&["research", "bridgit", "--size", "9"]).contains("--size 9 is not supported"));
    let dir = tempfile::tempdir().unwrap();
    let t2 = build(dir.path(), 2);
    assert!(err(&["research", "bridgit", "--size", "3", "--table", &t2]).contains("not bridgit:3"));
}

/// The last "position" line a game printed, and the winner it announced.
fn ending(out: &str) -> (String, String) {
    let last_pos = out
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("position "))
        .unwrap()
        .to_string();
    let winner = out
        .lines()
        .find_map(|l| l.strip_suffix(" wins."))
        .unwrap()
        .to_string();
    (last_pos, winner)
}

#[test]
fn play_against_the_table_ends_with_the_winner_the_table_names() {
    let dir = tempfile::tempdir().unwrap();
    let table = build(dir.path(), 2);
    // The human plays Right and tries the cells in order; illegal tries are refused and skipped.
    let script = "?\n0\n1\n2\n3\n4\n";
    let out = ok(
        &["play", "bridgit:2", "--table", &table, "--as", "right"],
        script,
    );
    assert!(out.contains("'0' is not a legal move") || out.contains("Right (R) plays 0"));
    let (last, winner) = ending(&out);
    // Left moves first on a first-player win, so perfect play wins for Left.
    assert_eq!(winner, "Left (L)");
    let p = probe(&table, &last);
    assert_eq!(
        p["value"], "loss",
        "the game is over, lost for the player to move"
    );
    assert!(
        last.ends_with("/R"),
        "Right is to move and has lost: {last}"
    );

    // The human plays Left from a lost position: the table, as Right, wins.
    let out = ok(
        &[
            "play",
            "bridgit:2",
            "--table",
            &table,
            "--from",
            ".R.../L",
            "--as",
            "left",
        ],
        "0\n1\n2\n3\n4\n",
    );
    let p0 = probe(&table, ".R.../L");
    let (last, winner) = ending(&out);
    let expected = if p0["value"] == "win" {
        "Left (L)"
    } else {
        "Right (R)"
    };
    assert_eq!(winner, expected);
    assert_eq!(probe(&table, &last)["value"], "loss");
}

#[test]
fn play_against_the_spanning_tree_strategy_left_wins() {
    let dir = tempfile::tempdir().unwrap();
    let table = build(dir.path(), 3);
    let script: String = (0..13).map(|i| format!("{i}\n")).collect();
    let out = ok(
        &[
            "play",
            "bridgit:3",
            "--table",
            &table,
            "--as",
            "right",
            "--opponent",
            "spanning-tree",
        ],
        &script,
    );
    assert!(!out.contains("the strategy has no move"), "{out}");
    let (last, winner) = ending(&out);
    assert_eq!(winner, "Left (L)");
    assert_eq!(probe(&table, &last)["value"], "loss");
}

#[test]
fn play_refuses_bad_input_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let table = build(dir.path(), 2);
    let out = retrodb(&["play", "bridgit:2", "--table", &table], "3\n");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("the input ended before the game"));
    let out = retrodb(
        &[
            "play",
            "bridgit:2",
            "--table",
            &table,
            "--opponent",
            "spanning-tree",
        ],
        "",
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("plays Left from the empty board"));
    let out = retrodb(
        &["play", "bridgit:2", "--table", &table, "--opponent", "x"],
        "",
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown opponent 'x'"));
}

/// `retrodb play` against a symmetric table with remoteness (the row kernel's nibbles): from
/// Left's stone in the middle, the computer (Left) wins in exactly the table's remoteness while
/// the human (Right) resists as long as the table says any defence can; from the empty board,
/// the human (Left) wins as fast as the table says and the computer (Right) resists exactly that
/// long. Each human move is chosen here from the table by the board's own children, not by the
/// program.
#[test]
fn play_wins_from_the_middle_in_the_tables_remoteness() {
    use retrodb::table::Table;
    use std::io::{Read, Write};
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    for (spec, from, human) in [
        ("hex:3,start=L,sym", "....L..../R", 'R'),
        ("hex:4,start=L,sym", "......L........./R", 'R'),
        ("hex:3,start=L,sym", "........./L", 'L'),
        ("hex:4,start=L,sym", "................/L", 'L'),
    ] {
        // Left wins from each start, as the computer or as the human.
        let winner = "Left (L)";
        let path = dir.path().join("t.rdb");
        let p = path.to_str().unwrap();
        ok(&["build", spec, "-o", p, "--remoteness", "--quiet"], "");
        let table = Table::open(&path).unwrap();
        let (_, v) = table.locate(from).unwrap();
        let to_move = if human == 'R' {
            retrodb::Value::Loss
        } else {
            retrodb::Value::Win
        };
        assert_eq!(v, to_move, "{spec}: {from}");
        let want = table
            .remoteness(table.locate(from).unwrap().0)
            .unwrap()
            .unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_retrodb"))
            .args(["play", spec, "--table", p, "--from", from, "--as"])
            .arg(if human == 'R' { "right" } else { "left" })
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let mut stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stdout.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        let mut seen = String::new();
        let mut plies = 0;
        loop {
            // Wait for the human's prompt or the end of the game.
            while !seen.ends_with("to move> ") && !seen.contains(" wins.") {
                let chunk = rx
                    .recv_timeout(std::time::Duration::from_secs(60))
                    .unwrap_or_else(|_| panic!("{spec}: play went silent:\n{seen}"));
                seen.push_str(&String::from_utf8_lossy(&chunk));
            }
            let position = seen
                .lines()
                .rev()
                .find_map(|l| l.strip_prefix("position "))
                .unwrap()
                .to_string();
            if seen.contains(" wins.") {
                plies += seen.matches(" plays ").count();
                assert!(seen.contains(&format!("{winner} wins.")), "{spec}:\n{seen}");
                assert_eq!(plies as u32, want, "{spec}: the game took {plies} plies");
                break;
            }
            plies += seen.matches(" plays ").count();
            // The human's best move among the board's own: the longest resistance (Right,
            // losing) or the quickest win (Left), each child looked up by its text (the table
            // maps it to its stored image).
            let (cells, _) = position.split_once('/').unwrap();
            let other = if human == 'R' { 'L' } else { 'R' };
            let best = cells
                .char_indices()
                .filter(|&(_, c)| c == '.')
                .filter_map(|(i, _)| {
                    let mut next: Vec<char> = cells.chars().collect();
                    next[i] = human;
                    let text = format!("{}/{other}", next.iter().collect::<String>());
                    let (at, value) = table.locate(&text).unwrap();
                    let r = table.remoteness(at).unwrap().unwrap() as i64;
                    match (human, value) {
                        // Right loses whatever he plays: the slowest loss.
                        ('R', retrodb::Value::Win) => Some((r, std::cmp::Reverse(i))),
                        ('R', _) => panic!("{spec}: {text} is no win for Left"),
                        // Left keeps the win: the quickest lost child for Right.
                        (_, retrodb::Value::Loss) => Some((-r, std::cmp::Reverse(i))),
                        _ => None,
                    }
                })
                .max()
                .unwrap();
            seen.clear();
            writeln!(stdin, "{}", (best.1).0).unwrap();
        }
        drop(stdin);
        child.wait().unwrap();
    }
}
