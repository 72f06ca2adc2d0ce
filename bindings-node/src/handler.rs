//! Calling JavaScript handlers from the engine.
//!
//! A [`NativeDispatcher`] holds three JavaScript functions of the facade as weak threadsafe
//! functions (they never keep the event loop alive by themselves):
//! - `deliver(calls, walked)` runs a batch of handler calls: every call queued while the event
//!   loop was busy crosses in one threadsafe-function call (one wake of the event loop for all
//!   of them, see [`Queue`]). `calls` is the JSON text `[handlerId, key, payload, ...]`, three
//!   entries a call, which the facade reads with one `JSON.parse`; a payload whose text would
//!   not read back as napi's walk of the value makes it ([`text_reads_as_walk`]: an integer
//!   beyond ±(2^53-1), which the walk makes a `BigInt`, or a `__proto__` key) crosses walked,
//!   in `walked` (the payloads by call, `null` for those in the text). A handler that finishes
//!   at once answers through [`NativeDispatcher::answer`] (its value walked) or
//!   [`NativeDispatcher::complete`] (an error envelope); one that returns a promise later
//!   through [`NativeDispatcher::answers`] with the JSON text of every plain answer resolved in
//!   the same event-loop turn (one call and one wake of the engine's worker for all of them),
//!   [`NativeDispatcher::answer`] or [`NativeDispatcher::complete`]. Neither path creates a
//!   promise or a closure on the native side.
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
use std::io::Write;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

/// One handler call on its way to JavaScript.
struct Call {
    handler: u32,
    payload: Value,
    key: u32,
}

/// The calls waiting for the event loop. An engine thread queues its call and, when the queue
/// was empty, asks the event loop to run `deliver` once; that call takes every call queued by
/// then. With calls arriving faster than the event loop answers (a pipelining client, many
/// clients), one wake of the event loop and one `JSON.parse` serve the whole batch.
#[derive(Default)]
struct Queue {
    calls: Vec<Call>,
    /// The keys of the batch `deliver` was last called with, until it returned: what a throw
    /// out of it fails (the facade's `deliver` catches every handler's throw itself).
    delivering: Vec<u32>,
}

type DeliverArgs = FnArgs<(String, Option<Vec<Value>>)>;
type DeliverFn = ThreadsafeFunction<(), (), DeliverArgs, Status, false, true>;
type CancelFn = ThreadsafeFunction<u32, (), FnArgs<(u32,)>, Status, false, true>;
type NotifyFn =
    ThreadsafeFunction<(String, Value), (), FnArgs<(String, Value)>, Status, false, true>;

/// Keys that tie a call to its context and its `AbortController` on the JavaScript side.
static NEXT_KEY: AtomicU32 = AtomicU32::new(1);

/// The largest integer napi's walk of a `serde_json::Value` makes a JavaScript number; past it
/// (either sign) the walk makes a `BigInt`, which `JSON.parse` would not.
const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;
/// napi's limits on its walk of a `serde_json::Value` (128 levels, a million values): a
/// payload past them is left to the walk, which refuses it as it always did.
const WALK_DEPTH: u32 = 128;
const WALK_NODES: usize = 1_000_000;

/// Whether `JSON.parse` of `v`'s JSON text (serde_json's) gives exactly what napi's walk of `v`
/// gives a handler: every number but the integers beyond ±(2^53-1) (a `BigInt` from the walk,
/// a rounded number from `JSON.parse`), every string (valid UTF-8 both ways; a float's
/// shortest text reads back as the same double), and objects without a `__proto__` key (the
/// walk sets such a property, which makes its value the prototype; `JSON.parse` defines it),
/// within the walk's depth and size limits. The rule is pinned by test/payload_json.test.mjs.
fn text_reads_as_walk(v: &Value, depth: u32, nodes: &mut usize) -> bool {
    if *nodes == 0 {
        return false;
    }
    *nodes -= 1;
    match v {
        Value::Null | Value::Bool(_) | Value::String(_) => true,
        Value::Number(n) => match n.as_i64() {
            Some(i) => (-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&i),
            None => n.is_f64(),
        },
        Value::Array(a) => depth > 0 && a.iter().all(|x| text_reads_as_walk(x, depth - 1, nodes)),
        Value::Object(o) => {
            depth > 0
                && o.iter()
                    .all(|(k, x)| k != "__proto__" && text_reads_as_walk(x, depth - 1, nodes))
        }
    }
}

