//! Proves OpenTelemetry end to end (feature `otel`): a real OTLP/HTTP receiver started here
//! (hyper, decoding the protobuf bodies with the OpenTelemetry project's `opentelemetry-proto`
//! types) receives the spans and metrics of a ferromcp client and a ferromcp HTTP server, each
//! with its own `Telemetry`. The client's span is the parent of the server's (trace context in
//! `params._meta`), a Rust handler's own span is the server span's child, the span names and
//! attributes are those of the MCP semantic conventions, a failing call is recorded as an error,
//! a `traceparent` sent in an HTTP header alone is the parent, a malformed one (in `_meta` or
//! the header) is ignored and the request served, and `/metrics` serves Prometheus text.

#![cfg(feature = "otel")]

mod common_http;

use bytes::Bytes;
use common_http::{init_session, post, send, JSON_SSE};
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
use opentelemetry_proto::tonic::trace::v1::{span::SpanKind, status::StatusCode, Span};
use prost::Message as _;
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Data points of one metric: their attributes and their count (histograms) or value (sums).
type Points = Vec<(Vec<KeyValue>, f64)>;

/// What the receiver got: spans with their resource's `service.name`, and metric names with
/// their data point counts (histogram counts, or sum/gauge values).
#[derive(Default)]
struct Received {
    spans: Vec<(String, Span)>,
    metrics: Vec<(String, String, Points)>,
    paths: Vec<String>,
}

fn text_attr(attrs: &[KeyValue], key: &str) -> Option<String> {
    attrs.iter().find(|kv| kv.key == key).and_then(|kv| {
        match kv.value.as_ref()?.value.as_ref()? {
            any_value::Value::StringValue(s) => Some(s.clone()),
            any_value::Value::IntValue(i) => Some(i.to_string()),
            _ => None,
        }
    })
}

fn service_of(attrs: &[KeyValue]) -> String {
    text_attr(attrs, "service.name").unwrap_or_default()
}

