//! Raw JSON-RPC: the requests the driver sends and the checks it makes on every response.

use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::io::Write as _;

pub const PROTOCOL_VERSION: &str = "2025-06-18";
/// The per-request era's revision: no `initialize`, no session; every request carries the
/// client's `_meta` and the `Mcp-Method` / `Mcp-Name` headers.
pub const PER_REQUEST_VERSION: &str = "2026-07-28";

pub fn initialize(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":"{PROTOCOL_VERSION}","capabilities":{{}},"clientInfo":{{"name":"mcp-bench","version":"0"}}}}}}"#
    )
}

pub const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// Appends a tools/call echo request whose payload is derived from its id (`bench-<id>`), so any
/// response can be checked without remembering what was sent.
pub fn push_call(out: &mut Vec<u8>, id: u64) {
    // Writing into a Vec cannot fail; no intermediate String.
    let _ = write!(
        out,
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"bench-{id}"}}}}}}"#
    );
}

/// [`push_call`] for the per-request era (2026-07-28): the same call with the `_meta` every
/// such request carries (version, client capabilities, client info).
pub fn push_call_per_request(out: &mut Vec<u8>, id: u64) {
    let _ = write!(
        out,
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"bench-{id}"}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"{PER_REQUEST_VERSION}","io.modelcontextprotocol/clientCapabilities":{{}},"io.modelcontextprotocol/clientInfo":{{"name":"mcp-bench","version":"0"}}}}}}}}"#
    );
}

#[derive(Deserialize)]
struct Resp<'a> {
    #[serde(default)]
    id: Option<u64>,
    #[serde(default, borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    result: Option<CallResult<'a>>,
    #[serde(default, borrow)]
    error: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct CallResult<'a> {
    #[serde(default, borrow)]
    content: Vec<Content<'a>>,
    #[serde(default, rename = "isError")]
    is_error: Option<bool>,
}

#[derive(Deserialize)]
struct Content<'a> {
    #[serde(default, borrow)]
    text: Option<Cow<'a, str>>,
}

/// What one incoming line/body was.
pub enum Checked {
    /// A valid echo response for this id.
    Echo(u64),
    /// A notification or server request: not a response, skip it.
    Other,
}

/// Checks one tools/call echo response: an id, no error, text content `bench-<id>`.
pub fn check_call(bytes: &[u8]) -> Result<Checked, String> {
    let r: Resp = serde_json::from_slice(bytes).map_err(|e| {
        format!(
            "bad JSON ({e}): {}",
            String::from_utf8_lossy(&bytes[..bytes.len().min(300)])
        )
    })?;
    if r.method.is_some() {
        return Ok(Checked::Other);
    }
    let id = r.id.ok_or_else(|| {
        format!(
            "response without a numeric id: {}",
            String::from_utf8_lossy(bytes)
        )
    })?;
    if let Some(e) = r.error {
        return Err(format!("error response for id {id}: {}", e.get()));
    }
    let result = r.result.ok_or_else(|| format!("no result for id {id}"))?;
    if result.is_error == Some(true) {
        return Err(format!(
            "tool error for id {id}: {}",
            String::from_utf8_lossy(bytes)
        ));
    }
    let text = result
        .content
        .first()
        .and_then(|c| c.text.as_deref())
        .unwrap_or("");
    let ok = text
        .strip_prefix("bench-")
        .and_then(|n| n.parse::<u64>().ok())
        == Some(id);
    if !ok {
        return Err(format!("id {id}: echoed text {text:?} is not bench-{id}"));
    }
    Ok(Checked::Echo(id))
}

/// Checks an initialize response for `id`.
pub fn check_initialize(bytes: &[u8], id: u64) -> Result<(), String> {
    let v: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| format!("bad initialize JSON: {e}"))?;
    if v.get("id").and_then(|i| i.as_u64()) != Some(id)
        || v.get("result")
            .and_then(|r| r.get("protocolVersion"))
            .is_none()
    {
        return Err(format!("bad initialize response: {v}"));
    }
    Ok(())
}

/// Tracks which ids came back, to catch lost or duplicated responses.
pub struct Seen {
    base: u64,
    bits: Vec<bool>,
    pub count: u64,
}

impl Seen {
    pub fn new(base: u64, cap: u64) -> Self {
        Seen {
            base,
            bits: vec![false; cap as usize],
            count: 0,
        }
    }
    pub fn mark(&mut self, id: u64) -> Result<(), String> {
        let i = id
            .checked_sub(self.base)
            .filter(|i| (*i as usize) < self.bits.len())
            .ok_or_else(|| format!("unexpected id {id}"))?;
        if std::mem::replace(&mut self.bits[i as usize], true) {
            return Err(format!("duplicate response for id {id}"));
        }
        self.count += 1;
        Ok(())
    }
}
