//! The typed `tools/call` lane (`session/core/tool_lane.rs`, `session/tool_wire.rs`) and the
//! general dispatch it stands beside send the same bytes.
//!
//! A server with no middleware starts every `tools/call` on the lane (params read straight from
//! the frame, the tool's result written as text). The same server with one pass-through
//! middleware layer keeps the call typed through the chain (the layer does not ask for params or
//! result as JSON): the chain's end calls the tool as the lane does. The same server with a
//! layer that takes the params and the result as JSON (`params_mut`, `result_mut`) takes the
//! general path for the same call (the call made a request again, dispatched by name, its
//! result a JSON value). Each case sends the same frame to all three and compares every frame
//! each answers with, byte for byte, up to the call's answer (progress notifications
//! included): success, a tool's own error result, a handler's `Err`, argument validation,
//! unknown tool, bad arguments, malformed params the lane leaves to the full parser, progress
//! tokens, `_meta` of good and bad shapes, and the per-request era (2026-07-28). This pins the
//! lane and the typed chain to the general path (issue 35, "one path per decision").

use crate::common_modern;
use crate::support;

use ferromcp::protocol::CallToolResult;
use ferromcp::server::middleware::{
    BoxFuture, Middleware, MiddlewareRequest, MiddlewareResponse, Next,
};
use ferromcp::server::Server;
use ferromcp::transport::{FrameReader, ReadStatus};
use ferromcp::McpError;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use support::{RawPeer, RECV_TIMEOUT};

/// Hands every request on unchanged: a lane `tools/call` stays typed through it.
struct PassThrough;

impl Middleware for PassThrough {
    fn handle<'a>(
        &'a self,
        request: MiddlewareRequest,
        next: Next<'a>,
    ) -> BoxFuture<'a, Result<MiddlewareResponse, McpError>> {
        next.run(request)
    }
}

/// Takes every request's params and result as JSON to change (changing nothing): a lane
/// `tools/call` is made a JSON request, dispatched by name, its result a JSON value.
struct AsJson;

impl Middleware for AsJson {
    fn handle<'a>(
        &'a self,
        mut request: MiddlewareRequest,
        next: Next<'a>,
    ) -> BoxFuture<'a, Result<MiddlewareResponse, McpError>> {
        Box::pin(async move {
            let _ = request.params_mut();
            assert!(!request.is_typed_tool_call());
            let mut result = next.run(request).await?;
            let _ = result.result_mut();
            assert!(result.tool_result().is_none());
            Ok(result)
        })
    }
}

/// The middleware of a case's server.
#[derive(Clone, Copy)]
enum Layer {
    None,
    PassThrough,
    AsJson,
}

#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    /// The text to send back.
    text: String,
}

#[derive(Deserialize, JsonSchema)]
struct NoArgs {}

/// The server of every case, with `layer`.
fn server(layer: Layer) -> Server {
    let mut b = Server::builder("lane-parity", "1.0");
    match layer {
        Layer::None => {}
        Layer::PassThrough => b = b.middleware(PassThrough),
        Layer::AsJson => b = b.middleware(AsJson),
    }
    b.tool(
        "echo",
        "Echoes the text back",
        |a: EchoArgs, _ctx| async move { a.text },
    )
    .tool(
        "flagged",
        "A tool error (isError: true)",
        |_: NoArgs, _ctx| async move { CallToolResult::error_text("it went wrong") },
    )
    .tool(
        "fails",
        "A handler that returns Err",
        |_: NoArgs, _ctx| async move {
            Err::<String, _>(McpError::invalid_params("no such thing").with_data(json!({"k": 1})))
        },
    )
    .tool(
        "progress",
        "Reports progress twice, then echoes its _meta",
        |_: NoArgs, ctx| async move {
            ctx.progress(1.0, Some(2.0), Some("half")).await?;
            ctx.progress(2.0, Some(2.0), None).await?;
            let meta = ctx
                .meta()
                .cloned()
                .map(Value::Object)
                .unwrap_or(Value::Null);
            Ok::<_, McpError>(CallToolResult::text(meta.to_string()))
        },
    )
    .tool(
        "structured",
        "Structured content beside text",
        |_: NoArgs, _ctx| async move {
            let mut r = CallToolResult::text("s");
            r.structured_content = Some(json!({ "a": [1, 2], "b": "c" }));
            r
        },
    )
    .build()
    .unwrap()
}

/// One server on the lane, the same server through a pass-through layer (the call typed
/// through the chain) and through a layer taking params and result as JSON (the general
/// path), each behind a raw peer in the same state.
struct Pair {
    lane: RawPeer,
    typed: RawPeer,
    general: RawPeer,
}

