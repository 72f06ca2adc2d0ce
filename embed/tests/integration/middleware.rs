//! Proves the bindings' middleware seam (`embed::ForeignMiddleware`): a foreign layer gets each
//! request as JSON with a `next` it owns, and answers, refuses, changes the request or the
//! result like a Rust layer; layers run in the order added, foreign and built-in mixed; the
//! built-ins by name from the server config or added later (rate limit, error masking) and the
//! timing hook's JSON event; a misused `next` is an internal error saying what went wrong, and
//! the chain is fixed once the server has handled a request.

use ferromcp::McpError;
use ferromcp_embed::{
    CallOptions, ClientConfig, EmbeddedClient, EmbeddedServer, ForeignAnswer, ForeignContext,
    ForeignHandler, ForeignMiddleware, ForeignNext, ForeignRequest,
};
use futures_util::future::BoxFuture;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Answers `{"content": [{"type": "text", "text": <its arguments' "text" or "echoed">}]}`, or
/// fails with an internal error carrying a detail when asked to.
struct Echo;

impl ForeignHandler for Echo {
    fn call(
        &self,
        request: ForeignRequest,
        _ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<ForeignAnswer, McpError>> {
        let ForeignRequest::CallTool { arguments: args } = request else {
            return Box::pin(async { Err(McpError::internal("Echo is a tool")) });
        };
        Box::pin(async move {
            if args.get("fail").is_some() {
                return Err(McpError::internal("db password is hunter2"));
            }
            Ok(json!(args.get("text").and_then(Value::as_str).unwrap_or("echoed")).into())
        })
    }
}

fn server(config: Value) -> EmbeddedServer {
    let server = EmbeddedServer::from_json(config).unwrap();
    server
        .add_tool_json(
            json!({"name": "echo", "inputSchema": {"type": "object"}}),
            Arc::new(Echo),
        )
        .unwrap();
    server
}

fn plain_server() -> EmbeddedServer {
    server(json!({"name": "mw", "version": "1"}))
}

async fn client(server: &EmbeddedServer) -> EmbeddedClient {
    EmbeddedClient::connect_memory(server, &ClientConfig::default(), None)
        .await
        .unwrap()
}

async fn call(client: &EmbeddedClient, name: &str, args: Value) -> Result<Value, McpError> {
    client
        .request(
            "tools/call",
            Some(json!({"name": name, "arguments": args})),
            CallOptions::default(),
        )
        .await
}

type Log = Arc<Mutex<Vec<String>>>;

/// A foreign layer written as a closure over the request, its `next` and the log.
struct Layer<F>(F);

impl<F> ForeignMiddleware for Layer<F>
where
    F: Fn(Value, ForeignNext) -> BoxFuture<'static, Result<Value, McpError>>
        + Send
        + Sync
        + 'static,
{
    fn handle(
        &self,
        request: Value,
        next: ForeignNext,
        _ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<Value, McpError>> {
        (self.0)(request, next)
    }
}

/// A layer logging `<tag>:<method>` on the way in and `<tag>:done` on the way out, and keeping
/// every request it saw.
fn recording(
    tag: &'static str,
    log: &Log,
    seen: &Arc<Mutex<Vec<Value>>>,
) -> Arc<dyn ForeignMiddleware> {
    let (log, seen) = (log.clone(), seen.clone());
    Arc::new(Layer(move |request: Value, next: ForeignNext| {
        let (log, seen) = (log.clone(), seen.clone());
        Box::pin(async move {
            log.lock()
                .unwrap()
                .push(format!("{tag}:{}", request["method"].as_str().unwrap()));
            seen.lock().unwrap().push(request);
            let r = next.run(None).await;
            log.lock().unwrap().push(format!("{tag}:done"));
            r
        }) as BoxFuture<'static, _>
    }))
}

#[tokio::test]
async fn middleware_sees_every_method() {
    let server = plain_server();
    server
        .add_resource_json(json!({"uri": "mem://a", "name": "a"}), Arc::new(ReadsA))
        .unwrap();
    let (log, seen) = (Log::default(), Arc::default());
    server.add_middleware(recording("a", &log, &seen)).unwrap();
    let c = client(&server).await;
    c.request("tools/list", None, CallOptions::default())
        .await
        .unwrap();
    call(&c, "echo", json!({})).await.unwrap();
    c.request(
        "resources/read",
        Some(json!({"uri": "mem://a"})),
        CallOptions::default(),
    )
    .await
    .unwrap();
    c.close().await;
    let seen = seen.lock().unwrap();
    let methods: Vec<&str> = seen.iter().map(|r| r["method"].as_str().unwrap()).collect();
    assert_eq!(
        methods,
        ["initialize", "tools/list", "tools/call", "resources/read"]
    );
    let tool_call = &seen[2];
    assert_eq!(tool_call["tool"], "echo");
    assert_eq!(tool_call["params"]["name"], "echo");
    assert!(
        tool_call["id"].is_number() || tool_call["id"].is_string(),
        "{tool_call}"
    );
    assert!(
        tool_call["sessionKey"]
            .as_str()
            .unwrap()
            .starts_with("conn-"),
        "{tool_call}"
    );
    assert_eq!(
        tool_call["sessionId"],
        Value::Null,
        "in memory: no Mcp-Session-Id"
    );
    assert_eq!(tool_call["principal"], Value::Null);
    assert_eq!(tool_call["httpHeaders"], Value::Null);
    assert!(tool_call["protocolVersion"].is_string(), "{tool_call}");
    assert_eq!(seen[1]["tool"], Value::Null);
}

/// Reads `mem://a` as the text `a`.
struct ReadsA;

impl ForeignHandler for ReadsA {
    fn call(
        &self,
        _request: ForeignRequest,
        _ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<ForeignAnswer, McpError>> {
        Box::pin(async { Ok(json!("a").into()) })
    }
}

#[tokio::test]
async fn layers_run_in_order_the_first_outermost() {
    // A built-in from the config comes before the layers added later.
    let server = server(json!({"name": "mw", "version": "1",
        "middleware": [{"name": "rateLimit", "limit": 1, "windowMs": 60000, "methods": ["tools/list"]}]}));
    let (log, seen) = (Log::default(), Arc::default());
    server
        .add_middleware(recording("outer", &log, &seen))
        .unwrap();
    server
        .add_middleware(recording("inner", &log, &seen))
        .unwrap();
    let c = client(&server).await;
    log.lock().unwrap().clear();
    call(&c, "echo", json!({})).await.unwrap();
    assert_eq!(
        *log.lock().unwrap(),
        [
            "outer:tools/call",
            "inner:tools/call",
            "inner:done",
            "outer:done"
        ]
    );
    c.request("tools/list", None, CallOptions::default())
        .await
        .unwrap();
    log.lock().unwrap().clear();
    // The rate limit (outermost) refuses before the foreign layers see anything.
    let e = c
        .request("tools/list", None, CallOptions::default())
        .await
        .unwrap_err();
    assert_eq!(e.code, -32004);
    assert!(log.lock().unwrap().is_empty(), "{:?}", log.lock().unwrap());
    c.close().await;
}

#[tokio::test]
async fn a_layer_answers_refuses_and_changes_request_and_result() {
    let server = plain_server();
    server
        .add_middleware(Arc::new(Layer(|request: Value, next: ForeignNext| {
            Box::pin(async move {
                match request["tool"].as_str() {
                    Some("answered") => {
                        Ok(json!({"content": [{"type": "text", "text": "from the layer"}]}))
                    }
                    Some("refused") => Err(McpError::new(-32003, "Permission denied")
                        .with_data(json!({"tool": "refused"}))),
                    Some("renamed") => {
                        let mut changed = request.clone();
                        changed["params"]["name"] = json!("echo");
                        changed["params"]["arguments"] = json!({"text": "changed"});
                        let mut r = next.run(Some(changed)).await?;
                        r["content"][0]["text"] = json!(format!(
                            "{} and reshaped",
                            r["content"][0]["text"].as_str().unwrap()
                        ));
                        Ok(r)
                    }
                    _ => next.run(None).await,
                }
            }) as BoxFuture<'static, _>
        })))
        .unwrap();
    let c = client(&server).await;
    let r = call(&c, "answered", json!({})).await.unwrap();
    assert_eq!(r["content"][0]["text"], "from the layer");
    let e = call(&c, "refused", json!({})).await.unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (-32003, "Permission denied"));
    assert_eq!(e.data, Some(json!({"tool": "refused"})));
    let r = call(&c, "renamed", json!({})).await.unwrap();
    assert_eq!(r["content"][0]["text"], "changed and reshaped");
    let r = call(&c, "echo", json!({})).await.unwrap();
    assert_eq!(r["content"][0]["text"], "echoed");
    c.close().await;
}

#[tokio::test]
async fn rate_limit_answers_32004_with_retry_after() {
    let server = server(json!({"name": "mw", "version": "1",
        "middleware": [{"name": "rateLimit", "limit": 2, "windowMs": 400, "methods": ["tools/call"]}]}));
    let c = client(&server).await;
    call(&c, "echo", json!({})).await.unwrap();
    call(&c, "echo", json!({})).await.unwrap();
    let e = call(&c, "echo", json!({})).await.unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (-32004, "Rate limited"));
    let data = e.data.unwrap();
    assert_eq!(
        (data["limit"].clone(), data["window"].clone()),
        (json!(2), json!(0.4))
    );
    let retry = data["retryAfter"].as_f64().unwrap();
    assert!(
        retry > 0.0 && retry <= 0.2,
        "one token comes back in 0.2 s: {retry}"
    );
    tokio::time::sleep(Duration::from_secs_f64(retry)).await;
    call(&c, "echo", json!({})).await.unwrap();
    c.close().await;
}

#[tokio::test]
async fn mask_errors_hides_internal_details_only() {
    let server = plain_server();
    server
        .add_middleware_config(json!({"name": "maskErrors", "message": "Something went wrong"}))
        .unwrap();
    // A foreign layer's internal error is masked; its -32003 is not.
    server
        .add_middleware(Arc::new(Layer(|request: Value, next: ForeignNext| {
            Box::pin(async move {
                match request["tool"].as_str() {
                    Some("broken") => Err(McpError::internal("stack trace: at db.rs:12")),
                    Some("refused") => Err(McpError::new(-32003, "Permission denied")),
                    _ => next.run(None).await,
                }
            }) as BoxFuture<'static, _>
        })))
        .unwrap();
    let c = client(&server).await;
    let e = call(&c, "broken", json!({})).await.unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str(), e.data),
        (-32603, "Something went wrong", None)
    );
    let e = call(&c, "refused", json!({})).await.unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (-32003, "Permission denied"));
    // A tool's failure is a tool result (isError), not a JSON-RPC error: nothing to mask.
    let r = call(&c, "echo", json!({"fail": true})).await.unwrap();
    assert_eq!(r["isError"], true);
    c.close().await;
}

