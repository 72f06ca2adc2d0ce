//! What a [`super::Telemetry`] exports and where: options in code, defaulted from the standard
//! `OTEL_*` environment variables ([`TelemetryConfig::from_env`]).

use std::time::Duration;

/// Which traces are recorded (the root sampler; a sampled remote parent is followed when
/// [`TelemetryConfig::parent_based`] is set, as the SDK's `parentbased_*` samplers do).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Sampling {
    /// Every trace.
    AlwaysOn,
    /// None (metrics are still recorded and context still propagated).
    AlwaysOff,
    /// This fraction of traces (0.0 to 1.0), chosen by trace id.
    Ratio(f64),
}

/// Options of a [`super::Telemetry`].
///
/// ```
/// use ferromcp::telemetry::{Sampling, TelemetryConfig};
/// let mut config = TelemetryConfig::from_env();
/// config.service_name = Some("weather-mcp".into());
/// config.otlp_endpoint = Some("http://127.0.0.1:4318".into());
/// config.sampling = Sampling::Ratio(0.01);
/// config.prometheus = true;
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct TelemetryConfig {
    /// `service.name` of the resource (`OTEL_SERVICE_NAME`; the SDK's default otherwise, and
    /// `OTEL_RESOURCE_ATTRIBUTES` is read by the SDK).
    pub service_name: Option<String>,
    /// The OTLP/HTTP base URL; traces go to `<base>/v1/traces`, metrics to
    /// `<base>/v1/metrics` (`OTEL_EXPORTER_OTLP_ENDPOINT`). With no endpoint at all nothing is
    /// exported over OTLP.
    pub otlp_endpoint: Option<String>,
    /// The full URL for traces (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), before the base.
    pub otlp_traces_endpoint: Option<String>,
    /// The full URL for metrics (`OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`), before the base.
    pub otlp_metrics_endpoint: Option<String>,
    /// Header fields sent with every export (`OTEL_EXPORTER_OTLP_HEADERS`, `k=v,k2=v2`).
    pub otlp_headers: Vec<(String, String)>,
    /// How long one export may take (`OTEL_EXPORTER_OTLP_TIMEOUT`, ms; default 10 s).
    pub otlp_timeout: Duration,
    /// Extra CA certificates (PEM) trusted for an `https://` endpoint, beside Mozilla's roots.
    pub otlp_extra_roots_pem: Vec<String>,
    /// Export spans (`OTEL_TRACES_EXPORTER`: `otlp`, the default, or `none`).
    pub traces: bool,
    /// Export metrics over OTLP (`OTEL_METRICS_EXPORTER`: `otlp`, the default, `prometheus`
    /// or `none`; a list such as `otlp,prometheus` is read too).
    pub metrics: bool,
    /// Keep the metrics for a Prometheus text endpoint ([`super::Telemetry::prometheus_text`],
    /// `HttpServerOptions::metrics`); `OTEL_METRICS_EXPORTER` naming `prometheus` sets it.
    pub prometheus: bool,
    /// The root sampler (`OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG`: `always_on`,
    /// `always_off`, `traceidratio`, and their `parentbased_` forms; default
    /// `parentbased_always_on`).
    pub sampling: Sampling,
    /// Follow a remote parent's sampling decision (the `parentbased_` samplers).
    pub parent_based: bool,
    /// Time between metric exports (`OTEL_METRIC_EXPORT_INTERVAL`, ms; default 60 s).
    pub metric_export_interval: Duration,
    /// Everything off (`OTEL_SDK_DISABLED=true`): no spans, no metrics, no propagation.
    pub disabled: bool,
}

impl Default for TelemetryConfig {
    /// The SDK's defaults, with no OTLP endpoint (nothing exported until one is set).
    fn default() -> Self {
        Self {
            service_name: None,
            otlp_endpoint: None,
            otlp_traces_endpoint: None,
            otlp_metrics_endpoint: None,
            otlp_headers: Vec::new(),
            otlp_timeout: Duration::from_secs(10),
            otlp_extra_roots_pem: Vec::new(),
            traces: true,
            metrics: true,
            prometheus: false,
            sampling: Sampling::AlwaysOn,
            parent_based: true,
            metric_export_interval: Duration::from_secs(60),
            disabled: false,
        }
    }
}

impl TelemetryConfig {
    /// The defaults, then the standard `OTEL_*` variables of this process's environment.
    pub fn from_env() -> Self {
        Self::from_vars(|k| std::env::var(k).ok())
    }

