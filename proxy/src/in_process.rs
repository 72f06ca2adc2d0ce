//! In-process backends: a [`Server`] built in this program (with `ServerBuilder`) behind the
//! proxy beside the configured ones, connected over an in-memory transport: no process, no
//! socket, no serialization beyond the JSON-RPC frames. Everything else is as for any backend
//! (namespacing, forwarding both ways, per-client sessions, lazy start); each connection is a
//! new session of the server.

use crate::backend::Backend;
use crate::config::{check_namespace, BackendSpec, ProxyConfig};
use crate::proxy::{Proxy, ProxyOptions};
use ferromcp::server::Server;
use ferromcp::McpError;
use std::sync::Arc;

/// A server of this program as a backend of the proxy.
#[derive(Clone)]
pub struct InProcessBackend {
    name: String,
    server: Server,
    lazy: bool,
    per_client: bool,
}

impl std::fmt::Debug for InProcessBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InProcessBackend")
            .field("name", &self.name)
            .field("lazy", &self.lazy)
            .field("per_client", &self.per_client)
            .finish_non_exhaustive()
    }
}

impl InProcessBackend {
    /// `server` under `name` (its namespace when the proxy has several backends: the same
    /// rule as a key of `mcpServers`).
    pub fn new(name: impl Into<String>, server: Server) -> Self {
        Self {
            name: name.into(),
            server,
            lazy: false,
            per_client: false,
        }
    }

    /// Connect it only once a client has connected to the proxy (the config's `"lazy"`).
    pub fn lazy(mut self, lazy: bool) -> Self {
        self.lazy = lazy;
        self
    }

    /// One session of the server per client session of the proxy (the config's
    /// `"sessions": "per-client"`).
    pub fn per_client(mut self, per_client: bool) -> Self {
        self.per_client = per_client;
        self
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl Proxy {
    /// [`Proxy::start`] with in-process backends beside the configured ones (`config` may be
    /// `None`: only in-process backends). Names are namespaces as in `mcpServers` (checked when
    /// there are several backends in all) and must differ from each other and from the
    /// config's; no backend at all is refused.
    pub async fn start_with(
        config: Option<&ProxyConfig>,
        in_process: Vec<InProcessBackend>,
        options: ProxyOptions,
    ) -> Result<Self, McpError> {
        let configured: &[BackendSpec] = config.map(|c| c.servers.as_slice()).unwrap_or(&[]);
        let total = configured.len() + in_process.len();
        if total == 0 {
            return Err(McpError::invalid_params(
                "the proxy needs at least one backend (a configured server or an in-process one)",
            ));
        }
        let namespaced = total > 1;
        let mut names: Vec<&str> = configured.iter().map(|s| s.name.as_str()).collect();
        for b in &in_process {
            if names.contains(&b.name.as_str()) {
                return Err(McpError::invalid_params(format!(
                    "in-process backend {:?}: another backend has that name",
                    b.name
                )));
            }
            names.push(&b.name);
        }
        if namespaced {
            for name in &names {
                check_namespace(&format!("backend {name:?}"), name)
                    .map_err(|e| McpError::invalid_params(e.to_string()))?;
            }
        }
        let mut backends: Vec<Arc<Backend>> = configured
            .iter()
            .map(|spec| Backend::new(spec.clone(), namespaced, options.backend.clone()))
            .collect();
        for b in in_process {
            let mut spec = BackendSpec::from_target(&b.name, &format!("in-process:{}", b.name))
                .map_err(|e| McpError::invalid_params(e.to_string()))?;
            spec.lazy = b.lazy;
            spec.per_client = b.per_client;
            backends.push(Backend::with_server(
                spec,
                Some(b.server),
                namespaced,
                options.backend.clone(),
            ));
        }
        backends.sort_by(|a, b| a.name().cmp(b.name()));
        Self::start_backends(backends.into(), options).await
    }
}
