//! A client and a server, each with its own telemetry, end to end: the server span's parent
//! is the client's, a handler's own span its child, the names and attributes are the MCP
//! semantic conventions', errors and malformed trace contexts, the metrics over OTLP and on
//! `/metrics`.

use crate::common::*;
use crate::common_http::{post, send, JSON_SSE};
use ferromcp::client::http::connect;
use ferromcp::client::{ClientHandlers, ClientOptions};
use ferromcp::transport::http::{serve_http, HttpClientOptions, HttpServerOptions};
use opentelemetry_proto::tonic::trace::v1::{span::SpanKind, status::StatusCode};
use serde_json::json;

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
