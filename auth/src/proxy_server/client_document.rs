//! Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document-00, the MCP
//! 2025-11-25 authorization spec): a client with no registration names itself by an `https://`
//! URL, and the proxy fetches the JSON document there to learn its name and redirect URIs.
//!
//! The proxy fetches a URL a stranger chose, so the fetch is fenced (server-side request
//! forgery): `https://` only, no user information, fragment or dot segments; the host's
//! addresses are resolved first and every one must be public (no loopback, private, link-local,
//! shared, multicast or reserved range) unless [`ClientIdDocuments::allow_private_addresses`]
//! is set (tests), and the connection goes to an address that was checked (no second lookup
//! for DNS rebinding); redirects are not followed; the answer must be 200, within a size limit
//! and a time limit. A valid document becomes a public client's record, kept in the proxy's
//! store for the time its `Cache-Control` allows (bounded), so every replica reuses it.

use super::error::{OAuthErrorCode, OAuthFailure};
use super::records::{client_key, ClientRecord};
use super::register::{redirect_uris, text, texts, GRANT_TYPES};
use super::OAuthProxy;
use bytes::Bytes;
use http_body_util::{BodyExt, Empty, Limited};
use hyper_util::rt::TokioIo;
use rustls::pki_types::ServerName;
use serde_json::{Map, Value};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

/// How the proxy treats client ids that are URLs (Client ID Metadata Documents).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ClientIdDocuments {
    /// Accept `https://` client ids and advertise `client_id_metadata_document_supported`
    /// (default true).
    pub enabled: bool,
    /// Fetch documents from loopback, private and other non-public addresses too. Only for
    /// tests: a client could otherwise make the proxy reach its private network.
    pub allow_private_addresses: bool,
    /// Extra CA certificates (PEM text each) trusted for the documents' servers (tests).
    pub root_certificates: Vec<String>,
    /// Largest document read (default 5 KiB, the draft's advice).
    pub max_bytes: usize,
    /// Time allowed for resolving, connecting and reading a document (default 5 s).
    pub timeout: Duration,
    /// How long a document is reused when its answer has no `Cache-Control: max-age`
    /// (default 10 minutes).
    pub default_cache: Duration,
    /// The longest a document is reused, whatever its `max-age` (default 24 hours).
    pub max_cache: Duration,
}

impl Default for ClientIdDocuments {
    fn default() -> Self {
        Self {
            enabled: true,
            allow_private_addresses: false,
            root_certificates: Vec::new(),
            max_bytes: 5 * 1024,
            timeout: Duration::from_secs(5),
            default_cache: Duration::from_secs(600),
            max_cache: Duration::from_secs(24 * 3600),
        }
    }
}

/// Whether a client id is a URL (a document's address), not an id this proxy issued. Issued
/// ids are base64url text, which has no `:`.
pub(super) fn is_url_client_id(id: &str) -> bool {
    id.contains(':')
}

/// The store key of a document's client record.
fn document_key(url: &str) -> String {
    client_key(&format!("url:{}", super::super::pkce::s256(url)))
}

fn refused(detail: impl Into<String>) -> OAuthFailure {
    OAuthFailure::new(OAuthErrorCode::InvalidClient, detail)
}

impl OAuthProxy {
    /// The client `id` names: a registered one from the store, or, for a URL, the client its
    /// metadata document describes (cached, else fetched and checked). `Ok(None)`: unknown.
    pub(super) async fn client(&self, id: &str) -> Result<Option<ClientRecord>, OAuthFailure> {
        if !is_url_client_id(id) {
            return self.load(&client_key(id)).await;
        }
        let policy = &self.inner.config.client_id_documents;
        if !policy.enabled {
            return Ok(None);
        }
        let key = document_key(id);
        if let Some(cached) = self.load::<ClientRecord>(&key).await? {
            return Ok(Some(cached));
        }
        check_url(id).map_err(|why| refused(format!("client_id {id} is refused: {why}")))?;
        let fetched = fetch(id, policy).await.map_err(|why| {
            refused(format!(
                "the metadata document of client_id {id} could not be read: {why}"
            ))
        })?;
        let record = self.document_client(id, &fetched.body).map_err(|why| {
            refused(format!(
                "the metadata document of client_id {id} is refused: {why}"
            ))
        })?;
        let ttl = match fetched.max_age {
            CacheFor::Never => None,
            CacheFor::Seconds(s) => Some(Duration::from_secs(s).min(policy.max_cache)),
            CacheFor::Unsaid => Some(policy.default_cache.min(policy.max_cache)),
        };
        if let Some(ttl) = ttl.filter(|t| !t.is_zero()) {
            self.save(&key, &record, ttl).await?;
        }
        Ok(Some(record))
    }

