//! [`MultiClient`]: one client object over every server of an `mcpServers` document, without a
//! proxy process: the Rust counterpart of the bindings' `Client.from_config` / `MultiClient`
//! (Python `ferromcp.MultiClient`, Node `MultiClient.fromConfig`, Swift `MultiClient`). Names
//! follow the proxy's rule ([`Namespace`]): with one server nothing is renamed; with several,
//! tools and prompts are `server_name` and resource URIs `server+uri`.

use crate::config::{BackendSpec, ProxyConfig};
use crate::namespace::Namespace;
use ferromcp::client::{Client, ClientHandlers, ClientOptions};
use ferromcp::session::RequestOptions;
use ferromcp::transport::StderrMode;
use ferromcp::McpError;
use serde_json::{json, Value};
use std::path::Path;

/// Clients of every server of an `mcpServers` document, as one.
pub struct MultiClient {
    /// Name, namespace and client of each server, sorted by name (as the config's are).
    servers: Vec<(String, Namespace, Client)>,
}

impl std::fmt::Debug for MultiClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MultiClient")
            .field("names", &self.names())
            .finish_non_exhaustive()
    }
}

impl MultiClient {
    /// Reads the `mcpServers` file at `path` and connects to every server in it
    /// ([`MultiClient::connect`]); a bad file is an invalid-params error naming the key.
    pub async fn from_config(
        path: &Path,
        options: ClientOptions,
        handlers: ClientHandlers,
    ) -> Result<Self, McpError> {
        let config = ProxyConfig::from_file(path)
            .map_err(|e| McpError::invalid_params(format!("{}: {e}", path.display())))?;
        Self::connect(&config, options, handlers).await
    }

    /// Connects to every server of `config` at once, each with `options` and `handlers` (a
    /// started server's stderr is discarded). If one cannot be connected, the others are
    /// closed and the error names it (its code kept).
    pub async fn connect(
        config: &ProxyConfig,
        options: ClientOptions,
        handlers: ClientHandlers,
    ) -> Result<Self, McpError> {
        let namespaced = config.namespaced();
        let attempts = futures_util::future::join_all(config.servers.iter().map(|spec| {
            crate::connect::connect(spec, options.clone(), handlers.clone(), StderrMode::Null)
        }))
        .await;
        let mut servers = Vec::new();
        let mut failure: Option<(&BackendSpec, McpError)> = None;
        for (spec, attempt) in config.servers.iter().zip(attempts) {
            match attempt {
                Ok(c) => {
                    servers.push((spec.name.clone(), Namespace::new(&spec.name, namespaced), c))
                }
                Err(e) if failure.is_none() => failure = Some((spec, e)),
                Err(_) => {}
            }
        }
        if let Some((spec, e)) = failure {
            for (_, _, c) in servers {
                c.close().await;
            }
            let message = format!(
                "server {:?} could not be connected ({}): {}",
                spec.name,
                spec.describe(),
                e.message
            );
            let mut e = e;
            e.message = message;
            return Err(e);
        }
        Ok(Self { servers })
    }

    /// The servers' names, sorted.
    pub fn names(&self) -> Vec<&str> {
        self.servers.iter().map(|(n, _, _)| n.as_str()).collect()
    }

