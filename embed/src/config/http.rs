//! [`HttpConfig`] and [`TlsConfig`]: the Streamable HTTP server's options as a binding passes
//! them (endpoint paths, sessions, connection and stream limits, timeouts, TLS, compression,
//! Redis), turned into the engine's `HttpServerOptions`. Apart from the server's own
//! configuration because only a server served over HTTP reads it, and only with the `http`
//! feature; `null` means something here for some keys (no `retry:` hint, no keep-alive), hence
//! `nullable`.

use super::from_json;
use ferromcp::McpError;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use std::time::Duration;

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
/// `true` or `{codings, minSize, level, streams}`, absent keys keeping the defaults: see
/// [`CompressionOptions`](ferromcp::transport::http::CompressionOptions)), and
/// `redisUrl` (sessions, events and the replicas' bus on
/// Redis/Valkey; needs the `redis` feature), and `oauthProxy` (an OAuth authorization server in
/// front of an upstream identity provider, served beside the endpoint, which its tokens then
/// protect; see [`crate::OAuthProxySettings`]; a listening server only). See
/// [`ferromcp::transport::http::HttpServerOptions`] for what each does.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
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
    #[schemars(with = "Option<u64>")]
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
    #[schemars(with = "Option<u64>")]
    pub sse_keep_alive_ms: Option<Option<u64>>,
    /// Idle time after which a session's standalone SSE stream ends (`Some(None)`, JSON `null`:
    /// never).
    #[serde(default, deserialize_with = "nullable")]
    #[schemars(with = "Option<u64>")]
    pub sse_idle_timeout_ms: Option<Option<u64>>,
    /// Connections kept for clients that have a session.
    pub connections_kept_for_sessions: Option<u64>,
    /// Bytes one SSE stream may hold waiting for its reader.
    pub max_stream_buffered_bytes: Option<u64>,
    /// Bytes one session's SSE streams may hold together waiting for their reader.
    pub max_session_buffered_bytes: Option<u64>,
    /// Path of the readiness endpoint (`Some(None)`, JSON `null`: not served).
    #[serde(default, deserialize_with = "nullable")]
    #[schemars(with = "Option<String>")]
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
    /// `Content-Encoding` of bodies: `false` (off), `true` (the defaults) or an object
    /// `{codings, minSize, level, streams}` (see
    /// [`CompressionOptions`](ferromcp::transport::http::CompressionOptions)).
    #[schemars(with = "Option<Value>")]
    pub compression: Option<crate::compression_config::CompressionConfig>,
    /// The OAuth proxy served by the listening server (`serve_http`): its endpoints (metadata,
    /// `/register`, `/authorize`, consent, callback, `/token`, `/revoke`) beside the MCP
    /// endpoint, which accepts the proxy's tokens unless the binding gives its own protection.
    /// Its records are kept on its own `redisUrl`, else on this server's `redisUrl`, else in
    /// memory.
    #[schemars(with = "Option<std::collections::BTreeMap<String, Value>>")]
    pub oauth_proxy: Option<crate::OAuthProxySettings>,
}

/// The `tls` object of [`HttpConfig`]: the certificate chain as `certPath` (a PEM file,
/// reloaded when it changes) or `certPem` (PEM text), the key as `keyPath` or `keyPem`,
/// `reloadIntervalMs` (how often the files are looked at, default 5000), and for client
/// certificates (mutual TLS) `clientCaPath` or `clientCaPem` (the CA bundle they must chain to)
/// with `clientCertRequired` (default `true`: clients without a certificate are refused at the
/// handshake). See [`ferromcp::transport::http::TlsOptions`].
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
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
        let mut o = TlsOptions::from_pem(Vec::new(), Vec::new())
            .with_certificate_chain(source(&self.cert_path, &self.cert_pem))
            .with_private_key(source(&self.key_path, &self.key_pem));
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

/// Deserializes a field that distinguishes "absent" (outer `None`) from `null` (`Some(None)`).
fn nullable<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ClientConfig, ServerConfig};

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
    fn oauth_proxy_settings_are_read_strictly() {
        let proxy = serde_json::json!({
            "issuer": "https://mcp.example.com", "resource": "https://mcp.example.com/mcp",
            "upstream": {"preset": "github", "clientId": "id", "clientSecret": "s"},
            "requireConsent": false,
        });
        let c = HttpConfig::from_json(serde_json::json!({ "oauthProxy": proxy })).unwrap();
        let s = c.oauth_proxy.unwrap();
        assert_eq!(s.issuer, "https://mcp.example.com");
        assert_eq!(s.upstream.preset.as_deref(), Some("github"));
        assert_eq!(s.require_consent, Some(false));
        let mut typo = proxy.clone();
        typo["consent"] = serde_json::json!(false);
        let err = HttpConfig::from_json(serde_json::json!({ "oauthProxy": typo })).unwrap_err();
        assert_eq!(err.code, ferromcp::error::codes::INVALID_PARAMS, "{err:?}");
        assert!(err.message.contains("consent"), "{}", err.message);
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
