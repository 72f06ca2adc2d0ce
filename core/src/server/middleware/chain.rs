//! The [`Middleware`] trait and the chain that runs the layers in order, then the server's
//! dispatch.

use super::request::Call;
use super::{MiddlewareRequest, MiddlewareResponse};
use crate::jsonrpc::Notification;
use crate::server::Server;
use crate::session::{Peer, RequestContext};
use crate::McpError;
use futures_util::future::BoxFuture;
use serde_json::Value;
use std::sync::Arc;

/// One layer of a server's middleware chain.
///
/// ```
/// use ferromcp::server::middleware::{Middleware, MiddlewareRequest, MiddlewareResponse, Next};
/// use ferromcp::McpError;
/// use futures_util::future::BoxFuture;
///
/// /// Refuses every tool whose name starts with `admin_`.
/// struct NoAdmin;
///
/// impl Middleware for NoAdmin {
///     fn handle<'a>(
///         &'a self,
///         request: MiddlewareRequest,
///         next: Next<'a>,
///     ) -> BoxFuture<'a, Result<MiddlewareResponse, McpError>> {
///         Box::pin(async move {
///             if request.tool_name().is_some_and(|t| t.starts_with("admin_")) {
///                 return Err(McpError::new(-32003, "Permission denied"));
///             }
///             next.run(request).await
///         })
///     }
/// }
/// ```
pub trait Middleware: Send + Sync + 'static {
    /// Handles one request: hand it on with `next.run(request).await` (changed or not) and
    /// return what comes back (changed or not), or answer without calling `next`.
    ///
    /// A layer that does not read the params or the result keeps a `tools/call` on the typed
    /// lane: the params and the tool's result become JSON only when a layer asks for them
    /// ([`MiddlewareRequest::params`], [`MiddlewareResponse::result`]).
    fn handle<'a>(
        &'a self,
        request: MiddlewareRequest,
        next: Next<'a>,
    ) -> BoxFuture<'a, Result<MiddlewareResponse, McpError>>;

    /// Sees one notification from the client (synchronously: notifications have no answer).
    /// The default hands it on; not calling `next.run` drops it.
    fn notification(&self, notification: Notification, peer: &Peer, next: NotificationNext<'_>) {
        next.run(notification, peer)
    }

    /// A layer that can do its work around the typed `tools/call` lane returns how here (the
    /// engine's OpenTelemetry layer; see `server/middleware/lane.rs`): when every installed
    /// layer does, a lane `tools/call` is watched there, its params and result never made
    /// JSON. Others: `None` (every call then runs the chain, where the layer sees params and
    /// result as JSON).
    #[doc(hidden)]
    fn tool_lane_observer(&self) -> Option<&super::ToolLaneObserver> {
        None
    }

    /// A rate limit keyed by the client's address alone returns itself here: the HTTP
    /// listener then answers 429 with `Retry-After` before reading the body of a request whose
    /// address is over the limit ([`RateLimit::refuses_address`](super::RateLimit)). Others: `None`.
    fn address_limit(&self) -> Option<&super::RateLimit> {
        None
    }

    /// The built-in [`ResponseCache`](super::ResponseCache) returns itself here: an HTTP
    /// endpoint whose replicas share a bus then passes explicit invalidations between the
    /// replicas' caches. Others: `None`.
    fn response_cache(&self) -> Option<&super::ResponseCache> {
        None
    }

    /// A layer that measures sessions returns how here (the engine's OpenTelemetry layer): a
    /// session the server serves over a message transport (stdio, WebSocket, in memory; not
    /// HTTP, whose sessions the HTTP server measures) tells it, when it ends, how long it
    /// lived. Others: `None`.
    #[doc(hidden)]
    fn session_end_observer(&self) -> Option<&SessionEndObserver> {
        None
    }

    /// A layer that traces the requests the server sends its clients returns how here (the
    /// engine's OpenTelemetry layer): every request sent on a session of this server (by a
    /// handler, through its context or the session's peer, or from outside any handler) gets
    /// its span. Others: `None`.
    #[cfg(feature = "otel")]
    #[doc(hidden)]
    fn peer_request_tracer(&self) -> Option<&crate::session::PeerRequestTracer> {
        None
    }
}

/// What [`Middleware::session_end_observer`] returns: told, when a session served over a
/// message transport ends, how long it lived, its negotiated revision and its transport.
#[doc(hidden)]
#[derive(Clone)]
pub struct SessionEndObserver(pub(crate) crate::session::SessionEndHook);

