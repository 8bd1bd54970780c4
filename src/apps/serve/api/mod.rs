//! The routes: the JSON API under `/api/v1` (the web board's view of a position among them),
//! `/health`, and the web board's page and assets, all under one set of layers (the request
//! timeout, the in-flight limit, the body limit, compression, JSON errors). Every error is a
//! JSON object `{"error": CODE, "detail": TEXT}` with its HTTP status — the handlers' own
//! errors ([`ApiError`]) and, through `json_errors`, those the middleware and the router
//! answer (unknown route, wrong method, body too large, timeout, panic).
//!
//! Probing is synchronous work on memory-mapped bytes: about a microsecond for a position and
//! its moves when the table is in memory, a disk read when it is not. So every handler that
//! reads a table does it off the runtime's threads (`work.rs`: short lookups on lookup threads,
//! game values on the blocking pool), bounded and cancellable; a batch runs on a blocking
//! thread that hands chunks to Rayon and streams the answers out as the client takes them
//! (`batch.rs`). What touches no table (`/health`, the list of tables, a table's
//! description) is answered on the runtime's threads.

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use axum::routing::{get, post};
use serde::Serialize;
use tower::limit::GlobalConcurrencyLimitLayer;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::TimeoutLayer;

mod batch;
mod error;
mod query;
mod work;

use super::{Catalog, Limits, Served, assets, board};
use crate::base::budget::Cancel;
use crate::game::{Notation, Value};
use crate::table::lookup::Lookups;
use crate::table::{LineStep, Probe};
use crate::with_game;
pub use batch::BATCH_STREAM_BYTES;
use batch::batch;
pub use error::ApiError;
pub(super) use error::lookup_error;
use error::{internal, json, json_errors, json_response, not_found, panicked};
pub(super) use error::{table_name, unknown_table};
pub(super) use query::{Probing, Query};

/// What every handler shares.
struct App {
    catalog: Catalog,
    limits: Limits,
    /// Requests computing game values ([`Limits::max_value_requests`]).
    value_slots: Arc<tokio::sync::Semaphore>,
    /// Batch memory, in KiB ([`Limits::max_batch_memory`]).
    batch_memory: Arc<tokio::sync::Semaphore>,
    /// Set when the server shuts down: every request's work stops.
    stopping: Cancel,
    /// Threads for short lookups.
    lookup_threads: work::LookupThreads,
}

/// The API's version within `/api/v1/`: its minor number grows with each change a client can
/// see, every change keeping what a client of the earlier versions reads (docs/SERVE.md, "API
/// versions").
pub const API_VERSION: &str = "1.1";

/// The router over `catalog`, with the limits (applied once, here: `Limits::applied`),
/// compression, and JSON for every error; `stopping` cancels every request's work when set.
pub fn router(catalog: Catalog, limits: Limits, stopping: Cancel) -> Router {
    let limits = limits.applied();
    let timeout = limits.request_timeout;
    let in_flight = limits.max_in_flight;
    // The body limit sits above the handler's own check so a body with a declared length over
    // it is refused before it is read; a chunked one is cut off while reading.
    let body_limit = limits.max_batch_bytes;
    let app = Arc::new(App {
        catalog,
        value_slots: Arc::new(tokio::sync::Semaphore::new(limits.max_value_requests)),
        batch_memory: work::batch_memory(limits.max_batch_memory),
        lookup_threads: work::LookupThreads::new(limits.lookup_threads),
        limits,
        stopping,
    });
    Router::new()
        .route("/", get(assets::index))
        .route("/assets/board.js", get(assets::script))
        .route("/assets/board.css", get(assets::style))
        .route("/health", get(health))
        .route("/api/v1/tables", get(list))
        .route("/api/v1/tables/{name}", get(probe))
        .route("/api/v1/tables/{name}/batch", post(batch))
        .route("/api/v1/tables/{name}/board", get(board_view))
        .route("/api/v1/tables/{name}/picture", get(picture))
        .route("/api/v1/tables/{name}/sum", get(sum))
        .fallback(not_found)
        .with_state(app)
        .layer(RequestBodyLimitLayer::new(body_limit))
        .layer(CompressionLayer::new())
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            timeout,
        ))
        .layer(GlobalConcurrencyLimitLayer::new(in_flight))
        .layer(CatchPanicLayer::custom(panicked))
        .layer(axum::middleware::map_response(json_errors))
}

async fn health(
    State(app): State<Arc<App>>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    Query::parse(query.as_deref(), &[])?;
    Ok(json(&serde_json::json!({
        "status": "ok",
        "api_version": API_VERSION,
        "tables": app.catalog.tables().len(),
    })))
}

