//! `NativeSubscription`: the Swift face of [`EmbeddedSubscription`] (`subscriptions/listen`,
//! 2026-07-28). The facade's `Subscription` makes it an `AsyncSequence` with `cancel()`.

use crate::client::NativeClient;
use crate::error::{json_text, parse_opt_json, FfiError};
use crate::runtime::run;
use ferromcp_embed::EmbeddedSubscription;
use serde_json::{json, Value};
use std::sync::Arc;

/// An open subscription: `next()` gives `{"method", "params"?}` JSON text or `nil` once it is
/// over; `close()` ends it on the server (also while a `next()` waits).
#[derive(uniffi::Object)]
pub struct NativeSubscription {
    inner: Arc<EmbeddedSubscription>,
}

#[uniffi::export]
impl NativeClient {
    /// Opens a `subscriptions/listen` subscription (`filter`: `SubscriptionFilter` JSON text);
    /// returns once the server acknowledged it.
    pub async fn listen(
        &self,
        filter: Option<String>,
    ) -> Result<Arc<NativeSubscription>, FfiError> {
        let filter = parse_opt_json("listen filter", filter)?.unwrap_or(Value::Null);
        let client = self.embedded();
        let sub = run(async move { client.listen(filter).await }).await?;
        Ok(Arc::new(NativeSubscription {
            inner: Arc::new(sub),
        }))
    }
}

#[uniffi::export]
impl NativeSubscription {
    /// The subscription id (JSON text).
    pub fn id(&self) -> String {
        json_text(&self.inner.id())
    }

    /// The filter the server agreed to (`SubscriptionFilter` JSON text).
    pub fn acknowledged(&self) -> String {
        json_text(&self.inner.acknowledged())
    }

    /// The next notification as `{"method", "params"?}` JSON text, or `nil` once the
    /// subscription is over.
    pub async fn next(&self) -> Option<String> {
        let sub = self.inner.clone();
        let n = run(async move { Ok(sub.next().await) })
            .await
            .ok()
            .flatten()?;
        Some(json_text(&match n.params {
            Some(p) => json!({ "method": n.method, "params": p }),
            None => json!({ "method": n.method }),
        }))
    }

    /// How it ended (JSON text): `nil` while open, `{"result"}` when the server ended it,
    /// `{"error": {code, message, data, kind}}` otherwise (-32800 once closed by this side).
    pub fn end(&self) -> Option<String> {
        self.inner.end().map(|e| {
            json_text(&match e {
                Ok(v) => json!({ "result": v }),
                Err(e) => json!({ "error": ferromcp_embed::error_json(&e) }),
            })
        })
    }

    /// Ends the subscription (idempotent, does not block).
    pub fn close(&self) {
        self.inner.close()
    }
}
