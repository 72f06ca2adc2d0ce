//! The shapes of `clientInfo`, `_meta` and `progressToken` are checked on every request, in both
//! protocol eras, and a wrong one is refused with -32602 (invalid params) naming what is wrong:
//! - `clientInfo` is an `Implementation`: an object with `name` and `version` strings (the
//!   handshake's `initialize` params; 2026-07-28's `_meta["io.modelcontextprotocol/clientInfo"]`);
//! - `_meta` is an object (every revision's `RequestParams`);
//! - `_meta.progressToken` is a string or an integer (`ProgressToken`).

use crate::common_modern;
use crate::support;

use common_modern::{answer, meta, post_modern, request};
use ferromcp::codes;
use ferromcp::protocol::{CallToolResult, Tool};
use ferromcp::server::{tool_fn, Server};
use ferromcp::transport::http::HttpServerOptions;
use serde_json::{json, Value};
use support::{error_code, RawPeer};

fn server() -> Server {
    Server::builder("shapes", "1")
        .tool_raw(
            Tool::new("echo"),
            tool_fn(|_, _| async move { Ok(CallToolResult::text("ok")) }),
        )
        .build()
        .unwrap()
}

/// Asserts `m` is a -32602 whose message says `says`.
fn invalid_params(m: &Value, says: &str) {
    assert_eq!(error_code(m), codes::INVALID_PARAMS as i64, "{m}");
    let e = &m["error"];
    let text = format!(
        "{} {}",
        e["message"].as_str().unwrap_or_default(),
        e["data"].as_str().unwrap_or_default()
    );
    assert!(text.contains(says), "{says:?} not in {m}");
}

#[tokio::test]
async fn initialize_refuses_a_client_info_that_is_no_implementation() {
    for (info, says) in [
        (
            json!({"name": 5, "version": []}),
            "clientInfo.name must be a string",
        ),
        (
            json!({"name": "c", "version": []}),
            "clientInfo.version must be a string",
        ),
        (
            json!({"name": "c"}),
            "clientInfo.version (string) is required",
        ),
        (
            json!({"version": "1"}),
            "clientInfo.name (string) is required",
        ),
        (
            json!({"name": "c", "version": "1", "title": 1}),
            "clientInfo.title must be a string",
        ),
        (
            json!({"name": "c", "version": "1", "icons": {}}),
            "clientInfo.icons must be an array",
        ),
        (json!("c"), "clientInfo must be an object"),
    ] {
        let mut p = RawPeer::start(&server());
        let m = p
            .request(
                json!(1),
                "initialize",
                json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": info}),
            )
            .await;
        invalid_params(&m, says);
        assert_eq!(m["id"], 1, "{m}");
    }
    // A full Implementation is taken.
    let mut p = RawPeer::start(&server());
    let info = json!({"name": "c", "version": "1", "title": "C", "icons": [], "websiteUrl": "https://c.example"});
    let m = p
        .request(
            json!(1),
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": info}),
        )
        .await;
    assert!(m.get("result").is_some(), "{m}");
}

#[tokio::test]
async fn handshake_era_requests_refuse_a_meta_or_progress_token_of_the_wrong_shape() {
    let mut p = RawPeer::start(&server());
    p.initialize("2025-11-25").await;
    let call = |meta: Value| json!({"name": "echo", "arguments": {}, "_meta": meta});
    // tools/call takes the typed lane, tools/list the general one: both refuse.
    for (method, params, says) in [
        (
            "tools/call",
            call(json!("x")),
            "params._meta must be an object, not a string",
        ),
        (
            "tools/call",
            call(json!(null)),
            "params._meta must be an object, not null",
        ),
        (
            "tools/list",
            json!({"_meta": "x"}),
            "params._meta must be an object",
        ),
        (
            "ping",
            json!({"_meta": [1]}),
            "params._meta must be an object, not an array",
        ),
        (
            "tools/call",
            call(json!({"progressToken": {}})),
            "progressToken must be a string or an integer, not an object",
        ),
        (
            "tools/call",
            call(json!({"progressToken": 1.5})),
            "not a fractional number",
        ),
        (
            "tools/call",
            call(json!({"progressToken": null})),
            "not null",
        ),
        (
            "tools/list",
            json!({"_meta": {"progressToken": [1]}}),
            "progressToken must be a string or an integer",
        ),
    ] {
        let m = p.request(json!("r"), method, params.clone()).await;
        invalid_params(&m, says);
        assert_eq!(m["id"], "r", "{m}");
    }
    // Good shapes are served.
    for token in [json!("t"), json!(7)] {
        let m = p
            .request(
                json!("ok"),
                "tools/call",
                call(json!({"progressToken": token})),
            )
            .await;
        assert_eq!(m["result"]["content"][0]["text"], "ok", "{m}");
    }
    let m = p
        .request(json!("ok"), "tools/list", json!({"_meta": {}}))
        .await;
    assert!(m.get("result").is_some(), "{m}");
}

#[tokio::test]
async fn per_request_era_refuses_the_same_shapes() {
    let (_s, _h, url) = {
        let s = server();
        let h = ferromcp::transport::http::serve_http(
            s.clone(),
            "127.0.0.1:0",
            HttpServerOptions::default(),
        )
        .await
        .unwrap();
        let url = h.url("/mcp");
        (s, h, url)
    };
    let with_meta = |method: &str, m: Value| {
        let mut params = json!({"_meta": m});
        if method == "tools/call" {
            params["name"] = json!("echo");
            params["arguments"] = json!({});
        }
        request(1, method, params)
    };
    let info = |i: Value| {
        let mut m = meta(json!({}));
        m["io.modelcontextprotocol/clientInfo"] = i;
        m
    };
    let token = |t: Value| {
        let mut m = meta(json!({}));
        m["progressToken"] = t;
        m
    };
    for method in ["tools/call", "tools/list"] {
        for (m, says) in [
            (
                info(json!({"name": 5, "version": []})),
                "clientInfo\"].name must be a string",
            ),
            (
                info(json!({"name": "c"})),
                "clientInfo\"].version (string) is required",
            ),
            (info(json!("c")), "clientInfo\"] must be an object"),
            (json!("x"), "params._meta must be an object, not a string"),
            (
                token(json!({})),
                "progressToken must be a string or an integer, not an object",
            ),
        ] {
            let r = post_modern(&url, &with_meta(method, m.clone())).await;
            let a = answer(&r);
            invalid_params(&a, says);
            assert_eq!(a["id"], 1, "{method} {m}: {a}");
        }
        // The same request with good shapes is served.
        let r = post_modern(&url, &with_meta(method, token(json!("t")))).await;
        let a = answer(&r);
        assert!(a.get("result").is_some(), "{method}: {a}");
    }
}
