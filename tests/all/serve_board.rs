//! The web board's view, `GET /api/v1/tables/{name}/board?position=TEXT` (src/apps/serve/board.rs):
//! the probe of the position as asked with its moves best first, who is to move or has won, and
//! the picture. On a `,sym` table it must answer exactly as the table that holds every board
//! itself (the alternation index) does, picture included; elsewhere as `probe --json` does.

use std::path::Path;

use crate::common::server::{Server, encode};
use crate::common::{retrodb, stderr, stdout};
use serde_json::Value as Json;

fn build(spec: &str, out: &Path, extra: &[&str]) {
    let mut args = vec!["build", spec, "-o", out.to_str().unwrap(), "--quiet"];
    args.extend_from_slice(extra);
    let o = retrodb(&args);
    assert!(o.status.success(), "{spec}: {}", stderr(&o));
}

fn view(server: &Server, table: &str, position: &str) -> Json {
    let r = server.get(&format!(
        "/api/v1/tables/{table}/board?position={}",
        encode(position)
    ));
    assert_eq!(r.status, 200, "{table} {position}: {}", r.text());
    r.json()
}

/// The moves as (name, position, value, remoteness), in the order given.
fn moves(v: &Json) -> Vec<(String, String, String, Option<u64>)> {
    v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["move"].as_str().unwrap().to_string(),
                m["position"].as_str().unwrap().to_string(),
                m["value"].as_str().unwrap().to_string(),
                m["remoteness"].as_u64(),
            )
        })
        .collect()
}

/// How good a move is for the player making it, smaller first: a win (the quickest first), a
/// draw, a loss (the slowest first).
fn rank(m: &(String, String, String, Option<u64>)) -> (u8, i64) {
    let r = m.3.unwrap_or(0) as i64;
    match m.2.as_str() {
        "loss" => (0, r),
        "draw" => (1, 0),
        _ => (2, -r),
    }
}

/// Every move of the view is drawn once on its picture, under the same name.
fn drawn_moves(v: &Json) -> Vec<String> {
    let svg = v["svg"].as_str().unwrap();
    let mut names: Vec<String> = svg
        .split("data-move=\"")
        .skip(1)
        .map(|s| s.split('"').next().unwrap().to_string())
        .collect();
    names.sort();
    names
}

#[test]
fn a_symmetric_table_is_answered_on_the_board_as_asked() {
    let dir = tempfile::tempdir().unwrap();
    build(
        "bridgit:3,start=L",
        &dir.path().join("alt.rdb"),
        &["--remoteness"],
    );
    build(
        "bridgit:3,start=L,sym",
        &dir.path().join("sym.rdb"),
        &["--remoteness"],
    );
    let server = Server::start(&[dir.path().to_str().unwrap()]);
    // Games walked from the empty board, each move chosen by a fixed rule that reaches boards
    // in every corner (so many are held as another image).
    let mut mapped = 0;
    let mut seen = 0;
    for game in 0..12usize {
        let mut position = ".............".to_string();
        for ply in 0.. {
            let want = view(&server, "alt", &position);
            let got = view(&server, "sym", &position);
            for key in [
                "position",
                "value",
                "remoteness",
                "to_move",
                "opponent",
                "outcome",
                "svg",
            ] {
                assert_eq!(got[key], want[key], "{key} at {position}");
            }
            assert_eq!(moves(&got), moves(&want), "{position}");
            assert!(want.get("stored_image").is_none(), "{want}");
            if let Some(image) = got["stored_image"].as_str() {
                assert_ne!(image, got["position"].as_str().unwrap());
                mapped += 1;
            }
            seen += 1;
            let m = moves(&got);
            let mut names: Vec<String> = m.iter().map(|m| m.0.clone()).collect();
            names.sort();
            assert_eq!(drawn_moves(&got), names, "{position}");
            assert!(
                m.windows(2).all(|w| rank(&w[0]) <= rank(&w[1])),
                "{position}"
            );
            if m.is_empty() {
                // A finished board says who has won, and the board is one alternation reaches.
                let outcome = got["outcome"].as_str().unwrap();
                assert!(outcome.contains("has won"), "{outcome}");
                break;
            }
            position = m[(game * 7 + ply * 5) % m.len()].1.clone();
        }
    }
    assert!(mapped > 0 && mapped < seen, "{mapped} of {seen}");
}

