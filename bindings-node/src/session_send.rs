//! Messages a server sends to its sessions from outside any handler: the TypeScript SDK's
//! `server.notification(...)`, `server.elicitInput(...)` or an elicitation's completion
//! notifier called from app code (a timer, an HTTP route of the app). The SDK sends those on
//! its transport's standalone stream; here they go through the session's peer, which the
//! Streamable HTTP transport routes to the session's `GET` stream (and stdio to stdout).
//!
//! A server made per session (the SDK's examples create one `McpServer` per
//! `StreamableHTTPServerTransport`) has one live session, which is the one meant; a server
//! with several names the session by its `Mcp-Session-Id`.

use crate::error::{napi_result, to_napi};
use crate::server::NativeServer;
use ferromcp::session::{RequestOptions, Session};
use ferromcp::{codes, McpError};
use napi_derive::napi;
use serde_json::Value;
use std::sync::Arc;

impl NativeServer {
    /// The live sessions of this server named by `session_id` (all of them without one).
    fn sessions_named(&self, session_id: Option<&str>) -> Vec<Arc<Session>> {
        let live = self.embedded().server().live_sessions();
        match session_id {
            Some(id) => live
                .into_iter()
                .filter(|s| s.session_id() == Some(id))
                .collect(),
            None => live,
        }
    }
}

#[napi]
impl NativeServer {
    /// Sends the notification `method` (with `params`) to the live session whose
    /// `Mcp-Session-Id` is `session_id`, or without one to every live session of this server;
    /// resolves with the number of sessions it was sent to (0: none was live).
    #[napi]
    pub async fn notify_sessions(
        &self,
        method: String,
        params: Option<Value>,
        session_id: Option<String>,
    ) -> napi::Result<u32> {
        let mut sent = 0;
        for s in self.sessions_named(session_id.as_deref()) {
            if s.peer().notify(&method, params.clone()).await.is_ok() {
                sent += 1;
            }
        }
        Ok(sent)
    }

    /// Sends the request `method` (with `params`) to the live session whose `Mcp-Session-Id` is
    /// `session_id`, or without one to this server's only live session, and resolves with the
    /// client's result (or rejects with its error). Refused when no such session is live, or
    /// when `session_id` is not given and the server has several.
    #[napi]
    pub async fn request_session(
        &self,
        method: String,
        params: Option<Value>,
        session_id: Option<String>,
    ) -> napi::Result<Value> {
        let mut sessions = self.sessions_named(session_id.as_deref());
        let refuse = |message: String| Err(to_napi(McpError::new(codes::INVALID_REQUEST, message)));
        let session = match (sessions.len(), &session_id) {
            (1, _) => sessions.remove(0),
            (0, Some(id)) => return refuse(format!("{method}: no live session {id} on this server")),
            (0, None) => return refuse(format!("{method}: this server has no live session to send to")),
            (n, _) => {
                return refuse(format!(
                    "{method} outside a handler: this server has {n} live sessions; call it from a handler (the request goes to that handler's client)"
                ))
            }
        };
        napi_result(
            session
                .peer()
                .request(&method, params, RequestOptions::default())
                .await,
        )
    }
}
