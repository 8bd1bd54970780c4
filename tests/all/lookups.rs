//! Lookups as people use them, through the binary: `probe` lists moves best first (text and
//! JSON), `--best` gives the best move, `--line` the principal line, `--value` and `show` the
//! value as a game. Each is checked against a reference that shares none of its code: the
//! game's own moves with every child's stored value read one by one and ranked here, the line
//! replayed move by move through the game, and the values `retrodb values` computes
//! (`board_values`, tier by tier over the whole board).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::common::{ok, retrodb, retrodb_stdin, stderr, stdout};
use retrodb::game::Tiered;
use retrodb::games::AnyGame;
use retrodb::games::cell::values::board_values;
use retrodb::table::Table;
use retrodb::{Notation, Value, with_game};
use serde_json::Value as Json;

/// The tables the tests probe, built once.
struct Tables {
    _dir: tempfile::TempDir,
    dir: PathBuf,
}

const BUILDS: &[(&str, &str, &[&str])] = &[
    ("seed", "digraph:data/seed001.txt", &["--remoteness"]),
    ("bridgit3", "bridgit:3", &["--remoteness"]),
    ("bridgit3-plain", "bridgit:3", &["--compress"]),
    ("hex3", "hex:3", &["--remoteness", "--compress"]),
    (
        "house",
        "hackenbush:data/hackenbush-house.txt",
        &["--remoteness"],
    ),
    ("k4", "shannon:data/shannon/k4.txt", &["--remoteness"]),
];

fn tables() -> &'static Tables {
    static T: OnceLock<Tables> = OnceLock::new();
    T.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        for (name, spec, extra) in BUILDS {
            let out = dir.path().join(format!("{name}.rdb"));
            let mut args = vec!["build", spec, "-o", out.to_str().unwrap(), "--quiet"];
            args.extend_from_slice(extra);
            let o = retrodb(&args);
            assert!(o.status.success(), "{spec}: {}", stderr(&o));
        }
        Tables {
            dir: dir.path().to_path_buf(),
            _dir: dir,
        }
    })
}

fn table(name: &str) -> PathBuf {
    tables().dir.join(format!("{name}.rdb"))
}

/// About `n` used positions of a table spread over its indices (all of a small one), as texts.
fn sample(t: &Table, n: u64) -> Vec<String> {
    let size = t.header().size;
    let step = (size / n).max(1);
    // An odd step that is not a multiple of 3 visits both movers and varied boards.
    let step = if step > 1 { step | 1 } else { step };
    (0..size)
        .step_by(step as usize)
        .filter(|&p| t.value(p).unwrap().is_some())
        .map(|p| t.position_text(p))
        .collect()
}

/// `retrodb probe TABLE - ARGS` on `texts`: one JSON object each (with `--json` in `args`).
fn probe_json(path: &Path, texts: &[String], args: &[&str]) -> Vec<Json> {
    let mut all = vec!["probe", path.to_str().unwrap(), "-", "--json"];
    all.extend_from_slice(args);
    let o = retrodb_stdin(&all, texts.join("\n"));
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<Json> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), texts.len());
    lines
}

/// The reference order of a position's moves, written apart from the library's: the game's
/// moves with each child's stored value and remoteness, split into winning, drawing and losing
/// moves, the winning ones by rising remoteness and the losing ones by falling remoteness
/// (stable sorts, so equals keep the game's order). Returns (name, child, value, remoteness).
fn reference_order(t: &Table, pos: u64) -> Vec<(String, u64, Value, Option<u32>)> {
    let moves = with_game!(t.game(), g => g.moves(pos));
    let mut wins = Vec::new();
    let mut draws = Vec::new();
    let mut losses = Vec::new();
    for m in moves {
        let v = t.value(m.child).unwrap().unwrap();
        let r = t.remoteness(m.child).unwrap();
        let entry = (m.name, m.child, v, r);
        match v {
            Value::Loss => wins.push(entry),
            Value::Draw => draws.push(entry),
            Value::Win => losses.push(entry),
        }
    }
    wins.sort_by_key(|e| e.3.unwrap_or(0));
    losses.sort_by_key(|e| std::cmp::Reverse(e.3.unwrap_or(0)));
    wins.into_iter().chain(draws).chain(losses).collect()
}