/// An OTLP/HTTP receiver on 127.0.0.1: `POST /v1/traces` and `/v1/metrics` with protobuf
/// bodies, answered 200 with an empty protobuf answer.
async fn start_receiver() -> (String, Arc<Mutex<Received>>) {
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

fn number(v: Option<opentelemetry_proto::tonic::metrics::v1::number_data_point::Value>) -> f64 {
    use opentelemetry_proto::tonic::metrics::v1::number_data_point::Value as V;
    match v {
        Some(V::AsDouble(d)) => d,
        Some(V::AsInt(i)) => i as f64,
        None => f64::NAN,
    }
}

fn telemetry(service: &str, otlp: &str) -> Telemetry {
    let mut c = TelemetryConfig::default();
    c.service_name = Some(service.into());
    c.otlp_endpoint = Some(otlp.into());
    c.sampling = Sampling::AlwaysOn;
    c.prometheus = true;
    c.metric_export_interval = Duration::from_secs(3600);
    Telemetry::new(c).unwrap()
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    text: String,
}

/// The `traceparent` each `echo` call saw in its context's `_meta` (what a handler in another
/// language reads its parent from).
type SeenParents = Arc<Mutex<Vec<String>>>;

fn server(t: &Telemetry, seen: SeenParents) -> Server {
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

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Waits until `pred` holds on what the receiver got (exports are asynchronous).
async fn wait_for(got: &Arc<Mutex<Received>>, what: &str, pred: impl Fn(&Received) -> bool) {
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

fn find<'a>(r: &'a Received, service: &str, name: &str) -> Vec<&'a Span> {
    r.spans
        .iter()
        .filter(|(s, sp)| s == service && sp.name == name)
        .map(|(_, sp)| sp)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spans_and_metrics_reach_an_otlp_receiver_with_client_server_links() {
    let (otlp, got) = start_receiver().await;
    let server_t = telemetry("mcp-server", &otlp);
    let client_t = telemetry("mcp-client", &otlp);
    let opts =
        HttpServerOptions::default().with_metrics(Some(server_t.metrics_endpoint("/metrics")));
    let seen = SeenParents::default();
    let handle = serve_http(server(&server_t, seen.clone()), "127.0.0.1:0", opts)
        .await
        .unwrap();
    server_t.observe_http_server(&handle);
    let url = handle.url("/mcp");

    let mut options = ClientOptions::new("otel-client", "1");
    options.telemetry = Some(client_t.clone());
    let client = connect(
        &url,
        options,
        ClientHandlers::default(),
        HttpClientOptions::default(),
    )
    .await
    .unwrap();
    let r = client
        .call_tool("echo", json!({"text": "hi"}))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&r).unwrap()["content"][0]["text"],
        "hi"
    );
    let bad = client.call_tool("echo", json!({"text": 5})).await;
    let bad_code = match bad {
        Err(e) => e.code.to_string(),
        Ok(r) => {
            assert_eq!(r.is_error, Some(true), "a bad argument is an error");
            "tool_error".to_string()
        }
    };
    client.list_tools(None).await.unwrap();

    // A traceparent in the HTTP header alone is the parent; malformed ones are ignored.
    let header_parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name":"raw","version":"1"}}});
    let mut h: Vec<(&str, &str)> = JSON_SSE.to_vec();
    h.push(("traceparent", header_parent));
    let r = send("POST", &url, &h, &init.to_string()).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let mut h: Vec<(&str, &str)> = JSON_SSE.to_vec();
    h.push(("traceparent", "00-not-a-trace-context"));
    let mut malformed = init.clone();
    malformed["params"]["_meta"] = json!({"traceparent": "zz-garbage", "tracestate": 7});
    let r = send("POST", &url, &h, &malformed.to_string()).await;
    assert_eq!(
        r.status, 200,
        "a malformed traceparent is never fatal: {}",
        r.body
    );
    let sid = r.sid().unwrap();
    let r = post(
        &url,
        Some(&sid),
        json!({"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"traceparent": 17}}}),
    )
    .await;
    assert!(r.body.contains("\"echo\""), "{}", r.body);

    // Prometheus text on the HTTP server.
    let m = send("GET", &handle.url("/metrics"), &[], "").await;
    assert_eq!(m.status, 200);
    assert_eq!(
        m.headers.get("content-type").unwrap(),
        "text/plain; version=0.0.4; charset=utf-8"
    );
    assert!(
        m.body.lines().any(
            |l| l.starts_with("mcp_server_operation_duration_seconds_count{")
                && l.contains("gen_ai_tool_name=\"echo\"")
                && l.contains("mcp_method_name=\"tools/call\"")
        ),
        "{}",
        m.body
    );
    assert!(
        m.body.contains("# TYPE ferromcp_server_sessions gauge"),
        "{}",
        m.body
    );
    assert_eq!(
        send("POST", &handle.url("/metrics"), &[], "").await.status,
        405
    );

    client.close().await;
    client_t.force_flush();
    server_t.force_flush();

    wait_for(&got, "client and server spans", |r| {
        find(r, "mcp-client", "tools/call echo").len() == 2
            && find(r, "mcp-server", "tools/call echo").len() == 2
            && find(r, "mcp-server", "echo work").len() == 1
            && find(r, "mcp-server", "initialize").len() >= 3
    })
    .await;
    {
        let r = got.lock().unwrap();

        // Client span -> server span -> the handler's span, one trace.
        let client_spans = find(&r, "mcp-client", "tools/call echo");
        let server_spans = find(&r, "mcp-server", "tools/call echo");
        let work = find(&r, "mcp-server", "echo work")[0];
        let ok_server = server_spans
            .iter()
            .find(|s| s.span_id == work.parent_span_id)
            .expect("the handler's span is a child of a server span");
        let ok_client = client_spans
            .iter()
            .find(|c| c.span_id == ok_server.parent_span_id)
            .expect("the server span is a child of a client span");
        assert_eq!(ok_client.trace_id, ok_server.trace_id);
        // The handler's context `_meta` names the server span (not the client's).
        assert_eq!(
            *seen.lock().unwrap(),
            vec![format!(
                "00-{}-{}-01",
                hex(&ok_server.trace_id),
                hex(&ok_server.span_id)
            )]
        );
        assert_eq!(work.trace_id, ok_server.trace_id);
        assert_eq!(ok_client.kind, SpanKind::Client as i32);
        assert_eq!(ok_server.kind, SpanKind::Server as i32);
        for (key, want) in [
            ("mcp.method.name", "tools/call"),
            ("gen_ai.tool.name", "echo"),
            ("gen_ai.operation.name", "execute_tool"),
            ("mcp.protocol.version", "2025-11-25"),
            ("network.transport", "tcp"),
            ("network.protocol.name", "http"),
        ] {
            assert_eq!(
                text_attr(&ok_server.attributes, key).as_deref(),
                Some(want),
                "{key}"
            );
        }
        let session = text_attr(&ok_server.attributes, "mcp.session.id").expect("mcp.session.id");
        assert!(server_spans
            .iter()
            .all(|s| text_attr(&s.attributes, "mcp.session.id").as_ref() == Some(&session)));
        assert!(text_attr(&ok_server.attributes, "jsonrpc.request.id").is_some());
        assert_eq!(
            text_attr(&ok_client.attributes, "gen_ai.tool.name").as_deref(),
            Some("echo")
        );

        // The failing call: both spans are errors with the same error.type.
        let bad_server = server_spans
            .iter()
            .find(|s| s.span_id != ok_server.span_id)
            .unwrap();
        let bad_client = client_spans
            .iter()
            .find(|c| c.span_id == bad_server.parent_span_id)
            .unwrap();
        for s in [bad_server, bad_client] {
            assert_eq!(
                s.status.as_ref().unwrap().code,
                StatusCode::Error as i32,
                "{}",
                s.name
            );
            assert_eq!(
                text_attr(&s.attributes, "error.type"),
                Some(bad_code.clone())
            );
        }

        // The header's context is the parent; malformed contexts start new traces.
        let inits = find(&r, "mcp-server", "initialize");
        assert!(inits
            .iter()
            .any(|s| hex(&s.trace_id) == "0af7651916cd43dd8448eb211c80319c"
                && hex(&s.parent_span_id) == "b7ad6b7169203331"));
        let raw_init = inits.iter().filter(|s| s.parent_span_id.is_empty()).count();
        assert!(raw_init >= 1, "the malformed initialize is a root span");
        let lists = find(&r, "mcp-server", "tools/list");
        assert!(lists.iter().any(|s| s.parent_span_id.is_empty()
            && text_attr(&s.attributes, "mcp.session.id").as_deref() == Some(sid.as_str())));
    }

    // Metrics over OTLP: durations on both sides, with the error counted by error.type.
    wait_for(&got, "metrics", |r| {
        r.metrics
            .iter()
            .any(|(s, n, _)| s == "mcp-server" && n == "mcp.server.operation.duration")
            && r.metrics
                .iter()
                .any(|(s, n, _)| s == "mcp-client" && n == "mcp.client.operation.duration")
    })
    .await;
    let r = got.lock().unwrap();
    let points = |service: &str, name: &str| -> Points {
        r.metrics
            .iter()
            .filter(|(s, n, _)| s == service && n == name)
            .flat_map(|(_, _, p)| p.clone())
            .collect()
    };
    let server_calls = points("mcp-server", "mcp.server.operation.duration");
    let count = |pts: &Points, error: Option<&str>| -> f64 {
        pts.iter()
            .filter(|(a, _)| {
                text_attr(a, "gen_ai.tool.name").as_deref() == Some("echo")
                    && text_attr(a, "error.type").as_deref() == error
            })
            .map(|(_, c)| c)
            .sum()
    };
    assert_eq!(count(&server_calls, None), 1.0);
    assert_eq!(count(&server_calls, Some(&bad_code)), 1.0);
    let client_calls = points("mcp-client", "mcp.client.operation.duration");
    assert_eq!(count(&client_calls, None), 1.0);
    assert_eq!(count(&client_calls, Some(&bad_code)), 1.0);
    assert!(!points("mcp-server", "ferromcp.server.connections").is_empty());
    assert!(r
        .paths
        .iter()
        .all(|p| p == "/v1/traces" || p == "/v1/metrics"));
}

/// What the `seen` tool of [`sampled_server`] saw: the `traceparent` in its context's `_meta`
/// (if any) and whether a span was current in its future.
type Seen = Arc<Mutex<Vec<(Option<String>, bool)>>>;

/// A server whose root sampler samples nothing (parent-based, so a sampled parent still is):
/// `seen` records what its handler saw, `flagged` answers a tool error (`isError`).
fn sampled_server(t: &Telemetry, seen: Seen) -> Server {
    use ferromcp::telemetry::opentelemetry::trace::TraceContextExt as _;
    Server::builder("otel-quiet", "1")
        .middleware(t.server_layer())
        .tool("seen", "Records its context", move |_: NoArgs, ctx| {
            let seen = seen.clone();
            async move {
                let parent = ctx
                    .meta()
                    .and_then(|m| m.get("traceparent"))
                    .and_then(|v| v.as_str())
                    .map(str::to_string);
                let current = Context::current().span().span_context().is_valid();
                seen.lock().unwrap().push((parent, current));
                "ok"
            }
        })
        .tool("flagged", "A tool error", |_: NoArgs, _ctx| async move {
            ferromcp::protocol::CallToolResult::error_text("it went wrong")
        })
        .tool("stuck", "Never answers", |_: NoArgs, _ctx| async move {
            std::future::pending::<()>().await;
            "never"
        })
        .build()
        .unwrap()
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct NoArgs {}

/// A [`sampled_server`] over HTTP with `/metrics`, exporting to a receiver started here, and a
/// session initialized on it by a raw client.
struct Unsampled {
    t: Telemetry,
    got: Arc<Mutex<Received>>,
    handle: ferromcp::transport::http::HttpServerHandle,
    url: String,
    sid: String,
}

/// Starts an [`Unsampled`] whose telemetry names itself `service`: a root sampler that samples
/// nothing (parent-based, so a sampled parent still is), Prometheus on, metrics exported only at
/// a flush.
async fn unsampled_session(service: &str, seen: Seen) -> Unsampled {
    let (otlp, got) = start_receiver().await;
    let mut c = TelemetryConfig::default();
    c.service_name = Some(service.into());
    c.otlp_endpoint = Some(otlp);
    c.sampling = Sampling::Ratio(0.0);
    c.parent_based = true;
    c.prometheus = true;
    c.metric_export_interval = Duration::from_secs(3600);
    let t = Telemetry::new(c).unwrap();
    let opts = HttpServerOptions::default().with_metrics(Some(t.metrics_endpoint("/metrics")));
    let handle = serve_http(sampled_server(&t, seen), "127.0.0.1:0", opts)
        .await
        .unwrap();
    let url = handle.url("/mcp");
    let sid = init_session(&url).await;
    Unsampled {
        t,
        got,
        handle,
        url,
        sid,
    }
}

/// The count of the Prometheus series of `mcp.server.operation.duration` whose labels
/// contain every one of `with` and none of `without`.
fn duration_count(text: &str, with: &[&str], without: &[&str]) -> Option<f64> {
    text.lines()
        .find(|l| {
            l.starts_with("mcp_server_operation_duration_seconds_count{")
                && with.iter().all(|w| l.contains(w))
                && !without.iter().any(|w| l.contains(w))
        })
        .and_then(|l| l.rsplit(' ').next()?.parse().ok())
}

/// The cheap path of an unsampled request (`telemetry/quiet.rs`), on the typed `tools/call`
/// lane and on the general path: with a root sampler that samples nothing, a request without a
/// parent gets no span (its handler sees no `traceparent` and no current span) and its
/// duration is still recorded with its tool and outcome (`error.type` `tool_error` for an
/// `isError` result); a request whose `_meta` names a sampled parent is traced under it, its
/// handler's `_meta` naming the server span; one naming an unsampled parent is not exported,
/// its handler seeing the client's `traceparent` as sent and that unsampled trace as current.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unsampled_requests_get_no_span_and_still_record_their_duration() {
    let seen = Seen::default();
    let Unsampled {
        t,
        got,
        handle,
        url,
        sid,
    } = unsampled_session("mcp-quiet", seen.clone()).await;
    let call = |id: u64, name: &str, meta: Option<&str>| {
        let mut params = json!({"name": name, "arguments": {}});
        if let Some(tp) = meta {
            params["_meta"] = json!({ "traceparent": tp });
        }
        json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":params})
    };
    let sampled_parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let unsampled_parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b8-00";
    for (id, name, meta) in [
        (2, "seen", None),
        (3, "flagged", None),
        (4, "seen", Some(sampled_parent)),
        (5, "seen", Some(unsampled_parent)),
    ] {
        let r = post(&url, Some(&sid), call(id, name, meta)).await;
        assert_eq!(r.status, 200, "{}", r.body);
        assert!(r.body.contains("\"result\""), "{}", r.body);
    }
    let r = post(
        &url,
        Some(&sid),
        json!({"jsonrpc":"2.0","id":6,"method":"tools/list"}),
    )
    .await;
    assert!(r.body.contains("\"seen\""), "{}", r.body);

    // Durations, by operation and outcome, whether traced or not.
    let m = send("GET", &handle.url("/metrics"), &[], "").await.body;
    let count = |with: &[&str], without: &[&str]| duration_count(&m, with, without);
    assert_eq!(
        count(&["gen_ai_tool_name=\"seen\""], &["error_type"]),
        Some(3.0),
        "{m}"
    );
    assert_eq!(
        count(
            &["gen_ai_tool_name=\"flagged\"", "error_type=\"tool_error\""],
            &[]
        ),
        Some(1.0),
        "{m}"
    );
    assert_eq!(
        count(&["mcp_method_name=\"tools/list\""], &["error_type"]),
        Some(1.0),
        "{m}"
    );
    assert!(
        count(
            &[
                "mcp_method_name=\"tools/call\"",
                "mcp_protocol_version=\"2025-11-25\"",
                "network_transport=\"tcp\""
            ],
            &[]
        )
        .is_some(),
        "{m}"
    );

    // Spans: the sampled parent's request only.
    t.force_flush();
    wait_for(&got, "the sampled request's span", |r| {
        !find(r, "mcp-quiet", "tools/call seen").is_empty()
    })
    .await;
    let r = got.lock().unwrap();
    let spans: Vec<&Span> = r
        .spans
        .iter()
        .filter(|(s, _)| s == "mcp-quiet")
        .map(|(_, sp)| sp)
        .collect();
    assert_eq!(
        spans.len(),
        1,
        "{:?}",
        spans.iter().map(|s| &s.name).collect::<Vec<_>>()
    );
    let traced = spans[0];
    assert_eq!(hex(&traced.trace_id), "4bf92f3577b34da6a3ce929d0e0e4736");
    assert_eq!(hex(&traced.parent_span_id), "00f067aa0ba902b7");
    let server_parent = format!("00-{}-{}-01", hex(&traced.trace_id), hex(&traced.span_id));
    assert_eq!(
        *seen.lock().unwrap(),
        vec![
            (None, false),
            (Some(server_parent), true),
            // Not exported, but current: the handler's own spans follow the unsampled trace.
            (Some(unsampled_parent.to_string()), true),
        ]
    );
}

/// An unsampled `tools/call` on the typed lane (no parent, a root sampler that samples
/// nothing) that the client cancels is recorded as such: its call is awaited in place beside
/// its watch (`Server::call_tool_with_middleware`), and the watch, dropped with the call unanswered,
/// records `error.type` `cancelled` on the duration histogram; nothing is exported.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unsampled_call_cancelled_by_the_client_records_its_duration_as_cancelled() {
    let Unsampled {
        t,
        got,
        handle,
        url,
        sid,
    } = unsampled_session("mcp-cancelled", Seen::default()).await;

    let call = json!({"jsonrpc":"2.0","id":7,"method":"tools/call",
        "params":{"name":"stuck","arguments":{}}});
    let stuck = tokio::spawn({
        let (url, sid) = (url.clone(), sid.clone());
        async move { post(&url, Some(&sid), call).await }
    });
    let metrics = handle.url("/metrics");
    let cancelled = |m: &str| {
        duration_count(
            m,
            &["gen_ai_tool_name=\"stuck\"", "error_type=\"cancelled\""],
            &[],
        )
    };
    // The call is in flight (not yet recorded) until the client cancels it; the cancellation
    // is sent again until the call has started and so can be cancelled.
    let deadline = Instant::now() + Duration::from_secs(10);
    let m = loop {
        let r = post(
            &url,
            Some(&sid),
            json!({"jsonrpc":"2.0","method":"notifications/cancelled",
                "params":{"requestId":7,"reason":"test"}}),
        )
        .await;
        assert_eq!(r.status, 202, "{}", r.body);
        let m = send("GET", &metrics, &[], "").await.body;
        if cancelled(&m).is_some() || Instant::now() > deadline {
            break m;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(cancelled(&m), Some(1.0), "{m}");
    // Not also recorded as answered (the operation's bound series may be listed, at 0).
    assert_eq!(
        duration_count(&m, &["gen_ai_tool_name=\"stuck\""], &["error_type"]).unwrap_or(0.0),
        0.0,
        "{m}"
    );
    stuck.abort();
    t.force_flush();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let r = got.lock().unwrap();
    assert!(
        r.spans.iter().all(|(s, _)| s != "mcp-cancelled"),
        "an unsampled call exported a span"
    );
}

/// The value of the first Prometheus sample named `name` whose labels contain every one of
/// `with` (a series not listed reads as `None`).
fn sample(text: &str, name: &str, with: &[&str]) -> Option<f64> {
    text.lines()
        .find(|l| {
            l.strip_prefix(name)
                .is_some_and(|rest| rest.starts_with('{') || rest.starts_with(' '))
                && with.iter().all(|w| l.contains(w))
        })
        .and_then(|l| l.rsplit(' ').next()?.parse().ok())
}

/// Polls the server's `/metrics` until `sample(name, with)` is `want` (values change as
/// streams and sessions end on the server's tasks); returns the last text.
async fn until_sample(metrics: &str, name: &str, with: &[&str], want: f64) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let m = send("GET", metrics, &[], "").await.body;
        if sample(&m, name, with).unwrap_or(0.0) == want {
            return m;
        }
        assert!(
            Instant::now() < deadline,
            "{name}{with:?} never became {want}:\n{m}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Open SSE streams by kind (`ferromcp.server.sse_streams`, read from the server's counters at
/// each collection) and `mcp.server.session.duration`, on `/metrics` and over OTLP: a GET
/// stream counts as `get` while open; a POST whose answer is not ready opens a `post` stream,
/// counted until the answer ends it; DELETE ends the session, which closes its GET stream and
/// records the session's duration with its protocol version. A client with telemetry records
/// `mcp.client.session.duration` when it closes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_streams_and_session_durations_are_measured() {
    let (otlp, got) = start_receiver().await;
    let t = telemetry("mcp-streams", &otlp);
    let client_t = telemetry("mcp-streams-client", &otlp);
    let release = Arc::new(tokio::sync::Notify::new());
    let r2 = release.clone();
    let server = Server::builder("otel-streams", "1")
        .middleware(t.server_layer())
        .tool("wait", "Answers once released", move |_: NoArgs, _ctx| {
            let r = r2.clone();
            async move {
                r.notified().await;
                "released"
            }
        })
        .build()
        .unwrap();
    let opts = HttpServerOptions::default().with_metrics(Some(t.metrics_endpoint("/metrics")));
    let handle = serve_http(server, "127.0.0.1:0", opts).await.unwrap();
    t.observe_http_server(&handle);
    let url = handle.url("/mcp");
    let metrics = handle.url("/metrics");
    const STREAMS: &str = "ferromcp_server_sse_streams";
    const GET: &str = "ferromcp_stream_kind=\"get\"";
    const POST: &str = "ferromcp_stream_kind=\"post\"";
    const SESSIONS: &str = "mcp_server_session_duration_seconds_count";

    let sid = init_session(&url).await;
    let m = send("GET", &metrics, &[], "").await.body;
    assert_eq!(sample(&m, STREAMS, &[GET]), Some(0.0), "{m}");
    assert_eq!(sample(&m, STREAMS, &[POST]), Some(0.0), "{m}");
    assert_eq!(
        sample(&m, SESSIONS, &[]),
        None,
        "no session has ended yet:\n{m}"
    );

    // A GET stream, held open (its head read, its body not).
    let get = http::Request::builder()
        .method("GET")
        .uri(&url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", "2025-11-25")
        .body(Full::new(Bytes::new()))
        .unwrap();
    let get = common_http::client().request(get).await.unwrap();
    assert_eq!(get.status(), 200);
    until_sample(&metrics, STREAMS, &[GET], 1.0).await;

    // A POST whose answer waits: its stream is open until the tool answers.
    let call = json!({"jsonrpc":"2.0","id":2,"method":"tools/call",
        "params":{"name":"wait","arguments":{}}});
    let waiting = tokio::spawn({
        let (url, sid) = (url.clone(), sid.clone());
        async move { post(&url, Some(&sid), call).await }
    });
    let m = until_sample(&metrics, STREAMS, &[POST], 1.0).await;
    assert_eq!(sample(&m, STREAMS, &[GET]), Some(1.0), "{m}");
    release.notify_one();
    let answered = waiting.await.unwrap();
    assert!(answered.body.contains("released"), "{}", answered.body);
    let m = until_sample(&metrics, STREAMS, &[POST], 0.0).await;
    assert_eq!(sample(&m, STREAMS, &[GET]), Some(1.0), "{m}");

    // DELETE ends the session: its GET stream closes, its duration is recorded.
    let r = send(
        "DELETE",
        &url,
        &[
            ("mcp-session-id", sid.as_str()),
            ("mcp-protocol-version", "2025-11-25"),
        ],
        "",
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    drop(get);
    let m = until_sample(&metrics, STREAMS, &[GET], 0.0).await;
    let m = if sample(&m, SESSIONS, &[]).is_some() {
        m
    } else {
        until_sample(&metrics, SESSIONS, &[], 1.0).await
    };
    assert_eq!(
        sample(
            &m,
            SESSIONS,
            &[
                "mcp_protocol_version=\"2025-11-25\"",
                "network_transport=\"tcp\"",
                "network_protocol_name=\"http\""
            ]
        ),
        Some(1.0),
        "{m}"
    );
    assert!(!m.contains("error_type"), "{m}");

    // A client with telemetry: its session's duration when it closes.
    let mut options = ClientOptions::new("otel-client", "1");
    options.telemetry = Some(client_t.clone());
    let client = connect(
        &url,
        options,
        ClientHandlers::default(),
        HttpClientOptions::default(),
    )
    .await
    .unwrap();
    let version = client.protocol_version().as_str().to_string();
    let c = client_t.prometheus_text().unwrap();
    assert_eq!(
        sample(&c, "mcp_client_session_duration_seconds_count", &[]),
        None,
        "{c}"
    );
    client.close().await;
    let c = client_t.prometheus_text().unwrap();
    assert_eq!(
        sample(
            &c,
            "mcp_client_session_duration_seconds_count",
            &[&format!("mcp_protocol_version=\"{version}\"")]
        ),
        Some(1.0),
        "{c}"
    );
    // Its server-side session ends with the client's DELETE.
    until_sample(&metrics, SESSIONS, &[], 2.0).await;

    // The same over OTLP.
    t.force_flush();
    client_t.force_flush();
    wait_for(&got, "stream and session metrics", |r| {
        let has = |svc: &str, name: &str| r.metrics.iter().any(|(s, n, _)| s == svc && n == name);
        has("mcp-streams", "ferromcp.server.sse_streams")
            && has("mcp-streams", "mcp.server.session.duration")
            && has("mcp-streams-client", "mcp.client.session.duration")
    })
    .await;
    {
        let r = got.lock().unwrap();
        let kinds: Vec<String> = r
            .metrics
            .iter()
            .filter(|(s, n, _)| s == "mcp-streams" && n == "ferromcp.server.sse_streams")
            .flat_map(|(_, _, p)| {
                p.iter()
                    .filter_map(|(a, _)| text_attr(a, "ferromcp.stream.kind"))
            })
            .collect();
        for kind in ["get", "post", "listen", "legacy"] {
            assert!(kinds.iter().any(|k| k == kind), "{kind} in {kinds:?}");
        }
        let sessions: f64 = r
            .metrics
            .iter()
            .filter(|(s, n, _)| s == "mcp-streams" && n == "mcp.server.session.duration")
            .flat_map(|(_, _, p)| p.iter().map(|(_, c)| *c))
            .fold(0.0, f64::max);
        assert_eq!(sessions, 2.0);
    }
    handle.shutdown().await.unwrap();
}

/// Dropping the last `Telemetry` hands its exporters' flush to a thread of their own: a
/// collector that accepts and never answers (as one served by the dropping thread itself, a
/// Node or Python binding's in-process receiver) no longer stalls the caller for the
/// exporters' timeouts, and the pending span and metric are still posted after the drop.
#[test]
fn dropping_the_last_telemetry_does_not_wait_for_its_collector() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    // Accepts each connection, reads what is posted, and never answers.
    let (posted_tx, posted_rx) = std::sync::mpsc::channel::<usize>();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { break };
            let tx = posted_tx.clone();
            held.push(stream.try_clone().unwrap());
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                if let Ok(n) = std::io::Read::read(&mut stream, &mut buf) {
                    let _ = tx.send(n);
                }
                std::thread::sleep(Duration::from_secs(60));
            });
        }
    });
    let mut c = TelemetryConfig::default();
    c.service_name = Some("dropped".into());
    c.otlp_endpoint = Some(url);
    c.sampling = Sampling::AlwaysOn;
    c.otlp_timeout = Duration::from_secs(30);
    c.metric_export_interval = Duration::from_secs(3600);
    let t = Telemetry::new(c).unwrap();
    let mut span = t.tracer().expect("traces are on").start("pending work");
    span.end();
    t.meter().u64_counter("pending.count").build().add(1, &[]);

    let started = Instant::now();
    drop(t);
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(3),
        "dropping the last Telemetry waited {took:?} for a collector that never answers"
    );
    // The flush still happens, on the shutdown thread: the collector is posted to.
    let posted = posted_rx.recv_timeout(Duration::from_secs(20));
    assert!(
        matches!(posted, Ok(n) if n > 0),
        "the exporters posted nothing after the drop: {posted:?}"
    );
}

