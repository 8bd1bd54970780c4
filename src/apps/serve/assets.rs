//! The web board's page, script and style, compiled into the binary so the board works offline
//! and from any directory (no CDN, no file read at run time).

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};

const INDEX: &str = include_str!("assets/index.html");
const SCRIPT: &str = include_str!("assets/board.js");
const STYLE: &str = include_str!("assets/board.css");

fn asset(body: &'static str, content_type: &'static str) -> Response {
    let mut r = body.into_response();
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    r
}

pub(crate) async fn index() -> Response {
    asset(INDEX, "text/html; charset=utf-8")
}

pub(crate) async fn script() -> Response {
    asset(SCRIPT, "text/javascript; charset=utf-8")
}

pub(crate) async fn style() -> Response {
    asset(STYLE, "text/css; charset=utf-8")
}
