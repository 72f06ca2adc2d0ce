//! Where `Server::serve` runs a session: on a multi-threaded runtime, on the runtime's worker
//! threads even when awaited from `block_on` (what `#[tokio::main]` does with `main`), so no
//! message is handed from a worker to the awaiting thread and back; dropping the `serve` future
//! still stops the session; on a current-thread runtime it runs on that one thread.

use ferromcp::server::Server;
use ferromcp::transport::{memory_pair, FrameReader, FrameWriter, MemoryReader, ReadStatus};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use std::time::Duration;

#[derive(Deserialize, JsonSchema)]
struct Empty {}

/// A server whose `where` tool answers with the name of the thread it runs on.
fn server() -> Server {
    Server::builder("where", "1")
        .tool("where", "Names the thread", |_: Empty, _ctx| async move {
            std::thread::current()
                .name()
                .unwrap_or("unnamed")
                .to_string()
        })
        .build()
        .unwrap()
}

async fn read(r: &mut MemoryReader) -> Option<Value> {
    let mut buf = Vec::new();
    match tokio::time::timeout(Duration::from_secs(10), r.read_frame(&mut buf)).await {
        Ok(Ok(ReadStatus::Frame)) => Some(serde_json::from_slice(&buf).unwrap()),
        Ok(Ok(ReadStatus::Eof)) => None,
        other => panic!("unexpected read: {other:?}"),
    }
}

/// Handshakes, calls `where` `n` times and returns the thread names the tool reported.
async fn threads_of_calls(r: &mut MemoryReader, w: &mut impl FrameWriter, n: usize) -> Vec<String> {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    w.write_frame(init.to_string().as_bytes()).await.unwrap();
    w.flush().await.unwrap();
    assert_eq!(read(r).await.unwrap()["id"], 0);
    let done = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    w.write_frame(done.to_string().as_bytes()).await.unwrap();
    let mut names = Vec::new();
    for id in 1..=n {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "where", "arguments": {}}});
        w.write_frame(call.to_string().as_bytes()).await.unwrap();
        w.flush().await.unwrap();
        let answer = read(r).await.unwrap();
        assert_eq!(answer["id"], id);
        names.push(
            answer["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    names
}

#[test]
fn serve_awaited_from_block_on_runs_on_the_workers() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("test-worker")
        .enable_all()
        .build()
        .unwrap();
    let ((mut r_c, mut w_c), (r_s, w_s)) = memory_pair(16);
    let client = rt.spawn(async move {
        let names = threads_of_calls(&mut r_c, &mut w_c, 20).await;
        drop(w_c);
        // The server hangs up once its input ends.
        assert!(read(&mut r_c).await.is_none());
        names
    });
    // As `#[tokio::main]` does: the serving future is driven by `block_on` on this thread.
    let names = std::thread::Builder::new()
        .name("awaiting-thread".into())
        .spawn(move || {
            rt.block_on(async move {
                let server = server();
                let (served, names) = tokio::join!(server.serve(r_s, w_s), client);
                served.unwrap();
                names.unwrap()
            })
        })
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(names, vec!["test-worker"; 20]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_serve_stops_the_session() {
    let ((mut r_c, mut w_c), (r_s, w_s)) = memory_pair(16);
    let serving = tokio::spawn(async move { server().serve(r_s, w_s).await });
    assert_eq!(threads_of_calls(&mut r_c, &mut w_c, 1).await.len(), 1);
    // Dropping (here: aborting) the future awaiting `serve` ends the session, which closes its
    // writer: the client reads the end of the stream although its own end is still open.
    serving.abort();
    assert!(read(&mut r_c).await.is_none());
    drop(w_c);
}

#[test]
fn current_thread_serves_on_its_own_thread() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let ((mut r_c, mut w_c), (r_s, w_s)) = memory_pair(16);
    let names = std::thread::Builder::new()
        .name("only-thread".into())
        .spawn(move || {
            rt.block_on(async move {
                let client = async {
                    let names = threads_of_calls(&mut r_c, &mut w_c, 3).await;
                    drop(w_c);
                    names
                };
                let server = server();
                let (names, served) = tokio::join!(client, server.serve(r_s, w_s));
                served.unwrap();
                names
            })
        })
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(names, vec!["only-thread"; 3]);
}
