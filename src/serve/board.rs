//! The web board's view of a position, `GET /api/v1/tables/{name}/board?position=TEXT`: in one
//! answer what the page draws — the probe of the position **as asked** (where a `,sym` table
//! holds a symmetric image of the board, the position, its moves and the positions they make are
//! mapped back onto the asked board: [`crate::table::Table::probe_as_asked`]), the moves best
//! first, who is to move or who has won ([`crate::games::Turn`]), and the SVG of the asked
//! board with each move a clickable `<g class="move" data-move="NAME">`. With `value=true`
//! (and `free_moves=C`) the values as games are added as the probe's `value=true` adds them.
//!
//! The invariant: the page needs nothing but this answer to draw a position and to play the
//! table's best move (the first of `moves`), so it holds no game logic. It answers through
//! [`crate::table::lookup::Lookups`] as the API does, and its query and errors are the API's (unknown
//! parameters refused, JSON errors `{"error": CODE, "detail": TEXT}`).

use axum::Router;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Serialize;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;

use super::api::{ApiError, Probing, Query, lookup_error, table_name, unknown_table};
use super::{Catalog, Limits, Served};
use crate::games::Turn;
use crate::table::Probe;

/// What the board's handler reads.
#[derive(Clone)]
struct Board {
    catalog: Catalog,
    max_position_bytes: usize,
}

/// The parameters the board's view takes.
const BOARD_PARAMS: &[&str] = &["position", "value", "free_moves"];

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
            ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                "the server failed on this request (a bug: please report it with the request)",
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

async fn wrong_method() -> Response {
    let mut r = ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        "the board's view answers GET only",
    )
    .into_response();
    r.headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("GET,HEAD"));
    r
}

impl Board {
    fn table(&self, name: Result<Path<String>, PathRejection>) -> Result<usize, ApiError> {
        let name = table_name(name)?;
        let tables = self.catalog.tables();
        tables
            .iter()
            .position(|t| t.name == name)
            .ok_or_else(|| unknown_table(&name, tables))
    }
}

/// `GET /api/v1/tables/{name}/board?position=TEXT[&value=true][&free_moves=C]` (without a
/// position: the table's start).
async fn view(
    State(board): State<Board>,
    name: Result<Path<String>, PathRejection>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let index = board.table(name)?;
    let t = &board.catalog.tables()[index];
    let q = Query::parse(query.as_deref(), BOARD_PARAMS)?;
    let how = Probing::from_query(&q, t)?;
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
    if text.len() > board.max_position_bytes {
        return Err(ApiError::bad(
            "bad_position",
            format!(
                "the position is {} bytes long; the limit is {}",
                text.len(),
                board.max_position_bytes
            ),
        ));
    }
    if how.ask.game_values.is_none() {
        return answer(t, &text, &how);
    }
    // Game values may visit up to VALUE_LIMIT positions: off the runtime's threads.
    tokio::task::spawn_blocking(move || answer(&board.catalog.tables()[index], &text, &how))
        .await
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string()))?
}

fn answer(t: &Served, text: &str, how: &Probing) -> Result<Response, ApiError> {
    let probe = how.lookups(t).probe_as_asked(text).map_err(lookup_error)?;
    let game = t.table.game();
    let view = View {
        turn: game.turn(probe.index),
        svg: game.board_svg_as_asked(text, probe.index),
        probe,
    };
    let bytes = serde_json::to_vec(&view)
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string()))?;
    let mut r = (StatusCode::OK, bytes).into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    Ok(r)
}
