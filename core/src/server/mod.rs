//! The server side: registries of tools, resources, templates, prompts and completions, and
//! the dispatch of every server method.
//!
//! A [`Server`] is shared by all its sessions (one per stdio process, many over HTTP). Features
//! can be added and removed while sessions run; sessions are told through `list_changed`.

mod api;
pub mod apps;
pub mod authorization;
mod builder;
mod compose;
mod dispatch;
mod handlers;
mod listing;
pub mod middleware;
mod registry;
mod tasks_ext;
pub mod transform;
mod typed;

// The task receiver, its shared store and list cursors are the session layer's (a client
// receives tasks too); here under the names the server's modules use.
use crate::session::{pagination, task_store, tasks};

pub use api::{CompletionRef, Server, ServerOptions, DEFAULT_MAX_LISTEN_STREAMS};
pub use builder::ServerBuilder;
pub use compose::{prefixed_name, prefixed_uri};
pub use handlers::{
    completion_fn, method_fn, prompt_fn, resource_fn, tool_fn, CompletionFn, MethodFn, PromptFn,
    ReadRequest, ResourceFn, ToolFn,
};
// Header params are the wire layer's (both roles read them); kept here at their old paths.
pub use crate::protocol::TASKS_EXTENSION;
pub use crate::protocol::{checked_header_params, encode_header_value, header_params, HeaderParam};
pub use pagination::paginate;
#[cfg(feature = "redis")]
pub(crate) use task_store::now_ms as task_store_now_ms;
pub use task_store::{InMemoryTaskStore, StoredTask, TaskSignal, TaskStore, EXPIRED_TASK_GRACE};
pub use tasks::TaskOptions;
pub use tasks_ext::MAX_LISTEN_TASK_IDS;
pub use typed::{schema_of, IntoToolResult, Json, ToolError};
