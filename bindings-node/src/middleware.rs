//! Middleware written in JavaScript, and the engine's built-in layers, on a [`NativeServer`].
//!
//! A JavaScript layer is registered with the facade's dispatcher like any handler and called
//! through it ([`crate::handler`]): its payload is `{request, next}`, where `request` is the
//! seam's request object (`embed::ForeignMiddleware`: method, params, id, tool, sessionId,
//! sessionKey, principal, protocolVersion, httpHeaders) and `next` a key naming the rest of the
//! chain for this request. The facade's `next()` calls [`middleware_next`] with that key (and
//! the request as the layer leaves it), which resolves to the rest of the chain's result or
//! rejects with its JSON-RPC error. The key lives while the layer's call does.
//!
//! A layer may also observe the client's notifications: [`NativeServer::add_middleware`]'s
//! `notify` is called with each one (`{method, params, sessionId, sessionKey}`, as
//! `embed::ForeignMiddleware::notification` gives it), queued to the event loop in the order the
//! client sent them; the engine hands every notification on whatever the function does. A layer
//! with only a `notify` hands each request on in Rust, without a call into JavaScript.
//!
//! The built-in layers (rate limit, request log, error masking) are added by name
//! ([`NativeServer::add_middleware_config`]); the timing layer calls a JavaScript function
//! with each request's timing event ([`NativeServer::add_timing_hook`]).

use crate::error::{napi_result, to_napi};
use crate::handler::Dispatch;
use crate::server::NativeServer;
use ferromcp::McpError;
use ferromcp_embed::{ForeignContext, ForeignMiddleware, ForeignNext};
use futures_util::future::BoxFuture;
use napi::bindgen_prelude::{FnArgs, Function};
use napi::threadsafe_function::ThreadsafeFunctionCallMode;
use napi_derive::napi;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, LazyLock, Mutex};

/// The rest of the chain of each request a JavaScript layer is handling, and the request's
/// context, by key.
static NEXTS: LazyLock<Mutex<HashMap<u32, (ForeignNext, ForeignContext)>>> =
    LazyLock::new(Default::default);
static NEXT_KEY: AtomicU32 = AtomicU32::new(1);

/// Forgets a request's `next` when its layer's call ends (answered, failed or dropped).
struct NextKey(u32);

impl Drop for NextKey {
    fn drop(&mut self) {
        NEXTS.lock().unwrap().remove(&self.0);
    }
}

/// Shows a client notification to JavaScript (queued to the event loop, in order).
type NotifyFn = Arc<dyn Fn(Value) + Send + Sync>;

/// A JavaScript middleware layer: its request function, registered in the dispatcher under
/// `id` (none: requests are handed on as they came), and its notification observer, if any.
struct JsMiddleware {
    id: Option<u32>,
    dispatch: Arc<Dispatch>,
    notify: Option<NotifyFn>,
}

impl ForeignMiddleware for JsMiddleware {
    fn handle(
        &self,
        request: Value,
        next: ForeignNext,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<Value, McpError>> {
        let Some(id) = self.id else {
            return next.run(None);
        };
        let key = NEXT_KEY.fetch_add(1, Ordering::Relaxed);
        NEXTS.lock().unwrap().insert(key, (next, ctx.clone()));
        let guard = NextKey(key);
        let call = self
            .dispatch
            .invoke(id, json!({ "request": request, "next": key }), ctx);
        Box::pin(async move {
            let r = call.await;
            drop(guard);
            r
        })
    }

    fn notification(&self, notification: Value) {
        if let Some(notify) = &self.notify {
            notify(notification);
        }
    }
}

/// Hands a request on to the rest of its chain (`key`: the `next` of a JavaScript layer's
/// payload; `changed`: `{method, params}` as the layer leaves them, or null for unchanged).
/// Resolves to the result, or rejects with the chain's JSON-RPC error (also when `next` is
/// called twice, or after the layer answered), or with `RequestCancelled` when the request was
/// cancelled meanwhile (the facade then aborts the layer's signal at once: the engine's own
/// abort of the layer's call may reach the event loop after this rejection).
#[napi]
pub async fn middleware_next(key: u32, changed: Option<Value>) -> napi::Result<Value> {
    let entry = NEXTS.lock().unwrap().get(&key).cloned();
    let Some((next, ctx)) = entry else {
        return Err(to_napi(McpError::internal(
            "middleware: next() after the request was answered",
        )));
    };
    let r = next.run(changed).await;
    if r.is_err() && ctx.is_cancelled() {
        return Err(to_napi(McpError::cancelled(Some("request cancelled"))));
    }
    napi_result(r)
}

#[napi]
impl NativeServer {
    /// Adds a JavaScript layer after the layers already there (the first added is outermost):
    /// its request function registered in the dispatcher under `handler_id` (null: requests
    /// pass through it untouched) and `notify`, called with each client notification
    /// (`{method, params, sessionId, sessionKey}`) on the event loop, in the order they came;
    /// what it does or throws does not stop the notification, which the engine hands on (it
    /// does not keep the process alive). Fails once the server handled its first request.
    #[napi(
        ts_args_type = "handlerId: number | null, notify?: ((notification: any) => void) | null"
    )]
    pub fn add_middleware(
        &self,
        handler_id: Option<u32>,
        notify: Option<Function<'_, FnArgs<(Value,)>, ()>>,
    ) -> napi::Result<()> {
        let notify = match notify {
            Some(f) => {
                let tsfn = f
                    .build_threadsafe_function::<Value>()
                    .weak::<true>()
                    .callee_handled::<false>()
                    .build_callback(|cx| Ok(FnArgs::from((cx.value,))))?;
                let f: NotifyFn = Arc::new(move |note: Value| {
                    tsfn.call(note, ThreadsafeFunctionCallMode::NonBlocking);
                });
                Some(f)
            }
            None => None,
        };
        let layer = Arc::new(JsMiddleware {
            id: handler_id,
            dispatch: self.dispatch().clone(),
            notify,
        });
        napi_result(self.embedded().add_middleware(layer))
    }

    /// Adds a built-in layer by name and options (`{name: 'rateLimit', limit, windowMs, ...}`,
    /// `{name: 'requestLog'}`, `{name: 'maskErrors'}`); unknown names and options are refused.
    #[napi]
    pub fn add_middleware_config(&self, config: Value) -> napi::Result<()> {
        napi_result(self.embedded().add_middleware_config(config))
    }

    /// Adds the built-in timing layer: `hook(event)` gets each request's timing event
    /// (`{method, tool, durationMs, outcome, code}`), queued to the event loop (the request does
    /// not wait for it; the hook does not keep the process alive).
    #[napi(ts_args_type = "hook: (event: any) => void")]
    pub fn add_timing_hook(&self, hook: Function<'_, FnArgs<(Value,)>, ()>) -> napi::Result<()> {
        let tsfn = hook
            .build_threadsafe_function::<Value>()
            .weak::<true>()
            .callee_handled::<false>()
            .build_callback(|cx| Ok(FnArgs::from((cx.value,))))?;
        let hook = move |event: Value| {
            tsfn.call(event, ThreadsafeFunctionCallMode::NonBlocking);
        };
        napi_result(self.embedded().add_timing_hook(Arc::new(hook)))
    }
}
