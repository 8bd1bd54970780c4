//! A response body fed through a channel, so a large batch is answered chunk by chunk while it
//! is being computed (memory bounded by the channel, not by the batch).

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::Bytes;
use http_body::Frame;
use tokio::sync::mpsc::Receiver;

/// The body: every `Bytes` sent on the channel, in order, until the sender is dropped.
pub(crate) struct ChannelBody {
    pub rx: Receiver<Bytes>,
}

impl http_body::Body for ChannelBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.rx.poll_recv(cx).map(|b| b.map(|b| Ok(Frame::data(b))))
    }
}
