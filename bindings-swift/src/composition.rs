//! Composition and tool transforms for Swift (`Server.mount`, `importServer`,
//! `transformTool`): thin calls into the engine's seam (`embed/compose.rs`). A transform's
//! `transformOutput` is the Swift [`OutputReshape`], called synchronously with JSON text each
//! way (the engine reshapes on the thread that finished the original call).

use crate::error::{json_text, parse_json, parse_opt_json, FfiError};
use crate::runtime::enter;
use crate::server::NativeServer;
use ferromcp::McpError;
use ferromcp_embed::ForeignOutputReshape;
use serde_json::Value;
use std::sync::Arc;

/// Reshapes a transformed tool's structured output: JSON text in (the original's), the new
/// tool's out. A thrown `McpError` (an [`FfiError`]) keeps its code: the call fails with it as
/// it is; an error of any other kind is answered as [`ReshapeAnswer::Exception`], which the
/// engine words as -32603 naming the tool (`embed/src/compose.rs`).
#[uniffi::export(foreign)]
pub trait OutputReshape: Send + Sync {
    /// The new structured output made from `structured`.
    fn reshape(&self, structured: String) -> Result<ReshapeAnswer, FfiError>;
}

/// What an [`OutputReshape`] answers when it did not throw an `McpError`.
#[derive(uniffi::Enum)]
pub enum ReshapeAnswer {
    /// The new structured output as JSON text.
    Value {
        /// The JSON text.
        json: String,
    },
    /// The closure threw an error that is not an `McpError`: its description.
    Exception {
        /// What the error says.
        message: String,
    },
}

/// The engine's view of a Swift [`OutputReshape`].
struct SwiftReshape(Arc<dyn OutputReshape>);

impl ForeignOutputReshape for SwiftReshape {
    fn reshape(&self, structured: Value) -> Result<Value, McpError> {
        match self.0.reshape(json_text(&structured)) {
            Ok(ReshapeAnswer::Value { json }) => serde_json::from_str(&json).map_err(|e| {
                McpError::handler_exception(format!("it returned text that is not JSON: {e}"))
            }),
            Ok(ReshapeAnswer::Exception { message }) => Err(McpError::handler_exception(message)),
            Err(FfiError::Mcp {
                code,
                message,
                data,
                ..
            }) => {
                let e = McpError::new(code, message);
                Err(
                    match data.and_then(|d| serde_json::from_str::<Value>(&d).ok()) {
                        Some(d) => e.with_data(d),
                        None => e,
                    },
                )
            }
        }
    }
}

/// Mounts `child` on `parent` under `prefix`, live (`EmbeddedServer::mount`).
#[uniffi::export]
pub fn mount_server(
    parent: Arc<NativeServer>,
    prefix: String,
    child: Arc<NativeServer>,
) -> Result<(), FfiError> {
    Ok(enter(|| parent.inner.mount(&prefix, &child.inner))?)
}

/// Copies `child`'s features into `parent` under `prefix`, once
/// (`EmbeddedServer::import_server`).
#[uniffi::export]
pub fn import_server(
    parent: Arc<NativeServer>,
    prefix: String,
    child: Arc<NativeServer>,
) -> Result<(), FfiError> {
    Ok(enter(|| parent.inner.import_server(&prefix, &child.inner))?)
}

/// Registers the tool `transform` (the engine's `ToolTransformConfig` as JSON text) makes from
/// `server`'s tool `original`; `reshape` makes its structured output, checked against
/// `output_schema` (JSON text) when given.
#[uniffi::export]
pub fn add_transformed_tool(
    server: Arc<NativeServer>,
    original: String,
    transform: String,
    reshape: Option<Arc<dyn OutputReshape>>,
    output_schema: Option<String>,
) -> Result<(), FfiError> {
    let transform = parse_json("tool transform", &transform)?;
    let output_schema = parse_opt_json("outputSchema", output_schema)?;
    let reshape = reshape.map(|r| Arc::new(SwiftReshape(r)) as Arc<dyn ForeignOutputReshape>);
    Ok(enter(|| {
        server
            .inner
            .add_transformed_tool_json(&original, transform, reshape, output_schema)
    })?)
}
