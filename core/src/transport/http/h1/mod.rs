//! The HTTP/1.1 server connection behind [`super::serve_http`]: one task per TCP connection
//! that reads requests, hands each to the MCP endpoint and writes its answer.
//!
//! Why not hyper's server: an MCP endpoint needs a small part of HTTP (a few paths, JSON bodies,
//! answers that are either complete or an SSE stream), and measured on the benchmark
//! (`bench/`), hyper with axum's router took about a third of the server's CPU per call. Here a
//! request costs one `read` and its answer one `write`: the head is parsed with `httparse`, the
//! header values share the read buffer, and a complete answer goes out as head and body in one
//! buffer. [`super::router`] still gives an axum router for mounting in an existing app.
//!
//! What is handled: keep-alive (HTTP/1.1 by default, HTTP/1.0 with `Connection: keep-alive`),
//! pipelined requests (answered in order), `Content-Length` and chunked request bodies,
//! `Expect: 100-continue`, limits on the head (431: [`MAX_HEADERS`] fields, `max_head` bytes) and
//! the body (413), a timeout on a request that arrives too slowly (408), streamed answers in
//! chunked encoding (close-delimited for HTTP/1.0), and a client that goes away while its request
//! runs or its stream is open: the handler's future or the stream is dropped, as when any other
//! transport closes. Malformed requests get 400 and the connection is closed.
//!
//! Framing is read as RFC 9112 §6 says, with no guessing: `chunked` is the only transfer coding
//! understood, so a request naming any other (`gzip, chunked`, `identity, chunked`) gets 501
//! (§6.1); `chunked` that is not the final coding, or is named twice, leaves the body's length
//! unknown: 400 (§6.3); and `Transfer-Encoding` together with `Content-Length` is refused with
//! 400 (§6.1: such a message is how request smuggling begins). A request target is never allowed
//! a `#fragment` (§3.2, RFC 9110 §7.1): 400.

mod answer;
mod body;
mod wait;

use super::chunked;
use super::gauges::Gauges;
use super::request::{lists_token, Fields, HttpRequest};
use crate::jsonrpc::envelope_scan::EnvelopeScan;
use crate::jsonrpc::RequestId;
pub(crate) use answer::itoa;
use answer::write_timed;
use axum::body::Body;
use bytes::{Buf, Bytes, BytesMut};
use http::header;
use http::{Method, Response, StatusCode, Version};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio_util::sync::CancellationToken;
pub(crate) use wait::socket_of;

/// Most header fields a request may carry (431 beyond). Browsers and the proxies in front of a
/// server send 20 to 60 fields and some add more (tracing, forwarding, client hints), so 64 was
/// too tight; 128 leaves room for them. The head's total size stays bounded by
/// [`Limits::max_head`] (64 KiB by default) whatever the count.
const MAX_HEADERS: usize = 128;
/// While an answer is pending or streaming, bytes of a next (pipelined) request read ahead at
/// most; beyond it reading pauses until the answer is done.
const READ_AHEAD: usize = 64 * 1024;

/// The limits a connection enforces.
#[derive(Debug, Clone)]
pub(crate) struct Limits {
    /// Largest request head (request line and headers); 431 beyond.
    pub max_head: usize,
    /// Largest request body; 413 beyond.
    pub max_body: usize,
    /// Time a request may take to arrive once its first byte has; 408 beyond.
    pub request_timeout: Duration,
    /// Time a kept-alive connection may sit idle between requests before it is closed.
    pub idle_timeout: Duration,
    /// Time a new connection has to send its first request's whole head, and any later request
    /// its head once begun (at most `request_timeout`).
    pub header_read_timeout: Duration,
    /// Time a write may go without progress before the connection is closed.
    pub write_timeout: Duration,
    /// The server's counters and memory budget, shared by its connections.
    pub gauges: Arc<Gauges>,
    /// A check of each request's head before its body is read (the per-address rate limit's
    /// 429); `None`: none.
    pub before_body: Option<BeforeBody>,
}

