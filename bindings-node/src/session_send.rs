//! Messages a server sends to its sessions from outside any handler: the TypeScript SDK's
//! `server.notification(...)`, `server.elicitInput(...)` or an elicitation's completion
//! notifier called from app code (a timer, an HTTP route of the app). The SDK sends those on
//! its transport's standalone stream; here they go through the session's peer, which the
//! Streamable HTTP transport routes to the session's `GET` stream (and stdio to stdout).
//!
//! A server made per session (the SDK's examples create one `McpServer` per
//! `StreamableHTTPServerTransport`) has one live session, which is the one meant; a server
//! with several names the session by its `Mcp-Session-Id`. The choice and its refusals are the
//! engine's (`embed::EmbeddedServer::notify_sessions` / `request_session`), shared with Swift.

use crate::error::{napi_result, to_napi};
use crate::server::NativeServer;
use napi_derive::napi;
use serde_json::Value;

#[napi]
impl NativeServer {
    /// Sends the notification `method` (with `params`) to the live session whose
    /// `Mcp-Session-Id` is `session_id`, or without one to every live session of this server;
    /// resolves with the number of sessions it was sent to (0: none was live). The engine's
    /// `EmbeddedServer::notify_sessions`.
    #[napi]
    pub async fn notify_sessions(
        &self,
        method: String,
        params: Option<Value>,
        session_id: Option<String>,
    ) -> napi::Result<u32> {
        let sent = self
            .embedded()
            .notify_sessions(&method, params, session_id.as_deref())
            .await;
        u32::try_from(sent).map_err(|e| to_napi(ferromcp::McpError::internal(e.to_string())))
    }

    /// Sends the request `method` (with `params`) to the live session whose `Mcp-Session-Id` is
    /// `session_id`, or without one to this server's only live session, and resolves with the
    /// client's result (or rejects with its error). Refused when no such session is live, or
    /// when `session_id` is not given and the server has several (the engine's
    /// `EmbeddedServer::request_session`).
    #[napi]
    pub async fn request_session(
        &self,
        method: String,
        params: Option<Value>,
        session_id: Option<String>,
    ) -> napi::Result<Value> {
        napi_result(
            self.embedded()
                .request_session(&method, params, session_id.as_deref())
                .await,
        )
    }
}
