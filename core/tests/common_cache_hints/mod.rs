//! The server of the caching-hint tests and their checks, shared by core's
//! `integration/cache_hints.rs` (hints set from the Rust API) and ferromcp-embed's
//! `integration/config_cache_hints.rs` (the same hints set from the embed configuration every
//! binding passes), so both check one server the same way.
#![allow(dead_code)]

use crate::common_modern::{answer, post_modern, request};
use ferromcp::protocol::{
    CallToolResult, Prompt, Resource, ResourceContents, TextResourceContents, Tool,
};
use ferromcp::server::{prompt_fn, resource_fn, tool_fn, Server};
use ferromcp::session::input_required;
use ferromcp::transport::http::{serve_http, HttpServerHandle, HttpServerOptions};
use serde_json::{json, Map, Value};

fn ask() -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(
        "who".into(),
        json!({ "method": "elicitation/create", "params": {
            "message": "name?", "requestedSchema": { "type": "object",
                "properties": { "name": { "type": "string" } } } } }),
    );
    m
}

/// Adds a tool, a resource that asks for input first (`mem://ask`), a plain resource and a
/// prompt to `server`.
pub fn populate(server: &Server) {
    server
        .add_tool(
            Tool::new("ask"),
            tool_fn(|_, ctx| async move {
                match ctx.input_response("who") {
                    Some(r) => Ok(CallToolResult::text(
                        r["content"]["name"].as_str().unwrap_or("?").to_string(),
                    )),
                    None => Err(input_required(ask(), Some(json!({ "n": 1 })))),
                }
            }),
        )
        .unwrap();
    server.add_resource(
        Resource::new("mem://plain", "plain"),
        resource_fn(|req, _| async move {
            Ok(vec![ResourceContents::Text(TextResourceContents::new(
                req.uri, "plain",
            ))])
        }),
    );
    server.add_resource(
        Resource::new("mem://ask", "ask"),
        resource_fn(|req, ctx| async move {
            match ctx.input_response("who") {
                Some(_) => Ok(vec![ResourceContents::Text(TextResourceContents::new(
                    req.uri, "answered",
                ))]),
                None => Err(input_required(ask(), None)),
            }
        }),
    );
    server.add_prompt(
        Prompt::new("hi"),
        prompt_fn(|_, _| async { Ok(serde_json::from_value(json!({ "messages": [] })).unwrap()) }),
    );
}

pub async fn start(server: Server) -> (HttpServerHandle, String) {
    let h = serve_http(server, "127.0.0.1:0", HttpServerOptions::default())
        .await
        .unwrap();
    let url = h.url("/mcp");
    (h, url)
}

/// `(ttlMs, cacheScope)` of the result of `method` with `params`.
pub async fn hints(url: &str, method: &str, params: Value) -> (Value, Value) {
    let r = post_modern(url, &request(1, method, params)).await;
    let res = answer(&r)["result"].clone();
    assert_eq!(res["resultType"], "complete", "{method}: {}", r.body);
    (res["ttlMs"].clone(), res["cacheScope"].clone())
}

/// Checks every cacheable method of a populated server: `tools/list` has its own hints
/// (`tools_list`), the others the server-wide ones (`default`).
pub async fn check_hints(url: &str, default: (Value, Value), tools_list: (Value, Value)) {
    for method in [
        "server/discover",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
    ] {
        assert_eq!(hints(url, method, json!({})).await, default, "{method}");
    }
    assert_eq!(
        hints(url, "resources/read", json!({ "uri": "mem://plain" })).await,
        default
    );
    assert_eq!(hints(url, "tools/list", json!({})).await, tools_list);
}
