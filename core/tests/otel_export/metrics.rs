//! The server's gauges and session durations: open SSE streams and sessions over Streamable
//! HTTP, WebSocket and in memory, a router mounted in a user's app; and dropping the last
//! telemetry without waiting for its collector.

use crate::common::*;
use crate::common_http::{init_session, post, send};
use bytes::Bytes;
use ferromcp::client::http::connect;
use ferromcp::client::{ClientHandlers, ClientOptions};
use ferromcp::server::Server;
use ferromcp::telemetry::opentelemetry::trace::{Span as _, Tracer as _};
use ferromcp::telemetry::{Sampling, Telemetry, TelemetryConfig};
use ferromcp::transport::http::{serve_http, HttpClientOptions, HttpServerOptions};
use http_body_util::Full;
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};

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
    let get = crate::common_http::client().request(get).await.unwrap();
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
