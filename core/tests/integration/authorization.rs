//! Proves authorization per tool, resource and prompt (`ferromcp::server::authorization`):
//! hidden items are absent from every list, refused on call/read/get/complete with the very
//! error an item that does not exist gets, pages stay full with valid cursors when items are
//! hidden, a predicate decides from the request's context, and over Streamable HTTP the
//! scopes of the bearer token decide.

use crate::common_http;
use crate::support;

use common_http::{init_body, send, Resp, JSON_SSE};
use ferromcp::auth::{AuthInfo, ResourceAuth};
use ferromcp::protocol::{
    CallToolResult, Completion, GetPromptResult, Prompt, Resource, ResourceContents,
    ResourceTemplate, TextResourceContents, Tool,
};
use ferromcp::server::authorization::{Authorization, ItemKind};
use ferromcp::server::{completion_fn, prompt_fn, resource_fn, tool_fn, CompletionRef, Server};
use ferromcp::transport::http::{serve_http, HttpServerOptions};
use futures_util::future::BoxFuture;
use serde_json::{json, Value};
use std::sync::Arc;
use support::{error_code, RawPeer};

fn text_resource() -> ferromcp::server::ResourceFn {
    resource_fn(|req, _| async move {
        Ok(vec![ResourceContents::Text(TextResourceContents::new(
            req.uri, "contents",
        ))])
    })
}

/// A server with public and secret tools, resources, templates and prompts, page size 2.
fn server_with(authz: Authorization) -> Server {
    let mut b = Server::builder("authz", "1").options(|o| o.page_size = 2);
    for name in [
        "admin_reset",
        "echo",
        "admin_delete",
        "search",
        "admin_grant",
        "time",
        "admin_audit",
    ] {
        b = b.tool_raw(
            Tool::new(name),
            tool_fn(move |_, _| async move { Ok(CallToolResult::text(format!("ran {name}"))) }),
        );
    }
    b.resource(Resource::new("public://readme", "readme"), text_resource())
        .resource(Resource::new("secret://keys", "keys"), text_resource())
        .resource_template(
            ResourceTemplate::new("secret://vault/{id}", "vault"),
            text_resource(),
        )
        .resource_template(
            ResourceTemplate::new("public://docs/{page}", "docs"),
            text_resource(),
        )
        .prompt(
            Prompt::new("greet"),
            prompt_fn(|_, _| async move { Ok(GetPromptResult::default()) }),
        )
        .prompt(
            Prompt::new("admin_report"),
            prompt_fn(|_, _| async move { Ok(GetPromptResult::default()) }),
        )
        .completion(
            CompletionRef::Prompt("admin_report".into()),
            "x",
            completion_fn(|_, _| async move {
                let mut c = Completion::default();
                c.values = vec!["secret-value".into()];
                Ok(c)
            }),
        )
        .completion(
            CompletionRef::Resource("secret://vault/{id}".into()),
            "id",
            completion_fn(|_, _| async move {
                let mut c = Completion::default();
                c.values = vec!["vault-42".into()];
                Ok(c)
            }),
        )
        .middleware(authz)
        .build()
        .unwrap()
}

fn admin_policy() -> Authorization {
    Authorization::new()
        .require_scopes(ItemKind::Tool, "admin_*", ["admin"])
        .require_scopes(ItemKind::Resource, "secret://*", ["secrets"])
        .require_scopes(ItemKind::Prompt, "admin_*", ["admin"])
}

/// Every item of a list, following `nextCursor`, and the size of each page.
async fn list_all(
    p: &mut RawPeer,
    method: &str,
    key: &str,
    field: &str,
) -> (Vec<String>, Vec<usize>) {
    let (mut names, mut sizes) = (Vec::new(), Vec::new());
    let mut cursor: Option<String> = None;
    for i in 0..50 {
        let params = match &cursor {
            Some(c) => json!({ "cursor": c }),
            None => json!({}),
        };
        let r = p.call(json!(format!("{method}-{i}")), method, params).await;
        let items = r[key].as_array().unwrap();
        sizes.push(items.len());
        names.extend(items.iter().map(|t| t[field].as_str().unwrap().to_string()));
        match r.get("nextCursor").and_then(Value::as_str) {
            Some(c) => cursor = Some(c.to_string()),
            None => return (names, sizes),
        }
    }
    panic!("{method} never ended");
}