/// A caller that names its own span in `params._meta` (as a binding's client does: its span
/// lives in another language's SDK, not in the Rust context) gets a `CLIENT` span under that
/// span, in its trace with its `tracestate`, and the server span under the client span. A
/// malformed `traceparent` in `_meta` is replaced: the client
/// span starts a trace of its own and is still the server span's parent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_span_takes_its_parent_from_the_callers_meta() {
    let (otlp, got) = start_receiver().await;
    let server_t = telemetry("meta-server", &otlp);
    let client_t = telemetry("meta-client", &otlp);
    let seen = SeenParents::default();
    let srv = server(&server_t, seen.clone());
    let ((sr, sw), (cr, cw)) = ferromcp::transport::memory_pair(64);
    tokio::spawn(async move {
        let _ = srv.serve(sr, sw).await;
    });
    let mut options = ClientOptions::new("meta-client", "1");
    options.telemetry = Some(client_t.clone());
    let client = ferromcp::client::Client::connect(options, ClientHandlers::default(), cr, cw)
        .await
        .unwrap();
    let caller_trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    let caller_span = "00f067aa0ba902b7";
    let caller = format!("00-{caller_trace}-{caller_span}-01");
    let opts = ferromcp::session::RequestOptions::default();
    let params = json!({"name": "echo", "arguments": {"text": "a"}, "_meta": {
        "traceparent": caller, "tracestate": "rojo=00f067aa0ba902b7", "baggage": "tenant=acme"}});
    client
        .request("tools/call", Some(params), opts.clone())
        .await
        .unwrap();
    let params = json!({"name": "echo", "arguments": {"text": "b"},
        "_meta": {"traceparent": "00-zz-not-hex"}});
    client
        .request("tools/call", Some(params), opts)
        .await
        .unwrap();
    client.close().await;
    client_t.force_flush();
    server_t.force_flush();
    wait_for(&got, "client and server spans", |r| {
        find(r, "meta-client", "tools/call echo").len() == 2
            && find(r, "meta-server", "tools/call echo").len() == 2
    })
    .await;
    let r = got.lock().unwrap();
    let clients = find(&r, "meta-client", "tools/call echo");
    let servers = find(&r, "meta-server", "tools/call echo");
    let joined = clients
        .iter()
        .find(|c| hex(&c.parent_span_id) == caller_span)
        .expect("a client span's parent is the span the caller put in _meta");
    assert_eq!(hex(&joined.trace_id), caller_trace);
    assert_eq!(joined.kind, SpanKind::Client as i32);
    assert_eq!(joined.trace_state, "rojo=00f067aa0ba902b7");
    let joined_server = servers
        .iter()
        .find(|s| s.parent_span_id == joined.span_id)
        .expect("the server span's parent is the client span");
    assert_eq!(hex(&joined_server.trace_id), caller_trace);
    let other = clients
        .iter()
        .find(|c| c.span_id != joined.span_id)
        .unwrap();
    assert!(
        other.parent_span_id.is_empty(),
        "a malformed traceparent gives no parent"
    );
    assert_ne!(other.trace_id, joined.trace_id);
    assert!(
        servers.iter().any(|s| s.parent_span_id == other.span_id),
        "the malformed traceparent was replaced by the client span's"
    );
    // The handler saw the server span's context in its `_meta`.
    let seen = seen.lock().unwrap();
    assert!(seen.contains(&format!(
        "00-{caller_trace}-{}-01",
        hex(&joined_server.span_id)
    )));
}

