//! What a middleware layer gets back from the rest of the chain (and returns): a request's
//! result, kept as the tool's typed result for a `tools/call` until a layer asks for JSON.

use crate::protocol::CallToolResult;
use crate::session::{tool_result_value, ToolOutput};
use serde_json::Value;
use std::sync::OnceLock;

/// The result of one request on its way back through the middleware chain.
///
/// Most results are JSON already (lists, reads, custom methods). A `tools/call` answered by
/// the server's tool is kept as its [`CallToolResult`] until a layer asks for JSON: a layer that
/// only hands the result on, times it or logs its outcome costs no JSON tree, and the call's
/// answer is written as it is without middleware. Asking makes the JSON once:
/// [`Self::result`] (a view; the typed result stays what is sent), [`Self::result_mut`] and
/// [`Self::into_json`] (JSON from then on). [`Self::tool_result`] reads a tool's result
/// without making JSON.
///
/// A layer answering itself makes one from JSON (`MiddlewareResponse::from(json!({...}))`) or
/// from a tool's result ([`Self::tool`]).
pub struct MiddlewareResponse(Answer);

enum Answer {
    Json(Value),
    /// A tool's result; `json` caches the view [`MiddlewareResponse::result`] made of it.
    Tool {
        result: CallToolResult,
        json: OnceLock<Value>,
    },
}

impl MiddlewareResponse {
    /// A result given as JSON (the `result` member of the JSON-RPC response).
    pub fn json(result: Value) -> Self {
        Self(Answer::Json(result))
    }

    /// A `tools/call` result given as the tool's typed result.
    pub fn tool(result: CallToolResult) -> Self {
        Self(Answer::Tool {
            result,
            json: OnceLock::new(),
        })
    }

    /// The result as JSON, made once on the first call for a tool's typed result (which stays
    /// what is sent: change it through [`Self::result_mut`] or [`Self::tool_result_mut`]).
    pub fn result(&self) -> &Value {
        match &self.0 {
            Answer::Json(value) => value,
            Answer::Tool { result, json } => json.get_or_init(|| tool_result_value(result.clone())),
        }
    }

    /// The result as JSON, to change: a tool's typed result is made JSON for good (what the
    /// JSON says is sent).
    pub fn result_mut(&mut self) -> &mut Value {
        if let Answer::Tool { .. } = self.0 {
            let json = std::mem::replace(&mut self.0, Answer::Json(Value::Null)).into_json();
            self.0 = Answer::Json(json);
        }
        match &mut self.0 {
            Answer::Json(value) => value,
            Answer::Tool { .. } => unreachable!("made JSON above"),
        }
    }

    /// The result as JSON.
    pub fn into_json(self) -> Value {
        self.0.into_json()
    }

    /// A `tools/call` result still held as the tool's typed result (no JSON made); `None` for a
    /// result held as JSON.
    pub fn tool_result(&self) -> Option<&CallToolResult> {
        match &self.0 {
            Answer::Tool { result, .. } => Some(result),
            Answer::Json(_) => None,
        }
    }

    /// [`Self::tool_result`], to change (a JSON view made before is dropped).
    pub fn tool_result_mut(&mut self) -> Option<&mut CallToolResult> {
        match &mut self.0 {
            Answer::Tool { result, json } => {
                json.take();
                Some(result)
            }
            Answer::Json(_) => None,
        }
    }

    /// Whether this is a tool's result with `isError: true` (read without making JSON).
    pub fn is_tool_error(&self) -> bool {
        match &self.0 {
            Answer::Tool { result, .. } => result.is_error == Some(true),
            Answer::Json(value) => value.get("isError").and_then(Value::as_bool) == Some(true),
        }
    }

    /// The typed lane's output: a tool's result stays typed.
    pub(crate) fn into_tool_output(self) -> ToolOutput {
        match self.0 {
            Answer::Json(value) => ToolOutput::Json(value),
            Answer::Tool { result, .. } => ToolOutput::Result(result),
        }
    }

    /// What the typed lane's call answered.
    pub(crate) fn from_tool_output(output: ToolOutput) -> Self {
        match output {
            ToolOutput::Result(result) => Self::tool(result),
            ToolOutput::Json(value) => Self::json(value),
        }
    }
}

impl Answer {
    fn into_json(self) -> Value {
        match self {
            Answer::Json(value) => value,
            Answer::Tool { result, json } => match json.into_inner() {
                Some(value) => value,
                None => tool_result_value(result),
            },
        }
    }
}

impl From<Value> for MiddlewareResponse {
    fn from(result: Value) -> Self {
        Self::json(result)
    }
}

impl From<CallToolResult> for MiddlewareResponse {
    fn from(result: CallToolResult) -> Self {
        Self::tool(result)
    }
}

impl std::fmt::Debug for MiddlewareResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Answer::Json(value) => f.debug_tuple("MiddlewareResponse").field(value).finish(),
            Answer::Tool { result, .. } => {
                f.debug_tuple("MiddlewareResponse").field(result).finish()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_tool_result_is_made_json_once_and_as_the_lane_makes_it() {
        let result = CallToolResult::text("hi");
        let expected = tool_result_value(result.clone());
        let mut response = MiddlewareResponse::tool(result);
        assert!(!response.is_tool_error());
        assert_eq!(response.result(), &expected);
        // The view does not change what is sent: still the typed result.
        assert!(response.tool_result().is_some());
        response.result_mut()["isError"] = json!(true);
        assert!(response.tool_result().is_none());
        assert!(response.is_tool_error());
        assert_eq!(response.into_json()["isError"], json!(true));
    }

    #[test]
    fn a_changed_typed_result_drops_its_stale_view() {
        let mut response = MiddlewareResponse::tool(CallToolResult::text("hi"));
        let _ = response.result();
        response.tool_result_mut().unwrap().is_error = Some(true);
        assert_eq!(response.result()["isError"], json!(true));
        assert_eq!(response.into_json()["isError"], json!(true));
    }
}
