//! Sending to the peer: notifications, and requests with timeouts, progress and cancellation.

use super::core::{PendingRequest, ProgressCallback, STATE_CLOSED};
use super::{check_outgoing_request, Notifier, RequestContext, Session};
use crate::jsonrpc::{Message, RequestId};
use crate::protocol::ProtocolVersion;
use crate::McpError;
use serde_json::{json, Value};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{oneshot, Notify};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// Options for one outgoing request.
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct RequestOptions {
    /// Timeout; `None` uses the session's default.
    pub timeout: Option<Duration>,
    /// Whether a progress notification restarts the timeout (bounded by the maximum total).
    pub reset_timeout_on_progress: bool,
    /// Hard limit on the total time; `None` uses the session's default.
    pub max_total_timeout: Option<Duration>,
    /// Called with the params of each `notifications/progress` for this request. Setting it
    /// makes the request carry `_meta.progressToken`.
    pub on_progress: Option<Arc<dyn Fn(Value) + Send + Sync>>,
    /// The incoming request this one is made for (routing over HTTP).
    pub related: Option<RequestId>,
    /// Cancels the request (sends `notifications/cancelled`) when fired.
    pub cancel: Option<CancellationToken>,
}

ferromcp_protocol::with_setters!(RequestOptions {
    timeout: Option<Duration> => with_timeout,
    reset_timeout_on_progress: bool => with_reset_timeout_on_progress,
    max_total_timeout: Option<Duration> => with_max_total_timeout,
    on_progress: Option<Arc<dyn Fn(Value) + Send + Sync>> => with_on_progress,
    related: Option<RequestId> => with_related,
    cancel: Option<CancellationToken> => with_cancel,
});

impl std::fmt::Debug for RequestOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestOptions")
            .field("timeout", &self.timeout)
            .field("reset_timeout_on_progress", &self.reset_timeout_on_progress)
            .field("max_total_timeout", &self.max_total_timeout)
            .field("on_progress", &self.on_progress.is_some())
            .field("related", &self.related)
            .finish()
    }
}

/// A handle for talking to the other side of a session. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Peer {
    session: Arc<Session>,
}

/// Removes a pending request when its waiter goes away, telling the peer it was cancelled.
struct PendingGuard<'a> {
    session: &'a Session,
    id: RequestId,
    related: Option<RequestId>,
    armed: bool,
}

impl PendingGuard<'_> {
    fn cancel(&mut self, reason: &str) {
        if !self.armed {
            return;
        }
        self.armed = false;
        self.session.pending.lock().unwrap().remove(&self.id);
        let params = json!({ "requestId": self.id, "reason": reason });
        let _ = self.session.try_send_notification(
            Notifier::Session,
            "notifications/cancelled",
            Some(params),
            self.related.clone(),
        );
    }
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        self.cancel("request abandoned by the caller");
    }
}

