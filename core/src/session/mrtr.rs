//! Multi round-trip requests (2026-07-28): a handler that needs something from the client
//! (elicitation, sampling, roots) answers with an `input_required` result instead of sending
//! a request, and the client retries with `inputResponses` and the sealed `requestState`.
//!
//! Two ways for a handler, both era-aware through the [`super::RequestContext`]:
//! - explicit: return [`input_required`] (named input requests, optional own state), and read
//!   the answers on the retry with [`super::RequestContext::input_response`] and
//!   [`super::RequestContext::request_state`];
//! - unchanged handler code: `ctx.request("elicitation/create", ..)` records an input request
//!   under a generated key; the request answers `input_required`, and on the retry the handler
//!   runs again and the same call returns the client's answer (answers of earlier rounds travel
//!   in `requestState`).

use super::per_request::missing_capability;
use super::request_state::{KeyRing, UseCheck};
use crate::error::codes;
use crate::jsonrpc::Request;
use crate::McpError;
use serde_json::{json, Map, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Engine-local code of the error a handler returns to ask for input ([`input_required`]);
/// never sent: the session turns it into an `input_required` result.
pub const INPUT_REQUIRED: i32 = -32012;

/// Prefix of the keys of input requests recorded by `ctx.request` (unchanged handler code).
const AUTO_PREFIX: &str = "ferromcp.";

/// What a handler returns to ask the client for input: `requests` maps keys of the handler's
/// choosing to `{ "method": ..., "params": ... }` (`elicitation/create`,
/// `sampling/createMessage`, `roots/list`); `state` comes back, sealed, on the retry
/// ([`super::RequestContext::request_state`]). Only in the per-request era.
pub fn input_required(requests: Map<String, Value>, state: Option<Value>) -> McpError {
    McpError::new(INPUT_REQUIRED, "input required")
        .with_data(json!({ "inputRequests": requests, "state": state }))
}

/// Whether requests of `method` may answer `input_required` (the others never do; their
/// handlers' `ctx.request` fails as it would have without a client to ask).
pub(crate) fn allows_input(method: &str) -> bool {
    matches!(method, "tools/call" | "prompts/get" | "resources/read")
}

/// The answer of a request whose method cannot ask for input: a handler's [`input_required`]
/// becomes an internal error.
pub(crate) fn no_input(outcome: Result<Value, McpError>) -> Result<Value, McpError> {
    match outcome {
        Err(e) if e.code == INPUT_REQUIRED => Err(McpError::internal(
            "only tools/call, prompts/get and resources/read may answer input_required",
        )),
        other => other,
    }
}

/// Whether a request with these `inputResponses` and `requestState` members carries input from
/// an earlier round (either is present and not `null`): a retry.
pub(crate) fn carries_input(
    input_responses: Option<&Value>,
    request_state: Option<&Value>,
) -> bool {
    let present = |v: Option<&Value>| v.is_some_and(|v| !v.is_null());
    present(input_responses) || present(request_state)
}

/// One round of a per-request-era request: what the client answered, and what the handler
/// asks for this time.
#[derive(Debug)]
pub(crate) struct InputRound {
    /// What the sealed state is bound to (method and name).
    binding: String,
    /// `inputResponses` of this request.
    responses: Map<String, Value>,
    /// Answers to generated keys of earlier rounds (from `requestState`).
    carried: Map<String, Value>,
    /// The handler's own state (from `requestState`).
    state: Option<Value>,
    /// Generated keys handed out so far in this round.
    next_auto: AtomicUsize,
    /// Input requests recorded by `ctx.request` this round.
    pending: Mutex<Map<String, Value>>,
    /// Whether the request carries `inputResponses` or `requestState` (a retry, whose result
    /// the spec forbids caching).
    retried: bool,
    /// The shared single-use check of `requestState`, for the request to await before its
    /// handler runs (replicas with a shared replay store; see [`KeyRing::open`]).
    use_check: Mutex<Option<UseCheck>>,
}

impl InputRound {
    /// Reads `inputResponses` and opens `requestState` of `req` (`-32602` when either is
    /// malformed or the state fails its check).
    pub(crate) fn read(req: &Request, keys: &KeyRing) -> Result<InputRound, McpError> {
        let params = req.params.as_ref();
        let name = params
            .and_then(|p| p.get("name").or_else(|| p.get("uri")))
            .and_then(Value::as_str)
            .unwrap_or("");
        Self::read_parts(
            &req.method,
            name,
            params.and_then(|p| p.get("inputResponses")),
            params.and_then(|p| p.get("requestState")),
            keys,
        )
    }

    /// [`Self::read`] from the parts of a request read apart: its `method`, the `name` (or
    /// URI) the state is bound to, and its `inputResponses` and `requestState` members.
    pub(crate) fn read_parts(
        method: &str,
        name: &str,
        input_responses: Option<&Value>,
        request_state: Option<&Value>,
        keys: &KeyRing,
    ) -> Result<InputRound, McpError> {
        let retried = carries_input(input_responses, request_state);
        let mut round = Self::first(method, name);
        round.retried = retried;
        let responses = match input_responses {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) if m.values().all(Value::is_object) => m.clone(),
            Some(_) => {
                return Err(McpError::invalid_params(
                    "inputResponses must be an object of result objects",
                ))
            }
        };
        let (mut carried, mut state, mut use_check) = (Map::new(), None, None);
        match request_state {
            None | Some(Value::Null) => {}
            Some(Value::String(token)) => {
                let (opened, check) = keys.open(&round.binding, token)?;
                use_check = check;
                if let Some(Value::Object(m)) = opened.get("auto") {
                    carried = m.clone();
                }
                state = opened.get("user").cloned().filter(|v| !v.is_null());
            }
            Some(_) => return Err(McpError::invalid_params("requestState must be a string")),
        }
        round.responses = responses;
        round.carried = carried;
        round.state = state;
        round.use_check = Mutex::new(use_check);
        Ok(round)
    }

    /// The first round of `method` on `name` (the binding of its state): no answers, no
    /// state, nothing pending; what [`Self::read_parts`] makes of a request that carries no
    /// input ([`carries_input`]).
    pub(crate) fn first(method: &str, name: &str) -> InputRound {
        // Built by hand: `format!` costs several times more.
        let mut binding = String::with_capacity(method.len() + 1 + name.len());
        binding.push_str(method);
        binding.push(' ');
        binding.push_str(name);
        InputRound {
            binding,
            responses: Map::new(),
            carried: Map::new(),
            state: None,
            next_auto: AtomicUsize::new(0),
            retried: false,
            pending: Mutex::new(Map::new()),
            use_check: Mutex::new(None),
        }
    }

    /// The shared single-use check of this round's `requestState` (taken once): the request
    /// awaits it before its handler runs, and answers its error instead when it fails.
    pub(crate) fn take_use_check(&self) -> Option<UseCheck> {
        self.use_check.lock().unwrap().take()
    }

    /// Whether the handler recorded input requests this round (`ctx.request` / `ctx.input`
    /// found no answer): the request then answers `input_required`.
    pub(crate) fn has_pending(&self) -> bool {
        !self.pending.lock().unwrap().is_empty()
    }

    /// Whether this request retries an earlier round (it carries `inputResponses` or
    /// `requestState`).
    pub(crate) fn is_retry(&self) -> bool {
        self.retried
    }

    /// The client's answer to input request `key` in this request.
    pub(crate) fn response(&self, key: &str) -> Option<&Value> {
        self.responses.get(key)
    }

    /// The handler's state from `requestState`.
    pub(crate) fn state(&self) -> Option<&Value> {
        self.state.as_ref()
    }

    /// `ctx.request(method, params)` in the per-request era: the answer when the client gave
    /// it (this round or an earlier one), else the request is recorded and the call fails (the
    /// request then answers `input_required`, whatever the handler does with the failure).
    pub(crate) fn request(
        &self,
        peer_caps: &Value,
        method: &str,
        params: Option<Value>,
    ) -> Result<Value, McpError> {
        let key = format!(
            "{AUTO_PREFIX}{}",
            self.next_auto.fetch_add(1, Ordering::Relaxed)
        );
        if let Some(v) = self.responses.get(&key).or_else(|| self.carried.get(&key)) {
            return Ok(v.clone());
        }
        check_capability(peer_caps, method)?;
        let mut request = json!({ "method": method });
        if let Some(p) = params {
            request["params"] = p;
        }
        self.pending.lock().unwrap().insert(key, request);
        Err(McpError::new(
            INPUT_REQUIRED,
            format!("{method}: waiting for the client's answer (input required)"),
        ))
    }

    /// `ctx.input(requests)` in the per-request era: the answers when the client gave them all
    /// (this round or an earlier one), else the missing ones are recorded and the call fails
    /// (the request then answers `input_required`).
    pub(crate) fn input(
        &self,
        peer_caps: &Value,
        requests: Map<String, Value>,
    ) -> Result<Map<String, Value>, McpError> {
        let mut answers = Map::new();
        let mut missing = Map::new();
        for (key, request) in requests {
            match self.responses.get(&key).or_else(|| self.carried.get(&key)) {
                Some(v) => {
                    answers.insert(key, v.clone());
                }
                None => {
                    let method = request.get("method").and_then(Value::as_str).unwrap_or("");
                    check_capability(peer_caps, method)?;
                    missing.insert(key, request);
                }
            }
        }
        if missing.is_empty() {
            return Ok(answers);
        }
        self.pending.lock().unwrap().extend(missing);
        Err(McpError::new(
            INPUT_REQUIRED,
            "waiting for the client's answers (input required)",
        ))
    }

    /// The final answer of the request: an `input_required` result when the handler asked for
    /// input (recorded by `ctx.request` or returned as [`input_required`]), else `outcome`.
    pub(crate) fn finish(
        &self,
        peer_caps: &Value,
        keys: &KeyRing,
        outcome: Result<Value, McpError>,
    ) -> Result<Value, McpError> {
        let pending = std::mem::take(&mut *self.pending.lock().unwrap());
        let (requests, user_state) = match outcome {
            _ if !pending.is_empty() => (pending, None),
            Err(e) if e.code == INPUT_REQUIRED => {
                let mut data = e.data.unwrap_or(Value::Null);
                let requests = match data.get_mut("inputRequests").map(Value::take) {
                    Some(Value::Object(m)) if !m.is_empty() => m,
                    _ => {
                        return Err(McpError::internal(
                            "input_required needs at least one input request",
                        ))
                    }
                };
                for r in requests.values() {
                    let method = r.get("method").and_then(Value::as_str).unwrap_or("");
                    check_capability(peer_caps, method)?;
                }
                (requests, data.get_mut("state").map(Value::take))
            }
            other => return other,
        };
        // Every answer so far goes forward, so that the handler's earlier `ctx.request` and
        // `ctx.input` calls return them again on the next round.
        let mut auto = self.carried.clone();
        for (k, v) in &self.responses {
            auto.insert(k.clone(), v.clone());
        }
        let state = json!({ "auto": auto, "user": user_state });
        Ok(json!({
            "resultType": "input_required",
            "inputRequests": requests,
            "requestState": keys.seal(&self.binding, state),
        }))
    }
}

/// The client capability an input request needs: `-32021` when the client did not declare it,
/// `-32602` for a method that is not an input request.
pub(crate) fn check_capability(peer_caps: &Value, method: &str) -> Result<(), McpError> {
    let cap = match method {
        "elicitation/create" => "elicitation",
        "sampling/createMessage" => "sampling",
        "roots/list" => "roots",
        _ => {
            return Err(McpError::new(
                codes::INVALID_PARAMS,
                format!("{method} cannot be an input request"),
            ))
        }
    };
    if crate::protocol::has_capability(peer_caps, &[cap]) {
        Ok(())
    } else {
        Err(missing_capability(&[cap]))
    }
}
