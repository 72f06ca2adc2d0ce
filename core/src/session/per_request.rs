//! The per-request era (2026-07-28 and later): no `initialize` handshake and no session.
//!
//! Every request carries its protocol version, the client's capabilities and (optionally) the
//! client's identity and wanted log level in `params._meta`. A transport serves such a request
//! on a session of its own, opened for that request alone (`Session::begin_per_request`),
//! so the handlers users wrote see the same [`super::RequestContext`] as in the handshake era.
//! This module holds the era's rules that do not depend on a transport: reading and validating
//! `_meta`, the methods the era removed, the renumbered errors and the shape of results
//! (`resultType`, caching hints).

use super::SharedMeta;
use crate::error::codes;
use crate::protocol::ProtocolVersion;
use crate::McpError;
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// `_meta` key of the request's protocol version.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the client's capabilities for this request.
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of the client's identity (`Implementation`).
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key of the log level the client wants for this request (none: no logs).
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// `_meta` key of the server's identity in results.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// `_meta` key of the subscription (its `subscriptions/listen` request id) on listen streams.
pub const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// Log threshold of a per-request session whose request asked for no logs: above every level.
pub(crate) const LOG_OFF: u8 = u8::MAX - 1;

/// What a per-request-era request says about its client in `params._meta`.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct RequestMeta {
    /// The protocol revision of this request.
    pub version: ProtocolVersion,
    /// The client's capabilities for this request (an object).
    pub client_capabilities: Arc<Value>,
    /// The client's `Implementation` object, or `{}` when the request did not identify it.
    pub client_info: Arc<Value>,
    /// Rank of the wanted log level ([`super::log_level_rank`]); `None`: send no logs.
    pub log_level: Option<u8>,
}

impl RequestMeta {
    /// Reads and validates a request's `params._meta` (`meta` is that member, if any) against
    /// the revisions this side serves (`supported`, any era, any order).
    ///
    /// A missing `_meta`, protocol version or client capabilities (or one of the wrong type) is
    /// `-32602` (invalid params); a version that is not a per-request revision in `supported` is
    /// `-32022` ([`unsupported_version`]).
    pub fn read(meta: Option<&Value>, supported: &[ProtocolVersion]) -> Result<Self, McpError> {
        Self::read_from(meta, None, supported)
    }

    /// [`Self::read`] of a `_meta` read on the typed lane: the capabilities and identity are
    /// the shared copies [`SharedMeta`] holds, not copied out per request, and a shared
    /// `_meta` is checked once against the same `supported` revisions, not per request.
    pub(crate) fn read_shared(
        meta: Option<&SharedMeta>,
        supported: &[ProtocolVersion],
    ) -> Result<Self, McpError> {
        if let Some(read) = meta.and_then(|m| m.checked(supported)) {
            return Ok(read.clone());
        }
        let read = Self::read_from(meta.map(SharedMeta::value), meta, supported);
        if let (Some(meta), Ok(read)) = (meta, &read) {
            meta.remember_checked(supported, read);
        }
        read
    }

