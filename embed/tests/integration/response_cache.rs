//! Proves explicit response-cache invalidation from the bindings' seam
//! (`EmbeddedServer::invalidate_cache`): a cache configured by name (in the server config or
//! added later) answers a second read from memory; invalidating all, one method or one
//! resource URI makes the next answer fresh; without a cache, or with both selectors, it is
//! refused.

use ferromcp::McpError;
use ferromcp_embed::{
    CallOptions, ClientConfig, EmbeddedClient, EmbeddedServer, ForeignAnswer, ForeignContext,
    ForeignHandler, ForeignRequest,
};
use futures_util::future::BoxFuture;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Answers `read n` / `tool n`, n counting the calls of this handler.
struct Counting(AtomicUsize);

impl ForeignHandler for Counting {
    fn call(
        &self,
        _request: ForeignRequest,
        _ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<ForeignAnswer, McpError>> {
        let n = self.0.fetch_add(1, Ordering::SeqCst) + 1;
        Box::pin(async move { Ok(json!(format!("read {n}")).into()) })
    }
}

fn server(config: Value) -> EmbeddedServer {
    let s = EmbeddedServer::from_json(config).unwrap();
    for uri in ["mem://a", "mem://b"] {
        s.add_resource_json(
            json!({"uri": uri, "name": uri}),
            Arc::new(Counting(AtomicUsize::new(0))),
        )
        .unwrap();
    }
    s
}

async fn read(c: &EmbeddedClient, uri: &str) -> String {
    let r = c
        .request(
            "resources/read",
            Some(json!({"uri": uri})),
            CallOptions::default(),
        )
        .await
        .unwrap();
    r["contents"][0]["text"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn invalidation_makes_a_cached_answer_fresh() {
    let s = server(json!({"name": "c", "version": "1",
                          "middleware": [{"name": "responseCache", "ttlMs": 60000}]}));
    let c = EmbeddedClient::connect_memory(&s, &ClientConfig::default(), None)
        .await
        .unwrap();
    assert_eq!(read(&c, "mem://a").await, "read 1");
    assert_eq!(
        read(&c, "mem://a").await,
        "read 1",
        "answered from the cache"
    );
    assert_eq!(read(&c, "mem://b").await, "read 1");
    // By URI: only that resource's reads are forgotten.
    s.invalidate_cache(None, Some("mem://a")).unwrap();
    assert_eq!(read(&c, "mem://a").await, "read 2");
    assert_eq!(read(&c, "mem://b").await, "read 1");
    // By method.
    s.invalidate_cache(Some("resources/read"), None).unwrap();
    assert_eq!(read(&c, "mem://a").await, "read 3");
    assert_eq!(read(&c, "mem://b").await, "read 2");
    // All of it.
    s.invalidate_cache(None, None).unwrap();
    assert_eq!(read(&c, "mem://a").await, "read 4");
    assert_eq!(read(&c, "mem://b").await, "read 3");
    assert_eq!(read(&c, "mem://b").await, "read 3", "cached again");
}

#[tokio::test]
async fn a_cache_added_later_by_name_is_invalidated_too() {
    let s = server(json!({"name": "c", "version": "1"}));
    let m = s.invalidate_cache(None, None).unwrap_err().message;
    assert!(m.contains("no responseCache middleware"), "{m}");
    s.add_middleware_config(json!({"name": "responseCache", "ttlMs": 60000}))
        .unwrap();
    let c = EmbeddedClient::connect_memory(&s, &ClientConfig::default(), None)
        .await
        .unwrap();
    assert_eq!(read(&c, "mem://a").await, "read 1");
    assert_eq!(read(&c, "mem://a").await, "read 1");
    s.invalidate_cache(None, None).unwrap();
    assert_eq!(read(&c, "mem://a").await, "read 2");
    let m = s
        .invalidate_cache(Some("resources/read"), Some("mem://a"))
        .unwrap_err()
        .message;
    assert!(m.contains("not both"), "{m}");
}
