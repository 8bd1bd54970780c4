//! `POST /api/v1/tables/{name}/batch`: many positions a request, answered inline when few,
//! else by a blocking worker that streams the answers out in chunks.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use rayon::prelude::*;

use super::error::ApiError;
use super::query::{Probing, Query};
use super::{App, BATCH_PARAMS};
use crate::serve::body::ChannelBody;

/// Batches of at most this many lines are answered at once on the runtime's thread.
const INLINE_LINES: usize = 64;
/// Lines a blocking worker answers between two chunks it streams out.
const CHUNK_LINES: usize = 1 << 14;

/// `POST /api/v1/tables/{name}/batch[?moves=false][&line=true][&value=true][&free_moves=C]`:
/// position texts one a line (blank lines skipped), an answer line for each, in order.
pub(super) async fn batch(
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
