//! The floor: a bare MCP echo server with serde_json and no MCP library.
//!
//! It answers `initialize`, `tools/list` and `tools/call` (echo) and ignores notifications —
//! the least work any server must do. Usage: `floor-echo stdio` or `floor-echo http PORT`
//! (Streamable HTTP, stateless, JSON responses, over hyper).

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, BufWriter, Write};

/// Answers one JSON-RPC message; `None` for notifications.
fn answer(msg: &[u8]) -> Option<Vec<u8>> {
    let v: Value =
        match serde_json::from_slice(msg) {
            Ok(v) => v,
            Err(_) => return Some(
                br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}"#
                    .to_vec(),
            ),
        };
    let id = v.get("id")?.clone();
    let method = v.get("method").and_then(Value::as_str).unwrap_or("");
    let result = match method {
        "initialize" => json!({
            "protocolVersion": v["params"]["protocolVersion"].as_str().unwrap_or("2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "floor", "version": "0"}
        }),
        "tools/list" => json!({"tools": [{"name": "echo", "description": "Echoes the text back",
            "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}]}),
        "tools/call" => {
            let text = v["params"]["arguments"]["text"].as_str().unwrap_or("");
            json!({"content": [{"type": "text", "text": text}], "isError": false})
        }
        "ping" => json!({}),
        _ => {
            let e = json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "method not found"}});
            return Some(serde_json::to_vec(&e).unwrap());
        }
    };
    Some(serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "result": result})).unwrap())
}

fn stdio() {
    let stdin = std::io::stdin();
    let mut input = BufReader::with_capacity(64 * 1024, stdin.lock());
    let mut out = BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    let mut line = Vec::new();
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if let Some(reply) = answer(&line) {
            out.write_all(&reply).unwrap();
            out.write_all(b"\n").unwrap();
        }
        // Flush only when no more input is already buffered: pipelined requests are batched.
        if input.buffer().is_empty() {
            out.flush().unwrap();
        }
    }
    let _ = out.flush();
}

async fn http(port: u16) {
    use http_body_util::{BodyExt, Full};
    use hyper::{body::Bytes, Method, Request, Response, StatusCode};
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .unwrap();
    eprintln!("floor-echo listening on {}", listener.local_addr().unwrap());
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(async move {
            let svc =
                hyper::service::service_fn(|req: Request<hyper::body::Incoming>| async move {
                    let resp = if req.method() != Method::POST {
                        Response::builder()
                            .status(StatusCode::METHOD_NOT_ALLOWED)
                            .body(Full::new(Bytes::new()))
                    } else {
                        let body = req
                            .into_body()
                            .collect()
                            .await
                            .map(|b| b.to_bytes())
                            .unwrap_or_default();
                        match answer(&body) {
                            Some(reply) => Response::builder()
                                .header("content-type", "application/json")
                                .body(Full::new(Bytes::from(reply))),
                            None => Response::builder()
                                .status(StatusCode::ACCEPTED)
                                .body(Full::new(Bytes::new())),
                        }
                    };
                    Ok::<_, std::convert::Infallible>(resp.unwrap())
                });
            let io = hyper_util::rt::TokioIo::new(stream);
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(io, svc)
                .await;
        });
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        None | Some("stdio") => stdio(),
        Some("http") => {
            let port: u16 = args.get(2).and_then(|p| p.parse().ok()).unwrap_or(0);
            tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .unwrap()
                .block_on(http(port));
        }
        Some(other) => {
            eprintln!("usage: floor-echo [stdio | http PORT] (got {other})");
            std::process::exit(2);
        }
    }
}
