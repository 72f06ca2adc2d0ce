//! The metrics of a [`super::Telemetry`] in the Prometheus text exposition format (0.0.4), read
//! from the same meter provider the OTLP exporter reads, through a manual reader.
//!
//! Names follow OpenTelemetry's Prometheus compatibility rules: characters outside
//! `[a-zA-Z0-9_:]` become `_`, the unit is appended (`s` as `_seconds`), monotonic sums end
//! in `_total`; histograms give `_bucket{le=...}`, `_sum` and `_count`; attributes become
//! labels the same way.

use opentelemetry::{KeyValue, Value as AttrValue};
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::metrics::data::{
    AggregatedMetrics, Histogram, Metric, MetricData, ResourceMetrics, Sum,
};
use opentelemetry_sdk::metrics::reader::MetricReader;
use opentelemetry_sdk::metrics::{InstrumentKind, Pipeline, Temporality};
use std::fmt::Write as _;
use std::sync::{Arc, Weak};
use std::time::Duration;

/// A reader shared between the meter provider (which owns its readers) and the telemetry
/// that renders it: a manual reader of its own, or the OTLP exporter's periodic reader when its
/// temporality is cumulative (one reader, so every measurement is aggregated once, not once
/// per reader).
#[derive(Debug, Clone)]
pub(super) struct SharedReader(pub Arc<dyn MetricReader>);

impl MetricReader for SharedReader {
    fn register_pipeline(&self, pipeline: Weak<Pipeline>) {
        self.0.register_pipeline(pipeline)
    }

    fn collect(&self, rm: &mut ResourceMetrics) -> OTelSdkResult {
        self.0.collect(rm)
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.0.force_flush()
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.0.shutdown_with_timeout(timeout)
    }

    fn temporality(&self, kind: InstrumentKind) -> Temporality {
        self.0.temporality(kind)
    }
}

/// Collects `reader` now and renders every metric (a cumulative reader: the collection
/// resets nothing).
pub(super) fn render(reader: &dyn MetricReader) -> String {
    let mut rm = ResourceMetrics::default();
    let mut out = String::new();
    if let Err(e) = reader.collect(&mut rm) {
        let _ = writeln!(
            out,
            "# collection failed: {}",
            e.to_string().replace('\n', " ")
        );
        return out;
    }
    for scope in rm.scope_metrics() {
        for metric in scope.metrics() {
            render_metric(metric, &mut out);
        }
    }
    out
}

fn render_metric(metric: &Metric, out: &mut String) {
    let base = metric_name(metric.name(), metric.unit());
    match metric.data() {
        AggregatedMetrics::F64(d) => render_data(&base, metric.description(), d, out),
        AggregatedMetrics::I64(d) => render_data(&base, metric.description(), d, out),
        AggregatedMetrics::U64(d) => render_data(&base, metric.description(), d, out),
    }
}

fn render_data<T: Copy + Into<Num>>(
    base: &str,
    help: &str,
    data: &MetricData<T>,
    out: &mut String,
) {
    match data {
        MetricData::Histogram(h) => histogram(base, help, h, out),
        MetricData::Sum(s) => sum(base, help, s, out),
        MetricData::Gauge(g) => {
            header(out, base, help, "gauge");
            for p in g.data_points() {
                sample(out, base, &labels(p.attributes(), None), p.value().into().0);
            }
        }
        // Not made by ferromcp's instruments (no exponential-histogram view is installed).
        MetricData::ExponentialHistogram(_) => {}
    }
}

/// A number a sample line writes.
pub(super) struct Num(f64);

impl From<f64> for Num {
    fn from(v: f64) -> Self {
        Self(v)
    }
}
impl From<i64> for Num {
    fn from(v: i64) -> Self {
        Self(v as f64)
    }
}
impl From<u64> for Num {
    fn from(v: u64) -> Self {
        Self(v as f64)
    }
}

fn sum<T: Copy + Into<Num>>(base: &str, help: &str, s: &Sum<T>, out: &mut String) {
    let (name, kind) = if s.is_monotonic() {
        (format!("{base}_total"), "counter")
    } else {
        (base.to_string(), "gauge")
    };
    header(out, &name, help, kind);
    for p in s.data_points() {
        sample(
            out,
            &name,
            &labels(p.attributes(), None),
            p.value().into().0,
        );
    }
}

fn histogram<T: Copy + Into<Num>>(base: &str, help: &str, h: &Histogram<T>, out: &mut String) {
    header(out, base, help, "histogram");
    for p in h.data_points() {
        let mut cumulative = 0u64;
        let bounds: Vec<f64> = p.bounds().collect();
        for (i, count) in p.bucket_counts().enumerate() {
            cumulative += count;
            let le = match bounds.get(i) {
                Some(b) => number(*b),
                None => "+Inf".to_string(),
            };
            let l = labels(p.attributes(), Some(&le));
            sample(out, &format!("{base}_bucket"), &l, cumulative as f64);
        }
        let l = labels(p.attributes(), None);
        sample(out, &format!("{base}_sum"), &l, p.sum().into().0);
        sample(out, &format!("{base}_count"), &l, p.count() as f64);
    }
}

