//! Composition and tool transforms for Swift (`Server.mount`, `importServer`,
//! `transformTool`): thin calls into the engine's seam (`embed/compose.rs`). A transform's
//! `transformOutput` is the Swift [`OutputReshape`], called synchronously with JSON text each
//! way (the engine reshapes on the thread that finished the original call).

use crate::error::{json_text, parse_json, parse_opt_json, FfiError};
use crate::runtime::enter;
use crate::server::NativeServer;
use ferromcp_embed::ForeignOutputReshape;
use serde_json::Value;
use std::sync::Arc;

/// Reshapes a transformed tool's structured output: JSON text in (the original's), JSON text
/// out (the new tool's). A thrown error's message is what the caller's internal error says.
#[uniffi::export(foreign)]
pub trait OutputReshape: Send + Sync {
    /// The new structured output made from `structured`.
    fn reshape(&self, structured: String) -> Result<String, FfiError>;
}

/// The engine's view of a Swift [`OutputReshape`].
struct SwiftReshape(Arc<dyn OutputReshape>);

impl ForeignOutputReshape for SwiftReshape {
    fn reshape(&self, structured: Value) -> Result<Value, String> {
        let text = self
            .0
            .reshape(json_text(&structured))
            .map_err(|FfiError::Mcp { message, .. }| message)?;
        serde_json::from_str(&text).map_err(|e| format!("it returned text that is not JSON: {e}"))
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
