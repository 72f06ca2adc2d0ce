//! The per-request era (2026-07-28) on the Streamable HTTP endpoint: `server/discover`, the
//! `_meta` and header checks with their renumbered errors and HTTP statuses, removed methods,
//! `resultType` and caching hints on results, per-request capabilities and log level, all on the
//! same endpoint that keeps serving handshake-era sessions.

use crate::common_http;
use crate::common_modern;

use common_http::{call, init_session, post};
use common_modern::{answer, headers_for, meta, post_modern, post_with, request, with_header, V};
use ferromcp::protocol::{Prompt, Resource, ResourceContents, TextResourceContents};
use ferromcp::server::{prompt_fn, resource_fn, tool_fn, Server};
use ferromcp::transport::http::{serve_http, HttpServerHandle, HttpServerOptions};
use serde_json::{json, Value};

fn server() -> Server {
    Server::builder("modern-test", "2.0")
        .instructions("try the echo tool")
        .options(|o| o.enable_logging = true)
        .tool_raw(
            ferromcp::protocol::Tool::new("echo"),
            tool_fn(|args, _| async move {
                Ok(ferromcp::protocol::CallToolResult::text(
                    Value::Object(args).to_string(),
                ))
            }),
        )
        .tool_raw(
            ferromcp::protocol::Tool::new("region").with_input_schema(json!({
                "type": "object", "properties": {
                    "region": { "type": "string", "x-mcp-header": "Region" },
                    "limit": { "type": "integer", "x-mcp-header": "Limit" } } })),
            tool_fn(|_, _| async move { Ok(ferromcp::protocol::CallToolResult::text("ok")) }),
        )
        .tool_raw(
            ferromcp::protocol::Tool::new("log"),
            tool_fn(|_, ctx| async move {
                ctx.log("info", None, json!("info line")).await?;
                ctx.log("error", None, json!("error line")).await?;
                Ok(ferromcp::protocol::CallToolResult::text("logged"))
            }),
        )
        .tool_raw(
            ferromcp::protocol::Tool::new("sample"),
            tool_fn(|_, ctx| async move {
                let p = json!({ "messages": [], "maxTokens": 1 });
                ctx.request("sampling/createMessage", Some(p)).await?;
                Ok(ferromcp::protocol::CallToolResult::text("sampled"))
            }),
        )
        .tool_raw(
            ferromcp::protocol::Tool::new("count"),
            tool_fn(|_, ctx| async move {
                for i in 1..=3 {
                    ctx.progress(i as f64, Some(3.0), None).await.ok();
                }
                Ok(ferromcp::protocol::CallToolResult::text("counted"))
            }),
        )
        .resource(
            Resource::new("mem://greeting", "greeting"),
            resource_fn(|req, _| async move {
                Ok(vec![ResourceContents::Text(TextResourceContents::new(
                    req.uri, "hello",
                ))])
            }),
        )
        .prompt(
            Prompt::new("hi"),
            prompt_fn(|_, _| async {
                Ok(serde_json::from_value(json!({ "messages": [
                    { "role": "user", "content": { "type": "text", "text": "hi" } }
                ] }))
                .unwrap())
            }),
        )
        .build()
        .unwrap()
}

async fn start() -> (HttpServerHandle, String) {
    let h = serve_http(server(), "127.0.0.1:0", HttpServerOptions::default())
        .await
        .unwrap();
    let url = h.url("/mcp");
    (h, url)
}

#[tokio::test]
async fn discover_describes_the_server() {
    let (_h, url) = start().await;
    let r = post_modern(&url, &request(7, "server/discover", json!({}))).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.headers.get("mcp-session-id").is_none());
    let res = &answer(&r)["result"];
    assert_eq!(res["resultType"], "complete");
    let versions = res["supportedVersions"].as_array().unwrap();
    assert_eq!(versions[0], V, "newest first");
    assert!(versions.contains(&json!("2025-11-25")));
    assert!(res["capabilities"]["tools"].is_object());
    assert!(res["capabilities"].get("tasks").is_none());
    assert_eq!(
        res["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "modern-test"
    );
    assert_eq!(res["instructions"], "try the echo tool");
    assert_eq!(res["ttlMs"], 0);
    assert_eq!(res["cacheScope"], "private");
}

