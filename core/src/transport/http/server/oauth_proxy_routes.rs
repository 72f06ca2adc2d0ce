//! The OAuth proxy's endpoints ([`HttpServerOptions::oauth_proxy`]) served by the engine's own
//! listener ([`super::serve_http`]) and by its axum [`super::router`], so that a server fronting
//! an identity provider signs its clients in without an HTTP app of its own (before, each
//! deployment wrote the glue that turns an HTTP request into a [`ProxyRequest`] and the
//! [`ProxyResponse`] back). Both front doors share the conversions below; the proxy decides
//! everything else.
//!
//! [`HttpServerOptions::oauth_proxy`]: super::super::HttpServerOptions::oauth_proxy

use super::super::request::HttpRequest;
use super::app::App;
use super::responses::status_only;
use crate::auth::{OAuthProxy, ProxyRequest, ProxyResponse};
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::Response;
use std::sync::Arc;

/// The listener's route: the proxy's answer when `req`'s path is one of its endpoints.
pub(super) async fn serve_listener(proxy: &OAuthProxy, req: &HttpRequest) -> Option<Response> {
    if !proxy.serves(req.path()) {
        return None;
    }
    let request = ProxyRequest::default()
        .with_method(req.method().as_str().to_string())
        .with_path(req.path().to_string())
        .with_query(req.query().unwrap_or("").to_string())
        .with_headers(req.headers().pairs())
        .with_body(req.body.clone());
    let answer = proxy.handle(&request).await?;
    Some(into_response(answer))
}

/// The axum route of each of the proxy's paths ([`OAuthProxy::endpoint_paths`]).
pub(super) async fn serve_axum(State(app): State<Arc<App>>, req: Request) -> Response {
    let Some(proxy) = app.options.oauth_proxy.clone() else {
        return status_only(StatusCode::NOT_FOUND);
    };
    let (parts, body) = req.into_parts();
    let body = match axum::body::to_bytes(body, app.options.max_body_size).await {
        Ok(b) => b,
        Err(_) => return status_only(StatusCode::PAYLOAD_TOO_LARGE),
    };
    let headers = parts
        .headers
        .iter()
        .filter_map(|(k, v)| Some((k.as_str().to_string(), v.to_str().ok()?.to_string())))
        .collect();
    let request = ProxyRequest::default()
        .with_method(parts.method.as_str().to_string())
        .with_path(parts.uri.path().to_string())
        .with_query(parts.uri.query().unwrap_or("").to_string())
        .with_headers(headers)
        .with_body(body);
    match proxy.handle(&request).await {
        Some(answer) => into_response(answer),
        None => status_only(StatusCode::NOT_FOUND),
    }
}

/// The proxy's answer as an HTTP response (a header the HTTP types cannot carry is dropped).
fn into_response(answer: ProxyResponse) -> Response {
    let mut response = Response::new(Body::from(answer.body));
    *response.status_mut() =
        StatusCode::from_u16(answer.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    for (k, v) in answer.headers {
        if let (Ok(k), Ok(v)) = (HeaderName::try_from(k), HeaderValue::try_from(v)) {
            response.headers_mut().append(k, v);
        }
    }
    response
}