impl<M: Middleware + ?Sized> Middleware for Arc<M> {
    fn handle<'a>(
        &'a self,
        request: MiddlewareRequest,
        next: Next<'a>,
    ) -> BoxFuture<'a, Result<MiddlewareResponse, McpError>> {
        (**self).handle(request, next)
    }

    fn notification(&self, notification: Notification, peer: &Peer, next: NotificationNext<'_>) {
        (**self).notification(notification, peer, next)
    }

    fn tool_lane_observer(&self) -> Option<&super::ToolLaneObserver> {
        (**self).tool_lane_observer()
    }

    fn address_limit(&self) -> Option<&super::RateLimit> {
        (**self).address_limit()
    }

    fn response_cache(&self) -> Option<&super::ResponseCache> {
        (**self).response_cache()
    }

    fn session_end_observer(&self) -> Option<&SessionEndObserver> {
        (**self).session_end_observer()
    }

    #[cfg(feature = "otel")]
    fn peer_request_tracer(&self) -> Option<&crate::session::PeerRequestTracer> {
        (**self).peer_request_tracer()
    }
}

/// The rest of the chain after a layer: the layers after it, then the server's dispatch.
///
/// `Copy`, so a layer may run the rest of the chain more than once for one request (the
/// authorization and composition layers read every page of a list through it).
#[derive(Clone, Copy)]
pub struct Next<'a> {
    rest: &'a [Arc<dyn Middleware>],
    server: &'a Server,
}

impl<'a> Next<'a> {
    /// The whole of `server`'s chain: its first layer, then the rest, then the dispatch.
    fn first(server: &'a Server) -> Self {
        Next {
            rest: &server.inner.middleware,
            server,
        }
    }

    /// Hands `request` on to the next layer (or the dispatch, after the last one).
    ///
    /// After the last layer, a `tools/call` still typed (no layer changed it) is called as the
    /// typed lane calls it without middleware, its result kept typed; any other request goes
    /// to the server's dispatch, which answers JSON.
    pub fn run(
        self,
        request: MiddlewareRequest,
    ) -> BoxFuture<'a, Result<MiddlewareResponse, McpError>> {
        match self.rest.split_first() {
            Some((layer, rest)) => layer.handle(
                request,
                Next {
                    rest,
                    server: self.server,
                },
            ),
            None => {
                let server = self.server;
                let MiddlewareRequest { call, ctx } = request;
                match call {
                    Call::Tool(call) => Box::pin(async move {
                        server
                            .call_tool_typed(&call.name, call.arguments, call.task, ctx)
                            .await
                            .map(MiddlewareResponse::from_tool_output)
                    }),
                    Call::Json(request) => Box::pin(async move {
                        server
                            .dispatch(request, ctx)
                            .await
                            .map(MiddlewareResponse::json)
                    }),
                }
            }
        }
    }

    /// The server the chain belongs to.
    pub fn server(&self) -> &'a Server {
        self.server
    }
}

/// The rest of the chain after a layer, for a notification.
pub struct NotificationNext<'a> {
    rest: &'a [Arc<dyn Middleware>],
    server: &'a Server,
}

impl NotificationNext<'_> {
    /// Hands `notification` on to the next layer (or the server, after the last one).
    pub fn run(self, notification: Notification, peer: &Peer) {
        match self.rest.split_first() {
            Some((layer, rest)) => layer.notification(
                notification,
                peer,
                NotificationNext {
                    rest,
                    server: self.server,
                },
            ),
            None => self.server.notification_reached(notification, peer),
        }
    }
}

/// Runs `server`'s chain (at least one layer) on a request; its result as JSON.
pub(crate) async fn run_chain(
    server: &Server,
    request: crate::jsonrpc::Request,
    ctx: RequestContext,
) -> Result<Value, McpError> {
    Next::first(server)
        .run(MiddlewareRequest::new(request, ctx))
        .await
        .map(MiddlewareResponse::into_json)
}

/// Runs `server`'s chain (at least one layer) on a `tools/call` read on the typed lane: the
/// call stays typed through every layer that does not ask for its params or result as JSON.
pub(crate) async fn run_tool_chain(
    server: &Server,
    call: super::request::ToolCall,
    ctx: RequestContext,
) -> Result<crate::session::ToolOutput, McpError> {
    Next::first(server)
        .run(MiddlewareRequest::tool_call(call, ctx))
        .await
        .map(MiddlewareResponse::into_tool_output)
}

/// Runs `server`'s chain on a notification from the client.
pub(crate) fn notify_through(server: &Server, notification: Notification, peer: &Peer) {
    NotificationNext {
        rest: &server.inner.middleware,
        server,
    }
    .run(notification, peer)
}
