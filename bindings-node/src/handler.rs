//! Calling JavaScript handlers from the engine.
//!
//! A [`NativeDispatcher`] holds three JavaScript functions of the facade as weak threadsafe
//! functions (they never keep the event loop alive by themselves):
//! - `call(handlerId, payload, ctx)` runs the handler registered under `handlerId` and resolves
//!   with an envelope (`{ok: true, value}` or `{ok: false, error: {code, message, data}}`);
//! - `cancel(key)` aborts the `AbortSignal` of the call whose context has that key (MCP
//!   `notifications/cancelled`, the session closing, the engine dropping the call);
//! - `notify(method, params)` delivers a notification to a client.
//!
//! [`JsHandler`] implements every `embed::Foreign*Handler` trait on top of one dispatcher.

use crate::context::NativeContext;
use crate::convert::from_envelope;
use crate::error::from_napi;
use ferromcp::embed::{
    ForeignClientHandler, ForeignCompletionHandler, ForeignContext, ForeignPromptHandler,
    ForeignResourceHandler, ForeignToolHandler,
};
use ferromcp::McpError;
use futures_util::future::BoxFuture;
use napi::bindgen_prelude::{FnArgs, Function, Promise};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::Status;
use napi_derive::napi;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// One handler call on its way to JavaScript.
pub struct Call {
    handler: u32,
    payload: Value,
    ctx: ForeignContext,
    key: u32,
}

type CallArgs = FnArgs<(u32, Value, NativeContext)>;
type CallFn = ThreadsafeFunction<Call, Promise<Value>, CallArgs, Status, false, true>;
type CancelFn = ThreadsafeFunction<u32, (), FnArgs<(u32,)>, Status, false, true>;
type NotifyFn =
    ThreadsafeFunction<(String, Value), (), FnArgs<(String, Value)>, Status, false, true>;

/// Keys that tie a call to its `AbortController` on the JavaScript side.
static NEXT_KEY: AtomicU32 = AtomicU32::new(1);

pub(crate) struct Dispatch {
    call: CallFn,
    cancel: CancelFn,
    notify: Option<NotifyFn>,
}

/// The facade's entry points for handler calls, cancellations and notifications.
#[napi]
pub struct NativeDispatcher {
    pub(crate) inner: Arc<Dispatch>,
}

#[napi]
impl NativeDispatcher {
    /// `call(handlerId, payload, ctx) -> Promise<envelope>`, `cancel(key)`, and optionally
    /// `notify(method, params)` (clients).
    #[napi(
        constructor,
        ts_args_type = "call: (handlerId: number, payload: any, ctx: NativeContext) => Promise<any>, cancel: (key: number) => void, notify?: ((method: string, params: any) => void) | undefined | null"
    )]
    pub fn new(
        call: Function<'_, CallArgs, Promise<Value>>,
        cancel: Function<'_, FnArgs<(u32,)>, ()>,
        notify: Option<Function<'_, FnArgs<(String, Value)>, ()>>,
    ) -> napi::Result<Self> {
        let call = call
            .build_threadsafe_function::<Call>()
            .weak::<true>()
            .callee_handled::<false>()
            .build_callback(|cx| {
                let c = cx.value;
                Ok(FnArgs::from((
                    c.handler,
                    c.payload,
                    NativeContext::new(c.ctx, c.key),
                )))
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
            }),
        })
    }
}

/// Tells JavaScript to abort a call the engine stopped waiting for.
struct AbortOnDrop {
    dispatch: Arc<Dispatch>,
    key: u32,
    armed: bool,
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if self.armed {
            self.dispatch
                .cancel
                .call(self.key, ThreadsafeFunctionCallMode::NonBlocking);
        }
    }
}

impl Dispatch {
    /// Calls handler `handler` with `payload`; resolves with its answer. Cancellation of the
    /// request (or dropping the future) aborts the JavaScript call's signal.
    fn invoke(
        self: &Arc<Self>,
        handler: u32,
        payload: Value,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<Value, McpError>> {
        let dispatch = self.clone();
        Box::pin(async move {
            let token = ctx.cancellation_token();
            if token.is_cancelled() {
                return Err(McpError::cancelled(Some("request cancelled")));
            }
            let key = NEXT_KEY.fetch_add(1, Ordering::Relaxed);
            let mut guard = AbortOnDrop {
                dispatch: dispatch.clone(),
                key,
                armed: true,
            };
            let call = async {
                let promise = dispatch
                    .call
                    .call_async_catch(Call {
                        handler,
                        payload,
                        ctx,
                        key,
                    })
                    .await
                    .map_err(from_napi)?;
                from_envelope(promise.await.map_err(from_napi)?)
            };
            let r = tokio::select! {
                r = call => r,
                _ = token.cancelled() => Err(McpError::cancelled(Some("request cancelled"))),
            };
            if r.is_ok() || !token.is_cancelled() {
                guard.armed = false;
            }
            r
        })
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

impl ForeignToolHandler for JsHandler {
    fn call(
        &self,
        arguments: Value,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<Value, McpError>> {
        self.dispatch.invoke(self.id, arguments, ctx)
    }
}

impl ForeignPromptHandler for JsHandler {
    fn get(
        &self,
        arguments: Value,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<Value, McpError>> {
        self.dispatch.invoke(self.id, arguments, ctx)
    }
}

impl ForeignCompletionHandler for JsHandler {
    fn complete(
        &self,
        params: Value,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<Value, McpError>> {
        self.dispatch.invoke(self.id, params, ctx)
    }
}

impl ForeignResourceHandler for JsHandler {
    fn read(
        &self,
        uri: String,
        variables: Value,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<Value, McpError>> {
        self.dispatch
            .invoke(self.id, json!({ "uri": uri, "variables": variables }), ctx)
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
