//! OpenTelemetry for MCP servers and clients (feature `otel`): a span per request on each side
//! and operation-duration histograms named as OpenTelemetry's semantic conventions for MCP
//! say ([`semconv`]), W3C trace context carried in `params._meta` (`traceparent`,
//! `tracestate`, `baggage`; SEP-414) and in HTTP header fields ([`propagation`]), export over
//! OTLP/HTTP (protobuf) and a Prometheus text rendering of the same metrics.
//!
//! Why here and in this shape: it sits above the server (its server side is a middleware layer,
//! [`TelemetryLayer`], which also watches the typed `tools/call` lane through the server's
//! `ToolLaneObserver` hook, so installing it keeps that lane; a request not sampled costs only
//! its sampling decision and a bound histogram record, `quiet.rs`) and below the client (which starts its
//! spans through [`Telemetry`] when `ClientOptions::telemetry` is set). A [`Telemetry`] owns its
//! tracer and meter providers (not the process-global ones), so two servers in one process may
//! export to different places; [`Telemetry::shutdown`] flushes both. The SDK's export
//! pipeline itself (OTLP exporters, batch and periodic loops, the Prometheus reader and text,
//! the `OTEL_*` variables) is built by the crate below, `ferromcp-otel-export`, from plain
//! settings: its generic code is compiled there, not with the engine.
//!
//! See docs/observability.md for configuration, names and measured overhead.

mod config;
mod notifications;
mod otlp_http;
mod peer_requests;
pub mod propagation;
mod quiet;
#[cfg(feature = "redis")]
pub(crate) mod redis_trips;
pub mod semconv;
mod server_layer;

pub use config::TelemetryConfig;
pub use ferromcp_otel_export::Sampling;
/// The OpenTelemetry API this module is built on (the same version), for handlers that start
/// spans of their own under a request's span (`opentelemetry::Context::current()`).
pub use opentelemetry;
pub use server_layer::TelemetryLayer;

use crate::transport::TransportKind;
use ferromcp_otel_export::{MetricExport, OtlpTarget, PrometheusReader, TraceExport};
use opentelemetry::metrics::{Histogram, Meter, MeterProvider as _};
use opentelemetry::trace::{SpanKind, TraceContextExt, Tracer as _, TracerProvider as _};
use opentelemetry::{Context, InstrumentationScope, KeyValue};
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};
use semconv::{Ending, Operation};
use serde_json::Value;
use std::sync::Arc;
use std::time::Instant;

/// A process's (or one server's) telemetry: tracer, meters and exporters. Cheap to clone.
#[derive(Clone)]
pub struct Telemetry {
    inner: Arc<Inner>,
}

struct Inner {
    tracer: Option<SdkTracer>,
    tracer_provider: Option<SdkTracerProvider>,
    /// `None` only while [`Inner`] is dropped (its providers are handed to a thread then).
    meter_provider: Option<SdkMeterProvider>,
    meter: Meter,
    prometheus: Option<PrometheusReader>,
    /// The root sampler's decision, made before a server span starts (`quiet.rs`).
    sampler: Option<quiet::RootSampler>,
    /// `mcp.server.operation.duration`, bound per operation for the requests not traced.
    server_duration: quiet::BoundOps,
    client_duration: Histogram<f64>,
    /// `mcp.server.session.duration` (HTTP sessions, [`Telemetry::observe_http_server`]).
    server_session_duration: Histogram<f64>,
    /// `mcp.client.session.duration` (clients with `ClientOptions::telemetry`).
    client_session_duration: Histogram<f64>,
    /// The Redis round-trip instruments, once [`Telemetry::observe_redis`] installed them.
    #[cfg(feature = "redis")]
    redis: std::sync::Mutex<Option<Arc<redis_trips::RedisInstruments>>>,
    disabled: bool,
}

impl std::fmt::Debug for Telemetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Telemetry")
            .field("traces", &self.inner.tracer.is_some())
            .field("prometheus", &self.inner.prometheus.is_some())
            .field("disabled", &self.inner.disabled)
            .finish_non_exhaustive()
    }
}

