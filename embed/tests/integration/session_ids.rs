//! The session-id hooks the bindings' TypeScript-SDK-shaped transports need: a host framework
//! handing a request to [`EmbeddedHttpHandler::handle_with_session_id`] chooses the id of the
//! session that request opens (the SDK's `sessionIdGenerator`, and its `SSEServerTransport`
//! whose id is known before the stream opens); a client connected over HTTP reports the
//! session id the server assigned ([`EmbeddedClient::session_id`], the SDK's
//! `transport.sessionId`).

use ferromcp_embed::{
    ClientConfig, EmbeddedClient, EmbeddedHttpHandler, EmbeddedServer, HttpConfig, HttpRequestParts,
};
use serde_json::{json, Value};

fn server() -> EmbeddedServer {
    EmbeddedServer::from_json(json!({"name": "t", "version": "1"})).unwrap()
}

fn handler(s: &EmbeddedServer) -> EmbeddedHttpHandler {
    s.http_handler(&HttpConfig::from_json(json!({"dnsRebindingProtection": false})).unwrap())
        .unwrap()
}

fn initialize() -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "c", "version": "1"}}})
    .to_string()
    .into_bytes()
}

fn post(body: Vec<u8>, extra: &[(&str, &str)]) -> HttpRequestParts {
    let mut headers = vec![
        ("host".to_string(), "localhost".to_string()),
        ("content-type".to_string(), "application/json".to_string()),
        (
            "accept".to_string(),
            "application/json, text/event-stream".to_string(),
        ),
    ];
    headers.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    HttpRequestParts {
        method: "POST".into(),
        uri: "/mcp".into(),
        headers,
        body,
    }
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

#[tokio::test]
async fn an_initialize_handed_over_with_a_chosen_id_opens_the_session_under_that_id() {
    let s = server();
    let h = handler(&s);
    let r = h
        .handle_with_session_id(post(initialize(), &[]), "chosen-by-the-host-1")
        .await
        .unwrap();
    assert_eq!(r.status, 200);
    assert_eq!(
        header(&r.headers, "mcp-session-id"),
        Some("chosen-by-the-host-1")
    );
    // The session is live under that id: a later request naming it is served.
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}).to_string();
    let r = h
        .handle(post(
            ping.into_bytes(),
            &[
                ("mcp-session-id", "chosen-by-the-host-1"),
                ("mcp-protocol-version", "2025-11-25"),
            ],
        ))
        .await
        .unwrap();
    assert_eq!(r.status, 200);
    let mut body = Vec::new();
    while let Some(c) = r.next_chunk().await.unwrap() {
        body.extend(c);
    }
    let text = String::from_utf8(body).unwrap();
    assert!(
        text.contains(r#""id":2"#) && text.contains(r#""result""#),
        "{text}"
    );
}

#[tokio::test]
async fn without_a_chosen_id_the_session_id_is_random() {
    let s = server();
    let h = handler(&s);
    let a = h.handle(post(initialize(), &[])).await.unwrap();
    let b = h.handle(post(initialize(), &[])).await.unwrap();
    let (a, b) = (
        header(&a.headers, "mcp-session-id").unwrap().to_string(),
        header(&b.headers, "mcp-session-id").unwrap().to_string(),
    );
    assert_eq!(a.len(), 32);
    assert_ne!(a, b);
}

#[tokio::test]
async fn a_chosen_id_outside_the_visible_ascii_range_is_refused() {
    let s = server();
    let h = handler(&s);
    for bad in ["", "has space", "tab\t", "é", &"x".repeat(257)] {
        let e = h
            .handle_with_session_id(post(initialize(), &[]), bad)
            .await
            .unwrap_err();
        assert_eq!(e.code, ferromcp::codes::INVALID_PARAMS, "{bad:?}");
        assert!(e.message.contains("visible ASCII"), "{}", e.message);
    }
}

#[tokio::test]
async fn the_legacy_sse_stream_opened_with_a_chosen_id_names_it_in_its_endpoint_event() {
    let s = server();
    let h = s
        .http_handler(
            &HttpConfig::from_json(json!({
                "dnsRebindingProtection": false, "legacySse": true,
                "legacySsePath": "/sse", "legacyMessagesPath": "/messages"
            }))
            .unwrap(),
        )
        .unwrap();
    let get = HttpRequestParts {
        method: "GET".into(),
        uri: "/sse".into(),
        headers: vec![
            ("host".into(), "localhost".into()),
            ("accept".into(), "text/event-stream".into()),
        ],
        body: Vec::new(),
    };
    let r = h
        .handle_with_session_id(get, "legacy-chosen")
        .await
        .unwrap();
    assert_eq!(r.status, 200);
    let first = String::from_utf8(r.next_chunk().await.unwrap().unwrap()).unwrap();
    assert!(
        first.contains("event: endpoint")
            && first.contains("data: /messages?sessionId=legacy-chosen"),
        "{first}"
    );
    r.cancel();
}

#[tokio::test]
async fn a_client_over_http_reports_the_session_id_the_server_assigned() {
    let s = server();
    let http = s
        .serve_http("127.0.0.1", 0, &HttpConfig::from_json(Value::Null).unwrap())
        .await
        .unwrap();
    let config = ClientConfig::from_json(json!({})).unwrap();
    let c = EmbeddedClient::connect_http(http.url(), vec![], false, &config, None)
        .await
        .unwrap();
    let sid = c.session_id().expect("a session id");
    assert_eq!(sid.len(), 32, "{sid}");
    // Another connection has another session, reported by its own client.
    let d = EmbeddedClient::connect_http(http.url(), vec![], false, &config, None)
        .await
        .unwrap();
    assert_ne!(d.session_id().unwrap(), sid);
    c.close().await;
    d.close().await;
    // In memory there is none.
    let m = EmbeddedClient::connect_memory(&s, &config, None)
        .await
        .unwrap();
    assert_eq!(m.session_id(), None);
    http.close().await.unwrap();
}

#[tokio::test]
async fn a_client_of_a_stateless_server_has_no_session_id() {
    let s = server();
    let http = s
        .serve_http(
            "127.0.0.1",
            0,
            &HttpConfig::from_json(json!({"stateless": true})).unwrap(),
        )
        .await
        .unwrap();
    let config = ClientConfig::from_json(json!({})).unwrap();
    let c = EmbeddedClient::connect_http(http.url(), vec![], false, &config, None)
        .await
        .unwrap();
    assert_eq!(c.session_id(), None);
    c.close().await;
    http.close().await.unwrap();
}
