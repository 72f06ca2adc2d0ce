//! The typed Rust API for tools: argument structs with derived schemas, return values that
//! turn into results.
//!
//! ```no_run
//! use ferromcp::server::Server;
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Add { a: i64, b: i64 }
//! let server = Server::builder("calc", "1.0")
//!     .tool("add", "Adds two numbers", |args: Add, _ctx| async move { (args.a + args.b).to_string() })
//!     .build()
//!     .unwrap();
//! ```

use super::handlers::ToolFn;
use super::ServerBuilder;
use crate::protocol::{CallToolResult, ContentBlock, Tool};
use crate::session::RequestContext;
use crate::McpError;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use std::fmt::Display;
use std::future::Future;
use std::sync::Arc;

/// Structured tool output: serialized into `structuredContent` (plus a text copy), and its
/// type's schema becomes the tool's `outputSchema`.
// Stays open (no #[non_exhaustive]): a newtype around the handler's value, built as `Json(v)`
// and taken apart as `Json(v)`; its one field is the whole type.
#[derive(Clone, Debug)]
pub struct Json<T>(pub T);

/// A tool failure reported to the model as an `isError` result.
// Stays open (no #[non_exhaustive]): a newtype around the message the model reads, built as
// `ToolError(text)` or with `?` (the `From` impl below); its one field is the whole type.
#[derive(Clone, Debug)]
pub struct ToolError(pub String);

impl<E: Display> From<E> for ToolError {
    fn from(e: E) -> Self {
        ToolError(e.to_string())
    }
}

/// Converts what a typed tool returns into a `tools/call` result.
pub trait IntoToolResult {
    /// The result.
    fn into_tool_result(self) -> Result<CallToolResult, McpError>;
    /// The `outputSchema` implied by the type, if it has one.
    fn output_schema() -> Option<Value> {
        None
    }
}

impl IntoToolResult for CallToolResult {
    fn into_tool_result(self) -> Result<CallToolResult, McpError> {
        Ok(self)
    }
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> Result<CallToolResult, McpError> {
        Ok(CallToolResult::text(self))
    }
}

impl IntoToolResult for &'static str {
    fn into_tool_result(self) -> Result<CallToolResult, McpError> {
        Ok(CallToolResult::text(self))
    }
}

impl IntoToolResult for ContentBlock {
    fn into_tool_result(self) -> Result<CallToolResult, McpError> {
        Ok(CallToolResult::new(vec![self]))
    }
}

impl IntoToolResult for Vec<ContentBlock> {
    fn into_tool_result(self) -> Result<CallToolResult, McpError> {
        Ok(CallToolResult::new(self))
    }
}

impl<T: Serialize + JsonSchema> IntoToolResult for Json<T> {
    fn into_tool_result(self) -> Result<CallToolResult, McpError> {
        let v = serde_json::to_value(&self.0)
            .map_err(|e| McpError::internal(format!("serializing tool output: {e}")))?;
        Ok(CallToolResult::structured(v))
    }
    fn output_schema() -> Option<Value> {
        Some(schema_of::<T>())
    }
}

impl<T: IntoToolResult, E: Into<ToolError>> IntoToolResult for Result<T, E> {
    fn into_tool_result(self) -> Result<CallToolResult, McpError> {
        match self {
            Ok(v) => v.into_tool_result(),
            Err(e) => Ok(CallToolResult::error_text(e.into().0)),
        }
    }
    fn output_schema() -> Option<Value> {
        T::output_schema()
    }
}

/// The JSON Schema (2020-12) of a type, as MCP wants it in `inputSchema` / `outputSchema`.
pub fn schema_of<T: JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let schema = generator.into_root_schema_for::<T>();
    let mut v = serde_json::to_value(schema).expect("schemas serialize");
    if let Value::Object(m) = &mut v {
        m.remove("$schema");
        m.remove("title");
    }
    v
}

impl ServerBuilder {
    /// Adds a typed tool: `A` is the argument struct (its schema becomes `inputSchema`), the
    /// closure's return value becomes the result (`String`, content, [`Json`] for structured
    /// output, or `Result<_, E>` where `Err` becomes an `isError` result).
    ///
    /// ```
    /// use ferromcp::server::{Json, Server, ToolError};
    /// use serde_json::json;
    /// # use ferromcp::client::{Client, ClientHandlers, ClientOptions};
    /// # use ferromcp::transport::memory_pair;
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Divide {
    ///     a: f64,
    ///     b: f64,
    /// }
    ///
    /// #[derive(serde::Serialize, schemars::JsonSchema)]
    /// struct Quotient {
    ///     value: f64,
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), ferromcp::McpError> {
    /// let server = Server::builder("math", "1.0")
    ///     .tool("divide", "Divides a by b", |x: Divide, _ctx| async move {
    ///         if x.b == 0.0 {
    ///             return Err(ToolError("division by zero".into()));
    ///         }
    ///         Ok(Json(Quotient { value: x.a / x.b }))
    ///     })
    ///     .build()?;
    /// # let ((cr, cw), (sr, sw)) = memory_pair(16);
    /// # tokio::spawn(async move { server.serve(sr, sw).await });
    /// # let client = Client::connect(ClientOptions::new("c", "1"), ClientHandlers::default(), cr, cw).await?;
    /// let tools = client.list_all_tools().await?;
    /// assert_eq!(tools[0].input_schema["required"], json!(["a", "b"]));
    /// assert!(tools[0].output_schema.is_some()); // from Quotient's schema
    ///
    /// let ok = client.call_tool("divide", json!({ "a": 1, "b": 4 })).await?;
    /// assert_eq!(ok.structured_content, Some(json!({ "value": 0.25 })));
    /// let failed = client.call_tool("divide", json!({ "a": 1, "b": 0 })).await?;
    /// assert!(failed.is_error()); // the model reads "division by zero"
    /// # Ok(())
    /// # }
    /// ```
    pub fn tool<A, R, F, Fut>(mut self, name: &str, description: &str, f: F) -> Self
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
        R: IntoToolResult + 'static,
        F: Fn(A, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
    {
        let mut tool = Tool::new(name)
            .with_description(description)
            .with_input_schema(schema_of::<A>());
        tool.output_schema = R::output_schema();
        let r = self.server().add_tool(tool, typed_tool_fn(f));
        self.record(r);
        self
    }

    /// Adds a typed tool with a fully specified [`Tool`] definition (title, annotations, icons);
    /// `inputSchema`/`outputSchema` are filled from the types when left empty.
    pub fn tool_with<A, R, F, Fut>(mut self, mut tool: Tool, f: F) -> Self
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
        R: IntoToolResult + 'static,
        F: Fn(A, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
    {
        if tool.input_schema.as_object().is_none_or(|m| m.len() <= 1) {
            tool.input_schema = schema_of::<A>();
        }
        if tool.output_schema.is_none() {
            tool.output_schema = R::output_schema();
        }
        let r = self.server().add_tool(tool, typed_tool_fn(f));
        self.record(r);
        self
    }
}

fn typed_tool_fn<A, R, F, Fut>(f: F) -> ToolFn
where
    A: DeserializeOwned + Send + 'static,
    R: IntoToolResult + 'static,
    F: Fn(A, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = R> + Send + 'static,
{
    let f = Arc::new(f);
    Arc::new(move |args, ctx| {
        let f = f.clone();
        Box::pin(async move {
            let args: A = serde_json::from_value(Value::Object(args))
                .map_err(|e| McpError::invalid_params(format!("invalid arguments: {e}")))?;
            f(args, ctx).await.into_tool_result()
        })
    })
}
