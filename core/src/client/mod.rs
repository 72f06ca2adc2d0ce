//! The client side: the handshake, typed calls for every server method, and pluggable handlers
//! for what servers ask of clients (roots, sampling, elicitation).

mod client;
mod handlers;

pub use client::{Client, ClientOptions};
pub use handlers::{ClientHandlers, ElicitationFn, NotificationFn, RootsFn, SamplingFn};
