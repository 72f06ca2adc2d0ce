//! A request target never carries a `#fragment` (RFC 9112 §3.2; RFC 9110 §7.1): a client keeps
//! the fragment to itself, so a target with one is malformed and refused with 400.

use crate::common_http;
use crate::common_wire;
use common_http::*;
use common_wire::*;
use ferromcp::transport::http::HttpServerOptions;

#[tokio::test]
async fn a_fragment_in_the_request_target_is_refused() {
    let (_s, h, _url) = start(
        HttpServerOptions::default()
            .with_stateless(true)
            .with_json_response(true),
    )
    .await;
    let addr = h.local_addr().to_string();
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let with_target = |target: &str| {
        post_raw(&addr, ping, "").replacen("POST /mcp ", &format!("POST {target} "), 1)
    };
    let mut w = Wire::connect(&addr).await;
    w.send(with_target("/mcp?x=1").as_bytes()).await;
    assert_eq!(w.answer().await.status, 200);
    for target in [
        "/mcp#frag",
        "/mcp#",
        "/mcp?x=1#f",
        &format!("http://{addr}/mcp#f"),
    ] {
        let mut w = Wire::connect(&addr).await;
        w.send(with_target(target).as_bytes()).await;
        let a = w.answer().await;
        assert_eq!(a.status, 400, "{target:?} → {a:?}");
        assert!(
            String::from_utf8_lossy(&a.body).contains("fragment"),
            "{target:?} → {a:?}"
        );
        assert!(
            w.closed_by_server().await,
            "{target:?} left the connection open"
        );
    }
}
