//! A backend's tools, resources, resource templates and prompts registered on the proxy's
//! server under their namespaced names, each with a handler that forwards to the backend, and
//! the completion handler that routes `completion/complete` to the backend owning the prompt
//! or template. Run again for a list when the backend says it changed: what is gone is removed.

use crate::backend::forward::Listing;
use crate::backend::Backend;
use crate::namespace::Namespace;
use ferromcp::client::Client;
use ferromcp::protocol::{
    CallToolResult, Completion, GetPromptResult, Prompt, Resource, ResourceContents,
    ResourceTemplate, TaskSupport,
};
use ferromcp::server::{
    completion_fn, prompt_fn, resource_fn, tool_fn, CompletionFn, PromptFn, ResourceFn, Server,
    ToolFn,
};
use ferromcp::session::RequestOptions;
use ferromcp::McpError;
use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Whether the backend advertised capability `name`.
pub(crate) fn offers(client: &Client, name: &str) -> bool {
    client
        .server_capabilities()
        .and_then(|c| c.get(name))
        .is_some_and(|v| !v.is_null())
}

/// Whether the backend's capabilities hold `path` (a JSON pointer, `/tasks/cancel`).
pub(crate) fn declares(client: &Client, path: &str) -> bool {
    client
        .server_capabilities()
        .and_then(|c| c.pointer(path))
        .is_some_and(|v| !v.is_null())
}

/// Whether the backend runs tools as tasks on this connection: a handshake (2025-11-25)
/// backend declaring `tasks.requests.tools.call`, a 2026-07-28 one declaring the tasks
/// extension. A backend that does not has none of its tools called as tasks, whatever their
/// `execution.taskSupport` says (the 2025-11-25 tasks page: a client "MUST NOT attempt to use
/// task augmentation on that server's tools").
pub(crate) fn runs_tasks(client: &Client) -> bool {
    if client.is_per_request() {
        client
            .server_capabilities()
            .and_then(|c| c.get("extensions"))
            .and_then(|e| e.get(ferromcp::protocol::TASKS_EXTENSION))
            .is_some_and(|v| !v.is_null())
    } else {
        declares(client, "/tasks/requests/tools/call")
    }
}

/// Registers every list the backend offers.
pub(crate) async fn sync_all(
    server: &Server,
    backend: &Arc<Backend>,
    client: &Client,
) -> Result<(), McpError> {
    for listing in [Listing::Tools, Listing::Resources, Listing::Prompts] {
        sync(server, backend, client, listing).await?;
    }
    Ok(())
}

/// Registers one list of the backend again.
pub(crate) async fn sync(
    server: &Server,
    backend: &Arc<Backend>,
    client: &Client,
    listing: Listing,
) -> Result<(), McpError> {
    match listing {
        Listing::Tools => sync_tools(server, backend, client).await,
        Listing::Resources => sync_resources(server, backend, client).await,
        Listing::Prompts => sync_prompts(server, backend, client).await,
    }
}

/// Every item of a paginated list (`key` of each page).
async fn list_all<T: DeserializeOwned>(
    client: &Client,
    method: &str,
    key: &str,
) -> Result<Vec<T>, McpError> {
    let mut all = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let params = match &cursor {
            Some(c) => json!({ "cursor": c }),
            None => json!({}),
        };
        let page = client
            .request(method, Some(params), RequestOptions::default())
            .await?;
        let items = page.get(key).cloned().unwrap_or(Value::Array(Vec::new()));
        let items: Vec<T> = serde_json::from_value(items).map_err(|e| {
            McpError::internal(format!("the backend sent a malformed {method} result: {e}"))
        })?;
        all.extend(items);
        match page.get("nextCursor").and_then(Value::as_str) {
            Some(c) if Some(c) != cursor.as_deref() => cursor = Some(c.to_string()),
            _ => return Ok(all),
        }
    }
}

async fn sync_tools(
    server: &Server,
    backend: &Arc<Backend>,
    client: &Client,
) -> Result<(), McpError> {
    let tools = if offers(client, "tools") {
        client.list_all_tools().await?
    } else {
        Vec::new()
    };
    let mut now = HashMap::new();
    let tasks = runs_tasks(client);
    for mut tool in tools {
        let original = std::mem::take(&mut tool.name);
        tool.name = backend.ns.name(&original);
        let name = tool.name.clone();
        if !tasks {
            // Not run as a task at a backend that does not declare tasks: offered (and
            // called) as a plain tool.
            if let Some(e) = tool.execution.as_mut() {
                e.task_support = None;
            }
        }
        let support = tool.task_support();
        match server.add_tool(
            tool,
            tool_handler(backend.clone(), original.clone(), support),
        ) {
            Ok(()) => {
                now.insert(name, original);
            }
            Err(e) => {
                tracing::warn!(backend = backend.name(), tool = %original, error = %e, "tool left out")
            }
        }
    }
    let old = std::mem::replace(&mut backend.registered.lock().unwrap().tools, now.clone());
    for name in old.keys().filter(|n| !now.contains_key(*n)) {
        server.remove_tool(name);
    }
    Ok(())
}