/// What a client handler saw when its server asked: the method, the `traceparent` in its
/// context's `_meta`, the span current in its future (hex id) and the `tenant` baggage current
/// there.
type Asked = Arc<Mutex<Vec<(String, Option<String>, String, Option<String>)>>>;

/// Client handlers for the server's requests that record what they saw ([`Asked`]): sampling
/// answers, elicitation fails (`-32603`), roots lists one root.
fn asked_handlers(asked: Asked) -> ClientHandlers {
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
async fn serve_to_an_asked_client(
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

fn asking_server(t: &Telemetry) -> Server {
    use ferromcp::telemetry::opentelemetry::context::FutureExt as _;
    use ferromcp::telemetry::opentelemetry::trace::TraceContextExt as _;
    let tt = t.clone();
    Server::builder("otel-asking", "1")
        .middleware(t.server_layer())
        .tool("ask", "Asks the client", move |_: NoArgs, ctx| {
            let tt = tt.clone();
            async move {
                let tracer = tt.tracer().expect("spans are exported");
                let work = tracer.start_with_context("ask work", &Context::current());
                let work = Context::current_with_span(work);
                let message = json!({"messages": [{"role": "user",
                    "content": {"type": "text", "text": "hi"}}], "maxTokens": 5});
                let sampled = ctx
                    .request("sampling/createMessage", Some(message))
                    .with_context(work.clone())
                    .await;
                work.span().end();
                let elicited = ctx
                    .request(
                        "elicitation/create",
                        Some(json!({"message": "?", "requestedSchema":
                            {"type": "object", "properties": {}}})),
                    )
                    .await;
                let roots = ctx.request("roots/list", None).await;
                format!(
                    "sampled:{} elicited:{} roots:{}",
                    sampled.is_ok(),
                    elicited.map_err(|e| e.code).err().unwrap_or_default(),
                    roots.is_ok()
                )
            }
        })
        .build()
        .unwrap()
}

/// The requests a server sends its client (`sampling/createMessage`, `elicitation/create`,
/// `roots/list`) are traced on both sides, over Streamable HTTP: the server reports each as a
/// `CLIENT` span named `{mcp.method.name}` (with `mcp.method.name`, `mcp.session.id`,
/// `jsonrpc.request.id`), the child of the handler's span that sent it (its own `ask work`
/// span for the sampling request, else the request's `SERVER` span), and writes its context
/// into the request's `_meta`; the engine's client answers each under a `SERVER` span whose
/// parent is that `CLIENT` span, current in its handler and named in the handler's `_meta`.
/// A failed elicitation is an error on both sides (`error.type` `-32603`). Durations: the
/// server's `mcp.client.operation.duration`, the client's `mcp.server.operation.duration`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_a_server_sends_its_client_are_traced_on_both_sides() {
    let (otlp, got) = start_receiver().await;
    let server_t = telemetry("asking-server", &otlp);
    let client_t = telemetry("asked-client", &otlp);
    let (handle, client, asked) =
        serve_to_an_asked_client(asking_server(&server_t), "asked-client", &client_t).await;
    let r = client.call_tool("ask", json!({})).await.unwrap();
    assert_eq!(
        serde_json::to_value(&r).unwrap()["content"][0]["text"],
        "sampled:true elicited:-32603 roots:true"
    );

    // Durations on each side, by method and outcome.
    let server_text = server_t.prometheus_text().unwrap();
    let client_text = client_t.prometheus_text().unwrap();
    for method in ["sampling/createMessage", "elicitation/create", "roots/list"] {
        let label = format!("mcp_method_name=\"{method}\"");
        assert_eq!(
            sample(
                &server_text,
                "mcp_client_operation_duration_seconds_count",
                &[&label]
            ),
            Some(1.0),
            "{server_text}"
        );
        assert_eq!(
            sample(
                &client_text,
                "mcp_server_operation_duration_seconds_count",
                &[&label]
            ),
            Some(1.0),
            "{client_text}"
        );
    }
    assert!(
        server_text.lines().any(
            |l| l.starts_with("mcp_client_operation_duration_seconds_count{")
                && l.contains("mcp_method_name=\"elicitation/create\"")
                && l.contains("error_type=\"-32603\"")
        ),
        "{server_text}"
    );

    client.close().await;
    client_t.force_flush();
    server_t.force_flush();
    let methods = ["sampling/createMessage", "elicitation/create", "roots/list"];
    wait_for(&got, "both sides' spans of the server's requests", |r| {
        methods.iter().all(|m| {
            find(r, "asking-server", m).len() == 1 && find(r, "asked-client", m).len() == 1
        }) && find(r, "asking-server", "ask work").len() == 1
    })
    .await;
    handle.shutdown().await.unwrap();
    let r = got.lock().unwrap();
    let call = find(&r, "asking-server", "tools/call ask")[0];
    let work = find(&r, "asking-server", "ask work")[0];
    assert_eq!(work.parent_span_id, call.span_id);
    let session = text_attr(&call.attributes, "mcp.session.id").expect("an HTTP session");
    let asked = asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 3, "{asked:?}");
    for method in methods {
        let sent = find(&r, "asking-server", method)[0];
        let answered = find(&r, "asked-client", method)[0];
        // The server's side: a CLIENT span under the handler's span that sent it.
        assert_eq!(sent.kind, SpanKind::Client as i32, "{method}");
        assert_eq!(sent.trace_id, call.trace_id, "{method}");
        let parent = if method == "sampling/createMessage" {
            work
        } else {
            call
        };
        assert_eq!(sent.parent_span_id, parent.span_id, "{method}");
        for (key, want) in [
            ("mcp.method.name", method),
            ("mcp.session.id", session.as_str()),
        ] {
            assert_eq!(
                text_attr(&sent.attributes, key).as_deref(),
                Some(want),
                "{method} {key}"
            );
        }
        assert!(
            text_attr(&sent.attributes, "jsonrpc.request.id").is_some(),
            "{method}"
        );
        // The client's side: a SERVER span under it, current in the handler and named in
        // the handler's `_meta`.
        assert_eq!(answered.kind, SpanKind::Server as i32, "{method}");
        assert_eq!(answered.trace_id, sent.trace_id, "{method}");
        assert_eq!(answered.parent_span_id, sent.span_id, "{method}");
        assert_eq!(
            text_attr(&answered.attributes, "mcp.method.name").as_deref(),
            Some(method)
        );
        let (_, seen_parent, seen_span, _) = asked.iter().find(|a| a.0 == method).unwrap();
        assert_eq!(
            seen_parent.as_deref(),
            Some(
                format!(
                    "00-{}-{}-01",
                    hex(&answered.trace_id),
                    hex(&answered.span_id)
                )
                .as_str()
            ),
            "{method}"
        );
        assert_eq!(*seen_span, hex(&answered.span_id), "{method}");
        let failed = method == "elicitation/create";
        for s in [sent, answered] {
            let status = s.status.as_ref().map(|s| s.code).unwrap_or_default();
            assert_eq!(
                status == StatusCode::Error as i32,
                failed,
                "{method}: {}",
                s.name
            );
            assert_eq!(
                text_attr(&s.attributes, "error.type").as_deref(),
                failed.then_some("-32603"),
                "{method}"
            );
        }
    }
}