    fn read_from(
        meta: Option<&Value>,
        shared: Option<&SharedMeta>,
        supported: &[ProtocolVersion],
    ) -> Result<Self, McpError> {
        let Some(meta) = meta.and_then(Value::as_object) else {
            if let Some(meta) = meta {
                // The same check (and message) as every request's.
                crate::protocol::check_meta(meta)?;
            }
            return Err(McpError::invalid_params(
                "params._meta is required: it carries the protocol version and client capabilities",
            ));
        };
        let Some(requested) = meta.get(META_PROTOCOL_VERSION) else {
            return Err(missing(META_PROTOCOL_VERSION));
        };
        let Some(requested) = requested.as_str() else {
            return Err(McpError::invalid_params(format!(
                "params._meta[\"{META_PROTOCOL_VERSION}\"] must be a string"
            )));
        };
        let caps = match meta.get(META_CLIENT_CAPABILITIES) {
            None => return Err(missing(META_CLIENT_CAPABILITIES)),
            Some(c @ Value::Object(_)) => shared
                .and_then(SharedMeta::capabilities)
                .cloned()
                .unwrap_or_else(|| Arc::new(c.clone())),
            Some(_) => {
                return Err(McpError::invalid_params(format!(
                    "params._meta[\"{META_CLIENT_CAPABILITIES}\"] must be an object"
                )))
            }
        };
        let version = ProtocolVersion::parse(requested)
            .filter(|v| v.is_per_request() && supported.contains(v))
            .ok_or_else(|| unsupported_version(requested, supported))?;
        let client_info = match meta.get(META_CLIENT_INFO) {
            Some(i) => {
                // (META_CLIENT_INFO, written out: no allocation per request.)
                let at = "params._meta[\"io.modelcontextprotocol/clientInfo\"]";
                crate::protocol::check_implementation(i, at)?;
                shared
                    .and_then(SharedMeta::info)
                    .cloned()
                    .unwrap_or_else(|| Arc::new(i.clone()))
            }
            None => Arc::new(Value::Object(Map::new())),
        };
        let log_level = match meta.get(META_LOG_LEVEL) {
            None | Some(Value::Null) => None,
            Some(l) => Some(l.as_str().and_then(super::log_level_rank).ok_or_else(|| {
                McpError::invalid_params(format!(
                    "params._meta[\"{META_LOG_LEVEL}\"] is not a log level: {l}"
                ))
            })?),
        };
        Ok(RequestMeta {
            version,
            client_capabilities: caps,
            client_info,
            log_level,
        })
    }
}

fn missing(key: &str) -> McpError {
    McpError::invalid_params(format!("params._meta[\"{key}\"] is required"))
        .with_data(json!({ "missing": [key] }))
}

/// The protocol version a request's `params` name in `_meta`, if any: how a transport tells a
/// per-request-era message from a handshake-era one.
pub fn meta_version(params: Option<&Value>) -> Option<&str> {
    params?.get("_meta")?.get(META_PROTOCOL_VERSION)?.as_str()
}

/// `UnsupportedProtocolVersionError` (`-32022`): `data` lists the revisions served here,
/// newest first, and echoes the requested one.
pub fn unsupported_version(requested: &str, supported: &[ProtocolVersion]) -> McpError {
    McpError::new(
        codes::UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
    )
    .with_data(json!({
        "supported": supported_list(supported),
        "requested": requested,
    }))
}

/// The revisions in `supported`, newest first, as wire strings (`supportedVersions`).
pub fn supported_list(supported: &[ProtocolVersion]) -> Vec<&'static str> {
    let mut v: Vec<ProtocolVersion> = supported.to_vec();
    v.sort_unstable_by(|a, b| b.cmp(a));
    v.dedup();
    v.into_iter().map(ProtocolVersion::as_str).collect()
}

/// `HeaderMismatchError` (`-32020`).
pub fn header_mismatch(detail: impl Into<String>) -> McpError {
    McpError::new(
        codes::HEADER_MISMATCH,
        format!("Header mismatch: {}", detail.into()),
    )
}

/// `MissingRequiredClientCapabilityError` (`-32021`) for capability `path` (e.g. `["sampling"]`):
/// `data.requiredCapabilities` is a client capabilities object naming it.
pub fn missing_capability(path: &[&str]) -> McpError {
    let mut required = json!({});
    for key in path.iter().rev() {
        required = json!({ *key: required });
    }
    McpError::new(
        codes::MISSING_CLIENT_CAPABILITY,
        format!(
            "the request needs the client capability {} which it did not declare",
            path.join(".")
        ),
    )
    .with_data(json!({ "requiredCapabilities": required }))
}

/// Whether the per-request era removed `method` (a request for it is answered
/// "method not found", which Streamable HTTP sends with status 404).
pub fn is_removed(method: &str) -> bool {
    matches!(
        method,
        "initialize"
            | "ping"
            | "logging/setLevel"
            | "resources/subscribe"
            | "resources/unsubscribe"
            | "tasks/result"
            | "tasks/list"
    )
}

/// Whether results of `method` are cacheable (`CacheableResult`: `ttlMs` and `cacheScope` are
/// required).
pub fn is_cacheable(method: &str) -> bool {
    matches!(
        method,
        "server/discover"
            | "tools/list"
            | "prompts/list"
            | "resources/list"
            | "resources/templates/list"
            | "resources/read"
    )
}

