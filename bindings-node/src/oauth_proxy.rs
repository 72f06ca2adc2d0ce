//! The OAuth proxy for Node (`ferromcp/server/auth/oauthProxy.js`): the engine's
//! `EmbeddedOAuthProxy` behind a class whose `handle` takes a request as method, URL, Node's
//! flat raw headers and the body, and answers status, header pairs and body (or null for a
//! path that is not the proxy's). Every rule of the endpoints is the engine's; the facade
//! only adapts Express or `node:http`.

use crate::error::to_napi;
use ferromcp_embed::{EmbeddedOAuthProxy, HttpRequestParts};
use napi::bindgen_prelude::Buffer;
use napi_derive::napi;
use serde_json::Value;

/// The proxy's answer to one request.
#[napi(object)]
pub struct NativeProxyAnswer {
    /// The status code.
    pub status: u32,
    /// `[name, value]` pairs.
    pub headers: Vec<Vec<String>>,
    /// The body.
    pub body: Buffer,
}

/// An OAuth proxy (see `createOAuthProxy`).
#[napi]
pub struct NativeOAuthProxy {
    proxy: EmbeddedOAuthProxy,
}

/// Makes an OAuth proxy from the engine's `OAuthProxySettings` (camelCase JSON); rejects with
/// an invalid-params error for bad options or a failed OpenID discovery.
#[napi]
pub async fn create_oauth_proxy(options: Value) -> napi::Result<NativeOAuthProxy> {
    let proxy = EmbeddedOAuthProxy::new(options).await.map_err(to_napi)?;
    Ok(NativeOAuthProxy { proxy })
}

#[napi]
impl NativeOAuthProxy {
    /// The authorization server metadata (RFC 8414).
    #[napi]
    pub fn metadata(&self) -> Value {
        self.proxy.metadata()
    }

    /// The redirect URI to register at the upstream identity provider.
    #[napi(getter)]
    pub fn callback_url(&self) -> String {
        self.proxy.callback_url()
    }

    /// Whether `path` is one of the proxy's endpoints.
    #[napi]
    pub fn serves(&self, path: String) -> bool {
        self.proxy.serves(&path)
    }

    /// Answers one request (`rawHeaders`: Node's flat `[name, value, ...]` list); null when
    /// the path is not one of the proxy's endpoints.
    #[napi]
    pub async fn handle(
        &self,
        method: String,
        uri: String,
        raw_headers: Vec<String>,
        body: Buffer,
    ) -> napi::Result<Option<NativeProxyAnswer>> {
        let headers = raw_headers
            .chunks(2)
            .filter(|p| p.len() == 2)
            .map(|p| (p[0].clone(), p[1].clone()))
            .collect();
        let req = HttpRequestParts {
            method,
            uri,
            headers,
            body: body.to_vec(),
        };
        Ok(self.proxy.handle(req).await.map(|r| NativeProxyAnswer {
            status: u32::from(r.status),
            headers: r.headers.into_iter().map(|(k, v)| vec![k, v]).collect(),
            body: r.body.into(),
        }))
    }

    /// Verifies a token the proxy issued: resolves with the identity (`token`, `subject`,
    /// `clientId`, `scopes`, `audience`, `expiresAt`, `claims`) or null when it is refused.
    #[napi]
    pub async fn verify(&self, token: String) -> Option<Value> {
        self.proxy.verify(&token).await.ok()
    }
}
