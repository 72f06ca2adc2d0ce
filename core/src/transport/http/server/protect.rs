//! Bearer-token protection of the endpoints ([`HttpServerOptions::auth`]): the check run before
//! a request reaches the session, and the Protected Resource Metadata document.
//!
//! [`HttpServerOptions::auth`]: super::super::HttpServerOptions::auth

use super::super::request::Fields;
use super::app::App;
use super::responses::{json_response, response_with};
use crate::auth::ResourceAuth;
use crate::session::AUTH_INFO;
use axum::body::Body;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use std::future::Future;

/// Runs `serve` after the bearer token check (when the endpoint is protected), with the verified
/// identity visible to the contexts of the requests it handles; a refusal is answered at once.
pub(super) async fn guarded<F>(app: &App, headers: &Fields, serve: F) -> Response
where
    F: Future<Output = Response>,
{
    let Some(auth) = &app.options.auth else {
        return serve.await;
    };
    match auth.check(headers.get_str("authorization")).await {
        Ok(info) => {
            // A client certificate (mutual TLS) stays beside the token's identity.
            let cert = AUTH_INFO
                .try_with(|c| c.claims.get("clientCertificate").cloned())
                .ok()
                .flatten();
            let info = match cert {
                Some(cert) => {
                    let mut both = (*info).clone();
                    super::client_cert::add_to(&mut both, &cert);
                    std::sync::Arc::new(both)
                }
                None => info,
            };
            AUTH_INFO.scope(info, serve).await
        }
        Err(d) => {
            let status = StatusCode::from_u16(d.status).unwrap_or(StatusCode::UNAUTHORIZED);
            let mut r = json_response(status, &d.body, None);
            if let Ok(v) = HeaderValue::from_str(&d.www_authenticate) {
                r.headers_mut().insert(header::WWW_AUTHENTICATE, v);
            }
            r
        }
    }
}

/// The metadata document of a protected endpoint.
pub(super) fn metadata_response(auth: &ResourceAuth) -> Response {
    let body = serde_json::to_vec(&auth.metadata()).expect("serializes");
    let mut r = response_with(StatusCode::OK, Body::from(body), "application/json", None);
    r.headers_mut().insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    r
}

/// The metadata path of `app`'s protection, if any.
pub(super) fn metadata_path(app: &App) -> Option<String> {
    app.options.auth.as_ref().map(|a| a.metadata_path())
}
