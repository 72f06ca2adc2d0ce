//! Calling JavaScript handlers from the engine.
//!
//! A [`NativeDispatcher`] holds three JavaScript functions of the facade as weak threadsafe
//! functions (they never keep the event loop alive by themselves):
//! - `call(handlerId, payload, key)` runs the handler registered under `handlerId`. A handler
//!   that finishes at once returns its envelope (`{ok: true, value}` or `{ok: false, error:
//!   {code, message, data}}`) right there; one that returns a promise returns nothing and later
//!   calls [`NativeDispatcher::answer_json`] with its value's JSON text (a plain value: one
//!   string across instead of a walk through every property; [`NativeDispatcher::answer_text`]
//!   with the text alone for a one-text-block tool result), [`NativeDispatcher::answer`] with
//!   the value, or [`NativeDispatcher::complete`] with an error envelope. Neither path creates a
//!   promise or a closure on the native side: each handler call is one hop to the event loop
//!   and one back.
//! - `cancel(key)` aborts the `AbortSignal` of the call with that key (MCP
//!   `notifications/cancelled`, the session closing, the engine dropping the call);
//! - `notify(method, params)` delivers a notification to a client.
//!
//! While a call runs, its [`ForeignContext`] stays in the dispatcher under its key, which is
//! how the facade's `RequestContext` reaches it (see [`crate::context`]). [`JsHandler`]
//! implements `embed::ForeignHandler` (every server handler) and `embed::ForeignClientHandler`
//! on top of one dispatcher.

use crate::convert::{Answer, Envelope};
use crate::error::from_napi;
use ferromcp::protocol::CallToolResult;
use ferromcp::McpError;
use ferromcp_embed::{
    ForeignAnswer, ForeignClientHandler, ForeignContext, ForeignHandler, ForeignRequest,
};
use futures_util::future::BoxFuture;
use napi::bindgen_prelude::{FnArgs, Function};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::Status;
use napi_derive::napi;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

/// One handler call on its way to JavaScript.
pub struct Call {
    handler: u32,
    payload: Value,
    key: u32,
}

type CallArgs = FnArgs<(u32, Value, u32)>;
type CallFn = ThreadsafeFunction<Call, Option<Envelope>, CallArgs, Status, false, true>;
type CancelFn = ThreadsafeFunction<u32, (), FnArgs<(u32,)>, Status, false, true>;
type NotifyFn =
    ThreadsafeFunction<(String, Value), (), FnArgs<(String, Value)>, Status, false, true>;

/// Keys that tie a call to its context and its `AbortController` on the JavaScript side.
static NEXT_KEY: AtomicU32 = AtomicU32::new(1);

/// What JavaScript answered a call with.
enum Reply {
    /// A JSON value (a synchronous envelope, `complete`, `answer`, `answerJson`).
    Value(Value),
    /// The text of `{ content: [{ type: "text", text }] }` (`answerText`).
    Text(String),
}

impl Reply {
    /// The answer as a JSON value: a [`Reply::Text`] as the result object its text came from
    /// (what the engine's shaping makes of a string, one text block).
    fn into_value(self) -> Value {
        match self {
            Self::Value(v) => v,
            Self::Text(text) => ferromcp_embed::shape::tool_result(Value::String(text), false),
        }
    }

    /// The answer of a tool call: a [`Reply::Text`] as the finished result the engine would
    /// decode from [`Self::into_value`] (`CallToolResult::text`, one text block, every other
    /// member absent), so it skips the JSON value, its shaping and its decoding. Every way of
    /// registering a tool passes an object with a `content` list through unchanged
    /// (`embed::shape::tool_result`), so the two answer the same; test/answer_json.test.mjs
    /// pins it (async handlers, which answer through here, against sync ones, which answer
    /// with the value, with and without an `outputSchema`). Kept because it is faster where
    /// users meet it: bench/results/node-sdk-form-handler.md, "A one-text-block result as a
    /// finished tool result".
    fn into_tool_answer(self) -> ForeignAnswer {
        match self {
            Self::Value(v) => ForeignAnswer::Value(v),
            Self::Text(text) => ForeignAnswer::ToolResult(CallToolResult::text(text)),
        }
    }
}

/// A call in flight: where its answer goes, and its context.
struct Running {
    answer: Option<oneshot::Sender<Result<Reply, McpError>>>,
    ctx: ForeignContext,
}

pub(crate) struct Dispatch {
    call: CallFn,
    cancel: CancelFn,
    notify: Option<NotifyFn>,
    running: Mutex<HashMap<u32, Running>>,
}

/// The facade's entry points for handler calls, cancellations and notifications.
#[napi]
pub struct NativeDispatcher {
    pub(crate) inner: Arc<Dispatch>,
}

