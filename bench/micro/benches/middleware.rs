//! What server middleware costs per `tools/call`: the in-memory round trip of
//! `hot_paths`' dispatch bench with 0, 1 and 5 trivial layers (each an `async` block that
//! hands the request on). With no layer the call takes the typed lane; with any, the general
//! path the chain wraps, so 0 -> 1 is the path change plus a layer, and (5 - 1) / 4 a layer.
//! Each is timed twice: wall time per call, and this thread's CPU time per call.

use criterion::{criterion_group, criterion_main, Criterion};
use ferromcp::server::middleware::{
    BoxFuture, Middleware, MiddlewareRequest, MiddlewareResponse, Next,
};
use ferromcp::server::Server;
use ferromcp::transport::{memory_pair, FrameReader, FrameWriter, ReadStatus};
use ferromcp::McpError;
use serde::Deserialize;
use std::hint::black_box;
use std::time::Duration;

const CALL: &str = r#"{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello, world"}}}"#;

#[derive(Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    text: String,
}

/// A layer that does nothing but hand the request on, written as a user would.
struct PassThrough;

impl Middleware for PassThrough {
    fn handle<'a>(
        &'a self,
        request: MiddlewareRequest,
        next: Next<'a>,
    ) -> BoxFuture<'a, Result<MiddlewareResponse, McpError>> {
        Box::pin(async move { next.run(request).await })
    }
}

/// This thread's CPU time so far.
fn thread_cpu() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec to write to.
    assert_eq!(
        unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) },
        0
    );
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

fn round_trip(c: &mut Criterion, layers: usize) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut builder = Server::builder("bench", "0").tool(
        "echo",
        "Echoes the text back",
        |a: EchoArgs, _ctx| async move { a.text },
    );
    for _ in 0..layers {
        builder = builder.middleware(PassThrough);
    }
    let server = builder.build().unwrap();
    let ((mut rx, mut tx), (srx, stx)) = memory_pair(64);
    rt.spawn(async move { server.serve(srx, stx).await });
    let mut buf = Vec::new();
    rt.block_on(async {
        let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}"#;
        tx.write_frame(init.as_bytes()).await.unwrap();
        tx.flush().await.unwrap();
        assert_eq!(rx.read_frame(&mut buf).await.unwrap(), ReadStatus::Frame);
        tx.write_frame(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await
            .unwrap();
        tx.flush().await.unwrap();
    });
    let mut one_call = || {
        rt.block_on(async {
            tx.write_frame(CALL.as_bytes()).await.unwrap();
            tx.flush().await.unwrap();
            rx.read_frame(&mut buf).await.unwrap();
            black_box(buf.len())
        })
    };
    let mut g = c.benchmark_group("middleware");
    g.bench_function(format!("in-memory tools/call, {layers} layers"), |b| {
        b.iter(&mut one_call)
    });
    g.finish();
    // The same calls timed by this thread's CPU clock: client and server run on this one
    // thread (a current-thread runtime), so this is the call's CPU cost, and the other
    // processes of a busy machine change it far less than they change wall time.
    let mut g = c.benchmark_group("middleware thread CPU");
    g.bench_function(format!("in-memory tools/call, {layers} layers"), |b| {
        b.iter_custom(|iters| {
            let start = thread_cpu();
            for _ in 0..iters {
                one_call();
            }
            thread_cpu() - start
        })
    });
    g.finish();
    assert!(
        String::from_utf8_lossy(&buf).contains("hello, world"),
        "unexpected reply {}",
        String::from_utf8_lossy(&buf)
    );
}

fn layers(c: &mut Criterion) {
    for n in [0, 1, 5] {
        round_trip(c, n);
    }
}

criterion_group!(benches, layers);
criterion_main!(benches);
