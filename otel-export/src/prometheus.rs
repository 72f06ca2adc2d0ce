//! The metrics of a meter provider in the Prometheus text exposition format (0.0.4), read
//! through a reader the provider shares with the one that renders it ([`PrometheusReader`]):
//! the OTLP exporter's periodic reader when its temporality is cumulative, else a manual reader
//! of its own.
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
use opentelemetry_sdk::metrics::{InstrumentKind, ManualReader, Pipeline, Temporality};
use std::fmt::Write as _;
use std::sync::{Arc, Weak};
use std::time::Duration;

/// The reader the Prometheus text is rendered from ([`Self::render`]), registered with a meter
/// provider by [`crate::meter_provider`]. Cheap to clone.
#[derive(Debug, Clone)]
pub struct PrometheusReader(Arc<dyn MetricReader>);

impl PrometheusReader {
    /// Shares `reader` (the meter provider owns its readers; this keeps a second handle).
    pub(crate) fn sharing(reader: Arc<dyn MetricReader>) -> Self {
        Self(reader)
    }

    /// A manual reader of its own (cumulative), for a provider that exports nothing else
    /// cumulatively.
    pub(crate) fn manual() -> Self {
        Self(Arc::new(ManualReader::builder().build()))
    }

    /// The handle the meter provider is given.
    pub(crate) fn registered(&self) -> SharedReader {
        SharedReader(self.0.clone())
    }

    /// Collects the metrics now and renders every one (a cumulative reader: the collection
    /// resets nothing). A collection that fails renders as one `# collection failed: ...`
    /// comment line.
    pub fn render(&self) -> String {
        render(self.0.as_ref())
    }
}

/// A reader shared between the meter provider (which owns its readers) and the
/// [`PrometheusReader`] that renders it (one reader, so every measurement is aggregated once,
/// not once per reader).
#[derive(Debug, Clone)]
pub(crate) struct SharedReader(Arc<dyn MetricReader>);

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

/// Collects `reader` now and renders every metric.
fn render(reader: &dyn MetricReader) -> String {
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
        // Not rendered: no exponential-histogram view is installed by this crate's pipeline.
        MetricData::ExponentialHistogram(_) => {}
    }
}

/// A number a sample line writes.
struct Num(f64);

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

/// `http.server.request.duration` with unit `s` -> `http_server_request_duration_seconds`.
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
        let reader = PrometheusReader::manual();
        let provider = SdkMeterProvider::builder()
            .with_reader(reader.registered())
            .build();
        let meter = provider.meter("t");
        let h = meter
            .f64_histogram("http.server.request.duration")
            .with_unit("s")
            .with_description("Duration.\nIn seconds.")
            .with_boundaries(vec![0.01, 0.1])
            .build();
        let route = [KeyValue::new("http.route", "/v1/items")];
        h.record(0.005, &route);
        h.record(0.05, &route);
        h.record(5.0, &route);
        let c = meter.u64_counter("cache.lookups").build();
        c.add(3, &[KeyValue::new("op", "a\"b")]);
        let g = meter
            .i64_up_down_counter("process.open_files")
            .with_unit("{file}")
            .build();
        g.add(2, &[KeyValue::new("9p", "x")]);
        let text = reader.render();
        for line in [
            "# HELP http_server_request_duration_seconds Duration.\\nIn seconds.",
            "# TYPE http_server_request_duration_seconds histogram",
            "http_server_request_duration_seconds_bucket{http_route=\"/v1/items\",le=\"0.01\"} 1",
            "http_server_request_duration_seconds_bucket{http_route=\"/v1/items\",le=\"0.1\"} 2",
            "http_server_request_duration_seconds_bucket{http_route=\"/v1/items\",le=\"+Inf\"} 3",
            "http_server_request_duration_seconds_count{http_route=\"/v1/items\"} 3",
            "# TYPE cache_lookups_total counter",
            "cache_lookups_total{op=\"a\\\"b\"} 3",
            "# TYPE process_open_files gauge",
            "process_open_files{_9p=\"x\"} 2",
        ] {
            assert!(
                text.lines().any(|l| l == line),
                "missing {line:?} in\n{text}"
            );
        }
        let sum_line = text
            .lines()
            .find(|l| l.starts_with("http_server_request_duration_seconds_sum"))
            .unwrap();
        let sum: f64 = sum_line.rsplit(' ').next().unwrap().parse().unwrap();
        assert!((sum - 5.055).abs() < 1e-9, "{sum_line}");
    }

    #[test]
    fn a_reader_that_was_shut_down_renders_the_failure() {
        let reader = PrometheusReader::manual();
        let provider = SdkMeterProvider::builder()
            .with_reader(reader.registered())
            .build();
        provider.shutdown().unwrap();
        let text = reader.render();
        assert!(text.starts_with("# collection failed: "), "{text}");
        assert_eq!(text.lines().count(), 1, "{text}");
    }
}
