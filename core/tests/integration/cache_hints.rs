//! Server settings of the per-request era (2026-07-28) beyond the defaults: the caching hints
//! (`ttlMs` / `cacheScope`) of cacheable results, server-wide and per method, from the Rust API
//! and from the embed configuration every binding passes; the result of a multi round-trip retry
//! is never cacheable; and the `requestState` key ring and replay cache set from that
//! configuration (a shared key opens another replica's token, a different key does not, the
//! replay capacity is the one configured).

use crate::common_modern;

use common_modern::{answer, meta, post_modern, request};
use ferromcp::embed::{EmbeddedServer, ServerConfig};
use ferromcp::protocol::{
    CallToolResult, Prompt, Resource, ResourceContents, TextResourceContents, Tool,
};
use ferromcp::server::{prompt_fn, resource_fn, tool_fn, Server};
use ferromcp::session::{input_required, CacheHint, CacheScope};
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
fn populate(server: &Server) {
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

async fn start(server: Server) -> (HttpServerHandle, String) {
    let h = serve_http(server, "127.0.0.1:0", HttpServerOptions::default())
        .await
        .unwrap();
    let url = h.url("/mcp");
    (h, url)
}

/// `(ttlMs, cacheScope)` of the result of `method` with `params`.
async fn hints(url: &str, method: &str, params: Value) -> (Value, Value) {
    let r = post_modern(url, &request(1, method, params)).await;
    let res = answer(&r)["result"].clone();
    assert_eq!(res["resultType"], "complete", "{method}: {}", r.body);
    (res["ttlMs"].clone(), res["cacheScope"].clone())
}

/// Checks every cacheable method of a populated server: `tools/list` has its own hints
/// (`tools_list`), the others the server-wide ones (`default`).
async fn check_hints(url: &str, default: (Value, Value), tools_list: (Value, Value)) {
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

#[tokio::test]
async fn rust_api_sets_default_and_per_method_hints() {
    let server = Server::builder("hints", "1.0")
        .options(|o| {
            o.session.cache_hints.default = CacheHint::new(60_000, CacheScope::Public);
            o.session
                .cache_hints
                .set_method("tools/list", CacheHint::new(5, CacheScope::Private))
                .unwrap();
        })
        .build()
        .unwrap();
    populate(&server);
    let (_h, url) = start(server).await;
    check_hints(
        &url,
        (json!(60_000), json!("public")),
        (json!(5), json!("private")),
    )
    .await;
}

#[tokio::test]
async fn only_cacheable_methods_take_hints() {
    let mut hints = ferromcp::session::CacheHints::default();
    let e = hints
        .set_method("tools/call", CacheHint::default())
        .unwrap_err();
    assert_eq!(e.code, -32602);
    assert!(
        e.message.contains("\"tools/call\" has no cacheable result"),
        "{e}"
    );
}

#[tokio::test]
async fn a_retried_round_is_never_cacheable() {
    let server = Server::builder("hints", "1.0")
        .options(|o| {
            o.session.cache_hints.default = CacheHint::new(60_000, CacheScope::Public);
        })
        .build()
        .unwrap();
    populate(&server);
    let (_h, url) = start(server).await;
    let caps = json!({ "elicitation": {} });
    let read = |extra: Value| {
        let mut p = json!({ "uri": "mem://ask", "_meta": meta(caps.clone()) });
        for (k, v) in extra.as_object().unwrap() {
            p[k] = v.clone();
        }
        request(1, "resources/read", p)
    };
    let r = post_modern(&url, &read(json!({}))).await;
    let res = answer(&r)["result"].clone();
    assert_eq!(res["resultType"], "input_required", "{}", r.body);
    assert!(
        res.get("ttlMs").is_none(),
        "an interim result carries no hints"
    );
    let retry = json!({
        "inputResponses": { "who": { "action": "accept", "content": { "name": "Ada" } } },
        "requestState": res["requestState"],
    });
    let r = post_modern(&url, &read(retry)).await;
    let res = &answer(&r)["result"];
    assert_eq!(res["contents"][0]["text"], "answered", "{}", r.body);
    assert_eq!(res["ttlMs"], 0, "{}", r.body);
    assert_eq!(res["cacheScope"], "private", "{}", r.body);
}

fn embedded(config: Value) -> Server {
    let s = EmbeddedServer::from_json(config).unwrap().server().clone();
    populate(&s);
    s
}

#[tokio::test]
async fn embed_config_sets_hints_and_listen_cap() {
    let config = json!({
        "name": "embedded", "cacheTtlMs": 30_000, "cacheScope": "public",
        "cacheHints": { "tools/list": { "cacheScope": "private" } },
        "maxListenStreams": 7,
    });
    let options = ServerConfig::from_json(config.clone()).unwrap().options();
    assert_eq!(options.max_listen_streams, 7);
    let (_h, url) = start(embedded(config)).await;
    check_hints(
        &url,
        (json!(30_000), json!("public")),
        (json!(30_000), json!("private")),
    )
    .await;
    // Without any setting: the engine's defaults.
    let (_h, url) = start(embedded(json!({ "name": "plain" }))).await;
    check_hints(
        &url,
        (json!(0), json!("private")),
        (json!(0), json!("private")),
    )
    .await;
    assert_eq!(
        ServerConfig::from_json(json!({ "name": "plain" }))
            .unwrap()
            .options()
            .max_listen_streams,
        ferromcp::server::DEFAULT_MAX_LISTEN_STREAMS
    );
}

#[test]
fn embed_config_refuses_bad_settings() {
    let key = "00".repeat(32);
    for (config, says) in [
        (
            json!({ "cacheScope": "shared" }),
            "unknown variant `shared`",
        ),
        (json!({ "cacheTtlMs": -1 }), "invalid value"),
        (
            json!({ "cacheHints": { "tools/call": { "ttlMs": 1 } } }),
            "\"tools/call\" has no cacheable result",
        ),
        (
            json!({ "cacheHints": { "tools/list": { "ttl": 1 } } }),
            "unknown field `ttl`",
        ),
        (
            json!({ "requestStateKeys": [{ "id": "k1", "secret": "abcd" }] }),
            "the secret of key \"k1\" must be 64 hex digits",
        ),
        (
            json!({ "requestStateKeys": [{ "id": "k1", "secret": "zz".repeat(32) }] }),
            "the secret of key \"k1\" must be 64 hex digits",
        ),
        (
            json!({ "requestStateKeys": [{ "id": "k-1", "secret": key }] }),
            "must be non-empty ASCII letters and digits",
        ),
        (
            json!({ "requestStateKeys": [] }),
            "a key ring needs at least one key",
        ),
        (
            json!({ "requestStateReplayCapacity": 0 }),
            "requestStateReplayCapacity must be at least 1",
        ),
        (
            json!({ "maxListenStreams": 0 }),
            "maxListenStreams must be at least 1",
        ),
    ] {
        let mut c = config.clone();
        c["name"] = json!("bad");
        let e = ServerConfig::from_json(c).unwrap_err();
        assert_eq!(e.code, -32602, "{config}");
        assert!(e.message.contains(says), "{config}: {e}");
    }
}

/// Starts `tools/call ask` on `url` and returns its sealed `requestState`.
async fn sealed_state(url: &str) -> Value {
    let p = json!({ "name": "ask", "arguments": {}, "_meta": meta(json!({ "elicitation": {} })) });
    let r = post_modern(url, &request(1, "tools/call", p)).await;
    let res = answer(&r)["result"].clone();
    assert_eq!(res["resultType"], "input_required", "{}", r.body);
    res["requestState"].clone()
}

/// Retries `tools/call ask` on `url` with `state`; the result or the error.
async fn retry(url: &str, state: &Value) -> Value {
    let p = json!({ "name": "ask", "arguments": {}, "_meta": meta(json!({ "elicitation": {} })),
        "inputResponses": { "who": { "action": "accept", "content": { "name": "Ada" } } },
        "requestState": state });
    answer(&post_modern(url, &request(2, "tools/call", p)).await)
}

#[tokio::test]
async fn embed_config_sets_the_request_state_key_ring() {
    let (k1, k2) = ("1f".repeat(32), "a0".repeat(32));
    let keys = |ids: &[(&str, &str)]| {
        json!(ids
            .iter()
            .map(|(id, secret)| json!({ "id": id, "secret": secret }))
            .collect::<Vec<_>>())
    };
    let a = embedded(json!({ "name": "a", "requestStateKeys": keys(&[("k1", &k1)]) }));
    // A replica after rotation: seals with k2, still opens k1's tokens.
    let b = embedded(json!({ "name": "b", "requestStateKeys": keys(&[("k2", &k2), ("k1", &k1)]) }));
    let c = embedded(json!({ "name": "c", "requestStateKeys": keys(&[("k2", &k2)]) }));
    let (_ha, a) = start(a).await;
    let (_hb, b) = start(b).await;
    let (_hc, c) = start(c).await;

    let from_a = sealed_state(&a).await;
    let r = retry(&c, &from_a).await;
    assert_eq!(r["error"]["data"]["reason"], "tampered", "{r}");
    let r = retry(&b, &from_a).await;
    assert_eq!(r["result"]["content"][0]["text"], "Ada", "{r}");
    // b seals with k2, which c has and a has not.
    let from_b = sealed_state(&b).await;
    assert!(from_b.as_str().unwrap().starts_with("2.k2."), "{from_b}");
    let r = retry(&a, &from_b).await;
    assert_eq!(r["error"]["data"]["reason"], "tampered", "{r}");
    let r = retry(&c, &from_b).await;
    assert_eq!(r["result"]["content"][0]["text"], "Ada", "{r}");
}

#[tokio::test]
async fn embed_config_sets_the_replay_capacity() {
    let s = embedded(json!({ "name": "small", "requestStateReplayCapacity": 1 }));
    let (_h, url) = start(s).await;
    let (first, second) = (sealed_state(&url).await, sealed_state(&url).await);
    let r = retry(&url, &first).await;
    assert_eq!(r["result"]["content"][0]["text"], "Ada", "{r}");
    // The one slot holds `first` until it expires: `second` cannot be checked for reuse.
    let r = retry(&url, &second).await;
    assert_eq!(r["error"]["data"]["reason"], "overloaded", "{r}");
}