async fn sync_prompts(
    server: &Server,
    backend: &Arc<Backend>,
    client: &Client,
) -> Result<(), McpError> {
    let prompts: Vec<Prompt> = if offers(client, "prompts") {
        list_all(client, "prompts/list", "prompts").await?
    } else {
        Vec::new()
    };
    let mut now = HashMap::new();
    for mut prompt in prompts {
        let original = std::mem::take(&mut prompt.name);
        prompt.name = backend.ns.name(&original);
        now.insert(prompt.name.clone(), original.clone());
        server.add_prompt(prompt, prompt_handler(backend.clone(), original));
    }
    let old = std::mem::replace(&mut backend.registered.lock().unwrap().prompts, now.clone());
    for name in old.keys().filter(|n| !now.contains_key(*n)) {
        server.remove_prompt(name);
    }
    Ok(())
}

async fn sync_resources(
    server: &Server,
    backend: &Arc<Backend>,
    client: &Client,
) -> Result<(), McpError> {
    let (resources, templates): (Vec<Resource>, Vec<ResourceTemplate>) =
        if offers(client, "resources") {
            (
                list_all(client, "resources/list", "resources").await?,
                // Servers without templates may not know the method: no templates then.
                list_all(client, "resources/templates/list", "resourceTemplates")
                    .await
                    .unwrap_or_default(),
            )
        } else {
            (Vec::new(), Vec::new())
        };
    let mut now = HashSet::new();
    for mut resource in resources {
        let original = std::mem::take(&mut resource.uri);
        resource.uri = backend.ns.uri(&original);
        now.insert(resource.uri.clone());
        server.add_resource(resource, read_handler(backend.clone()));
    }
    let mut now_templates = HashMap::new();
    for mut template in templates {
        let original = std::mem::take(&mut template.uri_template);
        template.uri_template = backend.ns.uri(&original);
        let key = template.uri_template.clone();
        match server.add_resource_template(template, read_handler(backend.clone())) {
            Ok(()) => {
                now_templates.insert(key, original);
            }
            Err(e) => {
                tracing::warn!(backend = backend.name(), template = %original, error = %e, "template left out")
            }
        }
    }
    let old = {
        let mut reg = backend.registered.lock().unwrap();
        reg.templates = now_templates;
        std::mem::replace(&mut reg.resources, now.clone())
    };
    for uri in old.iter().filter(|u| !now.contains(*u)) {
        server.remove_resource(uri);
    }
    // Updates of a resource come only to subscribers: the proxy subscribes to the backend's
    // listed resources so that clients subscribed at the proxy get them (the engine's server
    // keeps client subscriptions to itself; see docs/gateway.md).
    let subscribable = client
        .server_capabilities()
        .and_then(|c| c.pointer("/resources/subscribe"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if subscribable {
        let mut uris: Vec<&String> = now.iter().collect();
        uris.sort();
        for uri in uris.into_iter().take(backend.options.max_subscriptions) {
            if let Some(original) = backend.ns.original_uri(uri) {
                if let Err(e) = client.subscribe(original).await {
                    tracing::debug!(backend = backend.name(), uri = %original, error = %e, "subscribe refused");
                }
            }
        }
    }
    Ok(())
}

/// The handler of a backend's tool `original`; one that may run as a task (`support`) goes
/// through [`Backend::call_task_tool`] (a task at the backend when it must be one).
fn tool_handler(backend: Arc<Backend>, original: String, support: TaskSupport) -> ToolFn {
    tool_fn(move |args, ctx| {
        let (backend, name) = (backend.clone(), original.clone());
        async move {
            let mut result = if support == TaskSupport::Forbidden {
                let mut params = Map::new();
                params.insert("name".into(), Value::String(name));
                params.insert("arguments".into(), Value::Object(args));
                backend.forward("tools/call", params, &ctx).await?
            } else {
                // Boxed: a task's future is several KB (its era bridging and status loops), and
                // held inline it would make every call's future that big, copied into the
                // handler's box on every call, plain calls too (callgrind: 9.0k of 164.6k
                // instructions per forwarded call over HTTP).
                Box::pin(backend.call_task_tool(name, args, support, &ctx)).await?
            };
            if let Some(Value::Array(blocks)) = result.get_mut("content") {
                blocks
                    .iter_mut()
                    .for_each(|b| rewrite_block(&backend.ns, b));
            }
            decode::<CallToolResult>(&backend, "tools/call", result)
        }
    })
}

fn prompt_handler(backend: Arc<Backend>, original: String) -> PromptFn {
    prompt_fn(move |args, ctx| {
        let (backend, name) = (backend.clone(), original.clone());
        async move {
            let mut params = Map::new();
            params.insert("name".into(), Value::String(name));
            params.insert("arguments".into(), Value::Object(args));
            let mut result = backend.forward("prompts/get", params, &ctx).await?;
            if let Some(Value::Array(messages)) = result.get_mut("messages") {
                for m in messages {
                    if let Some(block) = m.get_mut("content") {
                        rewrite_block(&backend.ns, block);
                    }
                }
            }
            decode::<GetPromptResult>(&backend, "prompts/get", result)
        }
    })
}

fn read_handler(backend: Arc<Backend>) -> ResourceFn {
    resource_fn(move |req, ctx| {
        let backend = backend.clone();
        async move {
            let original = backend
                .ns
                .original_uri(&req.uri)
                .ok_or_else(|| McpError::resource_not_found(&req.uri))?
                .to_string();
            let mut params = Map::new();
            params.insert("uri".into(), Value::String(original));
            let mut result = backend.forward("resources/read", params, &ctx).await?;
            let mut contents = result
                .get_mut("contents")
                .map(Value::take)
                .unwrap_or(Value::Array(Vec::new()));
            if let Value::Array(items) = &mut contents {
                for item in items {
                    rewrite_uri(&backend.ns, item.get_mut("uri"));
                }
            }
            decode::<Vec<ResourceContents>>(&backend, "resources/read", contents)
        }
    })
}

/// The completion handler of the proxy: finds the backend owning the prompt or template the
/// request names and asks it with its own name or URI template.
pub(crate) fn completion_handler(backends: Arc<[Arc<Backend>]>) -> CompletionFn {
    completion_fn(move |params, ctx| {
        let backends = backends.clone();
        async move {
            let mut params = match serde_json::to_value(&params) {
                Ok(Value::Object(m)) => m,
                _ => {
                    return Err(McpError::invalid_params(
                        "completion/complete: malformed params",
                    ))
                }
            };
            let reference = params.get("ref").cloned().unwrap_or(Value::Null);
            let kind = reference.get("type").and_then(Value::as_str).unwrap_or("");
            let (key, name) = match kind {
                "ref/prompt" => ("name", reference.get("name")),
                "ref/resource" => ("uri", reference.get("uri")),
                other => {
                    return Err(McpError::invalid_params(format!(
                        "completion/complete: unknown ref type {other:?}"
                    )))
                }
            };
            let name = name.and_then(Value::as_str).unwrap_or("").to_string();
            let found = backends.iter().find_map(|b| {
                let reg = b.registered.lock().unwrap();
                let original = if key == "name" {
                    reg.prompts.get(&name).cloned()
                } else {
                    reg.templates.get(&name).cloned().or_else(|| {
                        reg.resources
                            .contains(&name)
                            .then(|| b.ns.original_uri(&name).map(str::to_string))
                            .flatten()
                    })
                };
                original.map(|o| (b.clone(), o))
            });
            let Some((backend, original)) = found else {
                return Err(McpError::invalid_params(format!(
                    "completion/complete: no backend offers {kind} {name:?}"
                )));
            };
            params.insert("ref".into(), {
                let mut r = reference.clone();
                r[key] = Value::String(original);
                r
            });
            let mut result = backend.forward("completion/complete", params, &ctx).await?;
            let completion = result
                .get_mut("completion")
                .map(Value::take)
                .unwrap_or(Value::Null);
            decode::<Completion>(&backend, "completion/complete", completion)
        }
    })
}

fn decode<T: DeserializeOwned>(backend: &Backend, method: &str, v: Value) -> Result<T, McpError> {
    serde_json::from_value(v).map_err(|e| {
        McpError::internal(format!(
            "backend {:?} sent a malformed {method} result: {e}",
            backend.name()
        ))
    })
}

/// Renames the URI of an embedded resource or a resource link into the backend's namespace.
fn rewrite_block(ns: &Namespace, block: &mut Value) {
    match block.get("type").and_then(Value::as_str) {
        Some("resource") => rewrite_uri(ns, block.pointer_mut("/resource/uri")),
        Some("resource_link") => rewrite_uri(ns, block.get_mut("uri")),
        _ => {}
    }
}

fn rewrite_uri(ns: &Namespace, uri: Option<&mut Value>) {
    if let Some(Value::String(u)) = uri {
        *u = ns.uri(u);
    }
}