#[tokio::test]
async fn meta_is_required_and_checked() {
    let (_h, url) = start().await;
    let m = meta(json!({}));
    let mut no_version = m.clone();
    no_version
        .as_object_mut()
        .unwrap()
        .remove("io.modelcontextprotocol/protocolVersion");
    let mut no_caps = m.clone();
    no_caps
        .as_object_mut()
        .unwrap()
        .remove("io.modelcontextprotocol/clientCapabilities");
    let mut no_info = m.clone();
    no_info
        .as_object_mut()
        .unwrap()
        .remove("io.modelcontextprotocol/clientInfo");
    for (params, code) in [
        (json!({}), -32602),
        (json!({ "_meta": no_version }), -32602),
        (json!({ "_meta": no_caps }), -32602),
    ] {
        let body = json!({"jsonrpc":"2.0","id":3,"method":"server/discover","params":params});
        let r = post_modern(&url, &body).await;
        assert_eq!(r.status, 400, "{}", r.body);
        assert_eq!(r.json()["error"]["code"], code, "{}", r.body);
        assert_eq!(r.json()["id"], 3);
    }
    // clientInfo is optional.
    let body = request(4, "server/discover", json!({ "_meta": no_info }));
    let r = post_modern(&url, &body).await;
    assert_eq!(r.status, 200, "{}", r.body);
}

#[tokio::test]
async fn unsupported_versions_and_header_mismatches() {
    let (_h, url) = start().await;
    let mut m = meta(json!({}));
    m["io.modelcontextprotocol/protocolVersion"] = json!("v999.0.0");
    let body = request(5, "server/discover", json!({ "_meta": m }));
    let h = with_header(headers_for(&body), "mcp-protocol-version", Some("v999.0.0"));
    let r = post_with(&url, &h, &body).await;
    assert_eq!(r.status, 400, "{}", r.body);
    let e = &r.json()["error"];
    assert_eq!(e["code"], -32022);
    assert_eq!(e["data"]["requested"], "v999.0.0");
    assert!(e["data"]["supported"]
        .as_array()
        .unwrap()
        .contains(&json!(V)));
    assert_eq!(r.json()["id"], 5);

    // The header says 2026-07-28, the body something else.
    let r = post_modern(&url, &body).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], -32020, "{}", r.body);

    // Mcp-Method and Mcp-Name must mirror the body.
    let body = request(6, "tools/call", json!({ "name": "echo", "arguments": {} }));
    for h in [
        with_header(headers_for(&body), "mcp-method", None),
        with_header(headers_for(&body), "mcp-method", Some("tools/list")),
        with_header(headers_for(&body), "mcp-name", None),
        with_header(headers_for(&body), "mcp-name", Some("other")),
    ] {
        let r = post_with(&url, &h, &body).await;
        assert_eq!(r.status, 400, "{}", r.body);
        assert_eq!(r.json()["error"]["code"], -32020, "{}", r.body);
    }
    // A Base64-encoded name is decoded before the comparison.
    let h = with_header(headers_for(&body), "mcp-name", Some("=?base64?ZWNobw==?="));
    let r = post_with(&url, &h, &body).await;
    assert_eq!(answer(&r)["result"]["resultType"], "complete", "{}", r.body);

    // A per-request-era body without the version header.
    let h = with_header(headers_for(&body), "mcp-protocol-version", None);
    let r = post_with(&url, &h, &body).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], -32020, "{}", r.body);
}

