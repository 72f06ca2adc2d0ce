//! TLS for [`super::serve_http`]: the options ([`TlsOptions`]), the rustls server configuration
//! built from them (TLS 1.2 and 1.3 with rustls's safe defaults on the `ring` provider, ALPN
//! `http/1.1`, optional or required client certificates), and the certificate that follows its
//! files: a task looks at the files' modification times every [`TlsOptions::reload_interval`]
//! and swaps a new chain and key in when both load and match, so the next handshake serves it
//! without a restart. Connections already open keep the certificate they were opened with.

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert, WebPkiClientVerifier};
use rustls::sign::CertifiedKey;
use rustls::{RootCertStore, ServerConfig};
use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime};
use tokio_util::sync::CancellationToken;

/// Where PEM text comes from: a file (read at start, and again when it changes) or bytes given
/// once.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PemSource {
    /// A file holding PEM text; watched for changes.
    File(PathBuf),
    /// PEM text itself.
    Pem(Vec<u8>),
}

impl PemSource {
    fn read(&self) -> Result<Vec<u8>, String> {
        match self {
            PemSource::File(p) => {
                std::fs::read(p).map_err(|e| format!("cannot read {}: {e}", p.display()))
            }
            PemSource::Pem(b) => Ok(b.clone()),
        }
    }

    fn name(&self) -> String {
        match self {
            PemSource::File(p) => p.display().to_string(),
            PemSource::Pem(_) => "the PEM bytes given".into(),
        }
    }

    /// The file's modification time and length, when it is a file that can be looked at.
    fn stamp(&self) -> Option<(SystemTime, u64)> {
        match self {
            PemSource::File(p) => {
                let m = std::fs::metadata(p).ok()?;
                Some((m.modified().ok()?, m.len()))
            }
            PemSource::Pem(_) => None,
        }
    }
}

/// Client certificates (mutual TLS): verified against a CA bundle.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClientCertificates {
    /// The CA certificates a client certificate must chain to (one or more PEM `CERTIFICATE`
    /// blocks). Read once, at start.
    pub ca_bundle: PemSource,
    /// Refuse, at the handshake, a client that presents no certificate. When `false` a client
    /// may present none, but one it presents must still verify.
    pub required: bool,
}

/// TLS for the HTTP server ([`crate::transport::http::HttpServerOptions::tls`]).
///
/// TLS 1.2 and 1.3 only, with the cipher suites rustls enables by default on the `ring`
/// provider (AEAD suites with forward secrecy; no CBC, RC4, 3DES or static RSA key exchange).
/// ALPN offers `http/1.1`; a client offering only other protocols is refused at the handshake.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct TlsOptions {
    /// The certificate chain, leaf first (PEM `CERTIFICATE` blocks).
    pub certificate_chain: PemSource,
    /// The private key of the leaf certificate (PEM: PKCS#8, PKCS#1 RSA or SEC1 EC).
    pub private_key: PemSource,
    /// How often the certificate and key files are looked at for changes (default 5 s). When
    /// either file's modification time or size changes, both are read again; the new pair is
    /// served to the next connection once both parse and the key matches the certificate (a
    /// pair caught half written is retried when the files change again; meanwhile the previous
    /// certificate stays).
    pub reload_interval: Duration,
    /// Ask clients for certificates (mutual TLS). `None`: none asked for.
    pub client_certificates: Option<ClientCertificates>,
}

ferromcp_protocol::with_setters!(TlsOptions {
    certificate_chain: PemSource => with_certificate_chain,
    private_key: PemSource => with_private_key,
    reload_interval: Duration => with_reload_interval,
    client_certificates: Option<ClientCertificates> => with_client_certificates,
});

impl TlsOptions {
    /// TLS with a certificate chain and key read from PEM files (and reloaded when they change).
    pub fn from_files(
        certificate_chain: impl Into<PathBuf>,
        private_key: impl Into<PathBuf>,
    ) -> Self {
        Self::new(
            PemSource::File(certificate_chain.into()),
            PemSource::File(private_key.into()),
        )
    }

    /// TLS with a certificate chain and key given as PEM text.
    pub fn from_pem(
        certificate_chain: impl Into<Vec<u8>>,
        private_key: impl Into<Vec<u8>>,
    ) -> Self {
        Self::new(
            PemSource::Pem(certificate_chain.into()),
            PemSource::Pem(private_key.into()),
        )
    }

    fn new(certificate_chain: PemSource, private_key: PemSource) -> Self {
        Self {
            certificate_chain,
            private_key,
            reload_interval: Duration::from_secs(5),
            client_certificates: None,
        }
    }

