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
}
