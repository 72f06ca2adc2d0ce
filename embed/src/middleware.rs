//! Middleware for the bindings: a foreign callback as a layer of the server's chain
//! ([`ForeignMiddleware`]), the built-in layers by name ([`MiddlewareConfig`] in
//! [`super::ServerConfig::middleware`] or [`EmbeddedServer::add_middleware_config`]) and the
//! timing hook with its event as JSON ([`EmbeddedServer::add_timing_hook`]).
//!
//! Why a seam of its own: a Rust [`Middleware`] gets a [`Next`] borrowed from the chain, which
//! foreign code (an asyncio coroutine, a JavaScript promise, a Swift task) cannot hold. Here
//! the layer hands the foreign callback the request as JSON and a [`ForeignNext`] it owns: the
//! callback may call it once, with the request changed or not, and await the rest of the
//! chain's result as JSON; the layer's own future runs that rest (it keeps the borrowed
//! `Next`) while it waits for the callback's answer. So a foreign layer answers, refuses, or
//! changes the request and the result exactly as a Rust layer does.
//!
//! What the callback gets (see [`request_json`]): `method`, `params`, `id`, `tool` (for
//! `tools/call`), `sessionId` (`Mcp-Session-Id`, or null), `sessionKey` (the rate limiter's
//! session key), `principal` (as [`ForeignContext::auth`]), `protocolVersion` and
//! `httpHeaders` (as [`ForeignContext::http_headers`]). The client's notifications are shown to
//! a foreign layer to observe ([`ForeignMiddleware::notification`]) and always handed on (a Rust
//! layer, which runs synchronously with them, may drop them).

use super::{EmbeddedServer, ForeignContext};
use ferromcp::jsonrpc::Notification;
use ferromcp::server::middleware::{
    Middleware, MiddlewareConfig, MiddlewareRequest, MiddlewareResponse, Next, NotificationNext,
    Timing, TimingEvent,
};
use ferromcp::session::Peer;
use ferromcp::McpError;
use futures_util::future::{BoxFuture, Either};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

/// A middleware layer written in a binding's language.
pub trait ForeignMiddleware: Send + Sync + 'static {
    /// Handles one request, given as JSON (see the module documentation): answer it (a result
    /// object), refuse it (an `Err`, sent to the client as that JSON-RPC error), or hand it on
    /// with [`ForeignNext::run`] and answer what comes back, changed or not. `ctx` is the
    /// request's context (cancellation, logging, requests to the client).
    fn handle(
        &self,
        request: Value,
        next: ForeignNext,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<Value, McpError>>;

    /// Sees a notification from the client, as JSON (`method`, `params`, `sessionId`,
    /// `sessionKey`), to observe only: it is handed on whatever this does. Called on the
    /// engine's task, synchronously: post it on and return. The default ignores it.
    fn notification(&self, notification: Value) {
        let _ = notification;
    }
}

/// One hand-over to the rest of the chain: the changed request (or `None`) and where its
/// result goes.
type NextCall = (Option<Value>, oneshot::Sender<Result<Value, McpError>>);

/// The rest of the chain after a foreign layer, for one request. Cheap to clone; the clones
/// share the one hand-over.
#[derive(Clone)]
pub struct ForeignNext {
    call: Arc<Mutex<Option<oneshot::Sender<NextCall>>>>,
}

impl std::fmt::Debug for ForeignNext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ForeignNext").finish_non_exhaustive()
    }
}

impl ForeignNext {
    /// Hands the request on and resolves to the rest of the chain's result. `changed` is the
    /// request object as the layer wants it handed on (`None`: as it came): its `method` (a
    /// string) and `params` (an object or null) replace the request's when present; the other
    /// members (`id`, `sessionId`, ...) describe the request and are not read. At most one
    /// call per request: a second one, or one after the layer answered, fails with an internal
    /// error saying so.
    pub fn run(&self, changed: Option<Value>) -> BoxFuture<'static, Result<Value, McpError>> {
        let Some(call) = self.call.lock().unwrap().take() else {
            return Box::pin(async {
                Err(McpError::internal(
                    "middleware: call_next was already called for this request (at most once)",
                ))
            });
        };
        let (reply, result) = oneshot::channel();
        if call.send((changed, reply)).is_err() {
            return Box::pin(async { Err(answered()) });
        }
        Box::pin(async move { result.await.unwrap_or_else(|_| Err(answered())) })
    }
}

fn answered() -> McpError {
    McpError::internal("middleware: call_next after the request was answered")
}

/// The request as a foreign layer sees it (see the module documentation).
pub fn request_json(request: &MiddlewareRequest, ctx: &ForeignContext) -> Value {
    json!({
        "method": request.method(),
        "params": request.params().cloned().unwrap_or(Value::Null),
        "id": request.id().to_value(),
        "tool": request.tool_name(),
        "sessionId": request.session_id(),
        "sessionKey": request.session_key(),
        "principal": ctx.auth(),
        "protocolVersion": ctx.protocol_version(),
        "httpHeaders": ctx.http_headers(),
    })
}

