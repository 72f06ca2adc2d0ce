//! Proves the server's middleware chain over a message stream (the transport stdio uses):
//! every method and client notification goes through it in order, in both eras, on the typed
//! `tools/call` lane too; a layer answers, refuses, changes the request and the result; and the
//! built-in layers (rate limit, error masking, timing, request logging) do what they say.

use crate::support;

use ferromcp::jsonrpc::Notification;
use ferromcp::protocol::{
    CallToolResult, Completion, GetPromptResult, Prompt, Resource, ResourceContents,
    TextResourceContents, Tool,
};
use ferromcp::server::middleware::{
    MaskErrors, Middleware, MiddlewareRequest, MiddlewareResponse, Next, NotificationNext, Outcome,
    RateKey, RateLimit, RateLimitConfig, RequestLog, Timing, ToolLimit,
};
use ferromcp::server::{completion_fn, method_fn, prompt_fn, resource_fn, tool_fn, Server};
use ferromcp::session::Peer;
use ferromcp::McpError;
use futures_util::future::BoxFuture;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use support::{error_code, RawPeer};

type Log = Arc<Mutex<Vec<String>>>;

/// Records `<tag>:<method>` of every request and `<tag>:note:<method>` of every notification,
/// on the way in, and `<tag>:done:<method>` on the way out.
struct Record {
    tag: &'static str,
    log: Log,
}

impl Middleware for Record {
    fn handle<'a>(
        &'a self,
        request: MiddlewareRequest,
        next: Next<'a>,
    ) -> BoxFuture<'a, Result<MiddlewareResponse, McpError>> {
        Box::pin(async move {
            let method = request.method().to_string();
            self.log
                .lock()
                .unwrap()
                .push(format!("{}:{method}", self.tag));
            let r = next.run(request).await;
            self.log
                .lock()
                .unwrap()
                .push(format!("{}:done:{method}", self.tag));
            r
        })
    }

    fn notification(&self, n: Notification, peer: &Peer, next: NotificationNext<'_>) {
        self.log
            .lock()
            .unwrap()
            .push(format!("{}:note:{}", self.tag, n.method));
        next.run(n, peer)
    }
}

fn text_tool(name: &str, reply: &'static str) -> (Tool, ferromcp::server::ToolFn) {
    (
        Tool::new(name),
        tool_fn(move |_, _| async move { Ok(CallToolResult::text(reply)) }),
    )
}

/// A server with one of everything, and `layers` installed.
fn server_with(layers: Vec<Arc<dyn Middleware>>) -> Server {
    let (t, h) = text_tool("echo", "echoed");
    let (slow, slow_h) = text_tool("slow", "slowed");
    let mut b = Server::builder("mw-test", "1")
        .tool_raw(t, h)
        .tool_raw(slow, slow_h)
        .tool_raw(
            Tool::new("args"),
            tool_fn(
                |args, _| async move { Ok(CallToolResult::text(Value::Object(args).to_string())) },
            ),
        )
        .tool_raw(
            Tool::new("fails"),
            tool_fn(
                |_, _| async move { Err(McpError::internal("db at 10.0.0.7 refused user admin")) },
            ),
        )
        .tool_raw(
            Tool::new("bad_args"),
            tool_fn(|_, _| async move { Err(McpError::invalid_params("x must be positive")) }),
        )
        .tool_raw(
            Tool::new("panics"),
            tool_fn(|_, _| async move { panic!("secret token abc123 leaked") }),
        )
        .tool_raw(
            Tool::new("hang"),
            tool_fn(|_, _| async move {
                tokio::time::sleep(Duration::from_secs(30)).await;
                Ok(CallToolResult::text("late"))
            }),
        )
        .resource(
            Resource::new("mem://a", "a"),
            resource_fn(|req, _| async move {
                Ok(vec![ResourceContents::Text(TextResourceContents::new(
                    req.uri, "A",
                ))])
            }),
        )
        .prompt(
            Prompt::new("p"),
            prompt_fn(|_, _| async move { Ok(GetPromptResult::default()) }),
        )
        .completion(
            ferromcp::server::CompletionRef::Prompt("p".into()),
            "x",
            completion_fn(|_, _| async move {
                Ok({
                    let mut lit = Completion::default();
                    lit.values = vec!["one".into()];
                    lit
                })
            }),
        )
        .method(
            "example.com/hello",
            method_fn(|_, _| async move { Ok(json!({ "hello": true })) }),
        );
    for layer in layers {
        b = b.middleware(layer);
    }
    b.build().unwrap()
}

