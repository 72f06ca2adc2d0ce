//! How one backend's names appear through the proxy, and back: the engine's [`Namespace`]
//! (`ferromcp::client::mcp_servers`), the same rule the bindings' multi-server clients follow.
//! With several backends, tool and prompt names get the backend's name and an underscore in
//! front (`weather_forecast`) and resource URIs get it as a URI scheme prefix joined with `+`
//! (`weather+file:///data.csv`); with one backend nothing is renamed.

pub use ferromcp::client::mcp_servers::Namespace;