/// A table as `/api/v1/tables` lists it.
#[derive(Serialize)]
struct TableInfo<'a> {
    name: &'a str,
    game: &'a str,
    /// Used positions.
    positions: u64,
    /// Indices, used or not.
    size: u64,
    encoding: &'static str,
    remoteness: bool,
    /// Whether the table holds generalized Sprague-Grundy values (answers sums of tokens).
    grundy: bool,
    /// Whether its positions have values as games (`value=true`).
    game_values: bool,
    win: u64,
    loss: u64,
    draw: u64,
    /// The position the web board opens at.
    start: Option<&'a str>,
}

fn info(t: &Served) -> TableInfo<'_> {
    let h = t.table.header();
    let [unused, win, loss, draw] = h.counts;
    TableInfo {
        name: &t.name,
        game: &h.spec,
        positions: h.size - unused,
        size: h.size,
        encoding: if t.table.is_compressed() {
            "zstd"
        } else {
            "raw"
        },
        remoteness: t.table.has_remoteness(),
        grundy: t.table.has_grundy(),
        game_values: crate::games::cell::values::PositionValues::defined_for(t.table.game()),
        win,
        loss,
        draw,
        start: t.start.as_deref(),
    }
}

async fn list(
    State(app): State<Arc<App>>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    Query::parse(query.as_deref(), &[])?;
    let served = app.catalog.tables();
    let tables: Vec<TableInfo> = served.iter().map(|t| info(t)).collect();
    Ok(json(
        &serde_json::json!({ "api_version": API_VERSION, "tables": tables }),
    ))
}

impl App {
    /// The table a request names, as its file is now (a request holds it to its end, so a
    /// table replaced meanwhile never changes under it).
    fn table(&self, name: Result<Path<String>, PathRejection>) -> Result<Arc<Served>, ApiError> {
        let name = table_name(name)?;
        self.catalog
            .get(&name)
            .ok_or_else(|| unknown_table(&name, &self.catalog.names()))
    }

    /// A value slot when `how` asks game values (waiting for one), else nothing to hold.
    async fn value_slot_if(&self, how: &Probing) -> Option<tokio::sync::OwnedSemaphorePermit> {
        match how.ask.game_values {
            Some(_) => Some(self.value_slot().await),
            None => None,
        }
    }

    /// Text a client sends as a position or a sum, refused when it is longer than the limit:
    /// the one length check, made once where the text comes in (a probe's, a board's or a
    /// picture's position, a sum, each line of a batch), never again below.
    fn check_length(&self, what: &str, text: &str) -> Result<(), ApiError> {
        if text.len() > self.limits.max_position_bytes {
            return Err(ApiError::bad(
                "bad_position",
                format!(
                    "the {what} is {} bytes long; the limit is {}",
                    text.len(),
                    self.limits.max_position_bytes
                ),
            ));
        }
        Ok(())
    }

    /// The position a board's view or a picture is asked of — parameter `position`, else the
    /// table's start — its length checked.
    fn position_or_start(&self, q: &Query, t: &Served) -> Result<String, ApiError> {
        let text = match (q.get("position"), &t.start) {
            (Some(p), _) => p.to_string(),
            (None, Some(start)) => start.clone(),
            (None, None) => {
                return Err(ApiError::bad(
                    "bad_position",
                    "parameter 'position' is missing and the table has no start position",
                ));
            }
        };
        self.check_length("position", &text)?;
        Ok(text)
    }

    /// The index of a position text (its length already checked) and its value, refused when
    /// malformed or not a position of the game (an unused index).
    fn position(&self, t: &Served, text: &str) -> Result<(u64, Value), ApiError> {
        t.table.locate(text).map_err(lookup_error)
    }

    /// One answer, as a single probe gives it and a batch line holds it, of a position whose
    /// length is checked: the lookup (moves best first, `best`, and `line` and `game_value` when
    /// asked), or without moves the value line.
    fn answer(
        &self,
        t: &Served,
        text: &str,
        how: &Probing,
        lookups: &mut Lookups<'_>,
    ) -> Result<Vec<u8>, ApiError> {
        if how.moves {
            let p: Probe = lookups.probe(text).map_err(lookup_error)?;
            return serde_json::to_vec(&p).map_err(internal);
        }
        let (pos, value) = self.position(t, text)?;
        let line = if how.ask.line {
            Some(lookups.line(pos).map_err(lookup_error)?)
        } else {
            None
        };
        let v = ValueLine {
            position: with_game!(t.table.game(), g => g.position_text(pos)),
            index: pos,
            value,
            remoteness: t.table.remoteness(pos).map_err(ApiError::damaged)?,
            game_over: t.table.game_over(pos),
            game_value: lookups.game_value(pos).map_err(lookup_error)?,
            line,
        };
        serde_json::to_vec(&v).map_err(internal)
    }