#[tokio::test]
async fn removed_and_unknown_methods_are_not_found() {
    let (_h, url) = start().await;
    for method in [
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
        "unknown/method",
    ] {
        let r = post_modern(
            &url,
            &request(9, method, json!({ "uri": "mem://greeting" })),
        )
        .await;
        assert_eq!(r.status, 404, "{method}: {}", r.body);
        assert_eq!(r.json()["error"]["code"], -32601, "{method}");
        assert_eq!(r.json()["id"], 9);
    }
}

#[tokio::test]
async fn results_carry_result_type_and_caching_hints() {
    let (_h, url) = start().await;
    for method in [
        "tools/list",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
    ] {
        let r = post_modern(&url, &request(1, method, json!({}))).await;
        let res = &answer(&r)["result"];
        assert_eq!(res["resultType"], "complete", "{method}: {}", r.body);
        assert_eq!(res["ttlMs"], 0, "{method}");
        assert_eq!(res["cacheScope"], "private", "{method}");
    }
    let r = post_modern(
        &url,
        &request(2, "resources/read", json!({ "uri": "mem://greeting" })),
    )
    .await;
    assert_eq!(answer(&r)["result"]["ttlMs"], 0, "{}", r.body);
    // Not cacheable: resultType only.
    let r = post_modern(
        &url,
        &request(
            3,
            "tools/call",
            json!({ "name": "echo", "arguments": {"a": 1} }),
        ),
    )
    .await;
    let res = &answer(&r)["result"];
    assert_eq!(res["resultType"], "complete", "{}", r.body);
    assert_eq!(res["content"][0]["text"], "{\"a\":1}");
    assert!(res.get("ttlMs").is_none());
    assert_eq!(
        res["_meta"]["io.modelcontextprotocol/serverInfo"],
        json!({ "name": "modern-test", "version": "2.0" })
    );
    let r = post_modern(&url, &request(4, "prompts/get", json!({ "name": "hi" }))).await;
    assert_eq!(answer(&r)["result"]["resultType"], "complete", "{}", r.body);
}

#[tokio::test]
async fn resource_not_found_is_invalid_params() {
    let (_h, url) = start().await;
    let r = post_modern(
        &url,
        &request(2, "resources/read", json!({ "uri": "mem://missing" })),
    )
    .await;
    let e = &answer(&r)["error"];
    assert_eq!(e["code"], -32602, "{}", r.body);
    assert_eq!(e["data"]["uri"], "mem://missing");
}

#[tokio::test]
async fn undeclared_client_capabilities_are_reported() {
    let (_h, url) = start().await;
    let body = request(
        8,
        "tools/call",
        json!({ "name": "sample", "arguments": {} }),
    );
    let r = post_modern(&url, &body).await;
    assert_eq!(r.status, 400, "{}", r.body);
    let e = &r.json()["error"];
    assert_eq!(e["code"], -32021);
    assert_eq!(e["data"]["requiredCapabilities"], json!({ "sampling": {} }));
    // Declared: an input_required result, never a request of its own on the stream.
    let body = request(
        8,
        "tools/call",
        json!({ "name": "sample", "arguments": {}, "_meta": meta(json!({ "sampling": {} })) }),
    );
    let r = post_modern(&url, &body).await;
    let res = &answer(&r)["result"];
    assert_eq!(res["resultType"], "input_required", "{}", r.body);
    assert!(r.sse_messages().iter().all(|m| m.get("method").is_none()));
}

#[tokio::test]
async fn logs_only_at_the_requested_level() {
    let (_h, url) = start().await;
    let body = request(1, "tools/call", json!({ "name": "log", "arguments": {} }));
    let r = post_modern(&url, &body).await;
    assert_eq!(r.headers["content-type"], "application/json", "{}", r.body);
    assert_eq!(answer(&r)["result"]["content"][0]["text"], "logged");

    let mut m = meta(json!({}));
    m["io.modelcontextprotocol/logLevel"] = json!("warning");
    let body = request(
        2,
        "tools/call",
        json!({ "name": "log", "arguments": {}, "_meta": m }),
    );
    let r = post_modern(&url, &body).await;
    let msgs = r.sse_messages();
    let logs: Vec<&Value> = msgs
        .iter()
        .filter(|m| m["method"] == "notifications/message")
        .collect();
    assert_eq!(logs.len(), 1, "{}", r.body);
    assert_eq!(logs[0]["params"]["level"], "error");
    assert_eq!(answer(&r)["result"]["resultType"], "complete");
}