    /// The public client a fetched document describes, checked as a registration would be.
    fn document_client(&self, url: &str, body: &[u8]) -> Result<ClientRecord, String> {
        let doc: Value =
            serde_json::from_slice(body).map_err(|e| format!("it is not JSON: {e}"))?;
        let Value::Object(m) = doc else {
            return Err("it is not a JSON object".into());
        };
        let described = |f: OAuthFailure| f.description;
        match m.get("client_id") {
            Some(Value::String(s)) if s == url => {}
            Some(Value::String(s)) => {
                return Err(format!(
                    "its client_id {s} is not its URL (they must be equal)"
                ))
            }
            _ => return Err("it has no client_id".into()),
        }
        let name = text(&m, "client_name")
            .map_err(described)?
            .filter(|n| !n.trim().is_empty())
            .ok_or("it has no client_name")?
            .to_string();
        let redirect_uris = redirect_uris(&m).map_err(described)?;
        for k in ["client_secret", "client_secret_expires_at"] {
            if m.contains_key(k) {
                return Err(format!(
                    "it holds {k} (a document is public: no shared secret)"
                ));
            }
        }
        match text(&m, "token_endpoint_auth_method").map_err(described)? {
            None | Some("none") => {}
            Some(other) => {
                return Err(format!(
                    "token_endpoint_auth_method {other} is not supported for a document (use none)"
                ))
            }
        }
        let grant_types = texts(&m, "grant_types")
            .map_err(described)?
            .unwrap_or_else(|| vec!["authorization_code".into()]);
        if let Some(g) = grant_types
            .iter()
            .find(|g| !GRANT_TYPES.contains(&g.as_str()))
        {
            return Err(format!("grant type {g} is not supported"));
        }
        if !grant_types.iter().any(|g| g == "authorization_code") {
            return Err("grant_types must include authorization_code".into());
        }
        if let Some(r) = texts(&m, "response_types").map_err(described)? {
            if r != ["code"] {
                return Err("response_types must be [\"code\"]".into());
            }
        }
        let scope = scope_of(&m, &self.inner.config.scopes_supported)?;
        Ok(ClientRecord {
            client_id: url.to_string(),
            secret_hash: None,
            redirect_uris,
            token_endpoint_auth_method: "none".into(),
            grant_types,
            scope,
            client_name: Some(name),
        })
    }
}

/// The document's `scope`, each one offered by the proxy (when it names what it offers).
fn scope_of(m: &Map<String, Value>, supported: &[String]) -> Result<Option<String>, String> {
    let scope = text(m, "scope").map_err(|f| f.description)?;
    if let (Some(s), false) = (scope, supported.is_empty()) {
        if let Some(x) = s
            .split(' ')
            .filter(|x| !x.is_empty())
            .find(|x| !supported.iter().any(|y| y == x))
        {
            return Err(format!("scope {x} is not offered by this server"));
        }
    }
    Ok(scope.map(str::to_string))
}

/// The draft's rules for a client id URL (§3): `https`, a host, a path other than `/`, no
/// user information, fragment, or `.`/`..` segments.
fn check_url(url: &str) -> Result<(), String> {
    if url.contains('#') {
        return Err("a client id URL has no fragment".into());
    }
    let uri: http::Uri = url.parse().map_err(|e| format!("it is not a URL: {e}"))?;
    if uri.scheme_str() != Some("https") {
        return Err("a client id URL must be https".into());
    }
    let authority = uri.authority().ok_or("it has no host")?;
    if authority.as_str().contains('@') {
        return Err("a client id URL has no user information".into());
    }
    let path = uri.path();
    if path.is_empty() || path == "/" {
        return Err("a client id URL has a path (https://host/client.json)".into());
    }
    if path.split('/').any(|s| s == "." || s == "..") {
        return Err("a client id URL has no . or .. segments".into());
    }
    Ok(())
}

