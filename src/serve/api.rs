//! The routes: the JSON API under `/api/v1`, `/health`, and the web board's page and assets.
//! Every error is a JSON object `{"error": CODE, "detail": TEXT}` with its HTTP status — the
//! handlers' own errors ([`ApiError`]) and, through [`json_errors`], those the middleware and
//! the router answer (unknown route, wrong method, body too large, timeout, panic).
//!
//! Probing is synchronous work on memory-mapped bytes (about a microsecond for a position and
//! its moves), so single probes are answered on the runtime's own threads; a large batch runs
//! on a blocking thread that hands chunks to Rayon and streams the answers out as they are
//! made.

use std::sync::Arc;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use rayon::prelude::*;
use serde::Serialize;
use tower::limit::GlobalConcurrencyLimitLayer;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::TimeoutLayer;

use super::body::ChannelBody;
use super::{Catalog, Limits, Served, assets};
use crate::game::{Notation, Value};
use crate::lookup::{Ask, Lookups};
use crate::table::{LineStep, Probe};
use crate::with_game;

/// What every handler shares.
struct App {
    catalog: Catalog,
    limits: Limits,
}

/// The router over `catalog`, with the limits, compression, and JSON for every error.
pub fn router(catalog: Catalog, limits: Limits) -> Router {
    let timeout = limits.request_timeout;
    let in_flight = limits.max_in_flight.max(1);
    // The body limit sits above the handler's own check so a body with a declared length over
    // it is refused before it is read; a chunked one is cut off while reading.
    let body_limit = limits.max_batch_bytes;
    let app = Arc::new(App { catalog, limits });
    Router::new()
        .route("/", get(assets::index))
        .route("/assets/board.js", get(assets::script))
        .route("/assets/board.css", get(assets::style))
        .route("/health", get(health))
        .route("/api/v1/tables", get(list))
        .route("/api/v1/tables/{name}", get(probe))
        .route("/api/v1/tables/{name}/batch", post(batch))
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

/// An error answer: a status, a short code for programs and a sentence for people.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub detail: String,
}

impl ApiError {
    pub(super) fn new(
        status: StatusCode,
        code: &'static str,
        detail: impl Into<String>,
    ) -> ApiError {
        ApiError {
            status,
            code,
            detail: detail.into(),
        }
    }

    pub(super) fn bad(code: &'static str, detail: impl Into<String>) -> ApiError {
        Self::new(StatusCode::BAD_REQUEST, code, detail)
    }

    pub(super) fn damaged(e: crate::Error) -> ApiError {
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "table_error",
            e.to_string(),
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "error": self.code, "detail": self.detail });
        json_response(self.status, body.to_string().into_bytes())
    }
}

fn json_response(status: StatusCode, bytes: Vec<u8>) -> Response {
    let mut r = Response::new(Body::from(bytes));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

fn json<T: Serialize>(value: &T) -> Response {
    match serde_json::to_vec(value) {
        Ok(bytes) => json_response(StatusCode::OK, bytes),
        Err(e) => ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string())
            .into_response(),
    }
}

/// Turns the error answers that did not come from a handler (plain text or empty) into JSON
/// errors, keeping their status.
async fn json_errors(response: Response) -> Response {
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return response;
    }
    let code = match status {
        StatusCode::NOT_FOUND => "not_found",
        StatusCode::METHOD_NOT_ALLOWED => "method_not_allowed",
        StatusCode::REQUEST_TIMEOUT => "timeout",
        StatusCode::PAYLOAD_TOO_LARGE => "too_large",
        StatusCode::BAD_REQUEST => "bad_request",
        s if s.is_server_error() => "internal",
        _ => "error",
    };
    let encoded = response.headers().contains_key(header::CONTENT_ENCODING);
    let (parts, body) = response.into_parts();
    let text = if encoded {
        Bytes::new()
    } else {
        axum::body::to_bytes(body, 4096).await.unwrap_or_default()
    };
    let reason = status.canonical_reason().unwrap_or("error");
    let detail = match String::from_utf8_lossy(&text).trim() {
        "" => reason.to_string(),
        t => format!("{reason}: {t}"),
    };
    let mut r = ApiError::new(status, code, detail).into_response();
    if let Some(allow) = parts.headers.get(header::ALLOW) {
        r.headers_mut().insert(header::ALLOW, allow.clone());
    }
    r
}