fn log() -> Log {
    Arc::new(Mutex::new(Vec::new()))
}

fn call(name: &str) -> Value {
    json!({ "name": name, "arguments": {} })
}

fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

#[tokio::test]
async fn middleware_sees_every_method() {
    let seen = log();
    let server = server_with(vec![Arc::new(Record {
        tag: "a",
        log: seen.clone(),
    })]);
    let mut p = RawPeer::start(&server);
    p.initialize("2025-11-25").await;
    p.call(json!(1), "tools/list", json!({})).await;
    let r = p.call(json!(2), "tools/call", call("echo")).await;
    assert_eq!(r["content"][0]["text"], "echoed");
    p.call(json!(3), "resources/list", json!({})).await;
    p.call(json!(4), "resources/read", json!({ "uri": "mem://a" }))
        .await;
    p.call(json!(5), "prompts/list", json!({})).await;
    p.call(json!(6), "prompts/get", json!({ "name": "p" }))
        .await;
    let r = p
        .call(
            json!(7),
            "completion/complete",
            json!({ "ref": { "type": "ref/prompt", "name": "p" },
                    "argument": { "name": "x", "value": "" } }),
        )
        .await;
    assert_eq!(r["completion"]["values"][0], "one");
    p.call(json!(8), "example.com/hello", json!({})).await;
    p.call(json!(9), "logging/setLevel", json!({ "level": "info" }))
        .await;
    // An unknown method reaches the chain too (and is refused by the dispatch).
    let m = p.request(json!(10), "example.com/nope", json!({})).await;
    assert_eq!(error_code(&m), -32601);
    // ping is the session's own answer and never reaches the server.
    p.call(json!(11), "ping", json!({})).await;
    p.send(json!({ "jsonrpc": "2.0", "method": "notifications/roots/list_changed" }))
        .await;
    // Notifications have no answer: a request after it shows it was handled.
    p.call(json!(12), "tools/list", json!({})).await;
    let seen = seen.lock().unwrap().clone();
    let requests: Vec<&str> = seen
        .iter()
        .filter(|s| !s.contains(":done:"))
        .map(String::as_str)
        .collect();
    assert_eq!(
        requests,
        [
            "a:initialize",
            "a:tools/list",
            "a:tools/call",
            "a:resources/list",
            "a:resources/read",
            "a:prompts/list",
            "a:prompts/get",
            "a:completion/complete",
            "a:example.com/hello",
            "a:logging/setLevel",
            "a:example.com/nope",
            "a:note:notifications/roots/list_changed",
            "a:tools/list",
        ]
    );
}

#[tokio::test]
async fn layers_run_in_order_the_first_outermost() {
    let seen = log();
    let server = server_with(vec![
        Arc::new(Record {
            tag: "outer",
            log: seen.clone(),
        }),
        Arc::new(Record {
            tag: "inner",
            log: seen.clone(),
        }),
    ]);
    let mut p = RawPeer::start(&server);
    p.initialize("2025-11-25").await;
    seen.lock().unwrap().clear();
    p.call(json!(1), "tools/call", call("echo")).await;
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "outer:tools/call",
            "inner:tools/call",
            "inner:done:tools/call",
            "outer:done:tools/call"
        ]
    );
}

/// Answers `example.com/cached` itself, refuses tools named `admin_*` with -32003, adds
/// `"checked": true` to every `tools/call` argument object and `"stamped"` to results.
struct Gate;

impl Middleware for Gate {
    fn handle<'a>(
        &'a self,
        mut request: MiddlewareRequest,
        next: Next<'a>,
    ) -> BoxFuture<'a, Result<MiddlewareResponse, McpError>> {
        Box::pin(async move {
            if request.method() == "example.com/cached" {
                return Ok(json!({ "fromMiddleware": true }).into());
            }
            if request.tool_name().is_some_and(|t| t.starts_with("admin_")) {
                return Err(McpError::new(-32003, "Permission denied")
                    .with_data(json!({ "tool": request.tool_name() })));
            }
            if let Some(Value::Object(p)) = request.params_mut() {
                if let Some(Value::Object(args)) = p.get_mut("arguments") {
                    args.insert("checked".into(), json!(true));
                }
            }
            let mut result = next.run(request).await?;
            if let Value::Object(r) = result.result_mut() {
                r.insert("stamped".into(), json!(true));
            }
            Ok(result)
        })
    }

    fn notification(&self, n: Notification, peer: &Peer, next: NotificationNext<'_>) {
        if n.method != "notifications/dropped" {
            next.run(n, peer)
        }
    }
}

