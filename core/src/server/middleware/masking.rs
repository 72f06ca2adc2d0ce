//! Error masking: internal error details (a handler's message, a panic's text, a database
//! error) replaced by a generic message before they reach the client, and logged server-side
//! with the request's method and id.

use super::{Middleware, MiddlewareRequest, MiddlewareResponse, Next};
use crate::error::codes;
use crate::McpError;
use futures_util::future::BoxFuture;
use futures_util::FutureExt;
use serde::Deserialize;
use std::panic::AssertUnwindSafe;

/// The masking's options. JSON: `{"message"?: "Internal error", "codes"?: [-32603]}`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct MaskErrorsConfig {
    /// What the client gets instead (default `"Internal error"`).
    #[serde(default)]
    pub message: Option<String>,
    /// The error codes masked (default: `-32603`, internal errors, which is also what a
    /// handler's panic or a binding's exception becomes).
    #[serde(default)]
    pub codes: Option<Vec<i32>>,
}

/// Replaces the message of errors with a masked code by a generic one and drops their `data`;
/// the original is logged (`tracing` error, target `ferromcp::masked`). A panic of a handler
/// (or a later layer) is caught here and answered as a masked internal error. Put it first
/// (outermost) to mask what every other layer returns.
pub struct MaskErrors {
    message: String,
    codes: Vec<i32>,
}

impl MaskErrors {
    /// Masks internal errors (`-32603`) as `"Internal error"`.
    ///
    /// ```
    /// use ferromcp::protocol::{CallToolResult, Tool};
    /// use ferromcp::server::middleware::MaskErrors;
    /// use ferromcp::server::{tool_fn, Server};
    /// use ferromcp::McpError;
    /// use serde_json::json;
    /// # use ferromcp::client::{Client, ClientHandlers, ClientOptions};
    /// # use ferromcp::transport::memory_pair;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), McpError> {
    /// let server = Server::builder("masked", "1.0")
    ///     .middleware(MaskErrors::new())
    ///     .tool_raw(
    ///         Tool::new("query"),
    ///         tool_fn(|_args, _ctx| async {
    ///             Err::<CallToolResult, _>(McpError::internal("password authentication failed for user \"app\""))
    ///         }),
    ///     )
    ///     .build()?;
    /// # let ((cr, cw), (sr, sw)) = memory_pair(16);
    /// # tokio::spawn(async move { server.serve(sr, sw).await });
    /// # let client = Client::connect(ClientOptions::new("c", "1"), ClientHandlers::default(), cr, cw).await?;
    /// let err = client.call_tool("query", json!({})).await.unwrap_err();
    /// // The client sees the code, not the details (those are logged on the server).
    /// assert_eq!((err.code, err.message.as_str()), (ferromcp::codes::INTERNAL_ERROR, "Internal error"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn new() -> Self {
        Self {
            message: "Internal error".into(),
            codes: vec![codes::INTERNAL_ERROR],
        }
    }

    /// Masking configured by name.
    pub fn from_config(config: &MaskErrorsConfig) -> Self {
        let default = Self::new();
        Self {
            message: config.message.clone().unwrap_or(default.message),
            codes: config.codes.clone().unwrap_or(default.codes),
        }
    }

    fn mask(&self, method: &str, id: &str, error: McpError) -> McpError {
        if !self.codes.contains(&error.code) {
            return error;
        }
        tracing::error!(
            target: "ferromcp::masked",
            method,
            id,
            code = error.code,
            detail = %error.message,
            data = ?error.data,
            "error masked"
        );
        McpError::new(error.code, self.message.clone())
    }
}

impl Default for MaskErrors {
    fn default() -> Self {
        Self::new()
    }
}

fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

impl Middleware for MaskErrors {
    fn handle<'a>(
        &'a self,
        request: MiddlewareRequest,
        next: Next<'a>,
    ) -> BoxFuture<'a, Result<MiddlewareResponse, McpError>> {
        Box::pin(async move {
            let method = request.method().to_string();
            let id = request.id().to_string();
            let outcome = AssertUnwindSafe(next.run(request)).catch_unwind().await;
            let error = match outcome {
                Ok(Ok(result)) => return Ok(result),
                Ok(Err(e)) => e,
                Err(panic) => {
                    McpError::internal(format!("handler panicked: {}", panic_text(panic.as_ref())))
                }
            };
            Err(self.mask(&method, &id, error))
        })
    }
}
