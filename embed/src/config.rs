//! The typed configuration every binding passes to embed: one struct per thing configured
//! ([`ServerConfig`], [`HttpConfig`], [`ClientConfig`]), read from JSON with camelCase keys.
//!
//! Bindings build a JSON object in their own language (a Python dict, a JS object, a Swift
//! `Codable`) and hand it over; the keys and their meaning are defined here once, so the three
//! bindings cannot drift. Unknown keys are an error in every struct: a typo (`jsonResponce`) must
//! fail loudly at start-up instead of being silently ignored.

use ferromcp::client::{ClientOptions, ProtocolMode};
use ferromcp::protocol::ProtocolVersion;
use ferromcp::server::middleware::MiddlewareConfig;
use ferromcp::server::ServerOptions;
use ferromcp::session::{CacheHint, CacheHints, CacheScope, KeyRing, DEFAULT_REPLAY_CAPACITY};
use ferromcp::McpError;
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::Duration;

/// Reads a config struct from JSON; `null` gives the defaults, anything but an object or null is
/// an error. Errors name the struct (`what`) and serde's reason (unknown key, wrong type).
pub fn from_json<T: for<'de> Deserialize<'de> + Default>(
    what: &str,
    v: Value,
) -> Result<T, McpError> {
    match v {
        Value::Null => Ok(T::default()),
        Value::Object(_) => {
            serde_json::from_value(v).map_err(|e| McpError::invalid_params(format!("{what}: {e}")))
        }
        other => Err(McpError::invalid_params(format!(
            "{what} must be an object, not {}",
            ferromcp::schema::json_type_name(&other)
        ))),
    }
}

/// A server's identity and limits (`serverInfo`, `instructions`, paging, timeouts).
///
/// JSON: `{"name": "demo", "version": "1.0.0", "title"?, "instructions"?, "websiteUrl"?,
/// "icons"?, "pageSize"?, "requestTimeoutMs"?, "maxMessageSize"?, "enableTools"?, "enableResources"?,
/// "enablePrompts"?, "enableLogging"?, "cacheTtlMs"?, "cacheScope"?, "cacheHints"?,
/// "maxListenStreams"?, "requestStateKeys"?, "requestStateReplayCapacity"?, "tasksExtension"?,
/// "supportedVersions"?, "middleware"?}`.
#[derive(Clone, Debug, Default, Deserialize)]
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
    pub middleware: Option<Vec<MiddlewareConfig>>,
}

/// A per method override of the caching hints (see [`ServerConfig::cache_hints`]).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CacheHintConfig {
    /// `ttlMs` of this method's results.
    pub ttl_ms: Option<u64>,
    /// `cacheScope` of this method's results.
    pub cache_scope: Option<CacheScope>,
}

