//! Dynamic client registration (RFC 7591) at the proxy: the metadata an MCP client sends is
//! checked (redirect URIs, authentication method, grant and response types, scope), a client id
//! and, for confidential clients, a secret are issued, and the client is kept in the store.

use super::error::{OAuthErrorCode, OAuthFailure};
use super::records::{client_key, fresh, secret_hash, ClientRecord};
use super::wire::{ProxyRequest, ProxyResponse};
use super::OAuthProxy;
use serde_json::{json, Map, Value};

const AUTH_METHODS: [&str; 3] = ["client_secret_basic", "client_secret_post", "none"];
pub(super) const GRANT_TYPES: [&str; 2] = ["authorization_code", "refresh_token"];
/// Metadata members kept and echoed when they are strings.
const TEXT_MEMBERS: [&str; 7] = [
    "client_name",
    "client_uri",
    "logo_uri",
    "tos_uri",
    "policy_uri",
    "software_id",
    "software_version",
];

fn bad(d: impl Into<String>) -> OAuthFailure {
    OAuthFailure::new(OAuthErrorCode::InvalidClientMetadata, d)
}

impl OAuthProxy {
    pub(super) async fn register(&self, req: &ProxyRequest) -> ProxyResponse {
        match self.register_inner(req).await {
            Ok(v) => ProxyResponse::json(201, &v),
            Err(f) => ProxyResponse::failure(&f),
        }
    }

    async fn register_inner(&self, req: &ProxyRequest) -> Result<Value, OAuthFailure> {
        let ct = req.header("content-type").unwrap_or("");
        if !ct
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .eq_ignore_ascii_case("application/json")
        {
            return Err(OAuthFailure::new(
                OAuthErrorCode::InvalidRequest,
                "a registration body must be application/json",
            ));
        }
        let body: Value = serde_json::from_slice(&req.body)
            .map_err(|e| bad(format!("the body is not JSON: {e}")))?;
        let Value::Object(m) = body else {
            return Err(bad("the body must be a JSON object of client metadata"));
        };
        let redirect_uris = redirect_uris(&m)?;
        let method = text(&m, "token_endpoint_auth_method")?
            .unwrap_or("client_secret_basic")
            .to_string();
        if !AUTH_METHODS.contains(&method.as_str()) {
            return Err(bad(format!(
                "token_endpoint_auth_method {method} is not supported (use one of {})",
                AUTH_METHODS.join(", ")
            )));
        }
        let grant_types =
            texts(&m, "grant_types")?.unwrap_or_else(|| vec!["authorization_code".into()]);
        if let Some(g) = grant_types
            .iter()
            .find(|g| !GRANT_TYPES.contains(&g.as_str()))
        {
            return Err(bad(format!("grant type {g} is not supported")));
        }
        if !grant_types.iter().any(|g| g == "authorization_code") {
            return Err(bad("grant_types must include authorization_code"));
        }
        let response_types = texts(&m, "response_types")?.unwrap_or_else(|| vec!["code".into()]);
        if response_types != ["code"] {
            return Err(bad("response_types must be [\"code\"]"));
        }
        let scope = text(&m, "scope")?.map(str::to_string);
        let supported = &self.inner.config.scopes_supported;
        if let (Some(s), false) = (&scope, supported.is_empty()) {
            if let Some(x) = s
                .split(' ')
                .filter(|x| !x.is_empty())
                .find(|x| !supported.iter().any(|y| y == x))
            {
                return Err(OAuthFailure::new(
                    OAuthErrorCode::InvalidClientMetadata,
                    format!("scope {x} is not offered by this server"),
                ));
            }
        }
        let mut answer = Map::new();
        for k in TEXT_MEMBERS {
            if let Some(v) = text(&m, k)? {
                answer.insert(k.into(), json!(v));
            }
        }
        let client_id = fresh();
        let secret = (method != "none").then(fresh);
        let record = ClientRecord {
            client_id: client_id.clone(),
            secret_hash: secret.as_deref().map(secret_hash),
            redirect_uris: redirect_uris.clone(),
            token_endpoint_auth_method: method.clone(),
            grant_types: grant_types.clone(),
            scope: scope.clone(),
            client_name: text(&m, "client_name")?.map(str::to_string),
        };
        let ttl = self.inner.config.client_ttl;
        self.save(&client_key(&client_id), &record, ttl).await?;
        let now = super::now_secs();
        answer.insert("client_id".into(), json!(client_id));
        answer.insert("client_id_issued_at".into(), json!(now));
        if let Some(s) = secret {
            answer.insert("client_secret".into(), json!(s));
            answer.insert(
                "client_secret_expires_at".into(),
                json!(now + ttl.as_secs()),
            );
        }
        answer.insert("redirect_uris".into(), json!(redirect_uris));
        answer.insert("token_endpoint_auth_method".into(), json!(method));
        answer.insert("grant_types".into(), json!(grant_types));
        answer.insert("response_types".into(), json!(response_types));
        if let Some(s) = scope {
            answer.insert("scope".into(), json!(s));
        }
        Ok(Value::Object(answer))
    }
}