#[test]
fn probe_lists_moves_best_first_and_best_is_the_best_child() {
    let mut checked = 0;
    let mut reordered = 0;
    for (name, spec, _) in BUILDS {
        let path = table(name);
        let t = Table::open(&path).unwrap();
        let texts = sample(&t, 400);
        let answers = probe_json(&path, &texts, &[]);
        // The human output lists the same moves in the same order.
        let o = retrodb_stdin(&["probe", path.to_str().unwrap(), "-"], texts.join("\n"));
        assert!(o.status.success());
        let human = stdout(&o);
        let mut human_moves = human
            .lines()
            .filter(|l| l.starts_with("  "))
            .map(|l| l[4..].split(" -> ").next().unwrap().to_string());
        for (text, a) in texts.iter().zip(&answers) {
            let pos = a["index"].as_u64().unwrap();
            let want = reference_order(&t, pos);
            let got: Vec<&str> = a["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["move"].as_str().unwrap())
                .collect();
            let names: Vec<&str> = want.iter().map(|w| w.0.as_str()).collect();
            assert_eq!(got, names, "{spec} {text}");
            let game_order: Vec<String> = with_game!(t.game(), g => g.moves(pos))
                .into_iter()
                .map(|m| m.name)
                .collect();
            reordered += usize::from(game_order != names);
            for (m, w) in a["moves"].as_array().unwrap().iter().zip(&want) {
                assert_eq!(m["value"], w.2.as_str(), "{spec} {text}");
                assert_eq!(
                    m["remoteness"].as_u64(),
                    w.3.map(u64::from),
                    "{spec} {text}"
                );
                assert_eq!(
                    human_moves.next().as_deref(),
                    Some(m["move"].as_str().unwrap())
                );
            }
            // The best move is the first, and it keeps the position's value: a won position's
            // best child is lost (in one less ply), a drawn one's drawn, a lost one's won.
            match want.first() {
                None => assert!(a.get("best").is_none(), "{spec} {text}: {a}"),
                Some(first) => {
                    assert_eq!(a["best"], a["moves"][0], "{spec} {text}");
                    assert_eq!(a["best"]["move"], first.0.as_str());
                    let v = t.value(pos).unwrap().unwrap();
                    assert_eq!(first.2, v.flip(), "{spec} {text}");
                    if let (Some(r), Some(c)) = (t.remoteness(pos).unwrap(), first.3) {
                        assert_eq!(c + 1, r, "{spec} {text}");
                    }
                }
            }
            checked += 1;
        }
        assert_eq!(
            human_moves.next(),
            None,
            "{spec}: more moves printed than answered"
        );
    }
    assert!(checked > 1000, "{checked}");
    // The order is not the game's by accident.
    assert!(reordered > 100, "{reordered} positions reordered");
}

#[test]
fn probe_best_gives_the_best_move_alone() {
    let path = table("seed");
    let p = path.to_str().unwrap();
    // 11 wins by moving to 8 (lost in 2); 8 loses, both moves give a win in 1; 6 has no move.
    let out = ok(&["probe", p, "11", "8", "6", "--best"]);
    assert_eq!(
        out,
        "11\twins in 3\n  best: 8 -> 8\twins in 3\t(opponent: loses in 2)\n\
         8\tloses in 2\n  best: 4 -> 4\tloses in 2\t(opponent: wins in 1)\n\
         6\tloses in 0\n"
    );
    let all = probe_json(
        &path,
        &["11".into(), "8".into(), "6".into(), "0".into()],
        &[],
    );
    let best = probe_json(
        &path,
        &["11".into(), "8".into(), "6".into(), "0".into()],
        &["--best"],
    );
    for (a, b) in all.iter().zip(&best) {
        assert!(b.get("moves").is_none(), "{b}");
        let mut a = a.clone();
        a.as_object_mut().unwrap().remove("moves");
        a.as_object_mut()
            .unwrap()
            .entry("best")
            .or_insert(Json::Null);
        assert_eq!(&a, b);
    }
    assert_eq!(best[2]["best"], Json::Null, "a finished position has none");
    // 0 is drawn: its best move keeps the draw (to 1, the cycle), not a losing one.
    assert_eq!(best[3]["best"]["value"], "draw");
    let o = retrodb(&["probe", p, "4", "--best", "--sum"]);
    assert!(!o.status.success(), "--best is not for sums");
}

/// The game's move named `name` from `pos`.
fn child_by_name(t: &Table, pos: u64, name: &str) -> u64 {
    with_game!(t.game(), g => g.moves(pos))
        .into_iter()
        .find(|m| m.name == name)
        .unwrap_or_else(|| panic!("no move {name} from {}", t.position_text(pos)))
        .child
}

/// Checks `line` (JSON steps) from `pos` by replaying it: each move is the game's, leads to the
/// step's position, whose stored value and remoteness the step gives; the remoteness falls by
/// one a ply to a finished position; and at every ply the mover took the best child there is
/// (the winner the quickest lost child, the loser the slowest won one).
fn check_line(t: &Table, pos: u64, line: &[Json], what: &str) {
    let r = t.remoteness(pos).unwrap().expect("decided");
    assert_eq!(line.len() as u32, r, "{what}: a line has remoteness plies");
    let mut at = pos;
    let mut mover = t.value(pos).unwrap().unwrap();
    for (k, step) in line.iter().enumerate() {
        let child = child_by_name(t, at, step["move"].as_str().unwrap());
        assert_eq!(step["index"].as_u64(), Some(child), "{what} ply {}", k + 1);
        assert_eq!(
            step["position"],
            t.position_text(child),
            "{what} ply {}",
            k + 1
        );
        let v = t.value(child).unwrap().unwrap();
        let cr = t.remoteness(child).unwrap().unwrap();
        assert_eq!(step["value"], v.as_str(), "{what} ply {}", k + 1);
        assert_eq!(step["remoteness"].as_u64(), Some(u64::from(cr)));
        assert_eq!(
            cr,
            r - 1 - k as u32,
            "{what}: remoteness falls by one a ply"
        );
        assert_eq!(v, mover.flip(), "{what}: the values alternate");
        // No other child is better for the mover.
        for m in with_game!(t.game(), g => g.moves(at)) {
            let ov = t.value(m.child).unwrap().unwrap();
            let or = t.remoteness(m.child).unwrap().unwrap_or(0);
            match mover {
                Value::Win => {
                    assert!(
                        ov != Value::Loss || or >= cr,
                        "{what}: {} wins quicker",
                        m.name
                    )
                }
                _ => assert!(
                    ov == Value::Win && or <= cr,
                    "{what}: {} loses slower",
                    m.name
                ),
            }
        }
        at = child;
        mover = v;
    }
    // The end: a finished position, remoteness 0, no move.
    assert!(
        with_game!(t.game(), g => g.moves(at)).is_empty(),
        "{what}: the line ends at a finished position"
    );
    assert_eq!(t.remoteness(at).unwrap(), Some(0), "{what}");
}

#[test]
fn principal_lines_fall_by_one_a_ply_to_a_finished_position() {
    let mut lines = 0;
    let mut longest = 0;
    for name in ["bridgit3", "hex3", "seed", "house", "k4"] {
        let path = table(name);
        let t = Table::open(&path).unwrap();
        let texts: Vec<String> = sample(&t, 600)
            .into_iter()
            .filter(|x| t.locate(x).unwrap().1 != Value::Draw)
            .collect();
        assert!(!texts.is_empty(), "{name}");
        for a in probe_json(&path, &texts, &["--line"]) {
            let pos = a["index"].as_u64().unwrap();
            let line = a["line"].as_array().expect("a line");
            check_line(&t, pos, line, &format!("{name} {}", a["position"]));
            // The first ply is the best move.
            if let Some(first) = line.first() {
                assert_eq!(first["move"], a["best"]["move"]);
            }
            longest = longest.max(line.len());
            lines += 1;
        }
    }
    assert!(lines > 1000, "{lines}");
    assert!(longest >= 8, "long lines were checked too: {longest}");
    // From the empty boards: Bridg-It 3's first player wins, Hex 3's too, in the table's plies.
    for (name, empty) in [("bridgit3", "............."), ("hex3", ".........")] {
        let path = table(name);
        let t = Table::open(&path).unwrap();
        let a = &probe_json(&path, &[empty.to_string()], &["--line"])[0];
        assert_eq!(a["value"], "win");
        check_line(
            &t,
            a["index"].as_u64().unwrap(),
            a["line"].as_array().unwrap(),
            name,
        );
    }
    // The human output: one line a ply, numbered.
    let out = ok(&["probe", table("seed").to_str().unwrap(), "11", "--line"]);
    assert!(
        out.ends_with(
            "  line 1. 8 -> 8\twins in 3\t(opponent: loses in 2)\n  \
             line 2. 4 -> 4\tloses in 2\t(opponent: wins in 1)\n  \
             line 3. 6 -> 6\twins in 1\t(opponent: loses in 0)\n"
        ),
        "{out}"
    );
}

#[test]
fn lines_are_refused_where_there_are_none() {
    // A table without remoteness: refused before any position, naming the table.
    let plain = table("bridgit3-plain");
    let o = retrodb(&["probe", plain.to_str().unwrap(), ".............", "--line"]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("without remoteness") && err.contains("bridgit3-plain"),
        "{err}"
    );
    assert!(stdout(&o).is_empty());
    // A draw: that position fails, naming it; the others are answered.
    let seed = table("seed");
    let o = retrodb(&[
        "probe",
        seed.to_str().unwrap(),
        "4",
        "0",
        "6",
        "--line",
        "--json",
    ]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("'0' is a draw"), "{err}");
    let answered: Vec<Json> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answered.len(), 2);
    assert_eq!(answered[0]["line"].as_array().unwrap().len(), 1);
    // A finished position has an empty line.
    assert_eq!(answered[1]["position"], "6");
    assert_eq!(answered[1]["line"], serde_json::json!([]));
}