/// A check of a request's head before its body is read: `None` when it does not apply to the
/// request (nothing is allocated), else a future answering `Some(response)` to refuse it
/// (the connection then closes) or `None` to read it on.
#[derive(Clone)]
pub(crate) struct BeforeBody(pub Arc<BeforeBodyFn>);

/// What [`BeforeBody`] holds.
pub(crate) type BeforeBodyFn = dyn Fn(&HttpRequest) -> Option<EarlyAnswer> + Send + Sync;

/// The future of a [`BeforeBody`] check: `Some(response)` refuses the request.
pub(crate) type EarlyAnswer = futures_util::future::BoxFuture<'static, Option<Response<Body>>>;

impl std::fmt::Debug for BeforeBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BeforeBody")
    }
}

/// Builds the answer to a request the connection refuses by itself (bad framing, limits), from
/// its status, a message and the id of the JSON-RPC request it refuses, when known (a body over
/// the size limit is read on and scanned for it: [`Conn::scan_refused`]).
pub(crate) type Refusal = fn(StatusCode, String, Option<RequestId>) -> Response<Body>;

/// Why reading a request stopped.
enum Stop {
    /// The peer closed, the read failed or the server is shutting down: close without answering.
    Close,
    /// Answer with this status and message, then close.
    Refuse(StatusCode, String),
}

impl Stop {
    fn bad(msg: impl Into<String>) -> Stop {
        Stop::Refuse(StatusCode::BAD_REQUEST, msg.into())
    }
}

/// How a request's body is framed.
#[derive(Clone, Copy)]
enum Framing {
    Length(usize),
    Chunked,
}

/// A request head, parsed.
struct Head {
    request: HttpRequest,
    version: Version,
    framing: Framing,
    /// The connection must close after this exchange (the request says so, or its framing was
    /// ambiguous).
    close: bool,
    expect_continue: bool,
}

/// What a connection tells its listener about itself, for sharing the connection budget: a
/// connection is idle while it waits for a request head or receives one, busy from a parsed
/// head until its answer is written.
pub(crate) trait Watch: Send + Sync {
    /// The connection waits for (or is receiving) a request head.
    fn idle(&self);
    /// A request head was parsed: the request is in progress.
    fn busy(&self);
}

/// A connection's [`Watch`] and the token its listener cancels to close it: an idle connection
/// (waiting for a head, or with a head only partly received) closes at once; a busy one after
/// its answer.
pub(crate) struct Watched {
    pub watch: Arc<dyn Watch>,
    pub evict: CancellationToken,
}

/// Serves one connection until the peer closes it, an exchange requires closing it, or
/// `shutdown` is cancelled while the connection is idle (a request in progress finishes first).
/// `socket` is the connection's socket when `io` reads it directly (plain TCP): the connection
/// may then wait a little for the next request before it sleeps (see [`wait`]).
#[cfg_attr(not(any(test, feature = "fuzzing")), allow(dead_code))]
pub(crate) async fn serve_connection<IO, S, F>(
    io: IO,
    socket: Option<wait::Socket>,
    limits: Limits,
    refuse: Refusal,
    shutdown: CancellationToken,
    service: S,
) where
    IO: AsyncRead + AsyncWrite + Unpin,
    S: Fn(HttpRequest) -> F,
    F: Future<Output = Response<Body>>,
{
    serve_watched(io, socket, limits, refuse, shutdown, None, service).await
}