#[tokio::test]
async fn timing_hook_gets_method_tool_duration_and_outcome() {
    let server = plain_server();
    let events: Arc<Mutex<Vec<Value>>> = Arc::default();
    let sink = events.clone();
    server
        .add_timing_hook(Arc::new(move |e| sink.lock().unwrap().push(e)))
        .unwrap();
    server
        .add_middleware(Arc::new(Layer(|request: Value, next: ForeignNext| {
            Box::pin(async move {
                if request["tool"] == "slow" {
                    tokio::time::sleep(Duration::from_millis(30)).await;
                    return Err(McpError::new(-32003, "no"));
                }
                next.run(None).await
            }) as BoxFuture<'static, _>
        })))
        .unwrap();
    let c = client(&server).await;
    call(&c, "echo", json!({})).await.unwrap();
    call(&c, "slow", json!({})).await.unwrap_err();
    c.close().await;
    let events = events.lock().unwrap();
    let calls: Vec<&Value> = events
        .iter()
        .filter(|e| e["method"] == "tools/call")
        .collect();
    assert_eq!(calls.len(), 2, "{events:?}");
    assert_eq!(
        (
            calls[0]["tool"].clone(),
            calls[0]["outcome"].clone(),
            calls[0]["code"].clone()
        ),
        (json!("echo"), json!("ok"), Value::Null)
    );
    assert_eq!(
        (
            calls[1]["tool"].clone(),
            calls[1]["outcome"].clone(),
            calls[1]["code"].clone()
        ),
        (json!("slow"), json!("error"), json!(-32003))
    );
    assert!(
        calls[1]["durationMs"].as_f64().unwrap() >= 30.0,
        "{}",
        calls[1]
    );
    assert_eq!(events[0]["method"], "initialize");
}

