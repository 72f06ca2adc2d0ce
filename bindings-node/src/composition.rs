//! Composition and tool transforms for Node (`McpServer.mount`, `importServer`,
//! `transformTool`): thin calls into the engine's seam (`embed/compose.rs`). The only glue here
//! is the facade's `transformOutput` function: the engine reshapes a transformed tool's output
//! synchronously, so the worker queues the call on the JavaScript thread and waits for its
//! answer (bounded, outside the runtime's scheduling), as the token store does (`auth.rs`).

use crate::convert::from_envelope;
use crate::error::napi_result;
use crate::server::NativeServer;
use ferromcp::McpError;
use ferromcp_embed::ForeignOutputReshape;
use napi::bindgen_prelude::Function;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::Status;
use napi_derive::napi;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// How long the engine waits for a JavaScript `transformOutput` to answer.
const RESHAPE_TIMEOUT: Duration = Duration::from_secs(30);

type ReshapeFn = ThreadsafeFunction<Value, Value, Value, Status, false, true>;

/// The facade's `transformOutput` wrapper: it answers the envelope of a handler call, `{ok:
/// true, value}` or `{ok: false, error: {code, message, data, exception}}` (it catches what the
/// user's function throws: an `McpError` keeps its code, anything else is an `exception`).
struct JsReshape {
    f: ReshapeFn,
}

impl ForeignOutputReshape for JsReshape {
    fn reshape(&self, structured: Value) -> Result<Value, McpError> {
        let (tx, rx) = std::sync::mpsc::channel();
        let status = self.f.call_with_return_value(
            structured,
            ThreadsafeFunctionCallMode::NonBlocking,
            move |r: napi::Result<Value>, _env| {
                let _ = tx.send(r.map_err(|e| e.reason));
                Ok(())
            },
        );
        if status != Status::Ok {
            return Err(McpError::handler_exception(format!(
                "the JavaScript event loop is gone ({status})"
            )));
        }
        let wait = || rx.recv_timeout(RESHAPE_TIMEOUT);
        let answer = match tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor()) {
            Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(wait),
            _ => wait(),
        };
        let envelope = answer
            .unwrap_or_else(|_| {
                Err(format!(
                    "did not answer within {} s",
                    RESHAPE_TIMEOUT.as_secs()
                ))
            })
            .map_err(McpError::handler_exception)?;
        from_envelope(envelope)
    }
}

/// Mounts `child` on `parent` under `prefix`, live (`EmbeddedServer::mount`).
#[napi]
pub fn mount_server(
    parent: &NativeServer,
    prefix: String,
    child: &NativeServer,
) -> napi::Result<()> {
    napi_result(parent.embedded().mount(&prefix, child.embedded()))
}

/// Copies `child`'s features into `parent` under `prefix`, once
/// (`EmbeddedServer::import_server`).
#[napi]
pub fn import_server(
    parent: &NativeServer,
    prefix: String,
    child: &NativeServer,
) -> napi::Result<()> {
    napi_result(parent.embedded().import_server(&prefix, child.embedded()))
}

/// Registers the tool `transform` (the engine's `ToolTransformConfig` JSON) makes from
/// `server`'s tool `original`. `reshape(structured)` answers the envelope `{ok, value}` /
/// `{ok: false, error: {code, message, data, exception}}`; its value is the new tool's structured output, checked against
/// `outputSchema` when given.
#[napi(
    ts_args_type = "server: NativeServer, original: string, transform: any, reshape?: ((structured: any) => any) | undefined | null, outputSchema?: any | undefined | null"
)]
pub fn add_transformed_tool(
    server: &NativeServer,
    original: String,
    transform: Value,
    reshape: Option<Function<'_, Value, Value>>,
    output_schema: Option<Value>,
) -> napi::Result<()> {
    let reshape: Option<Arc<dyn ForeignOutputReshape>> = match reshape {
        Some(f) => Some(Arc::new(JsReshape {
            f: f.build_threadsafe_function::<Value>()
                .weak::<true>()
                .callee_handled::<false>()
                .build()?,
        })),
        None => None,
    };
    napi_result(server.embedded().add_transformed_tool_json(
        &original,
        transform,
        reshape,
        output_schema,
    ))
}