/// [`serve_connection`] reporting to `watched` when the connection is idle or busy, and closed
/// when its eviction token is cancelled while idle.
pub(crate) async fn serve_watched<IO, S, F>(
    io: IO,
    socket: Option<wait::Socket>,
    limits: Limits,
    refuse: Refusal,
    shutdown: CancellationToken,
    watched: Option<Watched>,
    service: S,
) where
    IO: AsyncRead + AsyncWrite + Unpin,
    S: Fn(HttpRequest) -> F,
    F: Future<Output = Response<Body>>,
{
    let (watch, evict) = match watched {
        Some(w) => (Some(w.watch), w.evict),
        None => (None, CancellationToken::new()),
    };
    let evicted = evict.cancelled();
    tokio::pin!(evicted);
    let _open = limits.gauges.connection();
    let accepted = tokio::time::Instant::now();
    let mut first = true;
    let mut conn = Conn {
        io,
        buf: BytesMut::with_capacity(4 * 1024),
        out: Vec::new(),
        eof: false,
        gauges: limits.gauges.clone(),
        charged: 0,
        held: 0,
        over_budget: false,
        scanned: 0,
        scan_tally: 0,
        write_timeout: limits.write_timeout,
        refused_id: None,
        wait_fd: wait::waiter(socket),
        turns: wait::Turns::default(),
    };
    conn.account();
    let mut idle = IdleTimer {
        sleep: Box::pin(tokio::time::sleep(limits.idle_timeout)),
        since: tokio::time::Instant::now(),
    };
    let cancelled = shutdown.cancelled();
    tokio::pin!(cancelled);
    loop {
        let since = first.then_some(accepted);
        if let Some(w) = &watch {
            if !first {
                w.idle();
            }
        }
        first = false;
        let head = match conn
            .read_head(
                &limits,
                since,
                cancelled.as_mut(),
                evicted.as_mut(),
                &mut idle,
            )
            .await
        {
            Ok(h) => {
                if let Some(w) = &watch {
                    w.busy();
                }
                h
            }
            Err(Stop::Close) => return,
            Err(Stop::Refuse(status, msg)) => {
                let _ = conn
                    .answer(refuse(status, msg, None), true, Version::HTTP_11, false)
                    .await;
                conn.linger().await;
                return;
            }
        };
        let Head {
            mut request,
            version,
            framing,
            close,
            expect_continue,
        } = head;
        if conn.wait_fd.is_some() {
            conn.turns.begin();
        }
        if let Some(check) = limits.before_body.as_ref().and_then(|b| (b.0)(&request)) {
            if let Some(answer) = check.await {
                // Refused on its head alone: the body is never read (only discarded while the
                // connection lingers, so the answer is not lost to a reset).
                let _ = conn.answer(answer, true, version, false).await;
                conn.linger().await;
                return;
            }
        }
        let body = match conn
            .read_body(framing, expect_continue, &limits, version)
            .await
        {
            Ok(b) => b,
            Err(Stop::Close) => return,
            Err(Stop::Refuse(status, msg)) => {
                // A body over the limit: read on (and scanned, not kept), so the answer can
                // carry the request's id wherever the body names it (a body announced by
                // Content-Length and already being sent; a chunked body was scanned as it
                // went on).
                let id = match framing {
                    Framing::Length(n) if status == StatusCode::PAYLOAD_TOO_LARGE => {
                        let scan = EnvelopeScan::default();
                        conn.scan_refused(scan, n, !expect_continue).await
                    }
                    Framing::Chunked => conn.refused_id.take(),
                    _ => None,
                };
                let answer = refuse(status, msg, id);
                let _ = conn.answer(answer, true, version, false).await;
                conn.linger().await;
                return;
            }
        };
        request.body = body;
        let head_only = request.method == Method::HEAD;
        let response = {
            let fut = service(request);
            tokio::pin!(fut);
            match conn.while_reading(fut).await {
                Some(r) => r,
                // The client went away while its request ran: the handler's future is dropped.
                None => return,
            }
        };
        let close = close || response_closes(&response);
        match conn.answer(response, close, version, head_only).await {
            Ok(()) if !close && !conn.eof => {}
            _ => return,
        }
        conn.trim();
    }
}

/// Most bytes of a body over the size limit read on (and scanned, not kept) to find its
/// JSON-RPC id: a client such as the TypeScript SDK writes the id after `params`, so the id of
/// a message just over the limit is at its very end.
pub(crate) const REFUSED_SCAN_BYTES: usize = 16 * 1024 * 1024;
/// Longest time spent reading such a body on.
pub(crate) const REFUSED_SCAN_TIME: Duration = Duration::from_secs(2);

/// Longest a refused request's connection reads on (and discards) before it closes.
const LINGER_TIME: Duration = Duration::from_secs(2);
/// Most bytes a refused request's connection reads on (and discards) before it closes.
const LINGER_BYTES: usize = 16 * 1024 * 1024;