#[tokio::test]
async fn hidden_tools_are_absent_from_tools_list() {
    let server = server_with(admin_policy());
    let mut p = RawPeer::start(&server);
    p.initialize("2025-11-25").await;
    let (names, _) = list_all(&mut p, "tools/list", "tools", "name").await;
    assert_eq!(names, ["echo", "search", "time"]);
}

#[tokio::test]
async fn a_hidden_tool_is_refused_as_an_unknown_one() {
    let server = server_with(admin_policy());
    let mut p = RawPeer::start(&server);
    p.initialize("2025-11-25").await;
    let hidden = p
        .request(
            json!(1),
            "tools/call",
            json!({ "name": "admin_delete", "arguments": {} }),
        )
        .await;
    let missing = p
        .request(
            json!(2),
            "tools/call",
            json!({ "name": "admin_nothing", "arguments": {} }),
        )
        .await;
    assert_eq!(error_code(&hidden), -32602);
    assert_eq!(hidden["error"]["message"], "Unknown tool: admin_delete");
    assert_eq!(hidden["error"]["data"], json!({ "tool": "admin_delete" }));
    // Shaped exactly like the server's answer for a tool it does not have.
    assert_eq!(missing["error"]["message"], "Unknown tool: admin_nothing");
    assert_eq!(missing["error"]["data"], json!({ "tool": "admin_nothing" }));
    // A visible tool still runs.
    let r = p
        .call(
            json!(3),
            "tools/call",
            json!({ "name": "echo", "arguments": {} }),
        )
        .await;
    assert_eq!(r["content"][0]["text"], "ran echo");
}

#[tokio::test]
async fn hidden_resources_templates_and_prompts_are_absent_and_refused() {
    let server = server_with(admin_policy());
    let mut p = RawPeer::start(&server);
    p.initialize("2025-11-25").await;
    let (uris, _) = list_all(&mut p, "resources/list", "resources", "uri").await;
    assert_eq!(uris, ["public://readme"]);
    let (templates, _) = list_all(
        &mut p,
        "resources/templates/list",
        "resourceTemplates",
        "uriTemplate",
    )
    .await;
    assert_eq!(templates, ["public://docs/{page}"]);
    let (prompts, _) = list_all(&mut p, "prompts/list", "prompts", "name").await;
    assert_eq!(prompts, ["greet"]);

    for (id, uri) in ["secret://keys", "secret://vault/7"]
        .into_iter()
        .enumerate()
    {
        let m = p
            .request(json!(id), "resources/read", json!({ "uri": uri }))
            .await;
        assert_eq!(error_code(&m), -32002, "{m}");
        assert_eq!(m["error"]["data"], json!({ "uri": uri }));
    }
    let m = p
        .request(
            json!(10),
            "resources/subscribe",
            json!({ "uri": "secret://keys" }),
        )
        .await;
    assert_eq!(error_code(&m), -32002);
    let r = p
        .call(
            json!(11),
            "resources/read",
            json!({ "uri": "public://docs/intro" }),
        )
        .await;
    assert_eq!(r["contents"][0]["uri"], "public://docs/intro");

    let m = p
        .request(json!(12), "prompts/get", json!({ "name": "admin_report" }))
        .await;
    assert_eq!(error_code(&m), -32602);
    assert_eq!(m["error"]["message"], "Unknown prompt: admin_report");
    p.call(json!(13), "prompts/get", json!({ "name": "greet" }))
        .await;

    let m = p
        .request(
            json!(14),
            "completion/complete",
            json!({ "ref": { "type": "ref/prompt", "name": "admin_report" },
                    "argument": { "name": "x", "value": "" } }),
        )
        .await;
    assert_eq!(error_code(&m), -32602);
    // A hidden template completes to nothing, as one the server does not know.
    let r = p
        .call(
            json!(15),
            "completion/complete",
            json!({ "ref": { "type": "ref/resource", "uri": "secret://vault/{id}" },
                    "argument": { "name": "id", "value": "" } }),
        )
        .await;
    assert_eq!(r["completion"]["values"], json!([]));
}

#[tokio::test]
async fn pages_stay_full_and_cursors_valid_when_items_are_hidden() {
    let server = server_with(admin_policy());
    let mut p = RawPeer::start(&server);
    p.initialize("2025-11-25").await;
    // Seven tools, four hidden and interleaved with the visible ones; two per page.
    let (names, sizes) = list_all(&mut p, "tools/list", "tools", "name").await;
    assert_eq!(names, ["echo", "search", "time"]);
    assert_eq!(sizes, [2, 1]);
    // A cursor past the visible list (the unfiltered list is longer) is refused.
    let m = p
        .request(json!(1), "tools/list", json!({ "cursor": "fmc1.6" }))
        .await;
    assert_eq!(error_code(&m), -32602, "{m}");
    let m = p
        .request(json!(2), "tools/list", json!({ "cursor": 5 }))
        .await;
    assert_eq!(error_code(&m), -32602, "{m}");
}

