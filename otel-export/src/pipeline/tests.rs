//! The pipeline's settings against what its exporters post, through an HTTP client that
//! records each request and answers 200 (decoded with the OpenTelemetry project's protobuf
//! types).

use super::*;
use bytes::Bytes;
use http::{Request, Response};
use opentelemetry::metrics::MeterProvider as _;
use opentelemetry::trace::{SpanId, TraceId, Tracer as _, TracerProvider as _};
use opentelemetry_http::HttpError;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::resource::v1::Resource as ProtoResource;
use prost::Message as _;
use std::sync::Mutex;

/// Records every request posted through it.
#[derive(Debug, Default)]
struct Recorder(Mutex<Vec<Request<Bytes>>>);

#[async_trait::async_trait]
impl HttpClient for Recorder {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        self.0.lock().unwrap().push(request);
        Ok(Response::builder().status(200).body(Bytes::new())?)
    }
}

impl Recorder {
    fn taken(&self) -> Vec<Request<Bytes>> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

fn target(recorder: &Arc<Recorder>, url: &str) -> OtlpTarget {
    let client: Arc<dyn HttpClient> = recorder.clone();
    OtlpTarget::new(url, client)
        .with_headers(vec![("api-key".into(), "secret".into())])
        .with_timeout(Duration::from_secs(5))
}

fn string_attribute(resource: &Option<ProtoResource>, key: &str) -> Option<String> {
    resource
        .as_ref()?
        .attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| match kv.value.as_ref()?.value.as_ref()? {
            AnyValue::StringValue(s) => Some(s.clone()),
            _ => None,
        })
}

/// The same trace and span ids every time.
#[derive(Debug)]
struct FixedIds;

impl IdGenerator for FixedIds {
    fn new_trace_id(&self) -> TraceId {
        TraceId::from(0x42)
    }

    fn new_span_id(&self) -> SpanId {
        SpanId::from(0x7)
    }
}

#[test]
fn spans_are_posted_with_the_settings_resource_headers_and_ids() {
    let recorder = Arc::new(Recorder::default());
    let export = TraceExport::new(target(&recorder, "http://collector.test:4318/v1/traces"))
        .with_id_generator(Box::new(FixedIds));
    let provider = tracer_provider(
        resource(
            Some("svc".into()),
            vec![KeyValue::new("deployment.environment.name", "test")],
        ),
        export,
    )
    .unwrap();
    provider.tracer("t").in_span("work", |_| {});
    provider.force_flush().unwrap();
    let posted = recorder.taken();
    assert_eq!(posted.len(), 1, "{posted:?}");
    let request = &posted[0];
    assert_eq!(
        request.uri().to_string(),
        "http://collector.test:4318/v1/traces"
    );
    assert_eq!(request.method(), http::Method::POST);
    assert_eq!(request.headers()["api-key"], "secret");
    assert_eq!(
        request.headers()[http::header::CONTENT_TYPE],
        "application/x-protobuf"
    );
    let body = ExportTraceServiceRequest::decode(request.body().clone()).unwrap();
    let spans = &body.resource_spans[0];
    assert_eq!(
        string_attribute(&spans.resource, "service.name").as_deref(),
        Some("svc")
    );
    assert_eq!(
        string_attribute(&spans.resource, "deployment.environment.name").as_deref(),
        Some("test")
    );
    let span = &spans.scope_spans[0].spans[0];
    assert_eq!(span.name, "work");
    assert_eq!(span.trace_id, TraceId::from(0x42).to_bytes());
    assert_eq!(span.span_id, SpanId::from(0x7).to_bytes());
    provider.shutdown().unwrap();
}

#[test]
fn spans_the_sampling_drops_are_not_posted() {
    let recorder = Arc::new(Recorder::default());
    let export = TraceExport::new(target(&recorder, "http://collector.test:4318/v1/traces"))
        .with_sampling(Sampling::AlwaysOff, true);
    let provider = tracer_provider(resource(None, Vec::new()), export).unwrap();
    provider.tracer("t").in_span("dropped", |_| {});
    provider.force_flush().unwrap();
    assert!(recorder.taken().is_empty());
    provider.shutdown().unwrap();
}

