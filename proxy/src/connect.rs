//! Connecting a [`Client`] to a server named by a [`BackendSpec`]: a child process over stdio,
//! a Streamable HTTP URL (falling back to legacy HTTP+SSE when the server refuses it), or a
//! legacy SSE URL; or a server of this program, in memory. The proxy's backends and the
//! `ferromcp` command's targets connect here.

use crate::config::{BackendSpec, Transport};
use ferromcp::client::{Client, ClientHandlers, ClientOptions};
use ferromcp::server::Server;
use ferromcp::transport::http::HttpClientOptions;
use ferromcp::transport::{ChildProcessOptions, StderrMode};
use ferromcp::McpError;

/// Connects and performs the handshake (or the per-request era's discovery, as `options.mode`
/// says). A stdio server's stderr goes where `stderr` says.
pub async fn connect(
    spec: &BackendSpec,
    options: ClientOptions,
    handlers: ClientHandlers,
    stderr: StderrMode,
) -> Result<Client, McpError> {
    match &spec.transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            let mut process = ChildProcessOptions::new(command.clone())
                .args(args.iter().cloned())
                .envs(env.iter().cloned())
                .stderr(stderr);
            if let Some(dir) = cwd {
                process = process.cwd(dir.clone());
            }
            Client::spawn(process, options, handlers).await
        }
        Transport::Http { url, headers } => {
            let http = HttpClientOptions::default().with_headers(headers.clone());
            ferromcp::client::http::connect(url, options, handlers, http).await
        }
        Transport::Sse { url, headers } => {
            let http = HttpClientOptions::default().with_headers(headers.clone());
            ferromcp::client::http::connect_legacy(url, options, handlers, http).await
        }
        other => Err(McpError::invalid_params(format!(
            "the proxy cannot connect over the {} transport",
            other.kind()
        ))),
    }
}

/// Connects to `server` over an in-memory transport (no process, no socket): the server serves
/// the connection on a task of its own until the client closes it. Each call is a new session
/// of that server, as a new process or HTTP session would be.
pub async fn connect_in_process(
    server: &Server,
    options: ClientOptions,
    handlers: ClientHandlers,
) -> Result<Client, McpError> {
    let ((client_reader, client_writer), (server_reader, server_writer)) =
        ferromcp::transport::memory_pair(64);
    let server = server.clone();
    tokio::spawn(async move {
        if let Err(e) = server.serve(server_reader, server_writer).await {
            tracing::debug!(error = %e, "in-process backend connection ended");
        }
    });
    Client::connect(options, handlers, client_reader, client_writer).await
}
