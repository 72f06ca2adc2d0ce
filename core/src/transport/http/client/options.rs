//! The HTTP client transport's options: extra headers, the legacy fallback, the GET stream,
//! reconnection, session renewal, OAuth and extra trusted roots.

use crate::auth::OAuthClient;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Options of the HTTP client transport.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct HttpClientOptions {
    /// Extra headers sent with every request (e.g. `Authorization: Bearer ...`).
    pub headers: Vec<(String, String)>,
    /// Fall back to the legacy HTTP+SSE transport when the Streamable HTTP initialize gets a 4xx.
    pub legacy_fallback: bool,
    /// Open the GET stream for server-initiated messages after initialization.
    pub open_get_stream: bool,
    /// Reconnection attempts when an SSE stream ends before its answers arrived.
    pub max_reconnects: usize,
    /// Reconnection delay when the server sent no `retry:` hint.
    pub default_retry: Duration,
    /// When the server answers 404 to a request carrying the session id (the session expired or
    /// was deleted), start a new session transparently: re-send the initialize request this
    /// transport carried, then `notifications/initialized`, reopen the GET stream, and retry the
    /// failed message once. The [`Client`](crate::client::Client) keeps its negotiated state (same server, same
    /// initialize). Off: such requests fail with a transport error whose data carries
    /// `httpStatus: 404`.
    pub reinitialize_on_expiry: bool,
    /// OAuth 2.1 authorization: the client's bearer token goes with every request, and a 401
    /// (or 403 `insufficient_scope`) runs its flow and retries the request (see
    /// [`crate::auth`]). `None`: no authorization (a 401 fails the request).
    pub auth: Option<Arc<OAuthClient>>,
    /// Extra trusted root certificates for `https://` URLs (PEM text, one or more `CERTIFICATE`
    /// blocks per entry), e.g. a private CA's; Mozilla's roots are always trusted too.
    /// Certificate verification and SNI are always on.
    pub extra_root_certificates: Vec<String>,
    /// Told the session id the server assigns (`Mcp-Session-Id`), and the new one when a new
    /// session replaces an expired one: a clone of the cell reads it while the client runs (the
    /// bindings' SDK-shaped `transport.sessionId`). Only a mirror (the transport keeps its own),
    /// so options cloned for several connections share it: give each its own cell to tell
    /// them apart. A fresh, empty cell by default.
    pub session_id: SessionIdCell,
    /// Ask for compressed answers (`Accept-Encoding: zstd, br, gzip`) and decode them as they
    /// arrive (SSE streams event by event). Answers in a coding are decoded whatever this says.
    /// Default: true.
    pub compression: bool,
}

ferromcp_protocol::with_setters!(HttpClientOptions {
    headers: Vec<(String, String)> => with_headers,
    legacy_fallback: bool => with_legacy_fallback,
    open_get_stream: bool => with_open_get_stream,
    max_reconnects: usize => with_max_reconnects,
    default_retry: Duration => with_default_retry,
    reinitialize_on_expiry: bool => with_reinitialize_on_expiry,
    auth: Option<Arc<OAuthClient>> => with_auth,
    extra_root_certificates: Vec<String> => with_extra_root_certificates,
    session_id: SessionIdCell => with_session_id,
    compression: bool => with_compression,
});

/// The session id of a Streamable HTTP client transport, shared between the transport (which
/// writes it when the server assigns one, or a new session replaces an expired one) and
/// whoever holds a clone. Cheap to clone.
#[derive(Clone, Debug, Default)]
pub struct SessionIdCell(Arc<Mutex<Option<String>>>);

impl SessionIdCell {
    /// Records `id` (the transport does, as the server assigns it).
    pub(crate) fn set(&self, id: &str) {
        *self.0.lock().unwrap() = Some(id.to_string());
    }

    /// The current session id (`None` before `initialize` is answered, on a stateless server,
    /// or over the legacy HTTP+SSE transport).
    pub fn get(&self) -> Option<String> {
        self.0.lock().unwrap().clone()
    }
}

impl Default for HttpClientOptions {
    fn default() -> Self {
        Self {
            headers: Vec::new(),
            legacy_fallback: true,
            open_get_stream: true,
            max_reconnects: 5,
            default_retry: Duration::from_secs(1),
            reinitialize_on_expiry: true,
            auth: None,
            extra_root_certificates: Vec::new(),
            session_id: SessionIdCell::default(),
            compression: true,
        }
    }
}

impl HttpClientOptions {
    /// Adds a header sent with every request.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Trusts the CA certificate(s) in `pem` for `https://` URLs (see
    /// [`HttpClientOptions::extra_root_certificates`]).
    pub fn root_certificate(mut self, pem: impl Into<String>) -> Self {
        self.extra_root_certificates.push(pem.into());
        self
    }

    /// Authorizes with `auth` (OAuth 2.1; see [`HttpClientOptions::auth`]).
    ///
    /// ```
    /// use ferromcp::auth::{OAuthClient, OAuthConfig};
    /// use ferromcp::transport::http::HttpClientOptions;
    /// use std::sync::Arc;
    ///
    /// // A service account: client credentials of a pre-registered client.
    /// let service = OAuthClient::new(
    ///     OAuthConfig::client_credentials("reporting-job", "s3cret")
    ///         .expected_issuer("https://auth.example.com"),
    /// );
    /// let options = HttpClientOptions::default().auth(Arc::new(service));
    /// assert!(options.auth.is_some());
    /// ```
    pub fn auth(mut self, auth: Arc<OAuthClient>) -> Self {
        self.auth = Some(auth);
        self
    }
}
