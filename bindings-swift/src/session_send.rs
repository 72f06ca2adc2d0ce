//! What a Swift server says to its sessions from outside any handler, and what it hears from
//! them outside any request: the swift-sdk's `server.listRoots()`, `server.requestElicitation`
//! and `server.notify(...)` called from app code, its `onNotification(...)` for the client's
//! notifications, and the `initializeHook` of `start(transport:initializeHook:)`.
//!
//! Sending: [`NativeServer::notify_sessions`] and [`NativeServer::request_session`] move JSON
//! across to the engine's `EmbeddedServer::notify_sessions` / `request_session`, which pick the
//! session (named by its `Mcp-Session-Id`, or the server's only live one) and word a refusal,
//! the same for every binding.
//!
//! Hearing: [`NativeServer::add_session_observer`] puts one Rust layer in the server's
//! middleware chain. It hands every request on untouched (no Swift call) except `initialize`,
//! which it first shows to the Swift [`SessionObserver`] when asked to (an error refuses the
//! handshake with that JSON-RPC error), and it shows the client's notifications to the observer
//! before handing them on.

use crate::error::{json_text, parse_opt_json, FfiError};
use crate::runtime::{enter, run};
use crate::server::NativeServer;
use ferromcp::jsonrpc::Notification;
use ferromcp::server::middleware::{
    BoxFuture, Middleware, MiddlewareRequest, MiddlewareResponse, Next, NotificationNext,
};
use ferromcp::session::Peer;
use ferromcp::McpError;
use serde_json::{json, Value};
use std::sync::Arc;

/// Sees a server's handshakes and the client's notifications (see the module documentation).
#[uniffi::export(foreign)]
#[async_trait::async_trait]
pub trait SessionObserver: Send + Sync {
    /// An `initialize` request (`{"params": ..., "sessionId": ...}` as JSON text), before the
    /// engine answers it; an error refuses the handshake with that JSON-RPC error.
    async fn initialize(&self, request: String) -> Result<(), FfiError>;

    /// A notification from the client (`{"method", "params", "sessionId"}` as JSON text), on
    /// the engine's task: post it on and return.
    fn notification(&self, notification: String);
}

/// The layer behind [`NativeServer::add_session_observer`].
struct ObserverLayer {
    observer: Arc<dyn SessionObserver>,
    initialize: bool,
}

impl Middleware for ObserverLayer {
    fn handle<'a>(
        &'a self,
        request: MiddlewareRequest,
        next: Next<'a>,
    ) -> BoxFuture<'a, Result<MiddlewareResponse, McpError>> {
        if !self.initialize || request.method() != "initialize" {
            return next.run(request);
        }
        let text = json_text(&json!({
            "params": request.params().cloned().unwrap_or(Value::Null),
            "sessionId": request.session_id(),
        }));
        Box::pin(async move {
            self.observer
                .initialize(text)
                .await
                .map_err(McpError::from)?;
            next.run(request).await
        })
    }

    fn notification(&self, notification: Notification, peer: &Peer, next: NotificationNext<'_>) {
        self.observer.notification(json_text(&json!({
            "method": notification.method,
            "params": notification.params.clone().unwrap_or(Value::Null),
            "sessionId": peer.session().session_id(),
        })));
        next.run(notification, peer)
    }
}

#[uniffi::export]
impl NativeServer {
    /// Sends the notification `method` (`params`: JSON text of an object, or none) to the live
    /// session whose `Mcp-Session-Id` is `session_id`, or without one to every live session;
    /// answers how many it reached (0: none was live).
    pub async fn notify_sessions(
        &self,
        method: String,
        params: Option<String>,
        session_id: Option<String>,
    ) -> Result<u32, FfiError> {
        let params = parse_opt_json("notification params", params)?;
        let inner = self.inner.clone();
        let sent = run(async move {
            Ok(inner
                .notify_sessions(&method, params, session_id.as_deref())
                .await)
        })
        .await?;
        Ok(u32::try_from(sent).unwrap_or(u32::MAX))
    }

    /// Sends the request `method` (`params`: JSON text, or none) to the live session whose
    /// `Mcp-Session-Id` is `session_id`, or without one to this server's only live session, and
    /// answers the client's result as JSON text (or its error). Refused (invalid request) when
    /// no such session is live, or when `session_id` is not given and there are several.
    pub async fn request_session(
        &self,
        method: String,
        params: Option<String>,
        session_id: Option<String>,
    ) -> Result<String, FfiError> {
        let params = parse_opt_json("request params", params)?;
        let inner = self.inner.clone();
        let result = run(async move {
            inner
                .request_session(&method, params, session_id.as_deref())
                .await
        })
        .await?;
        Ok(json_text(&result))
    }

    /// Adds the observer layer (see the module documentation) after the layers already there;
    /// `initialize`: whether `initialize` requests are shown to it. Refused once the server
    /// handled its first request, as every layer is.
    pub fn add_session_observer(
        &self,
        observer: Arc<dyn SessionObserver>,
        initialize: bool,
    ) -> Result<(), FfiError> {
        let layer = ObserverLayer {
            observer,
            initialize,
        };
        Ok(enter(|| self.inner.server().add_middleware(layer))?)
    }
}
