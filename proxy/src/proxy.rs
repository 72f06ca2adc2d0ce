//! [`Proxy`]: a ferromcp [`Server`] whose features come from backend servers, with one
//! supervisor task per backend. Serve its server like any other (stdio, Streamable HTTP).

use crate::backend::{Backend, BackendOptions, Link};
use crate::config::ProxyConfig;
use ferromcp::server::{Server, ServerOptions};
use ferromcp::McpError;
use std::sync::{Arc, Mutex};
use tokio::task::JoinHandle;

/// Options of a [`Proxy`].
#[derive(Clone, Debug)]
pub struct ProxyOptions {
    /// The proxy server's options (`serverInfo`, page size, session limits, task limits).
    /// Tools, resources and prompts are always advertised: backends may bring them at any
    /// time; the tasks extension is always on (backend tools that run as tasks are run as
    /// tasks of the proxy).
    pub server: ServerOptions,
    /// How backends are connected and restarted.
    pub backend: BackendOptions,
}

impl Default for ProxyOptions {
    fn default() -> Self {
        let mut server = ServerOptions::new("ferromcp-proxy", env!("CARGO_PKG_VERSION"));
        // The proxy makes a task of every call of a task-capable tool from a 2026-07-28 client
        // declaring the tasks extension (the engine decides so), however fast the backend
        // answers: the client reads the result one poll interval after the handle, so the
        // interval it is told is short (the engine's default is 500 ms).
        server.tasks.poll_interval = std::time::Duration::from_millis(50);
        // A backend speaking 2026-07-28 may answer a task-capable tool's call with an
        // `input_required` round before it makes any task; the proxy's engine waits this long
        // for the backend's first answer, so that such a round stays the client's own round
        // (`backend/tasks.rs`). The handler says at once when no such answer can come (a
        // backend's task handle, or a backend of the other era), and the task is made then.
        server.tasks.first_answer_wait = std::time::Duration::from_secs(10);
        Self {
            server,
            backend: BackendOptions::default(),
        }
    }
}

/// A running proxy: its server and backends. Dropping it stops the supervisors; call
/// [`Proxy::shutdown`] to also close the backends' connections (and stop their processes).
pub struct Proxy {
    server: Server,
    backends: Arc<[Arc<Backend>]>,
    tasks: Mutex<Vec<JoinHandle<()>>>,
}

impl std::fmt::Debug for Proxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Proxy")
            .field(
                "backends",
                &self.backends.iter().map(|b| b.name()).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl Proxy {
    /// Builds the server and starts a supervisor per backend; returns once every eager
    /// (not `lazy`) backend has been connected and registered, or its first attempt failed
    /// (it is then retried in the background, and its features appear when it connects).
    pub async fn start(config: &ProxyConfig, options: ProxyOptions) -> Result<Self, McpError> {
        let namespaced = config.namespaced();
        let backends: Arc<[Arc<Backend>]> = config
            .servers
            .iter()
            .map(|spec| Backend::new(spec.clone(), namespaced, options.backend.clone()))
            .collect();
        Self::start_backends(backends, options).await
    }

    /// [`Proxy::start`] over backends already made (sorted by name).
    pub(crate) async fn start_backends(
        backends: Arc<[Arc<Backend>]>,
        options: ProxyOptions,
    ) -> Result<Self, McpError> {
        let mut server_options = options.server;
        server_options.enable_tools = true;
        server_options.enable_resources = true;
        server_options.enable_prompts = true;
        // Backend tools that run as tasks run as tasks of the proxy (`backend/tasks.rs`): in
        // both eras (2025-11-25 tasks are declared by the engine once such a tool is registered).
        server_options.tasks_extension = true;
        let server = Server::builder_with(server_options).build()?;
        let mut tasks = Vec::new();
        let mut firsts = Vec::new();
        for backend in backends.iter() {
            let (tx, rx) = tokio::sync::oneshot::channel();
            if !backend.spec.lazy {
                firsts.push(rx);
            }
            tasks.push(tokio::spawn(crate::supervisor::supervise(
                backend.clone(),
                server.clone(),
                backends.clone(),
                Some(tx),
            )));
        }
        for rx in firsts {
            let _ = rx.await;
        }
        Ok(Self {
            server,
            backends,
            tasks: Mutex::new(tasks),
        })
    }

    /// The proxy's server: serve it with `serve_stdio`, `transport::http::serve_http`, ...
    pub fn server(&self) -> &Server {
        &self.server
    }

    /// The backends, sorted by name.
    pub fn backends(&self) -> &[Arc<Backend>] {
        &self.backends
    }

    /// The backend called `name`.
    pub fn backend(&self, name: &str) -> Option<&Arc<Backend>> {
        self.backends.iter().find(|b| b.name() == name)
    }

    /// Stops the supervisors and closes every backend connection.
    pub async fn shutdown(&self) {
        for t in self.tasks.lock().unwrap().drain(..) {
            t.abort();
        }
        for b in self.backends.iter() {
            let link = b
                .link
                .send_replace(Link::Down("the proxy shut down".into()));
            if let Link::Up(client) = link {
                client.close().await;
            }
            b.reset_per_request().await;
            b.per_client.close_all().await;
        }
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        for t in self.tasks.lock().unwrap().drain(..) {
            t.abort();
        }
    }
}
