//! One example server, unchanged, under both protocol eras: the `http-server` example binary
//! is started once, and a handshake client (2025-11-25, `initialize`) and a per-request client
//! (2026-07-28, `server/discover` and `_meta` on every request) both list its tools, call
//! `echo` and `count` (progress in both eras) and read its resource.

use ferromcp::client::http::connect;
use ferromcp::client::{ClientHandlers, ClientOptions, ProtocolMode};
use ferromcp::protocol::ProtocolVersion;
use ferromcp::session::RequestOptions;
use ferromcp::transport::http::HttpClientOptions;
use serde_json::json;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Kills the server when the test ends, however it ends.
struct Child(std::process::Child);
impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn http_example_serves_handshake_and_per_request_clients() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let _server = Child(
        Command::new(env!("CARGO_BIN_EXE_http-server"))
            .args(["--port", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let start = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "server did not listen"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let url = format!("http://127.0.0.1:{port}/mcp");
    for (mode, version) in [
        (ProtocolMode::Handshake, ProtocolVersion::V2025_11_25),
        (ProtocolMode::PerRequest, ProtocolVersion::V2026_07_28),
    ] {
        let mut options = ClientOptions::new("both-eras", "1.0");
        options.mode = mode;
        let client = tokio::time::timeout(
            Duration::from_secs(10),
            connect(
                &url,
                options,
                ClientHandlers::default(),
                HttpClientOptions::default(),
            ),
        )
        .await
        .unwrap()
        .unwrap();
        assert_eq!(client.protocol_version(), version, "{mode:?}");
        assert_eq!(client.is_per_request(), mode == ProtocolMode::PerRequest);
        let mut names: Vec<String> = client
            .list_all_tools()
            .await
            .unwrap()
            .into_iter()
            .map(|t| t.name)
            .collect();
        names.sort();
        assert_eq!(names, ["count", "echo"], "{mode:?}");
        let r = client
            .call_tool("echo", json!({ "text": "hi" }))
            .await
            .unwrap();
        assert_eq!(r.content[0].as_text(), Some("hi"), "{mode:?}");
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = seen.clone();
        let opts = RequestOptions::default().with_on_progress(Some(Arc::new(move |p| {
            s.lock()
                .unwrap()
                .push(p["progress"].as_f64().unwrap_or(-1.0))
        })));
        let r = client
            .call_tool_with("count", json!({ "steps": 3 }), opts)
            .await
            .unwrap();
        assert_eq!(r.content[0].as_text(), Some("counted to 3"), "{mode:?}");
        assert_eq!(*seen.lock().unwrap(), vec![1.0, 2.0, 3.0], "{mode:?}");
        let read = client.read_resource("mem://greeting").await.unwrap();
        assert_eq!(
            serde_json::to_value(&read).unwrap()["contents"][0]["text"],
            "hello",
            "{mode:?}"
        );
        client.close().await;
    }
}
