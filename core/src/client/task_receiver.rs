//! The client as a task receiver (2025-11-25, handshake era), opt-in with
//! [`ClientOptions::tasks`](super::ClientOptions::tasks).
//!
//! With it set and a sampling or elicitation handler given, the client declares
//! `tasks.requests.sampling.createMessage` and/or `tasks.requests.elicitation.create` (with
//! `tasks.list` and `tasks.cancel`, see [`ClientHandlers::task_capabilities`]). A server's
//! task-augmented `sampling/createMessage` or `elicitation/create` (`params.task`) is then
//! answered at once with a `CreateTaskResult` while the handler runs as the task (its context's
//! [`RequestContext::in_task`] is true, its params keep `task`); the server's `tasks/get`,
//! `tasks/result` (which waits for the task's end), `tasks/list` and `tasks/cancel` (which fires
//! the handler's cancellation token) are answered from the client's own store, and
//! `notifications/tasks/status` tells the server of each change. A result is kept for the
//! task's ttl (the one the server asked for, capped by [`TaskOptions::max_ttl`]).
//!
//! The store is the session layer's task receiver ([`crate::session::tasks`]), the one a
//! server's task-augmented `tools/call` runs on; here it keeps its tasks in an in-memory store
//! of this client's own. A request without `task`, or one of a revision without tasks, runs as
//! before.

use super::ClientHandlers;
use crate::jsonrpc::{Notification, Request};
use crate::session::task_store::{InMemoryTaskStore, TaskStore as SharedTasks};
use crate::session::tasks::{TaskOptions, TaskStore};
use crate::session::{Peer, RequestContext, Service};
use crate::McpError;
use futures_util::future::BoxFuture;
use serde_json::Value;
use std::sync::Arc;

/// How many tasks one `tasks/list` page holds.
const PAGE_SIZE: usize = 100;

/// What a client's session answers its server with: its handlers, and the tasks it runs for
/// the server when [`ClientOptions::tasks`](super::ClientOptions::tasks) is set.
pub(crate) struct ClientService {
    handlers: ClientHandlers,
    tasks: Option<Arc<Received>>,
}

/// The tasks a client runs for its server.
struct Received {
    options: TaskOptions,
    store: TaskStore,
    shared: Arc<dyn SharedTasks>,
}

impl ClientService {
    /// The service of a client with `handlers`, receiving tasks under `tasks` when it has a
    /// handler a server may augment with one (sampling or elicitation).
    pub(crate) fn new(handlers: ClientHandlers, tasks: Option<TaskOptions>) -> Self {
        let tasks = tasks
            .filter(|_| handlers.task_capabilities().is_some())
            .map(|options| {
                Arc::new(Received {
                    options,
                    store: TaskStore::default(),
                    shared: Arc::new(InMemoryTaskStore::default()),
                })
            });
        Self { handlers, tasks }
    }
}

/// `Some(requested ttl)` when `request` is to run as a task: a `sampling/createMessage` or
/// `elicitation/create` this client has a handler for, with a `params.task` object, in a
/// handshake session of a revision with tasks (2025-11-25).
fn task_of(
    request: &Request,
    ctx: &RequestContext,
    handlers: &ClientHandlers,
) -> Option<Option<u64>> {
    let handled = match request.method.as_str() {
        "sampling/createMessage" => handlers.sampling.is_some(),
        "elicitation/create" => handlers.elicitation.is_some(),
        _ => false,
    };
    let era = ctx
        .protocol_version()
        .is_some_and(|v| v.has_tasks() && !v.is_per_request());
    if !handled || !era {
        return None;
    }
    let task = request.params.as_ref()?.get("task")?;
    task.is_object()
        .then(|| task.get("ttl").and_then(Value::as_u64))
}

impl Service for ClientService {
    fn handle_request(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> BoxFuture<'static, Result<Value, McpError>> {
        let Some(tasks) = &self.tasks else {
            return self.handlers.handle_request(request, ctx);
        };
        let tasks = tasks.clone();
        if request.method.starts_with("tasks/") {
            return Box::pin(async move {
                let Request { method, params, .. } = request;
                let (answer, _) = tasks
                    .store
                    .answer(&method, params, &ctx, &tasks.shared, PAGE_SIZE)
                    .await?;
                Ok(answer)
            });
        }
        let Some(ttl) = task_of(&request, &ctx, &self.handlers) else {
            return self.handlers.handle_request(request, ctx);
        };
        let handlers = self.handlers.clone();
        Box::pin(async move {
            let shared = tasks.shared.clone();
            tasks
                .store
                .start(&tasks.options, ttl, &ctx, shared, move |task_ctx| {
                    handlers.handle_request(request, task_ctx)
                })
                .await
        })
    }

    fn handle_notification(&self, notification: Notification, peer: &Peer) {
        self.handlers.handle_notification(notification, peer);
    }
}