#[napi]
impl NativeDispatcher {
    /// `call(handlerId, payload, key) -> envelope | undefined`, `cancel(key)`, and optionally
    /// `notify(method, params)` (clients).
    #[napi(
        constructor,
        ts_args_type = "call: (handlerId: number, payload: any, key: number) => any, cancel: (key: number) => void, notify?: ((method: string, params: any) => void) | undefined | null"
    )]
    pub fn new(
        call: Function<'_, CallArgs, Option<Envelope>>,
        cancel: Function<'_, FnArgs<(u32,)>, ()>,
        notify: Option<Function<'_, FnArgs<(String, Value)>, ()>>,
    ) -> napi::Result<Self> {
        let call = call
            .build_threadsafe_function::<Call>()
            .weak::<true>()
            .callee_handled::<false>()
            .build_callback(|cx| {
                let c = cx.value;
                Ok(FnArgs::from((c.handler, c.payload, c.key)))
            })?;
        let cancel = cancel
            .build_threadsafe_function::<u32>()
            .weak::<true>()
            .callee_handled::<false>()
            .build_callback(|cx| Ok(FnArgs::from((cx.value,))))?;
        let notify = match notify {
            Some(f) => Some(
                f.build_threadsafe_function::<(String, Value)>()
                    .weak::<true>()
                    .callee_handled::<false>()
                    .build_callback(|cx| Ok(FnArgs::from(cx.value)))?,
            ),
            None => None,
        };
        Ok(Self {
            inner: Arc::new(Dispatch {
                call,
                cancel,
                notify,
                running: Mutex::new(HashMap::new()),
            }),
        })
    }

    /// Answers the call `key` that returned a promise: `envelope` is `{ok: true, value}` or
    /// `{ok: false, error}`. Unknown keys (a call already cancelled) are ignored. An answer
    /// that is not JSON (a `BigInt`, ...) answers the call with an internal error naming it.
    #[napi(ts_args_type = "key: number, envelope: any")]
    pub fn complete(&self, key: u32, envelope: Envelope) {
        self.inner.finish(key, envelope.0.map(Reply::Value));
    }

    /// Answers the call `key` that returned a promise with the value it resolved to (what
    /// [`Self::complete`] does for `{ok: true, value}`, without the envelope). An answer that
    /// is not JSON answers the call with an internal error naming it, as there.
    #[napi(ts_args_type = "key: number, value: any")]
    pub fn answer(&self, key: u32, value: Answer) {
        self.inner.finish(key, value.0.map(Reply::Value));
    }

    /// Answers the call `key` that returned a promise with the value whose JSON text is `json`
    /// (the facade sends the text of values it knows read back as [`Self::answer`] would read
    /// them, see `isPlainJson` in ts/dispatch.ts). Returns false, answering nothing, when `json`
    /// is not JSON the engine reads (a lone surrogate `JSON.stringify` escapes): the facade then
    /// calls [`Self::answer`] with the value.
    #[napi]
    pub fn answer_json(&self, key: u32, json: String) -> bool {
        match serde_json::from_str::<Value>(&json) {
            Ok(v) => {
                self.inner.finish(key, Ok(Reply::Value(v)));
                true
            }
            Err(_) => false,
        }
    }

    /// Answers the call `key` that returned a promise with `{ content: [{ type: "text", text }] }`
    /// (a tool result in the official SDK examples' form), sent without the value: no
    /// `JSON.stringify` on the event loop and no parse here, and a tool call gets its finished
    /// result (`Reply::into_tool_answer`). The facade sends only values that are exactly that
    /// (`soleText` in ts/dispatch.ts).
    #[napi]
    pub fn answer_text(&self, key: u32, text: String) {
        self.inner.finish(key, Ok(Reply::Text(text)));
    }

    /// Answers the call `key` with the internal error of an answer that is not JSON
    /// (`embed::shape::answer_not_json`), `message` saying why: the facade could not hand the
    /// envelope over.
    #[napi]
    pub fn fail(&self, key: u32, message: String) {
        self.inner
            .finish(key, Err(ferromcp_embed::shape::answer_not_json(message)));
    }
}

impl Dispatch {
    /// Sends the answer of call `key` (once; later answers are dropped).
    fn finish(&self, key: u32, r: Result<Reply, McpError>) {
        let tx = self
            .running
            .lock()
            .unwrap()
            .get_mut(&key)
            .and_then(|c| c.answer.take());
        if let Some(tx) = tx {
            let _ = tx.send(r);
        }
    }

    /// The context of the running call `key`.
    pub(crate) fn context(&self, key: u32) -> Result<ForeignContext, McpError> {
        self.running
            .lock()
            .unwrap()
            .get(&key)
            .map(|c| c.ctx.clone())
            .ok_or_else(|| McpError::invalid_request("this request has already finished"))
    }