fn panicked(_: Box<dyn std::any::Any + Send + 'static>) -> Response {
    ApiError::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        "internal",
        "the server failed on this request (a bug: please report it with the request)",
    )
    .into_response()
}

async fn not_found(uri: axum::http::Uri) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "not_found",
        format!(
            "no such page: {} (the API is under /api/v1/tables)",
            uri.path()
        ),
    )
}

async fn health(
    State(app): State<Arc<App>>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    Query::parse(query.as_deref(), &[])?;
    Ok(json(
        &serde_json::json!({ "status": "ok", "tables": app.catalog.tables().len() }),
    ))
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
        game_values: crate::cgt::values::PositionValues::defined_for(t.table.game()),
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
    let tables: Vec<TableInfo> = app.catalog.tables().iter().map(info).collect();
    Ok(json(&serde_json::json!({ "tables": tables })))
}

impl App {
    fn table(&self, name: Result<Path<String>, PathRejection>) -> Result<&Served, ApiError> {
        let Path(name) = name.map_err(|e| {
            ApiError::bad(
                "bad_table_name",
                format!("the table name in the path: {}", e.body_text()),
            )
        })?;
        self.catalog.get(&name).ok_or_else(|| {
            let names: Vec<&str> = self
                .catalog
                .tables()
                .iter()
                .map(|t| t.name.as_str())
                .collect();
            ApiError::new(
                StatusCode::NOT_FOUND,
                "unknown_table",
                format!(
                    "no table named '{}'; tables: {}",
                    name.escape_debug(),
                    names.join(", ")
                ),
            )
        })
    }

    /// The place of a served table in the catalog (for work handed to another thread).
    fn index_of(&self, t: &Served) -> usize {
        self.catalog
            .tables()
            .iter()
            .position(|s| std::ptr::eq(s, t))
            .expect("the table is in the catalog")
    }

    /// A position text refused when it is longer than the limit.
    fn check_length(&self, text: &str) -> Result<(), ApiError> {
        if text.len() > self.limits.max_position_bytes {
            return Err(ApiError::bad(
                "bad_position",
                format!(
                    "the position is {} bytes long; the limit is {}",
                    text.len(),
                    self.limits.max_position_bytes
                ),
            ));
        }
        Ok(())
    }

    /// The index of a position text and its value, refused when too long, malformed, or not a
    /// position of the game (an unused index).
    fn position(&self, t: &Served, text: &str) -> Result<(u64, Value), ApiError> {
        self.check_length(text)?;
        t.table.locate(text).map_err(lookup_error)
    }

    /// One answer, as a single probe gives it and a batch line holds it: the lookup (moves
    /// best first, `best`, and `line` and `game_value` when asked), or without moves the value
    /// line.
    fn answer(
        &self,
        t: &Served,
        text: &str,
        how: &Probing,
        lookups: &mut Lookups<'_>,
    ) -> Result<Vec<u8>, ApiError> {
        if how.moves {
            self.check_length(text)?;
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
            game_value: lookups.game_value(pos),
            line,
        };
        serde_json::to_vec(&v).map_err(internal)
    }

    /// One line of a batch answer, newline included: the answer, or the line's error.
    fn answer_line(
        &self,
        t: &Served,
        text: &str,
        how: &Probing,
        lookups: &mut Lookups<'_>,
        out: &mut Vec<u8>,
    ) {
        match self.answer(t, text, how, lookups) {
            Ok(bytes) => out.extend_from_slice(&bytes),
            Err(e) => {
                let line =
                    serde_json::json!({ "position": text, "error": e.code, "detail": e.detail });
                let _ = serde_json::to_writer(&mut *out, &line);
            }
        }
        out.push(b'\n');
    }
}

/// A lookup's error as its answer: a bad position, a draw's line, a damaged table.
pub(super) fn lookup_error(e: crate::Error) -> ApiError {
    match e {
        crate::Error::Position(e) => ApiError::bad("bad_position", e.to_string()),
        // The one refusal of a position that parsed: the line of a draw.
        crate::Error::Usage(detail) => ApiError::bad("no_line", detail),
        e => ApiError::damaged(e),
    }
}

/// How a probe or a batch answers, from its query: with or without moves, and what the lookup
/// adds ([`Ask`]).
pub(super) struct Probing {
    moves: bool,
    pub(super) ask: Ask,
}

