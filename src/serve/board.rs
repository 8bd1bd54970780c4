//! The web board's view of a position, `GET /api/v1/tables/{name}/board?position=TEXT`: in one
//! answer what the page draws — the probe of the position **as asked** (where a `,sym` table
//! holds a symmetric image of the board, the position, its moves and the positions they make are
//! mapped back onto the asked board: [`crate::table::Table::probe_as_asked`]), the moves best
//! first, who is to move or who has won ([`crate::games::Turn`]), and the SVG of the asked
//! board with each move a clickable `<g class="move" data-move="NAME">`.
//!
//! The invariant: the page needs nothing but this answer to draw a position and to play the
//! table's best move (the first of `moves`), so it holds no game logic. Errors are the API's
//! JSON errors (`{"error": CODE, "detail": TEXT}`).

use std::collections::HashMap;

use axum::Router;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Serialize;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;

use super::{Catalog, Limits, Served};
use crate::games::Turn;
use crate::table::Probe;

/// What the board's handler reads.
#[derive(Clone)]
struct Board {
    catalog: Catalog,
    max_position_bytes: usize,
}

/// The route of the board's view, with JSON errors for a panic and a wrong method.
pub(crate) fn router(catalog: Catalog, limits: &Limits) -> Router {
    let state = Board {
        catalog,
        max_position_bytes: limits.max_position_bytes,
    };
    Router::new()
        .route(
            "/api/v1/tables/{name}/board",
            get(view).fallback(wrong_method),
        )
        .with_state(state)
        .layer(CompressionLayer::new())
        .layer(CatchPanicLayer::custom(|_| {
            error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                "the server failed on this request (a bug: please report it with the request)"
                    .into(),
            )
            .into_response()
        }))
}

/// The answer: the probe's fields, the turn's, and the picture.
#[derive(Serialize)]
struct View {
    #[serde(flatten)]
    probe: Probe,
    #[serde(flatten)]
    turn: Turn,
    svg: String,
}

/// An error answer: the API's JSON error.
struct Failure {
    status: StatusCode,
    code: &'static str,
    detail: String,
}

fn error(status: StatusCode, code: &'static str, detail: String) -> Failure {
    Failure {
        status,
        code,
        detail,
    }
}

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "error": self.code, "detail": self.detail });
        let mut r = (self.status, body.to_string()).into_response();
        r.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        r
    }
}

async fn wrong_method() -> Response {
    let mut r = error(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        "the board's view answers GET only".into(),
    )
    .into_response();
    r.headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("GET,HEAD"));
    r
}

impl Board {
    fn table(&self, name: Result<Path<String>, PathRejection>) -> Result<&Served, Failure> {
        let Path(name) = name.map_err(|e| {
            error(
                StatusCode::BAD_REQUEST,
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
            error(
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
}

/// `GET /api/v1/tables/{name}/board?position=TEXT` (without a position: the table's start).
async fn view(
    State(board): State<Board>,
    name: Result<Path<String>, PathRejection>,
    query: Result<Query<HashMap<String, String>>, axum::extract::rejection::QueryRejection>,
) -> Response {
    answer(&board, name, query).unwrap_or_else(IntoResponse::into_response)
}

fn answer(
    board: &Board,
    name: Result<Path<String>, PathRejection>,
    query: Result<Query<HashMap<String, String>>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, Failure> {
    let t = board.table(name)?;
    let Query(query) = query.map_err(|e| {
        error(
            StatusCode::BAD_REQUEST,
            "bad_request",
            format!("the query: {}", e.body_text()),
        )
    })?;
    let bad_position = |detail: String| error(StatusCode::BAD_REQUEST, "bad_position", detail);
    let text = match (query.get("position"), &t.start) {
        (Some(p), _) => p.clone(),
        (None, Some(start)) => start.clone(),
        (None, None) => {
            return Err(bad_position(
                "parameter 'position' is missing and the table has no start position".into(),
            ));
        }
    };
    if text.len() > board.max_position_bytes {
        return Err(bad_position(format!(
            "the position is {} bytes long; the limit is {}",
            text.len(),
            board.max_position_bytes
        )));
    }
    let failed = |e: crate::Error| match e {
        crate::Error::Position(e) => bad_position(e.to_string()),
        e => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "table_error",
            e.to_string(),
        ),
    };
    let mut probe = t.table.probe_as_asked(&text).map_err(failed)?;
    probe.sort_moves_best_first();
    let game = t.table.game();
    let view = View {
        turn: game.turn(probe.index),
        svg: game.board_svg_as_asked(&text, probe.index),
        probe,
    };
    let bytes = serde_json::to_vec(&view)
        .map_err(|e| error(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string()))?;
    let mut r = (StatusCode::OK, bytes).into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    Ok(r)
}