/// Records, for each `tools/call`: whether it came typed, whether it still is after its
/// params were read (a view), and whether its result came back as the tool's typed result.
struct Typed(Arc<Mutex<Vec<(bool, bool, bool)>>>);

impl Middleware for Typed {
    fn handle<'a>(
        &'a self,
        request: MiddlewareRequest,
        next: Next<'a>,
    ) -> BoxFuture<'a, Result<MiddlewareResponse, McpError>> {
        Box::pin(async move {
            if request.method() != "tools/call" {
                return next.run(request).await;
            }
            let came_typed = request.is_typed_tool_call();
            let name = request.params().and_then(|p| p.get("name")).cloned();
            assert_eq!(name.as_ref().and_then(Value::as_str), request.tool_name());
            let still_typed = request.is_typed_tool_call();
            let result = next.run(request).await;
            let typed_result = result.as_ref().is_ok_and(|r| r.tool_result().is_some());
            self.0
                .lock()
                .unwrap()
                .push((came_typed, still_typed, typed_result));
            result
        })
    }
}

#[tokio::test]
async fn a_lane_call_stays_typed_through_a_layer_that_changes_nothing() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let server = server_with(vec![Arc::new(Typed(seen.clone()))]);
    let mut p = RawPeer::start(&server);
    p.initialize("2025-11-25").await;
    let r = p.call(json!(1), "tools/call", call("echo")).await;
    assert_eq!(r["content"][0]["text"], "echoed");
    // A `tools/call` the lane does not read (params not an object) is JSON from the start.
    let m = p.request(json!(2), "tools/call", json!([1])).await;
    assert_eq!(error_code(&m), -32602);
    assert_eq!(
        *seen.lock().unwrap(),
        [(true, true, true), (false, false, false)]
    );
}

