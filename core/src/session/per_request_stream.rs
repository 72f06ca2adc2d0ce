//! The per-request era on a message stream (stdio, WebSocket, in-memory): a connection that
//! never sent `initialize` and whose requests carry per-request `_meta` (or probe with
//! `server/discover`) has each request served on a child session opened for it alone, as
//! Streamable HTTP does per POST. The children share the connection's outbound queue, so their
//! notifications and answers go out on the same stream; `notifications/cancelled` reaches the
//! child serving the request it names, and closing the connection closes every child (which
//! ends their `subscriptions/listen` streams). A `tools/call` read on the typed lane is served
//! on its child the same way ([`Session::start_tool_call_in_child`]).

use super::core::{Incoming, LaneAnswer, Role, Session, STATE_NEW};
use super::{per_request, RequestMeta};
use super::{ToolCallParams, ToolLane};
use crate::jsonrpc::{Message, Request, RequestId};
use crate::McpError;
use futures_util::future::BoxFuture;
use serde_json::Value;
use std::sync::{Arc, Weak};

impl Session {
    /// Whether a request for `method` whose params carry `meta` (their `_meta` member) opens
    /// a per-request-era child of this connection: a server connection that never started a
    /// handshake, a message-stream transport, and a request that is `server/discover` or names
    /// its version in `_meta`.
    pub(crate) fn opens_per_request(&self, method: &str, meta: Option<&Value>) -> bool {
        self.role == Role::Server
            && self.state() == STATE_NEW
            && self.outbound.is_queue()
            && method != "initialize"
            && (method == "server/discover"
                || meta
                    .and_then(|m| m.get(per_request::META_PROTOCOL_VERSION))
                    .and_then(Value::as_str)
                    .is_some())
    }

    /// Opens the child serving request `id` (of `method`) from its `_meta` (`meta`),
    /// registered among this connection's children and ready for that one request.
    fn open_child(
        self: &Arc<Self>,
        id: &RequestId,
        method: &str,
        meta: Result<RequestMeta, McpError>,
    ) -> Result<Arc<Session>, McpError> {
        let meta = meta?;
        let Some(caps) = self.service.capabilities(meta.version) else {
            return Err(McpError::method_not_found(method));
        };
        let child = Session::with_shared_config(
            self.role,
            self.service.clone(),
            self.config.clone(),
            self.outbound.clone(),
            None,
        );
        {
            // The connection's limit on requests in flight holds for its children too.
            let mut children = self.children.lock().unwrap();
            if children.contains_key(id) {
                return Err(McpError::invalid_request(format!(
                    "duplicate request id {id}: a request with this id is in flight"
                )));
            }
            if children.len() >= self.config.max_in_flight {
                return Err(McpError::internal(format!(
                    "server busy: {} requests already in flight",
                    self.config.max_in_flight
                )));
            }
            children.insert(id.clone(), Arc::downgrade(&child));
        }
        child.begin_per_request(meta, caps);
        Ok(child)
    }

    /// The child serving request `id` is done: it leaves the connection and closes.
    fn child_done(&self, id: &RequestId, child: &Arc<Session>) {
        self.children.lock().unwrap().remove(id);
        child.close();
    }

    /// Serves `req` on a child session opened from its `_meta` (see the module docs).
    pub(crate) fn serve_in_child(self: &Arc<Self>, req: Request) -> Incoming {
        let id = req.id.clone();
        let meta = req.params.as_ref().and_then(|p| p.get("_meta"));
        let meta = RequestMeta::read(meta, &self.config.supported_versions);
        let child = match self.open_child(&id, &req.method, meta) {
            Ok(child) => child,
            Err(e) => return Incoming::Reply(Message::error(Some(id), e)),
        };
        let parent = self.clone();
        match child.handle_incoming(Message::Request(req)) {
            Incoming::Pending(fut) => Incoming::Pending(Box::pin(async move {
                let answer = fut.await;
                parent.child_done(&id, &child);
                answer
            })),
            other => {
                parent.child_done(&id, &child);
                other
            }
        }
    }