/// `baggage` a caller puts in a request's `_meta` (W3C Baggage, beside its `traceparent`)
/// reaches the handler: a Rust handler reads it from its current OpenTelemetry context, a
/// handler in another language from its context's `_meta` (rewritten by the layer, still
/// carrying it), and it travels on with the request the handler sends its client, whose
/// handler reads it from its own current context. The same without a caller's span: baggage
/// alone in `_meta` goes with the engine client's own span.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn baggage_in_meta_reaches_the_handler_and_the_requests_it_sends() {
    use ferromcp::telemetry::opentelemetry::baggage::BaggageExt as _;
    let (otlp, _got) = start_receiver().await;
    let server_t = telemetry("baggage-server", &otlp);
    let client_t = telemetry("baggage-client", &otlp);
    // What the handler saw: the tenant in its current context, `_meta`'s baggage.
    type SeenBaggage = Arc<Mutex<Vec<(Option<String>, Option<String>)>>>;
    let seen = SeenBaggage::default();
    let s = seen.clone();
    let srv = Server::builder("otel-baggage", "1")
        .middleware(server_t.server_layer())
        .tool("whoami", "Reads the baggage", move |_: NoArgs, ctx| {
            let s = s.clone();
            async move {
                let tenant = Context::current()
                    .baggage()
                    .get("tenant")
                    .map(|v| v.as_str().to_string());
                let meta = ctx
                    .meta()
                    .and_then(|m| m.get("baggage"))
                    .and_then(|v| v.as_str())
                    .map(str::to_string);
                s.lock().unwrap().push((tenant.clone(), meta));
                ctx.request("roots/list", None).await.unwrap();
                tenant.unwrap_or_default()
            }
        })
        .build()
        .unwrap();
    let ((sr, sw), (cr, cw)) = ferromcp::transport::memory_pair(64);
    tokio::spawn(async move {
        let _ = srv.serve(sr, sw).await;
    });
    let asked = Asked::default();
    let mut options = ClientOptions::new("baggage-client", "1");
    options.telemetry = Some(client_t.clone());
    let client = ferromcp::client::Client::connect(options, asked_handlers(asked.clone()), cr, cw)
        .await
        .unwrap();
    let opts = ferromcp::session::RequestOptions::default();
    let caller = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    for meta in [
        json!({"traceparent": caller, "baggage": "tenant=acme,plan=gold"}),
        json!({"baggage": "tenant=acme,plan=gold"}),
    ] {
        let r = client
            .request(
                "tools/call",
                Some(json!({"name": "whoami", "arguments": {}, "_meta": meta})),
                opts.clone(),
            )
            .await
            .unwrap();
        assert_eq!(r["content"][0]["text"], "acme", "{meta}");
    }
    client.close().await;
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2);
    for (tenant, meta) in seen {
        assert_eq!(tenant.as_deref(), Some("acme"));
        let meta = meta.expect("the handler's _meta carries the baggage");
        let mut members: Vec<&str> = meta.split(',').map(str::trim).collect();
        members.sort_unstable();
        assert_eq!(members, ["plan=gold", "tenant=acme"], "{meta}");
    }
    let asked = asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 2, "{asked:?}");
    for (method, _, _, tenant) in asked {
        assert_eq!(method, "roots/list");
        assert_eq!(
            tenant.as_deref(),
            Some("acme"),
            "the client's handler reads it too"
        );
    }
}