/// Applies a foreign layer's changed request (see [`ForeignNext::run`]).
fn apply_changes(request: &mut MiddlewareRequest, changed: Value) -> Result<(), McpError> {
    let Value::Object(mut changed) = changed else {
        return Err(McpError::internal(
            "middleware: call_next takes the request object (or nothing), not another value",
        ));
    };
    if let Some(method) = changed.remove("method") {
        match method {
            Value::String(m) if !m.is_empty() => {
                if m != request.method() {
                    request.set_method(m)
                }
            }
            other => {
                return Err(McpError::internal(format!(
                    "middleware: the request's method must be a non-empty string, not {other}"
                )))
            }
        }
    }
    if let Some(params) = changed.remove("params") {
        match params {
            Value::Null => *request.params_mut() = None,
            Value::Object(p) => *request.params_mut() = Some(Value::Object(p)),
            other => {
                return Err(McpError::internal(format!(
                    "middleware: the request's params must be an object or null, not {}",
                    ferromcp::schema::json_type_name(&other)
                )))
            }
        }
    }
    Ok(())
}

/// A [`ForeignMiddleware`] as a layer of the engine's chain.
struct ForeignLayer(Arc<dyn ForeignMiddleware>);

impl Middleware for ForeignLayer {
    fn handle<'a>(
        &'a self,
        mut request: MiddlewareRequest,
        next: Next<'a>,
    ) -> BoxFuture<'a, Result<MiddlewareResponse, McpError>> {
        // The callback sees and answers JSON: the rest of the chain's result is made JSON for it.
        Box::pin(async move {
            let ctx = ForeignContext::new(request.context().clone());
            let (call, calls) = oneshot::channel();
            let foreign_next = ForeignNext {
                call: Arc::new(Mutex::new(Some(call))),
            };
            let answer = self
                .0
                .handle(request_json(&request, &ctx), foreign_next, ctx);
            futures_util::pin_mut!(answer);
            // Until the callback hands the request on, only its answer can come.
            let ((changed, reply), answer) = match futures_util::future::select(answer, calls).await
            {
                Either::Left((result, _)) => return result.map(MiddlewareResponse::json),
                // Every clone of its `next` dropped unused: its answer is all that is left.
                Either::Right((Err(_), answer)) => {
                    return answer.await.map(MiddlewareResponse::json)
                }
                Either::Right((Ok(call), answer)) => (call, answer),
            };
            if let Some(changed) = changed {
                if let Err(e) = apply_changes(&mut request, changed) {
                    let _ = reply.send(Err(e));
                    return answer.await.map(MiddlewareResponse::json);
                }
            }
            let rest = next.run(request);
            futures_util::pin_mut!(rest);
            // The rest of the chain runs while the callback waits for it; the callback may
            // still answer first (a timeout of its own), which drops the rest.
            let result = match futures_util::future::select(answer, rest).await {
                Either::Left((result, _)) => result,
                Either::Right((result, answer)) => {
                    let _ = reply.send(result.map(MiddlewareResponse::into_json));
                    answer.await
                }
            };
            result.map(MiddlewareResponse::json)
        })
    }

    fn notification(&self, notification: Notification, peer: &Peer, next: NotificationNext<'_>) {
        self.0.notification(notification_json(&notification, peer));
        next.run(notification, peer)
    }
}

/// A client notification as a foreign layer sees it (see [`ForeignMiddleware::notification`]).
fn notification_json(notification: &Notification, peer: &Peer) -> Value {
    let session = peer.session();
    let key = match session.session_id() {
        Some(id) => format!("sid-{id}"),
        None => format!("conn-{}", session.serial()),
    };
    json!({
        "method": notification.method,
        "params": notification.params.clone().unwrap_or(Value::Null),
        "sessionId": session.session_id(),
        "sessionKey": key,
    })
}

/// The layers [`super::ServerConfig::middleware`] names, outermost first.
/// Response caches among them are kept in `caches` (for explicit invalidation).
pub(crate) fn configured_layers(
    configs: &[MiddlewareConfig],
    caches: &super::cache::CacheHandles,
) -> Result<Vec<Arc<dyn Middleware>>, McpError> {
    configs
        .iter()
        .enumerate()
        .map(|(i, c)| {
            caches.layer(c).map_err(|e| {
                McpError::invalid_params(format!("server config: middleware[{i}]: {}", e.message))
            })
        })
        .collect()
}

/// The telemetry of a server's `openTelemetry` layer and the path of its Prometheus text
/// endpoint (the layer's `prometheus` option), kept for the HTTP listener: `serve_http` serves
/// the text there and measures its sessions, connections and SSE streams with it, as a Rust
/// server does with `HttpServerOptions::metrics` and `Telemetry::observe_http_server`
/// (docs/observability.md). The last layer added is the one kept.
#[cfg(feature = "otel")]
#[derive(Clone, Debug, Default)]
pub(crate) struct ServedTelemetry(pub(crate) Arc<std::sync::Mutex<Option<KeptTelemetry>>>);

