//! A response body fed through a channel, so a large batch is answered chunk by chunk while it
//! is being computed (memory bounded by the channel, not by the batch). Dropping the body (the
//! client went away, or took nothing for the write timeout) cancels the work producing it, and
//! a body whose producer stopped before its last chunk ends with an error, so the connection
//! is closed without the end of a chunked answer and the client cannot take a cut answer for
//! a whole one.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

use axum::body::Bytes;
use http_body::Frame;
use tokio::sync::mpsc::Receiver;

use crate::base::budget::CancelOnDrop;

/// The body: every `Bytes` sent on the channel, in order, until the sender is dropped.
pub(crate) struct ChannelBody {
    pub rx: Receiver<Bytes>,
    /// Set by the producer once everything was sent.
    pub complete: Arc<AtomicBool>,
    /// Cancels the producer's work when the body is dropped.
    pub _cancel: CancelOnDrop,
}

impl http_body::Body for ChannelBody {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
        self.rx.poll_recv(cx).map(|b| match b {
            Some(b) => Some(Ok(Frame::data(b))),
            None if self.complete.load(Ordering::Acquire) => None,
            None => Some(Err(std::io::Error::other(
                "the answer was stopped before its last line",
            ))),
        })
    }
}
