//! The per-request era's server settings (2026-07-28) set from the embed configuration every
//! binding passes (`ServerConfig`): the caching hints (`cacheTtlMs`, `cacheScope`,
//! `cacheHints`) and the listen cap, the refusals of bad settings, and the `requestState` key
//! ring and replay cache (a shared key opens another replica's token, a different key does not,
//! the replay capacity is the one configured). The server and the hint checks are core's
//! (`core/tests/common_cache_hints`), as its Rust-API tests use them.

use crate::common_cache_hints::{check_hints, populate, start};
use crate::common_modern::{answer, meta, post_modern, request};
use ferromcp::server::Server;
use ferromcp_embed::{EmbeddedServer, ServerConfig};
use serde_json::{json, Value};

fn embedded(config: Value) -> Server {
    let s = EmbeddedServer::from_json(config).unwrap().server().clone();
    populate(&s);
    s
}

#[tokio::test]
async fn embed_config_sets_hints_and_listen_cap() {
    let config = json!({
        "name": "embedded", "cacheTtlMs": 30_000, "cacheScope": "public",
        "cacheHints": { "tools/list": { "cacheScope": "private" } },
        "maxListenStreams": 7,
    });
    let options = ServerConfig::from_json(config.clone()).unwrap().options();
    assert_eq!(options.max_listen_streams, 7);
    let (_h, url) = start(embedded(config)).await;
    check_hints(
        &url,
        (json!(30_000), json!("public")),
        (json!(30_000), json!("private")),
    )
    .await;
    // Without any setting: the engine's defaults.
    let (_h, url) = start(embedded(json!({ "name": "plain" }))).await;
    check_hints(
        &url,
        (json!(0), json!("private")),
        (json!(0), json!("private")),
    )
    .await;
    assert_eq!(
        ServerConfig::from_json(json!({ "name": "plain" }))
            .unwrap()
            .options()
            .max_listen_streams,
        ferromcp::server::DEFAULT_MAX_LISTEN_STREAMS
    );
}

#[test]
fn embed_config_refuses_bad_settings() {
    let key = "00".repeat(32);
    for (config, says) in [
        (
            json!({ "cacheScope": "shared" }),
            "unknown variant `shared`",
        ),
        (json!({ "cacheTtlMs": -1 }), "invalid value"),
        (
            json!({ "cacheHints": { "tools/call": { "ttlMs": 1 } } }),
            "\"tools/call\" has no cacheable result",
        ),
        (
            json!({ "cacheHints": { "tools/list": { "ttl": 1 } } }),
            "unknown field `ttl`",
        ),
        (
            json!({ "requestStateKeys": [{ "id": "k1", "secret": "abcd" }] }),
            "the secret of key \"k1\" must be 64 hex digits",
        ),
        (
            json!({ "requestStateKeys": [{ "id": "k1", "secret": "zz".repeat(32) }] }),
            "the secret of key \"k1\" must be 64 hex digits",
        ),
        (
            json!({ "requestStateKeys": [{ "id": "k-1", "secret": key }] }),
            "must be non-empty ASCII letters and digits",
        ),
        (
            json!({ "requestStateKeys": [] }),
            "a key ring needs at least one key",
        ),
        (
            json!({ "requestStateReplayCapacity": 0 }),
            "requestStateReplayCapacity must be at least 1",
        ),
        (
            json!({ "maxListenStreams": 0 }),
            "maxListenStreams must be at least 1",
        ),
    ] {
        let mut c = config.clone();
        c["name"] = json!("bad");
        let e = ServerConfig::from_json(c).unwrap_err();
        assert_eq!(e.code, -32602, "{config}");
        assert!(e.message.contains(says), "{config}: {e}");
    }
}

/// Starts `tools/call ask` on `url` and returns its sealed `requestState`.
async fn sealed_state(url: &str) -> Value {
    let p = json!({ "name": "ask", "arguments": {}, "_meta": meta(json!({ "elicitation": {} })) });
    let r = post_modern(url, &request(1, "tools/call", p)).await;
    let res = answer(&r)["result"].clone();
    assert_eq!(res["resultType"], "input_required", "{}", r.body);
    res["requestState"].clone()
}

/// Retries `tools/call ask` on `url` with `state`; the result or the error.
async fn retry(url: &str, state: &Value) -> Value {
    let p = json!({ "name": "ask", "arguments": {}, "_meta": meta(json!({ "elicitation": {} })),
        "inputResponses": { "who": { "action": "accept", "content": { "name": "Ada" } } },
        "requestState": state });
    answer(&post_modern(url, &request(2, "tools/call", p)).await)
}

#[tokio::test]
async fn embed_config_sets_the_request_state_key_ring() {
    let (k1, k2) = ("1f".repeat(32), "a0".repeat(32));
    let keys = |ids: &[(&str, &str)]| {
        json!(ids
            .iter()
            .map(|(id, secret)| json!({ "id": id, "secret": secret }))
            .collect::<Vec<_>>())
    };
    let a = embedded(json!({ "name": "a", "requestStateKeys": keys(&[("k1", &k1)]) }));
    // A replica after rotation: seals with k2, still opens k1's tokens.
    let b = embedded(json!({ "name": "b", "requestStateKeys": keys(&[("k2", &k2), ("k1", &k1)]) }));
    let c = embedded(json!({ "name": "c", "requestStateKeys": keys(&[("k2", &k2)]) }));
    let (_ha, a) = start(a).await;
    let (_hb, b) = start(b).await;
    let (_hc, c) = start(c).await;

    let from_a = sealed_state(&a).await;
    let r = retry(&c, &from_a).await;
    assert_eq!(r["error"]["data"]["reason"], "tampered", "{r}");
    let r = retry(&b, &from_a).await;
    assert_eq!(r["result"]["content"][0]["text"], "Ada", "{r}");
    // b seals with k2, which c has and a has not.
    let from_b = sealed_state(&b).await;
    assert!(from_b.as_str().unwrap().starts_with("2.k2."), "{from_b}");
    let r = retry(&a, &from_b).await;
    assert_eq!(r["error"]["data"]["reason"], "tampered", "{r}");
    let r = retry(&c, &from_b).await;
    assert_eq!(r["result"]["content"][0]["text"], "Ada", "{r}");
}

#[tokio::test]
async fn embed_config_sets_the_replay_capacity() {
    let s = embedded(json!({ "name": "small", "requestStateReplayCapacity": 1 }));
    let (_h, url) = start(s).await;
    let (first, second) = (sealed_state(&url).await, sealed_state(&url).await);
    let r = retry(&url, &first).await;
    assert_eq!(r["result"]["content"][0]["text"], "Ada", "{r}");
    // The one slot holds `first` until it expires: `second` cannot be checked for reuse.
    let r = retry(&url, &second).await;
    assert_eq!(r["error"]["data"]["reason"], "overloaded", "{r}");
}
