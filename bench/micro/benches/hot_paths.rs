//! Hot paths of one tools/call through ferromcp: framing, parse + serialize, schema validation,
//! and a full in-memory round trip through the session and dispatch layers.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use ferromcp::jsonrpc::{self, Incoming, Message};
use ferromcp::schema::CompiledSchema;
use ferromcp::server::Server;
use ferromcp::transport::{memory_pair, FrameReader, FrameWriter, LineReader, ReadStatus};
use serde::Deserialize;
use serde_json::json;
use std::hint::black_box;

const CALL: &str = r#"{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello, world"}}}"#;

fn framing(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let lines = 1000;
    let mut input = Vec::new();
    for _ in 0..lines {
        input.extend_from_slice(CALL.as_bytes());
        input.push(b'\n');
    }
    let mut g = c.benchmark_group("framing");
    g.throughput(Throughput::Elements(lines));
    g.bench_function("LineReader 1000 tools/call lines", |b| {
        b.iter_batched(
            || LineReader::new(std::io::Cursor::new(input.clone()), 4 << 20),
            |mut r| {
                rt.block_on(async {
                    let mut buf = Vec::new();
                    let mut n = 0;
                    while r.read_frame(&mut buf).await.unwrap() == ReadStatus::Frame {
                        n += buf.len();
                    }
                    black_box(n)
                })
            },
            BatchSize::SmallInput,
        )
    });
    g.finish();
}

fn parse_serialize(c: &mut Criterion) {
    let mut g = c.benchmark_group("jsonrpc");
    g.bench_function("parse tools/call", |b| {
        b.iter(
            || match jsonrpc::parse(black_box(CALL.as_bytes())).unwrap() {
                Incoming::Single(m) => black_box(m),
                Incoming::Batch(_) => unreachable!(),
            },
        )
    });
    let Incoming::Single(msg) = jsonrpc::parse(CALL.as_bytes()).unwrap() else {
        unreachable!()
    };
    let reply = Message::response(
        msg.id().unwrap().clone(),
        json!({"content": [{"type": "text", "text": "hello, world"}], "isError": false}),
    );
    let mut out = Vec::with_capacity(256);
    g.bench_function("serialize tools/call request", |b| {
        b.iter(|| {
            out.clear();
            jsonrpc::write_message(&mut out, black_box(&msg));
            black_box(out.len())
        })
    });
    g.bench_function("serialize tools/call result", |b| {
        b.iter(|| {
            out.clear();
            jsonrpc::write_message(&mut out, black_box(&reply));
            black_box(out.len())
        })
    });
    g.finish();
}

fn schema(c: &mut Criterion) {
    let schema = json!({
        "type": "object",
        "properties": {"text": {"type": "string", "description": "The text to send back."}},
        "required": ["text"]
    });
    let compiled = CompiledSchema::compile(&schema).unwrap();
    let good = json!({"text": "hello, world"});
    let bad = json!({"text": 5});
    let mut g = c.benchmark_group("schema");
    g.bench_function("validate echo args (valid)", |b| {
        b.iter(|| black_box(compiled.validate(black_box(&good)).is_ok()))
    });
    g.bench_function("validate echo args (invalid)", |b| {
        b.iter(|| black_box(compiled.validate(black_box(&bad)).is_err()))
    });
    g.bench_function("compile echo schema", |b| {
        b.iter(|| black_box(CompiledSchema::compile(black_box(&schema)).unwrap()))
    });
    g.finish();
}

#[derive(Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    text: String,
}

fn dispatch(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let server = Server::builder("bench", "0")
        .tool(
            "echo",
            "Echoes the text back",
            |a: EchoArgs, _ctx| async move { a.text },
        )
        .build()
        .unwrap();
    let ((mut rx, mut tx), (srx, stx)) = memory_pair(64);
    rt.spawn(async move { server.serve(srx, stx).await });
    let mut buf = Vec::new();
    rt.block_on(async {
        let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}"#;
        tx.write_frame(init.as_bytes()).await.unwrap();
        tx.flush().await.unwrap();
        assert_eq!(rx.read_frame(&mut buf).await.unwrap(), ReadStatus::Frame);
        tx.write_frame(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await.unwrap();
        tx.flush().await.unwrap();
    });
    let mut g = c.benchmark_group("dispatch");
    g.bench_function("in-memory tools/call round trip", |b| {
        b.iter(|| {
            rt.block_on(async {
                tx.write_frame(CALL.as_bytes()).await.unwrap();
                tx.flush().await.unwrap();
                rx.read_frame(&mut buf).await.unwrap();
                black_box(buf.len())
            })
        })
    });
    g.finish();
    assert!(
        String::from_utf8_lossy(&buf).contains("hello, world"),
        "unexpected reply {}",
        String::from_utf8_lossy(&buf)
    );
}

criterion_group!(benches, framing, parse_serialize, schema, dispatch);
criterion_main!(benches);