#[tokio::test]
async fn progress_flows_on_the_request_stream() {
    let (_h, url) = start().await;
    let mut m = meta(json!({}));
    m["progressToken"] = json!("p1");
    let body = request(
        1,
        "tools/call",
        json!({ "name": "count", "arguments": {}, "_meta": m }),
    );
    let r = post_modern(&url, &body).await;
    assert_eq!(r.headers["content-type"], "text/event-stream", "{}", r.body);
    let progress = r
        .sse_messages()
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .count();
    assert_eq!(progress, 3, "{}", r.body);
    assert_eq!(answer(&r)["result"]["resultType"], "complete");
}

#[tokio::test]
async fn handshake_sessions_keep_their_rules_on_the_same_endpoint() {
    let (_h, url) = start().await;
    let sid = init_session(&url).await;
    let r = post(&url, Some(&sid), call(2, "echo", json!({}))).await;
    let msgs = r.sse_messages();
    let res = msgs
        .iter()
        .find(|m| m["id"] == 2)
        .map(|m| &m["result"])
        .expect("answer");
    assert!(res.get("resultType").is_none(), "{}", r.body);
    let r = post(
        &url,
        Some(&sid),
        json!({"jsonrpc":"2.0","id":3,"method":"ping"}),
    )
    .await;
    let msgs = r.sse_messages();
    assert!(msgs
        .iter()
        .any(|m| m["id"] == 3 && m["result"] == json!({})));
    // initialize offering 2026-07-28 still negotiates a handshake-era revision.
    let r = post(&url, None, common_http::init_body(V)).await;
    let msgs = r.json();
    assert_eq!(
        msgs["result"]["protocolVersion"], "2025-11-25",
        "{}",
        r.body
    );
}

#[tokio::test]
async fn mirrored_tool_parameters_must_match_their_headers() {
    let (_h, url) = start().await;
    let body = request(
        1,
        "tools/call",
        json!({ "name": "region", "arguments": { "region": "Hello", "limit": 5 } }),
    );
    let base = headers_for(&body);
    let with = |region: Option<&str>, limit: Option<&str>| {
        let h = with_header(base.clone(), "mcp-param-region", region);
        with_header(h, "mcp-param-limit", limit)
    };
    for (region, limit, ok) in [
        (Some("Hello"), Some("5"), true),
        (Some("=?base64?SGVsbG8=?="), Some("5.0"), true),
        (None, Some("5"), false),
        (Some("Hello"), None, false),
        (Some("Bye"), Some("5"), false),
        (Some("Hello"), Some("6"), false),
        (Some("=?base64?SGVsbG8?="), Some("5"), false),
        (Some("=?base64?SGVs!!!bG8=?="), Some("5"), false),
    ] {
        let r = post_with(&url, &with(region, limit), &body).await;
        if ok {
            assert_eq!(
                answer(&r)["result"]["content"][0]["text"],
                "ok",
                "{region:?}: {}",
                r.body
            );
        } else {
            assert_eq!(r.status, 400, "{region:?} {limit:?}: {}", r.body);
            assert_eq!(r.json()["error"]["code"], -32020);
        }
    }
    // No value in the body: no header expected.
    let body = request(
        2,
        "tools/call",
        json!({ "name": "region", "arguments": {} }),
    );
    let r = post_modern(&url, &body).await;
    assert_eq!(
        answer(&r)["result"]["content"][0]["text"],
        "ok",
        "{}",
        r.body
    );
}
