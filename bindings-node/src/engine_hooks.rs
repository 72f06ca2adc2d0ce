//! The engine's authorization predicate, called in JavaScript (behind `allowIf`): the
//! decisions (which items a page holds, what a hidden item's call gets) are the engine's
//! (`embed::ForeignAccessPredicate`); here a JavaScript function registered with the facade's
//! dispatcher is only called, once per list request with every name.

use crate::error::napi_result;
use crate::handler::Dispatch;
use crate::server::NativeServer;
use ferromcp::McpError;
use ferromcp_embed::{ForeignAccessPredicate, ForeignContext};
use futures_util::future::BoxFuture;
use napi_derive::napi;
use serde_json::{json, Value};
use std::sync::Arc;

/// A JavaScript predicate, registered in the dispatcher under `id`: its payload is
/// `{request, kind, names}`, its answer an array of one boolean per name.
struct JsAccessPredicate {
    id: u32,
    dispatch: Arc<Dispatch>,
}

impl ForeignAccessPredicate for JsAccessPredicate {
    fn allowed(
        &self,
        request: Value,
        kind: &'static str,
        names: Vec<String>,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<Value, McpError>> {
        let payload = json!({ "request": request, "kind": kind, "names": names });
        self.dispatch.invoke(self.id, payload, ctx)
    }
}

#[napi]
impl NativeServer {
    /// Adds, after the layers already there, the engine's authorization layer asking the
    /// predicate registered in the dispatcher under `handler_id`. Fails once the server handled
    /// its first request.
    #[napi]
    pub fn add_access_predicate(&self, handler_id: u32) -> napi::Result<()> {
        let predicate = Arc::new(JsAccessPredicate {
            id: handler_id,
            dispatch: self.dispatch().clone(),
        });
        napi_result(self.embedded().add_access_predicate(predicate))
    }
}