/// One key of the `requestState` key ring (see [`ServerConfig::request_state_keys`]).
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequestStateKeyConfig {
    /// The key id (ASCII letters and digits), written into every token it seals.
    pub id: String,
    /// The 32-byte secret as 64 hex digits.
    pub secret: String,
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

/// Deserializes a field that distinguishes "absent" (outer `None`) from `null` (`Some(None)`).
fn nullable<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

/// The Streamable HTTP server's options, in JSON form. Every key is optional; absent keys (and
/// `null`, except for `retryIntervalMs`) keep the engine's defaults.
///
/// Keys: `path` (`"/mcp"`), `jsonResponse`, `stateless`, `enableGetStream`, `maxSessions`,
/// `sessionIdleTimeoutMs`, `maxBodySize`, `dnsRebindingProtection` (`null`: decided from the
/// bound address), `allowedHosts`, `allowedOrigins`, `streamQueueCapacity`,
/// `closeStreamsAfterMs`, `retryIntervalMs` (`null`: no `retry:` hint), `legacySse`,
/// `legacySsePath`, `legacyMessagesPath`, and the connection limits `maxHeadSize`,
/// `maxConnections`, `maxConnectionsPerClient`, `headerReadTimeoutMs`, `requestTimeoutMs`,
/// `keepAliveTimeoutMs`, `writeTimeoutMs`, `maxBufferedBytes`, `healthPath` (`null`: no
/// readiness endpoint), `sseKeepAliveMs` (`null`: no keep-alive comments on idle SSE streams),
/// `sseIdleTimeoutMs` (`null`: standalone streams never end for idleness),
/// `connectionsKeptForSessions`, `maxStreamBufferedBytes`, `maxSessionBufferedBytes`, `tls`
/// (serve `https://`, see [`TlsConfig`]; a listening server only), `compression` (`false`,
/// `true` or `{codings, minSize, level, streams}`: see [`super::compression_config`]), and
/// `redisUrl` (sessions, events and the replicas' bus on
/// Redis/Valkey; needs the `redis` feature). See
/// [`ferromcp::transport::http::HttpServerOptions`] for what each does.
#[cfg(feature = "http")]
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HttpConfig {
    /// Path of the Streamable HTTP endpoint.
    pub path: Option<String>,
    /// Answer each POST with one JSON body instead of an SSE stream.
    pub json_response: Option<bool>,
    /// No sessions: every POST is a fresh, initialized session.
    pub stateless: Option<bool>,
    /// Offer the GET stream (405 when off).
    pub enable_get_stream: Option<bool>,
    /// Most sessions alive at once.
    pub max_sessions: Option<u64>,
    /// Idle sessions are removed after this long.
    pub session_idle_timeout_ms: Option<u64>,
    /// Largest request body accepted (413 beyond).
    pub max_body_size: Option<u64>,
    /// Force the `Host`/`Origin` checks on or off.
    pub dns_rebinding_protection: Option<bool>,
    /// Allowed `Host` values.
    pub allowed_hosts: Option<Vec<String>>,
    /// Allowed `Origin` values.
    pub allowed_origins: Option<Vec<String>>,
    /// Frames each SSE stream may hold waiting for its reader.
    pub stream_queue_capacity: Option<u64>,
    /// Polling mode: close request streams after this long.
    pub close_streams_after_ms: Option<u64>,
    /// The SSE `retry:` hint; `null` sends none, absent keeps the default (1 s).
    #[serde(default, deserialize_with = "nullable")]
    pub retry_interval_ms: Option<Option<u64>>,
    /// Also serve the 2024-11-05 HTTP+SSE endpoints.
    pub legacy_sse: Option<bool>,
    /// Path of the legacy SSE endpoint.
    pub legacy_sse_path: Option<String>,
    /// Path of the legacy message endpoint.
    pub legacy_messages_path: Option<String>,
    /// Largest request head (431 beyond).
    pub max_head_size: Option<u64>,
    /// Most connections served at once.
    pub max_connections: Option<u64>,
    /// Most connections served at once from one client address.
    pub max_connections_per_client: Option<u64>,
    /// Idle time before an SSE stream gets a keep-alive comment (`Some(None)`, JSON `null`:
    /// never).
    #[serde(default, deserialize_with = "nullable")]
    pub sse_keep_alive_ms: Option<Option<u64>>,
    /// Idle time after which a session's standalone SSE stream ends (`Some(None)`, JSON `null`:
    /// never).
    #[serde(default, deserialize_with = "nullable")]
    pub sse_idle_timeout_ms: Option<Option<u64>>,
    /// Connections kept for clients that have a session.
    pub connections_kept_for_sessions: Option<u64>,
    /// Bytes one SSE stream may hold waiting for its reader.
    pub max_stream_buffered_bytes: Option<u64>,
    /// Bytes one session's SSE streams may hold together waiting for their reader.
    pub max_session_buffered_bytes: Option<u64>,
    /// Path of the readiness endpoint (`Some(None)`, JSON `null`: not served).
    #[serde(default, deserialize_with = "nullable")]
    pub health_path: Option<Option<String>>,
    /// Time a new connection has to send its first head.
    pub header_read_timeout_ms: Option<u64>,
    /// Time a request may take to arrive once begun.
    pub request_timeout_ms: Option<u64>,
    /// Time a kept-alive connection may sit idle.
    pub keep_alive_timeout_ms: Option<u64>,
    /// Time a write may go without progress.
    pub write_timeout_ms: Option<u64>,
    /// Bytes all connections may buffer together.
    pub max_buffered_bytes: Option<u64>,
    /// Redis/Valkey URL of the stores shared by replicas.
    pub redis_url: Option<String>,
    /// Serve over TLS.
    pub tls: Option<TlsConfig>,
    /// `Content-Encoding` of bodies: `false`, `true` or an object (see
    /// [`super::compression_config`]).
    pub compression: Option<super::compression_config::CompressionConfig>,
}

/// The `tls` object of [`HttpConfig`]: the certificate chain as `certPath` (a PEM file,
/// reloaded when it changes) or `certPem` (PEM text), the key as `keyPath` or `keyPem`,
/// `reloadIntervalMs` (how often the files are looked at, default 5000), and for client
/// certificates (mutual TLS) `clientCaPath` or `clientCaPem` (the CA bundle they must chain to)
/// with `clientCertRequired` (default `true`: clients without a certificate are refused at the
/// handshake). See [`ferromcp::transport::http::TlsOptions`].
#[cfg(feature = "http")]
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TlsConfig {
    /// PEM file of the certificate chain, leaf first.
    pub cert_path: Option<String>,
    /// PEM text of the certificate chain.
    pub cert_pem: Option<String>,
    /// PEM file of the private key.
    pub key_path: Option<String>,
    /// PEM text of the private key.
    pub key_pem: Option<String>,
    /// How often the files are looked at for changes, ms.
    pub reload_interval_ms: Option<u64>,
    /// PEM file of the CA bundle client certificates must chain to.
    pub client_ca_path: Option<String>,
    /// PEM text of that bundle.
    pub client_ca_pem: Option<String>,
    /// Refuse clients without a certificate (default `true` when a client CA is given).
    pub client_cert_required: Option<bool>,
}

#[cfg(feature = "http")]
impl TlsConfig {
    fn check(&self) -> Result<(), McpError> {
        let one = |path: &Option<String>, pem: &Option<String>, what: &str, required: bool| match (
            path.is_some(),
            pem.is_some(),
        ) {
            (true, true) => Err(McpError::invalid_params(format!(
                "HTTP options: tls: give {what}Path or {what}Pem, not both"
            ))),
            (false, false) if required => Err(McpError::invalid_params(format!(
                "HTTP options: tls: {what}Path or {what}Pem is required"
            ))),
            _ => Ok(()),
        };
        one(&self.cert_path, &self.cert_pem, "cert", true)?;
        one(&self.key_path, &self.key_pem, "key", true)?;
        one(&self.client_ca_path, &self.client_ca_pem, "clientCa", false)?;
        if self.client_cert_required.is_some()
            && self.client_ca_path.is_none()
            && self.client_ca_pem.is_none()
        {
            return Err(McpError::invalid_params(
                "HTTP options: tls: clientCertRequired needs clientCaPath or clientCaPem",
            ));
        }
        Ok(())
    }

    /// The engine's TLS options (a missing source reads as empty PEM, which `serve_http`
    /// refuses naming it; [`HttpConfig::from_json`] refuses it earlier).
    pub fn options(&self) -> ferromcp::transport::http::TlsOptions {
        use ferromcp::transport::http::{PemSource, TlsOptions};
        let source = |path: &Option<String>, pem: &Option<String>| match (path, pem) {
            (Some(p), _) => PemSource::File(p.into()),
            (None, Some(t)) => PemSource::Pem(t.clone().into_bytes()),
            (None, None) => PemSource::Pem(Vec::new()),
        };
        let mut o = TlsOptions {
            certificate_chain: source(&self.cert_path, &self.cert_pem),
            private_key: source(&self.key_path, &self.key_pem),
            ..TlsOptions::from_pem(Vec::new(), Vec::new())
        };
        if let Some(ms) = self.reload_interval_ms {
            o.reload_interval = Duration::from_millis(ms.max(1));
        }
        if self.client_ca_path.is_some() || self.client_ca_pem.is_some() {
            o = o.client_certificates(
                source(&self.client_ca_path, &self.client_ca_pem),
                self.client_cert_required.unwrap_or(true),
            );
        }
        o
    }
}

#[cfg(feature = "http")]
impl HttpConfig {
    /// Reads the JSON form (see the struct's documentation).
    /// A `redisUrl` is checked here (its form, not the connection), so that a mistyped URL is
    /// an invalid-params error when the options are read, for a listening server and a mounted
    /// handler alike.
    pub fn from_json(v: Value) -> Result<Self, McpError> {
        let c: Self = from_json("HTTP options", v)?;
        if let Some(tls) = &c.tls {
            tls.check()?;
        }
        if let Some(url) = &c.redis_url {
            ferromcp::transport::http::check_redis_url(url).map_err(|e| {
                McpError::invalid_params(format!("HTTP options: redisUrl: {}", e.0))
            })?;
        }
        Ok(c)
    }

    /// The engine's options for this configuration.
    pub fn options(&self) -> ferromcp::transport::http::HttpServerOptions {
        let mut o = ferromcp::transport::http::HttpServerOptions::default();
        let ms = |n: u64| Duration::from_millis(n.max(1));
        if let Some(v) = &self.path {
            o.path = v.clone();
        }
        if let Some(v) = self.json_response {
            o.json_response = v;
        }
        if let Some(v) = self.stateless {
            o.stateless = v;
        }
        if let Some(v) = self.enable_get_stream {
            o.enable_get_stream = v;
        }
        if let Some(v) = self.max_sessions {
            o.max_sessions = v.max(1) as usize;
        }
        if let Some(v) = self.session_idle_timeout_ms {
            o.session_idle_timeout = ms(v);
        }
        if let Some(v) = self.max_body_size {
            o.max_body_size = v.max(1) as usize;
        }
        o.dns_rebinding_protection = self.dns_rebinding_protection;
        if let Some(v) = &self.allowed_hosts {
            o.allowed_hosts = v.clone();
        }
        if let Some(v) = &self.allowed_origins {
            o.allowed_origins = v.clone();
        }
        if let Some(v) = self.stream_queue_capacity {
            o.stream_queue_capacity = v.max(1) as usize;
        }
        if let Some(v) = self.close_streams_after_ms {
            o.close_streams_after = Some(ms(v));
        }
        if let Some(v) = self.retry_interval_ms {
            o.retry_interval = v.map(Duration::from_millis);
        }
        if let Some(v) = self.legacy_sse {
            o.legacy_sse = v;
        }
        if let Some(v) = &self.legacy_sse_path {
            o.legacy_sse_path = v.clone();
        }
        if let Some(v) = &self.legacy_messages_path {
            o.legacy_messages_path = v.clone();
        }
        let size = |n: u64| usize::try_from(n.max(1)).unwrap_or(usize::MAX);
        if let Some(v) = self.max_head_size {
            o.max_head_size = size(v);
        }
        if let Some(v) = self.max_connections {
            o.max_connections = size(v);
        }
        if let Some(v) = self.max_connections_per_client {
            o.max_connections_per_client = size(v);
        }
        if let Some(v) = &self.health_path {
            o.health_path = v.clone();
        }
        if let Some(v) = self.sse_keep_alive_ms {
            o.sse_keep_alive = v.map(ms);
        }
        if let Some(v) = self.sse_idle_timeout_ms {
            o.sse_idle_timeout = v.map(ms);
        }
        if let Some(v) = self.connections_kept_for_sessions {
            o.connections_kept_for_sessions = usize::try_from(v).unwrap_or(usize::MAX);
        }
        if let Some(v) = self.max_stream_buffered_bytes {
            o.max_stream_buffered_bytes = size(v);
        }
        if let Some(v) = self.max_session_buffered_bytes {
            o.max_session_buffered_bytes = size(v);
        }
        if let Some(v) = self.header_read_timeout_ms {
            o.header_read_timeout = ms(v);
        }
        o.tls = self.tls.as_ref().map(TlsConfig::options);
        if let Some(c) = &self.compression {
            o.compression = c.0.clone();
        }
        if let Some(v) = self.request_timeout_ms {
            o.request_timeout = ms(v);
        }
        if let Some(v) = self.keep_alive_timeout_ms {
            o.keep_alive_timeout = ms(v);
        }
        if let Some(v) = self.write_timeout_ms {
            o.write_timeout = ms(v);
        }
        if let Some(v) = self.max_buffered_bytes {
            o.max_buffered_bytes = size(v);
        }
        o.redis_url = self.redis_url.clone();
        o
    }
}

/// A client's identity and the features it offers the server.
///
/// JSON: `{"name"?, "version"?, "protocolVersion"?, "protocolMode"?, "requestTimeoutMs"?,
/// "maxMessageSize"?, "sampling"?, "samplingTools"?, "elicitation"?, "elicitationUrl"?,
/// "roots"?, "tasksExtension"?}`. Each of `sampling`, `elicitation` and `roots` set to true is
/// advertised and routed to the client handler.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClientConfig {
    /// `clientInfo.name` (default `"ferromcp-client"`).
    pub name: Option<String>,
    /// `clientInfo.version` (default `"0.0.0"`).
    pub version: Option<String>,
    /// The revision to ask for (default: the newest handshake revision). A per-request
    /// revision (`"2026-07-28"`) means `protocolMode: "perRequest"`.
    pub protocol_version: Option<String>,
    /// `"handshake"` (the default: `initialize`), `"auto"` (probe `server/discover`, fall back
    /// to the handshake) or `"perRequest"` (2026-07-28 only).
    pub protocol_mode: Option<String>,
    /// Default timeout of requests (milliseconds).
    pub request_timeout_ms: Option<u64>,
    /// Largest message accepted (default 4 MiB): a response over it fails the call waiting
    /// for it.
    pub max_message_size: Option<u64>,
    /// Offer `sampling/createMessage`.
    #[serde(default)]
    pub sampling: bool,
    /// Offer tool use inside sampling (2025-11-25).
    #[serde(default)]
    pub sampling_tools: bool,
    /// Offer `elicitation/create` (form mode).
    #[serde(default)]
    pub elicitation: bool,
    /// Offer URL-mode elicitation too (2025-11-25).
    #[serde(default)]
    pub elicitation_url: bool,
    /// Offer `roots/list`.
    #[serde(default)]
    pub roots: bool,
    /// Whether per-request-era (2026-07-28) requests declare the tasks extension
    /// `io.modelcontextprotocol/tasks` (default true; see `ClientOptions::tasks_extension`).
    /// Off, the server answers every `tools/call` itself (never with a task) and refuses a
    /// `subscriptions/listen` naming `taskIds` with -32021 (the extension requires the
    /// declaration). The handshake era is unaffected.
    pub tasks_extension: Option<bool>,
}

