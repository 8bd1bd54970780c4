//! The API's errors: [`ApiError`] (a status, a code, a sentence) as a JSON answer, the JSON
//! answers themselves, and the middleware's and router's own errors turned into the same JSON.

use axum::body::{Body, Bytes};
use axum::extract::Path;
use axum::extract::rejection::PathRejection;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

/// An error answer: a status, a short code for programs and a sentence for people.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub detail: String,
}

impl ApiError {
    pub(in crate::apps::serve) fn new(
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

    pub(in crate::apps::serve) fn bad(code: &'static str, detail: impl Into<String>) -> ApiError {
        Self::new(StatusCode::BAD_REQUEST, code, detail)
    }

    pub(in crate::apps::serve) fn damaged(e: crate::Error) -> ApiError {
        // A table whose file changed under it (an operator's `cp`): nothing is wrong with the
        // request, and the catalog serves the new file once it reads as a whole table.
        if let crate::Error::Table(t) = &e
            && matches!(
                t.kind,
                crate::base::error::table::TableErrorKind::Changed(_)
            )
        {
            return Self::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "table_changed",
                e.to_string(),
            );
        }
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "table_error",
            e.to_string(),
        )
    }
}

/// The table name in a request's path, or the `bad_table_name` answer (400).
pub(in crate::apps::serve) fn table_name(
    name: Result<Path<String>, PathRejection>,
) -> Result<String, ApiError> {
    let Path(name) = name.map_err(|e| {
        ApiError::bad(
            "bad_table_name",
            format!("the table name in the path: {}", e.body_text()),
        )
    })?;
    Ok(name)
}

/// The `unknown_table` answer (404) to a name none of `tables` has, naming those it has.
pub(in crate::apps::serve) fn unknown_table(name: &str, names: &[&str]) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "unknown_table",
        format!(
            "no table named '{}'; tables: {}",
            name.escape_debug(),
            names.join(", ")
        ),
    )
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "error": self.code, "detail": self.detail });
        json_response(self.status, body.to_string().into_bytes())
    }
}

pub(super) fn json_response(status: StatusCode, bytes: Vec<u8>) -> Response {
    let mut r = Response::new(Body::from(bytes));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

pub(super) fn json<T: Serialize>(value: &T) -> Response {
    match serde_json::to_vec(value) {
        Ok(bytes) => json_response(StatusCode::OK, bytes),
        Err(e) => ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string())
            .into_response(),
    }
}

/// Turns the error answers that did not come from a handler (plain text or empty) into JSON
/// errors, keeping their status.
pub(super) async fn json_errors(response: Response) -> Response {
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
        StatusCode::URI_TOO_LONG => "uri_too_long",
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

pub(super) fn panicked(_: Box<dyn std::any::Any + Send + 'static>) -> Response {
    ApiError::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        "internal",
        "the server failed on this request (a bug: please report it with the request)",
    )
    .into_response()
}

pub(super) async fn not_found(uri: axum::http::Uri) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "not_found",
        format!(
            "no such page: {} (the API is under /api/v1/tables)",
            uri.path()
        ),
    )
}

/// A lookup's error as its answer, chosen by variant: a bad position or a request the table
/// cannot answer (a draw's line, lines without remoteness, values the game or table has none
/// of) is the client's (400, with a code naming it); game values beyond the request's budget
/// are 422 `work_limit`, work cancelled by the server's shutdown 503 `stopping` (a request
/// cancelled by its own timeout or departure has no one to answer); anything else is a
/// damaged table (500).
pub(in crate::apps::serve) fn lookup_error(e: crate::Error) -> ApiError {
    use crate::base::error::LookupError as L;
    match &e {
        crate::Error::Lookup(L::WorkLimit { .. }) => {
            return ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "work_limit",
                e.to_string(),
            );
        }
        crate::Error::Lookup(L::Cancelled) => {
            return ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "stopping", e.to_string());
        }
        _ => {}
    }
    let code = match &e {
        crate::Error::Position(_) => "bad_position",
        crate::Error::Lookup(l) => match l {
            L::DrawHasNoLine { .. } => "no_line",
            L::NoRemoteness { .. } => "no_remoteness",
            L::NoGameValues { .. } | L::FreeMoves { .. } | L::BoardTooLarge { .. } => "no_values",
            L::NoGrundy { .. } => "no_grundy",
            L::OutOfRange { .. } => "bad_position",
            _ => return ApiError::damaged(e),
        },
        _ => return ApiError::damaged(e),
    };
    ApiError::bad(code, e.to_string())
}

pub(super) fn internal(e: serde_json::Error) -> ApiError {
    ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string())
}