/// `mcp.server.session.duration` of sessions served over a message transport, which the
/// layer records itself (no `observe_http_server` for them): a WebSocket session (a real
/// `WebSocketListener` and client) is recorded when the client hangs up, with
/// `network.transport` `tcp` and `network.protocol.name` `websocket` and the negotiated
/// revision; an in-memory session with the revision alone. Nothing is recorded while the
/// sessions are open.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_over_websocket_and_in_memory_record_their_duration() {
    let (otlp, _got) = start_receiver().await;
    let t = telemetry("ws-sessions", &otlp);
    let server = Server::builder("otel-ws", "1")
        .middleware(t.server_layer())
        .build()
        .unwrap();
    const SESSIONS: &str = "mcp_server_session_duration_seconds_count";

    // WebSocket.
    let mut listener = ferromcp::transport::WebSocketListener::bind("127.0.0.1:0")
        .await
        .unwrap();
    let url = format!("ws://{}", listener.local_addr());
    let srv = server.clone();
    let serving = tokio::spawn(async move {
        let (reader, writer, _) = listener.accept().await.unwrap();
        srv.serve(reader, writer).await
    });
    let (reader, writer) = ferromcp::transport::websocket::connect(&url, &[])
        .await
        .unwrap();
    let client = ferromcp::client::Client::connect(
        ClientOptions::new("ws-client", "1"),
        ClientHandlers::default(),
        reader,
        writer,
    )
    .await
    .unwrap();
    let version = client.protocol_version().as_str().to_string();
    client.ping().await.unwrap();
    let m = t.prometheus_text().unwrap();
    assert_eq!(sample(&m, SESSIONS, &[]), None, "still open:\n{m}");
    client.close().await;
    // Its end, whatever the transport says of the hang-up.
    let _ = serving.await.unwrap();
    let m = t.prometheus_text().unwrap();
    let ws = [
        format!("mcp_protocol_version=\"{version}\""),
        "network_transport=\"tcp\"".to_string(),
        "network_protocol_name=\"websocket\"".to_string(),
    ];
    let ws: Vec<&str> = ws.iter().map(String::as_str).collect();
    assert_eq!(sample(&m, SESSIONS, &ws), Some(1.0), "{m}");

    // In memory: no network attributes.
    let ((sr, sw), (cr, cw)) = ferromcp::transport::memory_pair(16);
    let srv = server.clone();
    let serving = tokio::spawn(async move { srv.serve(sr, sw).await });
    let client = ferromcp::client::Client::connect(
        ClientOptions::new("memory-client", "1"),
        ClientHandlers::default(),
        cr,
        cw,
    )
    .await
    .unwrap();
    client.close().await;
    // Its end, whatever the transport says of the hang-up.
    let _ = serving.await.unwrap();
    let m = t.prometheus_text().unwrap();
    let memory = m
        .lines()
        .find(|l| l.starts_with(&format!("{SESSIONS}{{")) && !l.contains("network_transport"))
        .unwrap_or_else(|| panic!("no in-memory session:\n{m}"));
    assert!(
        memory.contains(&format!("mcp_protocol_version=\"{version}\"")) && memory.ends_with(" 1"),
        "{memory}"
    );
}

