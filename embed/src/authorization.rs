//! Authorization by a predicate written in a binding's language: the engine's
//! [`Authorization`] layer, whose predicate ([`Authorization::allow_if_batch`]) asks a
//! [`ForeignAccessPredicate`].
//!
//! Why here and not in each binding: a predicate run as a foreign middleware layer can only
//! filter each page after the engine cut it, so pages come back short (or empty with a
//! `nextCursor`), and the refusals (`Unknown tool`, `Resource not found`, a completion with
//! no values) were written once per language. Here the engine's layer reads the whole list,
//! asks the foreign predicate about all its items in one crossing, pages what is left with the
//! server's page size and refuses hidden items exactly as unknown ones, as it does for a Rust
//! predicate.
//!
//! A failing predicate never fails the request: when the foreign call errs (an exception the
//! binding did not turn into answers, a dropped callback) or answers anything but one boolean
//! per name, every item it was asked about is hidden and the failure is logged (`tracing`
//! target `ferromcp::authorization`, level warn). The bindings also catch an exception per
//! item: that item is hidden and the exception logged in the host language.

use super::{middleware::request_json, EmbeddedServer, ForeignContext};
use ferromcp::server::authorization::{Authorization, ItemKind};
use ferromcp::server::middleware::MiddlewareRequest;
use ferromcp::McpError;
use futures_util::future::BoxFuture;
use serde_json::Value;
use std::sync::Arc;

/// A predicate written in a binding's language, asked which items the caller of a request may
/// see and use.
pub trait ForeignAccessPredicate: Send + Sync + 'static {
    /// Which of `names` (items of `kind`: `"tool"`, `"resource"` or `"prompt"`; a tool's or
    /// prompt's name, a resource's URI or a template's URI template) the caller of `request`
    /// may see and use. `request` is the request as a foreign middleware layer sees it
    /// ([`request_json`]: `method`, `params`, `principal`, `sessionId`, `sessionKey`, ...),
    /// `ctx` its context. Answers a JSON array of one boolean per name, in order. Called once
    /// per list request (with every name the scope rules let through) and once per call, read
    /// or get (with its one name).
    fn allowed(
        &self,
        request: Value,
        kind: &'static str,
        names: Vec<String>,
        ctx: ForeignContext,
    ) -> BoxFuture<'static, Result<Value, McpError>>;
}

/// The name of `kind` as the bindings spell it.
pub fn item_kind_name(kind: ItemKind) -> &'static str {
    match kind {
        ItemKind::Tool => "tool",
        ItemKind::Prompt => "prompt",
        _ => "resource",
    }
}

/// The answers a predicate gave for `count` names: one boolean each, or `None`.
fn answers(value: &Value, count: usize) -> Option<Vec<bool>> {
    let items = value.as_array().filter(|a| a.len() == count)?;
    items.iter().map(Value::as_bool).collect()
}

/// Asks `predicate` about `names`; every one hidden, and the failure logged, when it fails.
async fn ask(
    predicate: Arc<dyn ForeignAccessPredicate>,
    request: Value,
    kind: ItemKind,
    names: Vec<String>,
    ctx: ForeignContext,
) -> Vec<bool> {
    let count = names.len();
    let method = request["method"].as_str().unwrap_or_default().to_string();
    let called =
        ferromcp::wait::handover(predicate.allowed(request, item_kind_name(kind), names, ctx));
    match called.await {
        Ok(value) => answers(&value, count).unwrap_or_else(|| {
            let shown: String = value.to_string().chars().take(200).collect();
            tracing::warn!(
                target: "ferromcp::authorization",
                method = %method,
                "the authorization predicate answered {shown} for {count} items, not {count} booleans: every one hidden"
            );
            vec![false; count]
        }),
        Err(e) => {
            tracing::warn!(
                target: "ferromcp::authorization",
                method = %method,
                code = e.code,
                "the authorization predicate failed ({}): every item it was asked about hidden",
                e.message
            );
            vec![false; count]
        }
    }
}

/// The engine's [`Authorization`] layer asking `predicate`.
pub fn foreign_authorization(predicate: Arc<dyn ForeignAccessPredicate>) -> Authorization {
    Authorization::new().allow_if_batch(
        move |request: &MiddlewareRequest, kind: ItemKind, names: Vec<String>| {
            let ctx = ForeignContext::new(request.context().clone());
            let json = request_json(request, &ctx);
            Box::pin(ask(predicate.clone(), json, kind, names, ctx))
        },
    )
}

impl EmbeddedServer {
    /// Adds, after the layers already there, the engine's authorization layer deciding with
    /// `predicate` (see the module): hidden items are absent from every list (pages stay full,
    /// cursors valid) and refused as unknown ones. Refused once the server handled its first
    /// request.
    pub fn add_access_predicate(
        &self,
        predicate: Arc<dyn ForeignAccessPredicate>,
    ) -> Result<(), McpError> {
        self.server()
            .add_middleware(foreign_authorization(predicate))
    }
}
