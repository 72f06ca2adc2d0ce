//! URL helpers of the OAuth flow: splitting into origin and path, the canonical resource URI
//! (RFC 8707), the well-known URLs of RFC 9728 and RFC 8414, query strings.

use super::AuthError;

/// A parsed absolute URL: `scheme://authority` and the path (without query or fragment).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Parts {
    /// `scheme://authority`, scheme and host lowercased.
    pub origin: String,
    /// The path, `""` when there is none or it is `/`.
    pub path: String,
}

/// Splits an absolute `http(s)` URL.
pub(crate) fn parts(url: &str) -> Result<Parts, AuthError> {
    let bad = |d: &str| AuthError::InvalidUrl {
        url: url.to_string(),
        detail: d.to_string(),
    };
    let uri: http::Uri = url.parse().map_err(|e| bad(&format!("{e}")))?;
    let scheme = uri.scheme_str().ok_or_else(|| bad("no scheme"))?;
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return Err(bad("not an http(s) URL"));
    }
    let authority = uri.authority().ok_or_else(|| bad("no host"))?;
    let path = uri.path().trim_end_matches('/').to_string();
    Ok(Parts {
        origin: format!(
            "{}://{}",
            scheme.to_ascii_lowercase(),
            authority.as_str().to_ascii_lowercase()
        ),
        path,
    })
}

/// The canonical URI of a resource: lowercase scheme and host, no query or fragment, no
/// trailing slash.
pub(crate) fn canonical(url: &str) -> Result<String, AuthError> {
    let url = url.split('#').next().unwrap_or(url);
    let p = parts(url)?;
    Ok(format!("{}{}", p.origin, p.path))
}

/// Whether `resource` (from metadata) covers `server`: same origin, and the server's path is the
/// resource's path or below it.
pub(crate) fn resource_covers(resource: &str, server: &str) -> bool {
    let (Ok(r), Ok(s)) = (parts(resource), parts(server)) else {
        return false;
    };
    r.origin == s.origin
        && (r.path.is_empty() || s.path == r.path || s.path.starts_with(&format!("{}/", r.path)))
}

/// Protected Resource Metadata URLs for `server` when the header named none (RFC 9728 §3.1):
/// path-based first (when the server has a path), then the root.
pub(crate) fn resource_metadata_urls(server: &str) -> Result<Vec<String>, AuthError> {
    let p = parts(server)?;
    let mut out = Vec::new();
    if !p.path.is_empty() {
        out.push(format!(
            "{}/.well-known/oauth-protected-resource{}",
            p.origin, p.path
        ));
    }
    out.push(format!("{}/.well-known/oauth-protected-resource", p.origin));
    Ok(out)
}

/// Authorization server metadata URLs for `issuer`, in the MCP priority order: RFC 8414 path
/// insertion, OpenID path insertion, OpenID path appending (issuer with a path), or RFC 8414 then
/// OpenID at the root.
pub(crate) fn server_metadata_urls(issuer: &str) -> Result<Vec<String>, AuthError> {
    let p = parts(issuer)?;
    Ok(if p.path.is_empty() {
        vec![
            format!("{}/.well-known/oauth-authorization-server", p.origin),
            format!("{}/.well-known/openid-configuration", p.origin),
        ]
    } else {
        vec![
            format!(
                "{}/.well-known/oauth-authorization-server{}",
                p.origin, p.path
            ),
            format!("{}/.well-known/openid-configuration{}", p.origin, p.path),
            format!("{}{}/.well-known/openid-configuration", p.origin, p.path),
        ]
    })
}

/// Appends `params` to `url`'s query string.
pub(crate) fn with_query(url: &str, params: &[(&str, String)]) -> String {
    let q = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(params.iter().map(|(k, v)| (*k, v.as_str())))
        .finish();
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}{q}")
}

/// The query parameters of a URL (first value of each name).
pub(crate) fn query_params(url: &str) -> Vec<(String, String)> {
    let no_frag = url.split('#').next().unwrap_or(url);
    match no_frag.split_once('?') {
        Some((_, q)) => form_urlencoded::parse(q.as_bytes())
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect(),
        None => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_known_urls_follow_the_spec_order() {
        assert_eq!(
            resource_metadata_urls("http://h:1/public/mcp").unwrap(),
            [
                "http://h:1/.well-known/oauth-protected-resource/public/mcp",
                "http://h:1/.well-known/oauth-protected-resource"
            ]
        );
        assert_eq!(
            resource_metadata_urls("http://h:1/").unwrap(),
            ["http://h:1/.well-known/oauth-protected-resource"]
        );
        assert_eq!(
            server_metadata_urls("https://auth.example.com/tenant1").unwrap(),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            server_metadata_urls("https://auth.example.com").unwrap(),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration"
            ]
        );
    }

    #[test]
    fn canonical_uris_and_resource_coverage() {
        assert_eq!(
            canonical("HTTP://Example.COM:8080/mcp/?x=1#f").unwrap(),
            "http://example.com:8080/mcp"
        );
        assert_eq!(canonical("http://a.b/").unwrap(), "http://a.b");
        assert!(canonical("mcp.example.com").is_err());
        assert!(resource_covers("http://a:1", "http://a:1/mcp"));
        assert!(resource_covers("http://a:1/mcp", "http://a:1/mcp"));
        assert!(!resource_covers("http://a:1/mc", "http://a:1/mcp"));
        assert!(!resource_covers(
            "https://evil.example.com/mcp",
            "http://a:1/mcp"
        ));
    }

    #[test]
    fn query_round_trip() {
        let u = with_query(
            "http://a/authorize",
            &[("scope", "a b".into()), ("x", "&=".into())],
        );
        assert_eq!(u, "http://a/authorize?scope=a+b&x=%26%3D");
        assert_eq!(
            query_params(&u),
            [
                ("scope".to_string(), "a b".to_string()),
                ("x".into(), "&=".into())
            ]
        );
    }
}
