//! The client side: the handshake, typed calls for every server method, and pluggable handlers
//! for what servers ask of clients (roots, sampling, elicitation).

mod api;
mod handlers;

pub use api::{Client, ClientOptions};
pub use handlers::{
    merge_capabilities, ClientHandlers, ElicitationFn, NotificationFn, RootsFn, SamplingFn,
};
