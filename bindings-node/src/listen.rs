//! `NativeSubscription`: the JavaScript face of [`EmbeddedSubscription`]
//! (`subscriptions/listen`, 2026-07-28). The facade's `Subscription` makes it an
//! `AsyncIterable` with `close()`.

use crate::client::NativeClient;
use crate::error::napi_result;
use ferromcp_embed::EmbeddedSubscription;
use napi::bindgen_prelude::PromiseRaw;
use napi::Env;
use napi_derive::napi;
use serde_json::{json, Value};
use std::sync::Arc;

/// An open subscription: `next()` resolves with `{method, params?}` or `null` once it is over;
/// `close()` ends it on the server (also while a `next()` waits).
#[napi]
pub struct NativeSubscription {
    sub: Arc<EmbeddedSubscription>,
}

#[napi]
impl NativeClient {
    /// Opens a `subscriptions/listen` subscription (`filter`: a `SubscriptionFilter` object);
    /// resolves once the server acknowledged it.
    #[napi(ts_return_type = "Promise<NativeSubscription>")]
    pub fn listen<'env>(
        &self,
        env: &'env Env,
        filter: Option<Value>,
    ) -> napi::Result<PromiseRaw<'env, NativeSubscription>> {
        let client = self.embedded();
        env.spawn_future(async move {
            napi_result(client.listen(filter.unwrap_or(Value::Null)).await)
                .map(|s| NativeSubscription { sub: Arc::new(s) })
        })
    }
}

#[napi]
impl NativeSubscription {
    /// The subscription id.
    #[napi(getter)]
    pub fn id(&self) -> Value {
        self.sub.id()
    }

    /// The filter the server agreed to (`SubscriptionFilter`).
    #[napi(getter)]
    pub fn acknowledged(&self) -> Value {
        self.sub.acknowledged()
    }

    /// The next notification (`{method, params?}`), or `null` once the subscription is over.
    #[napi(ts_return_type = "Promise<{ method: string; params?: Record<string, unknown> } | null>")]
    pub fn next<'env>(&self, env: &'env Env) -> napi::Result<PromiseRaw<'env, Value>> {
        let sub = self.sub.clone();
        env.spawn_future(async move {
            Ok(match sub.next().await {
                Some(n) => match n.params {
                    Some(p) => json!({ "method": n.method, "params": p }),
                    None => json!({ "method": n.method }),
                },
                None => Value::Null,
            })
        })
    }

    /// How it ended: `null` while open, `{result}` when the server ended it, `{error: {code,
    /// message, data, kind}}` otherwise (-32800 once closed by this side).
    #[napi(getter)]
    pub fn end(&self) -> Value {
        match self.sub.end() {
            None => Value::Null,
            Some(Ok(v)) => json!({ "result": v }),
            Some(Err(e)) => json!({ "error": ferromcp_embed::error_json(&e) }),
        }
    }

    /// Ends the subscription (idempotent, does not block).
    #[napi]
    pub fn close(&self) {
        self.sub.close()
    }
}
