//! `ferromcp._native`: the PyO3 glue between the ferromcp engine and the `ferromcp` Python
//! package. Python code should use the facade (`ferromcp.Server`, `ferromcp.Client`); this
//! module's API is private and may change.
//!
//! Handlers are pulled by Python-side threads (the sync-handler pool, the asyncio loop's inbox):
//! see [`handler`], [`inbox`] and `bindings-python/README.md`.

pub mod answer_wait;
pub mod apps;
pub mod asgi;
pub mod auth;
#[cfg(feature = "cli")]
pub mod cli;
pub mod client;
pub mod compose;
pub mod convert;
pub mod engine_hooks;
pub mod error;
pub mod gil_threads;
pub mod handler;
pub mod inbox;
pub mod listen;
pub mod log_sink;
pub mod loop_slot;
pub mod mcp_servers;
pub mod middleware;
pub mod oauth_proxy;
pub mod runtime;
pub mod server;
pub mod stdio_thread;

use pyo3::prelude::*;

/// The native module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    runtime::check_settings()?;
    m.add_class::<server::NativeServer>()?;
    m.add_class::<server::NativeHttpServer>()?;
    m.add_class::<server::NativeStdioRun>()?;
    m.add_class::<asgi::NativeHttpHandler>()?;
    m.add_class::<asgi::NativeHttpResponse>()?;
    m.add_class::<client::NativeClient>()?;
    m.add_class::<client::NativeCancel>()?;
    m.add_class::<listen::NativeSubscription>()?;
    m.add_class::<handler::NativeContext>()?;
    m.add_class::<handler::Responder>()?;
    m.add_class::<middleware::NativeNext>()?;
    m.add("ENGINE_VERSION", env!("CARGO_PKG_VERSION"))?;
    let codes = pyo3::types::PyDict::new(m.py());
    for c in ferromcp_embed::ERROR_CODES {
        codes.set_item(c.name, c.code)?;
    }
    m.add("ERROR_CODES", codes)?;
    m.add_function(wrap_pyfunction!(server::shape_tool_result, m)?)?;
    m.add_function(wrap_pyfunction!(error::set_error_factory, m)?)?;
    m.add_function(wrap_pyfunction!(compose::mount_server, m)?)?;
    m.add_function(wrap_pyfunction!(compose::import_server, m)?)?;
    m.add_function(wrap_pyfunction!(compose::add_transformed_tool, m)?)?;
    m.add_function(wrap_pyfunction!(apps::ui_add_resource, m)?)?;
    m.add_function(wrap_pyfunction!(apps::ui_tool_meta, m)?)?;
    m.add_function(wrap_pyfunction!(apps::ui_check_uri, m)?)?;
    m.add_function(wrap_pyfunction!(apps::ui_check_resource_meta, m)?)?;
    m.add_function(wrap_pyfunction!(apps::ui_capabilities_support, m)?)?;
    m.add_function(wrap_pyfunction!(apps::ui_client_capability, m)?)?;
    m.add_function(wrap_pyfunction!(apps::ui_constants, m)?)?;
    m.add_function(wrap_pyfunction!(apps::invalidate_cache, m)?)?;
    m.add_function(wrap_pyfunction!(mcp_servers::resolve_mcp_servers, m)?)?;
    m.add_function(wrap_pyfunction!(engine_hooks::add_access_predicate, m)?)?;
    m.add_function(wrap_pyfunction!(engine_hooks::add_list_provider, m)?)?;
    #[cfg(feature = "cli")]
    m.add_function(wrap_pyfunction!(cli::cli_main, m)?)?;
    m.add_class::<oauth_proxy::NativeOAuthProxy>()?;
    m.add_function(wrap_pyfunction!(oauth_proxy::create_oauth_proxy, m)?)?;
    m.add_function(wrap_pyfunction!(log_sink::set_log_threshold, m)?)?;
    m.add_function(wrap_pyfunction!(log_sink::log_threshold, m)?)?;
    // The engine's log events to `logging` (the `ferromcp` logger), from this import on.
    let bridge = m.py().import("ferromcp._logbridge")?;
    let threshold: i32 = bridge.call_method0("threshold")?.extract()?;
    log_sink::install(bridge.getattr("deliver")?.unbind(), threshold);
    bridge.call_method1("watch_levels", (m.getattr("set_log_threshold")?,))?;
    let shutdown = wrap_pyfunction!(runtime::_shutdown, m)?;
    m.add_function(shutdown.clone())?;
    m.py()
        .import("atexit")?
        .call_method1("register", (shutdown,))?;
    Ok(())
}