/// Dropping the SDK's providers flushes and stops their exporters, waiting for each export
/// (up to its timeout). That must not happen on the thread that drops the last [`Telemetry`]:
/// in the Node and Python bindings it is the host's own thread (a garbage collector's
/// finalizer), and a collector served by that same thread (an in-process OTLP receiver, a test)
/// then never answers, so the host stalls for the exporters' timeouts each time. The providers
/// are handed to a thread that drops them; [`Telemetry::shutdown`] is the way to wait.
impl Drop for Inner {
    fn drop(&mut self) {
        let exporting = (
            self.tracer.take(),
            self.tracer_provider.take(),
            self.meter_provider.take(),
        );
        let spawned = std::thread::Builder::new()
            .name("ferromcp-otel-shutdown".into())
            .spawn(move || drop(exporting));
        if let Err(e) = spawned {
            tracing::warn!(target: "ferromcp::telemetry", error = %e,
                "no thread for the exporters' shutdown; it runs on the caller's");
        }
    }
}

/// A telemetry set-up that cannot start (an unusable extra root certificate, an exporter the
/// SDK refuses).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct TelemetryError(pub String);

impl TelemetryError {
    /// A telemetry error saying `message`.
    pub fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }
}

impl std::fmt::Display for TelemetryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "telemetry: {}", self.0)
    }
}

impl std::error::Error for TelemetryError {}

impl Telemetry {
    /// Starts telemetry as `config` says: spans exported when traces are on and an OTLP
    /// endpoint is known, metrics exported every `metric_export_interval` when metrics are on
    /// and an endpoint is known, and kept for [`Self::prometheus_text`] when `prometheus` is set.
    /// Needs no tokio runtime (exports run on threads of their own).
    pub fn new(config: TelemetryConfig) -> Result<Telemetry, TelemetryError> {
        let err = |e: &dyn std::fmt::Display| TelemetryError(e.to_string());
        let resource = ferromcp_otel_export::resource(config.service_name.clone(), Vec::new());
        // One HTTP client per exporter, on the engine's own HTTPS connector.
        let otlp = |url: String| -> Result<OtlpTarget, TelemetryError> {
            let http = otlp_http::OtlpHttp::new(&config.otlp_extra_roots_pem, config.otlp_timeout)
                .map_err(|e| err(&e))?;
            Ok(OtlpTarget::new(url, otlp_http::shared(http))
                .with_headers(config.otlp_headers.clone())
                .with_timeout(config.otlp_timeout))
        };
        let scope = InstrumentationScope::builder("ferromcp")
            .with_version(env!("CARGO_PKG_VERSION"))
            .build();

        let mut root_sampler = None;
        let (tracer, tracer_provider) = match config.traces_url().filter(|_| config.traces) {
            Some(url) if !config.disabled => {
                root_sampler = Some(quiet::RootSampler::of(&config.sampling));
                let export = TraceExport::new(otlp(url)?)
                    .with_sampling(config.sampling, config.parent_based)
                    .with_id_generator(Box::new(quiet::PresetIds::default()));
                let provider = ferromcp_otel_export::tracer_provider(resource.clone(), export)
                    .map_err(|e| err(&e))?;
                (
                    Some(provider.tracer_with_scope(scope.clone())),
                    Some(provider),
                )
            }
            _ => (None, None),
        };

        let metric_export = match config
            .metrics_url()
            .filter(|_| config.metrics && !config.disabled)
        {
            Some(url) => Some(MetricExport::new(otlp(url)?, config.metric_export_interval)),
            None => None,
        };
        let want_prometheus = config.prometheus && !config.disabled;
        let meters = ferromcp_otel_export::meter_provider(resource, metric_export, want_prometheus)
            .map_err(|e| err(&e))?;
        let (meter_provider, prometheus) = (meters.provider, meters.prometheus);
        let meter = meter_provider.meter_with_scope(scope);
        let duration = |name: &'static str, what: &'static str| {
            meter
                .f64_histogram(name)
                .with_unit("s")
                .with_description(what)
                .with_boundaries(semconv::DURATION_BUCKETS.to_vec())
                .build()
        };
        let server_duration = duration(
            semconv::MCP_SERVER_OPERATION_DURATION,
            "MCP request duration as observed on the receiver from the time it was received until the result or ack is sent.",
        );
        let client_duration = duration(
            semconv::MCP_CLIENT_OPERATION_DURATION,
            "The duration of the MCP request as observed on the sender from the time it was sent until the response is received.",
        );
        let server_session_duration = duration(
            semconv::MCP_SERVER_SESSION_DURATION,
            "The duration of the MCP session as observed on the MCP server.",
        );
        let client_session_duration = duration(
            semconv::MCP_CLIENT_SESSION_DURATION,
            "The duration of the MCP session as observed on the MCP client.",
        );
        Ok(Telemetry {
            inner: Arc::new(Inner {
                tracer,
                tracer_provider,
                meter_provider: Some(meter_provider),
                meter,
                prometheus,
                sampler: root_sampler,
                server_duration: quiet::BoundOps::new(server_duration),
                client_duration,
                server_session_duration,
                client_session_duration,
                #[cfg(feature = "redis")]
                redis: std::sync::Mutex::new(None),
                disabled: config.disabled,
            }),
        })
    }

