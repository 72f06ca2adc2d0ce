"""An MCP Apps server over stdio: a weather dashboard declared as a ``ui://`` resource (HTML
with the app MIME type, its CSP, a permission and a border preference under ``_meta.ui``), a
tool that renders its result in that UI, and a tool only the UI may call
(``visibility=["app"]``). The tool answers text either way, saying more to a client that
renders UIs.

The same scenario as examples/rust/src/apps_server.rs, bindings-node/examples/apps_server.mts
and examples/swift's AppsServer; tests/examples/check.mjs runs all four and checks what they
declare and serve against the MCP Apps extension's own schemas.

Run it under any MCP client (it speaks on stdin/stdout): ``python apps_server.py``.
"""

from __future__ import annotations

from ferromcp import Context, Server
from ferromcp.apps import UiCsp, add_ui_resource, client_supports_ui, ui_tool

DASHBOARD = "<!doctype html><html><body><h1>Weather</h1><p id=now></p></body></html>"

server = Server("weather-apps", version="1.0.0")
add_ui_resource(
    server,
    "ui://weather/dashboard",
    DASHBOARD,
    name="dashboard",
    description="Weather dashboard",
    csp=UiCsp(connect_domains=["https://api.weather.example"]),
    permissions=["geolocation"],
    prefers_border=True,
)


@ui_tool(server, "ui://weather/dashboard", description="The weather now, shown on the dashboard.")
def get_weather(ctx: Context) -> str:
    return "Sunny (see the dashboard)" if client_supports_ui(ctx) else "Sunny, 21 °C"


@ui_tool(server, "ui://weather/dashboard", visibility=["app"])
def refresh() -> str:
    return "refreshed"


if __name__ == "__main__":
    server.run()
