//! The client in the per-request era (2026-07-28), against ferromcp's own server over
//! Streamable HTTP and over an in-memory message stream: the `server/discover` probe, `_meta`
//! on every request, `input_required` answered with the client's handlers and retried, the
//! log level as a per-request opt-in, and `Auto` falling back to the handshake on a server
//! that does not serve 2026-07-28.

use ferromcp::client::http::connect;
use ferromcp::client::{Client, ClientHandlers, ClientOptions, ProtocolMode};
use ferromcp::protocol::{
    CallToolResult, ElicitAction, ElicitResult, LoggingLevel, ProtocolVersion, Tool,
};
use ferromcp::server::{tool_fn, Server};
use ferromcp::session::input_required;
use ferromcp::transport::http::{serve_http, HttpClientOptions, HttpServerOptions};
use ferromcp::transport::memory_pair;
use serde_json::{json, Map, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

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
    Server::builder("per-request-client-test", "1.0")
        .tool_raw(
            Tool::new("greet"),
            tool_fn(|_, ctx| async move {
                let answers = ctx.input(ask("who")).await?;
                Ok(CallToolResult::text(format!(
                    "Hello, {}!",
                    answers["who"]["content"]["name"].as_str().unwrap_or("?")
                )))
            }),
        )
        .tool_raw(
            Tool::new("two_rounds"),
            tool_fn(|_, ctx| async move {
                match (ctx.input_response("second"), ctx.request_state()) {
                    (Some(_), Some(state)) => {
                        Ok(CallToolResult::text(format!("state {}", state["n"])))
                    }
                    _ if ctx.input_response("first").is_some() => {
                        Err(input_required(ask("second"), Some(json!({ "n": 2 }))))
                    }
                    _ => Err(input_required(ask("first"), None)),
                }
            }),
        )
        .tool_raw(
            Tool::new("whoami"),
            tool_fn(|_, ctx| async move {
                ctx.log("info", None, json!("whoami ran")).await.ok();
                Ok(CallToolResult::text(format!(
                    "{} {}",
                    ctx.protocol_version().map(|v| v.as_str()).unwrap_or("?"),
                    ctx.peer()
                        .peer_info()
                        .map(|i| i["name"].clone())
                        .unwrap_or(Value::Null)
                )))
            }),
        )
        .build()
        .unwrap()
}

fn handlers(asked: Arc<Mutex<Vec<String>>>, logs: Arc<Mutex<Vec<Value>>>) -> ClientHandlers {
    ClientHandlers::default()
        .with_elicitation(Some(Arc::new(move |params, _ctx| {
            let asked = asked.clone();
            Box::pin(async move {
                let message = serde_json::to_value(&params).unwrap()["message"].clone();
                asked
                    .lock()
                    .unwrap()
                    .push(message.as_str().unwrap_or("").to_string());
                let mut r = ElicitResult::new(ElicitAction::Accept);
                r.content = Some(serde_json::from_value(json!({ "name": "Ada" })).unwrap());
                Ok(r)
            })
        })))
        .with_on_notification(Some(Arc::new(move |n| {
            if n.method == "notifications/message" {
                logs.lock().unwrap().push(n.params.unwrap_or(Value::Null));
            }
        })))
}

fn options(mode: ProtocolMode) -> ClientOptions {
    let mut o = ClientOptions::new("per-request-client", "1.0");
    o.mode = mode;
    o
}

