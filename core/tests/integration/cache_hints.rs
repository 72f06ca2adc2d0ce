//! Server settings of the per-request era (2026-07-28) beyond the defaults: the caching hints
//! (`ttlMs` / `cacheScope`) of cacheable results, server-wide and per method, from the Rust API;
//! the result of a multi round-trip retry is never cacheable. The same hints, the
//! `requestState` key ring and the replay cache set from the embed configuration every binding
//! passes are checked in ferromcp-embed's `integration/config_cache_hints.rs`.

use crate::common_cache_hints::{check_hints, populate, start};
use crate::common_modern::{answer, meta, post_modern, request};
use ferromcp::server::Server;
use ferromcp::session::{CacheHint, CacheScope};
use serde_json::{json, Value};

#[tokio::test]
async fn rust_api_sets_default_and_per_method_hints() {
    let server = Server::builder("hints", "1.0")
        .options(|o| {
            o.session.cache_hints.default = CacheHint::new(60_000, CacheScope::Public);
            o.session
                .cache_hints
                .set_method("tools/list", CacheHint::new(5, CacheScope::Private))
                .unwrap();
        })
        .build()
        .unwrap();
    populate(&server);
    let (_h, url) = start(server).await;
    check_hints(
        &url,
        (json!(60_000), json!("public")),
        (json!(5), json!("private")),
    )
    .await;
}

#[tokio::test]
async fn only_cacheable_methods_take_hints() {
    let mut hints = ferromcp::session::CacheHints::default();
    let e = hints
        .set_method("tools/call", CacheHint::default())
        .unwrap_err();
    assert_eq!(e.code, -32602);
    assert!(
        e.message.contains("\"tools/call\" has no cacheable result"),
        "{e}"
    );
}

#[tokio::test]
async fn a_retried_round_is_never_cacheable() {
    let server = Server::builder("hints", "1.0")
        .options(|o| {
            o.session.cache_hints.default = CacheHint::new(60_000, CacheScope::Public);
        })
        .build()
        .unwrap();
    populate(&server);
    let (_h, url) = start(server).await;
    let caps = json!({ "elicitation": {} });
    let read = |extra: Value| {
        let mut p = json!({ "uri": "mem://ask", "_meta": meta(caps.clone()) });
        for (k, v) in extra.as_object().unwrap() {
            p[k] = v.clone();
        }
        request(1, "resources/read", p)
    };
    let r = post_modern(&url, &read(json!({}))).await;
    let res = answer(&r)["result"].clone();
    assert_eq!(res["resultType"], "input_required", "{}", r.body);
    assert!(
        res.get("ttlMs").is_none(),
        "an interim result carries no hints"
    );
    let retry = json!({
        "inputResponses": { "who": { "action": "accept", "content": { "name": "Ada" } } },
        "requestState": res["requestState"],
    });
    let r = post_modern(&url, &read(retry)).await;
    let res = &answer(&r)["result"];
    assert_eq!(res["contents"][0]["text"], "answered", "{}", r.body);
    assert_eq!(res["ttlMs"], 0, "{}", r.body);
    assert_eq!(res["cacheScope"], "private", "{}", r.body);
}
