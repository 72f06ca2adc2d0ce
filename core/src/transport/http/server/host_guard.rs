//! The DNS-rebinding guard: the Host/Origin allow-list of one endpoint, resolved from the options
//! and the bound address, and the check of each request against it.

use super::super::request::{visible_str, Fields};
use super::super::HttpServerOptions;
use super::responses::rpc_error;
use crate::McpError;
use axum::http::StatusCode;
use axum::response::Response;
use std::net::SocketAddr;

/// Splits an authority (`name`, `name:port`, `[v6]`, `[v6]:port`) into its lowercased host (IPv6
/// in brackets) and port. For the configured allow-list, which is read leniently (spaces around
/// an entry ignored); what a request sends is read by [`parse_authority`].
fn split_authority(authority: &str) -> (String, Option<u16>) {
    let a = authority.trim().to_ascii_lowercase();
    if a.starts_with('[') {
        if let Some(end) = a.find(']') {
            let host = a[..=end].to_string();
            let port = a[end + 1..].strip_prefix(':').and_then(|p| p.parse().ok());
            return (host, port);
        }
        return (a, None);
    }
    match a.rsplit_once(':') {
        // A bare IPv6 address without brackets: no port.
        Some((h, _)) if h.contains(':') => (format!("[{a}]"), None),
        Some((h, p)) => match p.parse() {
            Ok(port) => (h.to_string(), Some(port)),
            Err(_) => (a, None),
        },
        None => (a, None),
    }
}

/// Reads an authority a request sends (a `Host` value, an origin's host and port) exactly as
/// RFC 9110 §7.2 and RFC 3986 §3.2.2 write it: `uri-host [ ":" port ]`, where the host is a
/// reg-name or IPv4 address (unreserved, sub-delims or pct-encoded characters, not empty) or an
/// IP literal in brackets, and the port is digits only (an empty port is the default one,
/// RFC 3986 §6.2.3). Anything else (a space, a sign before the port, userinfo, a path) is
/// `None`: such a value names no host the allow-list could hold, and is refused rather than
/// read loosely. The host comes back lowercased, the port as given (`None`: none given).
fn parse_authority(authority: &str) -> Option<(String, Option<u16>)> {
    let (host, port) = if authority.starts_with('[') {
        let end = authority.find(']')?;
        let literal = &authority[1..end];
        let ok = !literal.is_empty()
            && literal
                .bytes()
                .all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.');
        if !ok {
            return None;
        }
        let rest = &authority[end + 1..];
        let port = match rest {
            "" => None,
            _ => Some(rest.strip_prefix(':')?),
        };
        (&authority[..=end], port)
    } else {
        let (host, port) = match authority.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        };
        let reg_name = |b: u8| b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=%".contains(&b);
        if host.is_empty() || !host.bytes().all(reg_name) {
            return None;
        }
        (host, port)
    };
    let port = match port {
        None | Some("") => None,
        Some(p) if p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()) => Some(p.parse().ok()?),
        Some(_) => return None,
    };
    Some((host.to_ascii_lowercase(), port))
}

/// Reads an `Origin` value (RFC 6454 §7, RFC 9110 §7.2): `null`, or a serialized origin
/// `scheme "://" host [ ":" port ]` with nothing after it. `Some((scheme, host, port))` for the
/// latter (scheme and host lowercased); `None` for `null` and for anything that is no
/// serialized origin: a trailing `/`, a path, a query, userinfo, spaces.
fn parse_origin(origin: &str) -> Option<(String, String, Option<u16>)> {
    let (scheme, rest) = origin.split_once("://")?;
    let scheme_ok = scheme
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic())
        && scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b));
    if !scheme_ok || rest.contains(['/', '?', '#', '@']) {
        return None;
    }
    let (host, port) = parse_authority(rest)?;
    Some((scheme.to_ascii_lowercase(), host, port))
}

/// The resolved DNS-rebinding allow-list of one endpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct HostGuard {
    /// (host, port): `None` port matches any port.
    hosts: Vec<(String, Option<u16>)>,
    origins: Vec<String>,
    /// `host:port` of every entry with a port, as a client usually sends it: a Host header equal
    /// to one of these is allowed without parsing it.
    exact: Vec<String>,
}

impl HostGuard {
    /// A guard allowing `hosts` (`None` port: any) and `origins`.
    pub(super) fn new(hosts: Vec<(String, Option<u16>)>, origins: Vec<String>) -> HostGuard {
        let exact = hosts
            .iter()
            .filter_map(|(h, p)| p.map(|p| format!("{h}:{p}")))
            .collect();
        HostGuard {
            hosts,
            origins,
            exact,
        }
    }

