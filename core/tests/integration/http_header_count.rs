//! How many header fields a request may carry: browsers and the proxies in front of a server
//! commonly send more than 64, so up to 128 are read; beyond that, 431. The head's total size
//! stays bounded by `max_head_size` whatever the count.

use crate::common_http;
use crate::common_wire;
use common_http::*;
use common_wire::*;
use ferromcp::transport::http::HttpServerOptions;

const PING: &str = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;

/// `n` extra fields `X-Fn: v`.
fn fields(n: usize) -> String {
    (0..n).map(|i| format!("X-F{i}: v\r\n")).collect()
}

#[tokio::test]
async fn up_to_128_header_fields_are_read() {
    let (_s, h, _url) = start(
        HttpServerOptions::default()
            .with_stateless(true)
            .with_json_response(true),
    )
    .await;
    let addr = h.local_addr().to_string();
    // post_raw sends 4 fields of its own (Host, Content-Type, Accept, Content-Length).
    for total in [66, 100, 128] {
        let mut w = Wire::connect(&addr).await;
        w.send(post_raw(&addr, PING, &fields(total - 4)).as_bytes())
            .await;
        let a = w.answer().await;
        assert_eq!(a.status, 200, "{total} fields → {a:?}");
    }
    for total in [129, 500] {
        let mut w = Wire::connect(&addr).await;
        w.send(post_raw(&addr, PING, &fields(total - 4)).as_bytes())
            .await;
        let a = w.answer().await;
        assert_eq!(a.status, 431, "{total} fields → {a:?}");
    }
}

#[tokio::test]
async fn the_head_size_still_bounds_fewer_fields() {
    let (_s, h, _url) = start(
        HttpServerOptions::default()
            .with_stateless(true)
            .with_json_response(true)
            .with_max_head_size(4096),
    )
    .await;
    let addr = h.local_addr().to_string();
    // 100 fields of 60 bytes: under the count, over the 4 KiB head.
    let big: String = (0..100)
        .map(|i| format!("X-F{i}: {}\r\n", "v".repeat(50)))
        .collect();
    let mut w = Wire::connect(&addr).await;
    w.send(post_raw(&addr, PING, &big).as_bytes()).await;
    assert_eq!(w.answer().await.status, 431);
}