/// The arguments of one `deliver`: the text `[handlerId, key, payload, ...]` and, when some
/// payload must be walked, the payloads by call (`null` where the text holds it).
fn batch(calls: Vec<Call>) -> (String, Option<Vec<Value>>) {
    let mut text = Vec::with_capacity(64 * calls.len() + 2);
    let mut walked: Option<Vec<Value>> = None;
    text.push(b'[');
    let n = calls.len();
    for (i, c) in calls.into_iter().enumerate() {
        if i > 0 {
            text.push(b',');
        }
        let mut nodes = WALK_NODES;
        let plain = text_reads_as_walk(&c.payload, WALK_DEPTH, &mut nodes);
        // Writing into a Vec cannot fail.
        let _ = write!(text, "{},{},", c.handler, c.key);
        if plain {
            let _ = serde_json::to_writer(&mut text, &c.payload);
        } else {
            text.extend_from_slice(b"null");
            walked.get_or_insert_with(|| vec![Value::Null; n])[i] = c.payload;
        }
    }
    text.push(b']');
    // serde_json writes UTF-8 and the rest is ASCII.
    let text = String::from_utf8(text).unwrap_or_else(|e| unreachable!("JSON text: {e}"));
    (text, walked)
}

/// A call in flight: where its answer goes, and its context.
struct Running {
    answer: Option<oneshot::Sender<Result<Value, McpError>>>,
    ctx: ForeignContext,
}