    fn host_allowed(&self, host: &str, port: Option<u16>) -> bool {
        self.hosts
            .iter()
            .any(|(h, p)| h == host && (p.is_none() || *p == port))
    }

    /// Whether `authority` (`name:port`) is an allowed host: first as one of the precomputed
    /// `host:port` strings, then without allocating when it is plainly one of the allowed names
    /// (the usual cases; anything unusual takes the full path).
    fn authority_allowed(&self, authority: &str, default_port: u16) -> bool {
        if self.exact.iter().any(|e| e == authority) {
            return true;
        }
        if let Some((name, port)) = authority.rsplit_once(':') {
            let plain = !name.is_empty()
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
                && !port.is_empty()
                && port.len() <= 5
                && port.bytes().all(|b| b.is_ascii_digit());
            if plain {
                if let Ok(port) = port.parse::<u16>() {
                    return self.hosts.iter().any(|(h, p)| {
                        h.eq_ignore_ascii_case(name) && (p.is_none() || *p == Some(port))
                    });
                }
            }
        }
        match parse_authority(authority) {
            Some((name, port)) => self.host_allowed(&name, port.or(Some(default_port))),
            None => false,
        }
    }

    /// Checks a request's host and `Origin`; `Err` is the answer (403, or 400 for a duplicate
    /// `Host` or `Origin`). The host is `target` (the authority of an absolute-form target,
    /// with its scheme's default port) when there is one (RFC 9112 §3.2.2), else `Host`. A
    /// `Host` or `Origin` that is not visible ASCII is refused, not skipped.
    pub(super) fn check(&self, target: Option<(&str, u16)>, h: &Fields) -> Result<(), Response> {
        let forbid = |why: String| {
            Err(rpc_error(
                StatusCode::FORBIDDEN,
                None,
                McpError::invalid_request(why),
            ))
        };
        let duplicate = |name: &str| {
            Err(rpc_error(
                StatusCode::BAD_REQUEST,
                None,
                McpError::invalid_request(format!("more than one {name} header")),
            ))
        };
        // One pass over the fields finds both and notices a repeated one; a repeated `Host` is
        // reported before a repeated `Origin`.
        let [(host, many_hosts), (origin, many_origins)] = h.get_each_once(["host", "origin"]);
        if many_hosts {
            return duplicate("Host");
        }
        if many_origins {
            return duplicate("Origin");
        }
        let (authority, default_port) = match (target, host) {
            (Some(t), _) => t,
            (None, Some(raw)) => match visible_str(raw) {
                Some(host) => (host, 80),
                None => return forbid("Host header is not visible ASCII".into()),
            },
            (None, None) => return forbid("Host header required".into()),
        };
        if !self.authority_allowed(authority, default_port) {
            return forbid(format!("Host {authority:?} is not allowed"));
        }
        if let Some(raw) = origin {
            let Some(origin) = visible_str(raw) else {
                return forbid("Origin header is not visible ASCII".into());
            };
            if self.origins.iter().any(|o| o.eq_ignore_ascii_case(origin)) {
                return Ok(());
            }
            // Only a serialized origin (no path, not even `/`) can match an allowed host.
            let allowed = parse_origin(origin).is_some_and(|(scheme, name, port)| {
                let default_port = if scheme == "https" { 443 } else { 80 };
                self.host_allowed(&name, port.or(Some(default_port)))
            });
            if !allowed {
                return forbid(format!("Origin {origin:?} is not allowed"));
            }
        }
        Ok(())
    }
}

