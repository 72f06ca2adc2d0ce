//! The standard `OTEL_*` environment variables an exporting process reads (the OpenTelemetry
//! specification's "Environment Variable Specification" and the OTLP exporter's), parsed once
//! into plain values with the specification's defaults. The caller decides what to do with
//! them; nothing here builds an exporter.

use crate::Sampling;
use std::time::Duration;

/// What the `OTEL_*` variables say, over the specification's defaults ([`Default`]).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct OtelEnv {
    /// `OTEL_SERVICE_NAME`.
    pub service_name: Option<String>,
    /// `OTEL_EXPORTER_OTLP_ENDPOINT`: the OTLP/HTTP base URL (`<base>/v1/traces`,
    /// `<base>/v1/metrics`; [`signal_url`]).
    pub endpoint: Option<String>,
    /// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`: the full URL for spans, before the base.
    pub traces_endpoint: Option<String>,
    /// `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`: the full URL for metrics, before the base.
    pub metrics_endpoint: Option<String>,
    /// `OTEL_EXPORTER_OTLP_HEADERS` (`k=v,k2=v2`, values percent-decoded; entries without `=`
    /// skipped).
    pub headers: Vec<(String, String)>,
    /// `OTEL_EXPORTER_OTLP_TIMEOUT` (ms; default 10 s).
    pub timeout: Duration,
    /// `OTEL_TRACES_EXPORTER` names `otlp` (the default) among its comma-separated exporters.
    pub traces: bool,
    /// `OTEL_METRICS_EXPORTER` names `otlp` (the default).
    pub metrics: bool,
    /// `OTEL_METRICS_EXPORTER` names `prometheus` (not by default).
    pub prometheus: bool,
    /// `OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG`: `always_on`, `always_off`,
    /// `traceidratio` (its argument 0 to 1, else 1), each also as `parentbased_*`; default
    /// `parentbased_always_on`.
    pub sampling: Sampling,
    /// Whether `OTEL_TRACES_SAMPLER` is a `parentbased_` one (a sampled remote parent is
    /// followed).
    pub parent_based: bool,
    /// The `OTEL_TRACES_SAMPLER` value when it names a sampler not read here (`jaeger_remote`,
    /// ...): the default sampling is kept, and the caller may say so.
    pub unknown_sampler: Option<String>,
    /// `OTEL_METRIC_EXPORT_INTERVAL` (ms; default 60 s).
    pub metric_export_interval: Duration,
    /// `OTEL_SDK_DISABLED=true`.
    pub disabled: bool,
}

impl Default for OtelEnv {
    /// The specification's defaults: no endpoint, OTLP for traces and metrics,
    /// `parentbased_always_on`, a 10 s export timeout, a 60 s metric interval.
    fn default() -> Self {
        Self {
            service_name: None,
            endpoint: None,
            traces_endpoint: None,
            metrics_endpoint: None,
            headers: Vec::new(),
            timeout: Duration::from_secs(10),
            traces: true,
            metrics: true,
            prometheus: false,
            sampling: Sampling::AlwaysOn,
            parent_based: true,
            unknown_sampler: None,
            metric_export_interval: Duration::from_secs(60),
            disabled: false,
        }
    }
}

impl OtelEnv {
    /// The variables of this process's environment.
    pub fn from_env() -> Self {
        Self::from_vars(|k| std::env::var(k).ok())
    }

    /// The variables as `var` reads them (tests, embedders); a value that is empty after
    /// trimming counts as unset, and one that does not parse keeps the default.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Self {
        let mut c = Self::default();
        let get = |k: &str| {
            var(k)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        c.service_name = get("OTEL_SERVICE_NAME");
        c.endpoint = get("OTEL_EXPORTER_OTLP_ENDPOINT");
        c.traces_endpoint = get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
        c.metrics_endpoint = get("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT");
        if let Some(h) = get("OTEL_EXPORTER_OTLP_HEADERS") {
            c.headers = parse_headers(&h);
        }
        if let Some(ms) = get("OTEL_EXPORTER_OTLP_TIMEOUT").and_then(|v| v.parse().ok()) {
            c.timeout = Duration::from_millis(ms);
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
            match sampling {
                Some(sampling) => {
                    c.sampling = sampling;
                    c.parent_based = parent;
                }
                None => c.unknown_sampler = Some(s),
            }
        }
        c.disabled = get("OTEL_SDK_DISABLED").is_some_and(|v| v.eq_ignore_ascii_case("true"));
        c
    }
}