/// Who traces a request this side sends to its peer (feature `otel`; without it nothing is
/// traced and this is not looked at).
#[cfg_attr(not(feature = "otel"), allow(dead_code))]
pub(crate) enum Tracing<'a> {
    /// The session's tracer, when its service has one (`Service::peer_request_tracer`: a
    /// server's OpenTelemetry layer, a client's telemetry): a `CLIENT` span whose parent is
    /// the context in `params._meta`, else the current one. `serving`: the request whose
    /// handler sends it ([`RequestContext::request`]); when the layer traces that request, its
    /// tracer is used instead, which falls back to that request's span for a parent.
    BySession(Option<&'a RequestContext>),
    /// The caller's own span covers the request (the engine client's `Client::request`, around
    /// its input rounds and task polling): `named` is told the id of each request sent.
    ByCaller(Option<&'a mut (dyn FnMut(&RequestId) + Send)>),
}

impl Peer {
    pub(crate) fn new(session: Arc<Session>) -> Self {
        Peer { session }
    }

    /// The session behind this handle.
    pub fn session(&self) -> &Arc<Session> {
        &self.session
    }

    /// The negotiated revision, once negotiated.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.session.protocol_version()
    }

    /// The peer's info object (`clientInfo` or `serverInfo`), once negotiated.
    pub fn peer_info(&self) -> Option<&Value> {
        self.session.negotiated().map(|n| &*n.peer_info)
    }

    /// The peer's capabilities, once negotiated.
    pub fn peer_capabilities(&self) -> Option<&Value> {
        self.session.negotiated().map(|n| &*n.peer_capabilities)
    }

    /// Sends a notification.
    pub async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), McpError> {
        if self.session.state() == STATE_CLOSED {
            return Err(McpError::connection_closed("session closed"));
        }
        self.session
            .send_notification(Notifier::Session, method, params, None)
            .await
    }

    /// Sends `notifications/message` if this side advertised logging and the level passes the
    /// peer's `logging/setLevel` threshold.
    pub async fn log(
        &self,
        level: &str,
        logger: Option<&str>,
        data: Value,
    ) -> Result<(), McpError> {
        self.log_related(level, logger, data, None, Notifier::Session)
            .await
    }

    /// [`Self::log`] for the request `related` when given, sent by `by`.
    pub(crate) async fn log_related(
        &self,
        level: &str,
        logger: Option<&str>,
        data: Value,
        related: Option<RequestId>,
        by: Notifier<'_>,
    ) -> Result<(), McpError> {
        let rank = log_level_rank(level)
            .ok_or_else(|| McpError::invalid_params(format!("unknown log level {level:?}")))?;
        let Some(n) = self.session.negotiated() else {
            return Ok(()); // before initialization nobody asked for logs
        };
        if !n.own_has(&["logging"]) {
            return Err(McpError::invalid_request(
                "logging was not advertised in this server's capabilities",
            ));
        }
        let min = self.session.log_level.load(Ordering::Acquire);
        if min != u8::MAX && rank < min {
            return Ok(());
        }
        let mut params = json!({ "level": level, "data": data });
        if let Some(l) = logger {
            params["logger"] = json!(l);
        }
        self.session
            .send_notification(by, "notifications/message", Some(params), related)
            .await
    }

    /// Sends a request and waits for its result, with the session's default options.
    ///
    /// With OpenTelemetry (feature `otel`) on the session's side (a server's layer, a client's
    /// `ClientOptions::telemetry`), the request gets a `CLIENT` span and its duration, its
    /// context written into `params._meta`.
    pub async fn request(
        &self,
        method: &str,
        params: Option<Value>,
        opts: RequestOptions,
    ) -> Result<Value, McpError> {
        self.request_inner(method, params, opts, None, Tracing::BySession(None))
            .await
    }

    /// [`Self::request`], traced as `tracing` says.
    pub(crate) async fn request_traced(
        &self,
        method: &str,
        params: Option<Value>,
        opts: RequestOptions,
        tracing: Tracing<'_>,
    ) -> Result<Value, McpError> {
        self.request_inner(method, params, opts, None, tracing)
            .await
    }

    /// A `subscriptions/listen` request: like [`Self::request`], but without a deadline (it
    /// lasts until the server ends it or the caller drops it), and the notifications tagged
    /// with its id as their subscription id go to `sink` instead of the client's handlers.
    pub(crate) async fn request_listening(
        &self,
        method: &str,
        params: Option<Value>,
        opts: RequestOptions,
        sink: super::core::TaggedSink,
    ) -> Result<Value, McpError> {
        self.request_inner(method, params, opts, Some(sink), Tracing::BySession(None))
            .await
    }

    async fn request_inner(
        &self,
        method: &str,
        params: Option<Value>,
        opts: RequestOptions,
        on_tagged: Option<super::core::TaggedSink>,
        tracing: Tracing<'_>,
    ) -> Result<Value, McpError> {
        let listening = on_tagged.is_some();
        let session = &*self.session;
        if session.state() == STATE_CLOSED {
            return Err(McpError::connection_closed("session closed"));
        }
        check_outgoing_request(session, method, params.as_ref())?;
        let id = session.ids.next_id();
        let mut params = params;
        // A progress token is needed both for the callback and for resetting the timeout.
        if opts.on_progress.is_some() || opts.reset_timeout_on_progress {
            let p = params.get_or_insert_with(|| json!({}));
            if let Value::Object(map) = p {
                let meta = map.entry("_meta").or_insert_with(|| json!({}));
                if let Value::Object(meta) = meta {
                    meta.insert("progressToken".into(), id.to_value());
                }
            }
        }
        #[cfg(feature = "otel")]
        let call = self.trace(tracing, method, &id, &mut params);
        #[cfg(not(feature = "otel"))]
        let _ = tracing;
        let result = self
            .exchange(id, method, params, opts, on_tagged, listening)
            .await;
        #[cfg(feature = "otel")]
        if let Some(call) = call {
            call.finish(&result);
        }
        result
    }

    /// Starts tracing a request about to be sent as `tracing` says (see [`Tracing`]).
    #[cfg(feature = "otel")]
    fn trace(
        &self,
        tracing: Tracing<'_>,
        method: &str,
        id: &RequestId,
        params: &mut Option<Value>,
    ) -> Option<Box<dyn super::OutboundCall>> {
        match tracing {
            Tracing::ByCaller(named) => {
                if let Some(named) = named {
                    named(id);
                }
                None
            }
            Tracing::BySession(serving) => {
                let own = serving.and_then(RequestContext::outbound_tracer);
                let session = &*self.session;
                match own {
                    Some(tracer) => Some(tracer.start(session, serving, method, id, params)),
                    None => session
                        .service
                        .peer_request_tracer()
                        .map(|t| t.0.start(session, serving, method, id, params)),
                }
            }
        }
    }

    /// Sends request `id` and waits for its answer, its timeout or its cancellation.
    async fn exchange(
        &self,
        id: RequestId,
        method: &str,
        params: Option<Value>,
        opts: RequestOptions,
        on_tagged: Option<super::core::TaggedSink>,
        listening: bool,
    ) -> Result<Value, McpError> {
        let session = &*self.session;
        let (tx, mut rx) = oneshot::channel();
        let activity = opts
            .reset_timeout_on_progress
            .then(|| Arc::new(Notify::new()));
        let on_progress: Option<ProgressCallback> = opts.on_progress.clone();
        session.pending.lock().unwrap().insert(
            id.clone(),
            PendingRequest {
                tx,
                on_progress,
                activity: activity.clone(),
                on_tagged,
            },
        );
        let mut guard = PendingGuard {
            session,
            id: id.clone(),
            related: opts.related.clone(),
            armed: true,
        };
        if let Err(e) = session
            .outbound
            .send(
                Message::request(id.clone(), method, params),
                opts.related.clone(),
            )
            .await
        {
            guard.armed = false;
            session.pending.lock().unwrap().remove(&id);
            return Err(e);
        }
        // A subscription has no deadline unless its caller set one.
        let (timeout, max_total) = if listening {
            (opts.timeout, opts.max_total_timeout)
        } else {
            (
                opts.timeout.or(session.config.request_timeout),
                opts.max_total_timeout.or(session.config.max_total_timeout),
            )
        };
        let start = Instant::now();
        let hard_deadline = max_total.map(|m| start + m);
        let mut deadline = match (timeout.map(|t| start + t), hard_deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let cancel = opts.cancel.clone().unwrap_or_default();
        loop {
            let sleep = async {
                match deadline {
                    Some(d) => tokio::time::sleep_until(d).await,
                    None => std::future::pending().await,
                }
            };
            let progressed = async {
                match &activity {
                    Some(a) => a.notified().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                biased;
                r = &mut rx => {
                    guard.armed = false;
                    return r.unwrap_or_else(|_| Err(McpError::connection_closed("connection closed before the response arrived")));
                }
                _ = cancel.cancelled() => {
                    guard.cancel("cancelled by the requester");
                    return Err(McpError::cancelled(None));
                }
                _ = progressed => {
                    if let Some(t) = timeout {
                        let next = Instant::now() + t;
                        deadline = Some(match hard_deadline { Some(h) => next.min(h), None => next });
                    }
                }
                _ = sleep => {
                    let elapsed = start.elapsed();
                    guard.cancel("request timed out");
                    return Err(McpError::timeout(format!("{method} timed out after {} ms", elapsed.as_millis()))
                        .with_data(json!({ "timeout_ms": elapsed.as_millis() as u64 })));
                }
            }
        }
    }

    /// Closes the session (the transport notices and shuts down).
    pub fn close(&self) {
        self.session.close();
    }
}

/// Rank of an RFC 5424 level name as MCP uses them (debug = 0 ... emergency = 7).
pub fn log_level_rank(level: &str) -> Option<u8> {
    Some(match level {
        "debug" => 0,
        "info" => 1,
        "notice" => 2,
        "warning" => 3,
        "error" => 4,
        "critical" => 5,
        "alert" => 6,
        "emergency" => 7,
        _ => return None,
    })
}
