//! The engine's authorization predicate, called in Swift (behind `AllowIf`): the decisions
//! (which items a page holds, what a hidden item's call gets) are the engine's
//! (`embed::ForeignAccessPredicate`); here a Swift predicate is only called across UniFFI,
//! once per list request with every name.

use crate::context::NativeContext;
use crate::error::{json_text, FfiError};
use crate::runtime::enter;
use crate::server::NativeServer;
use ferromcp::McpError;
use ferromcp_embed::{ForeignAccessPredicate, ForeignContext};
use futures_util::future::BoxFuture;
use serde_json::Value;
use std::sync::Arc;

/// An authorization predicate written in Swift: which of `names` (items of `kind`, `"tool"`,
/// `"resource"` or `"prompt"`) the caller of `request` (the request as a middleware layer sees
/// it, JSON text) may see and use; one boolean per name. Called synchronously on an engine
/// thread: keep it cheap.
#[uniffi::export(foreign)]
pub trait AccessPredicate: Send + Sync {
    /// One boolean per name, in order.
    fn allowed(
        &self,
        request: String,
        kind: String,
        names: Vec<String>,
        context: Arc<NativeContext>,
    ) -> Vec<bool>;
}

/// The engine's view of a Swift predicate.
struct SwiftAccessPredicate(Arc<dyn AccessPredicate>);

impl ForeignAccessPredicate for SwiftAccessPredicate {
    fn allowed(
        &self,
        request: Value,
        kind: &'static str,
        names: Vec<String>,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<Value, McpError>> {
        let p = self.0.clone();
        Box::pin(async move {
            let answers = p.allowed(
                json_text(&request),
                kind.to_string(),
                names,
                NativeContext::new(ctx),
            );
            Ok(Value::from(answers))
        })
    }
}

#[uniffi::export]
impl NativeServer {
    /// Adds, after the layers already there, the engine's authorization layer asking
    /// `predicate`. Refused once the server handled its first request.
    pub fn add_access_predicate(
        &self,
        predicate: Arc<dyn AccessPredicate>,
    ) -> Result<(), FfiError> {
        Ok(enter(|| {
            self.inner
                .add_access_predicate(Arc::new(SwiftAccessPredicate(predicate)))
        })?)
    }
}
