//! Proves the `ResponseCache` middleware: a second list or read within the TTL is answered
//! without reaching the layers after it (hit), answers expire after the TTL, explicit
//! invalidation and the server's own `list_changed` / `resources/updated` forget them, a tool's
//! calls are cached only when named, and one principal's or session's answer never reaches
//! another (in memory by session; over Streamable HTTP by principal, shared across that
//! principal's sessions).

use crate::common_http;

use common_http::*;
use ferromcp::auth::{AuthInfo, ResourceAuth};
use ferromcp::client::{Client, ClientHandlers, ClientOptions};
use ferromcp::protocol::{CallToolResult, Resource, ResourceContents, TextResourceContents, Tool};
use ferromcp::server::middleware::{
    CacheScope, Middleware, MiddlewareRequest, Next, ResponseCache, ResponseCacheConfig,
};
use ferromcp::server::{resource_fn, tool_fn, Server};
use ferromcp::transport::http::{serve_http, HttpServerOptions};
use ferromcp::transport::memory_pair;
use ferromcp::McpError;
use futures_util::future::BoxFuture;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Counts the requests that get past the cache, by method.
#[derive(Clone, Default)]
struct Behind(Arc<Mutex<Vec<String>>>);

impl Behind {
    fn count(&self, method: &str) -> usize {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter(|m| *m == method)
            .count()
    }
}

impl Middleware for Behind {
    fn handle<'a>(
        &'a self,
        request: MiddlewareRequest,
        next: Next<'a>,
    ) -> BoxFuture<'a, Result<ferromcp::server::middleware::MiddlewareResponse, McpError>> {
        self.0.lock().unwrap().push(request.method().to_string());
        next.run(request)
    }
}

fn text_resource(uri: &str, counter: Arc<AtomicUsize>) -> (Resource, ferromcp::server::ResourceFn) {
    (
        Resource::new(uri, uri).with_mime_type("text/plain"),
        resource_fn(move |req, ctx| {
            let n = counter.fetch_add(1, Ordering::SeqCst) + 1;
            let who = match ctx.auth().and_then(|a| a.subject.clone()) {
                Some(s) => s,
                None => format!("session {}", ctx.session().serial()),
            };
            async move {
                Ok(vec![ResourceContents::Text(TextResourceContents::new(
                    req.uri,
                    format!("read {n} for {who}"),
                ))])
            }
        }),
    )
}

fn server(cache: &ResponseCache, behind: &Behind, reads: &Arc<AtomicUsize>) -> Server {
    let (a, ha) = text_resource("mem://a", reads.clone());
    let (b, hb) = text_resource("mem://b", reads.clone());
    let calls = Arc::new(AtomicUsize::new(0));
    let calls2 = calls.clone();
    Server::builder("cache", "1")
        .middleware(cache.clone())
        .middleware(behind.clone())
        .resource(a, ha)
        .resource(b, hb)
        .tool_raw(
            Tool::new("forecast"),
            tool_fn(move |args, _| {
                let n = calls.fetch_add(1, Ordering::SeqCst) + 1;
                async move {
                    Ok(CallToolResult::text(format!(
                        "call {n} for {}",
                        Value::Object(args)
                    )))
                }
            }),
        )
        .tool_raw(
            Tool::new("roll"),
            tool_fn(move |_, _| {
                let n = calls2.fetch_add(1, Ordering::SeqCst) + 1;
                async move { Ok(CallToolResult::text(format!("roll {n}"))) }
            }),
        )
        .build()
        .unwrap()
}

fn cache(ttl_ms: u64) -> ResponseCache {
    let mut c = ResponseCacheConfig::new(Duration::from_millis(ttl_ms));
    c.tools = vec!["forecast".into()];
    ResponseCache::new(c).unwrap()
}

async fn connect(server: &Server) -> Client {
    let ((cr, cw), (sr, sw)) = memory_pair(16);
    let s = server.clone();
    tokio::spawn(async move { s.serve(sr, sw).await });
    Client::connect(
        ClientOptions::new("c", "1"),
        ClientHandlers::default(),
        cr,
        cw,
    )
    .await
    .unwrap()
}

async fn read_text(c: &Client, uri: &str) -> String {
    let r = c.read_resource(uri).await.unwrap();
    let ResourceContents::Text(t) = &r.contents[0] else {
        panic!("text")
    };
    t.text.clone()
}