/// Bytes a connection may have searched for a head's end before it adds them to the server's
/// counter while that head is still incomplete.
const SCAN_TALLY_FLUSH: u64 = 16 * 1024;

/// Buffers a connection keeps between requests; a larger one (after a big body or answer) is
/// given back, so that idle kept-alive connections stay small.
const KEEP_BUFFER: usize = 64 * 1024;

/// Whether the endpoint's answer asks for the connection to close (`Connection: close`).
fn response_closes(r: &Response<Body>) -> bool {
    r.headers()
        .get_all(header::CONNECTION)
        .iter()
        .any(|v| lists_token(v.as_bytes(), b"close"))
}

struct Conn<IO> {
    io: IO,
    /// Bytes read and not yet consumed.
    buf: BytesMut,
    /// The answer being written.
    out: Vec<u8>,
    /// The peer has closed its side.
    eof: bool,
    /// The server's counters.
    gauges: Arc<Gauges>,
    /// Bytes of this connection counted in the server's buffered total.
    charged: usize,
    /// Bytes of a chunked body being assembled (outside `buf`).
    held: usize,
    /// A read was refused because the server's memory budget was spent.
    over_budget: bool,
    /// How much of `buf` has been searched for the end of a head (so each byte is searched
    /// once however the head is split into reads).
    scanned: usize,
    /// Bytes searched for a head's end and not yet added to the server's counter: they are
    /// added once per head (with the final parse), not once per read, so that a request costs
    /// one update of that counter, which every connection shares.
    scan_tally: u64,
    /// Time a write may go without progress.
    write_timeout: Duration,
    /// The JSON-RPC id found in a chunked body refused as too large.
    refused_id: Option<RequestId>,
    /// The socket to wait on for the next request before sleeping ([`wait::waiter`]).
    wait_fd: Option<wait::Socket>,
    /// The requests begun around this connection's ([`wait::Turns`]).
    turns: wait::Turns,
}

impl<IO> Drop for Conn<IO> {
    fn drop(&mut self) {
        self.gauges.scanned(self.scan_tally);
        self.gauges.recharge(self.charged, 0);
    }
}

/// A connection's idle timer. It is armed once and re-armed only when it fires early: per
/// request only `since` moves, so a kept-alive connection touches the timer wheel once per idle
/// timeout rather than once per request.
struct IdleTimer {
    sleep: std::pin::Pin<Box<tokio::time::Sleep>>,
    /// When the connection last became idle.
    since: tokio::time::Instant,
}

impl<IO: AsyncRead + AsyncWrite + Unpin> Conn<IO> {
    /// Brings this connection's charge in the server's buffered total up to date; false when
    /// the budget does not allow what it now holds.
    fn account(&mut self) -> bool {
        let now = self.buf.capacity() + self.held;
        let ok = self.gauges.recharge(self.charged, now);
        if ok {
            self.charged = now;
        }
        ok
    }

    /// Gives back buffers grown past [`KEEP_BUFFER`] by an exchange.
    fn trim(&mut self) {
        if self.out.capacity() > KEEP_BUFFER {
            self.out = Vec::new();
        }
        if self.buf.capacity() > KEEP_BUFFER && self.buf.len() <= KEEP_BUFFER / 2 {
            let mut fresh = BytesMut::with_capacity(4 * 1024);
            fresh.extend_from_slice(&self.buf);
            self.buf = fresh;
        }
        self.account();
    }

    /// Reads more bytes into the buffer; false on end of stream or a read error.
    async fn fill(&mut self) -> bool {
        if self.buf.capacity() - self.buf.len() < 1024 {
            self.buf.reserve(8 * 1024);
        }
        if !self.account() {
            // Over the server's budget: this connection gets no more bytes.
            self.over_budget = true;
            return false;
        }
        let read = self.io.read_buf(&mut self.buf).await;
        self.account();
        match read {
            Ok(0) | Err(_) => {
                self.eof = true;
                false
            }
            Ok(_) => true,
        }
    }

