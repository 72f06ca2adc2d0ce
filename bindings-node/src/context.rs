//! The request context of a running JavaScript handler call, reached by the call's key: the
//! facade's `RequestContext` calls these methods of the [`NativeDispatcher`] that made the call.
//! After the call has finished they fail with "this request has already finished".

use crate::convert::opt;
use crate::error::{napi_result, to_napi};
use crate::handler::NativeDispatcher;
use napi_derive::napi;
use serde_json::{json, Value};

#[napi]
impl NativeDispatcher {
    /// What the call `key` is: `{requestId, meta, protocolVersion, peerInfo, peerCapabilities,
    /// progressToken, httpHeaders, requestState, auth, sessionId}` (one crossing; the facade
    /// caches it; `sessionId`: the Streamable HTTP session's id, null on stdio, in memory and
    /// without sessions).
    /// `httpHeaders` is a list of `[name, value]` pairs, or null outside HTTP; `requestState`
    /// the verified state of the previous `input_required` round (2026-07-28), or null.
    #[napi]
    pub fn ctx_info(&self, key: u32) -> napi::Result<Value> {
        let c = self.inner.context(key).map_err(to_napi)?;
        Ok(json!({
            "requestId": c.request_id(),
            "meta": c.meta(),
            "protocolVersion": c.protocol_version(),
            "peerInfo": c.peer_info(),
            "peerCapabilities": c.peer_capabilities(),
            "progressToken": c.progress_token(),
            "httpHeaders": c.http_headers(),
            "requestState": c.request_state(),
            "auth": c.auth(),
            "sessionId": c.request_context().session().session_id(),
        }))
    }

    /// Whether the call `key` was cancelled (true once it has finished).
    #[napi]
    pub fn ctx_is_cancelled(&self, key: u32) -> bool {
        self.inner
            .context(key)
            .map(|c| c.is_cancelled())
            .unwrap_or(true)
    }

    /// Closes the SSE stream carrying the call `key` (Streamable HTTP); false where there is none.
    #[napi]
    pub fn ctx_close_sse_stream(&self, key: u32) -> bool {
        self.inner
            .context(key)
            .map(|c| c.close_sse_stream())
            .unwrap_or(false)
    }

    /// Sends `notifications/progress` for the call `key` (if its requester asked for progress).
    #[napi]
    pub async fn ctx_progress(
        &self,
        key: u32,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> napi::Result<()> {
        let c = self.inner.context(key).map_err(to_napi)?;
        napi_result(c.progress(progress, total, message).await)
    }

    /// Sends `notifications/message` at an RFC 5424 level, related to the call `key`.
    #[napi]
    pub async fn ctx_log(
        &self,
        key: u32,
        level: String,
        data: Value,
        logger: Option<String>,
    ) -> napi::Result<()> {
        let c = self.inner.context(key).map_err(to_napi)?;
        napi_result(c.log(&level, logger, data).await)
    }

    /// Sends a request to the peer on behalf of the call `key`; resolves with its result.
    #[napi]
    pub async fn ctx_request(
        &self,
        key: u32,
        method: String,
        params: Option<Value>,
    ) -> napi::Result<Value> {
        let c = self.inner.context(key).map_err(to_napi)?;
        napi_result(c.request(&method, opt(params)).await)
    }

    /// Sends a notification related to the call `key`.
    #[napi]
    pub async fn ctx_notify(
        &self,
        key: u32,
        method: String,
        params: Option<Value>,
    ) -> napi::Result<()> {
        let c = self.inner.context(key).map_err(to_napi)?;
        napi_result(c.notify(&method, opt(params)).await)
    }

    /// Asks the client for the input requests `requests` (`{key: {method, params}}`) on behalf
    /// of the call `key`; resolves with the answers by key (2026-07-28: rejects with
    /// `InputRequired`, and the retried call's handler gets the answers).
    #[napi]
    pub async fn ctx_input(&self, key: u32, requests: Value) -> napi::Result<Value> {
        let c = self.inner.context(key).map_err(to_napi)?;
        napi_result(c.input(requests).await)
    }

    /// The client's answer to input request `name` carried by the call `key` (2026-07-28), or
    /// null.
    #[napi]
    pub fn ctx_input_response(&self, key: u32, name: String) -> napi::Result<Value> {
        let c = self.inner.context(key).map_err(to_napi)?;
        Ok(c.input_response(&name))
    }
}
