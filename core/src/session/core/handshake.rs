//! The server's side of the handshake: an `initialize` request checked (its params, the peer
//! limits, once per session), its revision negotiated among the handshake-era ones this
//! session serves, and the service's answer made the session's [`Negotiated`] state. Its own
//! file because it is one step of a session's life with rules of its own (the per-request-era
//! refusal, the shared copies of the client's info and capabilities), not the routing of
//! every message that `core.rs` keeps.

use super::{
    panic_error, Incoming, Negotiated, Session, STATE_INITIALIZING, STATE_NEGOTIATING, STATE_NEW,
};
use crate::jsonrpc::{Message, Request};
use crate::protocol::ProtocolVersion;
use crate::session::{per_request, RequestContext};
use crate::McpError;
use futures_util::FutureExt;
use serde_json::{json, Value};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::Ordering;
use std::sync::Arc;

impl Session {
    /// Answers `initialize` (see the module comment): refused at once when its params are
    /// wrong, it is not the session's first, or the session serves the per-request era only.
    pub(super) fn handle_initialize(self: &Arc<Self>, req: Request) -> Incoming {
        let id = req.id.clone();
        let fail = |e: McpError| Incoming::Reply(Message::error(Some(id.clone()), e));
        let params = req.params.as_ref();
        // The handshake negotiates handshake-era revisions only.
        let handshake =
            |v: &ProtocolVersion| !v.is_per_request() && self.config.supported_versions.contains(v);
        if !ProtocolVersion::ALL.iter().any(handshake) {
            // Per-request era only: no handshake to negotiate. The spec (2026-07-28,
            // versioning) asks such a server to name the revisions it serves in any error it
            // returns to `initialize`, the one diagnostic a handshake-era client can show.
            let requested = params
                .and_then(|p| p.get("protocolVersion"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            return fail(per_request::unsupported_version(
                requested,
                &self.config.supported_versions,
            ));
        }
        let Some(requested) = params
            .and_then(|p| p.get("protocolVersion"))
            .and_then(Value::as_str)
        else {
            return fail(McpError::invalid_params(
                "initialize: params.protocolVersion (string) is required",
            ));
        };
        let Some(capabilities) = params
            .and_then(|p| p.get("capabilities"))
            .filter(|c| c.is_object())
        else {
            return fail(McpError::invalid_params(
                "initialize: params.capabilities (object) is required",
            ));
        };
        let Some(client_info) = params.and_then(|p| p.get("clientInfo")) else {
            return fail(McpError::invalid_params(
                "initialize: params.clientInfo (object) is required",
            ));
        };
        if let Err(e) =
            crate::protocol::check_implementation(client_info, "initialize: params.clientInfo")
        {
            return fail(e);
        }
        if let Err(e) = self
            .config
            .peer_limits
            .check_handshake(client_info, capabilities)
        {
            return fail(e);
        }
        if self
            .state
            .compare_exchange(
                STATE_NEW,
                STATE_NEGOTIATING,
                Ordering::AcqRel,
                Ordering::Acquire,
            )
            .is_err()
        {
            return fail(McpError::invalid_request(
                "initialize may be sent only once per session",
            ));
        }
        let version = ProtocolVersion::parse(requested)
            .filter(handshake)
            .unwrap_or_else(|| {
                let all = ProtocolVersion::ALL.into_iter();
                all.filter(handshake)
                    .max()
                    .unwrap_or(ProtocolVersion::LATEST)
            });
        // Sessions of the same client software share one copy of each (see shared_values).
        let peer_info = crate::session::shared_values::share(client_info.clone());
        let peer_capabilities = crate::session::shared_values::share(capabilities.clone());
        // Initialize cannot be cancelled, so its token is never registered.
        let ctx = RequestContext::new_initialize(self.clone(), &req, version);
        let fut = self.service.handle_request(req, ctx);
        let session = self.clone();
        Incoming::Pending(Box::pin(async move {
            match AssertUnwindSafe(fut).catch_unwind().await {
                Ok(Ok(mut result)) => {
                    if let Value::Object(map) = &mut result {
                        map.insert(
                            "protocolVersion".into(),
                            Value::String(version.as_str().into()),
                        );
                    }
                    // The capabilities just sent, shared with the service's cached copy when
                    // they are the same (a server's are): a copy per session took two map nodes,
                    // 1.3 KB of an idle HTTP session's 3.4 KB of heap (dhat, 2,000 sessions).
                    let sent = result.get("capabilities");
                    let own_capabilities = match session.service.capabilities(version) {
                        Some(cached) if sent == Some(&*cached) => cached,
                        _ => Arc::new(sent.cloned().unwrap_or_else(|| json!({}))),
                    };
                    session.set_negotiated(Negotiated {
                        version,
                        peer_info,
                        peer_capabilities,
                        own_capabilities,
                        instructions: None,
                    });
                    session.set_state(STATE_INITIALIZING);
                    Some(Message::response(id, result))
                }
                Ok(Err(e)) => {
                    session.set_state(STATE_NEW);
                    Some(Message::error(Some(id), e))
                }
                Err(panic) => {
                    session.set_state(STATE_NEW);
                    Some(Message::error(Some(id), panic_error(panic)))
                }
            }
        }))
    }
}