#[test]
fn an_unusable_url_is_a_build_error() {
    let recorder = Arc::new(Recorder::default());
    let err = tracer_provider(
        resource(None, Vec::new()),
        TraceExport::new(target(&recorder, "not a url")),
    )
    .unwrap_err();
    assert!(!err.to_string().is_empty());
    let err = meter_provider(
        resource(None, Vec::new()),
        Some(MetricExport::new(
            target(&recorder, "http://bad host/v1/metrics"),
            Duration::from_secs(60),
        )),
        false,
    )
    .unwrap_err();
    assert!(!err.to_string().is_empty());
}

/// Records one measurement on `meters` and returns the Prometheus text's line for it.
fn record_and_render(meters: &Meters) -> Option<String> {
    let counter = meters.provider.meter("t").u64_counter("jobs.done").build();
    counter.add(3, &[]);
    let text = meters.prometheus.as_ref()?.render();
    text.lines()
        .find(|l| l.starts_with("jobs_done_total"))
        .map(str::to_string)
}

#[test]
fn metrics_are_posted_and_a_cumulative_exporter_shares_its_reader_with_prometheus() {
    let recorder = Arc::new(Recorder::default());
    let meters = meter_provider(
        resource(Some("svc".into()), Vec::new()),
        Some(MetricExport::new(
            target(&recorder, "http://collector.test:4318/v1/metrics"),
            Duration::from_secs(3600),
        )),
        true,
    )
    .unwrap();
    assert_eq!(
        record_and_render(&meters).as_deref(),
        Some("jobs_done_total 3")
    );
    meters.provider.force_flush().unwrap();
    let posted = recorder.taken();
    assert_eq!(posted.len(), 1, "{posted:?}");
    assert_eq!(
        posted[0].uri().to_string(),
        "http://collector.test:4318/v1/metrics"
    );
    assert_eq!(posted[0].headers()["api-key"], "secret");
    let body = ExportMetricsServiceRequest::decode(posted[0].body().clone()).unwrap();
    let metrics = &body.resource_metrics[0];
    assert_eq!(
        string_attribute(&metrics.resource, "service.name").as_deref(),
        Some("svc")
    );
    assert_eq!(metrics.scope_metrics[0].metrics[0].name, "jobs.done");
    // One reader: the registered Prometheus handle is the periodic reader itself.
    let shared = format!("{:?}", meters.prometheus.as_ref().unwrap());
    assert!(shared.contains("PeriodicReader"), "{shared}");
    meters.provider.shutdown().unwrap();
}

#[test]
fn a_delta_exporter_gets_a_manual_reader_for_prometheus() {
    let recorder = Arc::new(Recorder::default());
    let meters = meter_provider(
        resource(None, Vec::new()),
        Some(
            MetricExport::new(
                target(&recorder, "http://collector.test:4318/v1/metrics"),
                Duration::from_secs(3600),
            )
            .with_temporality(Temporality::Delta),
        ),
        true,
    )
    .unwrap();
    assert_eq!(
        record_and_render(&meters).as_deref(),
        Some("jobs_done_total 3")
    );
    let reader = format!("{:?}", meters.prometheus.as_ref().unwrap());
    assert!(reader.contains("ManualReader"), "{reader}");
    meters.provider.force_flush().unwrap();
    assert_eq!(recorder.taken().len(), 1);
    meters.provider.shutdown().unwrap();
}

#[test]
fn without_otlp_or_prometheus_nothing_reads_the_meters() {
    let meters = meter_provider(resource(None, Vec::new()), None, false).unwrap();
    assert!(meters.prometheus.is_none());
    assert_eq!(record_and_render(&meters), None);
    let meters = meter_provider(resource(None, Vec::new()), None, true).unwrap();
    assert_eq!(
        record_and_render(&meters).as_deref(),
        Some("jobs_done_total 3")
    );
}
