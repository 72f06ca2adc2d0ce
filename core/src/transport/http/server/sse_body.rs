//! The streaming SSE response body: fed by a stream's queue, it writes every event already queued
//! as one chunk, ends on shutdown, and runs a hook when dropped.

use super::frames::{Frame, Rx};
use axum::body::Body;
use bytes::Bytes;
use std::convert::Infallible;
use tokio_util::sync::CancellationToken;

/// An SSE body fed by `rx`; `shutdown` ends it early; `on_drop` runs when the body is dropped.
pub(super) fn sse_body(
    rx: Rx,
    shutdown: Option<CancellationToken>,
    on_drop: Option<Box<dyn FnOnce() + Send>>,
) -> Body {
    Body::new(SseBody {
        rx,
        shutdown: shutdown.map(|t| Box::pin(t.cancelled_owned())),
        farewell: None,
        on_drop,
        buf: Vec::new(),
    })
}

/// [`sse_body`] of a `subscriptions/listen` stream (2026-07-28): when `shutdown` fires, the
/// stream sends `farewell` (the listen request's completion result: the server ends the
/// subscription gracefully, as the spec's "Graceful Closure" asks) and then ends.
pub(super) fn listen_sse_body(
    rx: Rx,
    shutdown: CancellationToken,
    farewell: Bytes,
    on_drop: Option<Box<dyn FnOnce() + Send>>,
) -> Body {
    Body::new(SseBody {
        rx,
        shutdown: Some(Box::pin(shutdown.cancelled_owned())),
        farewell: Some(farewell),
        on_drop,
        buf: Vec::new(),
    })
}

/// A streaming SSE body: each poll sends every event already queued as one chunk (one write).
struct SseBody {
    rx: Rx,
    shutdown: Option<std::pin::Pin<Box<tokio_util::sync::WaitForCancellationFutureOwned>>>,
    /// Sent once when `shutdown` fires, before the stream ends.
    farewell: Option<Bytes>,
    on_drop: Option<Box<dyn FnOnce() + Send>>,
    buf: Vec<Frame>,
}

impl Drop for SseBody {
    fn drop(&mut self) {
        if let Some(f) = self.on_drop.take() {
            f();
        }
    }
}

impl hyper::body::Body for SseBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Bytes>, Infallible>>> {
        use std::future::Future;
        use std::task::Poll;
        let this = &mut *self;
        if let Some(s) = &mut this.shutdown {
            if s.as_mut().poll(cx).is_ready() {
                // Stays ready: the next poll ends the stream.
                return Poll::Ready(
                    this.farewell
                        .take()
                        .map(|b| Ok(hyper::body::Frame::data(b))),
                );
            }
        }
        loop {
            this.buf.clear();
            match this.rx.poll_drain(cx, &mut this.buf) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(false) => return Poll::Ready(None),
                Poll::Ready(true) => {
                    if let Some(b) = join_sse(this.buf.drain(..)) {
                        return Poll::Ready(Some(Ok(hyper::body::Frame::data(b))));
                    }
                }
            }
        }
    }
}

/// The SSE frames among `frames`, as one buffer (`None` if there were none).
pub(super) fn join_sse(frames: impl IntoIterator<Item = Frame>) -> Option<Bytes> {
    let mut first: Option<Bytes> = None;
    let mut joined: Option<Vec<u8>> = None;
    for f in frames {
        let Frame::Sse(b) = f else { continue };
        match (&mut joined, &first) {
            (Some(v), _) => v.extend_from_slice(&b),
            (None, Some(a)) => {
                let mut v = Vec::with_capacity(a.len() + b.len());
                v.extend_from_slice(a);
                v.extend_from_slice(&b);
                joined = Some(v);
            }
            (None, None) => first = Some(b),
        }
    }
    joined.map(Bytes::from).or(first)
}
