//! A quick throughput probe (ignored by default): sequential tools/call over one keep-alive
//! connection, with the Rust client and with raw hyper, in SSE and JSON-response modes.
//! Run: `cargo test -p ferromcp --test http_perf -- --ignored --nocapture`.

mod common_http;
use bytes::Bytes;
use common_http::*;
use ferromcp::client::{ClientHandlers, ClientOptions};
use ferromcp::transport::http::{connect, HttpClientOptions, HttpServerOptions};
use http_body_util::{BodyExt, Full};
use serde_json::json;
use std::time::{Duration, Instant};

const N: usize = 2000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore]
async fn sequential_calls_per_second() {
    for json_response in [false, true] {
        let (_s, h, url) = start(HttpServerOptions {
            json_response,
            ..Default::default()
        })
        .await;
        let client = connect(
            &url,
            ClientOptions::new("c", "1"),
            ClientHandlers::default(),
            HttpClientOptions::default(),
        )
        .await
        .unwrap();
        let t = Instant::now();
        for _ in 0..N {
            client
                .call_tool("count", json!({"steps": 0}))
                .await
                .unwrap();
        }
        let client_rate = N as f64 / t.elapsed().as_secs_f64();
        client.close().await;

        let sid = init_session(&url).await;
        let hyper = common_http::client();
        let body = call(1, "count", json!({"steps": 0})).to_string();
        let t = Instant::now();
        for _ in 0..N {
            let mut b = http::Request::builder()
                .method("POST")
                .uri(&url)
                .header("mcp-session-id", &sid);
            for (k, v) in JSON_SSE {
                b = b.header(k, v);
            }
            let req = b.body(Full::new(Bytes::from(body.clone()))).unwrap();
            let resp = tokio::time::timeout(Duration::from_secs(5), hyper.request(req))
                .await
                .unwrap()
                .unwrap();
            let text = resp.into_body().collect().await.unwrap().to_bytes();
            assert!(text.len() > 20);
        }
        let raw_rate = N as f64 / t.elapsed().as_secs_f64();
        println!(
            "json_response={json_response}: client {client_rate:.0} calls/s, raw hyper {raw_rate:.0} calls/s"
        );
        h.shutdown().await.unwrap();
    }
}
