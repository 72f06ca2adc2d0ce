//! The OpenTelemetry SDK pipeline ferromcp exports through: a tracer provider with the batch
//! span processor and the OTLP/HTTP (protobuf) span exporter, a meter provider with the
//! periodic reader and the OTLP metric exporter, the reader a Prometheus text rendering reads
//! ([`PrometheusReader`]), and the standard `OTEL_*` environment variables ([`OtelEnv`]).
//!
//! Why a crate of its own: the SDK's export loops (`PeriodicReader`'s collect-and-export,
//! `BatchSpanProcessor`'s span export) are generic over the exporter, and generic code is
//! compiled in the crate that instantiates it, at that crate's optimization level. Built here,
//! behind the non-generic functions [`tracer_provider`] and [`meter_provider`] that take plain
//! settings, they are compiled with this crate (kept small in the packaged builds: the root
//! Cargo.toml's `[profile.dist.package]`) and not with the engine a served call runs.
//!
//! It knows nothing of MCP: spans, metric names and propagation are `ferromcp::telemetry`'s.
//! Nor does it do TLS or I/O of its own: the exporters post through the caller's
//! [`opentelemetry_http::HttpClient`] ([`OtlpTarget::client`]).
//!
//! Use it through `ferromcp` (feature `otel`), which re-exports [`Sampling`] as
//! `ferromcp::telemetry::Sampling`.

mod env;
mod pipeline;
mod prometheus;
mod sampling;

pub use env::{signal_url, OtelEnv};
pub use pipeline::{
    meter_provider, resource, tracer_provider, BuildError, Meters, MetricExport, OtlpTarget,
    TraceExport,
};
pub use prometheus::PrometheusReader;
pub use sampling::Sampling;
