//! Era bridging: a request of one protocol era served by a backend connection of the same or
//! the other era.
//!
//! | client of the proxy | backend connection | what the proxy does |
//! | --- | --- | --- |
//! | handshake | handshake | forwards the request; the backend's requests go to the client |
//! | 2026-07-28 | 2026-07-28 | passes the request through with the client's own `_meta` envelope (version, capabilities, info, log level); an `input_required` answer goes back to the client as it came (its input requests and their keys), the backend's `requestState` sealed inside the proxy's own; the retry's `inputResponses` go back to the backend with its state |
//! | 2026-07-28 | handshake only | forwards without the envelope; a request the backend sends during the call becomes an input request of an `input_required` answer (the engine's `ctx.request` in that era), and the retry runs the call again, which gets the answer this time |
//! | handshake | 2026-07-28 only | forwards with the client's capabilities in the envelope; the backend's `input_required` rounds are answered by sending each input request to the client, then retried; a 2025-11-25 task's call declares the tasks extension too ([`bridged_task_meta`]), and the proxy follows the backend's task so that its states are the proxy task's |

use ferromcp::client::Client;
use ferromcp::protocol::TASKS_EXTENSION;
use ferromcp::session::{input_required, per_request, RequestContext};
use ferromcp::McpError;
use serde_json::{json, Map, Value};

/// The per-request era's `_meta` keys of a request's envelope.
const ENVELOPE: [&str; 4] = [
    per_request::META_PROTOCOL_VERSION,
    per_request::META_CLIENT_CAPABILITIES,
    per_request::META_CLIENT_INFO,
    per_request::META_LOG_LEVEL,
];

/// Whether the client's request is of the per-request era (2026-07-28).
pub(crate) fn is_per_request(ctx: &RequestContext) -> bool {
    ctx.protocol_version().is_some_and(|v| v.is_per_request())
}

/// How a request travels to its backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Route {
    /// On a handshake connection: the per-request envelope stays behind (it describes the
    /// client's exchange with the proxy; a backend that knows that era refuses it there).
    Handshake,
    /// A per-request client on a per-request connection: the envelope and the input rounds pass
    /// through unchanged.
    PassThrough,
    /// A handshake client on a per-request connection: the connection's envelope, with the real
    /// client's capabilities, and its input rounds answered by asking the client.
    Bridged,
}

/// The `_meta` the backend gets for the client's request `ctx` on `route`: the client's own,
/// but its progress token (the proxy's replaces it).
pub(crate) fn outgoing_meta(ctx: &RequestContext, route: Route) -> Map<String, Value> {
    let mut meta = ctx.meta().cloned().unwrap_or_default();
    meta.remove("progressToken");
    match route {
        Route::Handshake => ENVELOPE.iter().for_each(|k| {
            meta.remove(*k);
        }),
        Route::PassThrough => {
            // Task-augmented calls are not forwarded: the backend must answer in the call.
            let caps = meta.get_mut(per_request::META_CLIENT_CAPABILITIES);
            if let Some(ext) = caps
                .and_then(|c| c.get_mut("extensions"))
                .and_then(Value::as_object_mut)
            {
                ext.remove(TASKS_EXTENSION);
                if ext.is_empty() {
                    if let Some(Value::Object(c)) =
                        meta.get_mut(per_request::META_CLIENT_CAPABILITIES)
                    {
                        c.remove("extensions");
                    }
                }
            }
        }
        Route::Bridged => {
            ENVELOPE.iter().for_each(|k| {
                meta.remove(*k);
            });
            // The backend asks only for what the real client can answer.
            if let Some(n) = ctx.session().negotiated() {
                meta.insert(
                    per_request::META_CLIENT_CAPABILITIES.into(),
                    (*n.peer_capabilities).clone(),
                );
            }
        }
    }
    meta
}

/// The `_meta` of a `tools/call` the proxy sends itself on the per-request connection `client`
/// for a handshake client's 2025-11-25 task ([`crate::backend`]'s `tasks.rs`), through the
/// connection's peer, which adds no envelope: [`Route::Bridged`]'s (the client's own `_meta` but
/// its progress token, the real client's capabilities) with the tasks extension declared, so
/// that the backend may answer with a task the proxy follows, and the era's version and the
/// proxy's client info written in.
pub(crate) fn bridged_task_meta(ctx: &RequestContext, client: &Client) -> Map<String, Value> {
    let mut meta = outgoing_meta(ctx, Route::Bridged);
    let caps = meta
        .entry(per_request::META_CLIENT_CAPABILITIES)
        .or_insert_with(|| json!({}));
    if !caps.is_object() {
        *caps = json!({});
    }
    if let Value::Object(caps) = caps {
        let ext = caps.entry("extensions").or_insert_with(|| json!({}));
        if !ext.is_object() {
            *ext = json!({});
        }
        if let Value::Object(ext) = ext {
            ext.insert(TASKS_EXTENSION.into(), json!({}));
        }
    }
    meta.insert(
        per_request::META_PROTOCOL_VERSION.into(),
        json!(client.protocol_version().as_str()),
    );
    meta.insert(
        per_request::META_CLIENT_INFO.into(),
        json!({ "name": "ferromcp-proxy", "version": env!("CARGO_PKG_VERSION") }),
    );
    meta
}

/// What the proxy keeps in its own sealed `requestState` between rounds of a passed-through
/// request: the backend's `requestState` and the keys of the input requests it asked.
fn proxy_state(backend_state: Option<&Value>, keys: Vec<String>) -> Value {
    json!({ "backend": backend_state.cloned().unwrap_or(Value::Null), "keys": keys })
}

/// On a retry of a passed-through request: the client's answers (to the keys the backend asked
/// for last round) as `inputResponses`, and the backend's own `requestState`, added to
/// `params`. A first round adds nothing.
pub(crate) fn add_retry_input(ctx: &RequestContext, params: &mut Map<String, Value>) {
    let Some(state) = ctx.request_state() else {
        return;
    };
    let mut responses = Map::new();
    for key in state
        .get("keys")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if let Some(answer) = ctx.input_response(key) {
            responses.insert(key.to_string(), answer.clone());
        }
    }
    if !responses.is_empty() {
        params.insert("inputResponses".into(), Value::Object(responses));
    }
    if let Some(s) = state.get("backend").filter(|s| !s.is_null()) {
        params.insert("requestState".into(), s.clone());
    }
}

/// A passed-through request's result: an `input_required` one becomes the handler's
/// [`input_required`] answer (the same input requests under the same keys, the backend's state
/// kept in the proxy's); a complete one is returned.
pub(crate) fn take_result(result: Value) -> Result<Value, McpError> {
    if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
        return Ok(result);
    }
    let requests = match result.get("inputRequests") {
        Some(Value::Object(m)) if !m.is_empty() => m.clone(),
        _ => {
            return Err(McpError::internal(
                "the backend answered input_required without inputRequests",
            ))
        }
    };
    let keys = requests.keys().cloned().collect();
    let state = proxy_state(result.get("requestState"), keys);
    Err(input_required(requests, Some(state)))
}
