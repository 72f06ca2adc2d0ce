//! W3C baggage a caller sends in `_meta`: read by the handler and carried on in the requests it
//! sends its client.

use crate::common::*;
use ferromcp::client::ClientOptions;
use ferromcp::server::Server;
use ferromcp::telemetry::opentelemetry::Context;
use serde_json::json;
use std::sync::{Arc, Mutex};

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
