//! Swift middleware: the foreign trait a Swift layer implements ([`MiddlewareHandler`]), the
//! rest of the chain it hands a request to ([`NativeNext`]), the timing hook
//! ([`TimingHook`]), and the [`NativeServer`] calls that add them and the built-ins by name.
//!
//! Why a file of its own: the engine's seam (`embed::ForeignMiddleware`) gives a layer the
//! request as JSON and a `ForeignNext` it owns; this file only moves those across UniFFI. The
//! request crosses as JSON text (`method`, `params`, `id`, `tool`, `sessionId`, `sessionKey`,
//! `principal`, `protocolVersion`, `httpHeaders`; see `embed::middleware::request_json`), and
//! so do the result and the changed request. The facade (`Middleware.swift`) decodes them.
//!
//! A layer is a UniFFI foreign async trait: the engine awaits the Swift task's answer, and
//! dropping that await (the request cancelled) cancels the task. The client's notifications
//! are shown to a layer ([`MiddlewareHandler::notification`], JSON text, synchronous) and
//! always handed on, as in the other bindings.

use crate::context::NativeContext;
use crate::error::{json_text, parse_answer, parse_json, FfiError};
use crate::runtime::enter;
use crate::server::NativeServer;
use ferromcp::McpError;
use ferromcp_embed::{ForeignContext, ForeignMiddleware, ForeignNext};
use futures_util::future::BoxFuture;
use serde_json::Value;
use std::sync::Arc;

/// A middleware layer written in Swift: gets each request the server handles as JSON text,
/// the rest of the chain and the request's context; answers the result object as JSON text
/// (its own, or what [`NativeNext::run`] gave, changed or not), or an [`FfiError`] that the
/// client gets as that JSON-RPC error. It is also shown the client's notifications.
#[uniffi::export(foreign)]
#[async_trait::async_trait]
pub trait MiddlewareHandler: Send + Sync {
    /// Handles one request.
    async fn handle(
        &self,
        request: String,
        next: Arc<NativeNext>,
        context: Arc<NativeContext>,
    ) -> Result<String, FfiError>;

    /// Sees one notification from the client as JSON text (`method`, `params`, `sessionId`,
    /// `sessionKey`; `embed::ForeignMiddleware::notification`), to observe only: the engine
    /// hands it on whatever this does. Called synchronously on the engine's task, in the order
    /// the client sent them: queue it and return.
    fn notification(&self, notification: String);
}

/// The rest of the chain after a Swift layer, for one request.
#[derive(uniffi::Object)]
pub struct NativeNext {
    inner: ForeignNext,
}

#[uniffi::export]
impl NativeNext {
    /// Hands the request on (`request`: the request object as JSON text, its `method` and
    /// `params` taken; `None`: as it came) and returns the rest of the chain's result as JSON
    /// text, or its JSON-RPC error. At most once per request: a second call fails with an
    /// internal error saying so.
    pub async fn run(&self, request: Option<String>) -> Result<String, FfiError> {
        let changed = match request {
            None => None,
            Some(text) => Some(parse_json("the middleware's request", &text).map_err(|e| {
                // The layer's fault, not the client's.
                FfiError::from(McpError::internal(e.message))
            })?),
        };
        let result = self.inner.run(changed).await?;
        Ok(json_text(&result))
    }
}

/// Receives each request's timing event as JSON text (`method`, `tool`, `durationMs`,
/// `outcome`, `code`), on the engine's task that served it: post it on and return.
#[uniffi::export(foreign)]
pub trait TimingHook: Send + Sync {
    /// One finished request.
    fn event(&self, event: String);
}

/// The engine's view of a Swift layer.
struct SwiftMiddleware(Arc<dyn MiddlewareHandler>);

impl ForeignMiddleware for SwiftMiddleware {
    fn handle(
        &self,
        request: Value,
        next: ForeignNext,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<Value, McpError>> {
        let h = self.0.clone();
        Box::pin(async move {
            let next = Arc::new(NativeNext { inner: next });
            let text = h
                .handle(json_text(&request), next, NativeContext::new(ctx))
                .await
                .map_err(McpError::from)?;
            parse_answer(&text)
        })
    }

    fn notification(&self, notification: Value) {
        self.0.notification(json_text(&notification));
    }
}

#[uniffi::export]
impl NativeServer {
    /// Adds a Swift layer after those already there (the first added is outermost). Refused
    /// once the server handled its first request.
    pub fn add_middleware(&self, handler: Arc<dyn MiddlewareHandler>) -> Result<(), FfiError> {
        Ok(enter(|| {
            self.inner
                .add_middleware(Arc::new(SwiftMiddleware(handler)))
        })?)
    }

    /// Adds a built-in layer by name and options, one JSON object (`{"name": "rateLimit",
    /// "limit": 10, "windowMs": 1000}`, `{"name": "requestLog"}`, `{"name": "maskErrors"}`);
    /// unknown names and options are refused.
    pub fn add_middleware_config(&self, config: String) -> Result<(), FfiError> {
        let config = parse_json("middleware config", &config)?;
        Ok(enter(|| self.inner.add_middleware_config(config))?)
    }

    /// Adds the built-in timing layer, calling `hook` with each request's event.
    pub fn add_timing_hook(&self, hook: Arc<dyn TimingHook>) -> Result<(), FfiError> {
        Ok(enter(|| {
            self.inner
                .add_timing_hook(Arc::new(move |event: Value| hook.event(json_text(&event))))
        })?)
    }
}
