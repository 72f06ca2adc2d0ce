//! The resource-server side: a protected MCP server verifies the bearer token of every HTTP
//! request with a user [`TokenVerifier`], checks expiry, audience (RFC 8707) and required
//! scopes, answers 401 / 403 with a `WWW-Authenticate` challenge naming its Protected Resource
//! Metadata (RFC 9728), serves that document, and hands the verified [`AuthInfo`] to handlers
//! (`ferromcp::session::RequestContext::auth`).

use super::store::now_secs;
use super::url::{canonical, parts};
pub use ferromcp_protocol::auth_info::AuthInfo;
use futures_util::future::BoxFuture;
use serde_json::{json, Value};
use std::sync::Arc;

/// Checks a bearer token: resolves with what it grants, or with the reason it is refused (sent
/// to the client as `error_description`). JWT validation or token introspection go here.
pub trait TokenVerifier: Send + Sync {
    /// Verifies `token`.
    fn verify(&self, token: &str) -> BoxFuture<'static, Result<AuthInfo, String>>;
}

impl<F> TokenVerifier for F
where
    F: Fn(&str) -> BoxFuture<'static, Result<AuthInfo, String>> + Send + Sync,
{
    fn verify(&self, token: &str) -> BoxFuture<'static, Result<AuthInfo, String>> {
        self(token)
    }
}

/// Protection of an MCP HTTP endpoint (`ferromcp::transport::http::HttpServerOptions::auth`).
#[derive(Clone)]
#[non_exhaustive]
pub struct ResourceAuth {
    /// This server's canonical URL (e.g. `https://mcp.example.com/mcp`): the `resource` of its
    /// metadata and the audience tokens must carry.
    pub resource: String,
    /// The authorization servers (issuer URLs) whose tokens are accepted.
    pub authorization_servers: Vec<String>,
    /// `scopes_supported` of the metadata.
    pub scopes_supported: Option<Vec<String>>,
    /// Scopes every request needs (403 `insufficient_scope` without them).
    pub required_scopes: Vec<String>,
    /// Reject tokens whose [`AuthInfo::audience`] lacks [`Self::resource`] (default true; turn
    /// off only when the verifier checked the audience itself).
    pub check_audience: bool,
    /// The verifier.
    pub verifier: Arc<dyn TokenVerifier>,
}

impl std::fmt::Debug for ResourceAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceAuth")
            .field("resource", &self.resource)
            .field("authorization_servers", &self.authorization_servers)
            .field("required_scopes", &self.required_scopes)
            .finish_non_exhaustive()
    }
}

/// A refusal: the HTTP status, the `WWW-Authenticate` value and a JSON body.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Denial {
    /// 401 or 403.
    pub status: u16,
    /// The `WWW-Authenticate` header value.
    pub www_authenticate: String,
    /// `{"error": ..., "error_description": ...}`.
    pub body: Value,
}

