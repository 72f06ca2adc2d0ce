//! The engine client's `CLIENT` spans: their parent taken from the caller's `_meta`, and the
//! request id they name.

use crate::common::*;
use ferromcp::client::{ClientHandlers, ClientOptions};
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use serde_json::json;

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
