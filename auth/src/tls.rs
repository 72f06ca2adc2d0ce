//! HTTPS for every outgoing HTTP connection of the engine (the MCP HTTP client transports, the
//! OAuth client, JWKS and introspection fetches): one hyper connector that speaks plain TCP for
//! `http://` and rustls (the `ring` provider, Mozilla's roots from `webpki-roots`, plus any extra
//! PEM roots the user trusts) for `https://`. Server name indication and certificate verification
//! are always on; ALPN offers `http/1.1`, the only protocol the client speaks.
//!
//! In this crate, the lowest one that makes outgoing connections, rather than in `ferromcp`: the
//! OAuth client needs it and must not depend on the engine above it, and the engine uses it
//! from here (`ferromcp_auth::tls`, `#[doc(hidden)]`: a seam between the two crates, not an API).

use http::Uri;
use hyper_util::client::legacy::connect::{Connected, Connection, HttpConnector};
use hyper_util::rt::TokioIo;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, RootCertStore};
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;
use tokio_rustls::TlsConnector;

/// The TLS client configuration: Mozilla's roots plus the certificates in `extra_roots_pem`
/// (each entry PEM text holding one or more `CERTIFICATE` blocks). Errors name the bad entry.
pub fn client_config(extra_roots_pem: &[String]) -> Result<Arc<ClientConfig>, String> {
    if extra_roots_pem.is_empty() {
        static DEFAULT: OnceLock<Arc<ClientConfig>> = OnceLock::new();
        return Ok(DEFAULT
            .get_or_init(|| build_config(RootCertStore::from_iter(webpki_roots())))
            .clone());
    }
    let mut roots = RootCertStore::from_iter(webpki_roots());
    for (i, pem) in extra_roots_pem.iter().enumerate() {
        let mut found = 0;
        for cert in CertificateDer::pem_slice_iter(pem.as_bytes()) {
            let cert = cert.map_err(|e| format!("extra root certificate #{i}: bad PEM: {e}"))?;
            roots.add(cert).map_err(|e| {
                format!("extra root certificate #{i}: not a usable CA certificate: {e}")
            })?;
            found += 1;
        }
        if found == 0 {
            return Err(format!(
                "extra root certificate #{i}: no PEM CERTIFICATE block found"
            ));
        }
    }
    Ok(build_config(roots))
}

fn webpki_roots() -> impl Iterator<Item = rustls::pki_types::TrustAnchor<'static>> {
    webpki_roots::TLS_SERVER_ROOTS.iter().cloned()
}

fn build_config(roots: RootCertStore) -> Arc<ClientConfig> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("the ring provider supports the default TLS versions")
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Arc::new(config)
}

/// The connector of the engine's hyper clients: TCP for `http://`, TCP + TLS for `https://`.
#[derive(Clone)]
pub struct Connector {
    tcp: HttpConnector,
    tls: TlsConnector,
}

impl Connector {
    /// A connector trusting Mozilla's roots plus `extra_roots_pem` (see [`client_config`]).
    pub fn new(extra_roots_pem: &[String]) -> Result<Self, String> {
        let mut tcp = HttpConnector::new();
        tcp.set_nodelay(true);
        tcp.enforce_http(false);
        Ok(Self {
            tcp,
            tls: TlsConnector::from(client_config(extra_roots_pem)?),
        })
    }
}

impl std::fmt::Debug for Connector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connector").finish_non_exhaustive()
    }
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

impl tower_service::Service<Uri> for Connector {
    type Response = Stream;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Stream, BoxError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.tcp.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, uri: Uri) -> Self::Future {
        let tls = match uri.scheme_str() {
            Some("https") => Some(self.tls.clone()),
            Some("http") => None,
            other => {
                let msg = format!("unsupported URL scheme {other:?} (http and https are)");
                return Box::pin(async move { Err(msg.into()) });
            }
        };
        let host = uri
            .host()
            .unwrap_or_default()
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string();
        let connecting = self.tcp.call(uri);
        Box::pin(async move {
            let tcp = connecting.await?;
            let Some(tls) = tls else {
                return Ok(Stream::Plain(tcp));
            };
            let name = ServerName::try_from(host.clone())
                .map_err(|e| format!("TLS: invalid server name {host:?}: {e}"))?;
            let stream = tls
                .connect(name, tcp.into_inner())
                .await
                .map_err(|e| tls_error(&host, e))?;
            Ok(Stream::Tls(Box::new(TokioIo::new(stream))))
        })
    }
}

/// A TLS handshake failure as one readable line, with rustls's reason (e.g. `invalid peer
/// certificate: UnknownIssuer`).
fn tls_error(host: &str, e: io::Error) -> BoxError {
    format!("TLS: handshake with {host} failed: {e}").into()
}

/// One connection of the engine's hyper clients.
#[derive(Debug)]
pub enum Stream {
    /// `http://`.
    Plain(TokioIo<TcpStream>),
    /// `https://`.
    Tls(Box<TokioIo<TlsStream<TcpStream>>>),
}

impl Connection for Stream {
    fn connected(&self) -> Connected {
        match self {
            Stream::Plain(s) => s.connected(),
            Stream::Tls(s) => s.inner().get_ref().0.connected(),
        }
    }
}

impl hyper::rt::Read for Stream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: hyper::rt::ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl hyper::rt::Write for Stream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_flush(cx),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Stream::Plain(s) => s.is_write_vectored(),
            Stream::Tls(s) => s.is_write_vectored(),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_write_vectored(cx, bufs),
        }
    }
}

/// An error and its sources as one line (`a: b: c`), so a connect failure shows its cause
/// (hyper's own message is only "client error (Connect)").
pub fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = s.source();
    }
    out
}
