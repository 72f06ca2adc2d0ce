//! What a [`super::Telemetry`] exports and where: options in code, defaulted from the standard
//! `OTEL_*` environment variables ([`TelemetryConfig::from_env`]; read by
//! `ferromcp_otel_export::OtelEnv`, this module maps them and adds the bindings' layer options).

use super::Sampling;
use ferromcp_otel_export::{signal_url, OtelEnv};
use std::time::Duration;

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
        Self::of_env(OtelEnv::default())
    }
}

impl TelemetryConfig {
    /// The defaults, then the standard `OTEL_*` variables of this process's environment.
    pub fn from_env() -> Self {
        Self::from_vars(|k| std::env::var(k).ok())
    }

    /// [`Self::from_env`] with the variables read through `var` (tests, embedders).
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Self {
        let env = OtelEnv::from_vars(var);
        if let Some(s) = &env.unknown_sampler {
            tracing::warn!(target: "ferromcp::telemetry", sampler = %s,
                "OTEL_TRACES_SAMPLER names a sampler ferromcp does not know; using parentbased_always_on");
        }
        Self::of_env(env)
    }

    /// The options the variables in `env` give (no extra roots: no variable names them).
    fn of_env(env: OtelEnv) -> Self {
        Self {
            service_name: env.service_name,
            otlp_endpoint: env.endpoint,
            otlp_traces_endpoint: env.traces_endpoint,
            otlp_metrics_endpoint: env.metrics_endpoint,
            otlp_headers: env.headers,
            otlp_timeout: env.timeout,
            otlp_extra_roots_pem: Vec::new(),
            traces: env.traces,
            metrics: env.metrics,
            prometheus: env.prometheus,
            sampling: env.sampling,
            parent_based: env.parent_based,
            metric_export_interval: env.metric_export_interval,
            disabled: env.disabled,
        }
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
        signal_url(
            self.otlp_traces_endpoint.as_deref(),
            self.otlp_endpoint.as_deref(),
            "v1/traces",
        )
    }

    /// Where metrics are posted, if anywhere.
    pub(super) fn metrics_url(&self) -> Option<String> {
        signal_url(
            self.otlp_metrics_endpoint.as_deref(),
            self.otlp_endpoint.as_deref(),
            "v1/metrics",
        )
    }
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
