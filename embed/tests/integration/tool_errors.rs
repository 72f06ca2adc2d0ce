//! Proves the engine's one policy for what a foreign (Python, Node, Swift) tool handler's error
//! answers (`embed::is_tool_signal`): a tool execution error (`isError: true` with the message,
//! and the engine's `data.reason`) for any failure, an `McpError` of any code included; a
//! JSON-RPC error only for what the client must act on: URL elicitation, and under 2026-07-28 a
//! missing client capability. A handler asking a client for a capability it lacks gets -32021 in
//! both eras; uncaught, it is an `isError` result for a handshake client and the JSON-RPC error
//! -32021 for a per-request client.

use crate::support;

use ferromcp::client::{Client, ClientHandlers, ClientOptions, ProtocolMode};
use ferromcp::codes;
use ferromcp::transport::memory_pair;
use ferromcp::McpError;
use ferromcp_embed::{
    EmbeddedServer, ForeignAnswer, ForeignContext, ForeignHandler, ForeignRequest, ServerConfig,
};
use futures_util::future::BoxFuture;
use serde_json::{json, Value};
use std::sync::Arc;

/// A tool that fails with a fixed error.
struct Fails(McpError);

impl ForeignHandler for Fails {
    fn call(
        &self,
        _request: ForeignRequest,
        _ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<ForeignAnswer, McpError>> {
        let e = self.0.clone();
        Box::pin(async move { Err(e) })
    }
}

/// A minimal `sampling/createMessage` request.
fn sampling_params() -> Value {
    json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5})
}

/// A tool that asks the client for sampling and passes the outcome on, as a handler that does
/// not catch anything would.
struct Samples;

impl ForeignHandler for Samples {
    fn call(
        &self,
        _request: ForeignRequest,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<ForeignAnswer, McpError>> {
        Box::pin(async move { ctx.sample(sampling_params()).await.map(Into::into) })
    }
}

/// A tool that asks for sampling, catches the error and reports its code.
struct CatchesSampling;

impl ForeignHandler for CatchesSampling {
    fn call(
        &self,
        _request: ForeignRequest,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<ForeignAnswer, McpError>> {
        Box::pin(async move {
            match ctx.sample(sampling_params()).await {
                Ok(_) => Ok(json!("sampled").into()),
                Err(e) => Ok(json!(format!("caught {}: {}", e.code, e.message)).into()),
            }
        })
    }
}

fn server() -> EmbeddedServer {
    let s = EmbeddedServer::new(
        &ServerConfig::from_json(json!({"name": "t", "version": "1"})).unwrap(),
    )
    .unwrap();
    let tool = |name: &str| json!({"name": name, "inputSchema": {"type": "object"}});
    let fails = |e: McpError| Arc::new(Fails(e)) as Arc<dyn ForeignHandler>;
    s.add_tool_json(
        tool("invalid"),
        fails(McpError::new(codes::INVALID_PARAMS, "no such city")),
    )
    .unwrap();
    s.add_tool_json(
        tool("internal"),
        fails(
            McpError::new(codes::INTERNAL_ERROR, "disk full")
                .with_data(json!({"reason": "ENOSPC"})),
        ),
    )
    .unwrap();
    s.add_tool_json(
        tool("url"),
        fails(
            McpError::new(codes::URL_ELICITATION_REQUIRED, "log in first")
                .with_data(json!({"elicitations": []})),
        ),
    )
    .unwrap();
    s.add_tool_json(tool("samples"), Arc::new(Samples)).unwrap();
    s.add_tool_json(tool("catches"), Arc::new(CatchesSampling))
        .unwrap();
    s
}

async fn connect(mode: ProtocolMode) -> Client {
    let ((r_c, w_c), (r_s, w_s)) = memory_pair(64);
    let srv = server().server().clone();
    tokio::spawn(async move { srv.serve(r_s, w_s).await });
    let mut o = ClientOptions::new("c", "1");
    o.mode = mode;
    support::within(Client::connect(o, ClientHandlers::default(), r_c, w_c))
        .await
        .unwrap()
}

fn text(r: &ferromcp::protocol::CallToolResult) -> String {
    r.content[0].as_text().unwrap_or("").to_string()
}

#[tokio::test]
async fn tool_failures_are_tool_execution_errors_in_both_eras() {
    for mode in [ProtocolMode::Handshake, ProtocolMode::PerRequest] {
        let c = connect(mode).await;
        let r = support::within(c.call_tool("invalid", json!({})))
            .await
            .unwrap();
        assert_eq!(
            (r.is_error, text(&r)),
            (Some(true), "no such city".into()),
            "{mode:?}"
        );
        let r = support::within(c.call_tool("internal", json!({})))
            .await
            .unwrap();
        assert_eq!(
            (r.is_error, text(&r)),
            (Some(true), "disk full (ENOSPC)".into()),
            "{mode:?}"
        );
        let e = support::within(c.call_tool("url", json!({})))
            .await
            .expect_err("URL elicitation stays a JSON-RPC error");
        assert_eq!(e.code, codes::URL_ELICITATION_REQUIRED, "{mode:?}");
        c.close().await;
    }
}

#[tokio::test]
async fn a_missing_client_capability_in_the_handshake_era_is_a_clear_tool_error() {
    let c = connect(ProtocolMode::Handshake).await;
    let r = support::within(c.call_tool("catches", json!({})))
        .await
        .unwrap();
    assert_eq!(
        text(&r),
        format!(
            "caught {}: the client did not declare the sampling capability, so \
             sampling/createMessage cannot be sent",
            codes::MISSING_CLIENT_CAPABILITY
        )
    );
    let r = support::within(c.call_tool("samples", json!({})))
        .await
        .unwrap();
    assert_eq!(
        r.is_error,
        Some(true),
        "uncaught: a tool execution error, not a JSON-RPC error"
    );
    assert!(
        text(&r).contains("did not declare the sampling capability"),
        "{}",
        text(&r)
    );
    c.close().await;
}

#[tokio::test]
async fn a_missing_client_capability_under_2026_07_28_is_the_requests_answer() {
    let c = connect(ProtocolMode::PerRequest).await;
    assert!(c.is_per_request());
    let e = support::within(c.call_tool("samples", json!({})))
        .await
        .expect_err("-32021 is the answer under 2026-07-28");
    assert_eq!(e.code, codes::MISSING_CLIENT_CAPABILITY);
    assert_eq!(
        e.data.as_ref().map(|d| d["requiredCapabilities"].clone()),
        Some(json!({"sampling": {}}))
    );
    c.close().await;
}
