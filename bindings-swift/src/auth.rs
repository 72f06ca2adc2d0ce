//! OAuth for Swift: [`NativeOAuth`] (the client side of `Client.http(url:auth:)`) and
//! [`NativeProtection`] (the server side of `startHTTP(..., auth:)`). The options are the
//! engine's `embed::OAuthSettings` / `embed::ProtectionSettings` as JSON text; this module turns
//! the facade's Swift objects into the engine's callbacks:
//! - [`RedirectStep`] and [`TokenVerifier`] are foreign async traits (a Swift `Task` each call);
//! - [`TokenStorage`] and [`BrowserOpener`] are synchronous: the engine's store calls are
//!   synchronous and run on the engine thread, which is where the Swift methods run too.

use crate::error::{json_text, parse_json, FfiError};
use crate::runtime::enter;
use ferromcp::auth::{AuthInfo, OAuthClient, ResourceAuth};
use ferromcp_embed::{
    auth_info_from_json, foreign_token_store, ForeignOpener, ForeignRedirect, ForeignTokenStore,
    OAuthSettings, ProtectionSettings,
};
use futures_util::future::BoxFuture;
use std::sync::Arc;

/// The redirect step of the authorization code flow: show `authorization_url` to the user and
/// return the full URL the authorization server redirected back to.
#[uniffi::export(foreign)]
#[async_trait::async_trait]
pub trait RedirectStep: Send + Sync {
    /// Resolves with the redirect URL (with `code` and `state`).
    async fn authorize(&self, authorization_url: String) -> Result<String, FfiError>;
}

/// Shows the authorization URL in the loopback flow (typically opens the browser).
#[uniffi::export(foreign)]
pub trait BrowserOpener: Send + Sync {
    /// Shows `url`; must return quickly. (Not named `open`: UniFFI's C header would spell that
    /// with backticks.)
    fn show(&self, url: String);
}

/// A token store: JSON text per key (the server's URL); `load` answers nil for an unknown key.
#[uniffi::export(foreign)]
pub trait TokenStorage: Send + Sync {
    /// The stored JSON text, or nil.
    fn load(&self, key: String) -> Result<Option<String>, FfiError>;
    /// Stores `value` (JSON text) under `key`.
    fn save(&self, key: String, value: String) -> Result<(), FfiError>;
    /// Forgets `key`.
    fn remove(&self, key: String) -> Result<(), FfiError>;
}

/// Checks a bearer token: the identity as JSON text (`embed::auth_info_from_json`'s shape), or
/// nil to refuse it; a thrown error's message becomes the `error_description`.
#[uniffi::export(foreign)]
#[async_trait::async_trait]
pub trait TokenVerifier: Send + Sync {
    /// Verifies `token`.
    async fn verify(&self, token: String) -> Result<Option<String>, FfiError>;
}

/// The engine's view of a Swift [`TokenStorage`] (JSON text each way); the embed adapter
/// ([`foreign_token_store`]) decodes what it answers and words its errors.
struct SwiftStore(Arc<dyn TokenStorage>);

/// The text of a Swift error (what the facade threw), for the engine's messages.
fn message(FfiError::Mcp { message, .. }: FfiError) -> String {
    message
}

impl ForeignTokenStore for SwiftStore {
    fn load(&self, key: &str) -> Result<serde_json::Value, String> {
        match self.0.load(key.to_string()).map_err(message)? {
            None => Ok(serde_json::Value::Null),
            Some(text) => serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}")),
        }
    }
    fn save(&self, key: &str, value: serde_json::Value) -> Result<(), String> {
        self.0
            .save(key.to_string(), value.to_string())
            .map_err(message)
    }
    fn remove(&self, key: &str) -> Result<(), String> {
        self.0.remove(key.to_string()).map_err(message)
    }
}

/// A client's OAuth configuration for one connection (`NativeClient.httpAuth`).
#[derive(uniffi::Object)]
pub struct NativeOAuth {
    pub(crate) client: Arc<OAuthClient>,
}

#[uniffi::export]
impl NativeOAuth {
    /// `settings`: `embed::OAuthSettings` JSON text. With `redirect` (and `redirectUri`) the
    /// redirect step is Swift's; without it a loopback listener is bound now and `opener` shows
    /// the URL (default: printed to stderr). `store` replaces the memory or file store.
    #[uniffi::constructor]
    pub fn new(
        settings: String,
        redirect: Option<Arc<dyn RedirectStep>>,
        opener: Option<Arc<dyn BrowserOpener>>,
        store: Option<Arc<dyn TokenStorage>>,
    ) -> Result<Arc<Self>, FfiError> {
        let settings = OAuthSettings::from_json(parse_json("OAuth settings", &settings)?)?;
        let redirect: Option<ForeignRedirect> = redirect.map(|r| {
            Arc::new(move |url: String| {
                let r = r.clone();
                Box::pin(async move {
                    r.authorize(url)
                        .await
                        .map_err(|e| format!("the redirect step failed: {}", message(e)))
                }) as BoxFuture<'static, _>
            }) as ForeignRedirect
        });
        let open: Option<ForeignOpener> = opener.map(|o| {
            Arc::new(move |url: &str| {
                o.show(url.to_string());
                Ok(())
            }) as ForeignOpener
        });
        let store = store.map(|s| foreign_token_store("tokenStore", SwiftStore(s)));
        let client = enter(|| settings.build(redirect, open, store))?;
        Ok(Arc::new(Self { client }))
    }
}

/// A server's bearer-token protection (`NativeServer.serveHttpAuth`).
#[derive(uniffi::Object)]
pub struct NativeProtection {
    pub(crate) auth: Arc<ResourceAuth>,
}

#[uniffi::export]
impl NativeProtection {
    /// `settings`: `embed::ProtectionSettings` JSON text (`resource`, `authorizationServers`,
    /// `requiredScopes`, `scopesSupported`, `checkAudience`, and a built-in `jwt` or
    /// `introspection` verifier); `verifier` checks tokens when neither is given.
    #[uniffi::constructor]
    pub fn new(
        settings: String,
        verifier: Option<Arc<dyn TokenVerifier>>,
    ) -> Result<Arc<Self>, FfiError> {
        let settings =
            ProtectionSettings::from_json(parse_json("protection settings", &settings)?)?;
        let verify = verifier.map(|verifier| {
            let verify = move |token: &str| -> BoxFuture<'static, Result<AuthInfo, String>> {
                let v = verifier.clone();
                let token = token.to_string();
                Box::pin(async move {
                    match v.verify(token).await {
                        Ok(None) => Err("invalid token".into()),
                        Ok(Some(text)) => {
                            let value = serde_json::from_str(&text)
                                .map_err(|e| format!("verify answered invalid JSON: {e}"))?;
                            auth_info_from_json(value)
                        }
                        Err(e) => Err(message(e)),
                    }
                })
            };
            Arc::new(verify) as Arc<dyn ferromcp::auth::TokenVerifier>
        });
        Ok(Arc::new(Self {
            auth: settings.build(verify)?,
        }))
    }

    /// The path the Protected Resource Metadata is served at.
    pub fn metadata_path(&self) -> String {
        self.auth.metadata_path()
    }

    /// The Protected Resource Metadata document (JSON text).
    pub fn metadata(&self) -> String {
        json_text(&self.auth.metadata())
    }
}
