//! The token endpoint (the `authorization_code` grant with the client's PKCE verifier checked,
//! and `refresh_token` with rotation, refreshing the upstream tokens too) and revocation
//! (RFC 7009). The tokens issued are random, bound to the client and the MCP resource, and map
//! to the upstream's tokens.

use super::super::pkce::s256;
use super::super::url::canonical;
use super::authorize::redirect_matches;
use super::error::{invalid_grant, invalid_request, OAuthErrorCode, OAuthFailure};
use super::records::{
    access_key, code_key, fresh, pkce_text, refresh_key, same, AccessRecord, ClientRecord,
    CodeRecord, Grant, RefreshRecord,
};
use super::wire::{Params, ProxyRequest, ProxyResponse};
use super::OAuthProxy;
use serde_json::json;

impl OAuthProxy {
    pub(super) async fn token(&self, req: &ProxyRequest) -> ProxyResponse {
        match self.token_inner(req).await {
            Ok(v) => ProxyResponse::json(200, &v),
            Err(f) => ProxyResponse::failure(&f),
        }
    }

    async fn token_inner(&self, req: &ProxyRequest) -> Result<serde_json::Value, OAuthFailure> {
        let params = Params::form(req)?;
        let client = self.authenticate(req, &params).await?;
        let grant_type = params.require("grant_type")?;
        if !matches!(grant_type, "authorization_code" | "refresh_token") {
            return Err(OAuthFailure::new(
                OAuthErrorCode::UnsupportedGrantType,
                format!("grant_type {grant_type} is not supported; use authorization_code or refresh_token"),
            ));
        }
        if !client.grant_types.iter().any(|g| g == grant_type) {
            return Err(OAuthFailure::new(
                OAuthErrorCode::UnauthorizedClient,
                format!("the client did not register the {grant_type} grant"),
            ));
        }
        if let Some(r) = params.get("resource") {
            if canonical(r).ok().as_deref() != Some(self.inner.resource.as_str()) {
                return Err(OAuthFailure::new(
                    OAuthErrorCode::InvalidTarget,
                    format!(
                        "resource {r} is not served here; use {}",
                        self.inner.resource
                    ),
                ));
            }
        }
        if grant_type == "authorization_code" {
            self.code_grant(&client, &params).await
        } else {
            self.refresh_grant(&client, &params).await
        }
    }

    async fn code_grant(
        &self,
        client: &ClientRecord,
        params: &Params,
    ) -> Result<serde_json::Value, OAuthFailure> {
        let code = params.require("code")?;
        let verifier = params
            .get("code_verifier")
            .ok_or_else(|| invalid_request("code_verifier is required (PKCE)"))?;
        if !pkce_text(verifier) {
            return Err(invalid_request(
                "code_verifier must be 43 to 128 characters of [A-Za-z0-9-._~]",
            ));
        }
        // Taken, not read: a code is used once, whatever the outcome of this request.
        let record: CodeRecord = self
            .take(&code_key(code))
            .await?
            .ok_or_else(|| invalid_grant("the code is unknown, used or expired"))?;
        if record.client_id != client.client_id {
            return Err(invalid_grant("the code was issued to another client"));
        }
        match params.get("redirect_uri") {
            Some(u) if !redirect_matches(&record.redirect_uri, u) => {
                return Err(invalid_grant(
                    "redirect_uri differs from the authorization request's",
                ))
            }
            None if record.redirect_uri_given => {
                return Err(invalid_request(
                    "redirect_uri is required: the authorization request named one",
                ))
            }
            _ => {}
        }
        if !same(&s256(verifier), &record.code_challenge) {
            return Err(invalid_grant(
                "code_verifier does not match the code_challenge",
            ));
        }
        self.issue(client, record.scopes, record.resource, record.grant)
            .await
    }

