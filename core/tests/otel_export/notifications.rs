//! Notifications and `ping`, traced on both sides.

use crate::common::*;
use ferromcp::server::Server;
use ferromcp::telemetry::Telemetry;
use opentelemetry_proto::tonic::trace::v1::{span::SpanKind, Span};
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::Duration;

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
