//! The Rust client against the Rust server over Streamable HTTP and legacy HTTP+SSE.

mod common_http;
use common_http::*;
use ferromcp::client::{ClientHandlers, ClientOptions};
use ferromcp::session::RequestOptions;
use ferromcp::transport::http::{connect, connect_legacy, HttpClientOptions, HttpServerOptions};
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::Duration;

async fn round_trip(client: &ferromcp::client::Client) {
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools[0].name, "count");
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s2 = seen.clone();
    let opts = RequestOptions {
        on_progress: Some(Arc::new(move |p| s2.lock().unwrap().push(p))),
        ..Default::default()
    };
    let r = client
        .call_tool_with("count", json!({"steps": 3}), opts)
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&r).unwrap()["content"][0]["text"],
        "counted to 3"
    );
    assert_eq!(seen.lock().unwrap().len(), 3);
    let res = client.read_resource("mem://greeting").await.unwrap();
    assert_eq!(
        serde_json::to_value(&res).unwrap()["contents"][0]["text"],
        "hello"
    );
}

#[tokio::test]
async fn client_over_streamable_http() {
    tokio::time::timeout(Duration::from_secs(20), async {
        let (_s, h, url) = start(HttpServerOptions::default()).await;
        let http = HttpClientOptions::default().header("authorization", "Bearer t0k3n");
        let client = connect(
            &url,
            ClientOptions::new("c", "1"),
            ClientHandlers::default(),
            http,
        )
        .await
        .unwrap();
        assert!(client.session().negotiated().is_some());
        round_trip(&client).await;
        client.close().await;
        h.shutdown().await.unwrap();
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn client_over_json_response_mode() {
    tokio::time::timeout(Duration::from_secs(20), async {
        let (_s, h, url) = start(HttpServerOptions {
            json_response: true,
            ..Default::default()
        })
        .await;
        let client = connect(
            &url,
            ClientOptions::new("c", "1"),
            ClientHandlers::default(),
            Default::default(),
        )
        .await
        .unwrap();
        let r = client
            .call_tool("count", json!({"steps": 2}))
            .await
            .unwrap();
        assert_eq!(
            serde_json::to_value(&r).unwrap()["content"][0]["text"],
            "counted to 2"
        );
        client.close().await;
        h.shutdown().await.unwrap();
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn client_over_legacy_sse_and_fallback() {
    tokio::time::timeout(Duration::from_secs(20), async {
        let (_s, h, _url) = start(HttpServerOptions::default()).await;
        let sse = h.url("/sse");
        let client = connect_legacy(
            &sse,
            ClientOptions::new("c", "1"),
            ClientHandlers::default(),
            Default::default(),
        )
        .await
        .unwrap();
        round_trip(&client).await;
        client.close().await;
        // POST to /sse is refused (405), so connect() falls back to the legacy flow.
        let client = connect(
            &sse,
            ClientOptions::new("c", "1"),
            ClientHandlers::default(),
            Default::default(),
        )
        .await
        .unwrap();
        round_trip(&client).await;
        client.close().await;
        h.shutdown().await.unwrap();
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn expired_session_is_a_clear_error() {
    tokio::time::timeout(Duration::from_secs(20), async {
        let (_s, h, url) = start(HttpServerOptions {
            session_idle_timeout: Duration::from_millis(200),
            ..Default::default()
        })
        .await;
        let http = HttpClientOptions {
            open_get_stream: false,
            ..Default::default()
        };
        let client = connect(
            &url,
            ClientOptions::new("c", "1"),
            ClientHandlers::default(),
            http,
        )
        .await
        .unwrap();
        tokio::time::sleep(Duration::from_millis(800)).await;
        let e = client.list_tools(None).await.unwrap_err();
        assert!(e.message.contains("expired"), "{e}");
        client.close().await;
        h.shutdown().await.unwrap();
    })
    .await
    .unwrap();
}
