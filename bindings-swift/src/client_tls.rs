//! `NativeClient.httpWithRoots`: the Streamable HTTP client with every HTTP option the engine's client
//! has ([`HttpConnectOptions`]), so that a Swift client can trust a private CA
//! (`rootCertificates`) beside Mozilla's roots, with or without OAuth. Kept apart from
//! `client.rs` so the plain connections stay as they are; the TLS work is the engine's
//! (`ferromcp::tls`, rustls), verification is always on.

use crate::auth::NativeOAuth;
use crate::client::{client_config, foreign, NativeClient};
use crate::error::FfiError;
use crate::handler::ClientHandler;
use crate::runtime::run;
use crate::NameValue;
use ferromcp_embed::{EmbeddedClient, HttpConnectOptions};
use std::sync::Arc;

#[uniffi::export]
impl NativeClient {
    /// Connects to a Streamable HTTP endpoint like [`NativeClient::http`] (and
    /// [`NativeClient::http_auth`] when `auth` is given), also trusting `root_certificates` (PEM
    /// text each, e.g. a private CA's) for `https://`. A PEM without a certificate, or one
    /// rustls refuses, fails the connection with a transport error naming it.
    #[uniffi::constructor]
    pub async fn http_with_roots(
        url: String,
        headers: Vec<NameValue>,
        legacy_fallback: bool,
        root_certificates: Vec<String>,
        auth: Option<Arc<NativeOAuth>>,
        config: Option<String>,
        handler: Option<Arc<dyn ClientHandler>>,
    ) -> Result<Arc<Self>, FfiError> {
        let config = client_config(config)?;
        let options = HttpConnectOptions {
            headers: headers.into_iter().map(Into::into).collect(),
            legacy_fallback,
            extra_root_certificates: root_certificates,
        };
        let handler = foreign(handler);
        let auth = auth.map(|a| a.client.clone());
        let inner = run(async move {
            EmbeddedClient::connect_http_with(&url, options, auth, &config, handler).await
        })
        .await?;
        Ok(Arc::new(Self {
            inner: Arc::new(inner),
        }))
    }
}
