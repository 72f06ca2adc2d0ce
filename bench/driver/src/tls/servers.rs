//! The servers `mcp-bench-tls` measures, each run as a child process of the same binary
//! (`mcp-bench-tls serve KIND PKI_DIR`, printing its port on stdout): ferromcp's `serve_http`
//! over TLS (`HttpServerOptions::tls`), the same server over plain HTTP (what TLS costs), and
//! the floor: a bare rustls + hyper server answering the same JSON-RPC echo with serde_json and
//! no MCP library. All three are stateless with JSON answers, on tokio's multi-threaded runtime
//! with its defaults, and use rustls's default server settings (TLS 1.2/1.3, a 256-entry
//! session cache, two TLS 1.3 tickets per handshake, ALPN `http/1.1`).

use std::path::Path;
use std::sync::Arc;

use ferromcp::server::Server;
use ferromcp::transport::http::{serve_http, HttpServerOptions, TlsOptions};
use serde_json::{json, Value};

/// The kinds of server, in the order the report lists them.
pub const KINDS: [&str; 3] = ["floor", "ferromcp", "ferromcp-plain"];

/// Whether clients of `kind` speak TLS.
pub fn uses_tls(kind: &str) -> bool {
    kind != "ferromcp-plain"
}

/// Runs server `kind` until stdin closes; prints the bound port first.
pub fn serve(kind: &str, pki: &Path) -> Result<(), String> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    rt.block_on(async {
        let port = match kind {
            "floor" => floor(pki).await?,
            "ferromcp" | "ferromcp-plain" => {
                let options = HttpServerOptions::default()
                    .with_stateless(true)
                    .with_json_response(true)
                    .with_tls(uses_tls(kind).then(|| {
                        TlsOptions::from_files(pki.join("server.pem"), pki.join("server.key"))
                    }));
                let http = serve_http(echo_server(), ("127.0.0.1", 0), options)
                    .await
                    .map_err(|e| e.to_string())?;
                let port = http.local_addr().port();
                std::mem::forget(http); // serves until the process ends
                port
            }
            other => return Err(format!("unknown server kind {other:?}")),
        };
        println!("{port}");
        // Serve until the driver closes our stdin.
        tokio::task::spawn_blocking(|| {
            let mut sink = String::new();
            while std::io::stdin()
                .read_line(&mut sink)
                .map(|n| n > 0)
                .unwrap_or(false)
            {}
        })
        .await
        .map_err(|e| e.to_string())
    })
}

/// ferromcp's echo server, the tool as the benchmark's other rows have it.
fn echo_server() -> Server {
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct EchoArgs {
        /// The text to send back.
        text: String,
    }
    Server::builder("ferromcp-bench-tls", env!("CARGO_PKG_VERSION"))
        .tool(
            "echo",
            "Echoes the text back",
            |a: EchoArgs, _ctx| async move { a.text },
        )
        .build()
        .expect("server builds")
}

/// The floor's answer to one JSON-RPC request (`tools/call` of `echo`, or an error).
fn floor_answer(body: &[u8]) -> Vec<u8> {
    let msg: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let id = msg.get("id").cloned().unwrap_or(Value::Null);
    let answer = match msg.get("method").and_then(Value::as_str) {
        Some("tools/call") => {
            let text = msg
                .pointer("/params/arguments/text")
                .cloned()
                .unwrap_or(Value::Null);
            json!({"jsonrpc": "2.0", "id": id,
                   "result": {"content": [{"type": "text", "text": text}], "isError": false}})
        }
        _ => json!({"jsonrpc": "2.0", "id": id,
                    "error": {"code": -32601, "message": "method not found"}}),
    };
    serde_json::to_vec(&answer).expect("JSON serializes")
}

/// The floor: rustls + hyper HTTP/1.1 on a tokio listener, a task per connection.
async fn floor(pki: &Path) -> Result<u16, String> {
    use http_body_util::{BodyExt, Full};
    use hyper::body::Bytes;
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};

    let certs = CertificateDer::pem_file_iter(pki.join("server.pem"))
        .and_then(|i| i.collect::<Result<Vec<_>, _>>())
        .map_err(|e| format!("server.pem: {e}"))?;
    let key = PrivateKeyDer::from_pem_file(pki.join("server.key"))
        .map_err(|e| format!("server.key: {e}"))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| e.to_string())?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .map_err(|e| e.to_string())?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else {
                continue;
            };
            let _ = tcp.set_nodelay(true);
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let svc = hyper::service::service_fn(
                    |req: hyper::Request<hyper::body::Incoming>| async move {
                        let body = req.into_body().collect().await?.to_bytes();
                        let mut res =
                            hyper::Response::new(Full::new(Bytes::from(floor_answer(&body))));
                        res.headers_mut().insert(
                            hyper::header::CONTENT_TYPE,
                            hyper::header::HeaderValue::from_static("application/json"),
                        );
                        Ok::<_, hyper::Error>(res)
                    },
                );
                let io = hyper_util::rt::TokioIo::new(tls);
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(io, svc)
                    .await;
            });
        }
    });
    Ok(port)
}