impl Probing {
    /// `moves`, `line`, `value` and `free_moves` from a query, checked against the table.
    pub(super) fn from_query(q: &Query, t: &Served) -> Result<Probing, ApiError> {
        let moves = q.flag("moves", true)?;
        let line = q.flag("line", false)?;
        let value = q.flag("value", false)?;
        let free_moves = match q.get("free_moves") {
            None => None,
            Some(text) => match text.parse::<u32>() {
                Ok(n) if (1..=64).contains(&n) => Some(n),
                _ => {
                    return Err(ApiError::bad(
                        "bad_request",
                        format!(
                            "parameter 'free_moves' is '{}'; use a whole number from 1 to 64",
                            crate::error::cut(text).escape_debug()
                        ),
                    ));
                }
            },
        };
        if free_moves.is_some() && !value {
            return Err(ApiError::bad(
                "bad_request",
                "parameter 'free_moves' goes with value=true (the worth of a finished board in \
                 game values)",
            ));
        }
        if line && !t.table.has_remoteness() {
            return Err(ApiError::bad(
                "no_remoteness",
                format!(
                    "table '{}' was built without remoteness, so it has no principal lines \
                     (build it with --remoteness)",
                    t.name
                ),
            ));
        }
        let ask = Ask {
            line,
            game_values: value.then_some(free_moves.unwrap_or(1)),
        };
        // Refusals of the table as a whole come now, before any position.
        Lookups::new(&t.table, &ask).map_err(|e| ApiError::bad("no_values", e.to_string()))?;
        Ok(Probing { moves, ask })
    }

    pub(super) fn lookups<'t>(&self, t: &'t Served) -> Lookups<'t> {
        Lookups::new(&t.table, &self.ask).expect("checked by from_query")
    }
}

fn internal(e: serde_json::Error) -> ApiError {
    ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string())
}

/// An answer without moves: what `probe --json` gives before its moves, and the game value and
/// the line when asked.
#[derive(Serialize)]
struct ValueLine {
    position: String,
    index: u64,
    value: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    remoteness: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    game_value: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<Vec<LineStep>>,
}

/// `%XX` escapes and `+` (a space) decoded; a malformed escape is an error.
fn percent_decode(s: &str) -> Result<Vec<u8>, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                let hex = b
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(|| {
                        format!("a '%' at byte {i} is not followed by two hex digits")
                    })?;
                out.push(hex);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(out)
}

/// A request's query parameters, decoded, each known to its endpoint and given once.
#[derive(Debug, Default)]
pub(super) struct Query {
    params: Vec<(String, String)>,
}

impl Query {
    /// Decodes `query`, refusing a parameter not in `allowed` (naming every such one, and what
    /// the endpoint takes), one given twice, a malformed `%` escape and text that is not UTF-8.
    pub(super) fn parse(query: Option<&str>, allowed: &[&str]) -> Result<Query, ApiError> {
        let mut params: Vec<(String, String)> = Vec::new();
        let mut unknown: Vec<String> = Vec::new();
        let text = |bytes: Vec<u8>, what: &str| {
            String::from_utf8(bytes).map_err(|e| {
                ApiError::bad(
                    "bad_request",
                    format!(
                        "{what} is not UTF-8 text (byte {} after decoding)",
                        e.utf8_error().valid_up_to()
                    ),
                )
            })
        };
        for pair in query.unwrap_or("").split('&') {
            if pair.is_empty() {
                continue;
            }
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let key = percent_decode(k)
                .map_err(|e| ApiError::bad("bad_request", format!("a parameter's name: {e}")))?;
            let key = text(key, "a parameter's name")?;
            if !allowed.contains(&key.as_str()) {
                let shown = format!("'{}'", crate::error::cut(&key).escape_debug());
                if !unknown.contains(&shown) {
                    unknown.push(shown);
                }
                continue;
            }
            if params.iter().any(|(k, _)| *k == key) {
                return Err(ApiError::bad(
                    "bad_request",
                    format!("parameter '{key}' is given more than once"),
                ));
            }
            let value = percent_decode(v)
                .map_err(|e| ApiError::bad("bad_request", format!("parameter '{key}': {e}")))?;
            let value = text(value, &format!("parameter '{key}'"))?;
            params.push((key, value));
        }
        if !unknown.is_empty() {
            let takes = if allowed.is_empty() {
                "this endpoint takes no parameters".to_string()
            } else {
                format!("this endpoint takes {}", allowed.join(", "))
            };
            return Err(ApiError::bad(
                "bad_request",
                format!(
                    "unknown query parameter{} {}; {takes}",
                    if unknown.len() == 1 { "" } else { "s" },
                    unknown.join(", ")
                ),
            ));
        }
        Ok(Query { params })
    }

