//! Connecting a [`Client`] over HTTP: Streamable HTTP, with the fallback to the legacy HTTP+SSE
//! transport when the server refuses it. The transports themselves
//! ([`streamable_transport`], [`legacy_transport`]) know nothing of the client; the decision to
//! fall back needs the handshake's outcome, so it lives here, in the client layer.

use super::{Client, ClientHandlers, ClientOptions};
use crate::transport::http::{legacy_transport, streamable_transport, HttpClientOptions};
use crate::McpError;
use serde_json::Value;

/// Connects a [`Client`] to `url` over Streamable HTTP; when `http.legacy_fallback` is set and the
/// server answers the initialize POST with a 4xx other than 401 and 403, retries with the legacy
/// HTTP+SSE transport. A 401 or 403 is returned as it is (with its `httpStatus` in the error's
/// data): the server wants credentials, which the legacy transport would be refused for too.
///
/// Over TLS (`https://`) the server's certificate is checked against Mozilla's roots and
/// [`HttpClientOptions::root_certificate`]; headers and OAuth are set on `http`. An error says
/// what happened ([`McpError::kind`]): a refused connection is [`crate::ErrorKind::Transport`]
/// with the [`std::io::Error`] as its source.
///
/// ```
/// use ferromcp::client::{http::connect, ClientHandlers, ClientOptions};
/// use ferromcp::server::Server;
/// use ferromcp::transport::http::{serve_http, HttpClientOptions, HttpServerOptions};
/// use ferromcp::ErrorKind;
/// use serde_json::Value;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let server = Server::builder("hello", "1.0").tool("greet", "Says hello", |_: Value, _ctx| async { "Hello!" }).build()?;
/// # let handle = serve_http(server, "127.0.0.1:0", HttpServerOptions::default()).await?;
/// # let url = handle.url("/mcp");
/// let http = HttpClientOptions::default().header("authorization", "Bearer s3cret");
/// let client = connect(&url, ClientOptions::new("my-client", "0.1"), ClientHandlers::default(), http).await?;
/// assert_eq!(client.server_info().unwrap()["name"], "hello");
/// client.close().await;
/// # handle.shutdown().await?;
///
/// // A port nothing listens on: a transport error, not a JSON-RPC one.
/// let free = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?;
/// let url = format!("http://{free}/mcp");
/// let refused = connect(&url, ClientOptions::new("c", "1"), ClientHandlers::default(), HttpClientOptions::default())
///     .await
///     .unwrap_err();
/// assert_eq!(refused.kind(), ErrorKind::Transport);
/// # Ok(())
/// # }
/// ```
pub async fn connect(
    url: &str,
    options: ClientOptions,
    handlers: ClientHandlers,
    http: HttpClientOptions,
) -> Result<Client, McpError> {
    let (reader, writer) = streamable_transport(url, &http)?;
    match Client::connect(options.clone(), handlers.clone(), reader, writer).await {
        Ok(c) => Ok(c),
        Err(e) if http.legacy_fallback && refuses_transport(&e) && !is_auth(&e) => {
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

/// A 4xx that may mean "not a Streamable HTTP endpoint" (405, 404, 400, ...), not one asking for
/// credentials (401, 403).
fn refuses_transport(e: &McpError) -> bool {
    e.data
        .as_ref()
        .and_then(|d| d.get("httpStatus"))
        .and_then(Value::as_u64)
        .is_some_and(|s| (400..500).contains(&s) && s != 401 && s != 403)
}

/// Connects a [`Client`] over the legacy HTTP+SSE transport (GET `url` for the event stream).
///
/// ```
/// use ferromcp::client::{http::connect_legacy, ClientHandlers, ClientOptions};
/// use ferromcp::server::Server;
/// use ferromcp::transport::http::{serve_http, HttpClientOptions, HttpServerOptions};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let mut options = HttpServerOptions::default();
/// options.legacy_sse = true; // also serve the 2024-11-05 endpoints (GET /sse)
/// let handle = serve_http(Server::builder("old", "1.0").build()?, "127.0.0.1:0", options).await?;
///
/// let client = connect_legacy(&handle.url("/sse"), ClientOptions::new("c", "1"), ClientHandlers::default(), HttpClientOptions::default()).await?;
/// client.ping().await?;
/// client.close().await;
/// handle.shutdown().await?;
/// # Ok(())
/// # }
/// ```
pub async fn connect_legacy(
    url: &str,
    options: ClientOptions,
    handlers: ClientHandlers,
    http: HttpClientOptions,
) -> Result<Client, McpError> {
    let (reader, writer) = legacy_transport(url, &http).await?;
    Client::connect(options, handlers, reader, writer).await
}
