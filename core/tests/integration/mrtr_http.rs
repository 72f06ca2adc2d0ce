//! Multi round-trip requests (2026-07-28) over Streamable HTTP: a handler that needs input
//! answers `input_required` (explicitly, or through unchanged `ctx.request` code), the client
//! retries with `inputResponses` and the sealed `requestState`, and a state that was altered or
//! made for another request is refused.

use crate::common_modern;
use crate::support;

use common_modern::{answer, meta, post_modern, request};
use ferromcp::protocol::{CallToolResult, Tool};
use ferromcp::server::{tool_fn, Server};
use ferromcp::session::input_required;
use ferromcp::transport::http::{serve_http, HttpServerHandle, HttpServerOptions};
use serde_json::{json, Map, Value};

fn ask(key: &str) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(
        key.into(),
        json!({ "method": "elicitation/create", "params": {
            "message": "name?", "requestedSchema": { "type": "object",
                "properties": { "name": { "type": "string" } } } } }),
    );
    m
}

fn server() -> Server {
    Server::builder("mrtr-test", "1.0")
        .tool_raw(
            Tool::new("explicit"),
            tool_fn(|_, ctx| async move {
                match (ctx.input_response("who"), ctx.request_state()) {
                    (Some(r), Some(s)) => Ok(CallToolResult::text(format!(
                        "{} {}",
                        r["content"]["name"].as_str().unwrap_or("?"),
                        s["n"]
                    ))),
                    _ => Err(input_required(ask("who"), Some(json!({ "n": 42 })))),
                }
            }),
        )
        .tool_raw(
            Tool::new("other"),
            tool_fn(|_, ctx| async move {
                match ctx.request_state() {
                    Some(_) => Ok(CallToolResult::text("state accepted")),
                    None => Err(input_required(ask("who"), Some(json!({ "n": 1 })))),
                }
            }),
        )
        .tool_raw(
            Tool::new("both"),
            // One handler for both eras: ctx.input, twice in turn.
            tool_fn(|_, ctx| async move {
                let first = ctx.input(ask("name")).await?;
                let mut more = Map::new();
                more.insert(
                    "llm".into(),
                    json!({ "method": "sampling/createMessage",
                            "params": { "messages": [], "maxTokens": 5 } }),
                );
                more.insert("roots".into(), json!({ "method": "roots/list" }));
                let more = ctx.input(more).await?;
                Ok(CallToolResult::text(format!(
                    "{}/{}/{}",
                    first["name"]["content"]["name"].as_str().unwrap_or("?"),
                    more["llm"]["content"]["text"].as_str().unwrap_or("?"),
                    more["roots"]["roots"].as_array().map_or(0, Vec::len)
                )))
            }),
        )
        .tool_raw(
            Tool::new("unchanged"),
            // Handler code as written for the handshake era: two requests to the client.
            tool_fn(|_, ctx| async move {
                let p = json!({ "message": "first?", "requestedSchema": { "type": "object" } });
                let a = ctx.request("elicitation/create", Some(p)).await?;
                let p = json!({ "messages": [], "maxTokens": 5 });
                let b = ctx.request("sampling/createMessage", Some(p)).await?;
                Ok(CallToolResult::text(format!(
                    "{} / {}",
                    a["action"].as_str().unwrap_or("?"),
                    b["content"]["text"].as_str().unwrap_or("?")
                )))
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

fn call(name: &str, extra: Value, caps: Value) -> Value {
    let mut params = json!({ "name": name, "arguments": {}, "_meta": meta(caps) });
    if let Value::Object(m) = extra {
        for (k, v) in m {
            params[k] = v;
        }
    }
    request(1, "tools/call", params)
}

fn all_caps() -> Value {
    json!({ "elicitation": {}, "sampling": {}, "roots": {} })
}

#[tokio::test]
async fn explicit_input_required_round_trip() {
    let (_h, url) = start().await;
    let r = post_modern(&url, &call("explicit", json!({}), all_caps())).await;
    let res = answer(&r)["result"].clone();
    assert_eq!(res["resultType"], "input_required", "{}", r.body);
    assert_eq!(res["inputRequests"]["who"]["method"], "elicitation/create");
    let state = res["requestState"]
        .as_str()
        .expect("sealed state")
        .to_string();
    let readable = state.split('.').any(|part| {
        use base64::Engine as _;
        base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(part.trim_end_matches('='))
            .is_ok_and(|bytes| bytes.windows(6).any(|w| w == b"\"n\":42"))
    });
    assert!(!readable, "the state is not readable as is: {state}");

    let retry = json!({
        "inputResponses": { "who": { "action": "accept", "content": { "name": "Ada" } } },
        "requestState": state,
    });
    let r = post_modern(&url, &call("explicit", retry, all_caps())).await;
    let res = &answer(&r)["result"];
    assert_eq!(res["resultType"], "complete", "{}", r.body);
    assert_eq!(res["content"][0]["text"], "Ada 42");
}

#[tokio::test]
async fn altered_or_foreign_state_is_refused() {
    let (_h, url) = start().await;
    let r = post_modern(&url, &call("explicit", json!({}), all_caps())).await;
    let state = answer(&r)["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_string();
    let responses = json!({ "who": { "action": "accept", "content": { "name": "Ada" } } });
    for (tool, token) in [
        ("explicit", format!("{state}-TAMPERED")),
        ("explicit", state.replacen('.', ".x", 1)),
        ("explicit", "garbage".to_string()),
        // Made for another tool.
        ("other", state.clone()),
    ] {
        let retry = json!({ "inputResponses": responses, "requestState": token });
        let r = post_modern(&url, &call(tool, retry, all_caps())).await;
        assert_eq!(answer(&r)["error"]["code"], -32602, "{tool}: {}", r.body);
        assert_eq!(
            answer(&r)["error"]["data"]["reason"],
            "tampered",
            "{}",
            r.body
        );
    }
    // The genuine state still works (refusals used nothing up), once; again it is a replay.
    let retry = json!({ "inputResponses": responses, "requestState": state });
    let r = post_modern(&url, &call("explicit", retry.clone(), all_caps())).await;
    assert_eq!(
        answer(&r)["result"]["content"][0]["text"],
        "Ada 42",
        "{}",
        r.body
    );
    let r = post_modern(&url, &call("explicit", retry, all_caps())).await;
    assert_eq!(answer(&r)["error"]["code"], -32602, "{}", r.body);
    assert_eq!(
        answer(&r)["error"]["data"]["reason"],
        "replayed",
        "{}",
        r.body
    );
    // Malformed inputResponses.
    let retry = json!({ "inputResponses": { "who": 12345 } });
    let r = post_modern(&url, &call("explicit", retry, all_caps())).await;
    assert_eq!(answer(&r)["error"]["code"], -32602, "{}", r.body);
}

#[tokio::test]
async fn unchanged_handler_code_runs_again_with_the_answers() {
    let (_h, url) = start().await;
    // Round 1: the first ctx.request becomes an input request.
    let r = post_modern(&url, &call("unchanged", json!({}), all_caps())).await;
    let res = answer(&r)["result"].clone();
    assert_eq!(res["resultType"], "input_required", "{}", r.body);
    let reqs = res["inputRequests"].as_object().unwrap();
    assert_eq!(reqs.len(), 1);
    let (k1, v1) = reqs.iter().next().unwrap();
    assert_eq!(v1["method"], "elicitation/create");
    assert!(r.sse_messages().iter().all(|m| m.get("method").is_none()));

    // Round 2: the first call returns the answer, the second asks.
    let mut responses = Map::new();
    responses.insert(k1.clone(), json!({ "action": "accept", "content": {} }));
    let retry = json!({ "inputResponses": responses, "requestState": res["requestState"] });
    let r = post_modern(&url, &call("unchanged", retry, all_caps())).await;
    let res = answer(&r)["result"].clone();
    assert_eq!(res["resultType"], "input_required", "{}", r.body);
    let (k2, v2) = res["inputRequests"]
        .as_object()
        .unwrap()
        .iter()
        .next()
        .map(|(k, v)| (k.clone(), v.clone()))
        .unwrap();
    assert_eq!(v2["method"], "sampling/createMessage");
    assert_ne!(&k2, k1);

    // Round 3: only the newest answer is sent; the first comes back from requestState.
    let mut responses = Map::new();
    responses.insert(
        k2,
        json!({ "role": "assistant", "content": { "type": "text", "text": "hi" },
                "model": "m", "stopReason": "endTurn" }),
    );
    let retry = json!({ "inputResponses": responses, "requestState": res["requestState"] });
    let r = post_modern(&url, &call("unchanged", retry, all_caps())).await;
    let res = &answer(&r)["result"];
    assert_eq!(res["resultType"], "complete", "{}", r.body);
    assert_eq!(res["content"][0]["text"], "accept / hi");
}

#[tokio::test]
async fn input_needs_the_declared_capability() {
    let (_h, url) = start().await;
    for tool in ["explicit", "unchanged"] {
        let r = post_modern(&url, &call(tool, json!({}), json!({ "sampling": {} }))).await;
        assert_eq!(r.status, 400, "{tool}: {}", r.body);
        let e = &r.json()["error"];
        assert_eq!(e["code"], -32021, "{tool}");
        assert_eq!(
            e["data"]["requiredCapabilities"],
            json!({ "elicitation": {} })
        );
    }
}

const ADA: &str = r#"{ "action": "accept", "content": { "name": "Ada" } }"#;
const HI: &str = r#"{ "role": "assistant", "content": { "type": "text", "text": "hi" }, "model": "m", "stopReason": "endTurn" }"#;
const ROOTS: &str = r#"{ "roots": [{ "uri": "file:///r" }] }"#;

#[tokio::test]
async fn ctx_input_in_the_per_request_era() {
    let (_h, url) = start().await;
    let r = post_modern(&url, &call("both", json!({}), all_caps())).await;
    let res = answer(&r)["result"].clone();
    assert_eq!(res["resultType"], "input_required", "{}", r.body);
    assert_eq!(res["inputRequests"].as_object().unwrap().len(), 1);
    assert!(res["inputRequests"]["name"].is_object());

    let ada: Value = serde_json::from_str(ADA).unwrap();
    let retry = json!({ "inputResponses": { "name": ada }, "requestState": res["requestState"] });
    let r = post_modern(&url, &call("both", retry, all_caps())).await;
    let res = answer(&r)["result"].clone();
    assert_eq!(res["resultType"], "input_required", "{}", r.body);
    let mut keys: Vec<&String> = res["inputRequests"].as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["llm", "roots"]);

    // Only this round's answers: the first comes back from requestState.
    let retry = json!({
        "inputResponses": {
            "llm": serde_json::from_str::<Value>(HI).unwrap(),
            "roots": serde_json::from_str::<Value>(ROOTS).unwrap(),
        },
        "requestState": res["requestState"],
    });
    let r = post_modern(&url, &call("both", retry, all_caps())).await;
    assert_eq!(
        answer(&r)["result"]["content"][0]["text"],
        "Ada/hi/1",
        "{}",
        r.body
    );
}

#[tokio::test]
async fn ctx_input_in_the_handshake_era_asks_the_client() {
    let mut p = support::RawPeer::start(&server());
    p.request(
        json!("init"),
        "initialize",
        json!({ "protocolVersion": "2025-11-25", "capabilities": all_caps(),
                "clientInfo": { "name": "t", "version": "1" } }),
    )
    .await;
    p.send(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))
        .await;
    p.send(json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call",
                   "params": { "name": "both", "arguments": {} } }))
        .await;
    let answers = [
        ("elicitation/create", ADA),
        ("sampling/createMessage", HI),
        ("roots/list", ROOTS),
    ];
    for (method, answer) in answers {
        let m = p.recv().await;
        assert_eq!(m["method"], method, "{m}");
        let result: Value = serde_json::from_str(answer).unwrap();
        p.send(json!({ "jsonrpc": "2.0", "id": m["id"], "result": result }))
            .await;
    }
    let m = p.response(json!(1)).await;
    assert_eq!(m["result"]["content"][0]["text"], "Ada/hi/1", "{m}");
    assert!(m["result"].get("resultType").is_none());
}
