//! The proxy's HTTP surface without an HTTP framework: a request as method, path, query,
//! headers and body, and the answer as status, headers and body. The engine's listener, an
//! Express app (Node) or an ASGI app (Python) converts to and from these, so the endpoints'
//! rules live once, here.

use super::error::{invalid_client, invalid_request, OAuthFailure};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use bytes::Bytes;
use serde_json::Value;
use std::collections::HashMap;

/// Largest request body the endpoints read (registration metadata, token and revocation forms).
pub const MAX_REQUEST_BODY: usize = 64 * 1024;

/// One HTTP request to the proxy.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct ProxyRequest {
    /// `GET`, `POST`, `OPTIONS`, ...
    pub method: String,
    /// The path, without the query (`/token`).
    pub path: String,
    /// The query string without `?` (empty when there is none).
    pub query: String,
    /// Header names (any case) and values.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Bytes,
}

ferromcp_protocol::with_setters!(ProxyRequest {
    method: String => with_method,
    path: String => with_path,
    query: String => with_query,
    headers: Vec<(String, String)> => with_headers,
    body: Bytes => with_body,
});

impl ProxyRequest {
    /// The first header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The proxy's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ProxyResponse {
    /// The status code.
    pub status: u16,
    /// Headers to send.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

ferromcp_protocol::with_setters!(ProxyResponse {
    status: u16 => with_status,
    headers: Vec<(String, String)> => with_headers,
    body: Vec<u8> => with_body,
});

impl ProxyResponse {
    /// A response with `status`, no header fields and an empty body (add them with
    /// [`Self::with_headers`] and [`Self::with_body`]).
    pub fn new(status: u16) -> Self {
        Self {
            status,
            headers: Vec::new(),
            body: Vec::new(),
        }
    }

    /// A JSON answer, never cached (RFC 6749 §5.1).
    pub(super) fn json(status: u16, v: &Value) -> Self {
        Self {
            status,
            headers: vec![
                ("content-type".into(), "application/json".into()),
                ("cache-control".into(), "no-store".into()),
            ],
            body: serde_json::to_vec(v).expect("a JSON value serializes"),
        }
    }

    /// A JSON error answer with the code's status; `invalid_client` carries a `Basic`
    /// challenge (RFC 6749 §5.2).
    pub(super) fn failure(f: &OAuthFailure) -> Self {
        let mut r = Self::json(f.code.status(), &f.body());
        if f.code.status() == 401 {
            r.headers
                .push(("www-authenticate".into(), "Basic realm=\"oauth\"".into()));
        }
        r
    }

    /// A `302 Found` to `location`.
    pub(super) fn redirect(location: String) -> Self {
        Self {
            status: 302,
            headers: vec![
                ("location".into(), location),
                ("cache-control".into(), "no-store".into()),
            ],
            body: Vec::new(),
        }
    }

    /// An HTML page (the consent screen).
    pub(super) fn html(status: u16, page: String) -> Self {
        Self {
            status,
            headers: vec![
                ("content-type".into(), "text/html; charset=utf-8".into()),
                ("cache-control".into(), "no-store".into()),
                // The page must not be framed (clickjacking on the approve button). No
                // `form-action 'self'`: browsers apply it to the redirects that follow the form's
                // POST too, and the answer to that POST is a redirect to the identity provider
                // (approve) or to the client (deny), never to this origin.
                ("x-frame-options".into(), "DENY".into()),
                (
                    "content-security-policy".into(),
                    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'".into(),
                ),
            ],
            body: page.into_bytes(),
        }
    }

    /// The first header named `name` (lowercase).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Form or query parameters, each at most once (RFC 6749 §3.1: a repeated parameter is an
/// `invalid_request`); empty values count as absent.
#[derive(Debug, Default)]
pub(super) struct Params(HashMap<String, String>);

impl Params {
    /// Parses `application/x-www-form-urlencoded` text.
    pub fn parse(text: &[u8]) -> Result<Self, OAuthFailure> {
        let mut map = HashMap::new();
        for (k, v) in form_urlencoded::parse(text) {
            if map.insert(k.to_string(), v.into_owned()).is_some() {
                return Err(invalid_request(format!("parameter {k} is repeated")));
            }
        }
        Ok(Self(map))
    }

    /// A request's form body; any other content type is refused.
    pub fn form(req: &ProxyRequest) -> Result<Self, OAuthFailure> {
        let ct = req.header("content-type").unwrap_or("");
        let media = ct.split(';').next().unwrap_or("").trim();
        if !media.eq_ignore_ascii_case("application/x-www-form-urlencoded") {
            return Err(invalid_request(format!(
                "the body must be application/x-www-form-urlencoded (got {})",
                if ct.is_empty() { "no content type" } else { ct }
            )));
        }
        Self::parse(&req.body)
    }

    /// The value of `name`, if given and not empty.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// The value of `name`, or `invalid_request` naming it.
    pub fn require(&self, name: &str) -> Result<&str, OAuthFailure> {
        self.get(name)
            .ok_or_else(|| invalid_request(format!("{name} is required")))
    }
}

/// The client credentials of a token or revocation request: `Authorization: Basic`
/// (`client_secret_basic`, RFC 6749 §2.3.1, both parts form-encoded) or the body's
/// `client_id` and `client_secret`. Both at once is refused (§2.3: one method per request).
pub(super) fn client_credentials(
    req: &ProxyRequest,
    params: &Params,
) -> Result<(String, Option<String>), OAuthFailure> {
    if let Some(h) = req.header("authorization") {
        let Some(encoded) = h
            .strip_prefix("Basic ")
            .or_else(|| h.strip_prefix("basic "))
        else {
            return Err(invalid_client(
                "the Authorization header must be Basic client credentials",
            ));
        };
        let raw = STANDARD
            .decode(encoded.trim())
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
            .ok_or_else(|| invalid_client("the Basic credentials are not base64 text"))?;
        let (id, secret) = raw
            .split_once(':')
            .ok_or_else(|| invalid_client("the Basic credentials have no ':'"))?;
        if params.get("client_secret").is_some() {
            return Err(invalid_request(
                "client credentials given both in the Authorization header and in the body",
            ));
        }
        let decode = |s: &str| {
            form_urlencoded::parse(format!("x={s}").as_bytes())
                .next()
                .map(|(_, v)| v.into_owned())
                .unwrap_or_default()
        };
        let id = decode(id);
        if let Some(body_id) = params.get("client_id") {
            if body_id != id {
                return Err(invalid_request(
                    "client_id in the body differs from the Basic credentials",
                ));
            }
        }
        return Ok((id, Some(decode(secret))));
    }
    let id = params.require("client_id")?.to_string();
    Ok((id, params.get("client_secret").map(str::to_string)))
}

#[cfg(test)]
mod tests {
    use super::ProxyResponse;

    #[test]
    fn the_consent_page_cannot_be_framed_and_its_form_may_lead_to_other_origins() {
        let page = ProxyResponse::html(200, "<form></form>".into());
        let csp = page.header("content-security-policy").unwrap();
        assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
        assert_eq!(page.header("x-frame-options"), Some("DENY"));
        // The POST's answer redirects to the identity provider or the client: a form-action
        // limited to this origin would stop the browser there.
        assert!(!csp.contains("form-action"), "{csp}");
    }
}