#[tokio::test]
async fn a_layer_answers_refuses_and_changes_request_and_result() {
    let seen = log();
    let server = server_with(vec![
        Arc::new(Gate),
        Arc::new(Record {
            tag: "after",
            log: seen.clone(),
        }),
    ]);
    let mut p = RawPeer::start(&server);
    p.initialize("2025-11-25").await;
    seen.lock().unwrap().clear();
    let r = p.call(json!(1), "example.com/cached", json!({})).await;
    assert_eq!(r, json!({ "fromMiddleware": true, }));
    let m = p.request(json!(2), "tools/call", call("admin_wipe")).await;
    assert_eq!(error_code(&m), -32003);
    assert_eq!(m["error"]["message"], "Permission denied");
    assert_eq!(m["error"]["data"]["tool"], "admin_wipe");
    let r = p
        .call(
            json!(3),
            "tools/call",
            json!({ "name": "args", "arguments": { "x": 1 } }),
        )
        .await;
    assert_eq!(r["content"][0]["text"], r#"{"checked":true,"x":1}"#);
    assert_eq!(r["stamped"], true);
    // The layers after Gate saw only the call it handed on.
    assert_eq!(
        *seen.lock().unwrap(),
        ["after:tools/call", "after:done:tools/call"]
    );
    // A dropped notification goes no further.
    p.send(json!({ "jsonrpc": "2.0", "method": "notifications/dropped" }))
        .await;
    p.send(json!({ "jsonrpc": "2.0", "method": "notifications/kept" }))
        .await;
    p.call(json!(4), "example.com/cached", json!({})).await;
    assert_eq!(
        seen.lock().unwrap()[2..],
        ["after:note:notifications/kept".to_string()]
    );
}

#[tokio::test]
async fn per_request_era_calls_go_through_the_chain() {
    let seen = log();
    let server = server_with(vec![
        Arc::new(Gate),
        Arc::new(Record {
            tag: "a",
            log: seen.clone(),
        }),
    ]);
    let mut p = RawPeer::start(&server);
    let r = p
        .call(
            json!(1),
            "tools/call",
            json!({ "name": "args", "arguments": { "y": 2 }, "_meta": modern_meta() }),
        )
        .await;
    assert_eq!(r["content"][0]["text"], r#"{"checked":true,"y":2}"#);
    assert_eq!(r["stamped"], true);
    // What the era puts on every result is still there.
    assert_eq!(r["resultType"], "complete");
    assert!(r["_meta"]["io.modelcontextprotocol/serverInfo"].is_object());
    let r = p
        .call(
            json!(2),
            "server/discover",
            json!({ "_meta": modern_meta() }),
        )
        .await;
    assert_eq!(r["stamped"], true);
    let seen: Vec<String> = seen.lock().unwrap().clone();
    assert_eq!(seen[0], "a:tools/call");
    assert_eq!(seen[2], "a:server/discover");
}

fn rate_limited_data(m: &Value) -> &Value {
    assert_eq!(error_code(m), -32004, "{m}");
    assert_eq!(m["error"]["message"], "Rate limited");
    &m["error"]["data"]
}

#[tokio::test]
async fn rate_limit_answers_32004_with_retry_after() {
    let mut config = RateLimitConfig::new(2, Duration::from_millis(400));
    config.methods = Some(vec!["tools/call".into()]);
    let server = server_with(vec![Arc::new(RateLimit::new(config).unwrap())]);
    let mut p = RawPeer::start(&server);
    p.initialize("2025-11-25").await;
    p.call(json!(1), "tools/call", call("echo")).await;
    p.call(json!(2), "tools/call", call("echo")).await;
    let m = p.request(json!(3), "tools/call", call("echo")).await;
    let data = rate_limited_data(&m);
    assert_eq!(data["limit"], 2);
    assert_eq!(data["window"], 0.4);
    let retry = data["retryAfter"].as_f64().unwrap();
    assert!(
        retry > 0.0 && retry <= 0.2,
        "one token comes back in 0.2 s: {retry}"
    );
    // Methods not named are not counted.
    p.call(json!(4), "tools/list", json!({})).await;
    tokio::time::sleep(Duration::from_secs_f64(retry)).await;
    let r = p.call(json!(5), "tools/call", call("echo")).await;
    assert_eq!(r["content"][0]["text"], "echoed");
    let m = p.request(json!(6), "tools/call", call("echo")).await;
    rate_limited_data(&m);
}

#[tokio::test]
async fn a_tool_with_its_own_limit_has_its_own_bucket() {
    let mut config = RateLimitConfig::new(100, Duration::from_secs(60));
    config.tools.insert(
        "slow".into(),
        ToolLimit::new(1, Duration::from_millis(60_000)),
    );
    let server = server_with(vec![Arc::new(RateLimit::new(config).unwrap())]);
    let mut p = RawPeer::start(&server);
    p.initialize("2025-11-25").await;
    p.call(json!(1), "tools/call", call("slow")).await;
    let m = p.request(json!(2), "tools/call", call("slow")).await;
    let data = rate_limited_data(&m);
    assert_eq!(data["limit"], 1);
    assert_eq!(data["window"], 60);
    let retry = data["retryAfter"].as_f64().unwrap();
    assert!(retry > 59.0 && retry <= 60.0, "{retry}");
    for id in 3..8 {
        p.call(json!(id), "tools/call", call("echo")).await;
    }
}

#[tokio::test]
async fn rate_limit_by_tool_or_global_keys_buckets_across_sessions() {
    // By tool: one bucket per tool, shared by every session.
    let mut config = RateLimitConfig::new(1, Duration::from_secs(60));
    config.by = vec![RateKey::Tool];
    config.methods = Some(vec!["tools/call".into()]);
    let server = server_with(vec![Arc::new(RateLimit::new(config).unwrap())]);
    let (mut a, mut b) = (RawPeer::start(&server), RawPeer::start(&server));
    a.initialize("2025-11-25").await;
    b.initialize("2025-11-25").await;
    a.call(json!(1), "tools/call", call("echo")).await;
    let m = b.request(json!(1), "tools/call", call("echo")).await;
    assert_eq!(rate_limited_data(&m)["limit"], 1);
    b.call(json!(2), "tools/call", call("slow")).await;
    let m = a.request(json!(2), "tools/call", call("slow")).await;
    assert_eq!(rate_limited_data(&m)["limit"], 1);
    // Global: one bucket for everything, whatever the session or tool.
    let mut config = RateLimitConfig::new(2, Duration::from_secs(60));
    config.by = vec![RateKey::Global];
    config.methods = Some(vec!["tools/call".into()]);
    let server = server_with(vec![Arc::new(RateLimit::new(config).unwrap())]);
    let (mut a, mut b) = (RawPeer::start(&server), RawPeer::start(&server));
    a.initialize("2025-11-25").await;
    b.initialize("2025-11-25").await;
    a.call(json!(1), "tools/call", call("echo")).await;
    b.call(json!(1), "tools/call", call("slow")).await;
    let m = a.request(json!(2), "tools/call", call("slow")).await;
    assert_eq!(rate_limited_data(&m)["limit"], 2);
    let m = b.request(json!(2), "tools/call", call("echo")).await;
    assert_eq!(rate_limited_data(&m)["limit"], 2);
}

#[tokio::test]
async fn mask_errors_hides_internal_details_only() {
    let server = server_with(vec![Arc::new(MaskErrors::new())]);
    let mut p = RawPeer::start(&server);
    p.initialize("2025-11-25").await;
    let m = p.request(json!(1), "tools/call", call("fails")).await;
    assert_eq!(
        m["error"],
        json!({ "code": -32603, "message": "Internal error" }),
        "{m}"
    );
    let m = p.request(json!(2), "tools/call", call("panics")).await;
    assert_eq!(
        m["error"],
        json!({ "code": -32603, "message": "Internal error" }),
        "{m}"
    );
    // Errors meant for the client are left alone.
    let m = p.request(json!(3), "tools/call", call("bad_args")).await;
    assert_eq!(m["error"]["code"], -32602);
    assert_eq!(m["error"]["message"], "x must be positive");
    let m = p
        .request(json!(4), "resources/read", json!({ "uri": "mem://none" }))
        .await;
    assert_eq!(m["error"]["code"], -32002);
    assert_eq!(m["error"]["data"]["uri"], "mem://none");
    p.assert_alive().await;

    // Without the layer, the detail is what the client gets.
    let mut p = RawPeer::start(&server_with(vec![]));
    p.initialize("2025-11-25").await;
    let m = p.request(json!(1), "tools/call", call("fails")).await;
    assert_eq!(m["error"]["message"], "db at 10.0.0.7 refused user admin");
}

type Events = Arc<Mutex<Vec<(String, Option<String>, Duration, Outcome)>>>;

#[tokio::test]
async fn timing_hook_gets_method_tool_duration_and_outcome() {
    let events: Events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    let timing = Timing::new(move |e: &ferromcp::server::middleware::TimingEvent<'_>| {
        sink.lock().unwrap().push((
            e.method.to_string(),
            e.tool.map(str::to_string),
            e.duration,
            e.outcome,
        ))
    });
    let server = server_with(vec![Arc::new(timing)]);
    let mut p = RawPeer::start(&server);
    p.initialize("2025-11-25").await;
    p.call(json!(1), "tools/call", call("echo")).await;
    p.request(json!(2), "tools/call", call("fails")).await;
    p.send(json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call("hang") }))
        .await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    p.send(
        json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
                   "params": { "requestId": 3 } }),
    )
    .await;
    // The cancelled call's event comes once its handler is dropped.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while events.lock().unwrap().len() < 4 {
        assert!(
            std::time::Instant::now() < deadline,
            "{:?}",
            events.lock().unwrap()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let events = events.lock().unwrap().clone();
    assert_eq!(events[0].0, "initialize");
    assert_eq!(events[0].3, Outcome::Ok);
    assert_eq!(
        (events[1].0.as_str(), events[1].1.as_deref(), events[1].3),
        ("tools/call", Some("echo"), Outcome::Ok)
    );
    assert_eq!(
        (events[2].1.as_deref(), events[2].3),
        (Some("fails"), Outcome::Error(-32603))
    );
    assert_eq!(
        (events[3].1.as_deref(), events[3].3),
        (Some("hang"), Outcome::Cancelled)
    );
    assert!(
        events[3].2 >= Duration::from_millis(100),
        "{:?}",
        events[3].2
    );
}