    async fn refresh_grant(
        &self,
        client: &ClientRecord,
        params: &Params,
    ) -> Result<serde_json::Value, OAuthFailure> {
        let token = params.require("refresh_token")?;
        let key = refresh_key(token);
        let record: RefreshRecord = self
            .load(&key)
            .await?
            .ok_or_else(|| invalid_grant("the refresh token is unknown, revoked or expired"))?;
        if record.client_id != client.client_id {
            return Err(invalid_grant(
                "the refresh token was issued to another client",
            ));
        }
        let scopes = match params.get("scope") {
            None => record.scopes.clone(),
            Some(s) => {
                let asked: Vec<String> = s
                    .split(' ')
                    .filter(|x| !x.is_empty())
                    .map(str::to_string)
                    .collect();
                if let Some(x) = asked.iter().find(|x| !record.scopes.contains(x)) {
                    return Err(OAuthFailure::new(
                        OAuthErrorCode::InvalidScope,
                        format!("scope {x} was not granted originally"),
                    ));
                }
                asked
            }
        };
        // Rotation: the old pair is gone once this request is past its checks; a second use
        // of the same refresh token finds nothing.
        if self.take::<RefreshRecord>(&key).await?.is_none() {
            return Err(invalid_grant("the refresh token was used already"));
        }
        let _ = self.inner.store.take(&record.access_key).await;
        let grant = match &record.grant.upstream_refresh_token {
            Some(rt) => self.inner.upstream.refresh(&record.grant, rt).await?,
            None => record.grant.clone(),
        };
        self.issue(client, scopes, record.resource, grant).await
    }

    /// Issues an access token and a refresh token.
    async fn issue(
        &self,
        client: &ClientRecord,
        scopes: Vec<String>,
        resource: String,
        grant: Grant,
    ) -> Result<serde_json::Value, OAuthFailure> {
        let c = &self.inner.config;
        let access = fresh();
        let refresh = client
            .grant_types
            .iter()
            .any(|g| g == "refresh_token")
            .then(fresh);
        let ttl = c.access_token_ttl;
        let a_key = access_key(&access);
        let r_key = refresh.as_deref().map(refresh_key);
        let at = AccessRecord {
            client_id: client.client_id.clone(),
            scopes: scopes.clone(),
            resource: resource.clone(),
            expires_at: super::now_secs() + ttl.as_secs(),
            grant: grant.clone(),
            refresh_key: r_key.clone(),
        };
        self.save(&a_key, &at, ttl).await?;
        let mut answer = json!({
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": ttl.as_secs(),
        });
        if !scopes.is_empty() {
            answer["scope"] = json!(scopes.join(" "));
        }
        if let (Some(rt), Some(r_key)) = (refresh, r_key) {
            let rec = RefreshRecord {
                client_id: client.client_id.clone(),
                scopes,
                resource,
                grant,
                access_key: a_key,
            };
            self.save(&r_key, &rec, c.refresh_token_ttl).await?;
            answer["refresh_token"] = json!(rt);
        }
        Ok(answer)
    }

    pub(super) async fn revoke(&self, req: &ProxyRequest) -> ProxyResponse {
        match self.revoke_inner(req).await {
            Ok(()) => ProxyResponse::json(200, &json!({})),
            Err(f) => ProxyResponse::failure(&f),
        }
    }

    async fn revoke_inner(&self, req: &ProxyRequest) -> Result<(), OAuthFailure> {
        let params = Params::form(req)?;
        let client = self.authenticate(req, &params).await?;
        let token = params.require("token")?;
        let hint = params.get("token_type_hint");
        if let Some(h) = hint {
            if !matches!(h, "access_token" | "refresh_token") {
                return Err(OAuthFailure::new(
                    OAuthErrorCode::UnsupportedTokenType,
                    format!("token_type_hint {h} is not supported"),
                ));
            }
        }
        // RFC 7009 §2.2: an unknown token, or one of another client, is answered 200 all the
        // same (nothing is revealed about it), and nothing is revoked.
        let a_key = access_key(token);
        let r_key = refresh_key(token);
        if let Some(at) = self.load::<AccessRecord>(&a_key).await? {
            if at.client_id == client.client_id {
                let _ = self.inner.store.take(&a_key).await;
                if let Some(k) = &at.refresh_key {
                    let _ = self.inner.store.take(k).await;
                }
                self.inner
                    .upstream
                    .revoke(&at.grant.upstream_access_token)
                    .await;
            }
        } else if let Some(rt) = self.load::<RefreshRecord>(&r_key).await? {
            if rt.client_id == client.client_id {
                let _ = self.inner.store.take(&r_key).await;
                let _ = self.inner.store.take(&rt.access_key).await;
                let upstream = rt
                    .grant
                    .upstream_refresh_token
                    .as_ref()
                    .unwrap_or(&rt.grant.upstream_access_token);
                self.inner.upstream.revoke(upstream).await;
            }
        }
        Ok(())
    }
}