impl ResourceAuth {
    /// Protection for the server at `resource`, accepting tokens of `authorization_servers`
    /// checked by `verifier`.
    ///
    /// ```
    /// use ferromcp_auth::{AuthInfo, ResourceAuth};
    /// use futures_util::future::BoxFuture;
    /// use std::sync::Arc;
    ///
    /// // A verifier accepting one static token; use `JwtVerifier` or `IntrospectionVerifier` in production.
    /// fn verify(token: &str) -> BoxFuture<'static, Result<AuthInfo, String>> {
    ///     let ok = token == "s3cret";
    ///     Box::pin(async move {
    ///         if !ok {
    ///             return Err("unknown token".to_string());
    ///         }
    ///         let mut info = AuthInfo::default();
    ///         info.subject = Some("ada".into());
    ///         info.scopes = vec!["mcp:read".into()];
    ///         info.audience = vec!["https://mcp.example.com/mcp".into()];
    ///         Ok(info)
    ///     })
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let auth = ResourceAuth::new(
    ///     "https://mcp.example.com/mcp",
    ///     vec!["https://auth.example.com".into()],
    ///     Arc::new(verify),
    /// )
    /// .require_scopes(&["mcp:read"]);
    /// assert_eq!(auth.metadata_path(), "/.well-known/oauth-protected-resource/mcp");
    ///
    /// let granted = auth.check(Some("Bearer s3cret")).await.unwrap();
    /// assert_eq!(granted.subject.as_deref(), Some("ada"));
    /// let denied = auth.check(None).await.unwrap_err();
    /// assert_eq!(denied.status, 401);
    /// assert!(denied.www_authenticate.starts_with("Bearer"));
    /// # }
    /// ```
    pub fn new(
        resource: impl Into<String>,
        authorization_servers: Vec<String>,
        verifier: Arc<dyn TokenVerifier>,
    ) -> Self {
        Self {
            resource: resource.into(),
            authorization_servers,
            scopes_supported: None,
            required_scopes: Vec::new(),
            check_audience: true,
            verifier,
        }
    }

    /// Scopes every request needs (also listed in `scopes_supported` when that is unset).
    pub fn require_scopes(mut self, scopes: &[&str]) -> Self {
        self.required_scopes = scopes.iter().map(|s| s.to_string()).collect();
        self
    }

    /// The path the Protected Resource Metadata is served at:
    /// `/.well-known/oauth-protected-resource` followed by the resource's path.
    pub fn metadata_path(&self) -> String {
        let path = parts(&self.resource).map(|p| p.path).unwrap_or_default();
        format!("/.well-known/oauth-protected-resource{path}")
    }

    /// The absolute URL of the metadata (for `WWW-Authenticate`).
    pub fn metadata_url(&self) -> String {
        let origin = parts(&self.resource).map(|p| p.origin).unwrap_or_default();
        format!("{origin}{}", self.metadata_path())
    }

    /// The Protected Resource Metadata document.
    pub fn metadata(&self) -> Value {
        let mut m = json!({
            "resource": self.resource,
            "authorization_servers": self.authorization_servers,
            "bearer_methods_supported": ["header"],
        });
        let scopes = self
            .scopes_supported
            .clone()
            .or_else(|| (!self.required_scopes.is_empty()).then(|| self.required_scopes.clone()));
        if let Some(s) = scopes {
            m["scopes_supported"] = json!(s);
        }
        m
    }

    fn deny(
        &self,
        status: u16,
        error: Option<&str>,
        description: &str,
        scope: &[String],
    ) -> Denial {
        let mut h = format!(r#"Bearer resource_metadata="{}""#, self.metadata_url());
        if !scope.is_empty() {
            h.push_str(&format!(r#", scope="{}""#, scope.join(" ")));
        }
        if let Some(e) = error {
            let d = description.replace(['"', '\\'], "'");
            h.push_str(&format!(r#", error="{e}", error_description="{d}""#));
        }
        Denial {
            status,
            www_authenticate: h,
            body: json!({
                "error": error.unwrap_or("invalid_request"),
                "error_description": description,
            }),
        }
    }

    /// Checks the `Authorization` header value of a request.
    pub async fn check(&self, authorization: Option<&str>) -> Result<Arc<AuthInfo>, Denial> {
        let token = authorization.and_then(|v| {
            let (scheme, rest) = v.split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim())
        });
        let Some(token) = token.filter(|t| !t.is_empty()) else {
            return Err(self.deny(
                401,
                None,
                "a bearer token is required",
                &self.required_scopes,
            ));
        };
        let mut info = match self.verifier.verify(token).await {
            Ok(i) => i,
            Err(reason) => return Err(self.deny(401, Some("invalid_token"), &reason, &[])),
        };
        if info.expires_at.is_some_and(|at| at <= now_secs()) {
            return Err(self.deny(401, Some("invalid_token"), "the token has expired", &[]));
        }
        if self.check_audience {
            let me = canonical(&self.resource).unwrap_or_else(|_| self.resource.clone());
            let ok = info
                .audience
                .iter()
                .any(|a| canonical(a).is_ok_and(|a| a == me));
            if !ok {
                return Err(self.deny(
                    401,
                    Some("invalid_token"),
                    "the token was not issued for this resource (audience)",
                    &[],
                ));
            }
        }
        let missing: Vec<&String> = self
            .required_scopes
            .iter()
            .filter(|s| !info.scopes.contains(s))
            .collect();
        if !missing.is_empty() {
            return Err(self.deny(
                403,
                Some("insufficient_scope"),
                "the token lacks required scopes",
                &self.required_scopes,
            ));
        }
        info.token = token.to_string();
        Ok(Arc::new(info))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn auth() -> ResourceAuth {
        let verifier = |t: &str| -> BoxFuture<'static, Result<AuthInfo, String>> {
            let t = t.to_string();
            Box::pin(async move {
                let now = now_secs();
                let mk = |aud: &str, scopes: &[&str], exp: u64| {
                    AuthInfo::default()
                        .with_subject("alice")
                        .with_audience(vec![aud.into()])
                        .with_scopes(scopes.iter().map(|s| s.to_string()).collect())
                        .with_expires_at(exp)
                };
                match t.as_str() {
                    "good" => Ok(mk("http://mcp.test/mcp", &["read", "write"], now + 60)),
                    "expired" => Ok(mk("http://mcp.test/mcp", &["read"], now - 1)),
                    "other-aud" => Ok(mk("http://other.test/mcp", &["read"], now + 60)),
                    "narrow" => Ok(mk("HTTP://MCP.test/mcp", &["write"], now + 60)),
                    _ => Err("unknown token".into()),
                }
            })
        };
        ResourceAuth::new(
            "http://mcp.test/mcp",
            vec!["http://as.test".into()],
            Arc::new(verifier),
        )
        .require_scopes(&["read"])
    }

    #[tokio::test]
    async fn accepts_and_refuses_tokens_with_the_right_status_and_challenge() {
        let a = auth();
        let ok = a.check(Some("Bearer good")).await.unwrap();
        assert_eq!(
            (ok.subject.as_deref(), ok.token.as_str()),
            (Some("alice"), "good")
        );
        let prm = r#"resource_metadata="http://mcp.test/.well-known/oauth-protected-resource/mcp""#;
        let d = a.check(None).await.unwrap_err();
        assert_eq!(d.status, 401);
        assert_eq!(d.www_authenticate, format!(r#"Bearer {prm}, scope="read""#));
        let d = a.check(Some("Basic abc")).await.unwrap_err();
        assert_eq!(d.status, 401);
        for (token, why) in [
            ("bogus", "unknown token"),
            ("expired", "expired"),
            ("other-aud", "audience"),
        ] {
            let d = a.check(Some(&format!("Bearer {token}"))).await.unwrap_err();
            assert_eq!(d.status, 401, "{token}");
            assert!(
                d.www_authenticate.contains(r#"error="invalid_token""#),
                "{token}"
            );
            assert!(
                d.body["error_description"].as_str().unwrap().contains(why),
                "{token}"
            );
        }
        let d = a.check(Some("bearer narrow")).await.unwrap_err();
        assert_eq!(d.status, 403);
        assert!(d.www_authenticate.contains(r#"error="insufficient_scope""#));
        assert!(d.www_authenticate.contains(r#"scope="read""#));
        assert_eq!(a.metadata()["scopes_supported"], json!(["read"]));
        assert_eq!(
            a.metadata_path(),
            "/.well-known/oauth-protected-resource/mcp"
        );
    }
}
