//! The streaming SSE response body: fed by a stream's queue, it writes every event already queued
//! as one chunk, sends a comment frame when the stream has been idle for the keep-alive
//! interval (so proxies that cut idle connections leave it open; clients ignore comments), ends
//! on shutdown, ends a session's standalone stream once idle both ways for `sse_idle_timeout`
//! (comments are not activity), and runs a hook when dropped.

use super::super::gauges::OpenStream;
use super::frames::{Frame, Rx};
use super::session::HttpSession;
use axum::body::Body;
use bytes::Bytes;
use std::convert::Infallible;
use std::sync::{Arc, Weak};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// What an idle stream sends every keep-alive interval: an SSE comment.
const KEEP_ALIVE: &[u8] = b": keep-alive\n\n";

/// An SSE body fed by `rx`; `shutdown` ends it early; `on_drop` runs when the body is dropped;
/// `keep_alive` is the idle time after which a comment frame goes out (`None`: never); `open`
/// counts the stream among the server's open ones until the body is dropped.
pub(super) fn sse_body(
    rx: Rx,
    shutdown: Option<CancellationToken>,
    on_drop: Option<Box<dyn FnOnce() + Send>>,
    keep_alive: Option<Duration>,
    open: OpenStream,
) -> Body {
    Body::new(SseBody {
        _open: open,
        rx,
        shutdown: shutdown.map(|t| Box::pin(t.cancelled_owned())),
        farewell: None,
        on_drop,
        buf: Vec::new(),
        keep_alive: keep_alive.map(KeepAlive::new),
        idle: None,
    })
}

/// [`sse_body`] of a session's standalone stream (the GET stream, the legacy SSE stream),
/// ended cleanly once idle both ways for `idle_timeout` (see
/// [`crate::transport::http::HttpServerOptions::sse_idle_timeout`]): no event sent on it, and
/// no request from the client to `session` (its [`HttpSession::last_active`]).
pub(super) fn standalone_sse_body(
    rx: Rx,
    shutdown: Option<CancellationToken>,
    on_drop: Option<Box<dyn FnOnce() + Send>>,
    keep_alive: Option<Duration>,
    idle_timeout: Option<Duration>,
    session: &Arc<HttpSession>,
    open: OpenStream,
) -> Body {
    Body::new(SseBody {
        _open: open,
        rx,
        shutdown: shutdown.map(|t| Box::pin(t.cancelled_owned())),
        farewell: None,
        on_drop,
        buf: Vec::new(),
        keep_alive: keep_alive.map(KeepAlive::new),
        idle: idle_timeout.map(|after| IdleClose {
            after,
            session: Arc::downgrade(session),
            last_event: tokio::time::Instant::now(),
            timer: None,
        }),
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
    keep_alive: Option<Duration>,
    open: OpenStream,
) -> Body {
    Body::new(SseBody {
        _open: open,
        rx,
        shutdown: Some(Box::pin(shutdown.cancelled_owned())),
        farewell: Some(farewell),
        on_drop,
        buf: Vec::new(),
        keep_alive: keep_alive.map(KeepAlive::new),
        idle: None,
    })
}

/// The idle timeout of a standalone stream: it ends once neither an event has been sent on
/// it nor a request has come to its session for `after`.
struct IdleClose {
    after: Duration,
    session: Weak<HttpSession>,
    /// When the stream last sent an event (or opened).
    last_event: tokio::time::Instant,
    /// Made when the stream first waits.
    timer: Option<std::pin::Pin<Box<tokio::time::Sleep>>>,
}

impl IdleClose {
    /// Whether the stream is idle both ways for `after`; if not, the timer is set for the
    /// moment it would be (and registered with this task).
    fn expired(&mut self, cx: &mut std::task::Context<'_>) -> bool {
        use std::future::Future;
        let after = self.after;
        let t = self
            .timer
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(after)));
        if t.as_mut().poll(cx).is_pending() {
            return false;
        }
        // The timer fired: it may have been set before the latest activity.
        let mut last = self.last_event;
        if let Some(s) = self.session.upgrade() {
            last = last.max(tokio::time::Instant::from_std(s.last_active()));
        }
        let due = last + after;
        if due <= tokio::time::Instant::now() {
            return true;
        }
        t.as_mut().reset(due);
        let _ = t.as_mut().poll(cx);
        false
    }
}

/// The keep-alive timer of a stream. Its timer is made only once the stream first waits, so a
/// stream answered at once costs nothing for it.
struct KeepAlive {
    every: Duration,
    timer: Option<std::pin::Pin<Box<tokio::time::Sleep>>>,
}

impl KeepAlive {
    fn new(every: Duration) -> Self {
        Self { every, timer: None }
    }

    /// The stream sent something: the idle time starts again.
    fn sent(&mut self) {
        if let Some(t) = &mut self.timer {
            t.as_mut().reset(tokio::time::Instant::now() + self.every);
        }
    }

    /// Whether the stream has been idle for the interval (the timer is then started again).
    fn due(&mut self, cx: &mut std::task::Context<'_>) -> bool {
        use std::future::Future;
        let every = self.every;
        let t = self
            .timer
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(every)));
        if t.as_mut().poll(cx).is_ready() {
            t.as_mut().reset(tokio::time::Instant::now() + every);
            // Registers the new deadline with this task.
            let _ = t.as_mut().poll(cx);
            return true;
        }
        false
    }
}

/// A streaming SSE body: each poll sends every event already queued as one chunk (one write).
struct SseBody {
    /// Counts the stream as open until the body is dropped.
    _open: OpenStream,
    rx: Rx,
    shutdown: Option<std::pin::Pin<Box<tokio_util::sync::WaitForCancellationFutureOwned>>>,
    /// Sent once when `shutdown` fires, before the stream ends.
    farewell: Option<Bytes>,
    on_drop: Option<Box<dyn FnOnce() + Send>>,
    buf: Vec<Frame>,
    keep_alive: Option<KeepAlive>,
    idle: Option<IdleClose>,
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
                Poll::Pending => {
                    if this.idle.as_mut().is_some_and(|i| i.expired(cx)) {
                        tracing::debug!("an idle SSE stream is ended (sse_idle_timeout)");
                        return Poll::Ready(None);
                    }
                    if this.keep_alive.as_mut().is_some_and(|k| k.due(cx)) {
                        let b = Bytes::from_static(KEEP_ALIVE);
                        return Poll::Ready(Some(Ok(hyper::body::Frame::data(b))));
                    }
                    return Poll::Pending;
                }
                Poll::Ready(false) => return Poll::Ready(None),
                Poll::Ready(true) => {
                    if let Some(b) = join_sse(this.buf.drain(..)) {
                        if let Some(k) = &mut this.keep_alive {
                            k.sent();
                        }
                        if let Some(i) = &mut this.idle {
                            i.last_event = tokio::time::Instant::now();
                        }
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