    /// The client of server `name`.
    pub fn client(&self, name: &str) -> Option<&Client> {
        self.servers
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, _, c)| c)
    }

    /// The server a namespaced name (or URI, `uri`) belongs to, and the server's own name for
    /// it; the longest matching server name wins.
    fn split<'a>(
        &self,
        value: &'a str,
        uri: bool,
    ) -> Result<(&Namespace, &Client, &'a str), McpError> {
        let mut best: Option<(&str, &Namespace, &Client, &'a str)> = None;
        for (name, ns, c) in &self.servers {
            let original = if uri {
                ns.original_uri(value)
            } else {
                ns.original_name(value)
            };
            if let Some(o) = original {
                if best.is_none_or(|(b, _, _, _)| name.len() > b.len()) {
                    best = Some((name, ns, c, o));
                }
            }
        }
        best.map(|(_, ns, c, o)| (ns, c, o)).ok_or_else(|| {
            let (what, sep) = if uri { ("URIs", '+') } else { ("names", '_') };
            McpError::invalid_params(format!(
                "{value:?} names no server: namespaced {what} start with one of {} and '{sep}'",
                self.names().join(", ")
            ))
        })
    }

    /// Every item of a paginated list of every server, with `rename` applied to each.
    async fn list_all(
        &self,
        method: &str,
        key: &str,
        rename: impl Fn(&Namespace, &mut Value),
    ) -> Result<Vec<Value>, McpError> {
        let mut all = Vec::new();
        for (_, ns, c) in &self.servers {
            let mut cursor: Option<String> = None;
            loop {
                let params = match &cursor {
                    Some(c) => json!({ "cursor": c }),
                    None => json!({}),
                };
                let page = c
                    .request(method, Some(params), RequestOptions::default())
                    .await?;
                if let Some(items) = page.get(key).and_then(Value::as_array) {
                    for item in items {
                        let mut item = item.clone();
                        rename(ns, &mut item);
                        all.push(item);
                    }
                }
                match page.get("nextCursor").and_then(Value::as_str) {
                    Some(next) if Some(next) != cursor.as_deref() => cursor = Some(next.into()),
                    _ => break,
                }
            }
        }
        Ok(all)
    }

    /// Every tool of every server, names namespaced.
    pub async fn list_tools(&self) -> Result<Vec<Value>, McpError> {
        self.list_all("tools/list", "tools", |ns, t| {
            rename(t, "name", |n| ns.name(n))
        })
        .await
    }

    /// Calls the namespaced tool `name` on its server with `arguments` (progress and
    /// cancellation through `options`); the result as the server sent it.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
        options: RequestOptions,
    ) -> Result<Value, McpError> {
        let (_, c, tool) = self.split(name, false)?;
        c.request(
            "tools/call",
            Some(json!({ "name": tool, "arguments": arguments })),
            options,
        )
        .await
    }

    /// Every listed resource of every server, URIs namespaced.
    pub async fn list_resources(&self) -> Result<Vec<Value>, McpError> {
        self.list_all("resources/list", "resources", |ns, r| {
            rename(r, "uri", |u| ns.uri(u))
        })
        .await
    }

    /// Reads the namespaced resource `uri` from its server; the contents' URIs are namespaced.
    pub async fn read_resource(&self, uri: &str) -> Result<Value, McpError> {
        let (ns, c, original) = self.split(uri, true)?;
        let mut r = c
            .request(
                "resources/read",
                Some(json!({ "uri": original })),
                RequestOptions::default(),
            )
            .await?;
        if let Some(contents) = r.get_mut("contents").and_then(Value::as_array_mut) {
            for item in contents {
                rename(item, "uri", |u| ns.uri(u));
            }
        }
        Ok(r)
    }

    /// Every prompt of every server, names namespaced.
    pub async fn list_prompts(&self) -> Result<Vec<Value>, McpError> {
        self.list_all("prompts/list", "prompts", |ns, p| {
            rename(p, "name", |n| ns.name(n))
        })
        .await
    }

    /// Gets the namespaced prompt `name` from its server with `arguments` (an object of strings).
    pub async fn get_prompt(&self, name: &str, arguments: Value) -> Result<Value, McpError> {
        let (_, c, prompt) = self.split(name, false)?;
        c.request(
            "prompts/get",
            Some(json!({ "name": prompt, "arguments": arguments })),
            RequestOptions::default(),
        )
        .await
    }

    /// Closes every connection (a started server's process stops).
    pub async fn close(self) {
        for (_, _, c) in self.servers {
            c.close().await;
        }
    }
}

/// Replaces the string at `item[key]` with `f` of it.
fn rename(item: &mut Value, key: &str, f: impl Fn(&str) -> String) {
    if let Some(v) = item.get(key).and_then(Value::as_str) {
        let renamed = f(v);
        item[key] = Value::String(renamed);
    }
}
