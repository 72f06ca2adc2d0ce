//! Connecting a [`Client`] over HTTP: Streamable HTTP, with the fallback to the legacy HTTP+SSE
//! transport when the server refuses it. The transports themselves
//! ([`streamable_transport`], [`legacy_transport`]) know nothing of the client; the decision to
//! fall back needs the handshake's outcome, so it lives here, in the client layer.

use super::{Client, ClientHandlers, ClientOptions};
use crate::transport::http::{legacy_transport, streamable_transport, HttpClientOptions};
use crate::McpError;
use serde_json::Value;

/// Connects a [`Client`] to `url` over Streamable HTTP; when `http.legacy_fallback` is set and the
/// server answers the initialize POST with a 4xx, retries with the legacy HTTP+SSE transport.
pub async fn connect(
    url: &str,
    options: ClientOptions,
    handlers: ClientHandlers,
    http: HttpClientOptions,
) -> Result<Client, McpError> {
    let (reader, writer) = streamable_transport(url, &http)?;
    match Client::connect(options.clone(), handlers.clone(), reader, writer).await {
        Ok(c) => Ok(c),
        Err(e) if http.legacy_fallback && is_4xx(&e) && !is_auth(&e) => {
            tracing::info!(error = %e, "Streamable HTTP refused; falling back to HTTP+SSE");
            connect_legacy(url, options, handlers, http).await
        }
        Err(e) => Err(e),
    }
}

/// An authorization failure (a 401/403 the OAuth flow could not resolve).
fn is_auth(e: &McpError) -> bool {
    e.data
        .as_ref()
        .is_some_and(|d| d.get("authError").is_some())
}

fn is_4xx(e: &McpError) -> bool {
    e.data
        .as_ref()
        .and_then(|d| d.get("httpStatus"))
        .and_then(Value::as_u64)
        .is_some_and(|s| (400..500).contains(&s))
}

/// Connects a [`Client`] over the legacy HTTP+SSE transport (GET `url` for the event stream).
pub async fn connect_legacy(
    url: &str,
    options: ClientOptions,
    handlers: ClientHandlers,
    http: HttpClientOptions,
) -> Result<Client, McpError> {
    let (reader, writer) = legacy_transport(url, &http).await?;
    Client::connect(options, handlers, reader, writer).await
}
