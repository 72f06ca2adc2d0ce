//! Proves user-defined methods: `example.com/echo` is served after initialization (and not
//! before), and names without a domain prefix are rejected at registration.

use crate::support;

use ferromcp::codes;
use ferromcp::server::{method_fn, Server};
use serde_json::json;
use support::{error_code, RawPeer};

fn echo() -> ferromcp::server::MethodFn {
    method_fn(|params, _c| async move { Ok(json!({"echo": params})) })
}

#[tokio::test]
async fn domain_prefixed_method_works() {
    let server = Server::builder("custom", "1")
        .method("example.com/echo", echo())
        .build()
        .unwrap();
    let mut p = RawPeer::start(&server);
    let m = p
        .request(json!(0), "example.com/echo", json!({"x": 1}))
        .await;
    assert_eq!(
        error_code(&m),
        codes::INVALID_REQUEST as i64,
        "not before initialize"
    );
    p.initialize("2025-11-25").await;
    let r = p.call(json!(1), "example.com/echo", json!({"x": 1})).await;
    assert_eq!(r, json!({"echo": {"x": 1}}));
    let m = p.request(json!(2), "example.com/other", json!({})).await;
    assert_eq!(error_code(&m), codes::METHOD_NOT_FOUND as i64);
}

#[test]
fn names_without_domain_prefix_are_rejected() {
    for bad in ["echo", "/echo", "example.com/", "localhost/echo", ""] {
        let r = Server::builder("custom", "1").method(bad, echo()).build();
        let err = r.expect_err(&format!("{bad:?} must be rejected"));
        assert_eq!(err.code, codes::INVALID_PARAMS);
        let server = Server::builder("custom", "1").build().unwrap();
        assert!(server.add_method(bad, echo()).is_err(), "{bad:?}");
    }
    assert!(Server::builder("custom", "1")
        .method("example.com/echo", echo())
        .method("acme.io/v1/do", echo())
        .build()
        .is_ok());
}
