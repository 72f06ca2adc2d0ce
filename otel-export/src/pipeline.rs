//! The SDK's providers, built from plain settings: [`tracer_provider`] (batch span processor
//! over the OTLP/HTTP span exporter) and [`meter_provider`] (periodic reader over the OTLP
//! metric exporter, and the Prometheus reader).
//!
//! Every SDK and OTLP generic that takes a concrete exporter type (`with_batch_exporter`,
//! `PeriodicReader::builder`, the exporters' builders) is instantiated here and nowhere else:
//! that is what this crate is for (see the crate's documentation).

use crate::prometheus::PrometheusReader;
use crate::Sampling;
use opentelemetry::KeyValue;
use opentelemetry_http::HttpClient;
use opentelemetry_otlp::{WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::metrics::exporter::PushMetricExporter as _;
use opentelemetry_sdk::metrics::reader::MetricReader;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider, Temporality};
use opentelemetry_sdk::trace::{IdGenerator, SdkTracerProvider};
use opentelemetry_sdk::Resource;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

/// Where and how one signal is posted over OTLP/HTTP (protobuf).
#[derive(Clone)]
#[non_exhaustive]
pub struct OtlpTarget {
    /// The signal's full URL (`http://collector:4318/v1/traces`; [`crate::signal_url`]).
    pub url: String,
    /// Header fields sent with every export.
    pub headers: Vec<(String, String)>,
    /// How long one export may take.
    pub timeout: Duration,
    /// The HTTP client the exporter posts through (its TLS, its runtime: the caller's).
    pub client: Arc<dyn HttpClient>,
}

impl OtlpTarget {
    /// Posts to `url` through `client`, with no extra header fields and the specification's
    /// 10 s timeout.
    pub fn new(url: impl Into<String>, client: Arc<dyn HttpClient>) -> Self {
        Self {
            url: url.into(),
            headers: Vec::new(),
            timeout: Duration::from_secs(10),
            client,
        }
    }

    /// The same with these header fields.
    pub fn with_headers(mut self, headers: Vec<(String, String)>) -> Self {
        self.headers = headers;
        self
    }

    /// The same with this timeout for each export.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    fn header_map(&self) -> HashMap<String, String> {
        self.headers.iter().cloned().collect()
    }
}

impl std::fmt::Debug for OtlpTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Header values may be credentials (an API key): only their names are shown.
        let names: Vec<&str> = self.headers.iter().map(|(k, _)| k.as_str()).collect();
        f.debug_struct("OtlpTarget")
            .field("url", &self.url)
            .field("headers", &names)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

/// How spans are sampled and exported ([`tracer_provider`]).
#[non_exhaustive]
pub struct TraceExport {
    /// Where spans are posted (in batches, from the batch span processor's own thread).
    pub otlp: OtlpTarget,
    /// The root sampler.
    pub sampling: Sampling,
    /// Follow a remote parent's sampling decision (the SDK's `ParentBased` sampler).
    pub parent_based: bool,
    /// The span and trace ids' source; `None`: the SDK's random ids.
    pub id_generator: Option<Box<dyn IdGenerator>>,
}

impl TraceExport {
    /// Every span exported to `otlp`, parent-based, with random ids.
    pub fn new(otlp: OtlpTarget) -> Self {
        Self {
            otlp,
            sampling: Sampling::AlwaysOn,
            parent_based: true,
            id_generator: None,
        }
    }

    /// The same with this root sampling, parent-based or not.
    pub fn with_sampling(mut self, sampling: Sampling, parent_based: bool) -> Self {
        self.sampling = sampling;
        self.parent_based = parent_based;
        self
    }

    /// The same with ids from `ids`.
    pub fn with_id_generator(mut self, ids: Box<dyn IdGenerator>) -> Self {
        self.id_generator = Some(ids);
        self
    }
}

impl std::fmt::Debug for TraceExport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TraceExport")
            .field("otlp", &self.otlp)
            .field("sampling", &self.sampling)
            .field("parent_based", &self.parent_based)
            .field("id_generator", &self.id_generator)
            .finish()
    }
}

/// How metrics are exported over OTLP ([`meter_provider`]).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct MetricExport {
    /// Where metrics are posted (from the periodic reader's own thread).
    pub otlp: OtlpTarget,
    /// Time between exports.
    pub interval: Duration,
    /// The exporter's temporality; `None`: the OTLP exporter's choice
    /// (`OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE`, else cumulative).
    pub temporality: Option<Temporality>,
}

