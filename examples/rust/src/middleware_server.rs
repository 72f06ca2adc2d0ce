//! A stdio MCP server with middleware: built-in error masking, rate limiting and timing, and a
//! layer of its own that refuses `admin_*` tools unless the client names itself `admin`. The
//! same scenario as examples/python/middleware_server.py, bindings-node/examples/
//! middleware_server.mts and examples/swift's MiddlewareServer; tests/examples/check.mjs runs
//! all four with the official TypeScript SDK client (tests/run-examples.sh).
//!
//! Run it under any MCP client (it speaks on stdin/stdout; the timing lines go to stderr):
//! `cargo run -p ferromcp-examples --bin middleware-server`.

use ferromcp::protocol::{CallToolResult, Resource, Tool};
use ferromcp::server::middleware::{
    BoxFuture, MaskErrors, Middleware, MiddlewareRequest, MiddlewareResponse, Next, RateLimit,
    RateLimitConfig, Timing, TimingEvent,
};
use ferromcp::server::{resource_fn, tool_fn, Server};
use ferromcp::McpError;
use schemars::JsonSchema;
use serde::Deserialize;
use std::time::Duration;

#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    /// The text to send back.
    text: String,
}

/// Refuses `admin_*` tools (-32003 "Permission denied") unless the client's `clientInfo.name`
/// is `admin`.
struct AdminOnly;

impl Middleware for AdminOnly {
    fn handle<'a>(
        &'a self,
        request: MiddlewareRequest,
        next: Next<'a>,
    ) -> BoxFuture<'a, Result<MiddlewareResponse, McpError>> {
        Box::pin(async move {
            let admin_tool = request.tool_name().is_some_and(|t| t.starts_with("admin_"));
            let client = request
                .context()
                .session()
                .negotiated()
                .map(|n| n.peer_info.clone());
            let is_admin = client.is_some_and(|info| info["name"] == "admin");
            if admin_tool && !is_admin {
                return Err(McpError::new(-32003, "Permission denied"));
            }
            next.run(request).await
        })
    }
}

#[tokio::main]
async fn main() -> Result<(), McpError> {
    // Three tools/call per 10 s and session; other methods are not counted.
    let mut limit = RateLimitConfig::new(3, Duration::from_secs(10));
    limit.methods = Some(vec!["tools/call".into()]);
    let server = Server::builder("middleware-example", "1.0.0")
        .tool(
            "echo",
            "Echoes the text back",
            |a: EchoArgs, _ctx| async move { a.text },
        )
        .tool_raw(
            Tool::new("admin_reset"),
            tool_fn(|_, _| async move { Ok(CallToolResult::text("reset done")) }),
        )
        .tool_raw(
            Tool::new("fragile"),
            tool_fn(|_, _| async move {
                Err(McpError::internal("connection to db.internal:5432 refused"))
            }),
        )
        // A failure whose details a client must not see: masked as "Internal error".
        .resource(
            Resource::new("mem://secrets", "secrets"),
            resource_fn(|_, _| async move {
                Err(McpError::internal("db at 10.0.0.7 refused user admin"))
            }),
        )
        // Outermost first: masking sees every error, timing sees the time of all inner layers.
        .middleware(MaskErrors::new())
        .middleware(Timing::new(|e: &TimingEvent<'_>| {
            eprintln!(
                "{} {} {:?} in {} µs",
                e.method,
                e.tool.unwrap_or("-"),
                e.outcome,
                e.duration.as_micros()
            )
        }))
        .middleware(RateLimit::new(limit)?)
        .middleware(AdminOnly)
        .build()?;
    server.serve_stdio().await
}