pub(crate) struct Dispatch {
    deliver: DeliverFn,
    queue: Arc<Mutex<Queue>>,
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
    /// `deliver(calls, walked)` (see the module documentation), `cancel(key)`, and optionally
    /// `notify(method, params)` (clients).
    #[napi(
        constructor,
        ts_args_type = "deliver: (calls: string, walked: any[] | null) => void, cancel: (key: number) => void, notify?: ((method: string, params: any) => void) | undefined | null"
    )]
    pub fn new(
        deliver: Function<'_, DeliverArgs, ()>,
        cancel: Function<'_, FnArgs<(u32,)>, ()>,
        notify: Option<Function<'_, FnArgs<(String, Value)>, ()>>,
    ) -> napi::Result<Self> {
        let queue = Arc::new(Mutex::new(Queue::default()));
        let taken = queue.clone();
        let deliver = deliver
            .build_threadsafe_function::<()>()
            .weak::<true>()
            .callee_handled::<false>()
            .build_callback(move |_cx| {
                let calls = {
                    let mut q = taken.lock().unwrap();
                    let calls = std::mem::take(&mut q.calls);
                    q.delivering = calls.iter().map(|c| c.key).collect();
                    calls
                };
                Ok(FnArgs::from(batch(calls)))
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
                deliver,
                queue,
                cancel,
                notify,
                running: Mutex::new(HashMap::new()),
            }),
        })
    }

    /// Answers the call `key`: `envelope` is `{ok: true, value}` or `{ok: false, error}`.
    /// Unknown keys (a call already cancelled) are ignored. An answer that is not JSON (a
    /// `BigInt`, ...) answers the call with an internal error naming it.
    #[napi(ts_args_type = "key: number, envelope: any")]
    pub fn complete(&self, key: u32, envelope: Envelope) {
        self.inner.finish(key, envelope.0);
    }

    /// Answers the call `key` with its handler's value (what [`Self::complete`] does for `{ok:
    /// true, value}`, without the envelope). An answer that is not JSON answers the call with
    /// an internal error naming it, as there.
    #[napi(ts_args_type = "key: number, value: any")]
    pub fn answer(&self, key: u32, value: Answer) {
        self.inner.finish(key, value.0);
    }

    /// Answers several calls whose handlers' promises resolved: `json` is the JSON text `[key,
    /// value, key, value, ...]` (the facade sends the text of values it knows read back as
    /// [`Self::answer`] would read them, see `isPlainJson` in ts/dispatch.ts). Returns false,
    /// answering nothing, when `json` is not JSON the engine reads (a lone surrogate
    /// `JSON.stringify` escapes) or not of that form: the facade then calls [`Self::answer`]
    /// with each value.
    #[napi]
    pub fn answers(&self, json: String) -> bool {
        let Ok(Value::Array(items)) = serde_json::from_str::<Value>(&json) else {
            return false;
        };
        if items.len() % 2 != 0 || !items.iter().step_by(2).all(|k| key_of(k).is_some()) {
            return false;
        }
        let mut items = items.into_iter();
        let mut answered = Vec::with_capacity(items.len() / 2);
        while let (Some(k), Some(v)) = (items.next(), items.next()) {
            answered.push((key_of(&k).unwrap_or_default(), Ok(v)));
        }
        self.inner.finish_all(answered);
        true
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

/// A call's key in [`NativeDispatcher::answers`]' text.
fn key_of(v: &Value) -> Option<u32> {
    v.as_u64().and_then(|k| u32::try_from(k).ok())
}

impl Dispatch {
    /// Sends the answer of call `key` (once; later answers are dropped).
    fn finish(&self, key: u32, r: Result<Value, McpError>) {
        self.finish_all([(key, r)]);
    }

    /// [`Self::finish`] for several calls, under one lock.
    fn finish_all(&self, answers: impl IntoIterator<Item = (u32, Result<Value, McpError>)>) {
        let mut ready = Vec::new();
        {
            let mut running = self.running.lock().unwrap();
            for (key, r) in answers {
                if let Some(tx) = running.get_mut(&key).and_then(|c| c.answer.take()) {
                    ready.push((tx, r));
                }
            }
        }
        for (tx, r) in ready {
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

    /// Queues `call` for the event loop, asking it to run `deliver` when the queue was empty
    /// (else the `deliver` already asked for takes this call too). If the event loop is gone,
    /// every queued call fails with `status`.
    fn send(self: &Arc<Self>, call: Call) {
        let first = {
            let mut q = self.queue.lock().unwrap();
            q.calls.push(call);
            q.calls.len() == 1
        };
        if !first {
            return;
        }
        let back = self.clone();
        let status = self.deliver.call_with_return_value(
            (),
            ThreadsafeFunctionCallMode::NonBlocking,
            move |ret: napi::Result<()>, _env| {
                let keys = std::mem::take(&mut back.queue.lock().unwrap().delivering);
                if let Err(e) = ret {
                    let e = from_napi(e);
                    back.finish_all(keys.into_iter().map(|k| (k, Err(e.clone()))));
                }
                Ok(())
            },
        );
        if status != Status::Ok {
            let calls = std::mem::take(&mut self.queue.lock().unwrap().calls);
            let e = McpError::internal(format!("the JavaScript event loop is gone ({status})"));
            self.finish_all(calls.into_iter().map(|c| (c.key, Err(e.clone()))));
        }
    }

    /// Calls handler `handler` with `payload`; resolves with its answer. Cancellation of the
    /// request (or dropping the future) aborts the JavaScript call's signal.
    pub(crate) fn invoke(
        self: &Arc<Self>,
        handler: u32,
        payload: Value,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<Value, McpError>> {
        self.invoke_as(handler, payload, ctx, std::convert::identity)
    }

    /// [`Self::invoke`], its answer made a `T` by `read` (inside the one future, so the
    /// [`ForeignHandler`] answer costs no second boxed future).
    fn invoke_as<T: Send + 'static>(
        self: &Arc<Self>,
        handler: u32,
        payload: Value,
        ctx: ForeignContext,
        read: fn(Value) -> T,
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
            dispatch.send(Call {
                handler,
                payload,
                key,
            });
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
        let payload = match request {
            ForeignRequest::CallTool { arguments: value }
            | ForeignRequest::GetPrompt { arguments: value }
            | ForeignRequest::Complete { params: value } => value,
            ForeignRequest::ReadResource { uri, variables } => {
                json!({ "uri": uri, "variables": variables })
            }
        };
        self.dispatch
            .invoke_as(self.id, payload, ctx, ForeignAnswer::Value)
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