/// Where one signal is posted: its own full URL (`own`, as
/// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is) when given, else `path` (`v1/traces`,
/// `v1/metrics`) under the base URL; `None` without either.
pub fn signal_url(own: Option<&str>, base: Option<&str>, path: &str) -> Option<String> {
    if let Some(u) = own {
        return Some(u.to_string());
    }
    let base = base?;
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

    fn vars(pairs: &[(&str, &str)]) -> OtelEnv {
        let m: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        OtelEnv::from_vars(|k| m.get(k).cloned())
    }

    #[test]
    fn nothing_set_is_the_specifications_defaults() {
        assert_eq!(vars(&[]), OtelEnv::default());
        assert_eq!(vars(&[("OTEL_SERVICE_NAME", "  ")]), OtelEnv::default());
    }

    #[test]
    fn the_standard_variables_are_read() {
        let c = vars(&[
            ("OTEL_SERVICE_NAME", "svc"),
            ("OTEL_EXPORTER_OTLP_ENDPOINT", " http://collector:4318/ "),
            ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://t:1/x"),
            ("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "http://m:9/x"),
            (
                "OTEL_EXPORTER_OTLP_HEADERS",
                "api-key=a%20b, x = 1 ,broken,=v,p=%zz%4",
            ),
            ("OTEL_EXPORTER_OTLP_TIMEOUT", "2500"),
            ("OTEL_TRACES_SAMPLER", "parentbased_traceidratio"),
            ("OTEL_TRACES_SAMPLER_ARG", "0.01"),
            ("OTEL_METRICS_EXPORTER", "otlp, prometheus"),
            ("OTEL_METRIC_EXPORT_INTERVAL", "500"),
        ]);
        assert_eq!(c.service_name.as_deref(), Some("svc"));
        assert_eq!(c.endpoint.as_deref(), Some("http://collector:4318/"));
        assert_eq!(c.traces_endpoint.as_deref(), Some("http://t:1/x"));
        assert_eq!(c.metrics_endpoint.as_deref(), Some("http://m:9/x"));
        assert_eq!(
            c.headers,
            [("api-key", "a b"), ("x", "1"), ("p", "%zz%4")]
                .map(|(k, v)| (k.to_string(), v.to_string()))
        );
        assert_eq!(c.timeout, Duration::from_millis(2500));
        assert_eq!(c.sampling, Sampling::Ratio(0.01));
        assert!(c.parent_based && c.metrics && c.prometheus && c.traces);
        assert_eq!(c.unknown_sampler, None);
        assert_eq!(c.metric_export_interval, Duration::from_millis(500));
        assert!(!c.disabled);
    }

    #[test]
    fn none_exporters_unknown_samplers_bad_numbers_and_disabled() {
        let c = vars(&[
            ("OTEL_TRACES_EXPORTER", "none"),
            ("OTEL_METRICS_EXPORTER", "prometheus"),
            ("OTEL_TRACES_SAMPLER", "jaeger_remote"),
            ("OTEL_EXPORTER_OTLP_TIMEOUT", "soon"),
            ("OTEL_SDK_DISABLED", "TRUE"),
        ]);
        assert!(!c.traces && !c.metrics && c.prometheus && c.disabled);
        assert_eq!(c.sampling, Sampling::AlwaysOn);
        assert!(c.parent_based);
        assert_eq!(c.unknown_sampler.as_deref(), Some("jaeger_remote"));
        assert_eq!(c.timeout, Duration::from_secs(10));
        let c = vars(&[
            ("OTEL_TRACES_SAMPLER", "traceidratio"),
            ("OTEL_TRACES_SAMPLER_ARG", "7"),
        ]);
        assert_eq!(c.sampling, Sampling::Ratio(1.0));
        assert!(!c.parent_based);
        let c = vars(&[("OTEL_TRACES_SAMPLER", "parentbased_always_off")]);
        assert_eq!(c.sampling, Sampling::AlwaysOff);
        assert!(c.parent_based);
    }

    #[test]
    fn a_signal_goes_to_its_own_url_or_under_the_base() {
        let base = Some("http://collector:4318/");
        assert_eq!(
            signal_url(None, base, "v1/traces").as_deref(),
            Some("http://collector:4318/v1/traces")
        );
        assert_eq!(
            signal_url(Some("http://m:9/x"), base, "v1/metrics").as_deref(),
            Some("http://m:9/x")
        );
        assert_eq!(signal_url(None, None, "v1/metrics"), None);
    }
}