#[tokio::test]
async fn a_predicate_decides_from_the_client_identity() {
    // Only a client that calls itself "ops-console" sees the admin tools.
    let policy = Authorization::new().allow_if(|a| {
        a.kind != ItemKind::Tool
            || !a.name.starts_with("admin_")
            || a.context
                .session()
                .negotiated()
                .is_some_and(|n| n.peer_info["name"] == "ops-console")
    });
    let server = server_with(policy);
    let mut plain = RawPeer::start(&server);
    plain.initialize("2025-11-25").await;
    let (names, _) = list_all(&mut plain, "tools/list", "tools", "name").await;
    assert_eq!(names, ["echo", "search", "time"]);

    let mut ops = RawPeer::start(&server);
    ops.request(
        json!("init"),
        "initialize",
        json!({ "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": { "name": "ops-console", "version": "1" } }),
    )
    .await;
    ops.send(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))
        .await;
    let (names, _) = list_all(&mut ops, "tools/list", "tools", "name").await;
    assert_eq!(names.len(), 7, "{names:?}");
    let r = ops
        .call(
            json!(1),
            "tools/call",
            json!({ "name": "admin_reset", "arguments": {} }),
        )
        .await;
    assert_eq!(r["content"][0]["text"], "ran admin_reset");
}

#[tokio::test]
async fn deny_unmatched_hides_items_no_rule_names() {
    let policy = Authorization::new()
        .require_scopes(ItemKind::Tool, "echo", Vec::<String>::new())
        .deny_unmatched();
    let server = server_with(policy);
    let mut p = RawPeer::start(&server);
    p.initialize("2025-11-25").await;
    let (names, _) = list_all(&mut p, "tools/list", "tools", "name").await;
    assert_eq!(names, ["echo"]);
    let (prompts, _) = list_all(&mut p, "prompts/list", "prompts", "name").await;
    assert!(prompts.is_empty());
}

/// The JSON-RPC answer to `id` in a response (JSON body or SSE).
fn answer_of(r: &Resp, id: u64) -> Value {
    let j = r.json();
    if j.get("id") == Some(&json!(id)) {
        return j;
    }
    r.sse_messages()
        .into_iter()
        .find(|m| m["id"] == id)
        .unwrap_or_else(|| panic!("no answer to {id} in {}", r.body))
}

