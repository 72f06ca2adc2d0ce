//! A Streamable HTTP server of the per-request era only (`supported_versions` without any
//! handshake-era revision) has no sessions, and answers the traffic of older clients as
//! 2026-07-28 asks ("Backward Compatibility"): GET and DELETE on the endpoint are 405 with
//! `Allow: POST` (no GET stream, no session to delete), an `Mcp-Session-Id` on a request is
//! ignored and none is minted, and the 2024-11-05 HTTP+SSE endpoints are not served. A server of
//! both eras keeps its sessions, its GET stream and its DELETE.

use crate::common_http;
use crate::common_modern;

use common_http::{init_session, send, JSON_SSE};
use common_modern::{answer, headers_for, post_with, request, with_header};
use ferromcp::protocol::{CallToolResult, Tool};
use ferromcp::server::{tool_fn, Server};
use ferromcp::transport::http::{serve_http, HttpServerHandle, HttpServerOptions};
use serde_json::json;

async fn serve(per_request_only: bool) -> (HttpServerHandle, String) {
    let server = Server::builder("eras", "1.0")
        .options(move |o| {
            if per_request_only {
                o.session.supported_versions.retain(|v| v.is_per_request());
            }
        })
        .tool_raw(
            Tool::new("echo"),
            tool_fn(|_, _| async move { Ok(CallToolResult::text("echoed")) }),
        )
        .build()
        .unwrap();
    // The defaults: GET stream offered, legacy HTTP+SSE endpoints on.
    let h = serve_http(server, "127.0.0.1:0", HttpServerOptions::default())
        .await
        .unwrap();
    let url = h.url("/mcp");
    (h, url)
}

const SSE: [(&str, &str); 2] = [
    ("accept", "text/event-stream"),
    ("mcp-protocol-version", "2025-11-25"),
];

#[tokio::test]
async fn get_and_delete_are_405_and_session_ids_are_ignored() {
    let (h, url) = serve(true).await;
    let with_sid = [SSE[0], SSE[1], ("mcp-session-id", "a-session-of-old")];
    for (method, headers) in [
        ("GET", &SSE[..]),
        ("GET", &with_sid[..]),
        ("DELETE", &with_sid[..]),
        ("DELETE", &[][..]),
    ] {
        let r = send(method, &url, headers, "").await;
        assert_eq!(r.status, 405, "{method} {headers:?}: {}", r.body);
        assert_eq!(
            r.headers.get("allow").and_then(|v| v.to_str().ok()),
            Some("POST"),
            "{method}"
        );
    }
    // Another method: the same `Allow`.
    let r = send("PUT", &url, &JSON_SSE, "{}").await;
    assert_eq!(
        (r.status, r.headers.get("allow").unwrap().to_str().unwrap()),
        (405, "POST")
    );

    // A per-request call carrying a session id (and a Last-Event-ID) is served as without.
    let call = request(7, "tools/call", json!({ "name": "echo", "arguments": {} }));
    let headers = with_header(
        headers_for(&call),
        "mcp-session-id",
        Some("a-session-of-old"),
    );
    let headers = with_header(headers, "last-event-id", Some("s1:3"));
    let r = post_with(&url, &headers, &call).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        answer(&r)["result"]["content"][0]["text"],
        "echoed",
        "{}",
        r.body
    );
    assert!(
        r.headers.get("mcp-session-id").is_none(),
        "no session id is minted or echoed"
    );

    // The 2024-11-05 endpoints are not served: no session opens.
    let r = send(
        "GET",
        &h.url("/sse"),
        &[("accept", "text/event-stream")],
        "",
    )
    .await;
    assert_eq!(r.status, 404, "{}", r.body);
    let r = send("POST", &h.url("/messages?sessionId=x"), &JSON_SSE, "{}").await;
    assert_eq!(r.status, 404, "{}", r.body);
    h.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_server_of_both_eras_keeps_its_sessions() {
    let (h, url) = serve(false).await;
    // GET without a session: asks for one (not 405).
    let r = send("GET", &url, &SSE, "").await;
    assert_eq!(r.status, 400, "{}", r.body);
    // DELETE of a live session ends it; then it is gone.
    let sid = init_session(&url).await;
    let with_sid = [
        ("mcp-protocol-version", "2025-11-25"),
        ("mcp-session-id", sid.as_str()),
    ];
    assert_eq!(send("DELETE", &url, &with_sid, "").await.status, 200);
    assert_eq!(send("DELETE", &url, &with_sid, "").await.status, 404);
    // Another method: GET, POST and DELETE allowed.
    let r = send("PUT", &url, &JSON_SSE, "{}").await;
    assert_eq!(
        r.headers.get("allow").unwrap().to_str().unwrap(),
        "GET, POST, DELETE"
    );
    h.shutdown().await.unwrap();
}

/// A handshake-era client of a server of the per-request era only gets the server's -32022
/// (with the revisions it speaks), not a fallback to the 2024-11-05 transport: a 400 whose body
/// is a modern JSON-RPC error says the server speaks a modern revision (2026-07-28, Streamable
/// HTTP, "Backward Compatibility").
#[tokio::test]
async fn a_handshake_client_is_told_what_the_server_speaks() {
    let (h, url) = serve(true).await;
    let refused = ferromcp::client::http::connect(
        &url,
        ferromcp::client::ClientOptions::new("old-client", "1.0"),
        ferromcp::client::ClientHandlers::default(),
        ferromcp::transport::http::HttpClientOptions::default(),
    )
    .await
    .expect_err("no handshake to be had");
    assert_eq!(refused.code, -32022, "{refused:?}");
    assert_eq!(
        refused.data,
        Some(json!({ "supported": ["2026-07-28"], "requested": "2025-11-25" })),
        "{refused:?}"
    );
    h.shutdown().await.unwrap();
}
