//! The OTLP/HTTP receiver the tests export to (decoding with `opentelemetry-proto`), the
//! `echo` and asking servers, the client handlers that record what the server asked, and the
//! helpers that find spans and read Prometheus samples.

use bytes::Bytes;
use ferromcp::client::http::connect;
use ferromcp::client::{ClientHandlers, ClientOptions};
use ferromcp::server::Server;
use ferromcp::telemetry::opentelemetry::trace::{Span as _, Tracer as _};
use ferromcp::telemetry::opentelemetry::Context;
use ferromcp::telemetry::{Sampling, Telemetry, TelemetryConfig};
use ferromcp::transport::http::{serve_http, HttpClientOptions, HttpServerOptions};
use http_body_util::{BodyExt, Full};
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{any_value, KeyValue};
use opentelemetry_proto::tonic::metrics::v1::metric;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message as _;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Data points of one metric: their attributes and their count (histograms) or value (sums).
pub(crate) type Points = Vec<(Vec<KeyValue>, f64)>;

/// What the receiver got: spans with their resource's `service.name`, and metric names with
/// their data point counts (histogram counts, or sum/gauge values).
#[derive(Default)]
pub(crate) struct Received {
    pub(crate) spans: Vec<(String, Span)>,
    pub(crate) metrics: Vec<(String, String, Points)>,
    pub(crate) paths: Vec<String>,
}

pub(crate) fn text_attr(attrs: &[KeyValue], key: &str) -> Option<String> {
    attrs.iter().find(|kv| kv.key == key).and_then(|kv| {
        match kv.value.as_ref()?.value.as_ref()? {
            any_value::Value::StringValue(s) => Some(s.clone()),
            any_value::Value::IntValue(i) => Some(i.to_string()),
            _ => None,
        }
    })
}

pub(crate) fn service_of(attrs: &[KeyValue]) -> String {
    text_attr(attrs, "service.name").unwrap_or_default()
}

/// An OTLP/HTTP receiver on 127.0.0.1: `POST /v1/traces` and `/v1/metrics` with protobuf
/// bodies, answered 200 with an empty protobuf answer.
pub(crate) async fn start_receiver() -> (String, Arc<Mutex<Received>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let got = Arc::new(Mutex::new(Received::default()));
    let g = got.clone();
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let g = g.clone();
            tokio::spawn(async move {
                let svc = service_fn(move |req: http::Request<hyper::body::Incoming>| {
                    let g = g.clone();
                    async move {
                        let path = req.uri().path().to_string();
                        let ct = req
                            .headers()
                            .get("content-type")
                            .map(|v| v.to_str().unwrap().to_string());
                        let body = req.into_body().collect().await.unwrap().to_bytes();
                        assert_eq!(ct.as_deref(), Some("application/x-protobuf"));
                        let mut got = g.lock().unwrap();
                        got.paths.push(path.clone());
                        match path.as_str() {
                            "/v1/traces" => {
                                let r = ExportTraceServiceRequest::decode(body).unwrap();
                                for rs in r.resource_spans {
                                    let svc = service_of(
                                        &rs.resource.map(|r| r.attributes).unwrap_or_default(),
                                    );
                                    for ss in rs.scope_spans {
                                        for s in ss.spans {
                                            got.spans.push((svc.clone(), s));
                                        }
                                    }
                                }
                            }
                            "/v1/metrics" => {
                                let r = ExportMetricsServiceRequest::decode(body).unwrap();
                                for rm in r.resource_metrics {
                                    let svc = service_of(
                                        &rm.resource.map(|r| r.attributes).unwrap_or_default(),
                                    );
                                    for sm in rm.scope_metrics {
                                        for m in sm.metrics {
                                            let points = match m.data {
                                                Some(metric::Data::Histogram(h)) => h
                                                    .data_points
                                                    .into_iter()
                                                    .map(|p| (p.attributes, p.count as f64))
                                                    .collect(),
                                                Some(metric::Data::Sum(s)) => s
                                                    .data_points
                                                    .into_iter()
                                                    .map(|p| (p.attributes, number(p.value)))
                                                    .collect(),
                                                _ => Vec::new(),
                                            };
                                            got.metrics.push((svc.clone(), m.name, points));
                                        }
                                    }
                                }
                            }
                            other => panic!("unexpected OTLP path {other}"),
                        }
                        Ok::<_, std::convert::Infallible>(
                            http::Response::builder()
                                .status(200)
                                .header("content-type", "application/x-protobuf")
                                .body(Full::new(Bytes::new()))
                                .unwrap(),
                        )
                    }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), svc)
                    .await;
            });
        }
    });
    (url, got)
}

pub(crate) fn number(
    v: Option<opentelemetry_proto::tonic::metrics::v1::number_data_point::Value>,
) -> f64 {
    use opentelemetry_proto::tonic::metrics::v1::number_data_point::Value as V;
    match v {
        Some(V::AsDouble(d)) => d,
        Some(V::AsInt(i)) => i as f64,
        None => f64::NAN,
    }
}