/// How long the answer says it may be reused.
#[derive(Debug, PartialEq, Eq)]
enum CacheFor {
    Never,
    Seconds(u64),
    Unsaid,
}

struct Fetched {
    body: Bytes,
    max_age: CacheFor,
}

/// Reads `Cache-Control`: `no-store` or `no-cache` is never, `max-age=N` is N seconds.
fn cache_for(headers: &http::HeaderMap) -> CacheFor {
    let mut out = CacheFor::Unsaid;
    for v in headers.get_all(http::header::CACHE_CONTROL) {
        for d in v.to_str().unwrap_or("").split(',') {
            let d = d.trim().to_ascii_lowercase();
            if d == "no-store" || d == "no-cache" {
                return CacheFor::Never;
            }
            if let Some(n) = d.strip_prefix("max-age=") {
                if let Ok(n) = n.trim_matches('"').parse() {
                    out = CacheFor::Seconds(n);
                }
            }
        }
    }
    out
}

/// Whether an address is one the open internet routes to (the check against requests into the
/// proxy's own network).
pub(super) fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public_v4(v4);
            }
            let s = v6.segments();
            // NAT64 (64:ff9b::/96) reaches the IPv4 address it embeds.
            if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
                let o = v6.octets();
                return is_public_v4(Ipv4Addr::new(o[12], o[13], o[14], o[15]));
            }
            !(v6.is_unspecified()
                || v6.is_loopback()
                || v6.is_multicast()
                || (s[0] & 0xfe00) == 0xfc00 // unique local fc00::/7
                || (s[0] & 0xffc0) == 0xfe80 // link-local fe80::/10
                || (s[0] & 0xffc0) == 0xfec0 // site-local (deprecated) fec0::/10
                || (s[0] == 0x2001 && s[1] == 0x0db8) // documentation
                || s[0] == 0x2002 // 6to4: an IPv4 address of any kind behind it
                || s[..6] == [0, 0, 0, 0, 0, 0] // IPv4-compatible (deprecated)
                || s[..4] == [0x100, 0, 0, 0]) // discard-only 100::/64
        }
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let o = ip.octets();
    !(ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_multicast()
        || ip.is_broadcast()
        || ip.is_documentation()
        || o[0] == 0 // "this network"
        || (o[0] == 100 && (o[1] & 0xc0) == 64) // shared (carrier-grade NAT) 100.64/10
        || (o[0] == 192 && o[1] == 0 && o[2] == 0) // IETF protocol assignments
        || (o[0] == 198 && (o[1] & 0xfe) == 18) // benchmarking 198.18/15
        || o[0] >= 240) // reserved
}

/// Fetches a document within the policy's limits.
async fn fetch(url: &str, policy: &ClientIdDocuments) -> Result<Fetched, String> {
    tokio::time::timeout(policy.timeout, fetch_inner(url, policy))
        .await
        .map_err(|_| format!("no answer within {:?}", policy.timeout))?
}

