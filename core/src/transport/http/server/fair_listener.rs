//! [`FairListener`]: [`super::serve_http`]'s connection handling for an axum app that mounts
//! [`super::router`]. `router()` alone cannot have it: under `axum::serve` (or hyper) the
//! connections are accepted and kept by the app's server, not by ferromcp, so nothing of
//! ferromcp sees a connection open, idle or close. This listener is the piece that does: given to
//! `axum::serve` in place of a `TcpListener`, it caps the connections
//! ([`HttpServerOptions::max_connections`]) and each client address's share
//! ([`HttpServerOptions::max_connections_per_client`], 429 beyond), and at the cap closes the
//! longest idle connection without a session first
//! ([`HttpServerOptions::connections_kept_for_sessions`]), with the same board as `serve_http`.
//!
//! Which connection is idle and which carries a session is learned from the requests: the app
//! is served with `into_make_service_with_connect_info::<ConnectionSeat>()`, so each request
//! carries its connection's [`ConnectionSeat`]; `router()`'s handlers mark the connection busy
//! while a request is in progress (until its answer's body is written or dropped, so an open
//! stream keeps it busy) and as carrying a session when the request named a live session or
//! opened one. Routes of the app's own on the same listener mark their connection busy through
//! [`track_connection`]; without it a long request there counts as idle.

use super::headers::SESSION_ID_NAME;
use super::listener::board::{Board, Registered};
use super::listener::{ClientConnections, ClientSlot, TOO_MANY_FROM_CLIENT};
use crate::transport::http::h1::Watch;
use crate::transport::http::HttpServerOptions;
use axum::body::Body;
use axum::extract::{ConnectInfo, Request};
use axum::response::Response;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::WaitForCancellationFutureOwned;

/// A TCP listener for `axum::serve` that shares the connection budget as
/// [`super::serve_http`] does (see the module documentation). Serve the app with
/// `into_make_service_with_connect_info::<ConnectionSeat>()`:
///
/// ```no_run
/// # async fn run(server: ferromcp::server::Server) -> std::io::Result<()> {
/// use ferromcp::transport::http::{router, ConnectionSeat, FairListener, HttpServerOptions};
/// let options = HttpServerOptions::default();
/// let app = router(server, options.clone());
/// let listener = FairListener::new(tokio::net::TcpListener::bind("127.0.0.1:3000").await?, &options);
/// axum::serve(listener, app.into_make_service_with_connect_info::<ConnectionSeat>()).await
/// # }
/// ```
pub struct FairListener {
    listener: TcpListener,
    slots: Arc<Semaphore>,
    clients: ClientConnections,
    board: Arc<Board>,
}

impl FairListener {
    /// Wraps `listener` with the connection limits of `options` (`max_connections`,
    /// `max_connections_per_client`, `connections_kept_for_sessions`).
    pub fn new(listener: TcpListener, options: &HttpServerOptions) -> Self {
        Self {
            listener,
            slots: Arc::new(Semaphore::new(options.max_connections.max(1))),
            clients: ClientConnections::new(options.max_connections_per_client),
            board: Board::new(
                options.max_connections,
                options.connections_kept_for_sessions,
            ),
        }
    }

    /// Connections open through this listener now.
    pub fn open_connections(&self) -> usize {
        self.board.open_count()
    }

    /// A function reading [`Self::open_connections`] that outlives the listener (which
    /// `axum::serve` takes), for metrics and tests.
    pub fn open_connections_reader(&self) -> impl Fn() -> usize + Send + Sync + 'static {
        let board = self.board.clone();
        move || board.open_count()
    }

    /// Waits for a connection slot: at the cap, closes the longest idle connection (without a
    /// session first) and looks again every 25 ms while none is idle.
    async fn slot(&self) -> OwnedSemaphorePermit {
        if let Ok(p) = self.slots.clone().try_acquire_owned() {
            return p;
        }
        let mut evicted = self.board.evict(true, None);
        loop {
            tokio::select! {
                biased;
                p = self.slots.clone().acquire_owned() => {
                    return p.expect("the semaphore is never closed")
                }
                _ = tokio::time::sleep(Duration::from_millis(25)), if !evicted => {
                    evicted = self.board.evict(true, None);
                }
            }
        }
    }
}

