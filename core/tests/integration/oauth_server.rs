//! A ferromcp server protected by `ResourceAuth` over its own HTTP listener: missing, unknown,
//! expired, wrong-audience and under-scoped tokens are refused with the right status and
//! challenge, the Protected Resource Metadata is served, and a good token reaches the handler
//! with its identity.

use crate::common_http;
use common_http::*;
use ferromcp::auth::{AuthInfo, ResourceAuth};
use ferromcp::server::Server;
use ferromcp::transport::http::{serve_http, HttpServerOptions};
use futures_util::future::BoxFuture;
use serde_json::json;
use std::sync::Arc;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct NoArgs {}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

#[tokio::test]
async fn protected_endpoint_refuses_bad_tokens_and_passes_identity() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let aud = resource.clone();
    let verifier = move |token: &str| -> BoxFuture<'static, Result<AuthInfo, String>> {
        let (token, aud) = (token.to_string(), aud.clone());
        Box::pin(async move {
            let info = |audience: &str, scopes: &[&str], expires_at: u64| {
                let mut lit = AuthInfo::default();
                lit.subject = Some(format!("user-of-{token}"));
                lit.client_id = Some("c1".into());
                lit.scopes = scopes.iter().map(|s| s.to_string()).collect();
                lit.audience = vec![audience.to_string()];
                lit.expires_at = Some(expires_at);
                lit.claims = json!({ "tenant": "t1" });
                lit
            };
            match token.as_str() {
                "good" => Ok(info(&aud, &["tools:read", "extra"], now() + 600)),
                "expired" => Ok(info(&aud, &["tools:read"], now() - 5)),
                "elsewhere" => Ok(info(
                    "http://other.example/mcp",
                    &["tools:read"],
                    now() + 600,
                )),
                "narrow" => Ok(info(&aud, &["other"], now() + 600)),
                _ => Err("unknown token".into()),
            }
        })
    };
    let server = Server::builder("protected", "1.0")
        .tool("whoami", "Identity", |_: NoArgs, ctx| async move {
            let a = ctx.auth().expect("identity on a protected server");
            format!(
                "{}|{}|{}|{}",
                a.subject.as_deref().unwrap_or(""),
                a.scopes.join(" "),
                a.token,
                a.claims["tenant"]
            )
        })
        .build()
        .unwrap();
    let auth = ResourceAuth::new(
        &resource,
        vec!["http://as.example".into()],
        Arc::new(verifier),
    )
    .require_scopes(&["tools:read"]);
    let options = HttpServerOptions::default().with_auth(Some(Arc::new(auth)));
    let h = serve_http(server, ("127.0.0.1", port), options)
        .await
        .unwrap();
    let url = h.url("/mcp");
    assert_eq!(url, resource);
    let prm_url = format!("http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp");

    let init = init_body("2025-11-25").to_string();
    let with = |token: &'static str| {
        let mut v = JSON_SSE.to_vec();
        v.push(("authorization", token));
        v
    };
    let r = send("POST", &url, &JSON_SSE, &init).await;
    assert_eq!(r.status, 401);
    let challenge = r.headers["www-authenticate"].to_str().unwrap().to_string();
    assert_eq!(
        challenge,
        format!(r#"Bearer resource_metadata="{prm_url}", scope="tools:read""#)
    );
    for (token, status, error) in [
        ("Bearer nope", 401, "invalid_token"),
        ("Bearer expired", 401, "invalid_token"),
        ("Bearer elsewhere", 401, "invalid_token"),
        ("Bearer narrow", 403, "insufficient_scope"),
    ] {
        let r = send("POST", &url, &with(token), &init).await;
        assert_eq!(r.status, status, "{token}: {}", r.body);
        let c = r.headers["www-authenticate"].to_str().unwrap();
        assert!(c.contains(&format!(r#"error="{error}""#)), "{token}: {c}");
        assert!(c.contains(&prm_url), "{token}: {c}");
        assert_eq!(r.json()["error"], error, "{token}");
    }
    // The GET stream and DELETE are protected too.
    let r = send("GET", &url, &[("accept", "text/event-stream")], "").await;
    assert_eq!(r.status, 401);

    let prm = send("GET", &prm_url, &[], "").await;
    assert_eq!(prm.status, 200);
    assert_eq!(
        prm.json(),
        json!({
            "resource": resource,
            "authorization_servers": ["http://as.example"],
            "bearer_methods_supported": ["header"],
            "scopes_supported": ["tools:read"],
        })
    );

    let r = send("POST", &url, &with("Bearer good"), &init).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let sid = r.sid().unwrap();
    let mut h2 = with("Bearer good");
    h2.push(("mcp-session-id", sid.as_str()));
    h2.push(("mcp-protocol-version", "2025-11-25"));
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    assert_eq!(send("POST", &url, &h2, &note).await.status, 202);
    let r = send("POST", &url, &h2, &call(2, "whoami", json!({})).to_string()).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let msgs = r.sse_messages();
    let answer = msgs.iter().find(|m| m["id"] == 2).expect("tool answer");
    assert_eq!(
        answer["result"]["content"][0]["text"],
        "user-of-good|tools:read extra|good|\"t1\""
    );
    h.shutdown().await.unwrap();
}
