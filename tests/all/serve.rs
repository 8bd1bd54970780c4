//! `retrodb serve` end to end: the server started on a free local port answers exactly what
//! `retrodb probe --json` answers, on every game family, and refuses bad requests with the right
//! status and a JSON error, without falling over.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::common::server::{Server, encode, raw, request};
use crate::common::{retrodb, retrodb_stdin, stderr, stdout};
use serde_json::Value as Json;

/// The tables every test serves, built once: one per game family.
struct Tables {
    _dir: tempfile::TempDir,
    dir: PathBuf,
}

const BUILDS: &[(&str, &str, &[&str])] = &[
    ("seed001", "digraph:data/seed001.txt", &["--remoteness"]),
    ("bridgit-3", "bridgit:3", &["--compress"]),
    ("hex-3", "hex:3", &["--remoteness"]),
    (
        "k4",
        "shannon:data/shannon/k4.txt",
        &["--remoteness", "--compress"],
    ),
    (
        "house",
        "hackenbush:data/hackenbush-house.txt",
        &["--remoteness"],
    ),
    (
        "seed001-sums",
        "digraph:data/seed001.txt",
        &["--grundy", "--compress"],
    ),
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

fn serve_all(extra: &[&str]) -> Server {
    let mut args = vec![tables().dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    Server::start(&args)
}

/// Up to `n` used positions of a table, spread evenly over its dump.
fn sample(name: &str, n: usize) -> Vec<String> {
    let o = retrodb(&["dump", table(name).to_str().unwrap()]);
    assert!(o.status.success());
    let all: Vec<String> = stdout(&o)
        .lines()
        .map(|l| l.split('\t').next().unwrap().to_string())
        .collect();
    let step = all.len().div_ceil(n).max(1);
    all.into_iter().step_by(step).collect()
}

/// `retrodb probe TABLE - --json` on `positions`, one JSON value each.
fn probe_cli(name: &str, positions: &[String]) -> Vec<Json> {
    let o = retrodb_stdin(
        &["probe", table(name).to_str().unwrap(), "-", "--json"],
        positions.join("\n"),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// How good a move is for the player making it (lower is better), from its child's value
/// and remoteness: the order the API promises (quick wins, draws, slow losses).
fn rank(m: &Json) -> (u8, i64) {
    let r = m["remoteness"].as_i64().unwrap_or(0);
    match m["value"].as_str().unwrap() {
        "loss" => (0, r),
        "draw" => (1, 0),
        "win" => (2, -r),
        v => panic!("value {v}"),
    }
}

/// The server's answer equals the CLI's, field for field and move for move (both list the moves
/// best first), and the moves are best first by the order the API promises.
fn assert_same(server: &Json, cli: &Json, what: &str) {
    let moves = server["moves"].as_array().expect("moves");
    let ranks: Vec<(u8, i64)> = moves.iter().map(rank).collect();
    assert!(
        ranks.windows(2).all(|w| w[0] <= w[1]),
        "{what}: moves not best first: {server}"
    );
    assert_eq!(server, cli, "{what}");
    assert_eq!(
        server.get("best"),
        moves.first(),
        "{what}: best is the first move"
    );
}

#[test]
fn answers_equal_probe_json_on_every_game_family() {
    let server = serve_all(&[]);
    let mut checked = 0;
    for (name, spec, _) in BUILDS {
        let positions = sample(name, 1500);
        assert!(!positions.is_empty());
        let want = probe_cli(name, &positions);
        assert_eq!(want.len(), positions.len());

        // The batch endpoint: every position, in order.
        let r = server.post(
            &format!("/api/v1/tables/{name}/batch"),
            positions.join("\n").as_bytes(),
        );
        assert_eq!(r.status, 200, "{}", r.text());
        let got: Vec<Json> = r
            .text()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(got.len(), want.len(), "{spec}");
        for (g, w) in got.iter().zip(&want) {
            assert_same(g, w, spec);
        }

        // Values only: the same value and remoteness, no moves.
        let r = server.post(
            &format!("/api/v1/tables/{name}/batch?moves=false"),
            positions.join("\n").as_bytes(),
        );
        assert_eq!(r.status, 200);
        for (line, w) in r.text().lines().zip(&want) {
            let g: Json = serde_json::from_str(line).unwrap();
            assert_eq!(g["position"], w["position"]);
            assert_eq!(g["value"], w["value"]);
            assert_eq!(g["remoteness"], w["remoteness"]);
            assert!(g.get("moves").is_none());
        }

        // Single lookups, every 7th position, on fresh connections.
        for (p, w) in positions.iter().zip(&want).step_by(7) {
            let r = server.get(&format!("/api/v1/tables/{name}?position={}", encode(p)));
            assert_eq!(r.status, 200, "{spec} {p}: {}", r.text());
            assert_same(&r.json(), w, &format!("{spec} {p}"));
            checked += 1;
        }
        checked += positions.len();

        // The picture names every move of the position.
        let p = &positions[positions.len() / 2];
        let r = server.get(&format!(
            "/api/v1/tables/{name}/picture?position={}",
            encode(p)
        ));
        assert_eq!(r.status, 200);
        assert!(r.headers.contains("image/svg+xml"));
        let svg = r.text();
        let w = &want[positions.len() / 2];
        for m in w["moves"].as_array().unwrap().iter().take(40) {
            let name = m["move"].as_str().unwrap();
            assert!(
                svg.contains(&format!("data-move=\"{name}\"")),
                "{spec} {p}: no move {name} in the picture"
            );
        }
    }
    assert!(checked > 5000, "{checked} positions checked");

    // The list names every table with its game.
    let list = server.get("/api/v1/tables").json();
    let listed: Vec<(&str, &str)> = list["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["name"].as_str().unwrap(), t["game"].as_str().unwrap()))
        .collect();
    for (name, spec, _) in BUILDS {
        assert!(listed.contains(&(name, spec)), "{listed:?}");
    }
    assert_eq!(server.get("/health").json()["status"], "ok");
}

#[test]
fn bad_requests_get_json_errors_and_the_server_stays_up() {
    let server = serve_all(&["--max-batch-mib", "1"]);
    let expect = |target: &str, status: u16, code: &str| {
        let r = server.get(target);
        assert_eq!(r.status, status, "{target}: {}", r.text());
        assert_eq!(r.error(), code, "{target}");
        r
    };
    // Table names are names, never paths.
    let abs = table("seed001");
    let abs = abs.to_str().unwrap();
    for name in [
        "nope".to_string(),
        "seed001.rdb".into(),
        "..%2F..%2F..%2Fetc%2Fpasswd".into(),
        "%2E%2E".into(),
        "..".into(),
        "%2Fetc%2Fpasswd".into(),
        encode(abs),
        "%252E%252E%252Fseed001".into(),
    ] {
        let r = expect(
            &format!("/api/v1/tables/{name}?position=4"),
            404,
            "unknown_table",
        );
        assert!(r.json()["detail"].as_str().unwrap().contains("seed001"));
    }
    // A path that is not a route at all (sent as it is, not normalised).
    expect(
        "/api/v1/tables/../../etc/passwd?position=4",
        404,
        "not_found",
    );
    expect(&format!("/api/v1/tables{abs}"), 404, "not_found");
    expect("/etc/passwd", 404, "not_found");

    // Malformed, unused and over-long positions name what is wrong.
    let r = expect("/api/v1/tables/seed001?position=x4", 400, "bad_position");
    assert!(r.json()["detail"].as_str().unwrap().contains("x4"));
    let r = expect("/api/v1/tables/hex-3?position=LLL", 400, "bad_position");
    assert!(r.json()["detail"].as_str().unwrap().contains("cells"));
    let long = "L".repeat(5000);
    let r = expect(
        &format!("/api/v1/tables/hex-3?position={long}"),
        400,
        "bad_position",
    );
    assert!(r.json()["detail"].as_str().unwrap().contains("limit"));
    expect("/api/v1/tables/seed001?position=%ZZ", 400, "bad_request");

    // Bytes that are not UTF-8: percent-encoded in the query and the path, and in a body.
    let r = expect("/api/v1/tables/seed001?position=%FF%FE", 400, "bad_request");
    assert!(r.json()["detail"].as_str().unwrap().contains("UTF-8"));
    expect("/api/v1/tables/%FF?position=4", 400, "bad_table_name");
    let r = server.post("/api/v1/tables/seed001/batch", b"4\n\xff\xfe\n");
    assert_eq!(r.status, 400);
    assert_eq!(r.error(), "bad_request");
    assert!(r.json()["detail"].as_str().unwrap().contains("line 2"));
    // Raw bytes above ASCII in the request line are refused by the HTTP layer.
    let r = raw(
        server.addr,
        b"GET /api/v1/tables/\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n",
    );
    assert_eq!(r.status, 400);

    // Batches: empty, blank, too large (declared and chunked), and a bad line among good ones.
    for body in [&b""[..], b"\n \n\t\n"] {
        let r = server.post("/api/v1/tables/seed001/batch", body);
        assert_eq!(r.status, 400);
        assert_eq!(r.error(), "empty_batch");
    }
    let huge = "4\n".repeat(600_000);
    let r = server.post("/api/v1/tables/seed001/batch", huge.as_bytes());
    assert_eq!(r.status, 413);
    assert_eq!(r.error(), "too_large");
    let mut chunked = format!(
        "POST /api/v1/tables/seed001/batch HTTP/1.1\r\nHost: x\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n",
        huge.len()
    )
    .into_bytes();
    chunked.extend_from_slice(huge.as_bytes());
    chunked.extend_from_slice(b"\r\n0\r\n\r\n");
    let r = raw(server.addr, &chunked);
    assert_eq!(r.status, 413, "{}", r.text());
    assert_eq!(r.error(), "too_large");
    let r = server.post("/api/v1/tables/seed001/batch", b"4\nnope\n8\n");
    assert_eq!(r.status, 200);
    let lines: Vec<Json> = r
        .text()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["value"], "win");
    assert_eq!(lines[1]["error"], "bad_position");
    assert_eq!(lines[1]["position"], "nope");
    assert_eq!(lines[2]["value"], "loss");
    let r = server.post("/api/v1/tables/seed001/batch?moves=perhaps", b"4\n");
    assert_eq!(r.status, 400);
    assert_eq!(r.error(), "bad_request");

    // Wrong methods.
    let r = request(server.addr, "DELETE", "/api/v1/tables/seed001", &[]);
    assert_eq!(r.status, 405);
    assert_eq!(r.error(), "method_not_allowed");
    let r = server.post("/api/v1/tables/seed001?position=4", b"");
    assert_eq!(r.status, 405);

    // Without a position: the table's description.
    let d = server.get("/api/v1/tables/seed001").json();
    assert_eq!(d["game"], "digraph:data/seed001.txt");
    assert_eq!(d["positions"], 12);
    assert_eq!(server.get("/health").status, 200);
}

#[test]
fn silent_and_slow_clients_are_cut_off() {
    let server = serve_all(&["--header-timeout", "1"]);
    let started = Instant::now();
    // One connection that sends nothing, one that stops half way through its headers.
    let mut silent = TcpStream::connect(server.addr).unwrap();
    let mut slow = TcpStream::connect(server.addr).unwrap();
    slow.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    for s in [&mut silent, &mut slow] {
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        let mut buf = Vec::new();
        // The server closes the connection (EOF, or a reset): it never waits forever.
        let _ = s.read_to_end(&mut buf);
        assert!(
            !String::from_utf8_lossy(&buf).contains("200 OK"),
            "an incomplete request was answered"
        );
    }
    let waited = started.elapsed();
    // Held until the header timeout (1 s), and not much longer.
    assert!(
        waited >= Duration::from_millis(900),
        "closed after {waited:?}"
    );
    assert!(
        waited < Duration::from_secs(15),
        "connections held for {waited:?}"
    );
    // Meanwhile and afterwards, other clients are answered.
    assert_eq!(server.get("/health").status, 200);
}

#[test]
fn damaged_and_missing_tables_are_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.rdb");
    std::fs::copy(table("seed001"), &bad).unwrap();
    let mut bytes = std::fs::read(&bad).unwrap();
    bytes[4096] ^= 0x24;
    std::fs::write(&bad, bytes).unwrap();
    let o = retrodb(&["serve", bad.to_str().unwrap(), "--addr", "127.0.0.1:0"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("fails its checksum"), "{}", stderr(&o));
    assert!(stdout(&o).is_empty(), "it must not start listening");

    let o = retrodb(&["serve", "/nonexistent/x.rdb", "--addr", "127.0.0.1:0"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("/nonexistent/x.rdb"), "{}", stderr(&o));
    let empty = tempfile::tempdir().unwrap();
    let o = retrodb(&["serve", empty.path().to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("no table file"), "{}", stderr(&o));
    // Two tables with one name are refused rather than one hiding the other.
    let other = tempfile::tempdir().unwrap();
    std::fs::copy(table("seed001"), other.path().join("seed001.rdb")).unwrap();
    let o = retrodb(&[
        "serve",
        tables().dir.to_str().unwrap(),
        other.path().to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("two tables would be named 'seed001'"));
}

#[test]
fn sigterm_stops_the_server_gracefully() {
    let mut server = Server::start(&[table("seed001").to_str().unwrap()]);
    assert_eq!(server.get("/api/v1/tables/seed001?position=4").status, 200);
    let started = Instant::now();
    let status = server.stop();
    assert!(status.success(), "{status:?}");
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(TcpStream::connect(server.addr).is_err());
}

/// `retrodb probe TABLE - --sum --json` on `sums`, one JSON value each.
fn probe_sums_cli(name: &str, sums: &[String]) -> Vec<Json> {
    let o = retrodb_stdin(
        &[
            "probe",
            table(name).to_str().unwrap(),
            "-",
            "--sum",
            "--json",
        ],
        sums.join("\n"),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Sums of tokens: the server's `/sum` answers what `probe --sum --json` answers, for every
/// pair and a spread of the triples of the seed's vertices; the tokens may be joined by `+`
/// as the query delivers it (spaces) or percent-encoded; the errors name what is wrong.
#[test]
fn sums_of_tokens_equal_probe_sum_json() {
    let server = serve_all(&[]);
    let vertices: Vec<u64> = (0..12).collect();
    let mut sums: Vec<String> = Vec::new();
    for &a in &vertices {
        for &b in &vertices {
            sums.push(format!("{a}+{b}"));
            for &c in vertices.iter().skip(((a + b) % 5) as usize).step_by(5) {
                sums.push(format!("{a}+{b}+{c}"));
            }
        }
    }
    let want = probe_sums_cli("seed001-sums", &sums);
    assert_eq!(want.len(), sums.len());
    let mut outcomes = std::collections::HashSet::new();
    for (k, (text, w)) in sums.iter().zip(&want).enumerate() {
        // Alternately '+' as a query sends it (a space) and encoded.
        let query = if k % 2 == 0 {
            text.clone()
        } else {
            encode(text)
        };
        let r = server.get(&format!("/api/v1/tables/seed001-sums/sum?tokens={query}"));
        assert_eq!(r.status, 200, "{text}: {}", r.text());
        assert_eq!(&r.json(), w, "{text}");
        outcomes.insert(w["outcome"].as_str().unwrap().to_string());
        // A winning move is given exactly when the first player wins.
        assert_eq!(
            w["value"] == "win",
            !w["moves"].as_array().unwrap().is_empty(),
            "{text}: {w}"
        );
    }
    assert_eq!(outcomes.len(), 3, "every outcome came up: {outcomes:?}");

    let expect = |target: &str, status: u16, code: &str| {
        let r = server.get(target);
        assert_eq!(r.status, status, "{target}: {}", r.text());
        assert_eq!(r.error(), code, "{target}");
        r.json()["detail"].as_str().unwrap().to_string()
    };
    let d = expect(
        "/api/v1/tables/seed001-sums/sum?tokens=4%2B%2B9",
        400,
        "bad_position",
    );
    assert!(d.contains("token 2 is empty"), "{d}");
    let d = expect(
        "/api/v1/tables/seed001-sums/sum?tokens=4%2B99",
        400,
        "bad_position",
    );
    assert!(d.contains("token 2") && d.contains("99"), "{d}");
    expect("/api/v1/tables/seed001-sums/sum", 400, "bad_request");
    let d = expect("/api/v1/tables/seed001/sum?tokens=4%2B9", 400, "no_grundy");
    assert!(d.contains("--grundy"), "{d}");
    let d = expect("/api/v1/tables/hex-3/sum?tokens=1", 400, "no_grundy");
    assert!(d.contains("impartial"), "{d}");
    let long = "1+".repeat(3000);
    let d = expect(
        &format!("/api/v1/tables/seed001-sums/sum?tokens={long}1"),
        400,
        "bad_position",
    );
    assert!(d.contains("limit"), "{d}");
    // The list says which tables answer sums.
    let list = server.get("/api/v1/tables").json();
    for t in list["tables"].as_array().unwrap() {
        assert_eq!(t["grundy"], t["name"] == "seed001-sums", "{t}");
    }
}

/// Every endpoint refuses query parameters it does not take (naming each) and bad flag values,
/// with a JSON 400; single probes and batches take the same parameters and judge them alike.
#[test]
fn unknown_parameters_and_bad_flags_are_refused_on_every_endpoint() {
    let server = serve_all(&[]);
    let refused = |target: &str, names: &[&str]| {
        let r = server.get(target);
        assert_eq!(r.status, 400, "{target}: {}", r.text());
        assert_eq!(r.error(), "bad_request", "{target}");
        let d = r.json()["detail"].as_str().unwrap().to_string();
        for n in names {
            assert!(d.contains(n), "{target}: {d}");
        }
        d
    };
    // The table's description takes no parameter: a typo of `position` is not the metadata.
    let d = refused("/api/v1/tables/seed001?pos=4", &["'pos'", "position"]);
    assert!(d.starts_with("unknown query parameter 'pos'"), "{d}");
    refused(
        "/api/v1/tables/seed001?line=true",
        &["'line'", "needs a position"],
    );
    refused(
        "/api/v1/tables/seed001?position=4&postion=8&x=1",
        &["'postion'", "'x'", "parameters"],
    );
    refused(
        "/api/v1/tables/seed001?position=4&position=8",
        &["more than once"],
    );
    refused("/api/v1/tables?verbose=1", &["'verbose'", "no parameters"]);
    refused("/health?probe=1", &["'probe'"]);
    refused(
        "/api/v1/tables/seed001/picture?position=4&moves=false",
        &["'moves'"],
    );
    refused(
        "/api/v1/tables/seed001-sums/sum?tokens=2+9&token=4",
        &["'token'"],
    );
    // The same parameters and flag values for one position and for a batch.
    for (query, name) in [
        ("moves=maybe", "'moves' is 'maybe'"),
        ("line=sure", "'line' is 'sure'"),
        ("value=2", "'value' is '2'"),
        ("value=true&free_moves=0", "'free_moves' is '0'"),
        ("value=true&free_moves=65", "'free_moves' is '65'"),
        ("free_moves=2", "goes with value=true"),
        ("pos=4", "'pos'"),
    ] {
        refused(
            &format!("/api/v1/tables/hex-3?position=.........&{query}"),
            &[name],
        );
        let r = server.post(
            &format!("/api/v1/tables/hex-3/batch?{query}"),
            b".........\n",
        );
        assert_eq!(r.status, 400, "batch {query}: {}", r.text());
        assert_eq!(r.error(), "bad_request");
        let d = r.json()["detail"].as_str().unwrap().to_string();
        assert!(d.contains(name), "batch {query}: {d}");
    }
    // `position` is a probe's, not a batch's.
    let r = server.post("/api/v1/tables/hex-3/batch?position=4", b"4\n");
    assert_eq!(r.status, 400);
    assert!(r.text().contains("'position'"));
    // What the endpoints take still works, flags spelled every accepted way.
    for target in [
        "/health",
        "/api/v1/tables",
        "/api/v1/tables/seed001",
        "/api/v1/tables/seed001?position=4&moves=1&line=yes&value=0",
        "/api/v1/tables/seed001/picture?position=4",
        "/api/v1/tables/seed001-sums/sum?tokens=2+9",
    ] {
        assert_eq!(server.get(target).status, 200, "{target}");
    }
    // Tables that cannot answer what is asked say so.
    let r = server.get("/api/v1/tables/bridgit-3?position=.............&line=true");
    assert_eq!(
        (r.status, r.error().as_str()),
        (400, "no_remoteness"),
        "{}",
        r.text()
    );
    let r = server.post(
        "/api/v1/tables/bridgit-3/batch?line=true",
        b".............\n",
    );
    assert_eq!((r.status, r.error().as_str()), (400, "no_remoteness"));
    let r = server.get("/api/v1/tables/seed001?position=4&value=true");
    assert_eq!(
        (r.status, r.error().as_str()),
        (400, "no_values"),
        "{}",
        r.text()
    );
    assert!(r.text().contains("no game values"));
    let r = server.get("/api/v1/tables/seed001?position=0&line=true");
    assert_eq!(
        (r.status, r.error().as_str()),
        (400, "no_line"),
        "{}",
        r.text()
    );
    assert!(
        r.json()["detail"]
            .as_str()
            .unwrap()
            .contains("'0' is a draw")
    );
}

/// `best`, `line=true`, `value=true` and `moves=false` on single probes and batches: the same as
/// `retrodb probe --json --line` / `--value` answers, line for line.
#[test]
fn best_move_line_and_game_values_equal_the_command_line() {
    let server = serve_all(&[]);
    for (name, args) in [
        ("hex-3", &["--line"][..]),
        ("house", &["--line"][..]),
        ("k4", &["--value"][..]),
        ("hex-3", &["--value", "--free-moves", "2"][..]),
        ("house", &["--value", "--line"][..]),
        ("bridgit-3", &["--value"][..]),
    ] {
        let positions = sample(name, 60);
        // Drawn positions have no line (these tables hold none: the draw is tested below).
        assert!(
            probe_cli(name, &positions)
                .iter()
                .all(|p| p["value"] != "draw")
        );
        let path = table(name);
        let mut cli = vec!["probe", path.to_str().unwrap(), "-", "--json"];
        cli.extend_from_slice(args);
        let o = retrodb_stdin(&cli, positions.join("\n"));
        assert!(o.status.success(), "{}", stderr(&o));
        let want: Vec<Json> = stdout(&o)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let mut query = Vec::new();
        if args.contains(&"--line") {
            query.push("line=true".to_string());
        }
        if args.contains(&"--value") {
            query.push("value=true".to_string());
        }
        if let Some(k) = args.iter().position(|a| *a == "--free-moves") {
            query.push(format!("free_moves={}", args[k + 1]));
        }
        let query = query.join("&");
        let r = server.post(
            &format!("/api/v1/tables/{name}/batch?{query}"),
            positions.join("\n").as_bytes(),
        );
        assert_eq!(r.status, 200, "{}", r.text());
        let got: Vec<Json> = r
            .text()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(got.len(), want.len());
        for ((p, g), w) in positions.iter().zip(&got).zip(&want) {
            assert_same(g, w, &format!("{name} {p} {query}"));
            if args.contains(&"--line") {
                assert!(g["line"].is_array(), "{g}");
            }
            if args.contains(&"--value") && name != "house" {
                assert!(g["game_value"].is_string(), "{g}");
            }
        }
        for (p, w) in positions.iter().zip(&want).step_by(9) {
            let r = server.get(&format!(
                "/api/v1/tables/{name}?position={}&{query}",
                encode(p)
            ));
            assert_eq!(r.status, 200, "{p}: {}", r.text());
            assert_same(&r.json(), w, &format!("{name} {p} {query}"));
            // moves=false: the value line, with the line and game value asked for.
            let r = server.get(&format!(
                "/api/v1/tables/{name}?position={}&{query}&moves=false",
                encode(p)
            ));
            assert_eq!(r.status, 200, "{p}: {}", r.text());
            let v = r.json();
            assert!(v.get("moves").is_none() && v.get("best").is_none(), "{v}");
            for key in ["position", "index", "value", "remoteness", "line"] {
                assert_eq!(v.get(key), w.get(key), "{name} {p} {key}");
            }
            // The game's own annotations (Hackenbush's exact value) come with the moves only;
            // value=true gives the game value either way.
            let value_asked = args.contains(&"--value");
            assert_eq!(
                v.get("game_value"),
                w.get("game_value").filter(|_| value_asked),
                "{name} {p}"
            );
        }
    }
    // A drawn position in a batch asking for lines: that line is an error, the rest answered.
    let r = server.post("/api/v1/tables/seed001/batch?line=true", b"4\n0\n6\n");
    assert_eq!(r.status, 200);
    let lines: Vec<Json> = r
        .text()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["line"][0]["position"], "6");
    assert_eq!(lines[1]["error"], "no_line");
    assert_eq!(lines[1]["position"], "0");
    assert_eq!(lines[2]["line"], serde_json::json!([]));
    // The seed's vertex 11: the best move and the whole line, as docs/SERVE.md shows them.
    let j = server
        .get("/api/v1/tables/seed001?position=11&line=true")
        .json();
    assert_eq!(j["best"]["position"], "8");
    let plies: Vec<(&str, u64)> = j["line"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["position"].as_str().unwrap(),
                s["remoteness"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(plies, [("8", 2), ("4", 1), ("6", 0)]);
}