/// A telemetry and the path of its Prometheus text endpoint, if any.
#[cfg(feature = "otel")]
pub(crate) type KeptTelemetry = (ferromcp::telemetry::Telemetry, Option<String>);

#[cfg(feature = "otel")]
impl ServedTelemetry {
    /// The kept telemetry and Prometheus path, if a layer was added.
    pub(crate) fn get(&self) -> Option<KeptTelemetry> {
        self.0.lock().unwrap().clone()
    }
}

/// A telemetry from the `openTelemetry` layer's options
/// ([`ferromcp::telemetry::TelemetryConfig::from_layer_json`]), with the bindings' own
/// `prometheus` option: the path (starting with `/`, e.g. `/metrics`) where the listening server
/// serves the metrics as Prometheus text; it turns the config's `prometheus` on.
#[cfg(feature = "otel")]
fn telemetry_from_json(mut config: Value) -> Result<KeptTelemetry, McpError> {
    use ferromcp::telemetry::{Telemetry, TelemetryConfig};
    let prometheus = match config.as_object_mut().and_then(|o| o.remove("prometheus")) {
        None | Some(Value::Null) => None,
        Some(Value::String(path)) if path.starts_with('/') => Some(path),
        Some(other) => {
            return Err(McpError::invalid_params(format!(
                "openTelemetry: prometheus must be a path starting with '/', got {other}"
            )))
        }
    };
    let mut c = TelemetryConfig::from_layer_json(&config)?;
    if prometheus.is_some() {
        c.prometheus = true;
    }
    let t = Telemetry::new(c).map_err(|e| McpError::invalid_params(e.to_string()))?;
    Ok((t, prometheus))
}

/// A timing event as JSON: `{"method", "tool", "durationMs", "outcome": "ok" | "error" |
/// "cancelled", "code"}` (`tool` and `code` null when they do not apply).
pub fn timing_event_json(event: &TimingEvent<'_>) -> Value {
    let code = match event.outcome {
        ferromcp::server::middleware::Outcome::Error(code) => Some(code),
        _ => None,
    };
    json!({
        "method": event.method,
        "tool": event.tool,
        "durationMs": event.duration.as_secs_f64() * 1000.0,
        "outcome": event.outcome.as_str(),
        "code": code,
    })
}

impl EmbeddedServer {
    /// Adds a foreign layer after the layers already there (the first added is outermost).
    /// Refused once the server handled its first request (the chain is then fixed).
    pub fn add_middleware(&self, layer: Arc<dyn ForeignMiddleware>) -> Result<(), McpError> {
        self.server().add_middleware(ForeignLayer(layer))
    }

    /// Adds a built-in layer by name and options (one [`MiddlewareConfig`] object, e.g.
    /// `{"name": "rateLimit", "limit": 10, "windowMs": 1000}`; unknown names and options are
    /// refused), after the layers already there.
    pub fn add_middleware_config(&self, config: Value) -> Result<(), McpError> {
        // OpenTelemetry (feature `otel`; docs/observability.md), configured by name here as
        // the built-ins are: it lives above the server's middleware module.
        #[cfg(feature = "otel")]
        if config.get("name").and_then(Value::as_str) == Some("openTelemetry") {
            let (telemetry, prometheus) = telemetry_from_json(config)?;
            self.server().add_middleware(telemetry.server_layer())?;
            *self.telemetry.0.lock().unwrap() = Some((telemetry, prometheus));
            return Ok(());
        }
        let config: MiddlewareConfig = serde_json::from_value(config)
            .map_err(|e| McpError::invalid_params(format!("middleware: {e}")))?;
        let layer = self.caches.layer(&config)?;
        self.server().add_middleware(layer)
    }

    /// The metrics of this server's `openTelemetry` layer in the Prometheus text exposition
    /// format (0.0.4), for a host framework's handler (`http_handler`), which owns no listener
    /// to serve the layer's `prometheus` path on: the application serves this text on a route
    /// of its own. `None` without the layer, or when its telemetry keeps no Prometheus metrics
    /// (the layer's `prometheus` option, or `OTEL_METRICS_EXPORTER=prometheus`, turns them on).
    /// The listener's gauges (sessions, connections, SSE streams) are not in it: a listening
    /// server's own path has them.
    pub fn prometheus_text(&self) -> Option<String> {
        #[cfg(feature = "otel")]
        return self.telemetry.get().and_then(|(t, _)| t.prometheus_text());
        #[cfg(not(feature = "otel"))]
        None
    }

    /// Adds the built-in timing layer, calling `hook` with each request's
    /// [`timing_event_json`] (on the task that served it: a hook posts it on and returns).
    pub fn add_timing_hook(
        &self,
        hook: Arc<dyn Fn(Value) + Send + Sync + 'static>,
    ) -> Result<(), McpError> {
        self.server()
            .add_middleware(Timing::new(move |e: &TimingEvent<'_>| {
                hook(timing_event_json(e))
            }))
    }
}