    /// Calls handler `handler` with `payload`; resolves with its answer. Cancellation of the
    /// request (or dropping the future) aborts the JavaScript call's signal.
    pub(crate) fn invoke(
        self: &Arc<Self>,
        handler: u32,
        payload: Value,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<Value, McpError>> {
        self.invoke_as(handler, payload, ctx, Reply::into_value)
    }

    /// [`Self::invoke`], its answer made a `T` by `read` (inside the one future, so the
    /// [`ForeignHandler`] answer costs no second boxed future).
    fn invoke_as<T: Send + 'static>(
        self: &Arc<Self>,
        handler: u32,
        payload: Value,
        ctx: ForeignContext,
        read: fn(Reply) -> T,
    ) -> BoxFuture<'static, Result<T, McpError>> {
        let dispatch = self.clone();
        Box::pin(async move {
            let token = ctx.cancellation_token();
            if token.is_cancelled() {
                return Err(McpError::cancelled(Some("request cancelled")));
            }
            let key = NEXT_KEY.fetch_add(1, Ordering::Relaxed);
            let (tx, rx) = oneshot::channel();
            dispatch.running.lock().unwrap().insert(
                key,
                Running {
                    answer: Some(tx),
                    ctx,
                },
            );
            let mut guard = Forget {
                dispatch: dispatch.clone(),
                key,
                abort: true,
            };
            let back = dispatch.clone();
            let status = dispatch.call.call_with_return_value(
                Call {
                    handler,
                    payload,
                    key,
                },
                ThreadsafeFunctionCallMode::NonBlocking,
                move |ret: napi::Result<Option<Envelope>>, _env| {
                    match ret {
                        Ok(Some(envelope)) => back.finish(key, envelope.0.map(Reply::Value)),
                        Ok(None) => {} // a promise: the facade calls complete() later
                        Err(e) => back.finish(key, Err(from_napi(e))),
                    }
                    Ok(())
                },
            );
            if status != Status::Ok {
                guard.abort = false;
                return Err(McpError::internal(format!(
                    "the JavaScript event loop is gone ({status})"
                )));
            }
            let r = tokio::select! {
                r = rx => r.unwrap_or_else(|_| Err(McpError::internal("handler vanished"))),
                _ = token.cancelled() => Err(McpError::cancelled(Some("request cancelled"))),
            };
            if r.is_ok() || !token.is_cancelled() {
                guard.abort = false;
            }
            r.map(read)
        })
    }
}

/// Removes a call from the dispatcher when the engine stops waiting for it, and tells
/// JavaScript to abort it if it did not finish.
struct Forget {
    dispatch: Arc<Dispatch>,
    key: u32,
    abort: bool,
}

impl Drop for Forget {
    fn drop(&mut self) {
        self.dispatch.running.lock().unwrap().remove(&self.key);
        if self.abort {
            self.dispatch
                .cancel
                .call(self.key, ThreadsafeFunctionCallMode::NonBlocking);
        }
    }
}

/// A JavaScript handler of any kind: the id the facade registered it under, and the dispatcher.
pub struct JsHandler {
    id: u32,
    dispatch: Arc<Dispatch>,
}

impl JsHandler {
    /// The handler registered under `id` in `dispatcher`.
    pub fn new(dispatcher: &NativeDispatcher, id: u32) -> Arc<Self> {
        Self::from_dispatch(dispatcher.inner.clone(), id)
    }

    pub(crate) fn from_dispatch(dispatch: Arc<Dispatch>, id: u32) -> Arc<Self> {
        Arc::new(Self { id, dispatch })
    }
}

/// Every kind of server handler: the payload is the tool's arguments, the prompt's arguments
/// or the completion's params, and `{uri, variables}` for a resource.
impl ForeignHandler for JsHandler {
    fn call(
        &self,
        request: ForeignRequest,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<ForeignAnswer, McpError>> {
        let value = |r: Reply| ForeignAnswer::Value(r.into_value());
        let (payload, read): (Value, fn(Reply) -> ForeignAnswer) = match request {
            ForeignRequest::CallTool { arguments } => (arguments, Reply::into_tool_answer),
            ForeignRequest::GetPrompt { arguments: v } | ForeignRequest::Complete { params: v } => {
                (v, value)
            }
            ForeignRequest::ReadResource { uri, variables } => {
                (json!({ "uri": uri, "variables": variables }), value)
            }
        };
        self.dispatch.invoke_as(self.id, payload, ctx, read)
    }
}

impl ForeignClientHandler for JsHandler {
    fn request(
        &self,
        method: String,
        params: Value,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<Value, McpError>> {
        self.dispatch
            .invoke(self.id, json!({ "method": method, "params": params }), ctx)
    }

    fn notification(&self, method: String, params: Value) {
        if let Some(n) = &self.dispatch.notify {
            n.call((method, params), ThreadsafeFunctionCallMode::NonBlocking);
        }
    }
}
