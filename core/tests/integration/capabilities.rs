//! Proves capability enforcement in all three places: the server answers -32601 for a feature it
//! did not advertise; the client refuses locally (-32601, nothing sent) to call a method the
//! server did not advertise; a server handler asking a client for sampling it did not offer gets
//! -32021 (missing client capability, the code 2026-07-28 gives it) and can report it.

use crate::support;

use ferromcp::client::{Client, ClientHandlers, ClientOptions};
use ferromcp::codes;
use ferromcp::protocol::{CallToolResult, Tool};
use ferromcp::server::{tool_fn, Server};
use ferromcp::transport::{memory_pair, FrameReader, FrameWriter, ReadStatus};
use serde_json::{json, Value};
use support::{error_code, RawPeer};

fn tools_only() -> Server {
    Server::builder("caps", "1")
        .tool_raw(
            Tool::new("ask_sampling"),
            tool_fn(|_a, ctx| async move {
                match ctx
                    .request(
                        "sampling/createMessage",
                        Some(json!({"messages": [], "maxTokens": 10})),
                    )
                    .await
                {
                    Ok(_) => Ok(CallToolResult::text("sampled")),
                    Err(e) => Ok(CallToolResult::error_text(format!(
                        "sampling failed: {}",
                        e.code
                    ))),
                }
            }),
        )
        .options(|o| o.enable_logging = false)
        .build()
        .unwrap()
}

#[tokio::test]
async fn server_rejects_unadvertised_features() {
    let mut p = RawPeer::start(&tools_only());
    let init = p.initialize("2025-11-25").await;
    assert!(init["capabilities"].get("prompts").is_none());
    assert!(init["capabilities"].get("resources").is_none());
    assert!(init["capabilities"].get("logging").is_none());
    for (i, m) in [
        "prompts/list",
        "prompts/get",
        "resources/list",
        "resources/read",
        "logging/setLevel",
        "completion/complete",
    ]
    .iter()
    .enumerate()
    {
        let r = p.request(json!(i), m, json!({})).await;
        assert_eq!(error_code(&r), codes::METHOD_NOT_FOUND as i64, "{m}: {r}");
    }
    p.assert_alive().await;
}

#[tokio::test]
async fn client_refuses_unadvertised_method_without_sending() {
    let ((r_c, w_c), (mut r_s, mut w_s)) = memory_pair(16);
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Value>();
    tokio::spawn(async move {
        let mut buf = Vec::new();
        while let Ok(ReadStatus::Frame) = r_s.read_frame(&mut buf).await {
            let m: Value = serde_json::from_slice(&buf).unwrap();
            if m["method"] == "initialize" {
                let r = json!({"jsonrpc": "2.0", "id": m["id"], "result": {"protocolVersion": "2025-11-25",
                    "capabilities": {"tools": {}}, "serverInfo": {"name": "fake", "version": "0"}}});
                w_s.write_frame(r.to_string().as_bytes()).await.unwrap();
                w_s.flush().await.unwrap();
            } else if m["method"] == "ping" {
                let r = json!({"jsonrpc": "2.0", "id": m["id"], "result": {}});
                w_s.write_frame(r.to_string().as_bytes()).await.unwrap();
                w_s.flush().await.unwrap();
            }
            let _ = tx.send(m);
        }
    });
    let client = support::within(Client::connect(
        ClientOptions::new("c", "0"),
        ClientHandlers::default(),
        r_c,
        w_c,
    ))
    .await
    .unwrap();
    let err = client
        .list_prompts(None)
        .await
        .expect_err("prompts not advertised");
    assert_eq!(err.code, codes::METHOD_NOT_FOUND);
    let err = client
        .read_resource("x://y")
        .await
        .expect_err("resources not advertised");
    assert_eq!(err.code, codes::METHOD_NOT_FOUND);
    let err = client
        .subscribe("x://y")
        .await
        .expect_err("subscribe not advertised");
    assert_eq!(err.code, codes::METHOD_NOT_FOUND);
    client.ping().await.unwrap();
    // What reached the server: initialize, initialized, ping — nothing else.
    let mut methods = Vec::new();
    while let Ok(m) = rx.try_recv() {
        methods.push(m["method"].as_str().unwrap_or("").to_string());
    }
    assert_eq!(
        methods,
        vec!["initialize", "notifications/initialized", "ping"]
    );
    client.close().await;
}

#[tokio::test]
async fn server_request_for_unoffered_sampling_fails_locally() {
    let client = support::connect(&tools_only(), ClientHandlers::default()).await;
    let r = support::within(client.call_tool("ask_sampling", json!({})))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(true));
    assert_eq!(
        r.content[0].as_text(),
        Some(format!("sampling failed: {}", codes::MISSING_CLIENT_CAPABILITY).as_str())
    );
    client.close().await;
}