    /// Reads the next request's first bytes if they come within a short wait ([`wait`]):
    /// `Some(false)` on end of stream, `None` when nothing came (or waiting is off).
    fn fill_soon(&mut self) -> Option<bool> {
        let fd = self.wait_fd.filter(|_| self.turns.may_wait())?;
        if self.buf.capacity() - self.buf.len() < 1024 {
            self.buf.reserve(8 * 1024);
        }
        if !self.account() {
            return None;
        }
        let n = wait::next_request(fd, &self.turns, &mut self.buf);
        self.account();
        match n? {
            0 => {
                self.eof = true;
                Some(false)
            }
            _ => Some(true),
        }
    }

    /// Reads more bytes of a request already begun, within `deadline`.
    async fn fill_by(&mut self, deadline: tokio::time::Instant) -> Result<(), Stop> {
        match tokio::time::timeout_at(deadline, self.fill()).await {
            Ok(true) => Ok(()),
            Ok(false) if self.over_budget => Err(over_budget()),
            Ok(false) => Err(Stop::Close),
            Err(_) => Err(Stop::Refuse(
                StatusCode::REQUEST_TIMEOUT,
                "the request did not arrive in time".into(),
            )),
        }
    }

    /// Waits for the next request's head and parses it. `first` is when the connection was
    /// accepted, for its first request: the whole head must then arrive within
    /// [`Limits::header_read_timeout`] of it (a connection that stays silent is closed).
    async fn read_head(
        &mut self,
        limits: &Limits,
        first: Option<tokio::time::Instant>,
        mut cancelled: std::pin::Pin<&mut tokio_util::sync::WaitForCancellationFuture<'_>>,
        mut evicted: std::pin::Pin<&mut tokio_util::sync::WaitForCancellationFuture<'_>>,
        idle: &mut IdleTimer,
    ) -> Result<Head, Stop> {
        // Idle: wait for the first byte, the idle (or first head's) timeout, or shutdown.
        if self.buf.is_empty() {
            if self.eof {
                return Err(Stop::Close);
            }
            if let Some(accepted) = first {
                tokio::select! {
                    biased;
                    more = self.fill() => if !more { return Err(Stop::Close) },
                    _ = cancelled.as_mut() => return Err(Stop::Close),
                    _ = evicted.as_mut() => return Err(Stop::Close),
                    _ = tokio::time::sleep_until(accepted + limits.header_read_timeout) => {
                        return Err(Stop::Close)
                    }
                }
            } else if let Some(more) = self.fill_soon() {
                if !more {
                    return Err(Stop::Close);
                }
            } else {
                idle.since = tokio::time::Instant::now();
                loop {
                    tokio::select! {
                        biased;
                        more = self.fill() => if more { break } else { return Err(Stop::Close) },
                        _ = cancelled.as_mut() => return Err(Stop::Close),
                        _ = evicted.as_mut() => return Err(Stop::Close),
                        _ = idle.sleep.as_mut() => {
                            // Fired: for this wait, or for an earlier one (then re-armed).
                            let due = idle.since + limits.idle_timeout;
                            if due <= tokio::time::Instant::now() {
                                return Err(Stop::Close);
                            }
                            idle.sleep.as_mut().reset(due);
                        }
                    }
                }
            }
        }
        // A later request's head has this long from when it began; the clock is read only when
        // the head did not come whole with its first bytes (the usual case needs no deadline).
        let mut deadline = first.map(|accepted| accepted + limits.header_read_timeout);
        self.scanned = 0;
        loop {
            // Blank lines before a request line are allowed (RFC 9112 §2.2).
            while self.buf.starts_with(b"\r\n") {
                self.buf.advance(2);
                self.scanned = 0;
            }
            if self.head_end_seen() {
                if let Some(head) = self.parse_head(limits)? {
                    return Ok(head);
                }
            }
            if self.buf.len() > limits.max_head {
                return Err(head_too_large());
            }
            let by = *deadline.get_or_insert_with(|| {
                tokio::time::Instant::now() + limits.header_read_timeout.min(limits.request_timeout)
            });
            // A head still arriving is idle too: the listener may close it to make room.
            tokio::select! {
                biased;
                r = self.fill_by(by) => r?,
                _ = evicted.as_mut() => return Err(Stop::Close),
            }
        }
    }