impl Pair {
    /// Both servers after a handshake at `version`, or without one (`None`: a per-request-era
    /// client).
    async fn open(version: Option<&str>) -> Pair {
        let mut lane = RawPeer::start(&server(Layer::None));
        let mut typed = RawPeer::start(&server(Layer::PassThrough));
        let mut general = RawPeer::start(&server(Layer::AsJson));
        if let Some(v) = version {
            let a = lane.initialize(v).await;
            let b = general.initialize(v).await;
            assert_eq!(a, b, "the initialize results differ");
            assert_eq!(
                a,
                typed.initialize(v).await,
                "the initialize results differ"
            );
        }
        Pair {
            lane,
            typed,
            general,
        }
    }

    /// Sends `frame` to both and returns the frames both answered with (the same bytes),
    /// up to and including the answer with id `id`.
    async fn same(&mut self, frame: &str, id: &Value) -> Vec<String> {
        let a = exchange(&mut self.lane, frame, id).await;
        let b = exchange(&mut self.general, frame, id).await;
        assert_eq!(
            a, b,
            "lane (left) and general path (right) differ for {frame}"
        );
        let c = exchange(&mut self.typed, frame, id).await;
        assert_eq!(
            c, b,
            "the typed chain (left) and general path (right) differ for {frame}"
        );
        a
    }
}

/// Sends `frame` and reads raw frames until the one answering `id`.
async fn exchange(peer: &mut RawPeer, frame: &str, id: &Value) -> Vec<String> {
    peer.send_raw(frame.as_bytes()).await;
    let mut out = Vec::new();
    loop {
        let mut buf = Vec::new();
        let status = tokio::time::timeout(RECV_TIMEOUT, peer.reader.read_frame(&mut buf))
            .await
            .unwrap_or_else(|_| panic!("no answer to {frame} within the timeout"))
            .expect("read frame");
        assert!(
            matches!(status, ReadStatus::Frame),
            "{status:?} for {frame}"
        );
        let text = String::from_utf8(buf).expect("UTF-8 frame");
        let v: Value = serde_json::from_str(&text).expect("JSON frame");
        let done = v.get("id") == Some(id) && v.get("method").is_none();
        out.push(text);
        if done {
            return out;
        }
    }
}

fn call(id: u64, params: Value) -> String {
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params }).to_string()
}

/// The answer (last frame) of an exchange, parsed.
fn answer(frames: &[String]) -> Value {
    serde_json::from_str(frames.last().expect("an answer")).unwrap()
}

