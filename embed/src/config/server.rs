//! [`ServerConfig`]: a server's identity and limits as a binding passes them (`serverInfo`,
//! paging, timeouts, the per-request era's caching hints, listen cap and `requestState` key
//! ring, the tasks extension, supported revisions, built-in middleware), turned into the
//! engine's `ServerOptions`. Apart from the HTTP and client options because a server of any
//! transport reads it, and because its checks (hex secrets, hint methods) are its own.

use super::from_json;
use ferromcp::protocol::ProtocolVersion;
use ferromcp::server::middleware::MiddlewareConfig;
use ferromcp::server::ServerOptions;
use ferromcp::session::{CacheHint, CacheHints, CacheScope, KeyRing, DEFAULT_REPLAY_CAPACITY};
use ferromcp::McpError;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::Duration;

/// A server's identity and limits (`serverInfo`, `instructions`, paging, timeouts).
///
/// JSON: `{"name": "demo", "version": "1.0.0", "title"?, "instructions"?, "websiteUrl"?,
/// "icons"?, "pageSize"?, "requestTimeoutMs"?, "maxMessageSize"?, "enableTools"?, "enableResources"?,
/// "enablePrompts"?, "enableLogging"?, "cacheTtlMs"?, "cacheScope"?, "cacheHints"?,
/// "maxListenStreams"?, "requestStateKeys"?, "requestStateReplayCapacity"?, "tasksExtension"?,
/// "supportedVersions"?, "middleware"?}`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ServerConfig {
    /// `serverInfo.name` (required).
    pub name: String,
    /// `serverInfo.version` (default `"0.0.0"`).
    pub version: Option<String>,
    /// `serverInfo.title`.
    pub title: Option<String>,
    /// `instructions` returned at initialize.
    pub instructions: Option<String>,
    /// `serverInfo.websiteUrl`.
    pub website_url: Option<String>,
    /// `serverInfo.icons` (MCP `Icon` objects).
    pub icons: Option<Vec<Value>>,
    /// Items per page of the list methods (default 100; at least 1).
    pub page_size: Option<u64>,
    /// Default timeout of requests the server sends to clients (sampling, elicitation, roots).
    pub request_timeout_ms: Option<u64>,
    /// Largest message accepted (default 4 MiB): a request over it is answered with an error
    /// carrying its id, a response over it fails the call waiting for it.
    pub max_message_size: Option<u64>,
    /// Advertise tools even with none registered yet (so they can be added later).
    #[serde(default)]
    pub enable_tools: bool,
    /// Advertise resources even with none registered yet.
    #[serde(default)]
    pub enable_resources: bool,
    /// Advertise prompts even with none registered yet.
    #[serde(default)]
    pub enable_prompts: bool,
    /// Advertise logging (default true).
    pub enable_logging: Option<bool>,
    /// `ttlMs` of cacheable 2026-07-28 results (`server/discover`, the list methods,
    /// `resources/read`; default 0, immediately stale).
    pub cache_ttl_ms: Option<u64>,
    /// `cacheScope` of cacheable results: `"private"` (the default) or `"public"`.
    #[schemars(with = "Option<CacheScopeName>")]
    pub cache_scope: Option<CacheScope>,
    /// Per method overrides of the two above:
    /// `{"tools/list": {"ttlMs": 60000, "cacheScope": "public"}}`; a key left out of an
    /// override keeps the server-wide value. Only cacheable methods may be named.
    pub cache_hints: Option<BTreeMap<String, CacheHintConfig>>,
    /// Most `subscriptions/listen` streams open at once (default 1024; at least 1).
    pub max_listen_streams: Option<u64>,
    /// The key ring sealing 2026-07-28 `requestState` (replicas serving the same clients share
    /// it): `[{"id": "k2", "secret": "<64 hex digits>"}, ...]`, the first seals, every one
    /// opens (rotation). Default: one random key of this process.
    pub request_state_keys: Option<Vec<RequestStateKeyConfig>>,
    /// How many opened `requestState` tokens are remembered for single use (default 131072);
    /// past that, a token is refused as `overloaded` rather than risk a replay.
    pub request_state_replay_capacity: Option<u64>,
    /// Declare and serve the tasks extension `io.modelcontextprotocol/tasks` to 2026-07-28
    /// clients (default false; see `ServerOptions::tasks_extension`).
    #[serde(default)]
    pub tasks_extension: bool,
    /// The protocol revisions this server speaks, as their date strings (default: every one
    /// the engine knows, [`ProtocolVersion::ALL`] and [`ProtocolVersion::PER_REQUEST`]).
    /// `["2026-07-28"]` serves only the per-request era (`initialize` is answered -32022);
    /// leaving `"2026-07-28"` out serves only the handshake era (a per-request request is
    /// answered -32022). Not empty; an unknown revision is an error naming the known ones.
    pub supported_versions: Option<Vec<String>>,
    /// Built-in middleware layers by name and options, outermost first:
    /// `[{"name": "maskErrors"}, {"name": "rateLimit", "limit": 10, "windowMs": 1000}]`
    /// (see [`MiddlewareConfig`]; unknown names and options are refused).
    #[schemars(with = "Option<Vec<BTreeMap<String, Value>>>")]
    pub middleware: Option<Vec<MiddlewareConfig>>,
}

