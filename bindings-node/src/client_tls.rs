//! `NativeClient.connectHttpWith`: the Streamable HTTP client with every HTTP option the
//! engine's client has ([`HttpConnectOptions`]), so that a JavaScript client can trust a
//! private CA (`rootCertificates`) beside Mozilla's roots, with or without OAuth. Kept apart
//! from `client.rs` so the plain connections stay as they are; the TLS work is the engine's
//! (`ferromcp::tls`, rustls), verification is always on.

use crate::auth::NativeOAuth;
use crate::client::{client_setup, NativeClient};
use crate::convert::pairs;
use crate::error::napi_result;
use crate::handler::NativeDispatcher;
use ferromcp_embed::{EmbeddedClient, HttpConnectOptions};
use napi::bindgen_prelude::PromiseRaw;
use napi::Env;
use napi_derive::napi;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;

#[napi]
impl NativeClient {
    /// Connects to a Streamable HTTP endpoint like `connectHttp` (and `connectHttpAuth` when
    /// `auth` is given), also trusting `rootCertificates` (PEM text each, e.g. a private CA's)
    /// for `https://`. A PEM without a certificate, or one rustls refuses, fails the connection
    /// with a transport error naming it.
    #[napi(ts_return_type = "Promise<NativeClient>")]
    #[allow(clippy::too_many_arguments)]
    pub fn connect_http_with<'env>(
        env: &'env Env,
        url: String,
        headers: Option<HashMap<String, String>>,
        legacy_fallback: bool,
        root_certificates: Vec<String>,
        auth: Option<&NativeOAuth>,
        config: Value,
        dispatcher: Option<&NativeDispatcher>,
    ) -> napi::Result<PromiseRaw<'env, NativeClient>> {
        let (config, handler) = client_setup(config, dispatcher)?;
        let options = HttpConnectOptions {
            headers: pairs(headers),
            legacy_fallback,
            extra_root_certificates: root_certificates,
        };
        let auth = auth.map(|a| a.client.clone());
        env.spawn_future(async move {
            let c = EmbeddedClient::connect_http_with(&url, options, auth, &config, handler).await;
            napi_result(c).map(|c| NativeClient {
                client: Arc::new(c),
            })
        })
    }
}
