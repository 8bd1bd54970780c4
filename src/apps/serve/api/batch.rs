//! `POST /api/v1/tables/{name}/batch`: many positions a request, answered by a blocking worker
//! that streams the answers out in chunks as the client takes them.
//!
//! Memory: a batch reserves its body's length and [`BATCH_STREAM_BYTES`] of the server's batch
//! memory before its body is read, and gives them back when its worker ends. The worker reads
//! the lines from the body as it goes (no index of them), cuts its answer into chunks of about
//! [`CHUNK_BYTES`], and waits when [`QUEUED_CHUNKS`] are queued for the client; a client that
//! takes nothing for the write timeout loses its connection, which drops the answer and so
//! ends the worker (its send fails, and its budget is cancelled). The invariant: an answer that
//! does not end with its last line ends with an error, never as if it were complete.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::body::{Body, Bytes};
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use rayon::prelude::*;
use tokio::sync::mpsc::Sender;

use super::error::ApiError;
use super::query::{Probing, Query};
use super::work::Work;
use super::{App, BATCH_PARAMS};
use crate::apps::serve::Served;
use crate::apps::serve::body::ChannelBody;
use crate::base::budget::Budget;

/// Bytes of a batch's answer held at once besides its body — the chunk being made, the chunk
/// queued, the one hyper writes, and slack for a chunk larger than foreseen — reserved from
/// the batch memory with the body.
pub const BATCH_STREAM_BYTES: usize = 4 << 20;
/// A chunk of the answer is cut at about this many bytes ...
const CHUNK_BYTES: usize = 1 << 20;
/// ... and holds between these many lines (the first holds [`FIRST_CHUNK_LINES`]).
const MIN_CHUNK_LINES: usize = 64;
const MAX_CHUNK_LINES: usize = 1 << 14;
const FIRST_CHUNK_LINES: usize = 512;
/// Chunks made and waiting for the client.
const QUEUED_CHUNKS: usize = 1;

/// `POST /api/v1/tables/{name}/batch[?moves=false][&line=true][&value=true][&free_moves=C]`:
/// position texts one a line (blank lines skipped), an answer line for each, in order.
pub(super) async fn batch(
    State(app): State<Arc<App>>,
    name: Result<Path<String>, PathRejection>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let (t, how) = {
        let t = app.table(name)?;
        let q = Query::parse(query.as_deref(), BATCH_PARAMS)?;
        let how = Probing::from_query(&q, &t)?;
        (t, how)
    };
    let limit = app.limits.max_batch_bytes;
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(too_large(limit));
    }
    // The memory first, then the body: a batch waiting for its turn holds no body. (Batches
    // take the batch memory before a value slot, single lookups a value slot alone: no two
    // requests wait for each other's.)
    let body_bytes = declared.map_or(limit, |n| n as usize);
    let mut held = vec![app.batch_reservation(body_bytes + BATCH_STREAM_BYTES).await];
    held.extend(app.value_slot_if(&how).await);
    let bytes = read_body(body, limit, body_bytes).await?;
    let (budget, cancel_when_dropped) = app.budget();
    let work = Work::new(held, budget);
    let (verdict_tx, verdict) = tokio::sync::oneshot::channel::<Result<(), ApiError>>();
    let (tx, rx) = tokio::sync::mpsc::channel::<Bytes>(QUEUED_CHUNKS);
    let complete = Arc::new(AtomicBool::new(false));
    let done = Arc::clone(&complete);
    let app = Arc::clone(&app);
    tokio::task::spawn_blocking(move || {
        let t: &Served = &t;
        let text = match std::str::from_utf8(&bytes) {
            Ok(text) => text,
            Err(e) => {
                let line = bytes[..e.valid_up_to()]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count()
                    + 1;
                let _ = verdict_tx.send(Err(ApiError::bad(
                    "bad_request",
                    format!("the batch is not UTF-8 text (line {line})"),
                )));
                return;
            }
        };
        let mut lines = text
            .split('\n')
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .peekable();
        if lines.peek().is_none() {
            let _ = verdict_tx.send(Err(ApiError::bad(
                "empty_batch",
                "the batch holds no position: send position texts, one a line",
            )));
            return;
        }
        if verdict_tx.send(Ok(())).is_err() {
            return;
        }
        if stream(&app, t, &how, lines, &work.budget, &tx) {
            done.store(true, Ordering::Release);
        }
        drop(work);
    });
    match verdict.await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(e),
        Err(_) => {
            return Err(ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                "the server failed on this request (a bug: please report it with the request)",
            ));
        }
    }
    let mut r = Response::new(Body::new(ChannelBody {
        rx,
        complete,
        _cancel: cancel_when_dropped,
    }));
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/x-ndjson"),
    );
    Ok(r)
}

