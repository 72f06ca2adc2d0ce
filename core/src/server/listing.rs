//! Whole lists behind the list methods, for the layers that change what a list holds
//! (authorization hides items, composition adds a mounted server's): such a layer reads every
//! page of the list from the rest of the chain, changes the whole list, and pages it again with
//! cursors of its own, so that a page is never short or empty because items were taken out of
//! it, and a cursor always points into the list the caller is allowed to see.

use super::middleware::{MiddlewareRequest, MiddlewareResponse, Next};
use super::pagination::paginate;
use super::Server;
use crate::jsonrpc::Request;
use crate::session::RequestContext;
use crate::McpError;
use serde_json::{Map, Value};

/// Most pages read from one source for one list (a source that keeps answering a
/// `nextCursor` is cut off here instead of looping forever).
const MAX_PAGES: usize = 10_000;

/// The member holding the items in the result of a list method (`tools/list` -> `tools`).
pub(crate) fn list_key(method: &str) -> Option<&'static str> {
    Some(match method {
        "tools/list" => "tools",
        "resources/list" => "resources",
        "resources/templates/list" => "resourceTemplates",
        "prompts/list" => "prompts",
        _ => return None,
    })
}

/// The `cursor` of a list request (`None` without one), refusing one that is not a string.
pub(crate) fn requested_cursor(params: Option<&Value>) -> Result<Option<String>, McpError> {
    match params.and_then(|p| p.get("cursor")) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(McpError::invalid_params("params.cursor must be a string")),
    }
}

/// The params of one page request: the caller's params with `cursor` replaced.
fn page_params(params: Option<&Value>, cursor: Option<&str>) -> Value {
    let mut p = match params {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    };
    p.remove("cursor");
    if let Some(c) = cursor {
        p.insert("cursor".into(), Value::String(c.to_string()));
    }
    Value::Object(p)
}

/// Takes the items out of one page, with its `nextCursor`.
fn take_page(mut page: Value, key: &str) -> Result<(Vec<Value>, Option<String>), McpError> {
    let items = match page.get_mut(key).map(Value::take) {
        Some(Value::Array(items)) => items,
        _ => {
            return Err(McpError::internal(format!(
                "a list result has no array {key:?}"
            )))
        }
    };
    let next = page
        .get("nextCursor")
        .and_then(Value::as_str)
        .map(str::to_string);
    Ok((items, next))
}

/// Reads every page of `method` through `fetch` (one call per page), in order.
async fn read_all<F, Fut>(key: &str, mut fetch: F) -> Result<Vec<Value>, McpError>
where
    F: FnMut(Option<String>) -> Fut,
    Fut: std::future::Future<Output = Result<Value, McpError>>,
{
    let mut all = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let (items, next) = take_page(fetch(cursor.take()).await?, key)?;
        all.extend(items);
        match next {
            Some(n) => cursor = Some(n),
            None => return Ok(all),
        }
    }
    Err(McpError::internal(format!(
        "a list gave more than {MAX_PAGES} pages"
    )))
}

/// Every item of the list `request` asks for, read page by page from the rest of the chain.
pub(crate) async fn read_all_from_chain(
    next: Next<'_>,
    request: &MiddlewareRequest,
    key: &str,
) -> Result<Vec<Value>, McpError> {
    read_all(key, |cursor| {
        let page = MiddlewareRequest::new(
            Request {
                id: request.id().clone(),
                method: request.method().to_string(),
                params: Some(page_params(request.params(), cursor.as_deref())),
            },
            request.context().clone(),
        );
        let page = next.run(page);
        async move { page.await.map(MiddlewareResponse::into_json) }
    })
    .await
}

/// Every item of the list `method` of another server (a mounted one), through its own chain.
pub(crate) async fn read_all_from_server(
    server: &Server,
    method: &str,
    template: &MiddlewareRequest,
    key: &str,
) -> Result<Vec<Value>, McpError> {
    read_all(key, |cursor| {
        let request = Request {
            id: template.id().clone(),
            method: method.to_string(),
            params: Some(page_params(None, cursor.as_deref())),
        };
        serve_in(server, request, template.context().clone())
    })
    .await
}

/// Answers `request` as `server` would: its middleware chain, then its dispatch (without the
/// per-request era's `serverInfo`, which the server that received the request adds).
pub(crate) async fn serve_in(
    server: &Server,
    request: Request,
    ctx: RequestContext,
) -> Result<Value, McpError> {
    if server.has_middleware() {
        super::middleware::run_chain(server, request, ctx).await
    } else {
        server.dispatch(request, ctx).await
    }
}

/// The page `cursor` names of the whole list `items`, as the list result `key` (`nextCursor`
/// when more follow), with the server's page size.
pub(crate) fn page_of(
    server: &Server,
    key: &str,
    items: Vec<Value>,
    cursor: Option<&str>,
) -> Result<Value, McpError> {
    let (page, next) = paginate(&items, cursor, server.options().page_size)?;
    let mut r = Map::new();
    r.insert(key.to_string(), Value::Array(page));
    if let Some(n) = next {
        r.insert("nextCursor".into(), Value::String(n));
    }
    Ok(Value::Object(r))
}