/// A `tracing` subscriber that keeps the fields of `ferromcp::request` events as text.
mod capture {
    use std::sync::{Arc, Mutex};
    use tracing::field::{Field, Visit};
    use tracing::span::{Attributes, Id, Record};
    use tracing::{Event, Metadata, Subscriber};

    /// An event's level and its fields (name, value as text).
    pub type Captured = (tracing::Level, Vec<(String, String)>);

    #[derive(Clone, Default)]
    pub struct Capture(pub Arc<Mutex<Vec<Captured>>>);

    struct Fields(Vec<(String, String)>);

    impl Visit for Fields {
        fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
            self.0
                .push((field.name().to_string(), format!("{value:?}")));
        }
        fn record_str(&mut self, field: &Field, value: &str) {
            self.0.push((field.name().to_string(), value.to_string()));
        }
    }

    impl Subscriber for Capture {
        fn enabled(&self, m: &Metadata<'_>) -> bool {
            m.target() == "ferromcp::request" || m.target() == "ferromcp::masked"
        }
        fn new_span(&self, _: &Attributes<'_>) -> Id {
            Id::from_u64(1)
        }
        fn record(&self, _: &Id, _: &Record<'_>) {}
        fn record_follows_from(&self, _: &Id, _: &Id) {}
        fn event(&self, e: &Event<'_>) {
            let mut f = Fields(vec![("target".into(), e.metadata().target().into())]);
            e.record(&mut f);
            self.0.lock().unwrap().push((*e.metadata().level(), f.0));
        }
        fn enter(&self, _: &Id) {}
        fn exit(&self, _: &Id) {}
    }
}