impl ClientConfig {
    /// Reads the JSON form (see the struct's documentation).
    pub fn from_json(v: Value) -> Result<Self, McpError> {
        from_json("client config", v)
    }

    /// The engine's options for this configuration.
    pub(crate) fn options(&self) -> Result<ClientOptions, McpError> {
        let mut o = ClientOptions::new(
            self.name
                .clone()
                .unwrap_or_else(|| "ferromcp-client".into()),
            self.version.clone().unwrap_or_else(|| "0.0.0".into()),
        );
        if let Some(v) = &self.protocol_version {
            let v = ProtocolVersion::parse(v).ok_or_else(|| {
                McpError::invalid_params(format!("unknown protocol version {v:?}"))
            })?;
            if v.is_per_request() {
                o.mode = ProtocolMode::PerRequest;
            } else {
                o.protocol_version = v;
            }
        }
        if let Some(m) = &self.protocol_mode {
            o.mode = match m.as_str() {
                "handshake" => ProtocolMode::Handshake,
                "auto" => ProtocolMode::Auto,
                "perRequest" => ProtocolMode::PerRequest,
                other => {
                    return Err(McpError::invalid_params(format!(
                        "unknown protocolMode {other:?} (handshake, auto or perRequest)"
                    )))
                }
            };
        }
        if let Some(ms) = self.request_timeout_ms {
            o.session.request_timeout = Some(Duration::from_millis(ms));
        }
        if let Some(n) = self.max_message_size {
            o.session.max_message_size = usize::try_from(n.max(1)).unwrap_or(usize::MAX);
        }
        if let Some(on) = self.tasks_extension {
            o.tasks_extension = on;
        }
        Ok(o)
    }
}