    /// Whether the bytes read so far hold the blank line that ends a head (`\n\n` or
    /// `\n\r\n`, as `httparse` takes them). Only the bytes that arrived since the last call are
    /// searched (with two before them, where a line end may have begun).
    fn head_end_seen(&mut self) -> bool {
        let from = self.scanned.saturating_sub(2);
        let buf = &self.buf[..];
        let mut found = false;
        let mut i = from;
        // memchr rather than a byte-by-byte `position`: this runs on every request's head.
        while let Some(at) = memchr::memchr(b'\n', &buf[i..]) {
            let lf = i + at;
            match (buf.get(lf + 1), buf.get(lf + 2)) {
                (Some(b'\n'), _) | (Some(b'\r'), Some(b'\n')) => {
                    found = true;
                    break;
                }
                _ => i = lf + 1,
            }
        }
        self.scan_tally += (buf.len() - from) as u64;
        if self.scan_tally >= SCAN_TALLY_FLUSH {
            // A head arriving slowly still shows in the counter as it goes.
            self.gauges.scanned(std::mem::take(&mut self.scan_tally));
        }
        self.scanned = buf.len();
        found
    }

    /// Parses a complete head at the front of the buffer and consumes it; `None` if incomplete
    /// (called once [`Self::head_end_seen`]).
    fn parse_head(&mut self, limits: &Limits) -> Result<Option<Head>, Stop> {
        let mut slots =
            [const { std::mem::MaybeUninit::<httparse::Header<'_>>::uninit() }; MAX_HEADERS];
        self.gauges
            .scanned(std::mem::take(&mut self.scan_tally) + self.buf.len() as u64);
        let mut parsed = httparse::Request::new(&mut []);
        let len = match parsed.parse_with_uninit_headers(&self.buf, &mut slots) {
            Ok(httparse::Status::Complete(n)) => n,
            Ok(httparse::Status::Partial) => return Ok(None),
            Err(httparse::Error::TooManyHeaders) => return Err(head_too_large()),
            Err(e) => return Err(Stop::bad(format!("malformed HTTP request: {e}"))),
        };
        if len > limits.max_head {
            return Err(head_too_large());
        }
        let method = Method::from_bytes(parsed.method.unwrap_or("").as_bytes())
            .map_err(|_| Stop::bad("malformed HTTP method"))?;
        let target = parsed.path.unwrap_or("");
        if target.contains('#') {
            // A request target never carries a fragment (RFC 9112 §3.2): a client keeps it.
            return Err(Stop::bad("a request target must not carry a #fragment"));
        }
        let target_at = target.as_ptr() as usize - self.buf.as_ptr() as usize;
        let target = target_at..target_at + target.len();
        let version = if parsed.version == Some(0) {
            Version::HTTP_10
        } else {
            Version::HTTP_11
        };
        // The fields stay in the head's bytes; the request keeps where each one sits (one
        // allocation: the parsed headers are a slice, so their count is known).
        let base = self.buf.as_ptr() as usize;
        let spans = Fields::spans(parsed.headers.iter().map(|h| {
            let n = h.name.as_ptr() as usize - base;
            let v = h.value.as_ptr() as usize - base;
            (n..n + h.name.len(), v..v + h.value.len())
        }));
        let head = self.buf.split_to(len).freeze();
        self.scanned = 0;
        let target = head.slice(target);
        let headers = Fields::over(head, spans);

        let close = match version {
            Version::HTTP_10 => !headers.has_token("connection", "keep-alive"),
            _ => headers.has_token("connection", "close"),
        };
        let framing = if headers.get("transfer-encoding").is_some() {
            transfer_coding(&headers, version)?;
            Framing::Chunked
        } else {
            let mut len: Option<usize> = None;
            for v in headers.get_all("content-length") {
                let n = std::str::from_utf8(v)
                    .ok()
                    .filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
                    .and_then(|s| s.parse::<usize>().ok())
                    .ok_or_else(|| Stop::bad("malformed Content-Length"))?;
                if len.is_some_and(|l| l != n) {
                    return Err(Stop::bad("conflicting Content-Length values"));
                }
                len = Some(n);
            }
            Framing::Length(len.unwrap_or(0))
        };
        let expect_continue = version == Version::HTTP_11
            && headers
                .get("expect")
                .is_some_and(|v| v.eq_ignore_ascii_case(b"100-continue"));
        Ok(Some(Head {
            request: HttpRequest {
                method,
                target,
                headers,
                body: Bytes::new(),
            },
            version,
            framing,
            close,
            expect_continue,
        }))
    }

    /// After a refusal has been written: ends the write side (the client reads the answer, then
    /// the end) and reads on and discards what the client still sends, for at most
    /// [`LINGER_TIME`] and [`LINGER_BYTES`], so that closing with unread bytes does not reset the
    /// connection before the client has read the answer (a 413 for a body still arriving).
    async fn linger(&mut self) {
        let _ = tokio::time::timeout(self.write_timeout, self.io.shutdown()).await;
        let deadline = tokio::time::Instant::now() + LINGER_TIME;
        let mut scratch = [0u8; 16 * 1024];
        let mut drained = 0;
        while drained < LINGER_BYTES {
            match tokio::time::timeout_at(deadline, self.io.read(&mut scratch)).await {
                Ok(Ok(n)) if n > 0 => drained += n,
                _ => return,
            }
        }
    }

    /// Runs `fut` while watching the connection: bytes that arrive meanwhile (a pipelined next
    /// request) are kept; `None` if the peer closes first.
    async fn while_reading<T>(
        &mut self,
        mut fut: std::pin::Pin<&mut impl Future<Output = T>>,
    ) -> Option<T> {
        loop {
            if self.eof {
                return None;
            }
            if self.buf.len() >= READ_AHEAD {
                return Some(fut.await);
            }
            tokio::select! {
                biased;
                out = fut.as_mut() => return Some(out),
                more = self.fill() => if !more { return None },
            }
        }
    }
}

/// Checks a request's `Transfer-Encoding` fields (RFC 9112 §6, §7): the codings are read from
/// every field in order, as one list. `Ok` when the body is chunked and nothing else; 400 for a
/// malformed list, `chunked` missing from the end or named twice, an HTTP/1.0 request, or a
/// `Content-Length` beside it; 501 for any other coding (only `chunked` is understood: a body in
/// `gzip` read as if it were not would be the wrong body).
fn transfer_coding(headers: &Fields, version: Version) -> Result<(), Stop> {
    let mut codings: Vec<&[u8]> = Vec::new();
    for te in headers.get_all("transfer-encoding") {
        // Every coding a token with optional parameters (obs-text or controls refused, as
        // hyper refuses them; a malformed list too, which hyper does not look at).
        if !chunked::transfer_codings(te, &mut codings) {
            return Err(Stop::bad("malformed Transfer-Encoding"));
        }
    }
    let is_chunked = |c: &[u8]| c.eq_ignore_ascii_case(b"chunked");
    if version == Version::HTTP_10 {
        return Err(Stop::bad("Transfer-Encoding in an HTTP/1.0 request"));
    }
    let named = codings.iter().filter(|c| is_chunked(c)).count();
    if !codings.last().is_some_and(|c| is_chunked(c)) || named > 1 {
        return Err(Stop::bad(
            "Transfer-Encoding must end with chunked, named once",
        ));
    }
    if headers.get("content-length").is_some() {
        return Err(Stop::bad(
            "Transfer-Encoding and Content-Length together (RFC 9112 §6.1)",
        ));
    }
    if let Some(other) = codings.iter().find(|c| !is_chunked(c)) {
        return Err(Stop::Refuse(
            StatusCode::NOT_IMPLEMENTED,
            format!(
                "transfer coding {:?} is not implemented (only chunked is)",
                String::from_utf8_lossy(other)
            ),
        ));
    }
    Ok(())
}

/// 503 for a request that would take the server past its memory budget.
fn over_budget() -> Stop {
    Stop::Refuse(
        StatusCode::SERVICE_UNAVAILABLE,
        "the server is holding too much request data; try again later".into(),
    )
}

/// 431 for a head over the limit.
fn head_too_large() -> Stop {
    Stop::Refuse(
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
        "request head too large".into(),
    )
}
