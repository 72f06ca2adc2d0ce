// An MCP Apps server over stdio: a weather dashboard declared as a `ui://` resource (HTML with
// the app MIME type, its CSP, a permission and a border preference under `_meta.ui`), a tool
// that renders its result in that UI, and a tool only the UI may call (`visibility: [.app]`).
// The tool answers text either way, saying more to a client that renders UIs. The same
// scenario as examples/rust/src/apps_server.rs, examples/python/apps_server.py and
// bindings-node/examples/apps_server.mts; tests/examples/check.mjs runs all four and checks
// what they declare and serve against the MCP Apps extension's own schemas.
//
//   AppsServer [--transport stdio|http] [--port N]

import ExampleSupport
import FerroMCP
import Foundation

let command = ServerCommand.parse("AppsServer")
let dashboard = "<!doctype html><html><body><h1>Weather</h1><p id=now></p></body></html>"

do {
    let server = try Server(name: "weather-apps", version: "1.0.0")
    try server.registerUIResource(
        "ui://weather/dashboard", name: "dashboard", html: dashboard, description: "Weather dashboard",
        csp: UiCsp(connectDomains: ["https://api.weather.example"]), permissions: [.geolocation],
        prefersBorder: true)
    try server.registerUITool("get_weather", resourceUri: "ui://weather/dashboard",
                              description: "The weather now, shown on the dashboard.") { _, ctx in
        .text(ctx.clientSupportsUI ? "Sunny (see the dashboard)" : "Sunny, 21 °C")
    }
    try server.registerUITool("refresh", resourceUri: "ui://weather/dashboard", visibility: [.app]) { _, _ in
        .text("refreshed")
    }
    try await command.serve(server, label: "apps-server (swift)")
} catch {
    logLine("AppsServer: \(message(of: error))")
    exit(1)
}
