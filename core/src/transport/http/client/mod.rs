//! The HTTP client transports: Streamable HTTP (POST per message, SSE or JSON answers, the GET
//! stream, resumption with `Last-Event-ID`) and the legacy HTTP+SSE transport, exposed as a
//! [`FrameReader`]/[`FrameWriter`] pair so the whole client API (`crate::client::Client`) works over HTTP unchanged;
//! `crate::client::http` connects a client over them.

use super::compression::body::{decoded_body, Decoded};
use super::sse::SseParser;
use super::{PROTOCOL_VERSION_HEADER, SESSION_ID_HEADER};
use crate::jsonrpc::RequestId;
use crate::transport::{FrameReader, FrameWriter, ReadStatus, Undelivered};
use crate::McpError;
use bytes::Bytes;
use ferromcp_auth::tls::{error_chain, Connector};
use http::{HeaderMap, HeaderName, HeaderValue, Method, Request, StatusCode, Uri};
use http_body_util::{BodyExt, Full};
use outgoing::Outgoing;
use pool::Pool;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

mod legacy;
mod options;
mod outgoing;
mod pool;

pub use legacy::legacy_transport;
pub use options::{HttpClientOptions, SessionIdCell};

/// What one message may still spend on retries.
struct Retries {
    /// A new session may replace an expired one.
    renew: bool,
    /// Authorizations left (401 / 403 step-up).
    auth: usize,
}

struct Shared {
    http: Pool,
    url: Uri,
    headers: HeaderMap,
    options: HttpClientOptions,
    session_id: Mutex<Option<String>>,
    version: Mutex<Option<String>>,
    /// Legacy mode: where to POST (learned from the `endpoint` event).
    legacy_endpoint: Mutex<Option<Uri>>,
    inbox: mpsc::Sender<Inbound>,
    closed: CancellationToken,
    get_started: AtomicBool,
    /// Bumped when a new session replaces an expired one; older GET loops then stop.
    get_generation: AtomicU64,
    /// The initialize request this transport carried, to start a new session with.
    init_frame: Mutex<Option<Vec<u8>>>,
    /// Held while a new session replaces an expired one.
    reinit: tokio::sync::Mutex<()>,
    /// The tools' `x-mcp-header` parameters, learned from `tools/list` answers (2026-07-28).
    tool_headers: super::tool_headers::ToolHeaders,
    /// The SSE answers being read, by the id of the request they answer (its JSON text): a
    /// per-request-era request is cancelled by closing its stream (2026-07-28).
    sse_reads: Mutex<std::collections::HashMap<String, CancellationToken>>,
}

/// What reaches the reader: a message from the server, or requests that could not be
/// delivered (their callers get the error itself, kind and source kept, not a copy of its
/// JSON, which would read as the server's answer).
enum Inbound {
    Frame(Vec<u8>),
    Undelivered(Undelivered),
}

/// The receiving half: messages from POST answers, the GET stream and resumed streams.
pub struct HttpReader {
    rx: mpsc::Receiver<Inbound>,
    closed: CancellationToken,
    undelivered: Option<Undelivered>,
}

impl std::fmt::Debug for HttpReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpReader").finish_non_exhaustive()
    }
}

/// The sending half: each frame is POSTed; closing sends DELETE for the session.
pub struct HttpWriter {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for HttpWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpWriter")
            .field("url", &self.shared.url)
            .finish_non_exhaustive()
    }
}

impl FrameReader for HttpReader {
    fn transport_kind(&self) -> crate::transport::TransportKind {
        crate::transport::TransportKind::Http
    }

