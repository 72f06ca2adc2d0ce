//! What a client can be asked by its server, as pluggable handlers, and the [`Service`] that
//! routes server requests to them.

use crate::jsonrpc::{Notification, Request};
use crate::protocol::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult, Root,
};
use crate::session::{Peer, RequestContext, Service};
use crate::McpError;
use futures_util::future::BoxFuture;
use serde_json::{json, Value};
use std::sync::Arc;

/// Lists the client's roots (`roots/list`).
pub type RootsFn =
    Arc<dyn Fn(RequestContext) -> BoxFuture<'static, Result<Vec<Root>, McpError>> + Send + Sync>;
/// Answers `sampling/createMessage`.
pub type SamplingFn = Arc<
    dyn Fn(
            CreateMessageRequestParams,
            RequestContext,
        ) -> BoxFuture<'static, Result<CreateMessageResult, McpError>>
        + Send
        + Sync,
>;
/// Answers `elicitation/create` (form or URL mode).
pub type ElicitationFn = Arc<
    dyn Fn(
            ElicitRequestParams,
            RequestContext,
        ) -> BoxFuture<'static, Result<ElicitResult, McpError>>
        + Send
        + Sync,
>;
/// Receives every notification from the server (progress for our requests goes to the request's
/// own callback instead).
pub type NotificationFn = Arc<dyn Fn(Notification) + Send + Sync>;

/// The client's handlers. Each one present is advertised as a capability at initialize.
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct ClientHandlers {
    /// `roots/list`; advertises `roots: { listChanged: true }`.
    pub roots: Option<RootsFn>,
    /// `sampling/createMessage`; advertises `sampling`.
    pub sampling: Option<SamplingFn>,
    /// Whether the sampling handler supports `tools`/`toolChoice` (advertises `sampling.tools`).
    pub sampling_tools: bool,
    /// `elicitation/create`; advertises `elicitation`.
    pub elicitation: Option<ElicitationFn>,
    /// Whether the elicitation handler supports URL mode (advertises `elicitation.url`).
    pub elicitation_url: bool,
    /// Every server notification.
    pub on_notification: Option<NotificationFn>,
    /// Capabilities to add to (or override in) the ones the handlers imply, deep-merged: objects
    /// merge key by key, any other value replaces, and `null` removes the key. Use it to
    /// advertise e.g. `{"elicitation": {"form": {"applyDefaults": true}}}` or `experimental`.
    pub extra_capabilities: Option<Value>,
}

ferromcp_protocol::with_setters!(ClientHandlers {
    roots: Option<RootsFn> => with_roots,
    sampling: Option<SamplingFn> => with_sampling,
    sampling_tools: bool => with_sampling_tools,
    elicitation: Option<ElicitationFn> => with_elicitation,
    elicitation_url: bool => with_elicitation_url,
    on_notification: Option<NotificationFn> => with_on_notification,
    extra_capabilities: Option<Value> => with_extra_capabilities,
});

impl std::fmt::Debug for ClientHandlers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientHandlers")
            .field("roots", &self.roots.is_some())
            .field("sampling", &self.sampling.is_some())
            .field("elicitation", &self.elicitation.is_some())
            .field("extra_capabilities", &self.extra_capabilities)
            .finish_non_exhaustive()
    }
}

impl ClientHandlers {
    /// The `capabilities` object advertised at initialize: what the handlers imply, with
    /// [`extra_capabilities`](Self::extra_capabilities) deep-merged over it.
    pub fn capabilities(&self) -> Value {
        self.capabilities_with_tasks(false)
    }

    /// [`Self::capabilities`], with [`Self::task_capabilities`] under `tasks` when the client
    /// runs its server's task-augmented requests (`receives_tasks`).
    pub(crate) fn capabilities_with_tasks(&self, receives_tasks: bool) -> Value {
        let mut caps = self.implied_capabilities();
        if let (true, Some(tasks), Value::Object(m)) =
            (receives_tasks, self.task_capabilities(), &mut caps)
        {
            m.insert("tasks".into(), tasks);
        }
        if let Some(extra) = &self.extra_capabilities {
            merge_capabilities(&mut caps, extra);
        }
        caps
    }

