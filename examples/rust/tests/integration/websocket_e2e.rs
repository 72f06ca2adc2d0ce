//! End-to-end over real WebSocket: the `websocket-client` example binary talks to the
//! `websocket-server` example binary on a free loopback port.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn websocket_client_talks_to_websocket_server() {
    let mut server = Command::new(env!("CARGO_BIN_EXE_websocket-server"))
        .arg("127.0.0.1:0")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let url = first
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected banner {first:?}"))
        .to_string();

    let mut client = Command::new(env!("CARGO_BIN_EXE_websocket-client"))
        .arg(&url)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while client.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "websocket-client hung");
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = client.wait_with_output().unwrap();
    let _ = server.kill();
    let _ = server.wait();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "client failed:\n{text}");
    assert!(text.contains("tools: echo, count"), "{text}");
    assert!(text.contains("echo -> hello over WebSocket"), "{text}");
    assert!(text.contains("progress: 3.0 / 3.0"), "{text}");
    assert!(text.contains(r#"count -> {"reached":3}"#), "{text}");
    assert!(text.contains("closed cleanly"), "{text}");
}
