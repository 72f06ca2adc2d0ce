//! What the HTTP transport hands the contexts of the requests it carries: the request's header
//! fields and the peer's address ([`HttpHeaders`]), and the identity a verified bearer token
//! grants ([`AuthInfo`]), each in a task-local the transport sets around the handling. Apart
//! from the context because they are the transport's facts about the request, set where it is
//! read and only read by the context; the context keeps what a handler does with the request.

// The identity type lives in the crate below the engine and the auth crate, which both name it
// (protocol/src/auth_info.rs says why); re-exported here, at the path it always had.
pub use ferromcp_protocol::auth_info::AuthInfo;
use std::net::IpAddr;
use std::sync::Arc;

/// The header fields of the HTTP request a message arrived in, read when asked for: the HTTP
/// transport shares what it already holds (no copy per request), and a handler that asks gets
/// `(name, value)` pairs in the order they came. The peer address of the request's connection
/// travels with them ([`HeaderFields::client_address`]).
pub type HttpHeaders = Arc<dyn HeaderFields>;

/// What [`HttpHeaders`] reads: every field, or one without building the others (the
/// OpenTelemetry layer looks for `traceparent` on every request), and the address of the peer
/// the request came from.
pub trait HeaderFields: Send + Sync {
    /// Every field as `(name in lowercase, value)`, in the order they came (values that are
    /// not UTF-8 converted lossily).
    fn pairs(&self) -> Vec<(String, String)>;
    /// The first value of field `name` (given in lowercase).
    fn get(&self, name: &str) -> Option<String>;
    /// Whether a `traceparent` field is present: what `get("traceparent").is_some()` answers
    /// (the HTTP transport notes it when it reads the head, so the OpenTelemetry layer's look
    /// on every request does not pass over the fields).
    fn has_traceparent(&self) -> bool {
        self.get("traceparent").is_some()
    }
    /// Every value of field `name` (given in lowercase), in the order they came: a field sent
    /// on several lines (`X-Forwarded-For` appended to by proxies) has one per line.
    fn get_all(&self, name: &str) -> Vec<String> {
        self.pairs()
            .into_iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v)
            .collect()
    }
    /// The IP address of the peer of the connection the request arrived on (the socket's, not
    /// a header's); `None` when the transport does not know it (default).
    fn client_address(&self) -> Option<IpAddr> {
        None
    }
}

tokio::task_local! {
    /// Set by the Streamable HTTP endpoint around the handling of one POST, so that the
    /// contexts of the requests it carries can give handlers the HTTP headers.
    pub(crate) static HTTP_HEADERS: HttpHeaders;
    /// Set by a protected HTTP endpoint around the handling of one request: the verified
    /// bearer token's identity.
    pub(crate) static AUTH_INFO: Arc<AuthInfo>;
}