/// An endpoint served by a router in an app of the user's own (`router_with_gauges`, as a
/// binding's host-framework handler is) is measured with `observe_http_router`: its live
/// sessions and open SSE streams, and each session's duration when it ends (the client's
/// DELETE), with `network.transport` `tcp` and `network.protocol.name` `http`; no connections
/// series (the app's server owns them).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_router_in_a_users_app_is_measured_with_observe_http_router() {
    let (otlp, _got) = start_receiver().await;
    let t = telemetry("routed", &otlp);
    let server = Server::builder("otel-routed", "1")
        .middleware(t.server_layer())
        .build()
        .unwrap();
    let (router, gauges) =
        ferromcp::transport::http::router_with_gauges(server, HttpServerOptions::default());
    t.observe_http_router(&gauges);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let app = tokio::spawn(async move { axum::serve(listener, router).await });
    let client = connect(
        &url,
        ClientOptions::new("routed-client", "1"),
        ClientHandlers::default(),
        HttpClientOptions::default(),
    )
    .await
    .unwrap();
    let version = client.protocol_version().as_str().to_string();
    let m = t.prometheus_text().unwrap();
    assert_eq!(
        sample(&m, "ferromcp_server_sessions", &[]),
        Some(1.0),
        "{m}"
    );
    assert_eq!(gauges.stats().live_sessions, 1);
    assert!(
        sample(
            &m,
            "ferromcp_server_sse_streams",
            &["ferromcp_stream_kind=\"get\""]
        )
        .is_some(),
        "{m}"
    );
    assert!(!m.contains("ferromcp_server_connections"), "{m}");
    assert_eq!(
        sample(&m, "mcp_server_session_duration_seconds_count", &[]),
        None,
        "{m}"
    );
    client.close().await;
    let deadline = Instant::now() + Duration::from_secs(10);
    let m = loop {
        let m = t.prometheus_text().unwrap();
        if sample(&m, "mcp_server_session_duration_seconds_count", &[]).is_some()
            || Instant::now() > deadline
        {
            break m;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(
        sample(
            &m,
            "mcp_server_session_duration_seconds_count",
            &[
                &format!("mcp_protocol_version=\"{version}\""),
                "network_transport=\"tcp\"",
                "network_protocol_name=\"http\""
            ]
        ),
        Some(1.0),
        "{m}"
    );
    assert_eq!(
        sample(&m, "ferromcp_server_sessions", &[]),
        Some(0.0),
        "{m}"
    );
    app.abort();
}

/// A server whose tools ask their client `roots/list`: `peer_ask` through the session's peer
/// (`ctx.peer().request`, not the context's helper), `ctx_ask` through the context
/// (`ctx.request`, the typed helpers' way); each answers how it went.
fn roots_asking_server(t: &Telemetry) -> Server {
    use ferromcp::session::RequestOptions;
    Server::builder("otel-roots-asking", "1")
        .middleware(t.server_layer())
        .tool(
            "peer_ask",
            "Asks through the session's peer",
            |_: NoArgs, ctx| async move {
                let roots = ctx
                    .peer()
                    .request("roots/list", None, RequestOptions::default())
                    .await;
                format!("roots:{}", roots.is_ok())
            },
        )
        .tool(
            "ctx_ask",
            "Asks through the context",
            |_: NoArgs, ctx| async move {
                let roots = ctx.request("roots/list", None).await;
                format!("roots:{}", roots.is_ok())
            },
        )
        .build()
        .unwrap()
}

/// Every request sent on a session is traced as the typed helpers' are (one sending path,
/// `Peer`'s): over Streamable HTTP, a handler's `roots/list` through `ctx.peer().request` is a
/// `CLIENT` span under the tool's `SERVER` span; the server's push of `roots/list` to the
/// session from outside any handler is one starting a trace of its own; the client's raw
/// `tools/list` through its peer (no span current) and its `initialize` are `CLIENT` spans too. Each
/// has `mcp.method.name` and `jsonrpc.request.id` (the server's spans `mcp.session.id`), its
/// context is written into the request's `_meta` (the receiver's `SERVER` span is its child)
/// and its duration is the sender's `mcp.client.operation.duration`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_sent_through_the_peer_or_outside_a_handler_are_traced() {
    use ferromcp::session::RequestOptions;
    let (otlp, got) = start_receiver().await;
    let server_t = telemetry("peer-server", &otlp);
    let client_t = telemetry("peer-client", &otlp);
    let srv = roots_asking_server(&server_t);
    let (handle, client, _asked) =
        serve_to_an_asked_client(srv.clone(), "peer-client", &client_t).await;
    let r = client.call_tool("peer_ask", json!({})).await.unwrap();
    assert_eq!(
        serde_json::to_value(&r).unwrap()["content"][0]["text"],
        "roots:true"
    );
    let sessions = srv.live_sessions();
    assert_eq!(sessions.len(), 1);
    let pushed = sessions[0]
        .peer()
        .request("roots/list", None, RequestOptions::default())
        .await
        .unwrap();
    assert_eq!(pushed["roots"][0]["uri"], "file:///work");
    client
        .peer()
        .request("tools/list", None, RequestOptions::default())
        .await
        .unwrap();

    let server_text = server_t.prometheus_text().unwrap();
    let client_text = client_t.prometheus_text().unwrap();
    let sent = "mcp_client_operation_duration_seconds_count";
    let roots = "mcp_method_name=\"roots/list\"";
    assert_eq!(
        sample(&server_text, sent, &[roots]),
        Some(2.0),
        "{server_text}"
    );
    for method in ["tools/list", "initialize"] {
        let label = format!("mcp_method_name=\"{method}\"");
        assert_eq!(
            sample(&client_text, sent, &[&label]),
            Some(1.0),
            "{client_text}"
        );
    }
    let answered = "mcp_server_operation_duration_seconds_count";
    assert_eq!(
        sample(&client_text, answered, &[roots]),
        Some(2.0),
        "{client_text}"
    );

    client.close().await;
    client_t.force_flush();
    server_t.force_flush();
    wait_for(&got, "both sides' spans of the peer's requests", |r| {
        find(r, "peer-server", "roots/list").len() == 2
            && find(r, "peer-client", "roots/list").len() == 2
            && ["tools/list", "initialize"].iter().all(|m| {
                find(r, "peer-client", m).len() == 1 && find(r, "peer-server", m).len() == 1
            })
    })
    .await;
    handle.shutdown().await.unwrap();
    let r = got.lock().unwrap();
    let call = find(&r, "peer-server", "tools/call peer_ask")[0];
    let session = text_attr(&call.attributes, "mcp.session.id").expect("an HTTP session");
    let sent = find(&r, "peer-server", "roots/list");
    let in_handler = sent
        .iter()
        .find(|s| s.trace_id == call.trace_id)
        .expect("the handler's request is in the tool call's trace");
    assert_eq!(
        in_handler.parent_span_id, call.span_id,
        "the handler's request is the child of its span"
    );
    let pushed = sent
        .iter()
        .find(|s| s.span_id != in_handler.span_id)
        .unwrap();
    assert!(
        pushed.parent_span_id.is_empty(),
        "a push outside any handler starts a trace"
    );
    assert_ne!(pushed.trace_id, call.trace_id);
    for s in &sent {
        assert_eq!(s.kind, SpanKind::Client as i32);
        assert_eq!(
            text_attr(&s.attributes, "mcp.method.name").as_deref(),
            Some("roots/list")
        );
        assert_eq!(
            text_attr(&s.attributes, "mcp.session.id").as_deref(),
            Some(session.as_str())
        );
        assert!(text_attr(&s.attributes, "jsonrpc.request.id").is_some());
        let answered = find(&r, "peer-client", "roots/list")
            .into_iter()
            .find(|a| a.parent_span_id == s.span_id)
            .expect("the client answers under the server's CLIENT span");
        assert_eq!(answered.trace_id, s.trace_id);
        assert_eq!(answered.kind, SpanKind::Server as i32);
    }
    for method in ["tools/list", "initialize"] {
        let sent = find(&r, "peer-client", method)[0];
        assert_eq!(sent.kind, SpanKind::Client as i32, "{method}");
        assert!(
            sent.parent_span_id.is_empty(),
            "{method}: no span was current"
        );
        let id = text_attr(&sent.attributes, "jsonrpc.request.id");
        assert!(id.is_some(), "{method}");
        let served = find(&r, "peer-server", method)[0];
        assert_eq!(served.parent_span_id, sent.span_id, "{method}");
        assert_eq!(
            text_attr(&served.attributes, "jsonrpc.request.id"),
            id,
            "{method}: the same request"
        );
    }
}

