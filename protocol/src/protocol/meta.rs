//! Building blocks every other protocol module uses: `_meta`, cursors, progress tokens, roles,
//! annotations, icons, the generic request/notification/result parameter objects, and the
//! machinery that writes constant `"type"` tags and dispatches tagged unions.
//!
//! Content structs carry their own constant tag (a zero-sized marker such as [`TextType`]) so a
//! struct serialized on its own is already valid against its schema definition, and a union like
//! `ContentBlock` can simply delegate to the variant it holds.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The `_meta` object: reserved protocol metadata (keys such as `progressToken`) plus anything
/// an implementation wants to attach.
pub type Meta = serde_json::Map<String, Value>;

/// An arbitrary JSON object; used for capability flags that are empty objects on the wire
/// (`logging: {}`) and for free-form objects such as tool arguments.
pub type JsonObject = serde_json::Map<String, Value>;

/// An opaque pagination cursor.
pub type Cursor = String;

/// A progress token: a string or an integer, exactly like a request id, so the JSON-RPC id type
/// is reused.
pub type ProgressToken = crate::jsonrpc::RequestId;

/// The `_meta` key under which a request asks for progress notifications.
pub const PROGRESS_TOKEN_META_KEY: &str = "progressToken";

/// The `_meta` key that associates a message with a task (value: [`RelatedTaskMetadata`]).
pub const RELATED_TASK_META_KEY: &str = "io.modelcontextprotocol/related-task";

/// Reads the progress token from a request's `_meta`, if present and well-formed.
pub fn progress_token(meta: Option<&Meta>) -> Option<ProgressToken> {
    meta?
        .get(PROGRESS_TOKEN_META_KEY)
        .and_then(ProgressToken::from_value)
}

/// Checks the shape of a request's `params._meta`, when it has one: an object (every
/// revision's `RequestParams`), whose `progressToken`, when present, is a string or an integer
/// (`ProgressToken`). `Err` is the `-32602` (invalid params) naming what is wrong.
#[doc(hidden)]
pub fn check_request_meta(params: Option<&Value>) -> Result<(), crate::McpError> {
    match params.and_then(|p| p.get("_meta")) {
        Some(meta) => check_meta(meta),
        None => Ok(()),
    }
}

/// [`check_request_meta`] of the `_meta` member itself.
#[doc(hidden)]
pub fn check_meta(meta: &Value) -> Result<(), crate::McpError> {
    let Some(meta) = meta.as_object() else {
        return Err(crate::McpError::invalid_params(format!(
            "params._meta must be an object, not {}",
            json_type(meta)
        )));
    };
    match meta.get(PROGRESS_TOKEN_META_KEY) {
        Some(t) if ProgressToken::from_value(t).is_none() => {
            let what = match t {
                Value::Number(n) if n.is_u64() => "an integer out of range",
                Value::Number(_) => "a fractional number",
                other => json_type(other),
            };
            Err(crate::McpError::invalid_params(format!(
                "params._meta.progressToken must be a string or an integer, not {what}"
            )))
        }
        _ => Ok(()),
    }
}

/// Checks that `v` is an `Implementation` (what `clientInfo` and `serverInfo` hold in every
/// revision): an object with `name` and `version` strings; `title`, `description` and
/// `websiteUrl`, when present, strings; `icons`, when present, an array. `at` names where it
/// sits in the message (`params.clientInfo`) for the `-32602` that refuses it.
#[doc(hidden)]
pub fn check_implementation(v: &Value, at: &str) -> Result<(), crate::McpError> {
    let refuse = |what: String| Err(crate::McpError::invalid_params(format!("{at}{what}")));
    let Some(o) = v.as_object() else {
        return refuse(format!(" must be an object, not {}", json_type(v)));
    };
    for key in ["name", "version"] {
        match o.get(key) {
            Some(Value::String(_)) => {}
            None => return refuse(format!(".{key} (string) is required")),
            Some(other) => {
                return refuse(format!(".{key} must be a string, not {}", json_type(other)))
            }
        }
    }
    for key in ["title", "description", "websiteUrl"] {
        match o.get(key) {
            None | Some(Value::String(_)) => {}
            Some(other) => {
                return refuse(format!(".{key} must be a string, not {}", json_type(other)))
            }
        }
    }
    match o.get("icons") {
        None | Some(Value::Array(_)) => Ok(()),
        Some(other) => refuse(format!(".icons must be an array, not {}", json_type(other))),
    }
}

/// The JSON type of `v`, for error messages (`a number`, `an array`, ...).
fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Returns `meta` with `progressToken` set to `token` (creating the object if needed).
pub fn with_progress_token(meta: Option<Meta>, token: ProgressToken) -> Meta {
    let mut meta = meta.unwrap_or_default();
    meta.insert(PROGRESS_TOKEN_META_KEY.to_owned(), token.to_value());
    meta
}

/// Reads the related-task metadata from a message's `_meta`, if present and well-formed.
pub fn related_task(meta: Option<&Meta>) -> Option<RelatedTaskMetadata> {
    meta?
        .get(RELATED_TASK_META_KEY)
        .and_then(|v| serde_json::from_value(v.clone()).ok())
}

/// Defines a zero-sized marker that serializes as one constant string and refuses any other
/// on input. Used for the `"type"` discriminator of content blocks and similar constants.
macro_rules! wire_tag {
    ($(#[$doc:meta])* $name:ident = $value:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name;

        impl $name {
            /// The constant string this marker stands for on the wire.
            pub const VALUE: &'static str = $value;
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str($value)
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
                if s == $value {
                    Ok($name)
                } else {
                    Err(<D::Error as serde::de::Error>::custom(format_args!(
                        "expected {:?}, found {:?}",
                        $value, s
                    )))
                }
            }
        }
    };
}
pub(crate) use wire_tag;