    /// [`Self::from_env`] with the variables read through `var` (tests, embedders).
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Self {
        let mut c = Self::default();
        let get = |k: &str| {
            var(k)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        c.service_name = get("OTEL_SERVICE_NAME");
        c.otlp_endpoint = get("OTEL_EXPORTER_OTLP_ENDPOINT");
        c.otlp_traces_endpoint = get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
        c.otlp_metrics_endpoint = get("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT");
        if let Some(h) = get("OTEL_EXPORTER_OTLP_HEADERS") {
            c.otlp_headers = parse_headers(&h);
        }
        if let Some(ms) = get("OTEL_EXPORTER_OTLP_TIMEOUT").and_then(|v| v.parse().ok()) {
            c.otlp_timeout = Duration::from_millis(ms);
        }
        if let Some(e) = get("OTEL_TRACES_EXPORTER") {
            c.traces = e.split(',').any(|x| x.trim() == "otlp");
        }
        if let Some(e) = get("OTEL_METRICS_EXPORTER") {
            c.metrics = e.split(',').any(|x| x.trim() == "otlp");
            c.prometheus = e.split(',').any(|x| x.trim() == "prometheus");
        }
        if let Some(ms) = get("OTEL_METRIC_EXPORT_INTERVAL").and_then(|v| v.parse().ok()) {
            c.metric_export_interval = Duration::from_millis(ms);
        }
        if let Some(s) = get("OTEL_TRACES_SAMPLER") {
            let arg = get("OTEL_TRACES_SAMPLER_ARG")
                .and_then(|a| a.parse::<f64>().ok())
                .filter(|r| (0.0..=1.0).contains(r))
                .unwrap_or(1.0);
            let (parent, root) = match s.strip_prefix("parentbased_") {
                Some(root) => (true, root),
                None => (false, s.as_str()),
            };
            let sampling = match root {
                "always_on" => Some(Sampling::AlwaysOn),
                "always_off" => Some(Sampling::AlwaysOff),
                "traceidratio" => Some(Sampling::Ratio(arg)),
                _ => None,
            };
            if let Some(sampling) = sampling {
                c.sampling = sampling;
                c.parent_based = parent;
            } else {
                tracing::warn!(target: "ferromcp::telemetry", sampler = %s,
                    "OTEL_TRACES_SAMPLER names a sampler ferromcp does not know; using parentbased_always_on");
            }
        }
        c.disabled = get("OTEL_SDK_DISABLED").is_some_and(|v| v.eq_ignore_ascii_case("true"));
        c
    }

    /// The layer the bindings configure by name (`{"name": "openTelemetry", ...}` in a
    /// server's middleware list): [`Self::from_env`], then the options given, camelCase:
    /// `serviceName`, `otlpEndpoint`, `otlpHeaders` (an object of strings), `samplingRatio`
    /// (0 to 1; parent-based), `metricExportIntervalMs`. Unknown options are errors.
    pub fn from_layer_json(v: &serde_json::Value) -> Result<Self, crate::McpError> {
        #[derive(serde::Deserialize)]
        #[serde(rename_all = "camelCase", deny_unknown_fields)]
        struct Layer {
            #[allow(dead_code)]
            name: String,
            service_name: Option<String>,
            otlp_endpoint: Option<String>,
            #[serde(default)]
            otlp_headers: std::collections::BTreeMap<String, String>,
            sampling_ratio: Option<f64>,
            metric_export_interval_ms: Option<u64>,
        }
        let l: Layer = serde_json::from_value(v.clone())
            .map_err(|e| crate::McpError::invalid_params(format!("openTelemetry: {e}")))?;
        let mut c = Self::from_env();
        if l.service_name.is_some() {
            c.service_name = l.service_name;
        }
        if l.otlp_endpoint.is_some() {
            c.otlp_endpoint = l.otlp_endpoint;
        }
        c.otlp_headers.extend(l.otlp_headers);
        if let Some(r) = l.sampling_ratio {
            if !(0.0..=1.0).contains(&r) {
                return Err(crate::McpError::invalid_params(format!(
                    "openTelemetry: samplingRatio must be between 0 and 1, got {r}"
                )));
            }
            c.sampling = Sampling::Ratio(r);
            c.parent_based = true;
        }
        if let Some(ms) = l.metric_export_interval_ms {
            c.metric_export_interval = Duration::from_millis(ms.max(1));
        }
        Ok(c)
    }

    /// Where spans are posted, if anywhere.
    pub(super) fn traces_url(&self) -> Option<String> {
        signal_url(&self.otlp_traces_endpoint, &self.otlp_endpoint, "v1/traces")
    }

    /// Where metrics are posted, if anywhere.
    pub(super) fn metrics_url(&self) -> Option<String> {
        signal_url(
            &self.otlp_metrics_endpoint,
            &self.otlp_endpoint,
            "v1/metrics",
        )
    }
}

fn signal_url(own: &Option<String>, base: &Option<String>, path: &str) -> Option<String> {
    if let Some(u) = own {
        return Some(u.clone());
    }
    let base = base.as_ref()?;
    Some(format!("{}/{path}", base.trim_end_matches('/')))
}

/// `k=v,k2=v2` with percent-encoded values, as `OTEL_EXPORTER_OTLP_HEADERS` is written;
/// entries without `=` are skipped.
fn parse_headers(s: &str) -> Vec<(String, String)> {
    s.split(',')
        .filter_map(|kv| {
            let (k, v) = kv.split_once('=')?;
            let k = k.trim();
            (!k.is_empty()).then(|| (k.to_string(), percent_decode(v.trim())))
        })
        .collect()
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let hex = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push(h * 16 + l);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn vars(pairs: &[(&str, &str)]) -> TelemetryConfig {
        let m: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        TelemetryConfig::from_vars(|k| m.get(k).cloned())
    }

    #[test]
    fn the_standard_variables_set_the_options() {
        let c = vars(&[
            ("OTEL_SERVICE_NAME", "svc"),
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/"),
            ("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "http://m:9/x"),
            ("OTEL_EXPORTER_OTLP_HEADERS", "api-key=a%20b,x=1,broken"),
            ("OTEL_EXPORTER_OTLP_TIMEOUT", "2500"),
            ("OTEL_TRACES_SAMPLER", "parentbased_traceidratio"),
            ("OTEL_TRACES_SAMPLER_ARG", "0.01"),
            ("OTEL_METRICS_EXPORTER", "otlp,prometheus"),
            ("OTEL_METRIC_EXPORT_INTERVAL", "500"),
        ]);
        assert_eq!(c.service_name.as_deref(), Some("svc"));
        assert_eq!(
            c.traces_url().as_deref(),
            Some("http://collector:4318/v1/traces")
        );
        assert_eq!(c.metrics_url().as_deref(), Some("http://m:9/x"));
        assert_eq!(
            c.otlp_headers,
            vec![("api-key".into(), "a b".into()), ("x".into(), "1".into())]
        );
        assert_eq!(c.otlp_timeout, Duration::from_millis(2500));
        assert_eq!(c.sampling, Sampling::Ratio(0.01));
        assert!(c.parent_based && c.metrics && c.prometheus && c.traces);
        assert_eq!(c.metric_export_interval, Duration::from_millis(500));
        assert!(!c.disabled);
    }

    #[test]
    fn the_bindings_layer_options_are_read_and_checked() {
        let c = TelemetryConfig::from_layer_json(&serde_json::json!({
            "name": "openTelemetry", "serviceName": "py", "otlpEndpoint": "http://h:1",
            "otlpHeaders": {"k": "v"}, "samplingRatio": 0.5, "metricExportIntervalMs": 250
        }))
        .unwrap();
        assert_eq!(c.service_name.as_deref(), Some("py"));
        assert_eq!(c.traces_url().as_deref(), Some("http://h:1/v1/traces"));
        assert!(c.otlp_headers.contains(&("k".into(), "v".into())));
        assert_eq!(c.sampling, Sampling::Ratio(0.5));
        assert_eq!(c.metric_export_interval, Duration::from_millis(250));
        for bad in [
            serde_json::json!({"name": "openTelemetry", "samplingRatio": 2.0}),
            serde_json::json!({"name": "openTelemetry", "endpoint": "x"}),
        ] {
            assert!(TelemetryConfig::from_layer_json(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn none_exporters_unknown_samplers_and_disabled() {
        let c = vars(&[
            ("OTEL_TRACES_EXPORTER", "none"),
            ("OTEL_METRICS_EXPORTER", "prometheus"),
            ("OTEL_TRACES_SAMPLER", "jaeger_remote"),
            ("OTEL_SDK_DISABLED", "TRUE"),
        ]);
        assert!(!c.traces && !c.metrics && c.prometheus && c.disabled);
        assert_eq!(c.sampling, Sampling::AlwaysOn);
        assert_eq!(c.traces_url(), None);
        let c = vars(&[
            ("OTEL_TRACES_SAMPLER", "traceidratio"),
            ("OTEL_TRACES_SAMPLER_ARG", "7"),
        ]);
        assert_eq!(c.sampling, Sampling::Ratio(1.0));
        assert!(!c.parent_based);
    }
}