#[test]
fn the_view_agrees_with_probe_json_and_says_who_has_won() {
    let dir = tempfile::tempdir().unwrap();
    let bridgit = dir.path().join("bridgit-3.rdb");
    let seed = dir.path().join("seed001.rdb");
    build("bridgit:3", &bridgit, &["--remoteness", "--compress"]);
    build("digraph:data/seed001.txt", &seed, &["--remoteness"]);
    let server = Server::start(&[dir.path().to_str().unwrap()]);
    // Best play from the empty board: Left joins his sides with cells still empty, in as many
    // plies as the start's remoteness says.
    let start = view(&server, "bridgit-3", ".............");
    let mut finished = start["position"].as_str().unwrap().to_string();
    let mut plies = 0;
    loop {
        let v = view(&server, "bridgit-3", &finished);
        let Some(best) = v["moves"].as_array().unwrap().first() else {
            break;
        };
        finished = best["position"].as_str().unwrap().to_string();
        plies += 1;
    }
    assert_eq!(Some(plies), start["remoteness"].as_u64());
    assert!(finished.contains('.'), "{finished}");
    let finished = finished.as_str();
    for (table, file, position) in [
        ("bridgit-3", &bridgit, "............."),
        ("bridgit-3", &bridgit, "L....R......."),
        ("bridgit-3", &bridgit, finished),
        ("seed001", &seed, "4"),
        ("seed001", &seed, "6"),
    ] {
        let got = view(&server, table, position);
        let o = retrodb(&["probe", file.to_str().unwrap(), position, "--json"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let want: Json = serde_json::from_str(stdout(&o).trim()).unwrap();
        for key in ["position", "value", "remoteness"] {
            assert_eq!(got[key], want[key], "{key} at {position}");
        }
        let mut want_moves = moves(&want);
        want_moves.sort_by_key(rank);
        assert_eq!(moves(&got), want_moves, "{position}");
        assert!(
            got["to_move"].is_string() && got["opponent"].is_string(),
            "{got}"
        );
        assert_ne!(got["to_move"], got["opponent"]);
        let over = got["moves"].as_array().unwrap().is_empty();
        assert_eq!(got.get("outcome").is_some(), over, "{position}: {got}");
    }
    let done = view(&server, "bridgit-3", finished);
    assert_eq!(done["value"], "loss");
    assert_eq!(done["to_move"], "Right (R, red)");
    assert_eq!(
        done["outcome"],
        "Left (L, blue) has won: its sides are joined"
    );
    let stuck = view(&server, "seed001", "6");
    assert!(
        stuck["outcome"].as_str().unwrap().contains("cannot move"),
        "{stuck}"
    );
    // Without a position, the table's start.
    let r = server.get("/api/v1/tables/seed001/board");
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["position"], "0");

    // Errors are the API's JSON errors.
    let r = server.get("/api/v1/tables/nope/board?position=0");
    assert_eq!((r.status, r.error()), (404, "unknown_table".to_string()));
    let r = server.get("/api/v1/tables/seed001/board?position=99");
    assert_eq!((r.status, r.error()), (400, "bad_position".to_string()));
    let r = server.get("/api/v1/tables/bridgit-3/board?position=LLL");
    assert_eq!((r.status, r.error()), (400, "bad_position".to_string()));
    let long = "L".repeat(5000);
    let r = server.get(&format!("/api/v1/tables/seed001/board?position={long}"));
    assert_eq!((r.status, r.error()), (400, "bad_position".to_string()));
    let r = server.post("/api/v1/tables/seed001/board?position=0", b"");
    assert_eq!(
        (r.status, r.error()),
        (405, "method_not_allowed".to_string())
    );
    // Values as games, as `probe --value --json` gives them, for the position and each move
    // (an unknown parameter, a bad flag and a table without values are the API's 400s).
    let late = "LR.LR.L......";
    let o = retrodb(&[
        "probe",
        bridgit.to_str().unwrap(),
        late,
        "--value",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let want: Json = serde_json::from_str(stdout(&o).trim()).unwrap();
    let r = server.get(&format!(
        "/api/v1/tables/bridgit-3/board?position={late}&value=true"
    ));
    assert_eq!(r.status, 200, "{}", r.text());
    let got = r.json();
    assert!(want["game_value"].is_string(), "{want}");
    assert_eq!(got["game_value"], want["game_value"]);
    let values = |v: &Json| -> Vec<(String, Json)> {
        let mut m: Vec<(String, Json)> = v["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["move"].as_str().unwrap().to_string(),
                    m["game_value"].clone(),
                )
            })
            .collect();
        m.sort_by(|a, b| a.0.cmp(&b.0));
        m
    };
    assert_eq!(values(&got), values(&want));
    assert!(values(&got).iter().all(|(_, v)| v.is_string()));
    assert!(view(&server, "bridgit-3", late).get("game_value").is_none());
    let r = server.get("/api/v1/tables/seed001/board?position=0&pos=4");
    assert_eq!((r.status, r.error()), (400, "bad_request".to_string()));
    assert!(r.text().contains("'pos'"), "{}", r.text());
    let r = server.get("/api/v1/tables/seed001/board?position=0&value=maybe");
    assert_eq!((r.status, r.error()), (400, "bad_request".to_string()));
    let r = server.get("/api/v1/tables/seed001/board?position=0&value=true");
    assert_eq!((r.status, r.error()), (400, "no_values".to_string()));
    let list = server.get("/api/v1/tables").json();
    let has = |name: &str| {
        list["tables"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap()["game_values"]
            .clone()
    };
    assert_eq!(
        (has("bridgit-3"), has("seed001")),
        (Json::Bool(true), Json::Bool(false))
    );

    // The API's own routes are still answered, and unknown ones get its JSON 404.
    assert_eq!(server.get("/api/v1/tables/seed001?position=4").status, 200);
    let r = server.get("/api/v1/nothing");
    assert_eq!((r.status, r.error()), (404, "not_found".to_string()));
}
