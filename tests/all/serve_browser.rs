//! The web board as a person uses it, in headless Chromium driven over WebDriver: load the page,
//! pick a table, click two moves (one on the picture, one in the move list), read the values the
//! page shows and compare them with `retrodb probe --json`; then go back.
//!
//! Needs `chromedriver` and `chromium` (Debian: `apt-get install chromium chromium-driver`;
//! `.ci/run` installs them). Without chromedriver the test prints that it was skipped and passes,
//! so `cargo test` works on a machine without a browser — unless `RETRODB_REQUIRE_BROWSER` is
//! set (as `.ci/run` does), when it fails instead. `RETRODB_SCREENSHOT=FILE` also saves
//! the page as a PNG there (docs/board.png is made so).

use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::server::Server;
use crate::common::{retrodb, stderr, stdout};
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::Value as Json;

fn find_program(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in names {
        for dir in std::env::split_paths(&path).chain([PathBuf::from("/usr/bin")]) {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn probe(table: &Path, position: &str) -> Json {
    let o = retrodb(&["probe", table.to_str().unwrap(), position, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_str(stdout(&o).trim()).unwrap()
}

fn flip(v: &str) -> &'static str {
    match v {
        "win" => "loss",
        "loss" => "win",
        _ => "draw",
    }
}

/// Waits until the page shows `position` (the text box holds it once the answer is drawn).
async fn wait_for_position(c: &Client, position: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let el = c.find(Locator::Css("#position")).await.unwrap();
        let shown = el.prop("value").await.unwrap().unwrap_or_default();
        let rows = c.find_all(Locator::Css("#moves tbody tr")).await.unwrap();
        if shown == position && !rows.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the page shows {shown:?}, not {position:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// What the page shows: the verdict's value and each move row's (name, value for the mover,
/// child position), in order.
async fn shown(c: &Client) -> (String, Vec<(String, String, String)>) {
    let verdict = c.find(Locator::Css("#verdict")).await.unwrap();
    let value = verdict.attr("data-value").await.unwrap().unwrap();
    let mut moves = Vec::new();
    for row in c.find_all(Locator::Css("#moves tbody tr")).await.unwrap() {
        let get = |k: &'static str| {
            let row = row.clone();
            async move { row.attr(k).await.unwrap().unwrap() }
        };
        moves.push((
            get("data-move").await,
            get("data-value").await,
            get("data-position").await,
        ));
    }
    (value, moves)
}

/// The page agrees with `probe --json` at `position`: the value, and every move's value for
/// the mover (the flip of its child's), the same moves.
async fn check_against_probe(c: &Client, table: &Path, position: &str) {
    let want = probe(table, position);
    let (value, moves) = shown(c).await;
    assert_eq!(value, want["value"].as_str().unwrap(), "{position}");
    let mut want_moves: Vec<(String, String, String)> = want["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["move"].as_str().unwrap().to_string(),
                flip(m["value"].as_str().unwrap()).to_string(),
                m["position"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let mut got = moves.clone();
    want_moves.sort();
    got.sort();
    assert_eq!(got, want_moves, "{position}");
    // Best first: winning moves, then drawing, then losing ones.
    let order = |v: &str| {
        ["win", "draw", "loss"]
            .iter()
            .position(|x| *x == v)
            .unwrap()
    };
    assert!(moves.windows(2).all(|w| order(&w[0].1) <= order(&w[1].1)));
    // Every move is on the picture too, coloured by the same value.
    for (name, v, _) in moves.iter().take(40) {
        let sel = format!("#picture g.move[data-move=\"{name}\"]");
        let g = c.find(Locator::Css(&sel)).await.unwrap();
        assert_eq!(
            g.attr("data-value").await.unwrap().as_deref(),
            Some(v.as_str())
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_board_plays_two_moves_and_shows_the_tables_values() {
    let (Some(driver), Some(browser)) = (
        find_program(&["chromedriver"]),
        find_program(&["chromium", "chromium-browser", "google-chrome"]),
    ) else {
        let why =
            "chromedriver or chromium is not installed (apt-get install chromium chromium-driver)";
        assert!(
            std::env::var_os("RETRODB_REQUIRE_BROWSER").is_none(),
            "RETRODB_REQUIRE_BROWSER is set but {why}"
        );
        // Straight to stderr, past the test harness's capture, so the skip is seen.
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED the_board_plays_two_moves_and_shows_the_tables_values: {why}"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let bridgit = dir.path().join("bridgit-3.rdb");
    let seed = dir.path().join("seed001.rdb");
    for (spec, out, extra) in [
        ("bridgit:3", &bridgit, "--compress"),
        ("digraph:data/seed001.txt", &seed, "--remoteness"),
    ] {
        let o = retrodb(&["build", spec, "-o", out.to_str().unwrap(), "--quiet", extra]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let server = Server::start(&[dir.path().to_str().unwrap()]);

    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let _driver = Driver(
        Command::new(&driver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts"),
    );
    let profile = tempfile::tempdir().unwrap();
    let caps = serde_json::json!({
        "goog:chromeOptions": {
            "binary": browser.to_str().unwrap(),
            "args": [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                "--window-size=1100,760",
                format!("--user-data-dir={}", profile.path().display()),
            ]
        }
    });
    let caps: fantoccini::wd::Capabilities = caps.as_object().unwrap().clone();
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    let mut client = None;
    let deadline = Instant::now() + Duration::from_secs(30);
    while client.is_none() {
        match ClientBuilder::new(connector.clone())
            .capabilities(caps.clone())
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
        {
            Ok(c) => client = Some(c),
            Err(e) if Instant::now() > deadline => panic!("chromedriver: {e}"),
            Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
    let c = client.unwrap();

    // Load the page (it opens on the first table, bridgit-3), then pick seed001 and back.
    c.goto(&server.url("/")).await.unwrap();
    let start_bridgit = probe(&bridgit, ".............")["position"]
        .as_str()
        .unwrap()
        .to_string();
    wait_for_position(&c, &start_bridgit).await;
    let select = c.find(Locator::Css("#table")).await.unwrap();
    select.select_by_value("seed001").await.unwrap();
    wait_for_position(&c, "0").await;
    check_against_probe(&c, &seed, "0").await;
    let select = c.find(Locator::Css("#table")).await.unwrap();
    select.select_by_value("bridgit-3").await.unwrap();
    wait_for_position(&c, &start_bridgit).await;
    check_against_probe(&c, &bridgit, &start_bridgit).await;

    // First move: click the first cell drawn on the picture.
    let g = c.find(Locator::Css("#picture g.move")).await.unwrap();
    let name = g.attr("data-move").await.unwrap().unwrap();
    let (_, moves) = shown(&c).await;
    let first = moves.iter().find(|m| m.0 == name).unwrap().2.clone();
    g.find(Locator::Css("circle.mark"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for_position(&c, &first).await;
    check_against_probe(&c, &bridgit, &first).await;

    // Second move: the last row of the move list (the worst move for the mover).
    let rows = c.find_all(Locator::Css("#moves tbody tr")).await.unwrap();
    let row = rows.last().unwrap();
    let second = row.attr("data-position").await.unwrap().unwrap();
    row.click().await.unwrap();
    wait_for_position(&c, &second).await;
    check_against_probe(&c, &bridgit, &second).await;
    let url = c.current_url().await.unwrap();
    assert!(
        url.query().is_some_and(|q| q.contains("table=bridgit-3")),
        "{url}"
    );
    let position_in_url = url
        .query_pairs()
        .find(|(k, _)| k == "position")
        .map(|(_, v)| v.into_owned());
    assert_eq!(position_in_url.as_deref(), Some(second.as_str()));

    if let Ok(path) = std::env::var("RETRODB_SCREENSHOT") {
        let png = c.screenshot().await.unwrap();
        std::fs::write(&path, png).unwrap();
        println!("screenshot: {path}");
    }

    // Back returns to the first move's position; forward to the second; a shared URL opens
    // the same position in a fresh page.
    c.find(Locator::Css("#back"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for_position(&c, &first).await;
    c.find(Locator::Css("#forward"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for_position(&c, &second).await;
    c.goto(url.as_str()).await.unwrap();
    wait_for_position(&c, &second).await;
    check_against_probe(&c, &bridgit, &second).await;

    c.close().await.unwrap();
}
