//! rmcp echo server for the benchmark. Usage:
//! `rmcp-echo stdio` | `rmcp-echo http PORT [stateful|stateless|json]`.
//! HTTP connections get TCP_NODELAY: without it rmcp's SSE responses meet Nagle + delayed ACK
//! and stall ~44 ms per call on keep-alive connections.

use rmcp::{
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    model::{ServerCapabilities, ServerConfig},
    schemars, tool, tool_handler, tool_router, ServerHandler, ServiceExt,
};
use std::sync::Arc;

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    /// The text to send back.
    text: String,
}

#[derive(Debug, Clone)]
struct Echo {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Echo {
    fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }

    #[tool(description = "Echoes the text back")]
    fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Echo {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

async fn http(port: u16, mode: &str) {
    use rmcp::transport::streamable_http_server::{
        session::local::LocalSessionManager, StreamableHttpServerConfig, StreamableHttpService,
    };
    let config = StreamableHttpServerConfig::default().with_sse_keep_alive(None);
    let config = match mode {
        "stateful" => config.with_legacy_session_mode(true),
        "stateless" => config.with_legacy_session_mode(false),
        "json" => config
            .with_legacy_session_mode(false)
            .with_json_response(true),
        other => panic!("unknown mode {other}"),
    };
    let service = StreamableHttpService::new(
        || Ok(Echo::new()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .unwrap();
    eprintln!("rmcp-echo listening on {}", listener.local_addr().unwrap());
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        stream.set_nodelay(true).unwrap();
        let svc = hyper_util::service::TowerToHyperService::new(service.clone());
        tokio::spawn(async move {
            let io = hyper_util::rt::TokioIo::new(stream);
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(io, svc)
                .await;
        });
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    match args.get(1).map(String::as_str) {
        None | Some("stdio") => rt.block_on(async {
            let running = Echo::new()
                .serve(rmcp::transport::stdio())
                .await
                .expect("serve");
            let _ = running.waiting().await;
        }),
        Some("http") => {
            let port: u16 = args.get(2).and_then(|p| p.parse().ok()).unwrap_or(0);
            let mode = args.get(3).cloned().unwrap_or_else(|| "stateful".into());
            rt.block_on(http(port, &mode));
        }
        Some(other) => {
            eprintln!(
                "usage: rmcp-echo [stdio | http PORT [stateful|stateless|json]] (got {other})"
            );
            std::process::exit(2);
        }
    }
}
