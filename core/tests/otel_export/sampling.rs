//! A server whose root sampler samples nothing: unsampled requests get no span and still
//! record their duration (also when cancelled); a sampled parent is still followed.

use crate::common::*;
use crate::common_http::{init_session, post, send};
use ferromcp::server::Server;
use ferromcp::telemetry::opentelemetry::Context;
use ferromcp::telemetry::{Sampling, Telemetry, TelemetryConfig};
use ferromcp::transport::http::{serve_http, HttpServerOptions};
use opentelemetry_proto::tonic::trace::v1::Span;
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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