/// Gives a result of `method` what every per-request-era result carries: `resultType`
/// (`"complete"` unless the handler said otherwise) and, on cacheable results, the caching hints
/// `ttlMs` and `cacheScope` from `hint` unless the handler set them.
pub(crate) fn shape_result(method: &str, result: &mut Value, hint: super::CacheHint) {
    let Value::Object(map) = result else { return };
    shape_map(map, is_cacheable(method).then_some(hint));
}

fn shape_map(map: &mut Map<String, Value>, hint: Option<super::CacheHint>) {
    let kind = map
        .entry("resultType")
        .or_insert_with(|| Value::String("complete".into()));
    // Interim (`input_required`) results are not cacheable and carry no hints.
    if let Some(hint) = hint.filter(|_| kind == "complete") {
        map.entry("ttlMs").or_insert_with(|| json!(hint.ttl_ms));
        map.entry("cacheScope")
            .or_insert_with(|| Value::String(hint.scope.as_str().into()));
    }
}

/// Renumbers an error for the per-request era: resource not found is `-32602` (was `-32002`).
pub(crate) fn shape_error(mut e: McpError) -> McpError {
    if e.code == codes::RESOURCE_NOT_FOUND {
        e.code = codes::INVALID_PARAMS;
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [ProtocolVersion; 2] = [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28];

    #[test]
    fn reads_valid_meta() {
        let m = json!({
            META_PROTOCOL_VERSION: "2026-07-28",
            META_CLIENT_CAPABILITIES: { "sampling": {} },
            META_CLIENT_INFO: { "name": "c", "version": "1" },
            META_LOG_LEVEL: "warning",
        });
        let r = RequestMeta::read(Some(&m), &ALL).unwrap();
        assert_eq!(r.version, ProtocolVersion::V2026_07_28);
        assert_eq!(*r.client_capabilities, json!({ "sampling": {} }));
        assert_eq!(r.client_info["name"], "c");
        assert_eq!(r.log_level, Some(3));
    }

    #[test]
    fn a_shared_meta_gives_its_own_copies_and_reads_as_the_value_does() {
        let text = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}},"io.modelcontextprotocol/clientInfo":{"name":"per-request-shared","version":"2"}}"#;
        let shared = SharedMeta::from_text(text).unwrap();
        let r = RequestMeta::read_shared(Some(&shared), &ALL).unwrap();
        assert!(Arc::ptr_eq(&r.client_info, shared.info().unwrap()));
        assert!(Arc::ptr_eq(
            &r.client_capabilities,
            shared.capabilities().unwrap()
        ));
        assert_eq!(r, RequestMeta::read(Some(shared.value()), &ALL).unwrap());
        // An unshared `_meta` (read by serde_json) gives the same answer, errors included.
        let own = SharedMeta::new(shared.value().clone());
        assert_eq!(r, RequestMeta::read_shared(Some(&own), &ALL).unwrap());
        let bad = SharedMeta::new(json!({ META_PROTOCOL_VERSION: "2026-07-28" }));
        assert_eq!(
            RequestMeta::read_shared(Some(&bad), &ALL).unwrap_err().code,
            codes::INVALID_PARAMS
        );
    }

    #[test]
    fn rejects_missing_and_unsupported() {
        assert_eq!(
            RequestMeta::read(None, &ALL).unwrap_err().code,
            codes::INVALID_PARAMS
        );
        let no_caps = json!({ META_PROTOCOL_VERSION: "2026-07-28" });
        assert_eq!(
            RequestMeta::read(Some(&no_caps), &ALL).unwrap_err().code,
            codes::INVALID_PARAMS
        );
        // A handshake-era revision is not a per-request one.
        let legacy = json!({ META_PROTOCOL_VERSION: "2025-11-25", META_CLIENT_CAPABILITIES: {} });
        let e = RequestMeta::read(Some(&legacy), &ALL).unwrap_err();
        assert_eq!(e.code, codes::UNSUPPORTED_PROTOCOL_VERSION);
        assert_eq!(
            e.data.unwrap()["supported"],
            json!(["2026-07-28", "2025-11-25"])
        );
    }

    #[test]
    fn missing_capability_names_an_object() {
        let e = missing_capability(&["elicitation", "url"]);
        assert_eq!(e.code, -32021);
        assert_eq!(
            e.data.unwrap()["requiredCapabilities"],
            json!({ "elicitation": { "url": {} } })
        );
    }
}