#[tokio::test]
async fn call_next_twice_or_with_a_bad_request_is_an_internal_error_saying_so() {
    let server = plain_server();
    server
        .add_middleware(Arc::new(Layer(|request: Value, next: ForeignNext| {
            Box::pin(async move {
                match request["params"]["arguments"]["how"].as_str() {
                    Some("twice") => {
                        next.run(None).await?;
                        next.run(None).await
                    }
                    Some("bad-params") => next.run(Some(json!({"params": [1]}))).await,
                    Some("bad-method") => next.run(Some(json!({"method": 7}))).await,
                    Some("not-an-object") => next.run(Some(json!("tools/list"))).await,
                    _ => next.run(None).await,
                }
            }) as BoxFuture<'static, _>
        })))
        .unwrap();
    let c = client(&server).await;
    for (tool, says) in [
        ("twice", "call_next was already called"),
        (
            "bad-params",
            "params must be an object or null, not an array",
        ),
        ("bad-method", "method must be a non-empty string"),
        ("not-an-object", "takes the request object"),
    ] {
        let e = call(&c, "echo", json!({"how": tool})).await.unwrap_err();
        assert_eq!(e.code, -32603, "{tool}");
        assert!(e.message.contains(says), "{tool}: {}", e.message);
    }
    c.close().await;
}

