//! Composition and tool transforms for the bindings: [`EmbeddedServer::mount`],
//! [`EmbeddedServer::import_server`] and [`EmbeddedServer::add_transformed_tool_json`], the
//! engine's `Server::mount`, `Server::import_server` and `Server::add_transformed_tool`
//! (`server/compose.rs`, `server/transform.rs`) with the transform in its JSON form and the
//! output reshaped by a function of the binding's language ([`ForeignOutputReshape`]). The
//! refusals and the wording of a failed reshape are written here once, so they read the same in
//! Node and Swift. (Authorization needs nothing here: it is a built-in middleware configured by
//! name, `{"name": "authorization", ...}`.)

use super::EmbeddedServer;
use ferromcp::server::transform::{ToolTransform, ToolTransformConfig};
use ferromcp::McpError;
use serde_json::Value;
use std::sync::Arc;

/// A function of the binding's language reshaping a transformed tool's structured output
/// (`transform_output` in Python, `transformOutput` in Node and Swift): it gets the original's
/// structured output as JSON and returns the new tool's.
///
/// Its failure is an [`McpError`], as a foreign handler's is: an MCP error the user's function
/// raised (Python's, Node's or Swift's `McpError`) keeps its code, message and `data`, and the
/// call fails with it as it is (a `-32004` raised there reaches the client as `-32004`);
/// anything else (an exception of another kind, an answer that is not JSON, a foreign runtime
/// that did not answer) is an [`McpError::handler_exception`] with its text, and the call fails
/// with -32603 `transformOutput of tool "<name>" failed: <text>`.
///
/// It is called synchronously on the engine thread that finished the original call: keep it
/// short.
pub trait ForeignOutputReshape: Send + Sync + 'static {
    /// The new structured output made from `structured`, the original's.
    fn reshape(&self, structured: Value) -> Result<Value, McpError>;
}

/// The `data.reason` of [`EmbeddedServer::add_transformed_tool_json`]'s refusal of an
/// `output_schema` given without a reshape (-32602): a binding whose language has a better
/// error for a wrong combination of arguments (Python's `ValueError`) tells it from the other
/// refusals with [`is_output_schema_without_reshape`].
pub const OUTPUT_SCHEMA_WITHOUT_RESHAPE: &str = "outputSchemaWithoutTransformOutput";

/// Whether `e` is the refusal of an `output_schema` without a reshape
/// ([`OUTPUT_SCHEMA_WITHOUT_RESHAPE`]).
pub fn is_output_schema_without_reshape(e: &McpError) -> bool {
    e.data
        .as_ref()
        .and_then(|d| d.get("reason"))
        .and_then(Value::as_str)
        == Some(OUTPUT_SCHEMA_WITHOUT_RESHAPE)
}

/// What the call answers when `tool`'s reshape failed with `e` (see [`ForeignOutputReshape`]).
fn reshape_failure(tool: &str, e: McpError) -> McpError {
    if e.is_handler_exception() {
        McpError::internal(format!(
            "transformOutput of tool {tool:?} failed: {}",
            e.message
        ))
    } else {
        e
    }
}

impl EmbeddedServer {
    /// Mounts `other` under `prefix`, live: its tools and prompts are served as
    /// `prefix_name`, its resources as `scheme://prefix/path`, and later changes to `other`
    /// show (see `Server::mount`). Refused (-32602) for a prefix with `/ : { }` or white space,
    /// a prefix already mounted, or a cycle.
    pub fn mount(&self, prefix: &str, other: &EmbeddedServer) -> Result<(), McpError> {
        self.server().mount(prefix, other.server())
    }

    /// Copies `other`'s tools, resources, templates, prompts and completions into this server
    /// once, namespaced as [`Self::mount`] does (see `Server::import_server`).
    pub fn import_server(&self, prefix: &str, other: &EmbeddedServer) -> Result<(), McpError> {
        self.server().import_server(prefix, other.server())
    }

    /// Registers the tool that `transform` (the JSON form, `ToolTransformConfig`: `name`,
    /// `title`, `description`, `arguments: {old: {name, description, default, hide,
    /// constraints}}`) makes from this server's tool `original`. With `reshape`, the new tool's
    /// structured output is what it returns, checked against `output_schema` when given (the
    /// new tool's `outputSchema`). Refused (-32602, naming the reason) for a tool this server
    /// does not have, an argument the original does not have, two arguments with one name, a
    /// bad constraint, a hidden argument without a default, or an `output_schema` without a
    /// `reshape` (it describes what the reshape returns; `data.reason` is
    /// [`OUTPUT_SCHEMA_WITHOUT_RESHAPE`]).
    pub fn add_transformed_tool_json(
        &self,
        original: &str,
        transform: Value,
        reshape: Option<Arc<dyn ForeignOutputReshape>>,
        output_schema: Option<Value>,
    ) -> Result<(), McpError> {
        let config: ToolTransformConfig = super::decode("tool transform", transform)?;
        let mut t = ToolTransform::from_config(&config)?;
        match reshape {
            Some(f) => {
                let tool = config.name.clone();
                t = t.reshape_output(output_schema, move |value| {
                    f.reshape(value).map_err(|e| reshape_failure(&tool, e))
                });
            }
            None if output_schema.is_some() => {
                let why = "outputSchema describes what transformOutput returns: give both";
                return Err(McpError::invalid_params(format!(
                    "transform {:?}: {why}",
                    config.name
                ))
                .with_data(serde_json::json!({ "reason": OUTPUT_SCHEMA_WITHOUT_RESHAPE })));
            }
            None => {}
        }
        self.server().add_transformed_tool(original, t)
    }
}