fn too_large(limit: usize) -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        "too_large",
        format!("the batch is larger than the limit of {limit} bytes; split it"),
    )
}

/// The body, at most `limit` bytes (`expected`: room made at once, its declared length).
async fn read_body(mut body: Body, limit: usize, expected: usize) -> Result<Vec<u8>, ApiError> {
    use http_body_util::BodyExt;
    let mut out = Vec::with_capacity(expected.min(limit));
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| {
            let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&e);
            while let Some(s) = source {
                if s.is::<http_body_util::LengthLimitError>() {
                    return too_large(limit);
                }
                source = s.source();
            }
            ApiError::bad("bad_request", format!("reading the batch failed: {e}"))
        })?;
        if let Ok(data) = frame.into_data() {
            if out.len() + data.len() > limit {
                return Err(too_large(limit));
            }
            out.extend_from_slice(&data);
        }
    }
    Ok(out)
}

/// Answers `lines` chunk by chunk into `tx`; `true` when every line was answered and sent,
/// `false` when the client went away or the work was cancelled first.
fn stream<'a>(
    app: &App,
    t: &Served,
    how: &Probing,
    mut lines: impl Iterator<Item = &'a str>,
    budget: &Budget,
    tx: &Sender<Bytes>,
) -> bool {
    let mut chunk: Vec<&str> = Vec::with_capacity(MAX_CHUNK_LINES);
    let mut want = FIRST_CHUNK_LINES;
    // Game values share one memo across the batch (a position's value is most of its
    // children's): one lookup after the other. Other batches are probed in parallel.
    let mut valued = how
        .ask
        .game_values
        .map(|_| how.lookups(t).with_budget(budget.clone()));
    loop {
        chunk.clear();
        chunk.extend(lines.by_ref().take(want));
        if chunk.is_empty() {
            return true;
        }
        let out: Vec<u8> = match valued.as_mut() {
            Some(lookups) => {
                let mut out = Vec::new();
                for &line in &chunk {
                    if budget.is_cancelled() {
                        break;
                    }
                    app.answer_line(t, line, how, lookups, &mut out);
                }
                out
            }
            None => {
                let part = (chunk.len() / (4 * rayon::current_num_threads())).max(16);
                let parts: Vec<Vec<u8>> = chunk
                    .par_chunks(part)
                    .map(|part| {
                        let mut out = Vec::new();
                        let mut lookups = how.lookups(t);
                        for &line in part {
                            if budget.is_cancelled() {
                                break;
                            }
                            app.answer_line(t, line, how, &mut lookups, &mut out);
                        }
                        out
                    })
                    .collect();
                parts.concat()
            }
        };
        if budget.is_cancelled() {
            return false;
        }
        // The next chunk's lines, for about CHUNK_BYTES at this chunk's bytes a line.
        want =
            (CHUNK_BYTES * chunk.len() / out.len().max(1)).clamp(MIN_CHUNK_LINES, MAX_CHUNK_LINES);
        if tx.blocking_send(Bytes::from(out)).is_err() {
            // The client has gone: stop working for it.
            return false;
        }
    }
}
