//! Requests a server sends its client (`sampling/createMessage`, `elicitation/create`,
//! `roots/list`), from a handler, through the session's peer or outside any handler: spans on
//! both sides, and durations when the request served is not sampled.

use crate::common::*;
use ferromcp::client::ClientOptions;
use ferromcp::server::Server;
use ferromcp::telemetry::opentelemetry::trace::Tracer as _;
use ferromcp::telemetry::opentelemetry::Context;
use ferromcp::telemetry::{Sampling, Telemetry, TelemetryConfig};
use opentelemetry_proto::tonic::trace::v1::{span::SpanKind, status::StatusCode};
use serde_json::json;
use std::time::Duration;

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