/// Resolves the DNS-rebinding protection of `opts` for an endpoint bound to `bound` (`None`:
/// unknown, as for [`router`]). `None` means the protection is off.
pub(super) fn resolve_host_guard(
    opts: &HttpServerOptions,
    bound: Option<SocketAddr>,
) -> Option<HostGuard> {
    let configured = !opts.allowed_hosts.is_empty() || !opts.allowed_origins.is_empty();
    let loopback = bound.is_none_or(|a| a.ip().is_loopback());
    let on = opts
        .dns_rebinding_protection
        .unwrap_or(loopback || configured);
    if !on {
        return None;
    }
    let hosts = if opts.allowed_hosts.is_empty() {
        let port = bound.map(|a| a.port());
        ["localhost", "127.0.0.1", "[::1]"]
            .iter()
            .map(|h| (h.to_string(), port))
            .collect()
    } else {
        opts.allowed_hosts
            .iter()
            .map(|h| split_authority(h))
            .collect()
    };
    Some(HostGuard::new(hosts, opts.allowed_origins.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::{HeaderMap, HeaderValue};

    fn headers(pairs: &[(&'static str, &str)]) -> Fields {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        Fields::from_map(&h)
    }

    #[test]
    fn dns_protection_defaults_follow_the_bind() {
        let o = HttpServerOptions::default();
        let lo: SocketAddr = "127.0.0.1:4000".parse().unwrap();
        let lo6: SocketAddr = "[::1]:4000".parse().unwrap();
        let any: SocketAddr = "0.0.0.0:4000".parse().unwrap();
        let g = resolve_host_guard(&o, Some(lo)).expect("on for a loopback bind");
        assert!(g
            .check(None, &headers(&[("host", "127.0.0.1:4000")]))
            .is_ok());
        assert!(g
            .check(None, &headers(&[("host", "localhost:4000")]))
            .is_ok());
        assert!(g.check(None, &headers(&[("host", "[::1]:4000")])).is_ok());
        assert!(g
            .check(None, &headers(&[("host", "127.0.0.1:4001")]))
            .is_err());
        assert!(g.check(None, &headers(&[("host", "127.0.0.1")])).is_err());
        assert!(g
            .check(None, &headers(&[("host", "evil.example:4000")]))
            .is_err());
        assert!(g.check(None, &headers(&[])).is_err());
        let ok_origin = headers(&[
            ("host", "localhost:4000"),
            ("origin", "http://localhost:4000"),
        ]);
        assert!(g.check(None, &ok_origin).is_ok());
        let bad_origin = headers(&[
            ("host", "localhost:4000"),
            ("origin", "http://localhost:5173"),
        ]);
        assert!(g.check(None, &bad_origin).is_err());
        assert!(resolve_host_guard(&o, Some(lo6)).is_some());
        // Unknown bind (router()): on, loopback names with any port.
        let g = resolve_host_guard(&o, None).expect("on");
        assert!(g
            .check(None, &headers(&[("host", "localhost:1234")]))
            .is_ok());
        // Non-loopback bind: off unless configured.
        assert_eq!(resolve_host_guard(&o, Some(any)), None);
        let configured = HttpServerOptions {
            allowed_hosts: vec!["mcp.example.com".into()],
            ..Default::default()
        };
        let g = resolve_host_guard(&configured, Some(any)).expect("on when configured");
        assert!(g
            .check(None, &headers(&[("host", "mcp.example.com:4000")]))
            .is_ok());
        assert!(g
            .check(None, &headers(&[("host", "localhost:4000")]))
            .is_err());
        let origins = HttpServerOptions {
            allowed_origins: vec!["https://app.example.com".into()],
            ..Default::default()
        };
        assert!(resolve_host_guard(&origins, Some(any)).is_some());
        // Explicit settings win either way.
        let forced = HttpServerOptions {
            dns_rebinding_protection: Some(true),
            ..Default::default()
        };
        let g = resolve_host_guard(&forced, Some(any)).expect("forced on");
        assert!(g
            .check(None, &headers(&[("host", "127.0.0.1:4000")]))
            .is_ok());
        assert!(g
            .check(None, &headers(&[("host", "10.0.0.5:4000")]))
            .is_err());
        let off = HttpServerOptions {
            dns_rebinding_protection: Some(false),
            ..Default::default()
        };
        assert_eq!(resolve_host_guard(&off, Some(lo)), None);
    }

    #[test]
    fn host_entries_with_and_without_port() {
        let o = HttpServerOptions {
            allowed_hosts: vec![
                "a.example".into(),
                "b.example:8080".into(),
                "[::1]:9".into(),
            ],
            allowed_origins: vec!["https://ui.example".into()],
            ..Default::default()
        };
        let g = resolve_host_guard(&o, None).unwrap();
        assert!(g.check(None, &headers(&[("host", "A.example:1")])).is_ok());
        assert!(g
            .check(None, &headers(&[("host", "b.example:8080")]))
            .is_ok());
        assert!(g.check(None, &headers(&[("host", "b.example")])).is_err());
        assert!(g.check(None, &headers(&[("host", "[::1]:9")])).is_ok());
        let h = headers(&[("host", "a.example"), ("origin", "https://ui.example")]);
        assert!(g.check(None, &h).is_ok());
        let h = headers(&[("host", "a.example"), ("origin", "https://a.example")]);
        assert!(g.check(None, &h).is_ok());
        let h = headers(&[("host", "a.example"), ("origin", "null")]);
        assert!(g.check(None, &h).is_err());
    }
}