    /// The layer a binding names in its server's middleware list,
    /// `{"name": "openTelemetry", ...}` ([`TelemetryConfig::from_layer_json`]): a telemetry of
    /// its own, started now, and its server layer.
    pub fn layer_from_json(v: &Value) -> Result<TelemetryLayer, crate::McpError> {
        let config = TelemetryConfig::from_layer_json(v)?;
        let t = Self::new(config).map_err(|e| crate::McpError::invalid_params(e.to_string()))?;
        Ok(t.server_layer())
    }

    /// [`Self::new`] with [`TelemetryConfig::from_env`].
    pub fn from_env() -> Result<Telemetry, TelemetryError> {
        Self::new(TelemetryConfig::from_env())
    }

    /// The server's middleware layer: add it first (`ServerBuilder::middleware`), so its span
    /// and duration cover the other layers too.
    pub fn server_layer(&self) -> TelemetryLayer {
        TelemetryLayer::new(self.clone())
    }

    /// The tracer, when spans are exported: for spans of your own (a handler's work) under the
    /// request's span, `tracer.start_with_context("work", &Context::current())`.
    pub fn tracer(&self) -> Option<&opentelemetry_sdk::trace::SdkTracer> {
        self.inner.tracer.as_ref()
    }

    /// The meter, for instruments of your own exported beside ferromcp's.
    pub fn meter(&self) -> &Meter {
        &self.inner.meter
    }

    /// The metrics in the Prometheus text exposition format (0.0.4), or `None` when the
    /// config did not ask for them (`prometheus`).
    pub fn prometheus_text(&self) -> Option<String> {
        Some(self.inner.prometheus.as_ref()?.render())
    }

    /// An endpoint serving [`Self::prometheus_text`] at `path` on the HTTP server
    /// (`HttpServerOptions::metrics`); it answers an empty text when the config did not ask for
    /// Prometheus metrics.
    pub fn metrics_endpoint(
        &self,
        path: impl Into<String>,
    ) -> crate::transport::http::MetricsEndpoint {
        let t = self.clone();
        crate::transport::http::MetricsEndpoint::new(path, move || {
            t.prometheus_text().unwrap_or_default()
        })
    }

    /// Measures an HTTP server started by `serve_http`: its live sessions, open connections
    /// and open SSE streams by kind as `ferromcp.server.sessions`,
    /// `ferromcp.server.connections` and `ferromcp.server.sse_streams` (read from the server's
    /// counters at each collection, nothing added to the request path), and the duration of
    /// each session with an id that ends from now on as `mcp.server.session.duration` (its
    /// attributes `mcp.protocol.version`, `network.transport` `tcp`, `network.protocol.name`
    /// `http`). A server measured by one telemetry already keeps that one's session hook.
    pub fn observe_http_server(&self, handle: &crate::transport::http::HttpServerHandle) {
        if self.inner.disabled {
            return;
        }
        let histogram = self.inner.server_session_duration.clone();
        handle.on_session_end(move |lived, version| {
            record_server_session(&histogram, lived, version, TransportKind::Http);
        });
        self.observe_http_counters(Arc::new(handle.stats_reader()), true);
    }

    /// [`Self::observe_http_server`] for an endpoint served by a router in an app of the user's
    /// own (`ferromcp::transport::http::router_with_gauges`; a binding's host-framework
    /// handler): `ferromcp.server.sessions`, `ferromcp.server.sse_streams` and
    /// `mcp.server.session.duration`; not `ferromcp.server.connections` (the app's server owns
    /// the connections). Call it before the app serves requests: sessions made earlier are not
    /// timed.
    pub fn observe_http_router(&self, gauges: &crate::transport::http::HttpEndpointGauges) {
        if self.inner.disabled {
            return;
        }
        let histogram = self.inner.server_session_duration.clone();
        gauges.on_session_end(move |lived, version| {
            record_server_session(&histogram, lived, version, TransportKind::Http);
        });
        self.observe_http_counters(Arc::new(gauges.stats_reader()), false);
    }

