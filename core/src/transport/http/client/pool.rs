//! The Streamable HTTP client's connections to its server: HTTP/1.1 connections of hyper's
//! `client::conn::http1`, each driven by a task of its own, kept open and reused.
//!
//! In place of hyper-util's pooled client, which on every request built a connect future beside
//! the pool's checkout (and raced them) and, once the answer's head came, spawned a task that
//! waited for the connection to be ready again before putting it back in its pool: one more task
//! and one more wake-up per request. Here the connections are a list: a request takes one that
//! is ready (hyper's connection asks for its next request only once the previous answer's body
//! has been read to its end), or opens a new one, and the connection goes back to the list as
//! soon as the answer's head has come; it is not ready again until that exchange is over, so no
//! second request takes it meanwhile. A request that a reused connection refuses before writing
//! any of it (the server closed that connection while it was idle) is sent on another one, as
//! hyper-util's client does. A connection leaves the list once it is closed; the list is dropped
//! with the transport, which closes the connections.

use bytes::Bytes;
use ferromcp_auth::tls::Connector;
use http::{HeaderValue, Request, Response, Uri};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::client::conn::http1::{self, SendRequest};
use std::sync::Mutex;
use tower_service::Service;

type Sender = SendRequest<Full<Bytes>>;
type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The open connections of one client transport.
pub(super) struct Pool {
    connector: Connector,
    conns: Mutex<Vec<Sender>>,
}

/// Why a request got no answer: no connection could be made, or the exchange failed.
#[derive(Debug)]
pub(super) enum PoolError {
    /// Connecting (TCP, TLS) or the connection's start failed.
    Connect(BoxError),
    /// Sending the request or reading its answer's head failed.
    Request(hyper::Error),
}

impl std::fmt::Display for PoolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PoolError::Connect(_) => f.write_str("connect error"),
            PoolError::Request(_) => f.write_str("request error"),
        }
    }
}

impl std::error::Error for PoolError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PoolError::Connect(e) => Some(e.as_ref()),
            PoolError::Request(e) => Some(e),
        }
    }
}

impl Pool {
    pub(super) fn new(connector: Connector) -> Self {
        Pool {
            connector,
            conns: Mutex::new(Vec::new()),
        }
    }

    /// Sends `req` (its URI absolute: scheme and authority say where) on a ready connection or
    /// a new one, and returns the answer's head with its body to read.
    pub(super) async fn request(
        &self,
        mut req: Request<Full<Bytes>>,
    ) -> Result<Response<Incoming>, PoolError> {
        let target = req.uri().clone();
        let authority = target.authority().map(|a| a.as_str()).unwrap_or_default();
        // Without the user information a URL may carry (RFC 9110 §7.2).
        let host = authority.rsplit('@').next().unwrap_or_default();
        if !req.headers().contains_key(http::header::HOST) {
            let host = HeaderValue::from_str(host).map_err(|e| PoolError::Connect(e.into()))?;
            req.headers_mut().insert(http::header::HOST, host);
        }
        // Origin form on the request line (the connection is to the authority itself).
        let path = target
            .path_and_query()
            .map_or("/", |p| p.as_str())
            .parse::<Uri>()
            .map_err(|e| PoolError::Connect(e.into()))?;
        *req.uri_mut() = path;
        loop {
            let (mut sender, reused) = match self.take_ready() {
                Some(sender) => (sender, true),
                None => (self.connect(&target).await?, false),
            };
            match sender.try_send_request(req).await {
                Ok(resp) => {
                    // Ready for another request once this answer's body has been read.
                    self.conns.lock().unwrap().push(sender);
                    return Ok(resp);
                }
                // The connection is not used again (a request refused unsent is the rare race
                // with its end).
                Err(mut e) => match e.take_message() {
                    Some(unsent) if reused => req = unsent,
                    _ => return Err(PoolError::Request(e.into_error())),
                },
            }
        }
    }

    /// A connection ready for a request, taken off the list (closed ones are dropped).
    fn take_ready(&self) -> Option<Sender> {
        let mut conns = self.conns.lock().unwrap();
        conns.retain(|c| !c.is_closed());
        let i = conns.iter().position(Sender::is_ready)?;
        Some(conns.swap_remove(i))
    }

    /// A new connection to `target`'s authority, its task spawned.
    async fn connect(&self, target: &Uri) -> Result<Sender, PoolError> {
        let mut connector = self.connector.clone();
        std::future::poll_fn(|cx| connector.poll_ready(cx))
            .await
            .map_err(PoolError::Connect)?;
        let io = connector
            .call(target.clone())
            .await
            .map_err(PoolError::Connect)?;
        let (sender, conn) = http1::handshake(io)
            .await
            .map_err(|e| PoolError::Connect(e.into()))?;
        tokio::spawn(async move {
            if let Err(e) = conn.await {
                tracing::debug!(error = %e, "HTTP client connection ended");
            }
        });
        Ok(sender)
    }
}
