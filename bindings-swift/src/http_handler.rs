//! [`NativeHttpHandler`]: the engine's request-level Streamable HTTP handler
//! (`embed::EmbeddedHttpHandler`) for a Swift HTTP framework that owns the listener (Vapor,
//! Hummingbird, SwiftNIO, ...): one request's method, target, headers and body in; status,
//! headers and the body as a stream of chunks out (an SSE stream stays open until the engine
//! ends it or the host cancels it).

use crate::error::{parse_opt_json, FfiError};
use crate::runtime::{enter, run};
use crate::server::NativeServer;
use crate::NameValue;
use ferromcp_embed::{EmbeddedHttpHandler, EmbeddedHttpResponse, HttpConfig, HttpRequestParts};
use serde_json::Value;
use std::sync::Arc;

#[uniffi::export]
impl NativeServer {
    /// A request-level handler with `embed::HttpConfig` JSON (unknown keys are an error).
    pub fn http_handler(&self, config: Option<String>) -> Result<Arc<NativeHttpHandler>, FfiError> {
        let config =
            HttpConfig::from_json(parse_opt_json("HTTP config", config)?.unwrap_or(Value::Null))?;
        let handler = enter(|| self.inner.http_handler(&config))?;
        Ok(Arc::new(NativeHttpHandler { handler }))
    }

    /// [`Self::http_handler`] protected by bearer tokens (`protection`); it also answers the
    /// Protected Resource Metadata's well-known path.
    pub fn http_handler_auth(
        &self,
        config: Option<String>,
        protection: Arc<crate::auth::NativeProtection>,
    ) -> Result<Arc<NativeHttpHandler>, FfiError> {
        let config =
            HttpConfig::from_json(parse_opt_json("HTTP config", config)?.unwrap_or(Value::Null))?;
        let auth = Some(protection.auth.clone());
        let handler = enter(|| self.inner.http_handler_auth(&config, auth))?;
        Ok(Arc::new(NativeHttpHandler { handler }))
    }
}

/// Answers HTTP requests a host framework hands over, one call per request.
#[derive(uniffi::Object)]
pub struct NativeHttpHandler {
    handler: EmbeddedHttpHandler,
}

#[uniffi::export]
impl NativeHttpHandler {
    /// Answers one request (`uri`: path and query). A malformed method, target or header is an
    /// invalid-params error; everything the endpoint decides (404, 405, 413, ...) is a response.
    pub async fn handle(
        &self,
        method: String,
        uri: String,
        headers: Vec<NameValue>,
        body: Vec<u8>,
    ) -> Result<Arc<NativeHttpResponse>, FfiError> {
        let req = HttpRequestParts {
            method,
            uri,
            headers: headers.into_iter().map(Into::into).collect(),
            body,
        };
        let handler = self.handler.clone();
        let response = run(async move { handler.handle(req).await }).await?;
        Ok(Arc::new(NativeHttpResponse {
            inner: Arc::new(response),
        }))
    }
}

/// The answer to one request: status and headers at once, then the body chunk by chunk.
#[derive(uniffi::Object)]
pub struct NativeHttpResponse {
    inner: Arc<EmbeddedHttpResponse>,
}

#[uniffi::export]
impl NativeHttpResponse {
    /// The status code.
    pub fn status(&self) -> u16 {
        self.inner.status
    }

    /// The header fields, in order.
    pub fn headers(&self) -> Vec<NameValue> {
        self.inner
            .headers
            .iter()
            .map(|(name, value)| NameValue {
                name: name.clone(),
                value: value.clone(),
            })
            .collect()
    }

    /// The next chunk of the body; `None` at its end (or after [`Self::cancel`]).
    pub async fn next_chunk(&self) -> Result<Option<Vec<u8>>, FfiError> {
        let inner = self.inner.clone();
        Ok(run(async move { inner.next_chunk().await }).await?)
    }

    /// Drops the rest of the body (the host's client went away): an SSE stream is closed.
    pub fn cancel(&self) {
        self.inner.cancel()
    }
}