    pub(super) fn get(&self, key: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// A flag: `true`/`1`/`yes`/empty or `false`/`0`/`no`; `default` when absent.
    fn flag(&self, key: &str, default: bool) -> Result<bool, ApiError> {
        match self.get(key) {
            None => Ok(default),
            Some("true" | "1" | "yes" | "") => Ok(true),
            Some("false" | "0" | "no") => Ok(false),
            Some(other) => Err(ApiError::bad(
                "bad_request",
                format!(
                    "parameter '{key}' is '{}'; use true or false",
                    crate::error::cut(other).escape_debug()
                ),
            )),
        }
    }
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
        return Ok(json(&info(t)));
    };
    let how = Probing::from_query(&q, t)?;
    if how.ask.game_values.is_none() {
        let bytes = app.answer(t, text, &how, &mut how.lookups(t))?;
        return Ok(json_response(StatusCode::OK, bytes));
    }
    // Game values may visit up to VALUE_LIMIT positions: off the runtime's threads.
    let index = app.index_of(t);
    let text = text.to_string();
    let app = Arc::clone(&app);
    let bytes = tokio::task::spawn_blocking(move || {
        let t = &app.catalog.tables()[index];
        app.answer(t, &text, &how, &mut how.lookups(t))
    })
    .await
    .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string()))??;
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
    let text = q
        .get("position")
        .map(str::to_string)
        .or_else(|| t.start.clone())
        .ok_or_else(|| ApiError::bad("bad_request", "parameter 'position' is missing"))?;
    let (pos, _) = app.position(t, &text)?;
    let game = t.table.game();
    let moves = with_game!(game, g => g.moves(pos));
    let svg = game.board_svg(pos, &moves);
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
    if text.len() > app.limits.max_position_bytes {
        return Err(ApiError::bad(
            "bad_position",
            format!(
                "the sum is {} bytes long; the limit is {}",
                text.len(),
                app.limits.max_position_bytes
            ),
        ));
    }
    match t.table.probe_sum(text) {
        Ok(answer) => Ok(json(&answer)),
        Err(crate::Error::Position(e)) => Err(ApiError::bad("bad_position", e.to_string())),
        Err(crate::Error::Usage(detail)) => Err(ApiError::bad("no_grundy", detail)),
        Err(e) => Err(ApiError::damaged(e)),
    }
}

/// Batches of at most this many lines are answered at once on the runtime's thread.
const INLINE_LINES: usize = 64;
/// Lines a blocking worker answers between two chunks it streams out.
const CHUNK_LINES: usize = 1 << 14;