/// A per method override of the caching hints (see [`ServerConfig::cache_hints`]).
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CacheHintConfig {
    /// `ttlMs` of this method's results.
    pub ttl_ms: Option<u64>,
    /// `cacheScope` of this method's results.
    #[schemars(with = "Option<CacheScopeName>")]
    pub cache_scope: Option<CacheScope>,
}

/// One key of the `requestState` key ring (see [`ServerConfig::request_state_keys`]).
#[derive(Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RequestStateKeyConfig {
    /// The key id (ASCII letters and digits), written into every token it seals.
    pub id: String,
    /// The 32-byte secret as 64 hex digits.
    pub secret: String,
}

/// The JSON form of the engine's `CacheScope`, for the schema ([`ServerConfig`]'s `cacheScope`).
#[derive(JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum CacheScopeName {
    Private,
    Public,
}

impl std::fmt::Debug for RequestStateKeyConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestStateKeyConfig")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl ServerConfig {
    /// Reads the JSON form (see the struct's documentation).
    pub fn from_json(v: Value) -> Result<Self, McpError> {
        let c: Self = from_json("server config", v)?;
        if c.name.is_empty() {
            return Err(McpError::invalid_params("server config: name is required"));
        }
        c.cache_hints()?;
        c.key_ring()?;
        c.supported_versions()?;
        if c.max_listen_streams == Some(0) {
            return Err(McpError::invalid_params(
                "server config: maxListenStreams must be at least 1 (0 would refuse every subscriptions/listen)",
            ));
        }
        Ok(c)
    }

    /// The caching hints this configuration asks for.
    fn cache_hints(&self) -> Result<CacheHints, McpError> {
        let mut hints = CacheHints::default();
        hints.default = CacheHint::new(
            self.cache_ttl_ms.unwrap_or(0),
            self.cache_scope.unwrap_or_default(),
        );
        for (method, o) in self.cache_hints.iter().flatten() {
            let hint = CacheHint::new(
                o.ttl_ms.unwrap_or(hints.default.ttl_ms),
                o.cache_scope.unwrap_or(hints.default.scope),
            );
            hints
                .set_method(method, hint)
                .map_err(|e| McpError::invalid_params(format!("server config: {}", e.message)))?;
        }
        Ok(hints)
    }

    /// The revisions this configuration asks for (`None`: the engine's default), in the order
    /// given, each once.
    fn supported_versions(&self) -> Result<Option<Vec<ProtocolVersion>>, McpError> {
        let Some(asked) = &self.supported_versions else {
            return Ok(None);
        };
        let known = || {
            ProtocolVersion::ALL
                .into_iter()
                .chain(ProtocolVersion::PER_REQUEST)
                .map(|v| format!("{:?}", v.as_str()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        if asked.is_empty() {
            return Err(McpError::invalid_params(format!(
                "server config: supportedVersions must name at least one revision (known: {})",
                known()
            )));
        }
        let mut versions = Vec::with_capacity(asked.len());
        for s in asked {
            let v = ProtocolVersion::parse(s).ok_or_else(|| {
                McpError::invalid_params(format!(
                    "server config: supportedVersions: unknown protocol revision {s:?} (known: {})",
                    known()
                ))
            })?;
            if !versions.contains(&v) {
                versions.push(v);
            }
        }
        Ok(Some(versions))
    }

    /// The `requestState` key ring this configuration asks for (`None`: the engine's default).
    fn key_ring(&self) -> Result<Option<KeyRing>, McpError> {
        let fail = |m: String| McpError::invalid_params(format!("server config: {m}"));
        let capacity = match self.request_state_replay_capacity {
            Some(0) => return Err(fail("requestStateReplayCapacity must be at least 1".into())),
            Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
            None => DEFAULT_REPLAY_CAPACITY,
        };
        let keys = match &self.request_state_keys {
            Some(keys) => keys
                .iter()
                .map(|k| Ok((k.id.clone(), hex_secret(&k.id, &k.secret).map_err(fail)?)))
                .collect::<Result<Vec<_>, McpError>>()?,
            None if self.request_state_replay_capacity.is_some() => {
                vec![("r".to_string(), rand::random::<[u8; 32]>().to_vec())]
            }
            None => return Ok(None),
        };
        KeyRing::with_replay_capacity(keys, capacity)
            .map(Some)
            .map_err(|e| fail(format!("requestStateKeys: {}", e.message)))
    }

    /// The engine's options for this configuration.
    pub fn options(&self) -> ServerOptions {
        let mut o = ServerOptions::new(
            self.name.clone(),
            self.version.clone().unwrap_or_else(|| "0.0.0".into()),
        );
        o.title = self.title.clone();
        o.instructions = self.instructions.clone();
        if let Some(url) = &self.website_url {
            o.info_extra
                .insert("websiteUrl".into(), Value::String(url.clone()));
        }
        if let Some(icons) = &self.icons {
            o.info_extra
                .insert("icons".into(), Value::Array(icons.clone()));
        }
        if let Some(n) = self.page_size {
            o.page_size = n.max(1) as usize;
        }
        if let Some(ms) = self.request_timeout_ms {
            o.session.request_timeout = Some(Duration::from_millis(ms));
        }
        if let Some(n) = self.max_message_size {
            o.session.max_message_size = usize::try_from(n.max(1)).unwrap_or(usize::MAX);
        }
        o.enable_tools = self.enable_tools;
        o.enable_resources = self.enable_resources;
        o.enable_prompts = self.enable_prompts;
        if let Some(on) = self.enable_logging {
            o.enable_logging = on;
        }
        // Both were checked by `from_json`; a struct built by hand falls back to the defaults.
        o.session.cache_hints = self.cache_hints().unwrap_or_default();
        if let Ok(Some(ring)) = self.key_ring() {
            o.session.request_state_keys = ring;
        }
        if let Some(n) = self.max_listen_streams {
            o.max_listen_streams = usize::try_from(n).unwrap_or(usize::MAX);
        }
        if let Ok(Some(versions)) = self.supported_versions() {
            o.session.supported_versions = versions;
        }
        o.tasks_extension = self.tasks_extension;
        o.tasks.first_answer_wait = FOREIGN_FIRST_ANSWER_WAIT;
        o
    }
}

/// How long a call of a task-supporting tool (tasks extension) waits for a foreign handler's
/// first answer before it becomes a task (`TaskOptions::first_answer_wait`). A foreign handler
/// runs on its own thread (Python's pool or asyncio loop, Node's event loop, a Swift task), so
/// it has not answered when the engine first polls it, even one that answers `input_required`
/// at once; that answer must stay the call's own (a multi round-trip round before any task).
/// A handler that parks input or is still running when the wait ends becomes a task then.
const FOREIGN_FIRST_ANSWER_WAIT: Duration = Duration::from_millis(200);

/// A 32-byte secret written as 64 hex digits.
fn hex_secret(id: &str, hex: &str) -> Result<Vec<u8>, String> {
    let bad =
        || format!("requestStateKeys: the secret of key {id:?} must be 64 hex digits (32 bytes)");
    if hex.len() != 64 || !hex.is_ascii() {
        return Err(bad());
    }
    (0..32)
        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).map_err(|_| bad()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(v: Value) -> Result<ServerConfig, McpError> {
        ServerConfig::from_json(v)
    }

    #[test]
    fn supported_versions_reach_the_options_in_order_each_once() {
        let c = config(serde_json::json!({"name": "s",
            "supportedVersions": ["2026-07-28", "2025-06-18", "2026-07-28"]}))
        .unwrap();
        assert_eq!(
            c.options().session.supported_versions,
            vec![ProtocolVersion::V2026_07_28, ProtocolVersion::V2025_06_18]
        );
        // Absent: every revision the engine knows.
        let d = config(serde_json::json!({"name": "s"})).unwrap().options();
        assert_eq!(
            d.session.supported_versions,
            ferromcp::session::SessionConfig::default().supported_versions
        );
    }

    #[test]
    fn unknown_or_no_supported_versions_fail_naming_the_known_ones() {
        let known =
            r#"known: "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28""#;
        let e = config(serde_json::json!({"name": "s",
            "supportedVersions": ["2025-11-25", "2026-01-01"]}))
        .unwrap_err();
        assert_eq!(e.code, ferromcp::error::codes::INVALID_PARAMS);
        assert!(
            e.message
                .contains(r#"unknown protocol revision "2026-01-01""#)
                && e.message.contains(known),
            "{}",
            e.message
        );
        let e = config(serde_json::json!({"name": "s", "supportedVersions": []})).unwrap_err();
        assert!(
            e.message
                .contains("supportedVersions must name at least one revision")
                && e.message.contains(known),
            "{}",
            e.message
        );
        let e = config(serde_json::json!({"name": "s", "supportedVersions": "2026-07-28"}))
            .unwrap_err();
        assert!(e.message.contains("expected a sequence"), "{}", e.message);
    }
}