    /// The observed instruments of an HTTP endpoint's counters, read from `stats` at each
    /// collection (connections only when the endpoint owns them).
    fn observe_http_counters(
        &self,
        stats: Arc<dyn Fn() -> crate::transport::http::HttpServerStats + Send + Sync>,
        connections: bool,
    ) {
        let s = stats.clone();
        let _sessions = self
            .inner
            .meter
            .i64_observable_up_down_counter(semconv::FERROMCP_SERVER_SESSIONS)
            .with_unit("{session}")
            .with_description("HTTP sessions alive on this server.")
            .with_callback(move |o| o.observe(s().live_sessions as i64, &[]))
            .build();
        if connections {
            let s = stats.clone();
            let _connections = self
                .inner
                .meter
                .i64_observable_up_down_counter(semconv::FERROMCP_SERVER_CONNECTIONS)
                .with_unit("{connection}")
                .with_description("HTTP connections open on this server.")
                .with_callback(move |o| o.observe(s().open_connections as i64, &[]))
                .build();
        }
        let kind = |k: &'static str| [KeyValue::new(semconv::FERROMCP_STREAM_KIND, k)];
        let (get, post, listen, legacy) =
            (kind("get"), kind("post"), kind("listen"), kind("legacy"));
        let _streams = self
            .inner
            .meter
            .i64_observable_up_down_counter(semconv::FERROMCP_SERVER_SSE_STREAMS)
            .with_unit("{stream}")
            .with_description("SSE streams open on this server, by kind.")
            .with_callback(move |o| {
                let open = stats().open_sse_streams;
                o.observe(open.get as i64, &get);
                o.observe(open.post as i64, &post);
                o.observe(open.listen as i64, &listen);
                o.observe(open.legacy as i64, &legacy);
            })
            .build();
    }

    /// Records every round trip to Redis made in this process (session and event stores, the
    /// replicas' bus, Redis rate-limit buckets) as `ferromcp.redis.round_trips` and
    /// `ferromcp.redis.round_trip.duration`, by `ferromcp.redis.operation` and, on failure,
    /// `error.type` (`timeout`, `redis`). Process-wide (the stores are made inside the engine
    /// from URLs): the last telemetry that asked records them, until it shuts down. Without it
    /// a round trip reads one atomic flag.
    #[cfg(feature = "redis")]
    pub fn observe_redis(&self) {
        if self.inner.disabled {
            return;
        }
        let meter = &self.inner.meter;
        let instruments = Arc::new(redis_trips::RedisInstruments {
            round_trips: meter
                .u64_counter(redis_trips::FERROMCP_REDIS_ROUND_TRIPS)
                .with_unit("{round_trip}")
                .with_description("Round trips to Redis (commands and pipelines sent).")
                .build(),
            duration: meter
                .f64_histogram(redis_trips::FERROMCP_REDIS_ROUND_TRIP_DURATION)
                .with_unit("s")
                .with_description("One round trip to Redis, from sending to the answer.")
                .with_boundaries(redis_trips::ROUND_TRIP_BUCKETS.to_vec())
                .build(),
        });
        redis_trips::install(instruments.clone());
        *self.inner.redis.lock().unwrap_or_else(|e| e.into_inner()) = Some(instruments);
    }

    /// Exports what is pending (spans and metrics), waiting for the exporters.
    pub fn force_flush(&self) {
        if let Some(p) = &self.inner.tracer_provider {
            let _ = p.force_flush();
        }
        if let Some(p) = &self.inner.meter_provider {
            let _ = p.force_flush();
        }
    }

    /// Flushes and stops the exporters (later spans and metrics are dropped), waiting for
    /// them (each exporter at most its OTLP timeout). Dropping the last clone of a
    /// [`Telemetry`] without it flushes and stops them on a thread of their own instead, so a
    /// drop never blocks its caller.
    pub fn shutdown(&self) {
        #[cfg(feature = "redis")]
        if let Some(r) = self
            .inner
            .redis
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
        {
            redis_trips::uninstall(&r);
        }
        if let Some(p) = &self.inner.tracer_provider {
            let _ = p.shutdown();
        }
        if let Some(p) = &self.inner.meter_provider {
            let _ = p.shutdown();
        }
    }