/// Implements `Serialize` (delegating to the variant) and `Deserialize` (dispatching on a
/// string discriminator field) for an enum of newtype variants whose payloads carry their own
/// tag marker. Unknown discriminators are an error naming the union.
macro_rules! tagged_union {
    ($name:ident, $key:literal, { $($variant:ident($ty:ty) = $tag:literal),+ $(,)? }) => {
        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self {
                    $($name::$variant(v) => serde::Serialize::serialize(v, s),)+
                }
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                use serde::de::Error as _;
                let map = serde_json::Map::<String, serde_json::Value>::deserialize(d)?;
                let tag = match map.get($key) {
                    Some(serde_json::Value::String(t)) => t.clone(),
                    Some(other) => {
                        return Err(D::Error::custom(format_args!(
                            "{}: {:?} must be a string, found {}",
                            stringify!($name), $key, other
                        )))
                    }
                    None => {
                        return Err(D::Error::custom(format_args!(
                            "{}: missing {:?}",
                            stringify!($name), $key
                        )))
                    }
                };
                match tag.as_str() {
                    $($tag => serde_json::from_value::<$ty>(serde_json::Value::Object(map))
                        .map($name::$variant)
                        .map_err(D::Error::custom),)+
                    other => Err(D::Error::custom(format_args!(
                        "{}: unknown {} {:?}",
                        stringify!($name), $key, other
                    ))),
                }
            }
        }

        $(
            impl From<$ty> for $name {
                fn from(v: $ty) -> Self {
                    $name::$variant(v)
                }
            }
        )+
    };
}
pub(crate) use tagged_union;

/// The sender or recipient of messages and data in a conversation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Role {
    /// The human side (or the client acting for it).
    User,
    /// The model side.
    Assistant,
}

/// Optional hints for the client about how an object is meant to be used or shown.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Annotations {
    /// Who the data is meant for (one or both roles).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// Importance from 0 (least) to 1 (most).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    /// ISO 8601 time of the last modification (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl Annotations {
    /// Sets `audience`.
    pub fn with_audience(mut self, audience: Vec<Role>) -> Self {
        self.audience = Some(audience);
        self
    }

    /// Sets `priority`.
    pub fn with_priority(mut self, priority: f64) -> Self {
        self.priority = Some(priority);
        self
    }

    /// Sets `last_modified`.
    pub fn with_last_modified(mut self, last_modified: impl Into<String>) -> Self {
        self.last_modified = Some(last_modified.into());
        self
    }
}

/// Which background an icon is designed for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum IconTheme {
    /// Designed for a light background.
    Light,
    /// Designed for a dark background.
    Dark,
}

/// An optionally sized icon a user interface can display (2025-11-25+).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Icon {
    /// An `http(s):` URL or a `data:` URI with the image.
    pub src: String,
    /// MIME type override, e.g. `image/png`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes such as `"48x48"` or `"any"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// The background the icon is made for; absent means any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<IconTheme>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl Icon {
    /// An icon with just a source URI.
    pub fn new(src: impl Into<String>) -> Self {
        Icon {
            src: src.into(),
            ..Default::default()
        }
    }
}

/// Parameters of a request that defines no parameters of its own (`ping`, `roots/list`):
/// only `_meta`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RequestParams {
    /// Protocol metadata (e.g. `progressToken`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Parameters of a notification that defines no parameters of its own
/// (`notifications/initialized`, `.../list_changed`): only `_meta`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct NotificationParams {
    /// Protocol metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// A result that carries nothing but `_meta` (the answer to `ping`, `logging/setLevel`,
/// `resources/subscribe`, ...). Named after the schema's `EmptyResult`; the schema's base
/// `Result` has the same shape.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct EmptyResult {
    /// Protocol metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Parameters of a paginated list request (`tools/list`, `resources/list`, `tasks/list`, ...).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PaginatedRequestParams {
    /// Where to continue: the `nextCursor` of the previous page; absent for the first page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<Cursor>,
    /// Protocol metadata (e.g. `progressToken`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl PaginatedRequestParams {
    /// Parameters asking for the page after `cursor`.
    pub fn with_cursor(cursor: impl Into<String>) -> Self {
        PaginatedRequestParams {
            cursor: Some(cursor.into()),
            ..Default::default()
        }
    }
}

/// Associates a message with a task; sent in `_meta` under [`RELATED_TASK_META_KEY`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RelatedTaskMetadata {
    /// The task the message belongs to.
    pub task_id: String,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

#[cfg(test)]
mod tests {
    use super::*;

    wire_tag!(
        /// Test marker.
        Foo = "foo"
    );

    #[test]
    fn wire_tag_round_trips_and_rejects_others() {
        assert_eq!(serde_json::to_value(Foo).unwrap(), Value::from(Foo::VALUE));
        assert!(serde_json::from_value::<Foo>(Value::from("foo")).is_ok());
        assert!(serde_json::from_value::<Foo>(Value::from("bar")).is_err());
    }

    #[test]
    fn progress_token_helpers() {
        let meta = with_progress_token(None, ProgressToken::from(7));
        assert_eq!(progress_token(Some(&meta)), Some(ProgressToken::from(7)));
        assert_eq!(progress_token(None), None);
    }
}