/// The value `show` prints for a Bridg-It 3 position (without the convention's note).
fn shown_value(text: &str) -> String {
    let out = ok(&["show", "bridgit:3", text]);
    let line = out.lines().last().unwrap();
    let v = line
        .strip_prefix("value: ")
        .unwrap_or_else(|| panic!("{text}: {out}"));
    v.strip_suffix(" (a finished board worth 1 to its winner)")
        .unwrap_or_else(|| panic!("{text}: {line}"))
        .to_string()
}

#[test]
fn show_and_probe_value_agree_with_values_on_bridgit3() {
    let game = AnyGame::open("bridgit:3", u64::MAX).unwrap();
    let AnyGame::Cell(cell) = &game else {
        unreachable!()
    };
    let board = cell.board_shape().and_then(|b| b.plain()).unwrap();
    let v = board_values(&board, 1).unwrap();
    let value_of = |pos: u64| v.games.show(v.values[(pos / 2) as usize]);
    // show, one process a position: the empty board and positions of every few tiers.
    let mut shown = 0;
    for (k, config) in [0u64, 5, 1_000, 77_777, 300_001, 812_345, 1_594_322]
        .into_iter()
        .enumerate()
    {
        let pos = 2 * config + (k as u64 % 2);
        let text = with_game!(&game, g => g.position_text(pos));
        assert_eq!(shown_value(&text), value_of(pos), "show {text}");
        shown += 1;
    }
    assert_eq!(shown, 7);
    assert_eq!(
        shown_value("............."),
        "+-1",
        "docs/VALUES.md: the empty board"
    );

    // probe --value: the position's and every move's value, on a spread of positions.
    let path = table("bridgit3");
    let t = Table::open(&path).unwrap();
    let texts = sample(&t, 300);
    let mut distinct = std::collections::HashSet::new();
    for a in probe_json(&path, &texts, &["--value"]) {
        let pos = a["index"].as_u64().unwrap();
        assert_eq!(a["game_value"], value_of(pos), "{}", a["position"]);
        distinct.insert(a["game_value"].as_str().unwrap().to_string());
        for m in a["moves"].as_array().unwrap() {
            let child = child_by_name(&t, pos, m["move"].as_str().unwrap());
            assert_eq!(
                m["game_value"],
                value_of(child),
                "{} {}",
                a["position"],
                m["move"]
            );
        }
        if let Some(b) = a.get("best") {
            assert_eq!(b, &a["moves"][0], "best carries its value too");
        }
    }
    assert!(distinct.len() > 5, "{distinct:?}");
}

#[test]
fn probe_value_on_every_position_of_hex3_agrees_with_values() {
    let game = AnyGame::open("hex:3", u64::MAX).unwrap();
    let AnyGame::Cell(cell) = &game else {
        unreachable!()
    };
    let board = cell.board_shape().and_then(|b| b.plain()).unwrap();
    for c in [1u32, 2] {
        let v = board_values(&board, c).unwrap();
        let path = table("hex3");
        let t = Table::open(&path).unwrap();
        let texts = sample(&t, t.header().size);
        assert_eq!(texts.len() as u64, 2 * 3u64.pow(9));
        let c_text = c.to_string();
        let answers = probe_json(&path, &texts, &["--value", "--free-moves", &c_text]);
        for a in answers {
            let pos = a["index"].as_u64().unwrap();
            assert_eq!(
                a["game_value"],
                v.games.show(v.values[(pos / 2) as usize]),
                "C = {c} {}",
                a["position"]
            );
        }
    }
}
