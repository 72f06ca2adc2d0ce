//! The HTTP client the OTLP exporters post through: the engine's own hyper client and connector
//! (plain TCP for `http://`, rustls for `https://`, as the MCP HTTP transport), run on a small
//! runtime of its own.
//!
//! Why a runtime of its own: the SDK's batch span processor and periodic metric reader export
//! from their own threads, outside any tokio runtime, by blocking on the exporter's future. A
//! request started there is spawned onto this runtime (one thread, `ferromcp-otlp`) and its
//! answer awaited over a channel, which any executor can poll.

use bytes::Bytes;
use ferromcp_auth::tls::Connector;
use http::{Request, Response};
use http_body_util::{BodyExt, Full, Limited};
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::rt::TokioExecutor;
use opentelemetry_http::{HttpClient, HttpError};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// Largest collector answer read (an OTLP answer is a few bytes; a partial-success one a few
/// hundred).
const MAX_ANSWER: usize = 1 << 20;

/// The runtime exports run on, started on first use and kept for the process.
fn export_runtime() -> &'static tokio::runtime::Handle {
    static RT: OnceLock<tokio::runtime::Handle> = OnceLock::new();
    RT.get_or_init(|| {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a current-thread runtime builds");
        let handle = rt.handle().clone();
        std::thread::Builder::new()
            .name("ferromcp-otlp".into())
            .spawn(move || rt.block_on(std::future::pending::<()>()))
            .expect("the export thread starts");
        handle
    })
}

/// An OTLP exporter's HTTP client.
#[derive(Clone)]
pub(super) struct OtlpHttp {
    client: HyperClient<Connector, Full<Bytes>>,
    timeout: Duration,
}

impl std::fmt::Debug for OtlpHttp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OtlpHttp").finish_non_exhaustive()
    }
}

impl OtlpHttp {
    /// A client trusting Mozilla's roots and `extra_roots_pem`; each request given up after
    /// `timeout`.
    pub(super) fn new(extra_roots_pem: &[String], timeout: Duration) -> Result<Self, String> {
        let connector = Connector::new(extra_roots_pem)?;
        // Built inside the runtime: the pool's idle-connection timer needs one.
        let _entered = export_runtime().enter();
        Ok(Self {
            client: HyperClient::builder(TokioExecutor::new()).build(connector),
            timeout,
        })
    }
}

#[async_trait::async_trait]
impl HttpClient for OtlpHttp {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let client = self.client.clone();
        let timeout = self.timeout;
        let (parts, body) = request.into_parts();
        let request = Request::from_parts(parts, Full::new(body));
        let (tx, rx) = futures_channel_oneshot();
        export_runtime().spawn(async move {
            let sent = tokio::time::timeout(timeout, async move {
                let answer = client.request(request).await?;
                let (parts, body) = answer.into_parts();
                let body = Limited::new(body, MAX_ANSWER)
                    .collect()
                    .await
                    .map_err(|e| -> HttpError { e })?
                    .to_bytes();
                Ok::<_, HttpError>(Response::from_parts(parts, body))
            })
            .await
            .unwrap_or_else(|_| Err(format!("OTLP export timed out after {timeout:?}").into()));
            let _ = tx.send(sent);
        });
        rx.await
            .map_err(|_| -> HttpError { "the OTLP export task ended without an answer".into() })?
    }
}

/// A one-shot channel whose receiver any executor can poll (tokio's is runtime-agnostic).
fn futures_channel_oneshot<T>() -> (
    tokio::sync::oneshot::Sender<T>,
    tokio::sync::oneshot::Receiver<T>,
) {
    tokio::sync::oneshot::channel()
}

/// Shared form for the exporters' builders.
pub(super) fn shared(client: OtlpHttp) -> Arc<dyn HttpClient> {
    Arc::new(client)
}
