//! A built-in [`TokenVerifier`]: RFC 7662 token introspection. A protected server whose
//! authorization server issues opaque tokens asks the authorization server's introspection
//! endpoint about each token (authenticating as a confidential client with HTTP Basic) and
//! turns the answer (`active`, `sub`, `client_id`, `scope`, `aud`, `exp`) into an [`AuthInfo`];
//! [`super::ResourceAuth`] then checks expiry, audience and scopes as for any verifier.

use super::http::AuthHttp;
use super::resource::{AuthInfo, TokenVerifier};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use futures_util::future::BoxFuture;
use serde_json::Value;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long one introspection request may take: a request waits on it.
const TIMEOUT: Duration = Duration::from_secs(5);
/// After the endpoint could not be reached, how long tokens are refused at once instead of
/// each request waiting out its own timeout (the negative cache).
const OUTAGE_HOLD: Duration = Duration::from_secs(5);

/// Verifies bearer tokens at an RFC 7662 introspection endpoint (`http://` or `https://`).
#[derive(Clone)]
pub struct IntrospectionVerifier {
    endpoint: String,
    basic: Option<String>,
    http: AuthHttp,
    /// When the endpoint last failed to answer, and how (shared by clones).
    outage: Arc<Mutex<Option<(Instant, String)>>>,
}

impl std::fmt::Debug for IntrospectionVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IntrospectionVerifier")
            .field("endpoint", &self.endpoint)
            .finish_non_exhaustive()
    }
}

impl IntrospectionVerifier {
    /// Introspects at `endpoint` without client authentication (most servers require it: see
    /// [`Self::client_credentials`]).
    ///
    /// ```
    /// use ferromcp_auth::{IntrospectionVerifier, TokenVerifier};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let free = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?;
    /// # let endpoint = format!("http://{free}/introspect");
    /// // `endpoint`: e.g. "https://auth.example.com/oauth2/introspect".
    /// let verifier = IntrospectionVerifier::new(endpoint).client_credentials("mcp-server", "s3cret");
    /// // An endpoint that does not answer refuses the token (and says why).
    /// assert!(verifier.verify("some-token").await.is_err());
    /// # Ok(())
    /// # }
    /// ```
    pub fn new(endpoint: impl Into<String>) -> Self {
        Self {
            endpoint: endpoint.into(),
            basic: None,
            http: AuthHttp::default().with_timeout(TIMEOUT),
            outage: Arc::default(),
        }
    }

    /// Also trusts the CA certificates in `pems` (PEM text each) for an `https://` endpoint
    /// (e.g. a private CA); Mozilla's roots are always trusted. A bad certificate fails every
    /// introspection with the reason.
    pub fn root_certificates(mut self, pems: &[String]) -> Self {
        self.http = AuthHttp::with_roots(pems).with_timeout(TIMEOUT);
        self
    }

    /// Authenticates the introspection requests as `client_id`/`client_secret` (HTTP Basic,
    /// each part form-encoded first as RFC 6749 section 2.3.1 says).
    pub fn client_credentials(mut self, client_id: &str, client_secret: &str) -> Self {
        let enc = |s: &str| form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
        let pair = format!("{}:{}", enc(client_id), enc(client_secret));
        self.basic = Some(format!("Basic {}", STANDARD.encode(pair)));
        self
    }

    async fn introspect(&self, token: String) -> Result<AuthInfo, String> {
        let mut headers = Vec::new();
        if let Some(b) = &self.basic {
            headers.push(("authorization", b.clone()));
        }
        let form = [
            ("token", token),
            ("token_type_hint", "access_token".to_string()),
        ];
        if let Some((at, why)) = self.outage.lock().unwrap().as_ref() {
            if at.elapsed() < OUTAGE_HOLD {
                return Err(format!("token introspection failed: {why}"));
            }
        }
        let answer = match self.http.post_form(&self.endpoint, &form, &headers).await {
            Ok(a) => a,
            Err(e) => {
                tracing::warn!(endpoint = %self.endpoint, error = %e, "token introspection failed");
                *self.outage.lock().unwrap() = Some((Instant::now(), e.to_string()));
                return Err(format!("token introspection failed: {e}"));
            }
        };
        if !answer.status.is_success() {
            return Err(format!(
                "token introspection failed: HTTP {}",
                answer.status.as_u16()
            ));
        }
        let doc: Value = serde_json::from_slice(&answer.body)
            .map_err(|e| format!("token introspection answered invalid JSON: {e}"))?;
        info_from_introspection(doc)
    }
}

impl TokenVerifier for IntrospectionVerifier {
    fn verify(&self, token: &str) -> BoxFuture<'static, Result<AuthInfo, String>> {
        let this = self.clone();
        let token = token.to_string();
        Box::pin(async move { this.introspect(token).await })
    }
}

/// An introspection response (RFC 7662 section 2.2) as an identity; inactive tokens and
/// malformed answers are refused. Every member is kept in [`AuthInfo::claims`].
fn info_from_introspection(doc: Value) -> Result<AuthInfo, String> {
    let Value::Object(m) = &doc else {
        return Err("token introspection answered something other than an object".into());
    };
    if m.get("active") != Some(&Value::Bool(true)) {
        return Err("token is not active".into());
    }
    let text = |k: &str| m.get(k).and_then(Value::as_str).map(str::to_string);
    let scopes = match m.get("scope") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) => s.split_whitespace().map(str::to_string).collect(),
        Some(other) => return Err(format!("introspection scope is not a string: {other}")),
    };
    let audience = match m.get("aud") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .ok_or("introspection aud holds a non-string")?,
        Some(other) => return Err(format!("introspection aud is malformed: {other}")),
    };
    let expires_at = match m.get("exp") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_u64()
                .ok_or_else(|| format!("introspection exp is not a NumericDate: {v}"))?,
        ),
    };
    // `AuthInfo` is `#[non_exhaustive]` in the crate below: no struct literal here.
    let mut info = AuthInfo::default()
        .with_scopes(scopes)
        .with_audience(audience)
        .with_claims(doc.clone());
    info.subject = text("sub");
    info.client_id = text("client_id");
    info.expires_at = expires_at;
    Ok(info)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_an_introspection_answer() {
        let a = info_from_introspection(json!({
            "active": true, "sub": "alice", "client_id": "c1", "scope": "a b",
            "aud": ["http://x/mcp"], "exp": 2000000000u64, "tenant": "t1"
        }))
        .unwrap();
        assert_eq!(a.subject.as_deref(), Some("alice"));
        assert_eq!(a.scopes, ["a", "b"]);
        assert_eq!(a.audience, ["http://x/mcp"]);
        assert_eq!(a.expires_at, Some(2000000000));
        assert_eq!(a.claims["tenant"], "t1");
        let b = info_from_introspection(json!({"active": true, "aud": "http://y"})).unwrap();
        assert_eq!(b.audience, ["http://y"]);
        for bad in [
            json!({"active": false, "sub": "x"}),
            json!({"sub": "x"}),
            json!({"active": "true"}),
            json!({"active": true, "scope": ["a"]}),
            json!({"active": true, "aud": [1]}),
            json!({"active": true, "exp": "soon"}),
            json!([]),
        ] {
            assert!(info_from_introspection(bad.clone()).is_err(), "{bad}");
        }
    }
}
