//! The client side: the handshake, typed calls for every server method, and pluggable handlers
//! for what servers ask of clients (roots, sampling, elicitation). In the 2026-07-28 era
//! ([`ProtocolMode`]) the client probes `server/discover` instead of the handshake and answers
//! `input_required` results with those same handlers, and [`Client::listen`] opens
//! `subscriptions/listen` subscriptions.

mod api;
mod handlers;
#[cfg(feature = "http")]
pub mod http;
mod listen;
pub mod mcp_servers;
mod per_request;
mod task_receiver;
pub mod tasks_ext;
mod tasks_held;

/// The limits of the tasks a client runs for its server ([`ClientOptions::tasks`]); the
/// server's task limits are the same type.
pub use crate::session::tasks::TaskOptions;
pub use api::{Client, ClientOptions};
pub use handlers::{
    merge_capabilities, ClientHandlers, ElicitationFn, NotificationFn, RootsFn, SamplingFn,
};
pub use listen::Subscription;
pub use per_request::{ProtocolMode, MAX_INPUT_ROUNDS};