/// A string member, if present.
pub(super) fn text<'a>(
    m: &'a Map<String, Value>,
    k: &str,
) -> Result<Option<&'a str>, OAuthFailure> {
    match m.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(bad(format!("{k} must be a string"))),
    }
}

/// An array-of-strings member, if present.
pub(super) fn texts(m: &Map<String, Value>, k: &str) -> Result<Option<Vec<String>>, OAuthFailure> {
    match m.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .map(Some)
            .ok_or_else(|| bad(format!("{k} must be an array of strings"))),
        Some(_) => Err(bad(format!("{k} must be an array of strings"))),
    }
}

/// The redirect URIs: at least one; each `https://`, `http://` on a loopback host (RFC 8252
/// §7.3), or a private-use scheme with a dot in it (RFC 8252 §7.1, `com.example.app:/cb`); no
/// fragment.
pub(super) fn redirect_uris(m: &Map<String, Value>) -> Result<Vec<String>, OAuthFailure> {
    let uris = texts(m, "redirect_uris")?
        .filter(|u| !u.is_empty())
        .ok_or_else(|| bad("redirect_uris must be a non-empty array of URLs"))?;
    for u in &uris {
        if let Err(why) = redirect_uri_allowed(u) {
            return Err(OAuthFailure::new(
                OAuthErrorCode::InvalidRedirectUri,
                format!("redirect URI {u} is refused: {why}"),
            ));
        }
    }
    Ok(uris)
}

pub(super) fn redirect_uri_allowed(u: &str) -> Result<(), &'static str> {
    if u.contains('#') {
        return Err("it has a fragment");
    }
    let Some((scheme, rest)) = u.split_once(':') else {
        return Err("it is not an absolute URI");
    };
    let scheme = scheme.to_ascii_lowercase();
    if scheme == "https" {
        return if rest.starts_with("//") && rest.len() > 2 {
            Ok(())
        } else {
            Err("it has no host")
        };
    }
    if scheme == "http" {
        let host = loopback_host(u);
        return if host.is_some() {
            Ok(())
        } else {
            Err("http is allowed on loopback hosts only")
        };
    }
    if scheme.contains('.')
        && scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-'))
    {
        return Ok(());
    }
    Err("the scheme must be https, http on a loopback host, or a private-use scheme such as com.example.app")
}

/// For an `http://` URI on a loopback host: the URI without its port (for comparing loopback
/// redirect URIs, whose port may change from run to run, RFC 8252 §7.3).
pub(super) fn loopback_host(u: &str) -> Option<String> {
    let rest = u.strip_prefix("http://")?;
    let (authority, path) = match rest.find(['/', '?']) {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    // No user information (`http://localhost:80@evil.example/` goes to evil.example) and a
    // port of digits only: anything else is not a loopback URI, whatever its first characters.
    if authority.contains('@') {
        return None;
    }
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (inside, after) = v6.split_once(']')?;
        (format!("[{inside}]"), after)
    } else {
        match authority.split_once(':') {
            Some((h, _)) => (h.to_string(), &authority[h.len()..]),
            None => (authority.to_string(), ""),
        }
    };
    let port_ok = match port.strip_prefix(':') {
        Some(digits) => !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()),
        None => port.is_empty(),
    };
    if !port_ok {
        return None;
    }
    matches!(
        host.to_ascii_lowercase().as_str(),
        "localhost" | "127.0.0.1" | "[::1]"
    )
    .then(|| format!("http://{}{path}", host.to_ascii_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::{loopback_host, redirect_uri_allowed};

    #[test]
    fn loopback_redirects_are_recognised_apart_from_their_port() {
        assert_eq!(
            loopback_host("http://127.0.0.1:5173/cb").as_deref(),
            Some("http://127.0.0.1/cb")
        );
        assert_eq!(
            loopback_host("http://localhost/cb?x=1").as_deref(),
            Some("http://localhost/cb?x=1")
        );
        assert_eq!(
            loopback_host("http://[::1]:8080/").as_deref(),
            Some("http://[::1]/")
        );
    }

    #[test]
    fn a_uri_that_only_starts_like_a_loopback_one_is_not_one() {
        for u in [
            "http://localhost:80@evil.example/cb",
            "http://localhost@evil.example/cb",
            "http://127.0.0.1:@evil.example/",
            "http://localhost:80x/cb",
            "http://localhost:/cb",
            "http://[::1]@evil.example/",
            "http://[::1]evil.example/",
            "http://localhost.evil.example/cb",
        ] {
            assert_eq!(loopback_host(u), None, "{u}");
            assert!(redirect_uri_allowed(u).is_err(), "{u}");
        }
        // Nor does it match a registered loopback URI at /authorize, where the code would go
        // to evil.example.
        assert!(super::super::authorize::redirect_matches(
            "http://localhost:1234/cb",
            "http://localhost:1234/cb"
        ));
        assert!(super::super::authorize::redirect_matches(
            "http://localhost:1234/cb",
            "http://localhost:5678/cb"
        ));
        assert!(!super::super::authorize::redirect_matches(
            "http://localhost:1234/cb",
            "http://localhost:80@evil.example/cb"
        ));
    }
}