fn text(r: &CallToolResult) -> String {
    serde_json::to_value(r).unwrap()["content"][0]["text"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

#[tokio::test]
async fn http_client_speaks_the_per_request_era() {
    tokio::time::timeout(Duration::from_secs(20), async {
        let h = serve_http(server(), "127.0.0.1:0", HttpServerOptions::default())
            .await
            .unwrap();
        let asked = Arc::new(Mutex::new(Vec::new()));
        let logs = Arc::new(Mutex::new(Vec::new()));
        let client = connect(
            &h.url("/mcp"),
            options(ProtocolMode::Auto),
            handlers(asked.clone(), logs.clone()),
            HttpClientOptions::default(),
        )
        .await
        .unwrap();
        assert!(client.is_per_request(), "discover succeeded");
        assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
        assert_eq!(
            client.server_info().unwrap()["name"],
            "per-request-client-test"
        );
        // Every request carries the client's _meta: the server sees its version and info.
        let r = client.call_tool("whoami", json!({})).await.unwrap();
        assert_eq!(text(&r), "2026-07-28 \"per-request-client\"");
        assert!(
            logs.lock().unwrap().is_empty(),
            "no log level asked for yet"
        );
        // input_required: answered with the client's elicitation handler, then retried.
        let r = client.call_tool("greet", json!({})).await.unwrap();
        assert_eq!(text(&r), "Hello, Ada!");
        // Two rounds, the second with the server's sealed state echoed back.
        let r = client.call_tool("two_rounds", json!({})).await.unwrap();
        assert_eq!(text(&r), "state 2");
        assert_eq!(asked.lock().unwrap().len(), 3);
        // The log level rides each later request's _meta.
        client.set_logging_level(LoggingLevel::Debug).await.unwrap();
        client.call_tool("whoami", json!({})).await.unwrap();
        assert_eq!(logs.lock().unwrap().len(), 1, "{:?}", logs.lock().unwrap());
        client.close().await;
        h.shutdown().await.unwrap();
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn message_stream_client_speaks_the_per_request_era() {
    let ((r_c, w_c), (r_s, w_s)) = memory_pair(16);
    let srv = server();
    tokio::spawn(async move { srv.serve(r_s, w_s).await });
    let asked = Arc::new(Mutex::new(Vec::new()));
    let logs = Arc::new(Mutex::new(Vec::new()));
    let client = Client::connect(
        options(ProtocolMode::PerRequest),
        handlers(asked.clone(), logs),
        r_c,
        w_c,
    )
    .await
    .unwrap();
    assert!(client.is_per_request());
    let r = client.call_tool("greet", json!({})).await.unwrap();
    assert_eq!(text(&r), "Hello, Ada!");
    client.close().await;
}

/// A raw `logging/setLevel` (what the bindings send) means in the per-request era what
/// `set_logging_level` does: the level rides later requests' `_meta`; a bad level is refused.
#[tokio::test]
async fn raw_set_level_rides_the_meta() {
    let ((r_c, w_c), (r_s, w_s)) = memory_pair(16);
    let srv = server();
    tokio::spawn(async move { srv.serve(r_s, w_s).await });
    let logs = Arc::new(Mutex::new(Vec::new()));
    let client = Client::connect(
        options(ProtocolMode::PerRequest),
        handlers(Arc::new(Mutex::new(Vec::new())), logs.clone()),
        r_c,
        w_c,
    )
    .await
    .unwrap();
    let none = Default::default();
    let e = client
        .request("logging/setLevel", Some(json!({ "level": "loud" })), none)
        .await
        .unwrap_err();
    assert_eq!(e.code, -32602, "{e}");
    client.call_tool("whoami", json!({})).await.unwrap();
    assert!(logs.lock().unwrap().is_empty(), "no level asked for yet");
    let r = client
        .request(
            "logging/setLevel",
            Some(json!({ "level": "info" })),
            Default::default(),
        )
        .await
        .unwrap();
    assert_eq!(r, json!({}));
    client.call_tool("whoami", json!({})).await.unwrap();
    assert_eq!(logs.lock().unwrap().len(), 1, "{:?}", logs.lock().unwrap());
    client.close().await;
}

#[tokio::test]
async fn auto_falls_back_to_the_handshake() {
    let srv = Server::builder("handshake-only", "1.0")
        .options(|o| o.session.supported_versions.retain(|v| !v.is_per_request()))
        .tool_raw(
            Tool::new("whoami"),
            tool_fn(|_, ctx| async move {
                Ok(CallToolResult::text(
                    ctx.protocol_version().map(|v| v.as_str()).unwrap_or("?"),
                ))
            }),
        )
        .build()
        .unwrap();
    let h = serve_http(srv, "127.0.0.1:0", HttpServerOptions::default())
        .await
        .unwrap();
    let client = connect(
        &h.url("/mcp"),
        options(ProtocolMode::Auto),
        ClientHandlers::default(),
        HttpClientOptions::default(),
    )
    .await
    .unwrap();
    assert!(!client.is_per_request());
    let r = client.call_tool("whoami", json!({})).await.unwrap();
    assert_eq!(text(&r), ProtocolVersion::LATEST.as_str());
    client.close().await;
    let refused = connect(
        &h.url("/mcp"),
        options(ProtocolMode::PerRequest),
        ClientHandlers::default(),
        HttpClientOptions::default(),
    )
    .await;
    assert!(refused.is_err(), "PerRequest does not fall back");
    h.shutdown().await.unwrap();
}

/// `x-mcp-header` end to end: the client learns the tool's header parameters from
/// `tools/list`, mirrors them as `Mcp-Param-*` (Base64 where the value is not header-safe), and
/// ferromcp's server, which checks them against the body, accepts the call. Before `tools/list`
/// the client knows no schema: the server refuses the first attempt (-32020), the client lists
/// the tools and retries once, and the call succeeds. A tool whose annotation breaks the rules
/// is left out of the client's list, and its call fails with -32020 after the one retry.
#[tokio::test]
async fn http_client_mirrors_x_mcp_header_arguments() {
    tokio::time::timeout(Duration::from_secs(20), async {
        let srv = Server::builder("param-headers", "1.0")
            .tool_raw(
                Tool::new("sql").with_input_schema(json!({ "type": "object", "properties": {
                    "region": { "type": "string", "x-mcp-header": "Region" },
                    "opts": { "type": "object", "properties": {
                        "limit": { "type": "integer", "x-mcp-header": "Limit" } } },
                    "query": { "type": "string" } } })),
                tool_fn(|args, _ctx| async move {
                    let region = args.get("region").cloned().unwrap_or(Value::Null);
                    let limit = args.get("opts").and_then(|o| o.get("limit")).cloned();
                    Ok(CallToolResult::text(format!(
                        "{region} {}",
                        limit.unwrap_or(Value::Null)
                    )))
                }),
            )
            .tool_raw(
                Tool::new("bad").with_input_schema(json!({ "type": "object", "properties": {
                    "score": { "type": "number", "x-mcp-header": "Score" } } })),
                tool_fn(|_, _| async move { Ok(CallToolResult::text("bad")) }),
            )
            .build()
            .unwrap();
        let h = serve_http(srv, "127.0.0.1:0", HttpServerOptions::default())
            .await
            .unwrap();
        let client = connect(
            &h.url("/mcp"),
            options(ProtocolMode::PerRequest),
            ClientHandlers::default(),
            HttpClientOptions::default(),
        )
        .await
        .unwrap();
        let args = json!({ "region": "Hello, \u{4e16}\u{754c} ", "opts": { "limit": 7 },
            "query": "select 1" });
        let r = client.call_tool("sql", args.clone()).await.unwrap();
        assert_eq!(text(&r), "\"Hello, \u{4e16}\u{754c} \" 7");
        let e = client
            .call_tool("bad", json!({ "score": 1.5 }))
            .await
            .unwrap_err();
        assert_eq!(e.code, -32020, "{e}");
        let names: Vec<String> = client
            .list_all_tools()
            .await
            .unwrap()
            .into_iter()
            .map(|t| t.name)
            .collect();
        assert_eq!(names, vec!["sql".to_string()]);
        let r = client.call_tool("sql", args).await.unwrap();
        assert_eq!(text(&r), "\"Hello, \u{4e16}\u{754c} \" 7");
        // An absent argument has no header, and the server expects none.
        let r = client
            .call_tool("sql", json!({ "opts": {}, "query": "q" }))
            .await
            .unwrap();
        assert_eq!(text(&r), "null null");
        client.close().await;
        h.shutdown().await.unwrap();
    })
    .await
    .unwrap();
}

/// A stale `Mcp-Param-*` cache: the client listed the tools, then the server changed the tool's
/// header parameter. The first attempt carries the old header and is refused (-32020); the
/// client lists the tools again (once) and the retry carries the new one.
#[tokio::test]
async fn http_client_relists_tools_after_a_header_mismatch() {
    tokio::time::timeout(Duration::from_secs(20), async {
        let tool = |header: &str| {
            Tool::new("geo").with_input_schema(json!({ "type": "object", "properties": {
                "place": { "type": "string", "x-mcp-header": header } } }))
        };
        let handler = || {
            tool_fn(|args, _ctx| async move {
                Ok(CallToolResult::text(
                    args["place"].as_str().unwrap_or("?").to_string(),
                ))
            })
        };
        let srv = Server::builder("stale-headers", "1.0")
            .tool_raw(tool("Region"), handler())
            .build()
            .unwrap();
        let h = serve_http(srv.clone(), "127.0.0.1:0", HttpServerOptions::default())
            .await
            .unwrap();
        let client = connect(
            &h.url("/mcp"),
            options(ProtocolMode::PerRequest),
            ClientHandlers::default(),
            HttpClientOptions::default(),
        )
        .await
        .unwrap();
        assert_eq!(client.list_all_tools().await.unwrap().len(), 1);
        let r = client
            .call_tool("geo", json!({ "place": "eu" }))
            .await
            .unwrap();
        assert_eq!(text(&r), "eu");
        // The server renames the header: the client's cache is now stale.
        srv.add_tool(tool("Zone"), handler()).unwrap();
        let r = client
            .call_tool("geo", json!({ "place": "us" }))
            .await
            .unwrap();
        assert_eq!(text(&r), "us");
        // And it stays fresh: the next call needs no retry.
        let r = client
            .call_tool("geo", json!({ "place": "ap" }))
            .await
            .unwrap();
        assert_eq!(text(&r), "ap");
        client.close().await;
        h.shutdown().await.unwrap();
    })
    .await
    .unwrap();
}