fn header(out: &mut String, name: &str, help: &str, kind: &str) {
    if !help.is_empty() {
        let help = help.replace('\\', "\\\\").replace('\n', "\\n");
        let _ = writeln!(out, "# HELP {name} {help}");
    }
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

fn sample(out: &mut String, name: &str, labels: &str, value: f64) {
    let _ = writeln!(out, "{name}{labels} {}", number(value));
}

fn number(v: f64) -> String {
    if v.is_infinite() {
        if v > 0.0 { "+Inf" } else { "-Inf" }.to_string()
    } else if v.is_nan() {
        "NaN".to_string()
    } else {
        format!("{v}")
    }
}

/// `{k="v",...}` (sorted by name, values escaped), or empty.
fn labels<'a>(attrs: impl Iterator<Item = &'a KeyValue>, le: Option<&str>) -> String {
    let mut pairs: Vec<(String, String)> = attrs
        .map(|kv| (sanitize(kv.key.as_str()), attr_text(&kv.value)))
        .collect();
    pairs.sort();
    if let Some(le) = le {
        pairs.push(("le".into(), le.to_string()));
    }
    if pairs.is_empty() {
        return String::new();
    }
    let body: Vec<String> = pairs
        .into_iter()
        .map(|(k, v)| {
            let v = v
                .replace('\\', "\\\\")
                .replace('"', "\\\"")
                .replace('\n', "\\n");
            format!("{k}=\"{v}\"")
        })
        .collect();
    format!("{{{}}}", body.join(","))
}

fn attr_text(v: &AttrValue) -> String {
    v.as_str().into_owned()
}

/// `mcp.server.operation.duration` with unit `s` -> `mcp_server_operation_duration_seconds`.
fn metric_name(name: &str, unit: &str) -> String {
    let mut n = sanitize(name);
    let suffix = match unit {
        "s" => "seconds",
        "ms" => "milliseconds",
        "By" => "bytes",
        "1" | "" => "",
        u if u.starts_with('{') => "",
        u => u,
    };
    if !suffix.is_empty() && !n.ends_with(suffix) {
        n.push('_');
        n.push_str(&sanitize(suffix));
    }
    n
}

fn sanitize(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == ':' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry::metrics::MeterProvider as _;
    use opentelemetry_sdk::metrics::SdkMeterProvider;

    #[test]
    fn histograms_counters_and_gauges_render_as_prometheus_text() {
        let reader: Arc<dyn MetricReader> =
            Arc::new(opentelemetry_sdk::metrics::ManualReader::builder().build());
        let provider = SdkMeterProvider::builder()
            .with_reader(SharedReader(reader.clone()))
            .build();
        let meter = provider.meter("t");
        let h = meter
            .f64_histogram("mcp.server.operation.duration")
            .with_unit("s")
            .with_description("Duration.")
            .with_boundaries(vec![0.01, 0.1])
            .build();
        h.record(0.005, &[KeyValue::new("mcp.method.name", "tools/call")]);
        h.record(0.05, &[KeyValue::new("mcp.method.name", "tools/call")]);
        h.record(5.0, &[KeyValue::new("mcp.method.name", "tools/call")]);
        let c = meter.u64_counter("ferromcp.redis.round_trips").build();
        c.add(3, &[KeyValue::new("op", "a\"b")]);
        let g = meter
            .i64_up_down_counter("ferromcp.server.sessions")
            .with_unit("{session}")
            .build();
        g.add(2, &[]);
        let text = render(reader.as_ref());
        for line in [
            "# TYPE mcp_server_operation_duration_seconds histogram",
            "mcp_server_operation_duration_seconds_bucket{mcp_method_name=\"tools/call\",le=\"0.01\"} 1",
            "mcp_server_operation_duration_seconds_bucket{mcp_method_name=\"tools/call\",le=\"0.1\"} 2",
            "mcp_server_operation_duration_seconds_bucket{mcp_method_name=\"tools/call\",le=\"+Inf\"} 3",
            "mcp_server_operation_duration_seconds_count{mcp_method_name=\"tools/call\"} 3",
            "# TYPE ferromcp_redis_round_trips_total counter",
            "ferromcp_redis_round_trips_total{op=\"a\\\"b\"} 3",
            "# TYPE ferromcp_server_sessions gauge",
            "ferromcp_server_sessions 2",
        ] {
            assert!(text.lines().any(|l| l == line), "missing {line:?} in\n{text}");
        }
        let sum_line = text
            .lines()
            .find(|l| l.starts_with("mcp_server_operation_duration_seconds_sum"))
            .unwrap();
        let sum: f64 = sum_line.rsplit(' ').next().unwrap().parse().unwrap();
        assert!((sum - 5.055).abs() < 1e-9, "{sum_line}");
    }
}