fn call_text(r: &CallToolResult) -> String {
    serde_json::to_value(r).unwrap()["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn a_second_list_and_read_within_the_ttl_are_hits() {
    let (cache, behind, reads) = (
        cache(60_000),
        Behind::default(),
        Arc::new(AtomicUsize::new(0)),
    );
    let s = server(&cache, &behind, &reads);
    let c = connect(&s).await;
    let first = c.list_all_tools().await.unwrap();
    let second = c.list_all_tools().await.unwrap();
    assert_eq!(first, second);
    assert_eq!(behind.count("tools/list"), 1);
    assert_eq!(
        read_text(&c, "mem://a").await,
        read_text(&c, "mem://a").await
    );
    assert_eq!(reads.load(Ordering::SeqCst), 1);
    // Another URI is another entry.
    read_text(&c, "mem://b").await;
    assert_eq!(reads.load(Ordering::SeqCst), 2);
    assert_eq!(cache.stats(), (2, 3));
    c.close().await;
}

#[tokio::test]
async fn tool_calls_are_cached_only_for_named_tools_by_arguments() {
    let (cache, behind, reads) = (
        cache(60_000),
        Behind::default(),
        Arc::new(AtomicUsize::new(0)),
    );
    let s = server(&cache, &behind, &reads);
    let c = connect(&s).await;
    let oslo = call_text(
        &c.call_tool("forecast", json!({ "city": "Oslo" }))
            .await
            .unwrap(),
    );
    assert_eq!(
        call_text(
            &c.call_tool("forecast", json!({ "city": "Oslo" }))
                .await
                .unwrap()
        ),
        oslo
    );
    let lima = call_text(
        &c.call_tool("forecast", json!({ "city": "Lima" }))
            .await
            .unwrap(),
    );
    assert_ne!(lima, oslo);
    assert_eq!(behind.count("tools/call"), 2);
    // Not named: every call runs.
    let r1 = call_text(&c.call_tool("roll", json!({})).await.unwrap());
    let r2 = call_text(&c.call_tool("roll", json!({})).await.unwrap());
    assert_ne!(r1, r2);
    assert_eq!(behind.count("tools/call"), 4);
    c.close().await;
}

#[tokio::test]
async fn entries_expire_after_the_ttl() {
    let (cache, behind, reads) = (cache(400), Behind::default(), Arc::new(AtomicUsize::new(0)));
    let s = server(&cache, &behind, &reads);
    let c = connect(&s).await;
    let first = read_text(&c, "mem://a").await;
    assert_eq!(read_text(&c, "mem://a").await, first);
    tokio::time::sleep(Duration::from_millis(600)).await;
    let later = read_text(&c, "mem://a").await;
    assert_ne!(later, first);
    assert_eq!(reads.load(Ordering::SeqCst), 2);
    c.close().await;
}

#[tokio::test]
async fn explicit_invalidation_forgets_entries() {
    let (cache, behind, reads) = (
        cache(60_000),
        Behind::default(),
        Arc::new(AtomicUsize::new(0)),
    );
    let s = server(&cache, &behind, &reads);
    let c = connect(&s).await;
    read_text(&c, "mem://a").await;
    read_text(&c, "mem://b").await;
    cache.invalidate_resource("mem://a");
    read_text(&c, "mem://a").await;
    read_text(&c, "mem://b").await;
    assert_eq!(reads.load(Ordering::SeqCst), 3, "only mem://a read again");
    c.list_all_tools().await.unwrap();
    cache.invalidate("tools/list");
    c.list_all_tools().await.unwrap();
    assert_eq!(behind.count("tools/list"), 2);
    cache.invalidate_all();
    assert!(cache.is_empty());
    read_text(&c, "mem://b").await;
    assert_eq!(reads.load(Ordering::SeqCst), 4);
    c.close().await;
}

#[tokio::test]
async fn list_changed_and_resource_updated_invalidate() {
    let (cache, behind, reads) = (
        cache(60_000),
        Behind::default(),
        Arc::new(AtomicUsize::new(0)),
    );
    let s = server(&cache, &behind, &reads);
    let c = connect(&s).await;
    assert_eq!(c.list_all_tools().await.unwrap().len(), 2);
    s.add_tool(
        Tool::new("added"),
        tool_fn(|_, _| async { Ok(CallToolResult::text("new")) }),
    )
    .unwrap();
    let names: Vec<String> = c
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert!(names.contains(&"added".to_string()), "{names:?}");
    read_text(&c, "mem://a").await;
    read_text(&c, "mem://b").await;
    s.notify_resource_updated("mem://a");
    read_text(&c, "mem://a").await;
    read_text(&c, "mem://b").await;
    assert_eq!(
        reads.load(Ordering::SeqCst),
        3,
        "the update forgets mem://a only"
    );
    let (r, hr) = text_resource("mem://c", reads.clone());
    s.add_resource(r, hr);
    read_text(&c, "mem://b").await;
    assert_eq!(
        reads.load(Ordering::SeqCst),
        4,
        "resources/list_changed forgets every read"
    );
    c.close().await;
}

#[tokio::test]
async fn one_session_never_gets_another_sessions_answer() {
    for scope in [CacheScope::Principal, CacheScope::Session] {
        let mut config = ResponseCacheConfig::new(Duration::from_secs(60));
        config.scope = scope;
        let cache = ResponseCache::new(config).unwrap();
        let (behind, reads) = (Behind::default(), Arc::new(AtomicUsize::new(0)));
        let s = server(&cache, &behind, &reads);
        let (c1, c2) = (connect(&s).await, connect(&s).await);
        let a1 = read_text(&c1, "mem://a").await;
        let a2 = read_text(&c2, "mem://a").await;
        assert_ne!(a1, a2, "{scope:?}");
        assert_eq!(read_text(&c1, "mem://a").await, a1);
        assert_eq!(read_text(&c2, "mem://a").await, a2);
        assert_eq!(reads.load(Ordering::SeqCst), 2);
        c1.close().await;
        c2.close().await;
    }
    // Shared: the one answer for all.
    let mut config = ResponseCacheConfig::new(Duration::from_secs(60));
    config.scope = CacheScope::Shared;
    let cache = ResponseCache::new(config).unwrap();
    let (behind, reads) = (Behind::default(), Arc::new(AtomicUsize::new(0)));
    let s = server(&cache, &behind, &reads);
    let (c1, c2) = (connect(&s).await, connect(&s).await);
    assert_eq!(
        read_text(&c1, "mem://a").await,
        read_text(&c2, "mem://a").await
    );
    c1.close().await;
    c2.close().await;
}

#[tokio::test]
async fn no_cross_principal_leak_over_http() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let aud = resource.clone();
    let verifier = move |token: &str| -> BoxFuture<'static, Result<AuthInfo, String>> {
        let (token, aud) = (token.to_string(), aud.clone());
        Box::pin(async move {
            let mut info = AuthInfo::default();
            info.subject = Some(format!("user-{token}"));
            info.audience = vec![aud];
            Ok(info)
        })
    };
    let auth = ResourceAuth::new(
        &resource,
        vec!["http://as.example".into()],
        Arc::new(verifier),
    );
    let options = HttpServerOptions::default().with_auth(Some(Arc::new(auth)));
    let (cache, behind, reads) = (
        cache(60_000),
        Behind::default(),
        Arc::new(AtomicUsize::new(0)),
    );
    let h = serve_http(
        server(&cache, &behind, &reads),
        ("127.0.0.1", port),
        options,
    )
    .await
    .unwrap();
    let url = h.url("/mcp");
    let session = |token: &'static str| {
        let url = url.clone();
        async move {
            let mut headers = JSON_SSE.to_vec();
            headers.push(("authorization", token));
            let r = send("POST", &url, &headers, &init_body("2025-11-25").to_string()).await;
            assert_eq!(r.status, 200, "{}", r.body);
            let sid = r.sid().unwrap();
            headers.push(("mcp-session-id", Box::leak(sid.into_boxed_str())));
            let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
            send("POST", &url, &headers, &note.to_string()).await;
            headers
        }
    };
    let read = |headers: Vec<(&'static str, &'static str)>, id: u64| {
        let url = url.clone();
        async move {
            let body = json!({"jsonrpc": "2.0", "id": id, "method": "resources/read",
                              "params": {"uri": "mem://a"}});
            let r = send("POST", &url, &headers, &body.to_string()).await;
            let m = r
                .sse_messages()
                .into_iter()
                .chain(std::iter::once(r.json()))
                .find(|m| m["id"] == id)
                .unwrap_or_else(|| panic!("no answer in {}", r.body));
            m["result"]["contents"][0]["text"]
                .as_str()
                .unwrap()
                .to_string()
        }
    };
    let alice1 = session("Bearer alice").await;
    let alice2 = session("Bearer alice").await;
    let bob = session("Bearer bob").await;
    let a = read(alice1, 1).await;
    assert_eq!(a, "read 1 for user-alice");
    assert_eq!(read(alice2, 2).await, a, "alice's sessions share her entry");
    assert_eq!(
        read(bob, 3).await,
        "read 2 for user-bob",
        "bob never gets alice's answer"
    );
    assert_eq!(reads.load(Ordering::SeqCst), 2);
}