    async fn read_frame(&mut self, buf: &mut Vec<u8>) -> io::Result<ReadStatus> {
        buf.clear();
        tokio::select! {
            m = self.rx.recv() => match m {
                Some(Inbound::Frame(frame)) => {
                    buf.extend_from_slice(&frame);
                    Ok(ReadStatus::Frame)
                }
                Some(Inbound::Undelivered(u)) => {
                    self.undelivered = Some(u);
                    Ok(ReadStatus::Undelivered)
                }
                None => Ok(ReadStatus::Eof),
            },
            _ = self.closed.cancelled() => Ok(ReadStatus::Eof),
        }
    }

    fn take_undelivered(&mut self) -> Option<Undelivered> {
        self.undelivered.take()
    }
}

impl FrameWriter for HttpWriter {
    async fn write_frame(&mut self, frame: &[u8]) -> io::Result<()> {
        if self.shared.closed.is_cancelled() {
            return Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "transport closed",
            ));
        }
        let shared = self.shared.clone();
        let frame = Outgoing::new(frame);
        if shared.close_cancelled_stream(&frame) {
            return Ok(());
        }
        if frame.request_ids().is_empty() {
            // Notifications and responses are answered with 202 at once: deliver them in order
            // (so `initialized` reaches the server before anything that follows it).
            // Bounded: a server that never answers must not stall the session; after the bound
            // the POST carries on in the background.
            let post = tokio::spawn(shared.post(frame));
            let _ = tokio::time::timeout(Duration::from_secs(10), post).await;
        } else {
            // Requests may be answered slowly (JSON mode) or by a long SSE stream: run them
            // concurrently, in the order they were issued.
            tokio::spawn(async move { shared.post(frame).await });
        }
        Ok(())
    }

    async fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }

    async fn close(&mut self) -> io::Result<()> {
        if self.shared.closed.is_cancelled() {
            return Ok(());
        }
        let legacy = self.shared.legacy_endpoint.lock().unwrap().is_some();
        let sid = self.shared.session_id.lock().unwrap().clone();
        if let (false, Some(_)) = (legacy, sid) {
            let req = self
                .shared
                .request(Method::DELETE, self.shared.url.clone(), Bytes::new());
            if let Ok(req) = req {
                let _ = tokio::time::timeout(Duration::from_secs(5), self.shared.http.request(req))
                    .await;
            }
        }
        self.shared.closed.cancel();
        Ok(())
    }
}

/// An HTTP exchange that failed before an answer ([`crate::ErrorKind::Transport`]). The hyper
/// error is the source; when an I/O error is in its chain (a connection refused or reset), the
/// source is a [`std::io::Error`] of that kind wrapping it, so a caller can downcast to it and
/// read its `kind()`.
fn request_failed(e: pool::PoolError) -> McpError {
    let err = transport_err(None, format!("HTTP request failed: {}", error_chain(&e)));
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(&e);
    let mut io_kind = None;
    while let Some(c) = cause {
        if let Some(io) = c.downcast_ref::<io::Error>() {
            io_kind = Some(io.kind());
            break;
        }
        cause = c.source();
    }
    match io_kind {
        Some(kind) => err.with_source(io::Error::new(kind, e)),
        None => err.with_source(e),
    }
}

fn transport_err(status: Option<StatusCode>, detail: impl std::fmt::Display) -> McpError {
    let e = McpError::transport(detail);
    match status {
        Some(s) => e.with_data(json!({ "httpStatus": s.as_u16() })),
        None => e,
    }
}