    /// [`Session::start_tool_call`] for a per-request-era call on a child opened for it (the
    /// typed lane, as Streamable HTTP serves the same call on the session of its POST).
    pub(crate) fn start_tool_call_in_child<S: ToolLane, T: Send + 'static>(
        self: &Arc<Self>,
        server: &S,
        id: RequestId,
        params: ToolCallParams<'_>,
        into: impl FnOnce(Option<LaneAnswer>) -> T + Send + 'static,
    ) -> Result<BoxFuture<'static, T>, T> {
        let meta =
            RequestMeta::read_shared(params.meta.as_deref(), &self.config.supported_versions);
        let child = match self.open_child(&id, "tools/call", meta) {
            Ok(child) => child,
            Err(e) => return Err(into(Some(LaneAnswer::Msg(Message::error(Some(id), e))))),
        };
        let (parent, done) = (self.clone(), (id.clone(), child.clone()));
        // The child leaves once the answer is made, inside the call's own future.
        // (Straight to the per-request lane: going through `start_tool_call` again would make
        // its instantiation recursive.)
        child.start_per_request_tool_call(server, id, params, move |answer| {
            parent.child_done(&done.0, &done.1);
            into(answer)
        })
    }

    /// Hands `notifications/cancelled` for request `id` to the child serving it; false when no
    /// child does.
    pub(crate) fn cancel_child(
        &self,
        id: &RequestId,
        notification: crate::jsonrpc::Notification,
    ) -> bool {
        let child = self
            .children
            .lock()
            .unwrap()
            .get(id)
            .and_then(Weak::upgrade);
        match child {
            Some(child) => {
                let _ = child.handle_incoming(Message::Notification(notification));
                true
            }
            None => false,
        }
    }

    /// Ends the subscriptions of this connection's children gracefully (the server winds the
    /// connection down: its peer stopped sending, or the server is shutting down): each
    /// `subscriptions/listen` is answered with its completion result (2026-07-28, "Graceful
    /// Closure"), so the client can tell the end from a dropped connection. Requests already
    /// being served are not touched (they finish within the drain time).
    pub(crate) fn end_child_listens(&self) {
        let children: Vec<_> = self
            .children
            .lock()
            .unwrap()
            .values()
            .filter_map(Weak::upgrade)
            .collect();
        for child in children {
            child.end_listening();
        }
    }

    /// Closes every child (the connection closed).
    pub(crate) fn close_children(&self) {
        let children: Vec<_> = self.children.lock().unwrap().drain().collect();
        for (_, child) in children {
            if let Some(child) = child.upgrade() {
                child.close();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::test_lane::EchoServer;
    use crate::session::{Outbound, SessionConfig};
    use serde_json::json;
    use std::borrow::Cow;

    fn server() -> EchoServer {
        EchoServer
    }

    fn call(version: &str) -> ToolCallParams<'static> {
        ToolCallParams {
            name: Cow::Borrowed("echo"),
            arguments: Some(json!({})),
            task: None,
            meta: Some(Arc::new(crate::session::SharedMeta::new(json!({
                per_request::META_PROTOCOL_VERSION: version,
                per_request::META_CLIENT_CAPABILITIES: {},
            })))),
            input_responses: None,
            request_state: None,
        }
    }

    fn fresh_stream(server: &EchoServer) -> Arc<Session> {
        let (outbound, _rx) = Outbound::channel(8);
        Session::new(
            Role::Server,
            Arc::new(server.clone()),
            SessionConfig::default(),
            outbound,
            None,
        )
    }

    #[tokio::test]
    async fn a_per_request_call_on_a_fresh_stream_takes_the_typed_lane_on_a_child() {
        let server = server();
        let s = fresh_stream(&server);
        let id = RequestId::Number(1);
        let Ok(fut) = s.start_tool_call(&server, id.clone(), call("2026-07-28"), |a| a) else {
            panic!("the call was refused");
        };
        assert_eq!(s.children.lock().unwrap().len(), 1, "served on a child");
        match fut.await {
            // The tool's result, to be written straight to text with the server's identity.
            Some(LaneAnswer::Tool(got, result, Some(_))) => {
                assert_eq!(got, id);
                assert_eq!(result.content.len(), 1);
            }
            _ => panic!("expected the tool's result on the per-request lane"),
        }
        assert!(s.children.lock().unwrap().is_empty(), "the child left");
        // The connection itself stays open to either era.
        assert_eq!(s.state(), STATE_NEW);
    }

    #[tokio::test]
    async fn a_per_request_call_naming_an_unserved_revision_is_refused_at_once() {
        let server = server();
        let s = fresh_stream(&server);
        let refused = s.start_tool_call(&server, RequestId::Number(2), call("2025-11-25"), |a| a);
        match refused {
            Err(Some(LaneAnswer::Msg(Message::Error(e)))) => {
                assert_eq!(e.id, Some(RequestId::Number(2)));
                assert_eq!(
                    e.error.code,
                    crate::error::codes::UNSUPPORTED_PROTOCOL_VERSION
                );
            }
            _ => panic!("expected UnsupportedProtocolVersionError"),
        }
        assert!(s.children.lock().unwrap().is_empty());
    }
}