async fn fetch_inner(url: &str, policy: &ClientIdDocuments) -> Result<Fetched, String> {
    let uri: http::Uri = url.parse().map_err(|e| format!("{e}"))?;
    let authority = uri.authority().ok_or("no host")?.clone();
    let host = authority
        .host()
        .trim_start_matches('[')
        .trim_end_matches(']');
    let port = authority.port_u16().unwrap_or(443);
    let addresses: Vec<SocketAddr> = match host.parse::<IpAddr>() {
        Ok(ip) => vec![SocketAddr::new(ip, port)],
        Err(_) => tokio::net::lookup_host((host, port))
            .await
            .map_err(|e| format!("{host} cannot be resolved: {e}"))?
            .collect(),
    };
    if addresses.is_empty() {
        return Err(format!("{host} has no address"));
    }
    if !policy.allow_private_addresses {
        if let Some(a) = addresses.iter().find(|a| !is_public(a.ip())) {
            return Err(format!(
                "{host} is at {}, not a public address (refused: the proxy does not fetch from its own network)",
                a.ip()
            ));
        }
    }
    let mut last = String::new();
    let mut tcp = None;
    for a in &addresses {
        match TcpStream::connect(a).await {
            Ok(s) => {
                tcp = Some(s);
                break;
            }
            Err(e) => last = format!("connecting to {a} failed: {e}"),
        }
    }
    let tcp = tcp.ok_or(last)?;
    let tls = TlsConnector::from(crate::tls::client_config(&policy.root_certificates)?);
    let name = ServerName::try_from(host.to_string())
        .map_err(|e| format!("{host} is not a TLS server name: {e}"))?;
    let stream = tls
        .connect(name, tcp)
        .await
        .map_err(|e| format!("TLS with {host} failed: {e}"))?;
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| format!("HTTP with {host} failed: {e}"))?;
    // The connection's task ends with the exchange, or at the time limit when the answer
    // never ends (the exchange given up by `fetch` leaves it otherwise to the peer).
    let limit = policy.timeout;
    tokio::spawn(async move {
        let _ = tokio::time::timeout(limit, conn).await;
    });
    let path = uri.path_and_query().map_or("/", |p| p.as_str());
    let req = http::Request::get(path)
        .header(http::header::HOST, authority.as_str())
        .header(http::header::ACCEPT, "application/json")
        .body(Empty::<Bytes>::new())
        .map_err(|e| format!("{e}"))?;
    let answer = sender
        .send_request(req)
        .await
        .map_err(|e| format!("the request failed: {e}"))?;
    let status = answer.status();
    if status.is_redirection() {
        return Err(format!("it answered {status} (redirects are not followed)"));
    }
    if status != http::StatusCode::OK {
        return Err(format!("it answered {status}"));
    }
    let max_age = cache_for(answer.headers());
    let body = Limited::new(answer.into_body(), policy.max_bytes)
        .collect()
        .await
        .map_err(|e| {
            if e.is::<http_body_util::LengthLimitError>() {
                format!("it is larger than {} bytes", policy.max_bytes)
            } else {
                format!("reading it failed: {e}")
            }
        })?
        .to_bytes();
    Ok(Fetched { body, max_age })
}

#[cfg(test)]
mod tests {
    use super::{cache_for, check_url, is_public, CacheFor};

    #[test]
    fn only_public_addresses_are_fetched_from() {
        for a in [
            "93.184.216.34",
            "2606:2800:220:1:248:1893:25c8:1946",
            "1.1.1.1",
        ] {
            assert!(is_public(a.parse().unwrap()), "{a}");
        }
        for a in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "100.64.0.1",
            "192.0.0.8",
            "198.18.0.1",
            "224.0.0.1",
            "255.255.255.255",
            "240.0.0.1",
            "192.0.2.1",
            "::1",
            "::",
            "fc00::1",
            "fd12::1",
            "fe80::1",
            "ff02::1",
            "2001:db8::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "64:ff9b::a00:1",
            "2002:a00:1::1",
            "::a00:1",
        ] {
            assert!(!is_public(a.parse().unwrap()), "{a}");
        }
    }

    #[test]
    fn client_id_urls_follow_the_drafts_rules() {
        assert!(check_url("https://app.example/client.json").is_ok());
        assert!(check_url("https://app.example:8443/oauth/meta?v=1").is_ok());
        for bad in [
            "http://app.example/client.json",
            "https://app.example",
            "https://app.example/",
            "https://user@app.example/c.json",
            "https://app.example/c.json#x",
            "https://app.example/a/../c.json",
            "https://app.example/./c.json",
            "urn:x:y",
        ] {
            assert!(check_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn cache_control_bounds_reuse() {
        let h = |v: &str| {
            let mut m = http::HeaderMap::new();
            m.insert(http::header::CACHE_CONTROL, v.parse().unwrap());
            cache_for(&m)
        };
        assert_eq!(h("public, max-age=120"), CacheFor::Seconds(120));
        assert_eq!(h("max-age=60, no-store"), CacheFor::Never);
        assert_eq!(h("no-cache"), CacheFor::Never);
        assert_eq!(cache_for(&http::HeaderMap::new()), CacheFor::Unsaid);
    }
}