/// The capabilities a server session keeps as its own are exactly what its `initialize` answer
/// sent, and sessions opened while the server's registries are unchanged share one copy (a copy
/// per session was most of an idle HTTP session's memory); after a registry changes, a new
/// session keeps the new capabilities.
#[tokio::test]
async fn sessions_keep_the_capabilities_they_were_sent_and_share_them() {
    let server = Server::builder("caps", "1")
        .tool_raw(
            Tool::new("t"),
            tool_fn(|_a, _ctx| async move { Ok(CallToolResult::text("ok")) }),
        )
        .build()
        .unwrap();
    let own = |s: &std::sync::Arc<ferromcp::session::Session>| {
        s.negotiated().unwrap().own_capabilities.clone()
    };
    let mut a = RawPeer::start(&server);
    let sent_a = a.initialize("2025-11-25").await["capabilities"].clone();
    let mut b = RawPeer::start(&server);
    let sent_b = b.initialize("2025-11-25").await["capabilities"].clone();
    // A ping answered means `notifications/initialized` was handled: the session is listed.
    a.assert_alive().await;
    b.assert_alive().await;
    let sessions = server.live_sessions();
    assert_eq!(sessions.len(), 2);
    assert_eq!(sent_a, sent_b);
    assert_eq!(*own(&sessions[0]), sent_a);
    assert_eq!(*own(&sessions[1]), sent_a);
    assert!(std::sync::Arc::ptr_eq(
        &own(&sessions[0]),
        &own(&sessions[1])
    ));
    assert!(sent_a.get("prompts").is_none());

    // A registry change: the next session is sent, and keeps, the new capabilities.
    server.add_prompt(
        ferromcp::protocol::Prompt::new("p"),
        ferromcp::server::prompt_fn(|_a, _ctx| async move {
            Ok(ferromcp::protocol::GetPromptResult::default())
        }),
    );
    let mut c = RawPeer::start(&server);
    let sent_c = c.initialize("2025-11-25").await["capabilities"].clone();
    c.assert_alive().await;
    assert!(sent_c.get("prompts").is_some());
    let sessions = server.live_sessions();
    let kept: Vec<Value> = sessions.iter().map(|s| (*own(s)).clone()).collect();
    assert!(kept.contains(&sent_c), "{kept:?} lacks {sent_c}");
    for p in [&mut a, &mut b, &mut c] {
        p.assert_alive().await;
    }
}

/// Sessions whose clients sent the same `clientInfo` and `capabilities` hold one copy of each
/// (an idle HTTP session kept its own, ~630 B for a two-field `clientInfo`); a client that sent
/// other values keeps its own, and every session reads back exactly what its client sent.
#[tokio::test]
async fn sessions_of_the_same_client_share_its_info_and_capabilities() {
    let server = Server::builder("caps-shared", "1").build().unwrap();
    let init = |info: Value, caps: Value| {
        let server = server.clone();
        async move {
            let mut p = RawPeer::start(&server);
            let m = p
                .request(
                    json!("init"),
                    "initialize",
                    json!({"protocolVersion": "2025-11-25", "capabilities": caps, "clientInfo": info}),
                )
                .await;
            assert!(m.get("result").is_some(), "{m}");
            p.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
                .await;
            p.assert_alive().await;
            p
        }
    };
    let same_info = json!({"name": "shared-client", "version": "7.1"});
    let same_caps = json!({"sampling": {}, "roots": {"listChanged": true}});
    let _a = init(same_info.clone(), same_caps.clone()).await;
    let _b = init(same_info.clone(), same_caps.clone()).await;
    let other_info = json!({"name": "other-client", "version": "1"});
    let _c = init(other_info.clone(), same_caps.clone()).await;
    let sessions = server.live_sessions();
    assert_eq!(sessions.len(), 3);
    let info =
        |s: &std::sync::Arc<ferromcp::session::Session>| s.negotiated().unwrap().peer_info.clone();
    let caps = |s: &std::sync::Arc<ferromcp::session::Session>| {
        s.negotiated().unwrap().peer_capabilities.clone()
    };
    let (same, other): (Vec<_>, Vec<_>) = sessions.iter().partition(|s| *info(s) == same_info);
    assert_eq!(same.len(), 2);
    assert_eq!(other.len(), 1);
    assert_eq!(*info(other[0]), other_info);
    assert!(std::sync::Arc::ptr_eq(&info(same[0]), &info(same[1])));
    assert!(!std::sync::Arc::ptr_eq(&info(same[0]), &info(other[0])));
    for s in &sessions {
        assert_eq!(*caps(s), same_caps);
    }
    assert!(std::sync::Arc::ptr_eq(
        &caps(&sessions[0]),
        &caps(&sessions[1])
    ));
    assert!(std::sync::Arc::ptr_eq(
        &caps(&sessions[1]),
        &caps(&sessions[2])
    ));
}

/// `tools/call` on the typed lane: a server without tools answers -32601 (it offers no tools),
/// one with tools answers an unknown name with -32602.
#[tokio::test]
async fn tools_call_without_the_tools_capability_is_method_not_found() {
    let none = Server::builder("no-tools", "1").build().unwrap();
    let mut p = RawPeer::start(&none);
    let init = p.initialize("2025-11-25").await;
    assert!(init["capabilities"].get("tools").is_none(), "{init}");
    let r = p
        .request(json!(1), "tools/call", json!({ "name": "echo" }))
        .await;
    assert_eq!(error_code(&r), codes::METHOD_NOT_FOUND as i64, "{r}");
    assert_eq!(
        r["error"]["data"]["reason"],
        "this server does not offer tools"
    );
    p.assert_alive().await;

    let mut p = RawPeer::start(&tools_only());
    p.initialize("2025-11-25").await;
    let r = p
        .request(json!(2), "tools/call", json!({ "name": "nope" }))
        .await;
    assert_eq!(error_code(&r), codes::INVALID_PARAMS as i64, "{r}");
    p.assert_alive().await;
}