/// The engine client's span of a call names the id of the request it sent
/// (`jsonrpc.request.id`, as the server's span of it does), for a call under a caller's span
/// and for one without.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_span_names_its_requests_id() {
    let (otlp, got) = start_receiver().await;
    let server_t = telemetry("id-server", &otlp);
    let client_t = telemetry("id-client", &otlp);
    let srv = server(&server_t, SeenParents::default());
    let ((sr, sw), (cr, cw)) = ferromcp::transport::memory_pair(64);
    tokio::spawn(async move {
        let _ = srv.serve(sr, sw).await;
    });
    let mut options = ClientOptions::new("id-client", "1");
    options.telemetry = Some(client_t.clone());
    let client = ferromcp::client::Client::connect(options, ClientHandlers::default(), cr, cw)
        .await
        .unwrap();
    client
        .call_tool("echo", json!({"text": "a"}))
        .await
        .unwrap();
    let params = json!({"name": "echo", "arguments": {"text": "b"}, "_meta": {
        "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}});
    client
        .request(
            "tools/call",
            Some(params),
            ferromcp::session::RequestOptions::default(),
        )
        .await
        .unwrap();
    client.close().await;
    client_t.force_flush();
    server_t.force_flush();
    wait_for(&got, "both calls' spans", |r| {
        find(r, "id-client", "tools/call echo").len() == 2
            && find(r, "id-server", "tools/call echo").len() == 2
    })
    .await;
    let r = got.lock().unwrap();
    let servers = find(&r, "id-server", "tools/call echo");
    for sent in find(&r, "id-client", "tools/call echo") {
        let id = text_attr(&sent.attributes, "jsonrpc.request.id");
        assert!(id.is_some(), "the client span names its request's id");
        let served = servers
            .iter()
            .find(|s| s.parent_span_id == sent.span_id)
            .unwrap();
        assert_eq!(text_attr(&served.attributes, "jsonrpc.request.id"), id);
    }
}

/// A request a handler sends its client while serving a request that is not sampled records
/// its duration (`mcp.client.operation.duration`), through the context and through the
/// session's peer alike (before, only one sent while serving a sampled request did).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_sent_while_serving_an_unsampled_request_records_its_duration() {
    let (otlp, _got) = start_receiver().await;
    let mut c = TelemetryConfig::default();
    c.service_name = Some("quiet-asker".into());
    c.otlp_endpoint = Some(otlp);
    c.sampling = Sampling::Ratio(0.0);
    c.prometheus = true;
    c.metric_export_interval = Duration::from_secs(3600);
    let t = Telemetry::new(c).unwrap();
    let srv = roots_asking_server(&t);
    let ((sr, sw), (cr, cw)) = ferromcp::transport::memory_pair(64);
    tokio::spawn(async move {
        let _ = srv.serve(sr, sw).await;
    });
    let client = ferromcp::client::Client::connect(
        ClientOptions::new("plain-client", "1"),
        asked_handlers(Asked::default()),
        cr,
        cw,
    )
    .await
    .unwrap();
    for tool in ["ctx_ask", "peer_ask"] {
        let r = client.call_tool(tool, json!({})).await.unwrap();
        assert_eq!(
            serde_json::to_value(&r).unwrap()["content"][0]["text"],
            "roots:true",
            "{tool}"
        );
    }
    let text = t.prometheus_text().unwrap();
    assert_eq!(
        sample(
            &text,
            "mcp_client_operation_duration_seconds_count",
            &["mcp_method_name=\"roots/list\""]
        ),
        Some(2.0),
        "{text}"
    );
    client.close().await;
}

/// A server whose `report` tool sends its client a progress notification and a log message
/// (through its context: the notifications of the request it serves).
fn notifying_server(t: &Telemetry) -> Server {
    Server::builder("otel-notifying", "1")
        .middleware(t.server_layer())
        .tool("report", "Reports progress", |_: NoArgs, ctx| async move {
            ctx.progress(1.0, Some(2.0), Some("half")).await.unwrap();
            ctx.log("info", Some("report"), json!("working"))
                .await
                .unwrap();
            "reported"
        })
        .tool(
            "other",
            "Listed, then removed",
            |_: NoArgs, _ctx| async move { "other" },
        )
        .build()
        .unwrap()
}

/// A `traceparent` as the span `s` writes it into `_meta` when sampled.
fn traceparent_of(s: &Span) -> String {
    format!("00-{}-{}-01", hex(&s.trace_id), hex(&s.span_id))
}

/// Notifications are traced on both sides (one path, the session's): over Streamable HTTP, the
/// progress and log message a sampled `tools/call`'s handler sends are `CLIENT` spans under
/// the call's `SERVER` span, their context in `params._meta` (the client's progress callback
/// sees it), and the client handles each under a `SERVER` span, their child; those of a call
/// whose trace is not sampled get no span and no `traceparent`. The server's
/// `tools/list_changed` pushed outside any request starts a trace of its own, and the client's
/// `initialized` and `roots/list_changed` are `CLIENT` spans the server's `SERVER` spans are
/// children of. Each span is named `{mcp.method.name}` and carries `mcp.method.name` and, on
/// the server's side, `mcp.session.id`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notifications_are_traced_on_both_sides() {
    use ferromcp::session::RequestOptions;
    let (otlp, got) = start_receiver().await;
    let server_t = telemetry("notifying-server", &otlp);
    let client_t = telemetry("notified-client", &otlp);
    let srv = notifying_server(&server_t);
    let (handle, client, _asked) =
        serve_to_an_asked_client(srv.clone(), "notified-client", &client_t).await;
    let progress: Arc<Mutex<Vec<serde_json::Value>>> = Arc::default();
    let p = progress.clone();
    let opts = || {
        let p = p.clone();
        RequestOptions::default().with_on_progress(Some(Arc::new(move |v| {
            p.lock().unwrap().push(v);
        })))
    };
    let r = client
        .call_tool_with("report", json!({}), opts())
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&r).unwrap()["content"][0]["text"],
        "reported"
    );
    // Under a caller's trace that is not sampled: nothing traced, nothing in `_meta`.
    let unsampled = json!({"name": "report", "arguments": {}, "_meta": {
        "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"}});
    client
        .request("tools/call", Some(unsampled), opts())
        .await
        .unwrap();
    assert!(srv.remove_tool("other"));
    client.notify_roots_list_changed().await.unwrap();
    let progress = progress.lock().unwrap().clone();
    assert_eq!(progress.len(), 2, "{progress:?}");
    assert!(
        progress[1].get("_meta").is_none(),
        "an unsampled call's progress carries no trace context: {progress:?}"
    );

    let sent = [
        "notifications/progress",
        "notifications/message",
        "notifications/tools/list_changed",
    ];
    let from_client = [
        "notifications/initialized",
        "notifications/roots/list_changed",
    ];
    wait_for(&got, "both sides' spans of the notifications", |r| {
        sent.iter().all(|m| {
            find(r, "notifying-server", m).len() == 1 && find(r, "notified-client", m).len() == 1
        }) && from_client.iter().all(|m| {
            find(r, "notified-client", m).len() == 1 && find(r, "notifying-server", m).len() == 1
        })
    })
    .await;
    // Nothing more arrives for the unsampled call's notifications.
    client.close().await;
    client_t.force_flush();
    server_t.force_flush();
    tokio::time::sleep(Duration::from_millis(300)).await;
    handle.shutdown().await.unwrap();
    let r = got.lock().unwrap();
    let calls = find(&r, "notifying-server", "tools/call report");
    assert_eq!(calls.len(), 1, "the unsampled call has no span");
    let call = calls[0];
    let session = text_attr(&call.attributes, "mcp.session.id").expect("an HTTP session");
    for method in sent.iter().chain(&from_client) {
        let (sender, receiver) = if from_client.contains(method) {
            ("notified-client", "notifying-server")
        } else {
            ("notifying-server", "notified-client")
        };
        let spans = find(&r, sender, method);
        assert_eq!(
            spans.len(),
            1,
            "{method}: one span (the unsampled call's has none)"
        );
        let out = spans[0];
        assert_eq!(out.kind, SpanKind::Client as i32, "{method}");
        let handled = find(&r, receiver, method);
        assert_eq!(handled.len(), 1, "{method}");
        let handled = handled[0];
        assert_eq!(handled.kind, SpanKind::Server as i32, "{method}");
        assert_eq!(handled.trace_id, out.trace_id, "{method}");
        assert_eq!(handled.parent_span_id, out.span_id, "{method}");
        for s in [out, handled] {
            assert_eq!(
                text_attr(&s.attributes, "mcp.method.name").as_deref(),
                Some(*method),
                "{method}"
            );
            assert!(
                text_attr(&s.attributes, "jsonrpc.request.id").is_none(),
                "{method}: a notification has no id"
            );
        }
        let on_server = if sender == "notifying-server" {
            out
        } else {
            handled
        };
        assert_eq!(
            text_attr(&on_server.attributes, "mcp.session.id").as_deref(),
            Some(session.as_str()),
            "{method}"
        );
        match *method {
            // Sent for the call: under its span.
            "notifications/progress" | "notifications/message" => {
                assert_eq!(out.trace_id, call.trace_id, "{method}");
                assert_eq!(out.parent_span_id, call.span_id, "{method}");
            }
            // Sent outside any request and outside any span: a trace of its own.
            _ => {
                assert!(out.parent_span_id.is_empty(), "{method}");
                assert_ne!(out.trace_id, call.trace_id, "{method}");
            }
        }
    }
    // The client's progress callback saw the server span's context in `_meta`.
    let progress_span = find(&r, "notifying-server", "notifications/progress")[0];
    assert_eq!(
        progress[0]["_meta"]["traceparent"].as_str(),
        Some(traceparent_of(progress_span).as_str()),
        "{progress:?}"
    );
}

/// `ping`, which the session answers itself (no middleware sees it), is traced and timed as
/// the other requests: the client's `ping` is the parent of the server's `SERVER` span of it
/// (the same `jsonrpc.request.id`), whose duration is the server's
/// `mcp.server.operation.duration`; and the server's `ping` to its client is answered under
/// the client's `SERVER` span, the child of the server's `CLIENT` span.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ping_gets_a_server_span_on_each_side() {
    use ferromcp::session::RequestOptions;
    let (otlp, got) = start_receiver().await;
    let server_t = telemetry("pinged-server", &otlp);
    let client_t = telemetry("pinged-client", &otlp);
    let srv = server(&server_t, SeenParents::default());
    let (handle, client, _asked) =
        serve_to_an_asked_client(srv.clone(), "pinged-client", &client_t).await;
    client.ping().await.unwrap();
    let sessions = srv.live_sessions();
    assert_eq!(sessions.len(), 1);
    sessions[0]
        .peer()
        .request("ping", None, RequestOptions::default())
        .await
        .unwrap();
    let server_text = server_t.prometheus_text().unwrap();
    let client_text = client_t.prometheus_text().unwrap();
    let answered = "mcp_server_operation_duration_seconds_count";
    for text in [&server_text, &client_text] {
        assert_eq!(
            sample(text, answered, &["mcp_method_name=\"ping\""]),
            Some(1.0),
            "{text}"
        );
    }
    client.close().await;
    client_t.force_flush();
    server_t.force_flush();
    wait_for(&got, "both sides' ping spans", |r| {
        ["pinged-server", "pinged-client"]
            .iter()
            .all(|s| find(r, s, "ping").len() == 2)
    })
    .await;
    handle.shutdown().await.unwrap();
    let r = got.lock().unwrap();
    for (sender, receiver) in [
        ("pinged-client", "pinged-server"),
        ("pinged-server", "pinged-client"),
    ] {
        let sent = find(&r, sender, "ping")
            .into_iter()
            .find(|s| s.kind == SpanKind::Client as i32)
            .unwrap_or_else(|| panic!("{sender}: a CLIENT span of its ping"));
        let served = find(&r, receiver, "ping")
            .into_iter()
            .find(|s| s.kind == SpanKind::Server as i32)
            .unwrap_or_else(|| panic!("{receiver}: a SERVER span of the ping it answered"));
        assert_eq!(served.trace_id, sent.trace_id, "{sender}");
        assert_eq!(served.parent_span_id, sent.span_id, "{sender}");
        let id = text_attr(&sent.attributes, "jsonrpc.request.id");
        assert!(id.is_some(), "{sender}");
        assert_eq!(
            text_attr(&served.attributes, "jsonrpc.request.id"),
            id,
            "{sender}: the same request"
        );
        assert_eq!(
            text_attr(&served.attributes, "mcp.method.name").as_deref(),
            Some("ping")
        );
    }
}