/// `POST /api/v1/tables/{name}/batch[?moves=false][&line=true][&value=true][&free_moves=C]`:
/// position texts one a line (blank lines skipped), an answer line for each, in order.
async fn batch(
    State(app): State<Arc<App>>,
    name: Result<Path<String>, PathRejection>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let (index, how) = {
        let t = app.table(name)?;
        let q = Query::parse(query.as_deref(), BATCH_PARAMS)?;
        (app.index_of(t), Probing::from_query(&q, t)?)
    };
    let limit = app.limits.max_batch_bytes;
    let too_large = || {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "too_large",
            format!("the batch is larger than the limit of {limit} bytes; split it"),
        )
    };
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(too_large());
    }
    let bytes = axum::body::to_bytes(body, limit).await.map_err(|e| {
        let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&e);
        while let Some(s) = source {
            if s.is::<http_body_util::LengthLimitError>() {
                return too_large();
            }
            source = s.source();
        }
        ApiError::bad("bad_request", format!("reading the batch failed: {e}"))
    })?;
    let text = match std::str::from_utf8(&bytes) {
        Ok(t) => t,
        Err(e) => {
            let line = bytes[..e.valid_up_to()]
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
                + 1;
            return Err(ApiError::bad(
                "bad_request",
                format!("the batch is not UTF-8 text (line {line})"),
            ));
        }
    };
    // Each non-blank line, trimmed, as a byte range of the body.
    let mut lines: Vec<(usize, usize)> = Vec::new();
    let mut at = 0;
    for line in text.split('\n') {
        let trimmed = line.trim();
        if !trimmed.is_empty() {
            let start = at + (trimmed.as_ptr() as usize - line.as_ptr() as usize);
            lines.push((start, start + trimmed.len()));
        }
        at += line.len() + 1;
    }
    if lines.is_empty() {
        return Err(ApiError::bad(
            "empty_batch",
            "the batch holds no position: send position texts, one a line",
        ));
    }
    let ndjson = |body: Body| {
        let mut r = Response::new(body);
        r.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/x-ndjson"),
        );
        r
    };
    if lines.len() <= INLINE_LINES && how.ask.game_values.is_none() {
        let t = &app.catalog.tables()[index];
        let mut lookups = how.lookups(t);
        let mut out = Vec::new();
        for &(a, b) in &lines {
            app.answer_line(t, &text[a..b], &how, &mut lookups, &mut out);
        }
        return Ok(ndjson(Body::from(out)));
    }
    let (tx, rx) = tokio::sync::mpsc::channel::<Bytes>(4);
    let app = Arc::clone(&app);
    tokio::task::spawn_blocking(move || {
        let t = &app.catalog.tables()[index];
        let text = std::str::from_utf8(&bytes).expect("checked above");
        for chunk in lines.chunks(CHUNK_LINES) {
            let parts: Vec<Vec<u8>> = chunk
                .par_chunks(512)
                .map(|part| {
                    let mut out = Vec::with_capacity(part.len() * if how.moves { 512 } else { 64 });
                    let mut lookups = how.lookups(t);
                    for &(a, b) in part {
                        app.answer_line(t, &text[a..b], &how, &mut lookups, &mut out);
                    }
                    out
                })
                .collect();
            if tx.blocking_send(Bytes::from(parts.concat())).is_err() {
                // The client has gone: stop working for it.
                break;
            }
        }
    });
    Ok(ndjson(Body::new(ChannelBody { rx })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("a%2Fb+c").unwrap(), b"a/b c");
        assert_eq!(percent_decode("%ff").unwrap(), vec![0xff]);
        assert!(percent_decode("%g1").is_err());
        assert!(percent_decode("abc%2").is_err());
    }

    #[test]
    fn query_parameters() {
        let q = Query::parse(Some("moves=0&position=..L%2FR"), PROBE_PARAMS).unwrap();
        assert_eq!(q.get("position"), Some("..L/R"));
        assert_eq!(q.get("line"), None);
        assert!(!q.flag("moves", true).unwrap());
        assert!(q.flag("line", true).unwrap());
        let bad = Query::parse(Some("position=%FF%FE"), PROBE_PARAMS).unwrap_err();
        assert_eq!(bad.status, StatusCode::BAD_REQUEST);
        assert!(bad.detail.contains("not UTF-8"), "{}", bad.detail);
        let q = Query::parse(Some("moves=maybe"), BATCH_PARAMS).unwrap();
        let bad = q.flag("moves", true).unwrap_err();
        assert!(bad.detail.contains("'moves' is 'maybe'"), "{}", bad.detail);
        // Unknown parameters are named, all of them, with what the endpoint takes.
        let bad = Query::parse(Some("pos=4&x=1&pos=5"), PROBE_PARAMS).unwrap_err();
        assert_eq!(bad.code, "bad_request");
        assert!(
            bad.detail
                .starts_with("unknown query parameters 'pos', 'x';"),
            "{}",
            bad.detail
        );
        assert!(bad.detail.contains("position, moves"), "{}", bad.detail);
        let bad = Query::parse(Some("t=1"), &[]).unwrap_err();
        assert!(bad.detail.contains("takes no parameters"), "{}", bad.detail);
        // A parameter given twice is refused rather than one of them silently winning.
        let bad = Query::parse(Some("position=4&position=5"), PROBE_PARAMS).unwrap_err();
        assert!(bad.detail.contains("more than once"), "{}", bad.detail);
        // Empty pieces (a trailing '&') are nothing.
        assert!(Query::parse(Some("position=4&"), PROBE_PARAMS).is_ok());
        assert!(Query::parse(Some(""), &[]).is_ok());
    }
}