    /// Verifies client certificates against `ca_bundle`; `required`: refuse clients without one.
    pub fn client_certificates(mut self, ca_bundle: PemSource, required: bool) -> Self {
        self.client_certificates = Some(ClientCertificates {
            ca_bundle,
            required,
        });
        self
    }
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// Reads and checks a chain and key: both parse, the chain is not empty, the key matches the
/// leaf certificate.
fn load_pair(o: &TlsOptions) -> Result<CertifiedKey, String> {
    let chain_pem = o.certificate_chain.read()?;
    let chain = CertificateDer::pem_slice_iter(&chain_pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{}: bad PEM: {e}", o.certificate_chain.name()))?;
    if chain.is_empty() {
        return Err(format!(
            "{}: no PEM CERTIFICATE block found",
            o.certificate_chain.name()
        ));
    }
    let key_pem = o.private_key.read()?;
    let key = PrivateKeyDer::from_pem_slice(&key_pem)
        .map_err(|e| format!("{}: no usable PEM private key: {e}", o.private_key.name()))?;
    CertifiedKey::from_der(chain, key, &provider()).map_err(|e| {
        format!(
            "{} and {}: {e}",
            o.certificate_chain.name(),
            o.private_key.name()
        )
    })
}

/// The certificate served to the next handshake, swapped when its files change.
#[derive(Debug)]
pub(crate) struct CurrentCert {
    key: RwLock<Arc<CertifiedKey>>,
}

impl ResolvesServerCert for CurrentCert {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.key.read().unwrap_or_else(|e| e.into_inner()).clone())
    }
}

/// A server's TLS: the acceptor handshakes use, and the certificate it resolves.
#[derive(Clone)]
pub(crate) struct ServerTls {
    pub(crate) acceptor: tokio_rustls::TlsAcceptor,
    current: Arc<CurrentCert>,
    options: TlsOptions,
}

impl std::fmt::Debug for ServerTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerTls").finish_non_exhaustive()
    }
}

impl ServerTls {
    /// Builds the configuration; errors say which file or setting is wrong.
    pub(crate) fn new(options: &TlsOptions) -> Result<Self, String> {
        let current = Arc::new(CurrentCert {
            key: RwLock::new(Arc::new(load_pair(options)?)),
        });
        let builder = ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS versions: {e}"))?;
        let builder = match &options.client_certificates {
            None => builder.with_no_client_auth(),
            Some(cc) => {
                let pem = cc.ca_bundle.read()?;
                let mut roots = RootCertStore::empty();
                for cert in CertificateDer::pem_slice_iter(&pem) {
                    let cert =
                        cert.map_err(|e| format!("{}: bad PEM: {e}", cc.ca_bundle.name()))?;
                    roots.add(cert).map_err(|e| {
                        format!("{}: not a usable CA certificate: {e}", cc.ca_bundle.name())
                    })?;
                }
                if roots.is_empty() {
                    return Err(format!(
                        "{}: no PEM CERTIFICATE block found",
                        cc.ca_bundle.name()
                    ));
                }
                let verifier =
                    WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider());
                let verifier = if cc.required {
                    verifier
                } else {
                    verifier.allow_unauthenticated()
                };
                let verifier = verifier
                    .build()
                    .map_err(|e| format!("client certificate verifier: {e}"))?;
                builder.with_client_cert_verifier(verifier)
            }
        };
        let mut config = builder.with_cert_resolver(current.clone());
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Self {
            acceptor: tokio_rustls::TlsAcceptor::from(Arc::new(config)),
            current,
            options: options.clone(),
        })
    }

    /// Looks at the certificate and key files every [`TlsOptions::reload_interval`] until
    /// `stop`, swapping in a new pair when they change and load (nothing to do for PEM bytes).
    pub(crate) fn spawn_reload(&self, stop: CancellationToken) {
        let o = &self.options;
        if !matches!(o.certificate_chain, PemSource::File(_))
            && !matches!(o.private_key, PemSource::File(_))
        {
            return;
        }
        let (options, current) = (self.options.clone(), self.current.clone());
        tokio::spawn(async move {
            let stamps = |o: &TlsOptions| (o.certificate_chain.stamp(), o.private_key.stamp());
            let mut seen = stamps(&options);
            let mut tick =
                tokio::time::interval(options.reload_interval.max(Duration::from_millis(10)));
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    _ = stop.cancelled() => return,
                    _ = tick.tick() => {}
                }
                let now = stamps(&options);
                if now == seen {
                    continue;
                }
                seen = now;
                match load_pair(&options) {
                    Ok(pair) => {
                        *current.key.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(pair);
                        tracing::info!(
                            certificate = %options.certificate_chain.name(),
                            "TLS certificate reloaded; new connections get it"
                        );
                    }
                    Err(e) => tracing::warn!(
                        error = %e,
                        "TLS certificate files changed but do not load; the previous certificate is kept"
                    ),
                }
            }
        });
    }
}
