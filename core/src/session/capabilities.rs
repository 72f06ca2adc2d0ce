//! Capability and lifecycle rules for what this side may send.
//!
//! Nobody sends what was not negotiated: a server does not ask for sampling from a client that
//! did not offer it (its handler gets `-32021`, missing client capability, in every revision), a client does not call tools on a server without tools, and before the
//! handshake completes only `initialize`/`ping` (and server logging) go out. In the per-request
//! era a server sends its client no request at all.

use super::core::{Role, Session, STATE_INITIALIZING, STATE_READY};
use crate::McpError;
use serde_json::Value;

/// Checks whether this session may send request `method` now; `Err` says why not.
pub fn check_outgoing_request(
    session: &Session,
    method: &str,
    params: Option<&Value>,
) -> Result<(), McpError> {
    if method == "ping" {
        return Ok(());
    }
    let state = session.state();
    match session.role() {
        Role::Client => {
            if method == "initialize" || method == "server/discover" {
                return Ok(());
            }
            if state < STATE_INITIALIZING {
                return Err(McpError::invalid_request(format!(
                    "cannot send {method} before initialization completes"
                )));
            }
        }
        Role::Server => {
            if state < STATE_READY {
                return Err(McpError::invalid_request(format!(
                    "cannot send {method} before the client's initialized notification"
                )));
            }
        }
    }
    let Some(n) = session.negotiated() else {
        return Err(McpError::invalid_request("session not initialized"));
    };
    let version = n.version;
    if version.is_per_request() && session.role() == Role::Server {
        return per_request_outgoing(n, method);
    }
    let need = |path: &[&str], what: &str| -> Result<(), McpError> {
        if n.peer_has(path) {
            Ok(())
        } else if session.role() == Role::Server {
            // A server's handler asking its client for something the client did not offer: the
            // code 2026-07-28 gives this (-32021), in every revision, so a handler written once
            // catches one error. Left uncaught in a tool of the handshake era, the engine makes
            // it a tool execution error (`ferromcp_embed::is_tool_signal`); it never reaches that client
            // as a JSON-RPC error.
            Err(missing_client_capability(path, method))
        } else {
            Err(
                McpError::method_not_found(method).with_data(serde_json::json!({
                    "method": method,
                    "reason": format!("the peer did not advertise the {what} capability"),
                })),
            )
        }
    };
    let feature_since = |ok: bool, rev: &str| -> Result<(), McpError> {
        if ok {
            Ok(())
        } else {
            Err(McpError::method_not_found(method).with_data(serde_json::json!({
                "method": method,
                "reason": format!("{method} needs protocol revision {rev} or later; negotiated {version}"),
            })))
        }
    };
    match (session.role(), method) {
        (Role::Server, "sampling/createMessage") => {
            need(&["sampling"], "sampling")?;
            let uses_tools =
                params.is_some_and(|p| p.get("tools").is_some() || p.get("toolChoice").is_some());
            if uses_tools {
                feature_since(version.has_tasks(), "2025-11-25")?;
                need(&["sampling", "tools"], "sampling.tools")?;
            }
            Ok(())
        }
        (Role::Server, "roots/list") => need(&["roots"], "roots"),
        (Role::Server, "elicitation/create") => {
            feature_since(version.has_elicitation(), "2025-06-18")?;
            need(&["elicitation"], "elicitation")?;
            let url_mode =
                params.and_then(|p| p.get("mode")).and_then(Value::as_str) == Some("url");
            if url_mode {
                feature_since(version.has_tasks(), "2025-11-25")?;
                need(&["elicitation", "url"], "elicitation.url")
            } else {
                // An empty `elicitation: {}` means form mode (backwards compatible).
                let e = n.peer_capabilities.get("elicitation");
                let form_ok = e.is_some_and(|e| e.get("form").is_some() || e.get("url").is_none());
                if form_ok {
                    Ok(())
                } else {
                    need(&["elicitation", "form"], "elicitation.form")
                }
            }
        }
        // The per-request era's tasks are the tasks extension (2026-07-28), which the server
        // advertises under `capabilities.extensions`.
        (Role::Client, m) if m.starts_with("tasks/") && version.is_per_request() => need(
            &["extensions", crate::protocol::TASKS_EXTENSION],
            "extensions.io.modelcontextprotocol/tasks",
        ),
        (_, m) if m.starts_with("tasks/") => {
            feature_since(version.has_tasks(), "2025-11-25")?;
            need(&["tasks"], "tasks")
        }
        (Role::Client, m) if m.starts_with("tools/") => need(&["tools"], "tools"),
        (Role::Client, "resources/subscribe" | "resources/unsubscribe") => {
            need(&["resources", "subscribe"], "resources.subscribe")
        }
        (Role::Client, m) if m.starts_with("resources/") => need(&["resources"], "resources"),
        (Role::Client, m) if m.starts_with("prompts/") => need(&["prompts"], "prompts"),
        // 2024-11-05 has completion/complete but no `completions` capability.
        (Role::Client, "completion/complete") if version.has_audio() => {
            need(&["completions"], "completions")
        }
        (Role::Client, "logging/setLevel") => need(&["logging"], "logging"),
        _ => Ok(()),
    }
}

/// `-32021` for a server request (`method`) needing client capability `path` in the handshake
/// era: the 2026-07-28 error (`data.requiredCapabilities`), with `data.method` and a message
/// saying what was not sent.
fn missing_client_capability(path: &[&str], method: &str) -> McpError {
    let mut e = super::per_request::missing_capability(path);
    e.message = format!(
        "the client did not declare the {} capability, so {method} cannot be sent",
        path.join(".")
    );
    if let Some(Value::Object(data)) = e.data.as_mut() {
        data.insert("method".into(), Value::String(method.into()));
    }
    e
}

/// What a server may send its client in the per-request era: no request at all. A request
/// needing a capability the client did not declare in its `_meta` is
/// `MissingRequiredClientCapabilityError` (`-32021`); one it declared can only be asked through
/// the request context (`ctx.request`), which turns it into an `input_required` result.
fn per_request_outgoing(n: &super::Negotiated, method: &str) -> Result<(), McpError> {
    let path: &[&str] = match method {
        "sampling/createMessage" => &["sampling"],
        "elicitation/create" => &["elicitation"],
        "roots/list" => &["roots"],
        _ => &[],
    };
    if !path.is_empty() && !n.peer_has(path) {
        return Err(super::per_request::missing_capability(path));
    }
    Err(McpError::internal(format!(
        "{method}: a server sends no requests to the client in protocol revision {}; ask \
         through the request context (ctx.request), which answers input_required",
        n.version
    ))
    .with_data(serde_json::json!({ "method": method })))
}
