//! An MCP Apps server over stdio: a weather dashboard declared as a `ui://` resource (HTML
//! with the app MIME type, its CSP, a permission and a border preference under `_meta.ui`), a
//! tool that renders its result in that UI, and a tool only the UI may call
//! (`visibility: ["app"]`). The tool answers text either way, saying more to a client that
//! renders UIs. The same scenario as `examples/python/apps_server.py`,
//! `bindings-node/examples/apps_server.mts` and `examples/swift`'s `AppsServer`
//! (`tests/examples/check.mjs` drives all four and checks their output against the
//! extension's own schemas).
//!
//! Run it under any MCP client: `cargo run -p ferromcp-examples --bin apps-server`.

use ferromcp::protocol::{CallToolResult, Tool};
use ferromcp::server::apps::{
    client_supports_ui, UiCsp, UiPermissions, UiResource, UiToolMeta, Visibility,
};
use ferromcp::server::{tool_fn, Server};

/// The dashboard the host shows in its sandboxed frame.
const DASHBOARD: &str = "<!doctype html><html><body><h1>Weather</h1><p id=now></p></body></html>";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut get_weather = Tool::new("get_weather");
    get_weather.description = Some("The weather now, shown on the dashboard.".into());
    let server = Server::builder("weather-apps", "1.0.0")
        .ui_resource(
            UiResource::new("ui://weather/dashboard", "dashboard", DASHBOARD)
                .with_description("Weather dashboard")
                .with_csp(
                    UiCsp::default()
                        .with_connect_domains(vec!["https://api.weather.example".into()]),
                )
                .with_permissions(UiPermissions::default().with_geolocation(true))
                .with_prefers_border(true),
        )
        .ui_tool(
            get_weather,
            UiToolMeta::new("ui://weather/dashboard"),
            tool_fn(|_, ctx| async move {
                Ok(CallToolResult::text(if client_supports_ui(&ctx) {
                    "Sunny (see the dashboard)"
                } else {
                    "Sunny, 21 °C"
                }))
            }),
        )
        .ui_tool(
            Tool::new("refresh"),
            UiToolMeta::new("ui://weather/dashboard").with_visibility(vec![Visibility::App]),
            tool_fn(|_, _| async { Ok(CallToolResult::text("refreshed")) }),
        )
        .build()?; // a bad UI, or a tool naming a UI not registered, fails here
    server.serve_stdio().await?;
    Ok(())
}
