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
//! [`crate::table::lookup::Lookups`] as the API does; its route, query, limits and errors are
//! the API's (`api::board_view`: unknown parameters refused, the request timeout, the in-flight
//! and body limits, the value slots and budget its game values share with the probes', JSON
//! errors `{"error": CODE, "detail": TEXT}`).

use serde::Serialize;

use super::Served;
use super::api::{ApiError, lookup_error};
use crate::games::Turn;
use crate::table::Probe;
use crate::table::lookup::Lookups;

/// The answer: the probe's fields, the turn's, and the picture.
#[derive(Serialize)]
struct View {
    #[serde(flatten)]
    probe: Probe,
    #[serde(flatten)]
    turn: Turn,
    svg: String,
}

/// The board's view of position `text` of table `t`, as JSON, through `lookups` (which add the
/// game values when asked).
pub(super) fn view(t: &Served, text: &str, mut lookups: Lookups<'_>) -> Result<Vec<u8>, ApiError> {
    let probe = lookups.probe_as_asked(text).map_err(lookup_error)?;
    let game = t.table.game();
    let view = View {
        turn: game.turn(probe.index),
        svg: game.board_svg_as_asked(text, probe.index),
        probe,
    };
    serde_json::to_vec(&view).map_err(|e| {
        ApiError::new(
            axum::http::StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            e.to_string(),
        )
    })
}
