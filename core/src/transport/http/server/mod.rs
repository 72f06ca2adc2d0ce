//! The Streamable HTTP server (2025-03-26 and later) and the legacy HTTP+SSE endpoints
//! (2024-11-05), both driving the shared session engine.
//!
//! Every session has one routing table: the messages it sends (progress, logs, server-to-client
//! requests, list-changed notifications) and the answers of its handlers are routed as they are
//! sent, under one lock and in order, so a request's progress always precedes its response on
//! that request's SSE stream. Unrelated messages go to the session's GET stream, or
//! wait in a bounded backlog until one opens.
//!
//! One job per module, dependencies pointing down the list (no cycles):
//! - [`headers`]: the MCP header names;
//! - [`responses`]: ready-made HTTP responses (JSON-RPC errors, SSE heads, refusals);
//! - [`checks`]: checks of a request's head (Accept, Content-Type, MCP-Protocol-Version);
//! - [`host_guard`]: the Host/Origin allow-list against DNS rebinding;
//! - [`frames`]: what travels on a stream's queue (frames, answers written as text);
//! - [`routes`]: a session's routing table (request streams, GET stream, backlog);
//! - [`replica`]: the event store and bus a session shares with the other replicas, and the
//!   store writes and bus messages a routing step leaves for after its lock;
//! - [`session`]: [`HttpSession`], the engine session with its routing (its outbound sink) and
//!   its state for the session store;
//! - [`sse_body`]: the streaming SSE response body;
//! - [`compression`]: request bodies decoded and answers encoded (`Content-Encoding`);
//! - [`session_table`]: this replica's live sessions, and admission when the table is full;
//! - [`app`]: the state of one mounted endpoint: its table of live sessions (private to this
//!   replica, rebuilt from the session store on a miss) and its bus listener;
//! - [`post`], [`streamable`]: the Streamable HTTP endpoint (POST, every mode and era, one path;
//!   GET, DELETE and dispatch);
//! - [`protect`]: the bearer-token check of protected endpoints and their metadata document;
//! - [`legacy`]: the 2024-11-05 HTTP+SSE endpoints;
//! - [`axum_adapter`]: [`router`], the endpoints as an axum router;
//! - [`listener`]: [`serve_http`], the accept loop on ferromcp's own HTTP/1.1 layer.

// Handlers return ready-made HTTP responses as their error values.
#![allow(clippy::result_large_err)]

mod address_limit;
mod app;
mod axum_adapter;
mod checks;
mod client_cert;
mod compression;
mod fair_listener;
mod frames;
mod headers;
mod host_guard;
mod legacy;
mod listener;
mod oauth_proxy_routes;
mod post;
mod protect;
mod replica;
mod responses;
mod routes;
mod session;
mod session_table;
mod sse_body;
mod streamable;
mod tls;

pub(crate) use app::CHOSEN_SESSION_ID;
pub use axum_adapter::{router, router_with_gauges};
pub use fair_listener::{track_connection, ConnectionSeat, FairConnection, FairListener};
pub use headers::{PROTOCOL_VERSION_HEADER, SESSION_ID_HEADER};
pub use listener::{serve_http, HttpEndpointGauges, HttpServerHandle};
pub use session::HttpSession;
pub use tls::{ClientCertificates, PemSource, TlsOptions};