#[tokio::test]
async fn the_lane_and_the_general_path_answer_the_same_bytes_in_the_handshake_era() {
    for version in ["2025-11-25", "2025-06-18", "2025-03-26"] {
        let mut pair = Pair::open(Some(version)).await;
        // Success, and the members the lane skips (an unknown one) or reads (`task` absent).
        let a = pair
            .same(
                &call(1, json!({ "name": "echo", "arguments": { "text": "hi" } })),
                &json!(1),
            )
            .await;
        assert_eq!(answer(&a)["result"]["content"][0]["text"], "hi");
        let a = pair
            .same(
                &call(
                    2,
                    json!({ "name": "echo", "arguments": { "text": "x" }, "other": [1] }),
                ),
                &json!(2),
            )
            .await;
        assert_eq!(answer(&a)["result"]["content"][0]["text"], "x");
        // A string id, and text that needs escaping.
        let frame = r#"{"jsonrpc":"2.0","id":"s-1","method":"tools/call","params":{"name":"echo","arguments":{"text":"\"q\"\n\u00e9"}}}"#;
        pair.same(frame, &json!("s-1")).await;
        // A tool's own error result, a handler's Err, structured content.
        let a = pair
            .same(&call(3, json!({ "name": "flagged" })), &json!(3))
            .await;
        assert_eq!(answer(&a)["result"]["isError"], true);
        let a = pair
            .same(&call(4, json!({ "name": "fails" })), &json!(4))
            .await;
        assert!(answer(&a).get("result").is_some() || answer(&a).get("error").is_some());
        let a = pair
            .same(&call(5, json!({ "name": "structured" })), &json!(5))
            .await;
        assert_eq!(answer(&a)["result"]["content"][0]["text"], "s", "{a:?}");
        // structuredContent exists from 2025-06-18 on (a tool without an outputSchema may still
        // return it); a 2025-03-26 client gets the content only.
        let structured = &answer(&a)["result"]["structuredContent"];
        if version == "2025-03-26" {
            assert!(structured.is_null(), "{a:?}");
        } else {
            assert_eq!(structured, &json!({ "a": [1, 2], "b": "c" }), "{a:?}");
        }
        // Argument validation and bad arguments.
        let a = pair
            .same(
                &call(6, json!({ "name": "echo", "arguments": { "text": 7 } })),
                &json!(6),
            )
            .await;
        assert!(answer(&a).get("error").is_some() || answer(&a)["result"]["isError"] == true);
        pair.same(
            &call(7, json!({ "name": "echo", "arguments": {} })),
            &json!(7),
        )
        .await;
        for (id, args) in [(8, json!([1])), (9, json!("text")), (10, Value::Null)] {
            pair.same(
                &call(id, json!({ "name": "echo", "arguments": args })),
                &json!(id),
            )
            .await;
        }
        // Unknown tool; params the lane leaves to the full parser.
        let a = pair
            .same(&call(11, json!({ "name": "nope" })), &json!(11))
            .await;
        assert!(answer(&a).get("error").is_some() || answer(&a)["result"]["isError"] == true);
        for (id, params) in [
            (12, json!({})),
            (13, json!({ "name": 5 })),
            (14, json!(["echo"])),
            (15, json!("echo")),
        ] {
            let a = pair.same(&call(id, params), &json!(id)).await;
            assert!(answer(&a).get("error").is_some(), "{a:?}");
        }
        let dup = r#"{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"echo","name":"echo","arguments":{"text":"d"}}}"#;
        pair.same(dup, &json!(16)).await;
        let no_params = r#"{"jsonrpc":"2.0","id":17,"method":"tools/call"}"#;
        pair.same(no_params, &json!(17)).await;
        // Progress tokens (string and integer): the notifications and the answer, alike.
        for (id, token) in [(18, json!("tok")), (19, json!(42))] {
            let frames = pair
                .same(
                    &call(
                        id,
                        json!({ "name": "progress", "_meta": { "progressToken": token, "x": 1 } }),
                    ),
                    &json!(id),
                )
                .await;
            assert_eq!(
                frames.len(),
                3,
                "two progress notifications and the answer: {frames:?}"
            );
        }
        // `_meta` of other shapes: kept as given, or refused (-32602) alike.
        pair.same(
            &call(
                20,
                json!({ "name": "progress", "_meta": { "a": { "b": [1, 2] } } }),
            ),
            &json!(20),
        )
        .await;
        for (id, meta) in [
            (21, json!([])),
            (22, json!("m")),
            (23, json!({ "progressToken": 1.5 })),
            (24, json!({ "progressToken": null })),
            (25, json!({ "progressToken": {} })),
        ] {
            let a = pair
                .same(
                    &call(
                        id,
                        json!({ "name": "echo", "arguments": { "text": "m" }, "_meta": meta }),
                    ),
                    &json!(id),
                )
                .await;
            assert_eq!(answer(&a)["error"]["code"], -32602, "{a:?}");
        }
        // A task-augmented call to a server without the tasks capability.
        pair.same(
            &call(
                26,
                json!({ "name": "echo", "arguments": { "text": "t" }, "task": {} }),
            ),
            &json!(26),
        )
        .await;
    }
}

#[tokio::test]
async fn the_lane_and_the_general_path_answer_the_same_bytes_in_the_per_request_era() {
    // No handshake: each call carries its revision in `_meta` and is served on a child session.
    let mut pair = Pair::open(None).await;
    let meta = common_modern::meta(json!({}));
    let with = |extra: Value| {
        let mut m = meta.clone();
        for (k, v) in extra.as_object().unwrap() {
            m[k] = v.clone();
        }
        m
    };
    let a = pair
        .same(
            &call(
                1,
                json!({ "name": "echo", "arguments": { "text": "hi" }, "_meta": meta }),
            ),
            &json!(1),
        )
        .await;
    assert_eq!(answer(&a)["result"]["resultType"], "complete", "{a:?}");
    let cases = [
        json!({ "name": "flagged", "_meta": meta }),
        json!({ "name": "fails", "_meta": meta }),
        json!({ "name": "structured", "_meta": meta }),
        json!({ "name": "echo", "arguments": { "text": 7 }, "_meta": meta }),
        json!({ "name": "echo", "arguments": [1], "_meta": meta }),
        json!({ "name": "nope", "_meta": meta }),
        json!({ "name": 5, "_meta": meta }),
        json!({ "name": "echo", "requestState": "forged", "_meta": meta }),
        json!({ "name": "progress", "_meta": with(json!({ "progressToken": "p" })) }),
        json!({ "name": "echo", "arguments": { "text": "m" }, "_meta": with(json!({ "progressToken": 1.5 })) }),
        json!({ "name": "echo", "arguments": { "text": "v" }, "_meta": with(json!({ "io.modelcontextprotocol/protocolVersion": "1999-01-01" })) }),
    ];
    for (i, params) in cases.into_iter().enumerate() {
        let id = 100 + i as u64;
        let structured = params["name"] == "structured";
        let a = pair.same(&call(id, params), &json!(id)).await;
        if structured {
            assert_eq!(
                answer(&a)["result"]["structuredContent"],
                json!({ "a": [1, 2], "b": "c" }),
                "{a:?}"
            );
        }
    }
}
