//! The built-in RFC 7662 verifier against an introspection endpoint written here: the request
//! carries the token and the resource server's Basic credentials; active tokens become
//! identities that `ResourceAuth` then checks (audience, expiry, scopes); inactive tokens, a
//! refused client and a failing endpoint are 401s.

#![cfg(feature = "http")]

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use ferromcp::auth::{IntrospectionVerifier, ResourceAuth};
use serde_json::json;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// Serves `POST /introspect` one connection at a time; records each request body.
async fn endpoint(resource: String, seen: Arc<Mutex<Vec<String>>>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/introspect", listener.local_addr().unwrap());
    tokio::spawn(async move {
        loop {
            let Ok((mut s, _)) = listener.accept().await else {
                return;
            };
            let mut buf = Vec::new();
            let mut chunk = [0u8; 4096];
            let (head, body) = loop {
                let n = s.read(&mut chunk).await.unwrap_or(0);
                if n == 0 {
                    break (String::new(), String::new());
                }
                buf.extend_from_slice(&chunk[..n]);
                let text = String::from_utf8_lossy(&buf).to_string();
                let Some(end) = text.find("\r\n\r\n") else {
                    continue;
                };
                let head = text[..end].to_lowercase();
                let len = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .and_then(|v| v.trim().parse::<usize>().ok())
                    .unwrap_or(0);
                if buf.len() >= end + 4 + len {
                    break (head, text[end + 4..end + 4 + len].to_string());
                }
            };
            seen.lock().unwrap().push(body.clone());
            let basic = format!(
                "authorization: basic {}",
                STANDARD.encode("rs%3A1:s%26cret").to_lowercase()
            );
            let token = form_token(&body);
            let (status, doc) = if !head.contains(&basic) {
                ("401 Unauthorized", json!({"error": "invalid_client"}))
            } else {
                let active = |sub: &str, scope: &str, aud: &str, exp: u64| {
                    json!({"active": true, "sub": sub, "client_id": "app", "scope": scope,
                           "aud": aud, "exp": exp, "tenant": "t1"})
                };
                match token.as_str() {
                    "good" => (
                        "200 OK",
                        active("alice", "mcp extra", &resource, now() + 600),
                    ),
                    "narrow" => ("200 OK", active("bob", "other", &resource, now() + 600)),
                    "elsewhere" => (
                        "200 OK",
                        active("eve", "mcp", "http://other/mcp", now() + 600),
                    ),
                    "expired" => ("200 OK", active("old", "mcp", &resource, now() - 5)),
                    "broken" => ("500 Internal Server Error", json!({})),
                    _ => ("200 OK", json!({"active": false})),
                }
            };
            let body = doc.to_string();
            let answer = format!(
                "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = s.write_all(answer.as_bytes()).await;
        }
    });
    url
}

fn form_token(body: &str) -> String {
    body.split('&')
        .find_map(|p| p.strip_prefix("token="))
        .unwrap_or("")
        .to_string()
}

#[tokio::test]
async fn introspection_verifier_feeds_resource_checks() {
    let resource = "http://127.0.0.1:9/mcp".to_string();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let url = endpoint(resource.clone(), seen.clone()).await;
    let verifier = IntrospectionVerifier::new(&url).client_credentials("rs:1", "s&cret");
    let auth = ResourceAuth::new(&resource, vec!["http://as".into()], Arc::new(verifier))
        .require_scopes(&["mcp"]);

    let ok = auth
        .check(Some("Bearer good"))
        .await
        .expect("an active token");
    assert_eq!(ok.subject.as_deref(), Some("alice"));
    assert_eq!(ok.client_id.as_deref(), Some("app"));
    assert_eq!(ok.scopes, ["mcp", "extra"]);
    assert_eq!(ok.claims["tenant"], "t1");
    assert!(seen.lock().unwrap()[0].contains("token_type_hint=access_token"));

    for (token, status, error) in [
        ("revoked", 401, "invalid_token"),
        ("elsewhere", 401, "invalid_token"),
        ("expired", 401, "invalid_token"),
        ("broken", 401, "invalid_token"),
        ("narrow", 403, "insufficient_scope"),
    ] {
        let d = auth
            .check(Some(&format!("Bearer {token}")))
            .await
            .expect_err(token);
        assert_eq!(d.status, status, "{token}: {d:?}");
        assert_eq!(d.body["error"], error, "{token}: {d:?}");
    }

    // A resource server with the wrong credentials is refused by the endpoint: every token is.
    let wrong = IntrospectionVerifier::new(&url).client_credentials("rs:1", "nope");
    let auth = ResourceAuth::new(&resource, vec!["http://as".into()], Arc::new(wrong));
    let d = auth
        .check(Some("Bearer good"))
        .await
        .expect_err("wrong client");
    assert_eq!(d.status, 401);
    assert!(
        d.body["error_description"]
            .as_str()
            .unwrap_or("")
            .contains("HTTP 401"),
        "{d:?}"
    );
}