#[test]
fn request_log_emits_one_structured_event_per_request() {
    let capture = capture::Capture::default();
    let _guard = tracing::subscriber::set_default(capture.clone());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let server = server_with(vec![
            Arc::new(MaskErrors::new()),
            Arc::new(RequestLog::new()),
        ]);
        let mut p = RawPeer::start(&server);
        p.initialize("2025-11-25").await;
        p.call(json!(1), "tools/call", call("echo")).await;
        p.request(json!(2), "tools/call", call("fails")).await;
    });
    let events = capture.0.lock().unwrap().clone();
    let field = |i: usize, k: &str| {
        events[i]
            .1
            .iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    assert_eq!(events.len(), 4, "{events:?}");
    assert_eq!(field(0, "method"), "initialize");
    assert_eq!(events[1].0, tracing::Level::INFO);
    assert_eq!(field(1, "method"), "tools/call");
    assert_eq!(field(1, "tool"), "echo");
    assert_eq!(field(1, "outcome"), "ok");
    assert_eq!(field(1, "id"), "1");
    assert!(field(1, "session").starts_with("conn-"));
    assert!(field(1, "duration_us").parse::<u64>().is_ok());
    // The error: logged by RequestLog with its code at warn, and its detail by MaskErrors.
    assert_eq!(events[2].0, tracing::Level::WARN);
    assert_eq!(field(2, "outcome"), "error");
    assert_eq!(field(2, "code"), "-32603");
    assert_eq!(field(3, "target"), "ferromcp::masked");
    assert_eq!(field(3, "detail"), "db at 10.0.0.7 refused user admin");
}

#[tokio::test]
async fn input_required_rounds_and_cancellation_work_through_the_chain() {
    let seen = log();
    let ask = tool_fn(|_, ctx| async move {
        let p = json!({ "message": "?", "requestedSchema": { "type": "object" } });
        let r = ctx.request("elicitation/create", Some(p)).await?;
        Ok(CallToolResult::text(r["action"].as_str().unwrap_or("?")))
    });
    let server = Server::builder("mw-test", "1")
        .tool_raw(Tool::new("ask"), ask)
        .tool_raw(
            Tool::new("hang"),
            tool_fn(|_, _| async move {
                tokio::time::sleep(Duration::from_millis(300)).await;
                Ok(CallToolResult::text("late"))
            }),
        )
        .middleware(Record {
            tag: "a",
            log: seen.clone(),
        })
        .build()
        .unwrap();
    let mut p = RawPeer::start(&server);
    let mut meta = modern_meta();
    meta["io.modelcontextprotocol/clientCapabilities"] = json!({ "elicitation": {} });
    let r = p
        .call(
            json!(1),
            "tools/call",
            json!({ "name": "ask", "arguments": {}, "_meta": meta }),
        )
        .await;
    assert_eq!(r["resultType"], "input_required", "{r}");
    let key = r["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    let r = p
        .call(
            json!(2),
            "tools/call",
            json!({ "name": "ask", "arguments": {}, "_meta": meta,
                    "inputResponses": { key: { "action": "accept" } },
                    "requestState": r["requestState"] }),
        )
        .await;
    assert_eq!(r["content"][0]["text"], "accept", "{r}");
    // A cancelled call is not answered, and the layer's future is dropped with it.
    p.initialize("2025-11-25").await;
    p.send(json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call("hang") }))
        .await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    p.send(
        json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
                   "params": { "requestId": 3 } }),
    )
    .await;
    p.assert_silent(Duration::from_millis(500)).await;
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen.iter().filter(|s| *s == "a:tools/call").count(),
        3,
        "{seen:?}"
    );
    // Two calls answered; the cancelled one never came back through the layer.
    assert_eq!(
        seen.iter().filter(|s| *s == "a:done:tools/call").count(),
        2,
        "{seen:?}"
    );
}
