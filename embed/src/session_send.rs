//! Messages a server sends to its sessions from outside any handler: the official SDKs'
//! `server.notification(...)`, `server.elicitInput(...)`, `server.requestElicitation(...)` or
//! `server.listRoots()` called from app code (a timer, an app route, work a handler left
//! running). Inside a handler these go to that handler's client through its context; outside
//! one there is no request to follow, so the session is named by its `Mcp-Session-Id`, or is
//! the server's only live session. Written once here so every binding picks the session and
//! words a refusal the same way.

use super::EmbeddedServer;
use ferromcp::session::{RequestOptions, Session};
use ferromcp::{codes, McpError};
use serde_json::Value;
use std::sync::Arc;

impl EmbeddedServer {
    /// The live sessions named by `session_id` (all of them without one).
    fn sessions_named(&self, session_id: Option<&str>) -> Vec<Arc<Session>> {
        let live = self.server().live_sessions();
        match session_id {
            Some(id) => live
                .into_iter()
                .filter(|s| s.session_id() == Some(id))
                .collect(),
            None => live,
        }
    }

    /// Sends the notification `method` (with `params`) to the live session whose
    /// `Mcp-Session-Id` is `session_id`, or without one to every live session; answers how many
    /// sessions it reached (0: none was live, or each had closed).
    pub async fn notify_sessions(
        &self,
        method: &str,
        params: Option<Value>,
        session_id: Option<&str>,
    ) -> usize {
        let mut sent = 0;
        for s in self.sessions_named(session_id) {
            if s.peer().notify(method, params.clone()).await.is_ok() {
                sent += 1;
            }
        }
        sent
    }

    /// Sends the request `method` (with `params`) to the live session whose `Mcp-Session-Id`
    /// is `session_id`, or without one to the server's only live session, and answers the
    /// client's result (or its error). Refused (invalid request, with a message saying why)
    /// when no such session is live, or when `session_id` is not given and several are: a
    /// server made per session (as the SDKs' examples make them) has exactly one.
    pub async fn request_session(
        &self,
        method: &str,
        params: Option<Value>,
        session_id: Option<&str>,
    ) -> Result<Value, McpError> {
        let mut sessions = self.sessions_named(session_id);
        let refuse = |message: String| Err(McpError::new(codes::INVALID_REQUEST, message));
        let session = match (sessions.len(), session_id) {
            (1, _) => sessions.remove(0),
            (0, Some(id)) => {
                return refuse(format!("{method}: no live session {id} on this server"))
            }
            (0, None) => {
                return refuse(format!(
                    "{method}: this server has no live session to send to"
                ))
            }
            (n, _) => {
                return refuse(format!(
                    "{method} outside a handler: this server has {n} live sessions; call it \
                     from a handler (the request goes to that handler's client)"
                ))
            }
        };
        session
            .peer()
            .request(method, params, RequestOptions::default())
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ClientConfig, EmbeddedClient, ForeignClientHandler, ForeignContext};
    use futures_util::future::BoxFuture;
    use serde_json::json;
    use std::sync::Mutex;

    /// A client answering `roots/list` with one root and keeping the notifications it gets.
    #[derive(Default)]
    struct RootsClient(Mutex<Vec<String>>);

    impl ForeignClientHandler for RootsClient {
        fn request(
            &self,
            method: String,
            _params: Value,
            _ctx: ForeignContext,
        ) -> BoxFuture<'static, Result<Value, McpError>> {
            Box::pin(async move {
                assert_eq!(method, "roots/list");
                Ok(json!({"roots": [{"uri": "file:///work", "name": "work"}]}))
            })
        }
        fn notification(&self, method: String, _params: Value) {
            self.0.lock().unwrap().push(method);
        }
    }

    /// Waits until `n` sessions finished their handshake (the client's `initialized`
    /// notification may still be on its way when `connect_memory` returns).
    async fn until_live(server: &EmbeddedServer, n: usize) {
        for _ in 0..400 {
            if server.server().live_sessions().len() == n {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        panic!("{n} sessions never became live");
    }

    fn roots_config() -> ClientConfig {
        ClientConfig::from_json(json!({"roots": true})).unwrap()
    }

    #[tokio::test]
    async fn outside_a_handler_the_only_session_is_asked_and_two_sessions_are_refused() {
        let server = EmbeddedServer::from_json(json!({"name": "s"})).unwrap();
        let handler = Arc::new(RootsClient::default());
        let first = EmbeddedClient::connect_memory(&server, &roots_config(), Some(handler.clone()))
            .await
            .unwrap();
        until_live(&server, 1).await;
        let roots = server
            .request_session("roots/list", None, None)
            .await
            .unwrap();
        assert_eq!(roots["roots"][0]["uri"], "file:///work");
        let sent = server
            .notify_sessions("notifications/tools/list_changed", None, None)
            .await;
        assert_eq!(sent, 1);
        for _ in 0..200 {
            if !handler.0.lock().unwrap().is_empty() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        assert_eq!(
            *handler.0.lock().unwrap(),
            vec!["notifications/tools/list_changed".to_string()]
        );

        let second = EmbeddedClient::connect_memory(&server, &roots_config(), Some(handler))
            .await
            .unwrap();
        until_live(&server, 2).await;
        let e = server
            .request_session("roots/list", None, None)
            .await
            .unwrap_err();
        assert_eq!(e.code, codes::INVALID_REQUEST);
        assert!(e.message.contains("2 live sessions"), "{}", e.message);
        first.close().await;
        second.close().await;
    }

    #[tokio::test]
    async fn without_a_live_session_a_request_is_refused_and_a_notification_reaches_none() {
        let server = EmbeddedServer::from_json(json!({"name": "s"})).unwrap();
        let e = server
            .request_session("roots/list", None, None)
            .await
            .unwrap_err();
        assert_eq!(e.code, codes::INVALID_REQUEST);
        assert!(e.message.contains("no live session"), "{}", e.message);
        let e = server
            .request_session("roots/list", None, Some("abc"))
            .await
            .unwrap_err();
        assert!(e.message.contains("no live session abc"), "{}", e.message);
        assert_eq!(
            server
                .notify_sessions("notifications/message", None, None)
                .await,
            0
        );
    }
}
