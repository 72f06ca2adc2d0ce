//! The small HTTP client the OAuth flow uses for metadata, registration and token requests:
//! GET and POST with bounded bodies and a timeout, redirects never followed.

use super::AuthError;
use crate::tls::{error_chain, Connector};
use bytes::Bytes;
use http::{HeaderMap, Method, Request, StatusCode};
use http_body_util::{BodyExt, Full, Limited};
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;
use std::time::Duration;

/// Largest metadata, registration or token answer read.
const MAX_BODY: usize = 1 << 20;
/// How long one request may take, unless the caller sets another ([`AuthHttp::with_timeout`]).
const TIMEOUT: Duration = Duration::from_secs(30);

/// An HTTP answer, body read in full.
#[derive(Debug)]
pub(crate) struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Answer {
    /// The body as JSON, or a precise error naming `url`.
    pub fn json(&self, url: &str) -> Result<Value, AuthError> {
        serde_json::from_slice(&self.body).map_err(|e| AuthError::InvalidMetadata {
            url: url.to_string(),
            detail: format!("not JSON: {e}"),
        })
    }

    /// The body as text (lossy), shortened for error messages.
    pub fn text(&self) -> String {
        let t = String::from_utf8_lossy(&self.body);
        t.chars().take(500).collect()
    }
}

/// The OAuth flow's HTTP client (`http://` and `https://`, through the same connector as the
/// MCP HTTP transport: rustls with Mozilla's roots plus any extra roots given).
#[derive(Clone)]
pub(crate) struct AuthHttp {
    /// The client, or why it could not be made (a bad extra root certificate), reported by
    /// every request.
    client: Result<HyperClient<Connector, Full<Bytes>>, String>,
    /// How long one request may take.
    timeout: Duration,
}

impl Default for AuthHttp {
    fn default() -> Self {
        Self::with_roots(&[])
    }
}

impl AuthHttp {
    /// A client that also trusts the CA certificates in `extra_roots_pem` (PEM text each).
    pub fn with_roots(extra_roots_pem: &[String]) -> Self {
        Self {
            client: Connector::new(extra_roots_pem)
                .map(|c| HyperClient::builder(TokioExecutor::new()).build(c)),
            timeout: TIMEOUT,
        }
    }

    /// The same client with requests given up after `timeout` (a resource server asking its
    /// identity provider on a request's path waits less than the OAuth flow's 30 s).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

impl AuthHttp {
    /// Sends one request; `headers` are added as given.
    pub async fn send(
        &self,
        method: Method,
        url: &str,
        headers: &[(&str, String)],
        body: Option<(&str, Vec<u8>)>,
    ) -> Result<Answer, AuthError> {
        let err = |detail: String| AuthError::Http {
            url: url.to_string(),
            detail,
        };
        let uri: http::Uri = url.parse().map_err(|e| AuthError::InvalidUrl {
            url: url.to_string(),
            detail: format!("{e}"),
        })?;
        if !matches!(uri.scheme_str(), Some("http" | "https")) {
            return Err(AuthError::InvalidUrl {
                url: url.to_string(),
                detail: "only http:// and https:// URLs are supported".into(),
            });
        }
        let client = self.client.as_ref().map_err(|e| err(e.clone()))?;
        let mut b = Request::builder()
            .method(method)
            .uri(uri)
            .header("accept", "application/json");
        for (k, v) in headers {
            b = b.header(*k, v.as_str());
        }
        let payload = match body {
            Some((ct, bytes)) => {
                b = b.header("content-type", ct);
                Bytes::from(bytes)
            }
            None => Bytes::new(),
        };
        let req = b
            .body(Full::new(payload))
            .map_err(|e| err(format!("bad request: {e}")))?;
        let exchange = async {
            let resp = client
                .request(req)
                .await
                .map_err(|e| err(error_chain(&e)))?;
            let (parts, body) = resp.into_parts();
            let body = Limited::new(body, MAX_BODY)
                .collect()
                .await
                .map_err(|e| err(format!("reading the body failed: {e}")))?
                .to_bytes();
            Ok(Answer {
                status: parts.status,
                headers: parts.headers,
                body,
            })
        };
        tokio::time::timeout(self.timeout, exchange)
            .await
            .map_err(|_| err(format!("no answer within {:?}", self.timeout)))?
    }

    /// GET `url` (JSON accepted).
    pub async fn get(&self, url: &str) -> Result<Answer, AuthError> {
        self.send(Method::GET, url, &[], None).await
    }

    /// POST an `application/x-www-form-urlencoded` body.
    pub async fn post_form(
        &self,
        url: &str,
        form: &[(&str, String)],
        headers: &[(&str, String)],
    ) -> Result<Answer, AuthError> {
        let body = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form.iter().map(|(k, v)| (*k, v.as_str())))
            .finish();
        self.send(
            Method::POST,
            url,
            headers,
            Some(("application/x-www-form-urlencoded", body.into_bytes())),
        )
        .await
    }

    /// POST a JSON body.
    pub async fn post_json(&self, url: &str, body: &Value) -> Result<Answer, AuthError> {
        let bytes = serde_json::to_vec(body).expect("serializes");
        self.send(Method::POST, url, &[], Some(("application/json", bytes)))
            .await
    }
}