    /// One line of a batch answer, newline included: the answer, or the line's error (its
    /// length checked here, as a probe's is where it comes in).
    fn answer_line(
        &self,
        t: &Served,
        text: &str,
        how: &Probing,
        lookups: &mut Lookups<'_>,
        out: &mut Vec<u8>,
    ) {
        let answer = self
            .check_length("position", text)
            .and_then(|()| self.answer(t, text, how, lookups));
        match answer {
            Ok(bytes) => out.extend_from_slice(&bytes),
            Err(e) => {
                // A position is echoed as messages echo it: a 60 MB line is not sent back.
                let line = serde_json::json!({
                    "position": crate::base::error::cut(text),
                    "error": e.code,
                    "detail": e.detail,
                });
                let _ = serde_json::to_writer(&mut *out, &line);
            }
        }
        out.push(b'\n');
    }
}

/// An answer without moves: what `probe --json` gives before its moves, and the game value and
/// the line when asked.
#[derive(Serialize)]
struct ValueLine {
    position: String,
    index: u64,
    value: Value,
    /// `null` where there is none, as in a probe.
    remoteness: Option<u32>,
    game_over: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    game_value: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<Vec<LineStep>>,
}

/// The parameters of a probe and of a batch.
const PROBE_PARAMS: &[&str] = &["position", "moves", "line", "value", "free_moves"];
const BATCH_PARAMS: &[&str] = &["moves", "line", "value", "free_moves"];

/// `GET /api/v1/tables/{name}?position=TEXT[&moves=false][&line=true][&value=true]
/// [&free_moves=C]`: the lookup; without any parameter, the table's description.
async fn probe(
    State(app): State<Arc<App>>,
    name: Result<Path<String>, PathRejection>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let t = app.table(name)?;
    let q = Query::parse(query.as_deref(), PROBE_PARAMS)?;
    let Some(text) = q.get("position") else {
        if let Some((k, _)) = q.params.first() {
            return Err(ApiError::bad(
                "bad_request",
                format!(
                    "parameter '{k}' needs a position (parameter 'position'); without one the \
                     answer is the table's description, which takes no parameters"
                ),
            ));
        }
        return Ok(json(&info(&t)));
    };
    let how = Probing::from_query(&q, &t)?;
    app.check_length("position", text)?;
    let text = text.to_string();
    let held = app.value_slot_if(&how).await;
    let bytes = app
        .blocking(held, move |app, budget| {
            app.answer(
                &t,
                &text,
                &how,
                &mut how.lookups(&t).with_budget(budget.clone()),
            )
        })
        .await??;
    Ok(json_response(StatusCode::OK, bytes))
}

/// The parameters the board's view takes.
const BOARD_PARAMS: &[&str] = &["position", "value", "free_moves"];

/// `GET /api/v1/tables/{name}/board?position=TEXT[&value=true][&free_moves=C]` (without a
/// position: the table's start): the web board's view ([`board`]).
async fn board_view(
    State(app): State<Arc<App>>,
    name: Result<Path<String>, PathRejection>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let t = app.table(name)?;
    let q = Query::parse(query.as_deref(), BOARD_PARAMS)?;
    let how = Probing::from_query(&q, &t)?;
    let text = app.position_or_start(&q, &t)?;
    let held = app.value_slot_if(&how).await;
    let bytes = app
        .blocking(held, move |_, budget| {
            board::view(&t, &text, how.lookups(&t).with_budget(budget.clone()))
        })
        .await??;
    Ok(json_response(StatusCode::OK, bytes))
}

/// `GET /api/v1/tables/{name}/picture?position=TEXT`: the web board's SVG of the position.
async fn picture(
    State(app): State<Arc<App>>,
    name: Result<Path<String>, PathRejection>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let t = app.table(name)?;
    let q = Query::parse(query.as_deref(), &["position"])?;
    let text = app.position_or_start(&q, &t)?;
    let svg = app
        .blocking(None, move |app, _| {
            let (pos, _) = app.position(&t, &text)?;
            let game = t.table.game();
            let moves = with_game!(game, g => g.moves(pos));
            Ok::<_, ApiError>(game.board_svg(pos, &moves))
        })
        .await??;
    let mut r = Response::new(Body::from(svg));
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("image/svg+xml"),
    );
    Ok(r)
}

/// `GET /api/v1/tables/{name}/sum?tokens=4+9+11`: a sum of tokens (the tokens separated by `+`,
/// which a query delivers as spaces, or by `%2B`), as `retrodb probe --sum --json` answers it.
async fn sum(
    State(app): State<Arc<App>>,
    name: Result<Path<String>, PathRejection>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let t = app.table(name)?;
    let q = Query::parse(query.as_deref(), &["tokens"])?;
    let text = q
        .get("tokens")
        .ok_or_else(|| ApiError::bad("bad_request", "parameter 'tokens' is missing"))?;
    app.check_length("sum", text)?;
    let text = text.to_string();
    app.blocking(None, move |_, _| {
        t.table
            .probe_sum(&text)
            .map(|answer| json(&answer))
            .map_err(lookup_error)
    })
    .await?
}
