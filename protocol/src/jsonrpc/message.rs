//! The four kinds of JSON-RPC message, as the session layer sees them.

use super::RequestId;
use crate::McpError;
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::Value;

/// A request: expects a response with the same id.
// Stays open (no #[non_exhaustive]): every field is JSON-RPC 2.0's (a fixed specification);
// users build and match it by its fields.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// The request id, unique among this sender's requests in the session.
    pub id: RequestId,
    /// The method name.
    pub method: String,
    /// The parameters (an object for every MCP method), if any.
    pub params: Option<Value>,
}

/// A notification: a one-way message without an id.
// Stays open (no #[non_exhaustive]): every field is JSON-RPC 2.0's (a fixed specification);
// users build and match it by its fields.
#[derive(Clone, Debug, PartialEq)]
pub struct Notification {
    /// The method name.
    pub method: String,
    /// The parameters, if any.
    pub params: Option<Value>,
}

/// A successful response.
// Stays open (no #[non_exhaustive]): every field is JSON-RPC 2.0's (a fixed specification);
// users build and match it by its fields.
#[derive(Clone, Debug, PartialEq)]
pub struct Response {
    /// The id of the request this answers.
    pub id: RequestId,
    /// The result object.
    pub result: Value,
}

/// An error response. The id is `None` only when the request's id could not be read.
// Stays open (no #[non_exhaustive]): every field is JSON-RPC 2.0's (a fixed specification);
// users build and match it by its fields.
#[derive(Clone, Debug, PartialEq)]
pub struct ErrorResponse {
    /// The id of the request this answers, if it could be determined.
    pub id: Option<RequestId>,
    /// The error.
    pub error: McpError,
}

/// Any JSON-RPC message.
// Stays open (no #[non_exhaustive]): JSON-RPC 2.0 (a fixed specification) has exactly these four
// kinds of message, so a `match` on them may be exhaustive.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// A request.
    Request(Request),
    /// A notification.
    Notification(Notification),
    /// A successful response.
    Response(Response),
    /// An error response.
    Error(ErrorResponse),
}

impl Message {
    /// A request message.
    /// Builds a request; [`Message::to_json`] gives its wire form.
    ///
    /// ```
    /// use ferromcp_protocol::jsonrpc::{Message, RequestId};
    /// use serde_json::json;
    ///
    /// let msg = Message::request(RequestId::from(1), "tools/list", Some(json!({})));
    /// assert_eq!(msg.method(), Some("tools/list"));
    /// assert_eq!(msg.id(), Some(&RequestId::Number(1)));
    /// let wire: serde_json::Value = serde_json::from_str(&msg.to_json()).unwrap();
    /// assert_eq!(wire, json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {} }));
    /// ```
    pub fn request(id: RequestId, method: impl Into<String>, params: Option<Value>) -> Self {
        Message::Request(Request {
            id,
            method: method.into(),
            params,
        })
    }

    /// A notification message.
    pub fn notification(method: impl Into<String>, params: Option<Value>) -> Self {
        Message::Notification(Notification {
            method: method.into(),
            params,
        })
    }

    /// A success response.
    pub fn response(id: RequestId, result: Value) -> Self {
        Message::Response(Response { id, result })
    }

    /// An error response.
    pub fn error(id: Option<RequestId>, error: McpError) -> Self {
        Message::Error(ErrorResponse { id, error })
    }

    /// The method name of a request or notification.
    pub fn method(&self) -> Option<&str> {
        match self {
            Message::Request(r) => Some(&r.method),
            Message::Notification(n) => Some(&n.method),
            _ => None,
        }
    }

    /// The id of a request or response.
    pub fn id(&self) -> Option<&RequestId> {
        match self {
            Message::Request(r) => Some(&r.id),
            Message::Response(r) => Some(&r.id),
            Message::Error(e) => e.id.as_ref(),
            Message::Notification(_) => None,
        }
    }

    /// Serializes the message to a JSON string.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a Message always serializes")
    }
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("jsonrpc", super::JSONRPC_VERSION)?;
        match self {
            Message::Request(r) => {
                m.serialize_entry("id", &r.id)?;
                m.serialize_entry("method", &r.method)?;
                if let Some(p) = &r.params {
                    m.serialize_entry("params", p)?;
                }
            }
            Message::Notification(n) => {
                m.serialize_entry("method", &n.method)?;
                if let Some(p) = &n.params {
                    m.serialize_entry("params", p)?;
                }
            }
            Message::Response(r) => {
                m.serialize_entry("id", &r.id)?;
                m.serialize_entry("result", &r.result)?;
            }
            Message::Error(e) => {
                // MCP 2025-11-25: `id?: string | number` -- an unreadable id is omitted, never null.
                if let Some(id) = &e.id {
                    m.serialize_entry("id", id)?;
                }
                m.serialize_entry("error", &e.error)?;
            }
        }
        m.end()
    }
}