impl Shared {
    /// Without an HTTP session (the per-request era), `notifications/cancelled` for a request
    /// whose SSE answer is being read closes that stream instead of being posted: that is how
    /// the era cancels a request (and ends a `subscriptions/listen`). Returns whether it did.
    fn close_cancelled_stream(&self, frame: &Outgoing) -> bool {
        if self.session_id.lock().unwrap().is_some() {
            return false;
        }
        let Some(v) = &frame.value else {
            return false;
        };
        if v.get("method").and_then(Value::as_str) != Some("notifications/cancelled") {
            return false;
        }
        let Some(id) = v.get("params").and_then(|p| p.get("requestId")) else {
            return false;
        };
        match self.sse_reads.lock().unwrap().remove(&id.to_string()) {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }

    fn request(
        &self,
        method: Method,
        uri: Uri,
        body: Bytes,
    ) -> Result<Request<Full<Bytes>>, McpError> {
        self.build_request(method, uri, body, true)
    }

    fn build_request(
        &self,
        method: Method,
        uri: Uri,
        body: Bytes,
        with_session: bool,
    ) -> Result<Request<Full<Bytes>>, McpError> {
        let mut b = Request::builder().method(method.clone()).uri(uri);
        for (k, v) in &self.headers {
            b = b.header(k, v);
        }
        if let Some(token) = self.options.auth.as_ref().and_then(|a| a.bearer()) {
            b = b.header("authorization", format!("Bearer {token}"));
        }
        if self.options.compression {
            b = b.header("accept-encoding", super::compression::ACCEPT_ALL);
        }
        if method == Method::POST {
            b = b
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream");
        } else if method == Method::GET {
            b = b.header("accept", "text/event-stream");
        }
        if with_session && self.legacy_endpoint.lock().unwrap().is_none() {
            if let Some(sid) = self.session_id.lock().unwrap().as_deref() {
                b = b.header(SESSION_ID_HEADER, sid);
            }
            if let Some(v) = self.version.lock().unwrap().as_deref() {
                b = b.header(PROTOCOL_VERSION_HEADER, v);
            }
        }
        b.body(Full::new(body))
            .map_err(|e| McpError::transport(format!("bad HTTP request: {e}")))
    }

    async fn push(&self, data: &[u8]) {
        self.observe(data);
        self.tool_headers.received(data);
        let _ = self.inbox.send(Inbound::Frame(data.to_vec())).await;
    }

    /// Learns the negotiated revision from the initialize result as it passes by.
    fn observe(&self, data: &[u8]) {
        if self.version.lock().unwrap().is_some() {
            return;
        }
        if let Ok(v) = serde_json::from_slice::<Value>(data) {
            if let Some(r) = v.get("result") {
                if r.get("serverInfo").is_some() {
                    if let Some(pv) = r.get("protocolVersion").and_then(Value::as_str) {
                        *self.version.lock().unwrap() = Some(pv.to_string());
                    }
                }
            }
        }
    }

    /// Answers the requests of a failed POST with errors so their callers wake up.
    async fn fail(&self, frame: &Outgoing, error: McpError) {
        let ids = frame.request_ids();
        if ids.is_empty() {
            tracing::warn!(error = %error, "HTTP POST of a notification or response failed");
            return;
        }
        self.fail_ids(ids, error).await;
    }

    /// Fails the requests `ids` (JSON ids, as in their frame) with `error`.
    async fn fail_ids(&self, ids: Vec<Value>, error: McpError) {
        let ids = ids
            .into_iter()
            .filter_map(|id| serde_json::from_value::<RequestId>(id).ok())
            .collect();
        let _ = self
            .inbox
            .send(Inbound::Undelivered(Undelivered::new(ids, error)))
            .await;
    }

    async fn post(self: Arc<Self>, frame: Outgoing) {
        let mut retries = Retries {
            renew: true,
            auth: self.options.auth.as_ref().map_or(0, |a| a.max_attempts()),
        };
        let mut frame = frame;
        while let Some(again) = self.clone().post_once(frame, &mut retries).await {
            frame = again;
        }
    }

    /// On a 401, or a 403 `insufficient_scope`, with authorization configured: runs the OAuth
    /// flow. `None`: not an authorization answer; `Some(Ok)`: send again; `Some(Err)`: give up.
    async fn authorize(
        &self,
        status: StatusCode,
        headers: &HeaderMap,
        used_token: Option<&str>,
        retries: &mut Retries,
    ) -> Option<Result<(), McpError>> {
        let auth = self.options.auth.as_ref()?;
        let challenges: Vec<&str> = headers
            .get_all("www-authenticate")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect();
        let step_up = status == StatusCode::FORBIDDEN
            && crate::auth::BearerChallenge::parse(challenges.iter().copied())
                .is_some_and(|c| c.is_insufficient_scope());
        if status != StatusCode::UNAUTHORIZED && !step_up {
            return None;
        }
        let data = |kind: &str| json!({ "httpStatus": status.as_u16(), "authError": kind });
        if retries.auth == 0 {
            let e = crate::auth::AuthError::RetryLimit {
                attempts: auth.max_attempts(),
                status: status.as_u16(),
            };
            return Some(Err(McpError::from(e.clone()).with_data(data(e.kind()))));
        }
        retries.auth -= 1;
        let url = self.url.to_string();
        Some(
            auth.handle_challenge(&url, status.as_u16(), challenges, used_token)
                .await
                .map_err(|e| McpError::from(e.clone()).with_data(data(e.kind()))),
        )
    }

    /// POSTs one frame and routes its answers. Returns the frame back when it is to be sent
    /// again: the session had expired and a new one replaced it, or a new token was obtained.
    async fn post_once(
        self: Arc<Self>,
        frame: Outgoing,
        retries: &mut Retries,
    ) -> Option<Outgoing> {
        let may_renew = retries.renew;
        if let Some(auth) = &self.options.auth {
            auth.prepare(&self.url.to_string()).await;
        }
        let legacy = self.legacy_endpoint.lock().unwrap().clone();
        let uri = legacy.clone().unwrap_or_else(|| self.url.clone());
        let method = frame.method();
        let is_initialized = method == Some("notifications/initialized");
        let is_initialize = method == Some("initialize");
        if is_initialize {
            *self.init_frame.lock().unwrap() = Some(frame.bytes.to_vec());
        }
        let used_sid = self.session_id.lock().unwrap().clone();
        let used_token = self.options.auth.as_ref().and_then(|a| a.bearer());
        let req = match self.request(Method::POST, uri, frame.bytes.clone()) {
            Ok(mut r) => {
                // Per-request era (2026-07-28): the request metadata headers of the body.
                if let Some(body) = &frame.value {
                    for (name, value) in super::per_request::client_headers(body) {
                        if let Ok(v) = http::HeaderValue::from_str(&value) {
                            r.headers_mut().insert(name, v);
                        }
                    }
                    // The message's trace context (`params._meta`), repeated as header fields.
                    for (name, value) in super::trace_context_headers(body) {
                        if let Ok(v) = http::HeaderValue::from_str(value) {
                            r.headers_mut().insert(name, v);
                        }
                    }
                    // `x-mcp-header` arguments of a tools/call, mirrored as `Mcp-Param-*`.
                    if r.headers().contains_key(super::per_request::METHOD_HEADER) {
                        self.tool_headers.sent(body);
                        for (name, value) in self.tool_headers.headers(body) {
                            if let (Ok(n), Ok(v)) = (
                                http::HeaderName::from_bytes(name.as_bytes()),
                                http::HeaderValue::from_str(&value),
                            ) {
                                r.headers_mut().insert(n, v);
                            }
                        }
                    }
                }
                r
            }
            Err(e) => {
                self.fail(&frame, e).await;
                return None;
            }
        };
        let resp = tokio::select! {
            r = self.http.request(req) => r,
            _ = self.closed.cancelled() => return None,
        };
        let resp = match resp {
            Ok(r) => r,
            Err(e) => {
                self.fail(&frame, request_failed(e)).await;
                return None;
            }
        };
        let status = resp.status();
        if legacy.is_none() {
            if let Some(sid) = resp
                .headers()
                .get(SESSION_ID_HEADER)
                .and_then(|v| v.to_str().ok())
            {
                let mut cur = self.session_id.lock().unwrap();
                if cur.is_none() {
                    *cur = Some(sid.to_string());
                    self.options.session_id.set(sid);
                }
            }
        }
        if !status.is_success() {
            let headers = resp.headers().clone();
            let body = decoded_body(resp)
                .collect()
                .await
                .map(|b| b.to_bytes())
                .unwrap_or_default();
            let text = String::from_utf8_lossy(&body);
            match self
                .authorize(status, &headers, used_token.as_deref(), retries)
                .await
            {
                Some(Ok(())) => return Some(frame),
                Some(Err(e)) => {
                    self.fail(&frame, e).await;
                    return None;
                }
                None => {}
            }
            let expired = status == StatusCode::NOT_FOUND && legacy.is_none();
            if let (true, true, Some(stale)) = (
                expired && may_renew && self.options.reinitialize_on_expiry,
                !is_initialize,
                used_sid.as_deref(),
            ) {
                retries.renew = false;
                match self.renew_session(stale).await {
                    Ok(()) => return Some(frame),
                    Err(e) => tracing::warn!(error = %e, "starting a new HTTP session failed"),
                }
            }
            // Per-request era (2026-07-28): errors come with a 4xx status and a JSON-RPC error
            // body for the request (-32020/-32021/-32022, invalid params, ...): deliver that.
            if let Some(answer) = per_request_error_answer(&frame, &body) {
                self.push(&answer).await;
                return None;
            }
            let err = if expired && used_sid.is_some() {
                transport_err(
                    Some(status),
                    "the HTTP session expired or was deleted by the server (404); reconnect to start a new session",
                )
            } else {
                transport_err(Some(status), format!("HTTP {status}: {text}"))
            };
            self.fail(&frame, err).await;
            return None;
        }
        if is_initialized && legacy.is_none() && self.options.open_get_stream {
            // Wait (bounded) until the server has accepted or refused the GET stream, so that
            // nothing the server sends there right after initialization is lost.
            let opened = self.clone().start_get_stream();
            let _ = tokio::time::timeout(Duration::from_secs(5), opened).await;
        }
        let ct = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        if ct.starts_with("text/event-stream") {
            let mut pending: HashSet<String> =
                frame.request_ids().iter().map(|v| v.to_string()).collect();
            let mut last_id = None;
            let mut retry = None;
            let abandoned = CancellationToken::new();
            if legacy.is_none() && used_sid.is_none() {
                let mut reads = self.sse_reads.lock().unwrap();
                for id in &pending {
                    reads.insert(id.clone(), abandoned.clone());
                }
            }
            tokio::select! {
                _ = self.read_sse(decoded_body(resp), &mut pending, &mut last_id, &mut retry) => {}
                _ = abandoned.cancelled() => return None,
            }
            if used_sid.is_none() {
                let mut reads = self.sse_reads.lock().unwrap();
                for id in frame.request_ids() {
                    reads.remove(&id.to_string());
                }
            }
            let mut attempts = 0;
            while !pending.is_empty() && !self.closed.is_cancelled() {
                let Some(lid) = last_id.clone() else { break };
                if attempts >= self.options.max_reconnects {
                    break;
                }
                attempts += 1;
                let delay = retry
                    .map(Duration::from_millis)
                    .unwrap_or(self.options.default_retry);
                tokio::select! {
                    _ = tokio::time::sleep(delay) => {}
                    _ = self.closed.cancelled() => return None,
                }
                let Ok(mut req) = self.request(Method::GET, self.url.clone(), Bytes::new()) else {
                    break;
                };
                req.headers_mut().insert(
                    HeaderName::from_static("last-event-id"),
                    HeaderValue::from_str(&lid).unwrap_or(HeaderValue::from_static("")),
                );
                match self.http.request(req).await {
                    Ok(r) if r.status().is_success() => {
                        attempts = 0;
                        self.read_sse(decoded_body(r), &mut pending, &mut last_id, &mut retry)
                            .await;
                    }
                    Ok(r) => {
                        tracing::debug!(status = %r.status(), "resuming an SSE stream failed");
                    }
                    Err(e) => {
                        tracing::debug!(error = %error_chain(&e), "resuming an SSE stream failed")
                    }
                }
            }
            if !pending.is_empty() && !self.closed.is_cancelled() {
                let err = transport_err(
                    None,
                    "the server's SSE stream ended before the response arrived",
                );
                let ids = pending
                    .iter()
                    .map(|id| serde_json::from_str(id).unwrap_or(Value::Null))
                    .collect();
                self.fail_ids(ids, err).await;
            }
        } else {
            let body = decoded_body(resp)
                .collect()
                .await
                .map(|b| b.to_bytes())
                .unwrap_or_default();
            if !body.iter().all(u8::is_ascii_whitespace) && legacy.is_none() {
                self.push(&body).await;
            }
        }
        None
    }

    /// Replaces the expired session `stale` with a new one: re-sends the initialize request this
    /// transport carried (without a session id), then `notifications/initialized`, and reopens
    /// the GET stream. Concurrent callers wait; those that find a newer session simply retry.
    async fn renew_session(self: &Arc<Self>, stale: &str) -> Result<(), McpError> {
        let _guard = self.reinit.lock().await;
        if self.session_id.lock().unwrap().as_deref() != Some(stale) {
            return Ok(());
        }
        let init =
            self.init_frame.lock().unwrap().clone().ok_or_else(|| {
                McpError::transport("no initialize request to start a new session")
            })?;
        let init_id = serde_json::from_slice::<Value>(&init)
            .ok()
            .and_then(|v| v.get("id").cloned());
        let mut req =
            self.build_request(Method::POST, self.url.clone(), Bytes::from(init), false)?;
        req.headers_mut().remove(PROTOCOL_VERSION_HEADER);
        let exchange = async {
            let resp = self.http.request(req).await.map_err(request_failed)?;
            let status = resp.status();
            let sid = resp
                .headers()
                .get(SESSION_ID_HEADER)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
            let sse = resp
                .headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .is_some_and(|ct| ct.to_ascii_lowercase().starts_with("text/event-stream"));
            let body = decoded_body(resp)
                .collect()
                .await
                .map_err(|e| transport_err(None, format!("HTTP body failed: {e}")).with_source(e))?
                .to_bytes();
            if !status.is_success() {
                return Err(transport_err(
                    Some(status),
                    format!("re-initialize answered HTTP {status}"),
                ));
            }
            let messages: Vec<Value> = if sse {
                SseParser::new()
                    .feed(&body)
                    .into_iter()
                    .filter_map(|ev| serde_json::from_str(&ev.data).ok())
                    .collect()
            } else {
                serde_json::from_slice(&body).into_iter().collect()
            };
            let answer = messages
                .into_iter()
                .find(|m| m.get("method").is_none() && m.get("id") == init_id.as_ref())
                .ok_or_else(|| McpError::transport("no answer to the re-sent initialize"))?;
            let result = answer.get("result").ok_or_else(|| {
                McpError::transport(format!("re-initialize failed: {}", answer["error"]))
            })?;
            Ok((sid, result.get("protocolVersion").cloned()))
        };
        let (sid, version) = tokio::time::timeout(Duration::from_secs(30), exchange)
            .await
            .map_err(|_| McpError::timeout("re-initialize timed out"))??;
        let sid = sid.ok_or_else(|| McpError::transport("the new session has no session id"))?;
        let previous = self.version.lock().unwrap().clone();
        if let Some(v) = version.as_ref().and_then(Value::as_str) {
            if previous.as_deref().is_some_and(|p| p != v) {
                tracing::warn!(
                    previous = ?previous,
                    now = v,
                    "the new HTTP session negotiated another protocol revision"
                );
            }
        }
        self.options.session_id.set(&sid);
        *self.session_id.lock().unwrap() = Some(sid);
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let req = self.request(
            Method::POST,
            self.url.clone(),
            Bytes::from(note.to_string()),
        )?;
        let resp = tokio::time::timeout(Duration::from_secs(30), self.http.request(req))
            .await
            .map_err(|_| McpError::timeout("notifications/initialized timed out"))?
            .map_err(request_failed)?;
        if !resp.status().is_success() {
            return Err(transport_err(
                Some(resp.status()),
                "notifications/initialized refused",
            ));
        }
        tracing::info!("the HTTP session expired; continuing in a new session");
        if self.options.open_get_stream && self.get_started.load(Ordering::Acquire) {
            self.get_generation.fetch_add(1, Ordering::AcqRel);
            self.get_started.store(false, Ordering::Release);
            let opened = self.clone().start_get_stream();
            let _ = tokio::time::timeout(Duration::from_secs(5), opened).await;
        }
        Ok(())
    }

    /// Reads one SSE body, forwarding messages; tracks answered requests, event id and retry.
    async fn read_sse(
        &self,
        mut body: Decoded<hyper::body::Incoming>,
        pending: &mut HashSet<String>,
        last_id: &mut Option<String>,
        retry: &mut Option<u64>,
    ) {
        let mut parser = SseParser::new();
        loop {
            let frame = tokio::select! {
                f = body.frame() => f,
                _ = self.closed.cancelled() => return,
            };
            let Some(Ok(frame)) = frame else { return };
            let Ok(data) = frame.into_data() else {
                continue;
            };
            for ev in parser.feed(&data) {
                if let Some(id) = ev.id {
                    *last_id = Some(id);
                }
                if ev.retry.is_some() {
                    *retry = ev.retry;
                }
                if ev.data.trim().is_empty() {
                    continue;
                }
                if ev.event.as_deref().is_some_and(|e| e != "message") {
                    continue;
                }
                if let Ok(v) = serde_json::from_str::<Value>(&ev.data) {
                    if v.get("method").is_none() {
                        if let Some(id) = v.get("id") {
                            pending.remove(&id.to_string());
                        }
                    }
                }
                self.push(ev.data.as_bytes()).await;
            }
        }
    }

    /// Opens the standalone GET stream in the background; the receiver fires once the server
    /// first answered it (either way).
    fn start_get_stream(self: Arc<Self>) -> tokio::sync::oneshot::Receiver<()> {
        let (answered_tx, answered) = tokio::sync::oneshot::channel();
        if self.get_started.swap(true, Ordering::AcqRel) {
            return answered;
        }
        let mut answered_tx = Some(answered_tx);
        let generation = self.get_generation.load(Ordering::Acquire);
        tokio::spawn(async move {
            let mut last_id: Option<String> = None;
            let mut retry: Option<u64> = None;
            let mut failures = 0;
            while !self.closed.is_cancelled()
                && self.get_generation.load(Ordering::Acquire) == generation
            {
                let Ok(mut req) = self.request(Method::GET, self.url.clone(), Bytes::new()) else {
                    return;
                };
                if let Some(lid) = &last_id {
                    if let Ok(v) = HeaderValue::from_str(lid) {
                        req.headers_mut()
                            .insert(HeaderName::from_static("last-event-id"), v);
                    }
                }
                let resp = tokio::select! {
                    r = self.http.request(req) => r,
                    _ = self.closed.cancelled() => return,
                };
                if let Some(tx) = answered_tx.take() {
                    let _ = tx.send(());
                }
                match resp {
                    Ok(r) if r.status().is_success() => {
                        failures = 0;
                        let mut pending = HashSet::new();
                        self.read_sse(decoded_body(r), &mut pending, &mut last_id, &mut retry)
                            .await;
                    }
                    Ok(r) if r.status() == StatusCode::METHOD_NOT_ALLOWED => return,
                    Ok(r) if r.status() == StatusCode::NOT_FOUND => {
                        tracing::warn!("GET stream: the HTTP session expired (404)");
                        return;
                    }
                    Ok(r) => {
                        tracing::debug!(status = %r.status(), "GET stream refused");
                        failures += 1;
                    }
                    Err(e) => {
                        tracing::debug!(error = %e, "GET stream failed");
                        failures += 1;
                    }
                }
                if failures > self.options.max_reconnects {
                    return;
                }
                let delay = retry
                    .map(Duration::from_millis)
                    .unwrap_or(self.options.default_retry);
                tokio::select! {
                    _ = tokio::time::sleep(delay) => {}
                    _ = self.closed.cancelled() => return,
                }
            }
        });
        answered
    }
}

fn make_shared(
    url: &str,
    options: &HttpClientOptions,
) -> Result<(Arc<Shared>, HttpReader), McpError> {
    let uri: Uri = url
        .parse()
        .map_err(|e| McpError::transport(format!("invalid URL {url:?}: {e}")))?;
    if !matches!(uri.scheme_str(), Some("http" | "https")) {
        return Err(McpError::transport(format!(
            "unsupported URL scheme in {url:?}: this client speaks http and https"
        )));
    }
    let connector =
        Connector::new(&options.extra_root_certificates).map_err(McpError::transport)?;
    let mut headers = HeaderMap::new();
    for (k, v) in &options.headers {
        let name = HeaderName::from_bytes(k.as_bytes())
            .map_err(|e| McpError::transport(format!("invalid header name {k:?}: {e}")))?;
        let value = HeaderValue::from_str(v)
            .map_err(|e| McpError::transport(format!("invalid header value for {k}: {e}")))?;
        headers.append(name, value);
    }
    let (tx, rx) = mpsc::channel(1024);
    let closed = CancellationToken::new();
    let shared = Arc::new(Shared {
        http: Pool::new(connector),
        url: uri,
        headers,
        options: options.clone(),
        session_id: Mutex::new(None),
        version: Mutex::new(None),
        legacy_endpoint: Mutex::new(None),
        inbox: tx,
        closed: closed.clone(),
        get_started: AtomicBool::new(false),
        get_generation: AtomicU64::new(0),
        init_frame: Mutex::new(None),
        reinit: tokio::sync::Mutex::new(()),
        tool_headers: Default::default(),
        sse_reads: Default::default(),
    });
    Ok((
        shared,
        HttpReader {
            rx,
            closed,
            undelivered: None,
        },
    ))
}

/// A Streamable HTTP transport to `url` (e.g. `http://127.0.0.1:3000/mcp`).
pub fn streamable_transport(
    url: &str,
    options: &HttpClientOptions,
) -> Result<(HttpReader, HttpWriter), McpError> {
    let (shared, reader) = make_shared(url, options)?;
    Ok((reader, HttpWriter { shared }))
}

/// The JSON-RPC error answer in `body` (a non-2xx response) to the request in `frame`, if it
/// is one a modern server gives: a single message with that request's id and an `error`, to a
/// per-request-era request, or -32022 to `initialize` (a server of the per-request era only;
/// the client is told what it speaks instead of falling back to HTTP+SSE, as 2026-07-28's
/// Streamable HTTP "Backward Compatibility" asks).
fn per_request_error_answer(frame: &Outgoing, body: &[u8]) -> Option<Vec<u8>> {
    let sent = frame.value.as_ref()?;
    let got: Value = serde_json::from_slice(body).ok()?;
    let modern = crate::session::per_request::meta_version(sent.get("params")).is_some()
        || (sent.get("method").and_then(Value::as_str) == Some("initialize")
            && got["error"]["code"].as_i64()
                == Some(i64::from(crate::error::codes::UNSUPPORTED_PROTOCOL_VERSION)));
    (modern && got.get("error").is_some() && got.get("id") == sent.get("id")).then(|| body.to_vec())
}
