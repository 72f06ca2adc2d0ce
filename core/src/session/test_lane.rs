//! A server as the session layer sees one, for the session's own tests: a [`Service`] that
//! serves the per-request era with a `tools` capability, and a [`ToolLane`] whose every tool
//! answers `hi`. The session's tests use it instead of the real server, which sits above them.

use super::{insert_server_info, LaneExtra, RequestContext, Service, ToolLane, ToolOutput};
use crate::jsonrpc::Request;
use crate::protocol::{CallToolResult, ProtocolVersion};
use crate::McpError;
use futures_util::future::BoxFuture;
use serde_json::{json, Value};
use std::sync::Arc;

/// The server's identity as its results carry it.
const INFO: &str = r#"{"name":"lane","version":"1"}"#;

/// A server with tools only, each answering `hi`.
#[derive(Clone)]
pub(crate) struct EchoServer;

impl Service for EchoServer {
    fn handle_request(
        &self,
        request: Request,
        _ctx: RequestContext,
    ) -> BoxFuture<'static, Result<Value, McpError>> {
        Box::pin(async move { Err(McpError::method_not_found(&request.method)) })
    }

    fn capabilities(&self, _version: ProtocolVersion) -> Option<Arc<Value>> {
        Some(Arc::new(json!({ "tools": {} })))
    }
}

impl ToolLane for EchoServer {
    async fn run_tool(
        self,
        _name: String,
        _arguments: Option<Value>,
        _task: Option<Value>,
        _extra: LaneExtra,
        _ctx: RequestContext,
    ) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::Result(CallToolResult::text("hi")))
    }

    async fn run_tool_borrowed<'a>(
        &'a self,
        _name: &'a str,
        _arguments: Option<Value>,
        _task: Option<Value>,
        _extra: LaneExtra,
        _ctx: RequestContext,
    ) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::Result(CallToolResult::text("hi")))
    }

    fn add_server_info(&self, result: &mut Value) {
        insert_server_info(result, serde_json::from_str(INFO).expect("JSON"));
    }

    fn server_info_json(&self) -> Arc<str> {
        INFO.into()
    }
}
