//! Lists answered by a handler written in a binding's language, a page at a time: the
//! engine hands the foreign list handler the request's `cursor` and sends its page and
//! `nextCursor` as the answer, without paging on top ([`EmbeddedServer::add_list_provider`]).
//!
//! Why: the official SDKs' low-level servers (Python's `mcp.server.lowlevel.Server`) let a
//! list handler page by itself: it gets the cursor, returns its page and its `next_cursor`.
//! The engine's own lists page its registries (`ferromcp::server::paginate`). Here the
//! decisions around a foreign page are taken once, in Rust, for every binding: which list
//! methods the handler answers (a list method it does not answer is `-32601 Method not found`,
//! as the SDK answers a list without a handler), a `cursor` that is not a string (`-32602`),
//! and an answer that is not a page (`-32603`: no array of items, a `nextCursor` that is not a
//! string); the rest of the server's requests never cross into the binding's language.

use super::{EmbeddedServer, ForeignContext};
use ferromcp::server::middleware::{
    BoxFuture, Middleware, MiddlewareRequest, MiddlewareResponse, Next,
};
use ferromcp::McpError;
use serde_json::{json, Value};
use std::sync::Arc;

/// The list methods, with the member holding their items.
const LISTS: [(&str, &str); 4] = [
    ("tools/list", "tools"),
    ("resources/list", "resources"),
    ("resources/templates/list", "resourceTemplates"),
    ("prompts/list", "prompts"),
];

/// A list handler written in a binding's language.
pub trait ForeignListProvider: Send + Sync + 'static {
    /// One page of the list `method` (`tools/list`, `resources/list`,
    /// `resources/templates/list`, `prompts/list`): `params` is the request's params (an
    /// object, `{}` when it had none; its `cursor`, when present, a string). Answers the list
    /// result: the items under the method's member (`tools`, ...) and, when more follow, a
    /// `nextCursor` string.
    fn page(
        &self,
        method: &'static str,
        params: Value,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<Value, McpError>>;
}

/// The layer answering the list methods with a [`ForeignListProvider`].
struct ListProviderLayer {
    provider: Arc<dyn ForeignListProvider>,
    /// The list methods the provider answers.
    methods: Vec<&'static str>,
}

/// The params of a list request, checked: an object (or none), its `cursor` absent, null or a
/// string.
fn list_params(params: Option<&Value>) -> Result<Value, McpError> {
    let mut p = match params {
        None | Some(Value::Null) => serde_json::Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(_) => return Err(McpError::invalid_params("params must be an object")),
    };
    match p.get("cursor") {
        None | Some(Value::String(_)) => {}
        Some(Value::Null) => {
            p.remove("cursor");
        }
        Some(_) => return Err(McpError::invalid_params("params.cursor must be a string")),
    }
    Ok(Value::Object(p))
}

/// The provider's answer as a list result, or why it is not one.
fn checked_page(method: &str, key: &str, mut page: Value) -> Result<Value, McpError> {
    let kind = ferromcp::schema::json_type_name(&page);
    let Some(object) = page.as_object_mut() else {
        return Err(McpError::internal(format!(
            "the {method} handler returned {kind}, not a result with a {key:?} list"
        )));
    };
    if !object.get(key).is_some_and(Value::is_array) {
        return Err(McpError::internal(format!(
            "the {method} handler returned a result without a {key:?} list"
        )));
    }
    match object.get("nextCursor") {
        None | Some(Value::String(_)) => {}
        Some(Value::Null) => {
            object.remove("nextCursor");
        }
        Some(other) => {
            return Err(McpError::internal(format!(
                "the {method} handler returned a nextCursor that is {}, not a string",
                ferromcp::schema::json_type_name(other)
            )))
        }
    }
    Ok(page)
}

impl Middleware for ListProviderLayer {
    fn handle<'a>(
        &'a self,
        request: MiddlewareRequest,
        next: Next<'a>,
    ) -> BoxFuture<'a, Result<MiddlewareResponse, McpError>> {
        let Some(&(method, key)) = LISTS.iter().find(|(m, _)| *m == request.method()) else {
            return next.run(request);
        };
        Box::pin(async move {
            if !self.methods.contains(&method) {
                // The SDK's answer to a list without a handler.
                return Err(McpError::new(
                    ferromcp::error::codes::METHOD_NOT_FOUND,
                    "Method not found",
                )
                .with_data(json!(method)));
            }
            let params = list_params(request.params())?;
            let ctx = ForeignContext::new(request.context().clone());
            let page = ferromcp::wait::handover(self.provider.page(method, params, ctx)).await?;
            checked_page(method, key, page).map(MiddlewareResponse::json)
        })
    }
}

impl EmbeddedServer {
    /// Adds, after the layers already there, the layer answering the list methods with
    /// `provider` (see the module): the ones in `methods` by its page, the other list methods
    /// with `-32601`. An unknown method name in `methods` is refused, and so is the layer once
    /// the server handled its first request.
    pub fn add_list_provider(
        &self,
        methods: &[String],
        provider: Arc<dyn ForeignListProvider>,
    ) -> Result<(), McpError> {
        let methods = methods
            .iter()
            .map(|m| {
                LISTS
                    .iter()
                    .find(|(l, _)| l == m)
                    .map(|(l, _)| *l)
                    .ok_or_else(|| {
                        McpError::invalid_params(format!(
                            "list provider: {m:?} is not a list method (tools/list, resources/list, resources/templates/list, prompts/list)"
                        ))
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.server()
            .add_middleware(ListProviderLayer { provider, methods })
    }
}