    /// The `capabilities` object the handlers alone imply.
    pub fn implied_capabilities(&self) -> Value {
        let mut caps = serde_json::Map::new();
        if self.roots.is_some() {
            caps.insert("roots".into(), json!({ "listChanged": true }));
        }
        if self.sampling.is_some() {
            caps.insert(
                "sampling".into(),
                if self.sampling_tools {
                    json!({ "tools": {} })
                } else {
                    json!({})
                },
            );
        }
        if self.elicitation.is_some() {
            caps.insert(
                "elicitation".into(),
                if self.elicitation_url {
                    json!({ "form": {}, "url": {} })
                } else {
                    json!({ "form": {} })
                },
            );
        }
        Value::Object(caps)
    }
}

impl ClientHandlers {
    /// The `tasks` capability of a client that runs its server's task-augmented requests
    /// ([`ClientOptions::tasks`](super::ClientOptions::tasks)): `list`, `cancel`, and under
    /// `requests` `sampling.createMessage` and `elicitation.create` as it has those handlers;
    /// `None` when it has neither.
    pub(crate) fn task_capabilities(&self) -> Option<Value> {
        let mut requests = serde_json::Map::new();
        if self.sampling.is_some() {
            requests.insert("sampling".into(), json!({ "createMessage": {} }));
        }
        if self.elicitation.is_some() {
            requests.insert("elicitation".into(), json!({ "create": {} }));
        }
        (!requests.is_empty()).then(|| json!({ "list": {}, "cancel": {}, "requests": requests }))
    }
}

/// Deep-merges `extra` into `base`: objects merge key by key, `null` removes a key, anything
/// else replaces. A non-object `extra` at the top level is ignored (capabilities are an object).
pub fn merge_capabilities(base: &mut Value, extra: &Value) {
    let (Value::Object(b), Value::Object(e)) = (base, extra) else {
        return;
    };
    for (k, v) in e {
        match v {
            Value::Null => {
                b.remove(k);
            }
            Value::Object(_) => {
                let slot = b.entry(k.clone()).or_insert_with(|| json!({}));
                if !slot.is_object() {
                    *slot = json!({});
                }
                merge_capabilities(slot, v);
            }
            other => {
                b.insert(k.clone(), other.clone());
            }
        }
    }
}

fn parse<T: serde::de::DeserializeOwned>(
    method: &str,
    params: Option<Value>,
) -> Result<T, McpError> {
    serde_json::from_value(params.unwrap_or(Value::Null))
        .map_err(|e| McpError::invalid_params(format!("{method}: {e}")))
}

fn to_value<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("protocol types always serialize")
}

impl Service for ClientHandlers {
    fn handle_request(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> BoxFuture<'static, Result<Value, McpError>> {
        let this = self.clone();
        Box::pin(async move {
            let Request { method, params, .. } = request;
            match method.as_str() {
                "roots/list" => match &this.roots {
                    Some(h) => Ok(json!({ "roots": h(ctx).await? })),
                    None => Err(McpError::method_not_found(&method)),
                },
                "sampling/createMessage" => match &this.sampling {
                    Some(h) => {
                        let p: CreateMessageRequestParams = parse(&method, params)?;
                        Ok(to_value(&h(p, ctx).await?))
                    }
                    None => Err(McpError::method_not_found(&method)),
                },
                "elicitation/create" => match &this.elicitation {
                    Some(h) => {
                        let raw = params.clone().unwrap_or(Value::Null);
                        let url_mode = raw.get("mode").and_then(Value::as_str) == Some("url");
                        if url_mode && !this.elicitation_url {
                            return Err(McpError::invalid_params(
                                "this client does not support URL-mode elicitation",
                            ));
                        }
                        let schema = raw.get("requestedSchema").cloned();
                        if !url_mode {
                            let schema = schema.as_ref().ok_or_else(|| {
                                McpError::invalid_params(
                                    "elicitation/create: form mode needs requestedSchema",
                                )
                            })?;
                            crate::schema::elicitation::check_requested_schema(schema)?;
                        }
                        let p: ElicitRequestParams = parse(&method, params)?;
                        let result = h(p, ctx).await?;
                        if let (Some(schema), Some(content)) = (&schema, &result.content) {
                            if !url_mode {
                                crate::schema::elicitation::validate_content(schema, content)?;
                            }
                        }
                        Ok(to_value(&result))
                    }
                    None => Err(McpError::method_not_found(&method)),
                },
                _ => Err(McpError::method_not_found(&method)),
            }
        })
    }

    fn handle_notification(&self, notification: Notification, _peer: &Peer) {
        if let Some(cb) = &self.on_notification {
            cb(notification);
        }
    }
}