impl axum::serve::Listener for FairListener {
    type Io = FairConnection;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (FairConnection, SocketAddr) {
        loop {
            let (tcp, addr) = match self.listener.accept().await {
                Ok(a) => a,
                Err(e) => {
                    use std::io::ErrorKind::*;
                    if !matches!(
                        e.kind(),
                        ConnectionRefused | ConnectionAborted | ConnectionReset
                    ) {
                        tracing::warn!(error = %e, "accept failed; retrying in 1 s");
                        tokio::time::sleep(Duration::from_secs(1)).await;
                    }
                    continue;
                }
            };
            let _ = tcp.set_nodelay(true);
            let Some(client) = self.clients.admit(addr.ip()) else {
                let _ = tcp.try_write(TOO_MANY_FROM_CLIENT);
                tracing::debug!(client = %addr.ip(), "connection refused: the client's connection limit is reached");
                continue;
            };
            let slot = self.slot().await;
            let seat = Arc::new(self.board.register());
            let evicted = Box::pin(seat.state.evict_token().cancelled_owned());
            return (
                FairConnection {
                    tcp,
                    seat: ConnectionSeat { seat, addr },
                    evicted,
                    _client: client,
                    _slot: slot,
                },
                addr,
            );
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }
}

/// One connection accepted by a [`FairListener`]: the TCP stream, counted against the budget
/// until dropped. Closed to make room, it reads as ended once idle, and its server closes it.
pub struct FairConnection {
    tcp: TcpStream,
    seat: ConnectionSeat,
    evicted: Pin<Box<WaitForCancellationFutureOwned>>,
    _client: ClientSlot,
    _slot: OwnedSemaphorePermit,
}

impl AsyncRead for FairConnection {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        // Only an idle connection ends here: a busy one is closed for room only after its
        // answer, when its server reads again.
        if self.evicted.as_mut().poll(cx).is_ready() && self.seat.seat.state.is_idle() {
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.tcp).poll_read(cx, buf)
    }
}

impl AsyncWrite for FairConnection {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.tcp).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.tcp).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.tcp.is_write_vectored()
    }
}

/// A [`FairListener`] connection's place in the budget, as the connect info of each of its
/// requests (`into_make_service_with_connect_info::<ConnectionSeat>()`).
#[derive(Clone)]
pub struct ConnectionSeat {
    seat: Arc<Registered>,
    addr: SocketAddr,
}

impl ConnectionSeat {
    /// The client's address.
    pub fn remote_addr(&self) -> SocketAddr {
        self.addr
    }
}

impl axum::extract::connect_info::Connected<axum::serve::IncomingStream<'_, FairListener>>
    for ConnectionSeat
{
    fn connect_info(stream: axum::serve::IncomingStream<'_, FairListener>) -> Self {
        stream.io().seat.clone()
    }
}

/// Middleware (`axum::middleware::from_fn(track_connection)`) for routes of your own served
/// through a [`FairListener`] beside [`super::router`]: their connection counts as busy while a
/// request is in progress and its answer's body is being written, so it is not closed to make
/// room meanwhile. `router()`'s own routes do this already. Without a [`ConnectionSeat`] (served
/// another way) it does nothing.
pub async fn track_connection(req: Request, next: axum::middleware::Next) -> Response {
    let Some(seat) = seat_of(&req) else {
        return next.run(req).await;
    };
    seat.seat.state.busy();
    let r = next.run(req).await;
    idle_after_body(r, seat)
}

/// The [`ConnectionSeat`] of a request served through a [`FairListener`].
pub(super) fn seat_of(req: &Request) -> Option<ConnectionSeat> {
    req.extensions()
        .get::<ConnectInfo<ConnectionSeat>>()
        .map(|c| c.0.clone())
}

/// What `router()`'s handlers do around a request on a [`FairListener`] connection: busy while
/// it is served and its answer written; carrying a session once a request naming one (the
/// header, or the legacy endpoint's `sessionId`) succeeds or an answer opens one.
pub(super) async fn tracked(
    seat: Option<ConnectionSeat>,
    names_session: bool,
    serve: impl Future<Output = Response>,
) -> Response {
    let Some(seat) = seat else {
        return serve.await;
    };
    seat.seat.state.busy();
    let r = serve.await;
    if r.status().is_success() && (names_session || r.headers().contains_key(SESSION_ID_NAME)) {
        seat.seat.proven();
    }
    idle_after_body(r, seat)
}

/// `r` with its body marking the connection idle again once written whole or dropped.
fn idle_after_body(r: Response, seat: ConnectionSeat) -> Response {
    r.map(|body| {
        Body::new(IdleAfter {
            body,
            seat: Some(seat),
        })
    })
}

/// A body that marks its connection idle when it ends or is dropped.
struct IdleAfter {
    body: Body,
    seat: Option<ConnectionSeat>,
}

impl IdleAfter {
    fn done(&mut self) {
        if let Some(s) = self.seat.take() {
            s.seat.state.idle();
        }
    }
}

impl Drop for IdleAfter {
    fn drop(&mut self) {
        self.done();
    }
}

impl hyper::body::Body for IdleAfter {
    type Data = bytes::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<Self::Data>, Self::Error>>> {
        let r = Pin::new(&mut self.body).poll_frame(cx);
        if matches!(r, Poll::Ready(None) | Poll::Ready(Some(Err(_)))) {
            self.done();
        }
        r
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.body.size_hint()
    }
}