    /// Starts the client span of a request about to be sent and writes its context into
    /// `params._meta`. Its parent is the trace context the caller put in `params._meta`
    /// (`traceparent`, with `tracestate` and `baggage`), when it holds a valid `traceparent`:
    /// that is how a caller in another language (a binding's client) names its own span. Else
    /// the caller's current context. Returns the guard that ends it.
    pub(crate) fn client_request(&self, method: &str, params: &mut Option<Value>) -> ClientCall {
        self.start_client_call(
            Operation::of(method, params.as_ref()),
            method,
            params,
            Context::current,
            |_| {},
        )
    }

    /// Starts a `CLIENT` span for the request `method` about to be sent with `params` (the
    /// engine's client's requests, and the requests a server's handler sends to its client),
    /// under the context in `params._meta` when it holds a valid `traceparent`, else under
    /// `otherwise()`; `describe` sets what only the caller knows on a span that records.
    /// Writes the span's context into `params._meta`.
    fn start_client_call(
        &self,
        op: Operation,
        method: &str,
        params: &mut Option<Value>,
        otherwise: impl FnOnce() -> Context,
        describe: impl FnOnce(&opentelemetry::trace::SpanRef<'_>),
    ) -> ClientCall {
        let parent = params
            .as_ref()
            .and_then(|p| p.get("_meta"))
            .and_then(Value::as_object)
            .and_then(propagation::extract_from_meta)
            .unwrap_or_else(otherwise);
        let cx = match &self.inner.tracer {
            Some(tracer) if !self.inner.disabled => {
                // As the server's span: named in full, and described, only when it records.
                let span = tracer
                    .span_builder(op.start_name())
                    .with_kind(SpanKind::Client)
                    .start_with_context(tracer, &parent);
                let cx = parent.with_span(span);
                let span = cx.span();
                if span.is_recording() {
                    if op.renamed() {
                        span.update_name(op.span_name());
                    }
                    let uri = semconv::resource_uri(method, params.as_ref());
                    if let Some(uri) = uri {
                        span.set_attribute(KeyValue::new(
                            semconv::MCP_RESOURCE_URI,
                            uri.to_string(),
                        ));
                    }
                    describe(&span);
                }
                cx
            }
            _ => parent,
        };
        if !self.inner.disabled {
            propagation::inject_into_params(&cx, params);
        }
        ClientCall {
            telemetry: self.clone(),
            cx,
            op,
            start: Instant::now(),
            done: false,
        }
    }
}

impl Telemetry {
    /// Starts timing a client's session, negotiated at `version`: recorded as
    /// `mcp.client.session.duration` when the client closes or is dropped.
    pub(crate) fn client_session(&self, version: crate::ProtocolVersion) -> ClientSession {
        ClientSession {
            telemetry: self.clone(),
            version: version.as_str(),
            start: Instant::now(),
            done: std::sync::atomic::AtomicBool::new(self.inner.disabled),
        }
    }
}

/// Records one server session's `mcp.server.session.duration`: the one place that says what its
/// attributes are, for the sessions of an HTTP server ([`Telemetry::observe_http_server`]) and
/// those served over a message transport (stdio, WebSocket, in memory: the server layer's
/// session observer). `network.transport` is `pipe` over stdio and `tcp` over HTTP and
/// WebSocket; `network.protocol.name` `http` or `websocket`; none in memory.
fn record_server_session(
    histogram: &Histogram<f64>,
    lived: std::time::Duration,
    version: Option<crate::ProtocolVersion>,
    kind: TransportKind,
) {
    let mut attrs = Vec::with_capacity(3);
    if let Some(v) = version {
        attrs.push(KeyValue::new(semconv::MCP_PROTOCOL_VERSION, v.as_str()));
    }
    let network = match kind {
        TransportKind::Stdio => Some(("pipe", None)),
        TransportKind::Http => Some(("tcp", Some("http"))),
        TransportKind::WebSocket => Some(("tcp", Some("websocket"))),
        _ => None,
    };
    if let Some((transport, protocol)) = network {
        attrs.push(KeyValue::new(semconv::NETWORK_TRANSPORT, transport));
        if let Some(protocol) = protocol {
            attrs.push(KeyValue::new(semconv::NETWORK_PROTOCOL_NAME, protocol));
        }
    }
    histogram.record(lived.as_secs_f64(), &attrs);
}

/// A client's session being timed ([`Telemetry::client_session`]).
pub(crate) struct ClientSession {
    telemetry: Telemetry,
    version: &'static str,
    start: Instant,
    done: std::sync::atomic::AtomicBool,
}

impl ClientSession {
    /// Records the session's duration (once).
    pub(crate) fn end(&self) {
        if self.done.swap(true, std::sync::atomic::Ordering::AcqRel) {
            return;
        }
        self.telemetry.inner.client_session_duration.record(
            self.start.elapsed().as_secs_f64(),
            &[KeyValue::new(semconv::MCP_PROTOCOL_VERSION, self.version)],
        );
    }
}

impl Drop for ClientSession {
    fn drop(&mut self) {
        self.end();
    }
}

/// A client request in flight: ends its span and records its duration once answered (or as
/// cancelled when dropped first).
pub(crate) struct ClientCall {
    telemetry: Telemetry,
    cx: Context,
    op: Operation,
    start: Instant,
    done: bool,
}

impl ClientCall {
    /// The context the request runs in (its span current), for what it awaits.
    pub(crate) fn context(&self) -> Context {
        self.cx.clone()
    }

