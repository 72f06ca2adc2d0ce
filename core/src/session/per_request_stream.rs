//! The per-request era on a message stream (stdio, WebSocket, in-memory): a connection that
//! never sent `initialize` and whose requests carry per-request `_meta` (or probe with
//! `server/discover`) has each request served on a child session opened for it alone, as
//! Streamable HTTP does per POST. The children share the connection's outbound queue, so their
//! notifications and answers go out on the same stream; `notifications/cancelled` reaches the
//! child serving the request it names, and closing the connection closes every child (which
//! ends their `subscriptions/listen` streams).

use super::core::{IdHash, Incoming, Role, Session, STATE_NEW};
use super::{per_request, RequestMeta};
use crate::jsonrpc::{Message, Request, RequestId};
use crate::McpError;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

/// The child sessions of a connection, by the id of the request each serves.
pub(crate) type Children = Mutex<HashMap<RequestId, Weak<Session>, IdHash>>;

impl Session {
    /// Whether request `req` opens a per-request-era child of this connection: a server
    /// connection that never started a handshake, a message-stream transport, and a request
    /// that is `server/discover` or names its version in `_meta`.
    pub(crate) fn opens_per_request(&self, req: &Request) -> bool {
        self.role == Role::Server
            && self.state() == STATE_NEW
            && self.outbound.is_queue()
            && req.method != "initialize"
            && (req.method == "server/discover"
                || per_request::meta_version(req.params.as_ref()).is_some())
    }

    /// Serves `req` on a child session opened from its `_meta` (see the module docs).
    pub(crate) fn serve_in_child(self: &Arc<Self>, req: Request) -> Incoming {
        let id = req.id.clone();
        let fail = |e: McpError| Incoming::Reply(Message::error(Some(id.clone()), e));
        let meta = req.params.as_ref().and_then(|p| p.get("_meta"));
        let meta = match RequestMeta::read(meta, &self.config.supported_versions) {
            Ok(m) => m,
            Err(e) => return fail(e),
        };
        let Some(caps) = self.service.capabilities(meta.version) else {
            return fail(McpError::method_not_found(&req.method));
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
            if children.contains_key(&id) {
                return fail(McpError::invalid_request(format!(
                    "duplicate request id {id}: a request with this id is in flight"
                )));
            }
            if children.len() >= self.config.max_in_flight {
                return fail(McpError::internal(format!(
                    "server busy: {} requests already in flight",
                    self.config.max_in_flight
                )));
            }
            children.insert(id.clone(), Arc::downgrade(&child));
        }
        child.begin_per_request(meta, caps);
        let parent = self.clone();
        let done = move |child: &Arc<Session>| {
            parent.children.lock().unwrap().remove(&id);
            child.close();
        };
        match child.handle_incoming(Message::Request(req)) {
            Incoming::Pending(fut) => Incoming::Pending(Box::pin(async move {
                let answer = fut.await;
                done(&child);
                answer
            })),
            other => {
                done(&child);
                other
            }
        }
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
