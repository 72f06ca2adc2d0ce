//! An opt-in metrics endpoint on the HTTP server (`HttpServerOptions::metrics`): `GET <path>`
//! answers the text a renderer gives (the Prometheus exposition format, from
//! `ferromcp::telemetry::Telemetry::metrics_endpoint` with the `otel` feature, or any renderer
//! of your own). No session or token is needed; the Host/Origin checks apply as on `/healthz`.

use std::sync::Arc;

/// Content type of the Prometheus text exposition format 0.0.4.
pub const PROMETHEUS_TEXT: &str = "text/plain; version=0.0.4; charset=utf-8";

/// A path and the function that renders what it serves.
#[derive(Clone)]
pub struct MetricsEndpoint {
    /// The path served (e.g. `/metrics`).
    pub path: String,
    /// The `Content-Type` of the answer (default [`PROMETHEUS_TEXT`]).
    pub content_type: &'static str,
    render: Arc<dyn Fn() -> String + Send + Sync>,
}

impl MetricsEndpoint {
    /// `GET path` answers `render()` as Prometheus text.
    pub fn new(
        path: impl Into<String>,
        render: impl Fn() -> String + Send + Sync + 'static,
    ) -> Self {
        Self {
            path: path.into(),
            content_type: PROMETHEUS_TEXT,
            render: Arc::new(render),
        }
    }

    /// The text to serve now.
    pub fn render(&self) -> String {
        (self.render)()
    }
}

impl std::fmt::Debug for MetricsEndpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MetricsEndpoint")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}