#[tokio::test]
async fn a_layer_changes_the_method() {
    let server = plain_server();
    server
        .add_middleware(Arc::new(Layer(|request: Value, next: ForeignNext| {
            Box::pin(async move {
                if request["method"] == "tools/call" && request["tool"] == "list-them" {
                    return next
                        .run(Some(json!({"method": "tools/list", "params": null})))
                        .await;
                }
                next.run(None).await
            }) as BoxFuture<'static, _>
        })))
        .unwrap();
    let c = client(&server).await;
    let r = call(&c, "list-them", json!({})).await.unwrap();
    assert_eq!(r["tools"][0]["name"], "echo", "{r}");
    c.close().await;
}

#[tokio::test]
async fn middleware_is_refused_once_the_server_handled_a_request() {
    let server = plain_server();
    server
        .add_middleware_config(json!({"name": "requestLog"}))
        .unwrap();
    let c = client(&server).await;
    let e = server
        .add_middleware_config(json!({"name": "maskErrors"}))
        .unwrap_err();
    assert!(
        e.message
            .contains("before the server handles its first request"),
        "{}",
        e.message
    );
    c.close().await;
}

#[tokio::test]
async fn unknown_middleware_names_and_options_are_refused() {
    let e = EmbeddedServer::from_json(json!({"name": "s", "middleware": [{"name": "cache"}]}))
        .unwrap_err();
    assert!(e.message.contains("cache"), "{}", e.message);
    let e = EmbeddedServer::from_json(
        json!({"name": "s", "middleware": [{"name": "rateLimit", "limit": 1, "windowMs": 1, "windw": 3}]}),
    )
    .unwrap_err();
    assert!(e.message.contains("windw"), "{}", e.message);
    let e = EmbeddedServer::from_json(
        json!({"name": "s", "middleware": [{"name": "rateLimit", "limit": 0, "windowMs": 1000}]}),
    )
    .unwrap_err();
    assert!(e.message.contains("middleware[0]"), "{}", e.message);
    let server = plain_server();
    let e = server
        .add_middleware_config(json!({"name": "maskErrors", "mesage": "x"}))
        .unwrap_err();
    assert!(e.message.contains("mesage"), "{}", e.message);
    let e = server
        .add_middleware_config(json!({"name": "timing"}))
        .unwrap_err();
    assert!(e.message.contains("timing"), "{}", e.message);
}

/// Records the notifications it is shown, and hands every request on.
struct Notes(Arc<Mutex<Vec<Value>>>);

impl ForeignMiddleware for Notes {
    fn handle(
        &self,
        _request: Value,
        next: ForeignNext,
        _ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<Value, McpError>> {
        next.run(None)
    }

    fn notification(&self, notification: Value) {
        self.0.lock().unwrap().push(notification);
    }
}

#[tokio::test]
async fn a_layer_observes_client_notifications_which_go_on() {
    let server = plain_server();
    let notes: Arc<Mutex<Vec<Value>>> = Arc::default();
    server
        .add_middleware(Arc::new(Notes(notes.clone())))
        .unwrap();
    let c = client(&server).await;
    c.notify("notifications/roots/list_changed", None)
        .await
        .unwrap();
    c.notify("example.com/custom", Some(json!({"x": 1})))
        .await
        .unwrap();
    // A request after them: the session reads in order, so they were handled before it.
    call(&c, "echo", json!({})).await.unwrap();
    c.close().await;
    let notes = notes.lock().unwrap();
    let methods: Vec<&str> = notes
        .iter()
        .map(|n| n["method"].as_str().unwrap())
        .collect();
    assert_eq!(
        methods,
        ["notifications/roots/list_changed", "example.com/custom"]
    );
    assert_eq!(notes[1]["params"], json!({"x": 1}));
    assert!(notes[0]["sessionKey"]
        .as_str()
        .unwrap()
        .starts_with("conn-"));
    assert_eq!(notes[0]["sessionId"], Value::Null);
}