    /// What names the span's `jsonrpc.request.id`: told the id of each request sent for this
    /// call (a per-request era round or a relisting sends more than one), it names the first.
    pub(crate) fn request_namer(&self) -> impl FnMut(&crate::jsonrpc::RequestId) + Send {
        let cx = self.cx.clone();
        let mut named = false;
        move |id: &crate::jsonrpc::RequestId| {
            if named {
                return;
            }
            named = true;
            let span = cx.span();
            if span.is_recording() {
                span.set_attribute(KeyValue::new(
                    semconv::JSONRPC_REQUEST_ID,
                    server_layer::request_id_text(id),
                ));
            }
        }
    }

    /// Records the answer.
    pub(crate) fn finish(mut self, result: &Result<Value, crate::McpError>) {
        self.end(Ending::Answered(result));
    }

    fn end(&mut self, ending: Ending<'_>) {
        self.done = true;
        let mut attrs = Vec::with_capacity(6);
        self.op.common_attributes(&mut attrs);
        let span = self.cx.span();
        let recording = span.is_recording();
        if recording {
            span.set_attributes(attrs.iter().cloned());
        }
        semconv::record_ending(&span, &ending, &mut attrs);
        if recording {
            span.end();
        }
        self.telemetry
            .inner
            .client_duration
            .record(self.start.elapsed().as_secs_f64(), &attrs);
    }
}

impl Drop for ClientCall {
    fn drop(&mut self) {
        if !self.done {
            self.end(Ending::Cancelled);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one decision on a server session's attributes: `pipe` over stdio, `tcp` with
    /// `http` or `websocket`, nothing in memory; the revision on each.
    #[test]
    fn a_server_session_is_recorded_with_its_transports_network_attributes() {
        let t = Telemetry::new(TelemetryConfig {
            prometheus: true,
            ..TelemetryConfig::default()
        })
        .unwrap();
        let version = Some(crate::ProtocolVersion::V2025_11_25);
        for kind in [
            TransportKind::Stdio,
            TransportKind::Http,
            TransportKind::WebSocket,
            TransportKind::Other,
        ] {
            record_server_session(
                &t.inner.server_session_duration,
                std::time::Duration::from_millis(5),
                version,
                kind,
            );
        }
        let text = t.prometheus_text().unwrap();
        let mut series: Vec<String> = text
            .lines()
            .filter_map(|l| l.strip_prefix("mcp_server_session_duration_seconds_count{"))
            .map(|l| {
                assert!(l.ends_with("} 1"), "{l}");
                assert!(l.contains("mcp_protocol_version=\"2025-11-25\""), "{l}");
                let transport = |key: &str| {
                    l.split(',')
                        .find_map(|kv| kv.trim_end_matches("} 1").strip_prefix(key))
                        .unwrap_or("-")
                        .trim_matches(|c| c == '=' || c == '"')
                        .to_string()
                };
                format!(
                    "{}/{}",
                    transport("network_transport"),
                    transport("network_protocol_name")
                )
            })
            .collect();
        series.sort();
        assert_eq!(
            series,
            ["-/-", "pipe/-", "tcp/http", "tcp/websocket"],
            "{text}"
        );
    }
}