#[tokio::test]
async fn scopes_of_the_bearer_token_decide_over_http() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let aud = resource.clone();
    // Token "alice" holds the admin scope, "bob" none.
    let verifier = move |token: &str| -> BoxFuture<'static, Result<AuthInfo, String>> {
        let (token, aud) = (token.to_string(), aud.clone());
        Box::pin(async move {
            Ok({
                let mut lit = AuthInfo::default();
                lit.subject = Some(token.clone());
                lit.scopes = if token == "alice" {
                    vec!["admin".into()]
                } else {
                    vec![]
                };
                lit.audience = vec![aud];
                lit
            })
        })
    };
    let auth = ResourceAuth::new(
        &resource,
        vec!["http://as.example".into()],
        Arc::new(verifier),
    );
    let options = HttpServerOptions::default().with_auth(Some(Arc::new(auth)));
    let h = serve_http(server_with(admin_policy()), ("127.0.0.1", port), options)
        .await
        .unwrap();
    let url = h.url("/mcp");
    for (token, expected) in [
        (
            "Bearer alice",
            vec![
                "admin_reset",
                "echo",
                "admin_delete",
                "search",
                "admin_grant",
                "time",
                "admin_audit",
            ],
        ),
        ("Bearer bob", vec!["echo", "search", "time"]),
    ] {
        let mut headers = JSON_SSE.to_vec();
        headers.push(("authorization", token));
        let r = send("POST", &url, &headers, &init_body("2025-11-25").to_string()).await;
        assert_eq!(r.status, 200, "{}", r.body);
        let sid = r.sid().unwrap();
        headers.push(("mcp-session-id", Box::leak(sid.into_boxed_str())));
        let note = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
        assert_eq!(
            send("POST", &url, &headers, &note.to_string()).await.status,
            202
        );
        let mut names = Vec::new();
        let mut cursor: Option<String> = None;
        for id in 10..30u64 {
            let params = cursor
                .as_ref()
                .map_or(json!({}), |c| json!({ "cursor": c }));
            let body =
                json!({ "jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params });
            let m = answer_of(&send("POST", &url, &headers, &body.to_string()).await, id);
            let tools = m["result"]["tools"].as_array().unwrap().clone();
            names.extend(
                tools
                    .iter()
                    .map(|t| t["name"].as_str().unwrap().to_string()),
            );
            match m["result"]["nextCursor"].as_str() {
                Some(c) => cursor = Some(c.to_string()),
                None => break,
            }
        }
        assert_eq!(names, expected, "{token}");
        let body = common_http::call(99, "admin_delete", json!({})).to_string();
        let m = answer_of(&send("POST", &url, &headers, &body).await, 99);
        if token == "Bearer alice" {
            assert_eq!(m["result"]["content"][0]["text"], "ran admin_delete", "{m}");
        } else {
            assert_eq!(m["error"]["code"], -32602, "{m}");
            assert_eq!(m["error"]["message"], "Unknown tool: admin_delete");
        }
    }
}

#[tokio::test]
async fn the_layer_is_configured_by_name_from_json() {
    use ferromcp::server::middleware::MiddlewareConfig;
    let list = MiddlewareConfig::list_from_json(json!([{
        "name": "authorization",
        "rules": [
            { "kind": "tool", "pattern": "admin_*", "scopes": ["admin"] },
            { "kind": "prompt", "pattern": "admin_*", "scopes": ["admin"] }
        ]
    }]))
    .unwrap();
    let mut b = Server::builder("authz", "1");
    for name in ["admin_reset", "echo"] {
        b = b.tool_raw(
            Tool::new(name),
            tool_fn(|_, _| async move { Ok(CallToolResult::text("ok")) }),
        );
    }
    let layer = list[0].build().unwrap();
    let server = b.middleware(layer).build().unwrap();
    let mut p = RawPeer::start(&server);
    p.initialize("2025-11-25").await;
    let (names, _) = list_all(&mut p, "tools/list", "tools", "name").await;
    assert_eq!(names, ["echo"]);
    let e = MiddlewareConfig::list_from_json(json!([{
        "name": "authorization", "rules": [{ "kind": "table", "pattern": "*", "scopes": [] }]
    }]))
    .unwrap_err();
    assert!(e.message.contains("table"), "{}", e.message);
}

#[tokio::test]
async fn allow_if_full_pages() {
    // An asynchronous predicate asked about many items at once (the bindings' form): the four
    // hidden tools straddle the page size (2), yet every page but the last is full, and it is
    // asked once per list request with the names the scope rules let through.
    let asked: Arc<std::sync::Mutex<Vec<Vec<String>>>> = Default::default();
    let seen = asked.clone();
    let policy = Authorization::new()
        .require_scopes(ItemKind::Tool, "time", ["clock"])
        .allow_if_batch(move |request, kind, names| {
            assert_eq!(kind, ItemKind::Tool, "{}", request.method());
            seen.lock().unwrap().push(names.clone());
            let answers = names.iter().map(|n| !n.starts_with("admin_")).collect();
            Box::pin(async move { answers })
        });
    let server = server_with(policy);
    let mut p = RawPeer::start(&server);
    p.initialize("2025-11-25").await;
    let (names, sizes) = list_all(&mut p, "tools/list", "tools", "name").await;
    assert_eq!(names, ["echo", "search"]);
    assert_eq!(sizes, [2]);
    let asked = asked.lock().unwrap().clone();
    assert_eq!(
        asked,
        [vec![
            "admin_reset",
            "echo",
            "admin_delete",
            "search",
            "admin_grant",
            "admin_audit"
        ]]
    );
    // A call asks about its one name and is refused as an unknown tool.
    let m = p
        .request(
            json!(9),
            "tools/call",
            json!({ "name": "admin_grant", "arguments": {} }),
        )
        .await;
    assert_eq!(error_code(&m), -32602, "{m}");
    assert_eq!(m["error"]["message"], "Unknown tool: admin_grant");
}

#[tokio::test]
async fn a_batch_predicate_answering_too_few_hides_the_rest() {
    let policy = Authorization::new().allow_if_batch(|_, _, _| Box::pin(async { vec![true] }));
    let server = server_with(policy);
    let mut p = RawPeer::start(&server);
    p.initialize("2025-11-25").await;
    let (names, _) = list_all(&mut p, "tools/list", "tools", "name").await;
    assert_eq!(names, ["admin_reset"]);
}