#[cfg(all(test, feature = "http"))]
mod http_config_tests {
    use super::*;

    #[cfg(feature = "redis")]
    #[test]
    fn redis_url_reaches_the_options() {
        let c = HttpConfig::from_json(serde_json::json!({"redisUrl": "redis://10.0.0.5:6379/2"}))
            .unwrap();
        assert_eq!(
            c.options().redis_url.as_deref(),
            Some("redis://10.0.0.5:6379/2")
        );
        assert_eq!(HttpConfig::default().options().redis_url, None);
    }

    #[test]
    fn a_redis_url_that_cannot_be_used_is_invalid_params_when_read() {
        // With the feature, a URL that is not a Redis one; without it, any URL.
        let url = if cfg!(feature = "redis") {
            "http://10.0.0.5:6379"
        } else {
            "redis://10.0.0.5:6379"
        };
        let err = HttpConfig::from_json(serde_json::json!({ "redisUrl": url })).unwrap_err();
        assert_eq!(err.code, ferromcp::error::codes::INVALID_PARAMS, "{err:?}");
        assert!(
            err.message.starts_with("HTTP options: redisUrl: "),
            "{}",
            err.message
        );
    }

    #[test]
    fn tls_keys_reach_the_options_and_bad_combinations_are_refused() {
        use ferromcp::transport::http::PemSource;
        let c = HttpConfig::from_json(serde_json::json!({"tls": {
            "certPath": "/etc/mcp/cert.pem", "keyPem": "KEY", "reloadIntervalMs": 250,
            "clientCaPath": "/etc/mcp/clients.pem"
        }}))
        .unwrap();
        let t = c.options().tls.unwrap();
        assert_eq!(
            t.certificate_chain,
            PemSource::File("/etc/mcp/cert.pem".into())
        );
        assert_eq!(t.private_key, PemSource::Pem(b"KEY".to_vec()));
        assert_eq!(t.reload_interval, Duration::from_millis(250));
        let cc = t.client_certificates.unwrap();
        assert_eq!(cc.ca_bundle, PemSource::File("/etc/mcp/clients.pem".into()));
        assert!(cc.required);
        let optional = HttpConfig::from_json(serde_json::json!({"tls": {
            "certPem": "C", "keyPem": "K", "clientCaPem": "CA", "clientCertRequired": false
        }}))
        .unwrap();
        let t = optional.options().tls.unwrap();
        assert!(!t.client_certificates.unwrap().required);
        assert_eq!(t.reload_interval, Duration::from_secs(5));
        assert!(HttpConfig::from_json(serde_json::json!({}))
            .unwrap()
            .options()
            .tls
            .is_none());
        for (bad, says) in [
            (
                serde_json::json!({"keyPem": "K"}),
                "certPath or certPem is required",
            ),
            (
                serde_json::json!({"certPem": "C", "certPath": "/c", "keyPem": "K"}),
                "not both",
            ),
            (
                serde_json::json!({"certPem": "C", "keyPem": "K", "clientCertRequired": true}),
                "needs clientCaPath",
            ),
            (
                serde_json::json!({"certPem": "C", "keyPem": "K", "cert": "x"}),
                "cert",
            ),
        ] {
            let err = HttpConfig::from_json(serde_json::json!({ "tls": bad })).unwrap_err();
            assert_eq!(err.code, ferromcp::error::codes::INVALID_PARAMS, "{err:?}");
            assert!(format!("{err:?}").contains(says), "{err:?}");
        }
    }

