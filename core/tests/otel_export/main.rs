//! Proves OpenTelemetry end to end (feature `otel`): a real OTLP/HTTP receiver started here
//! (hyper, decoding the protobuf bodies with the OpenTelemetry project's `opentelemetry-proto`
//! types) receives the spans and metrics of a ferromcp client and a ferromcp HTTP server, each
//! with its own `Telemetry`. The client's span is the parent of the server's (trace context in
//! `params._meta`), a Rust handler's own span is the server span's child, the span names and
//! attributes are those of the MCP semantic conventions, a failing call is recorded as an error,
//! a `traceparent` sent in an HTTP header alone is the parent, a malformed one (in `_meta` or
//! the header) is ignored and the request served, and `/metrics` serves Prometheus text.
//!
//! One test binary (each links the whole engine); its modules by subject, the receiver and
//! shared servers in `common`. Run one subject with
//! `cargo test -p ferromcp --features otel --test otel_export -- <module>::`.

#![cfg(feature = "otel")]

#[path = "../common_http/mod.rs"]
mod common_http;

mod client_spans;
mod common;
mod metrics;
mod notifications;
mod propagation;
mod sampling;
mod server_requests;
mod server_spans;