impl MetricExport {
    /// Metrics exported to `otlp` every `interval`, in the exporter's temporality.
    pub fn new(otlp: OtlpTarget, interval: Duration) -> Self {
        Self {
            otlp,
            interval,
            temporality: None,
        }
    }

    /// The same with this temporality.
    pub fn with_temporality(mut self, temporality: Temporality) -> Self {
        self.temporality = Some(temporality);
        self
    }
}

/// A meter provider and the reader its Prometheus text is rendered from ([`meter_provider`]).
#[derive(Debug)]
#[non_exhaustive]
pub struct Meters {
    /// The provider (flushed and stopped by its `shutdown`, or when the last clone drops).
    pub provider: SdkMeterProvider,
    /// The Prometheus reader, when asked for.
    pub prometheus: Option<PrometheusReader>,
}

/// An exporter the SDK refused to build (an unusable URL, ...).
#[derive(Debug, Clone)]
pub struct BuildError(String);

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BuildError {}

impl BuildError {
    fn of(e: impl std::fmt::Display) -> Self {
        Self(e.to_string())
    }
}

/// The resource both providers describe: `service.name` when given (else the SDK's default,
/// `unknown_service`, or `OTEL_SERVICE_NAME`), `attributes`, and what the SDK's default
/// detectors read (`OTEL_RESOURCE_ATTRIBUTES`, the telemetry SDK's name and version).
pub fn resource(service_name: Option<String>, attributes: Vec<KeyValue>) -> Resource {
    let mut resource = Resource::builder().with_attributes(attributes);
    if let Some(name) = service_name {
        resource = resource.with_service_name(name);
    }
    resource.build()
}

/// A tracer provider exporting the spans `export` samples, in batches from a thread of its own
/// (no async runtime needed), describing `resource`.
pub fn tracer_provider(
    resource: Resource,
    export: TraceExport,
) -> Result<SdkTracerProvider, BuildError> {
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_shared_http_client(export.otlp.client.clone())
        .with_endpoint(export.otlp.url.clone())
        .with_timeout(export.otlp.timeout)
        .with_headers(export.otlp.header_map())
        .build()
        .map_err(BuildError::of)?;
    let mut provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_sampler(export.sampling.sdk_sampler(export.parent_based))
        .with_resource(resource);
    if let Some(ids) = export.id_generator {
        provider = provider.with_id_generator(Ids(ids));
    }
    Ok(provider.build())
}

/// A meter provider describing `resource`: exporting over OTLP as `otlp` says (from a thread
/// of its own), and read for Prometheus text when `prometheus` is set. The Prometheus text
/// reads the OTLP exporter's own reader when that one is cumulative (each measurement is
/// aggregated once; a second reader would double the cost of every record), else a manual
/// reader of its own.
pub fn meter_provider(
    resource: Resource,
    otlp: Option<MetricExport>,
    prometheus: bool,
) -> Result<Meters, BuildError> {
    let mut meters = SdkMeterProvider::builder().with_resource(resource);
    let mut reader = None;
    if let Some(export) = otlp {
        let builder = opentelemetry_otlp::MetricExporter::builder();
        let builder = match export.temporality {
            Some(t) => builder.with_temporality(t),
            None => builder,
        };
        let exporter = builder
            .with_http()
            .with_shared_http_client(export.otlp.client.clone())
            .with_endpoint(export.otlp.url.clone())
            .with_timeout(export.otlp.timeout)
            .with_headers(export.otlp.header_map())
            .build()
            .map_err(BuildError::of)?;
        let cumulative = exporter.temporality() == Temporality::Cumulative;
        let periodic = PeriodicReader::builder(exporter)
            .with_interval(export.interval)
            .build();
        if prometheus && cumulative {
            let shared: Arc<dyn MetricReader> = Arc::new(periodic);
            let shared = PrometheusReader::sharing(shared);
            meters = meters.with_reader(shared.registered());
            reader = Some(shared);
        } else {
            meters = meters.with_reader(periodic);
        }
    }
    if prometheus && reader.is_none() {
        let manual = PrometheusReader::manual();
        meters = meters.with_reader(manual.registered());
        reader = Some(manual);
    }
    Ok(Meters {
        provider: meters.build(),
        prometheus: reader,
    })
}

/// A caller's id generator, as the SDK's builder takes one (a type, not a box).
#[derive(Debug)]
struct Ids(Box<dyn IdGenerator>);

impl IdGenerator for Ids {
    fn new_trace_id(&self) -> opentelemetry::trace::TraceId {
        self.0.new_trace_id()
    }

    fn new_span_id(&self) -> opentelemetry::trace::SpanId {
        self.0.new_span_id()
    }
}

#[cfg(test)]
mod tests;