    #[test]
    fn connection_and_message_limits_reach_the_options() {
        let c = HttpConfig::from_json(serde_json::json!({
            "maxHeadSize": 8192, "maxConnections": 7, "headerReadTimeoutMs": 1500,
            "requestTimeoutMs": 2500, "keepAliveTimeoutMs": 3500, "writeTimeoutMs": 4500,
            "maxBufferedBytes": 1048576, "maxConnectionsPerClient": 3, "healthPath": null
        }))
        .unwrap();
        let o = c.options();
        assert_eq!(o.max_head_size, 8192);
        assert_eq!(o.max_connections, 7);
        assert_eq!(o.max_connections_per_client, 3);
        let ka = HttpConfig::from_json(serde_json::json!({"sseKeepAliveMs": 2000})).unwrap();
        assert_eq!(ka.options().sse_keep_alive, Some(Duration::from_secs(2)));
        let off = HttpConfig::from_json(serde_json::json!({"sseKeepAliveMs": null})).unwrap();
        assert_eq!(off.options().sse_keep_alive, None);
        let fair = HttpConfig::from_json(serde_json::json!({
            "sseIdleTimeoutMs": 60000, "connectionsKeptForSessions": 16,
            "maxStreamBufferedBytes": 65536, "maxSessionBufferedBytes": 131072
        }))
        .unwrap()
        .options();
        assert_eq!(fair.sse_idle_timeout, Some(Duration::from_secs(60)));
        assert_eq!(fair.connections_kept_for_sessions, 16);
        assert_eq!(fair.max_stream_buffered_bytes, 65536);
        assert_eq!(fair.max_session_buffered_bytes, 131072);
        let never = HttpConfig::from_json(serde_json::json!({"sseIdleTimeoutMs": null})).unwrap();
        assert_eq!(never.options().sse_idle_timeout, None);
        assert_eq!(o.health_path, None);
        let ready = HttpConfig::from_json(serde_json::json!({"healthPath": "/ready"})).unwrap();
        assert_eq!(ready.options().health_path.as_deref(), Some("/ready"));
        let default = HttpConfig::from_json(serde_json::json!({})).unwrap();
        assert_eq!(default.options().health_path.as_deref(), Some("/healthz"));
        assert_eq!(o.header_read_timeout, Duration::from_millis(1500));
        assert_eq!(o.request_timeout, Duration::from_millis(2500));
        assert_eq!(o.keep_alive_timeout, Duration::from_millis(3500));
        assert_eq!(o.write_timeout, Duration::from_millis(4500));
        assert_eq!(o.max_buffered_bytes, 1 << 20);
        let server =
            ServerConfig::from_json(serde_json::json!({"name": "s", "maxMessageSize": 2048}))
                .unwrap()
                .options();
        assert_eq!(server.session.max_message_size, 2048);
        let client = ClientConfig::from_json(serde_json::json!({"maxMessageSize": 4096}))
            .unwrap()
            .options()
            .unwrap();
        assert_eq!(client.session.max_message_size, 4096);
        // Absent keys keep the engine's defaults.
        let d = HttpConfig::from_json(serde_json::json!({}))
            .unwrap()
            .options();
        let e = ferromcp::transport::http::HttpServerOptions::default();
        assert_eq!(
            (d.max_connections, d.write_timeout, d.max_buffered_bytes),
            (e.max_connections, e.write_timeout, e.max_buffered_bytes)
        );
    }
}

#[cfg(test)]
mod server_config_tests {
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

#[cfg(test)]
mod client_config_tests {
    use super::*;

    #[test]
    fn tasks_extension_is_on_unless_turned_off() {
        let options = |v: Value| ClientConfig::from_json(v).unwrap().options().unwrap();
        assert!(options(serde_json::json!({})).tasks_extension);
        assert!(options(serde_json::json!({"tasksExtension": true})).tasks_extension);
        assert!(!options(serde_json::json!({"tasksExtension": false})).tasks_extension);
        let err = ClientConfig::from_json(serde_json::json!({"tasksExtension": "no"})).unwrap_err();
        assert_eq!(err.code, ferromcp::error::codes::INVALID_PARAMS, "{err:?}");
    }
}