pub(crate) fn telemetry(service: &str, otlp: &str) -> Telemetry {
    let mut c = TelemetryConfig::default();
    c.service_name = Some(service.into());
    c.otlp_endpoint = Some(otlp.into());
    c.sampling = Sampling::AlwaysOn;
    c.prometheus = true;
    c.metric_export_interval = Duration::from_secs(3600);
    Telemetry::new(c).unwrap()
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub(crate) struct EchoArgs {
    text: String,
}

/// The `traceparent` each `echo` call saw in its context's `_meta` (what a handler in another
/// language reads its parent from).
pub(crate) type SeenParents = Arc<Mutex<Vec<String>>>;

pub(crate) fn server(t: &Telemetry, seen: SeenParents) -> Server {
    let tt = t.clone();
    Server::builder("otel-test", "1")
        .middleware(t.server_layer())
        .tool("echo", "Echoes", move |a: EchoArgs, ctx| {
            let tt = tt.clone();
            let seen = seen.clone();
            async move {
                if let Some(tp) = ctx.meta().and_then(|m| m.get("traceparent")) {
                    seen.lock()
                        .unwrap()
                        .push(tp.as_str().unwrap_or_default().to_string());
                }
                // A handler's own span, under the request's span (the current context).
                let tracer = tt.tracer().expect("spans are exported");
                let mut span = tracer.start_with_context("echo work", &Context::current());
                span.end();
                a.text
            }
        })
        .build()
        .unwrap()
}

pub(crate) fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Waits until `pred` holds on what the receiver got (exports are asynchronous).
pub(crate) async fn wait_for(
    got: &Arc<Mutex<Received>>,
    what: &str,
    pred: impl Fn(&Received) -> bool,
) {
    let start = Instant::now();
    while !pred(&got.lock().unwrap()) {
        if start.elapsed() > Duration::from_secs(20) {
            let r = got.lock().unwrap();
            let spans: Vec<_> = r.spans.iter().map(|(s, sp)| (s, &sp.name)).collect();
            panic!("timed out waiting for {what}; spans: {spans:?}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

pub(crate) fn find<'a>(r: &'a Received, service: &str, name: &str) -> Vec<&'a Span> {
    r.spans
        .iter()
        .filter(|(s, sp)| s == service && sp.name == name)
        .map(|(_, sp)| sp)
        .collect()
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub(crate) struct NoArgs {}

/// The value of the first Prometheus sample named `name` whose labels contain every one of
/// `with` (a series not listed reads as `None`).
pub(crate) fn sample(text: &str, name: &str, with: &[&str]) -> Option<f64> {
    text.lines()
        .find(|l| {
            l.strip_prefix(name)
                .is_some_and(|rest| rest.starts_with('{') || rest.starts_with(' '))
                && with.iter().all(|w| l.contains(w))
        })
        .and_then(|l| l.rsplit(' ').next()?.parse().ok())
}

/// What a client handler saw when its server asked: the method, the `traceparent` in its
/// context's `_meta`, the span current in its future (hex id) and the `tenant` baggage current
/// there.
pub(crate) type Asked = Arc<Mutex<Vec<(String, Option<String>, String, Option<String>)>>>;

/// Client handlers for the server's requests that record what they saw ([`Asked`]): sampling
/// answers, elicitation fails (`-32603`), roots lists one root.
pub(crate) fn asked_handlers(asked: Asked) -> ClientHandlers {
    use ferromcp::protocol::{CreateMessageResult, Root, SamplingContent};
    use ferromcp::telemetry::opentelemetry::baggage::BaggageExt as _;
    use ferromcp::telemetry::opentelemetry::trace::TraceContextExt as _;
    let note = move |method: &str, ctx: &ferromcp::session::RequestContext| {
        let parent = ctx
            .meta()
            .and_then(|m| m.get("traceparent"))
            .and_then(|v| v.as_str())
            .map(str::to_string);
        let current = Context::current();
        let span = current.span().span_context().span_id().to_string();
        let tenant = current
            .baggage()
            .get("tenant")
            .map(|v| v.as_str().to_string());
        asked
            .lock()
            .unwrap()
            .push((method.to_string(), parent, span, tenant));
    };
    let (n1, n2, n3) = (note.clone(), note.clone(), note);
    ClientHandlers::default()
        .with_sampling(Some(Arc::new(move |_p, ctx| {
            n1("sampling/createMessage", &ctx);
            Box::pin(async move {
                Ok(CreateMessageResult::new(
                    SamplingContent::text("sampled"),
                    "test-model",
                ))
            })
        })))
        .with_elicitation(Some(Arc::new(move |_p, ctx| {
            n2("elicitation/create", &ctx);
            Box::pin(async move { Err(ferromcp::McpError::internal("no user to ask")) })
        })))
        .with_roots(Some(Arc::new(move |ctx| {
            n3("roots/list", &ctx);
            Box::pin(async move { Ok(vec![Root::new("file:///work")]) })
        })))
}

/// A server whose `ask` tool sends its client `sampling/createMessage` (under a span of the
/// handler's own, `ask work`), `elicitation/create` and `roots/list`, and answers how each went.
/// `server` served over Streamable HTTP and an engine client named `client_name` connected to
/// it with telemetry `client_t`, answering the server's requests with [`asked_handlers`] (what
/// they saw recorded in the returned `Asked`).
pub(crate) async fn serve_to_an_asked_client(
    server: Server,
    client_name: &str,
    client_t: &Telemetry,
) -> (
    ferromcp::transport::http::HttpServerHandle,
    ferromcp::client::Client,
    Asked,
) {
    let handle = serve_http(server, "127.0.0.1:0", HttpServerOptions::default())
        .await
        .unwrap();
    let asked = Asked::default();
    let mut options = ClientOptions::new(client_name, "1");
    options.telemetry = Some(client_t.clone());
    let client = connect(
        &handle.url("/mcp"),
        options,
        asked_handlers(asked.clone()),
        HttpClientOptions::default(),
    )
    .await
    .unwrap();
    (handle, client, asked)
}
