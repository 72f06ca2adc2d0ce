//! The trait a side implements to answer what its peer sends.

use super::{Peer, RequestContext};
use crate::jsonrpc::{Notification, Request};
use crate::McpError;
use futures_util::future::BoxFuture;
use serde_json::Value;
use std::sync::Arc;

/// Answers incoming requests and notifications for one side of a session.
///
/// The session has already enforced the lifecycle (nothing but `initialize` and `ping` before
/// initialization), version negotiation, duplicate ids and cancellation; the service decides what
/// a method means and whether its feature was advertised (answer
/// [`McpError::method_not_found`] when it was not).
pub trait Service: Send + Sync + 'static {
    /// Answers a request. For `initialize` (server role) the session has already negotiated the
    /// version (see [`RequestContext::protocol_version`]) and fills `protocolVersion` into the
    /// returned result itself.
    fn handle_request(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> BoxFuture<'static, Result<Value, McpError>>;

    /// The capabilities this side offers a peer speaking `version`, for sessions opened
    /// without a handshake (the per-request era on a message stream). `None` (the default):
    /// this side does not serve the per-request era there.
    fn capabilities(&self, version: crate::protocol::ProtocolVersion) -> Option<Arc<Value>> {
        let _ = version;
        None
    }

    /// Handles a notification the session did not consume itself (it consumes
    /// `notifications/cancelled`, `notifications/progress` and `notifications/initialized`).
    fn handle_notification(&self, notification: Notification, peer: &Peer) {
        let _ = (notification, peer);
    }

    /// Called once when the session has finished initialization (server: `initialized` arrived;
    /// client: handshake complete).
    fn on_initialized(&self, peer: &Peer) {
        let _ = peer;
    }

    /// Called once when the session closes.
    fn on_closed(&self, peer: &Peer) {
        let _ = peer;
    }

    /// How the requests sent on this side's sessions are traced (the engine's OpenTelemetry:
    /// a server's layer, a client's telemetry); `None` (the default): not traced.
    #[cfg(feature = "otel")]
    #[doc(hidden)]
    fn peer_request_tracer(&self) -> Option<super::PeerRequestTracer> {
        None
    }
}

/// The typed `tools/call` lane of a server, as the session starts it
/// ([`Session::start_tool_call`](super::Session::start_tool_call)): the params were read straight
/// from the frame ([`ToolCallParams`](super::ToolCallParams)) and the tool's result goes back to
/// the transport to be written as text ([`ToolOutput`](super::ToolOutput)). The server
/// implements it; the session layer knows only this trait, so it never names the server.
///
/// Generic (not `dyn`): the session's lane is made for the one implementation, so a call's
/// future is built in place as before (no box per call for the hook).
pub(crate) trait ToolLane: Clone + Send + Sync + 'static {
    /// `tools/call` of tool `name` (handshake era): what the service's `handle_request` does
    /// with the same request, without the params as a [`Value`] (unless the server's
    /// middleware chain is to see them: the chain's answer is then [`ToolOutput::Json`](super::ToolOutput)).
    /// `extra`: the params' members the call does not take, for such a chain.
    fn run_tool(
        self,
        name: String,
        arguments: Option<Value>,
        task: Option<Value>,
        extra: super::LaneExtra,
        ctx: RequestContext,
    ) -> impl std::future::Future<Output = Result<super::ToolOutput, McpError>> + Send + 'static;

    /// [`Self::run_tool`] on a borrowed handle: for a caller that keeps its handle for the
    /// answer (the per-request lane), so the handle is not cloned once more per call.
    fn run_tool_borrowed<'a>(
        &'a self,
        name: &'a str,
        arguments: Option<Value>,
        task: Option<Value>,
        extra: super::LaneExtra,
        ctx: RequestContext,
    ) -> impl std::future::Future<Output = Result<super::ToolOutput, McpError>> + Send + 'a;

    /// Per-request era: names the server in `result`'s `_meta` (every result SHOULD).
    fn add_server_info(&self, result: &mut Value);

    /// The server's `Implementation` object (`serverInfo`) as JSON text, made once and shared
    /// (the per-request era's results written as text carry it).
    fn server_info_json(&self) -> Arc<str>;
}
