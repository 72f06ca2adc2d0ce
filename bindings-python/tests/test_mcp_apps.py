"""MCP Apps (``ferromcp.apps``): the scenarios of core/tests/integration/mcp_apps.rs from Python.
A client lists the tool with its ``_meta.ui.resourceUri``, reads the ``ui://`` resource with the
app MIME type and its ``_meta.ui``, and a tool sees whether the client advertised UI support
(a raw HTTP client declares it; the ferromcp client does not); bad UIs are refused at
registration."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from typing import Any

import pytest

from ferromcp import Client, Context, Server
from ferromcp.apps import (
    UI_MIME_TYPE,
    UiCsp,
    add_ui_resource,
    check_ui_resource_meta,
    client_supports_ui,
    ui_client_capability,
    ui_tool,
)

HTML = "<!doctype html><html><body><p id=t>weather</p></body></html>"


def server() -> Server:
    s = Server("apps", version="1.0")
    add_ui_resource(
        s,
        "ui://weather/dashboard",
        HTML,
        name="dashboard",
        description="Weather dashboard",
        csp=UiCsp(connect_domains=["https://api.weather.example"]),
        permissions=["geolocation"],
        prefers_border=True,
    )

    @ui_tool(s, "ui://weather/dashboard", description="Weather for a city")
    def get_weather(ctx: Context) -> str:
        return "ui" if client_supports_ui(ctx) else "text only"

    @ui_tool(s, "ui://weather/dashboard", visibility=["app"])
    def refresh() -> str:
        return "refreshed"

    return s


async def test_client_lists_the_tool_with_its_ui_resource_uri() -> None:
    async with Client.memory(server()) as c:
        tools = {t["name"]: t for t in (await c.list_tools())["tools"]}
        assert tools["get_weather"]["_meta"]["ui"] == {"resourceUri": "ui://weather/dashboard"}
        assert tools["get_weather"]["_meta"]["ui/resourceUri"] == "ui://weather/dashboard"
        assert tools["refresh"]["_meta"]["ui"]["visibility"] == ["app"]


async def test_client_reads_the_ui_resource_with_the_app_mime_type() -> None:
    async with Client.memory(server()) as c:
        listed = (await c.list_resources())["resources"][0]
        assert listed["uri"] == "ui://weather/dashboard"
        assert listed["mimeType"] == UI_MIME_TYPE
        read = (await c.read_resource("ui://weather/dashboard"))["contents"][0]
        assert read["mimeType"] == "text/html;profile=mcp-app"
        assert read["text"] == HTML
        assert read["_meta"] == {
            "ui": {
                "csp": {"connectDomains": ["https://api.weather.example"]},
                "permissions": {"geolocation": {}},
                "prefersBorder": True,
            }
        }


def _post(url: str, body: dict[str, Any], session: str | None) -> tuple[dict[str, Any], str | None]:
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    if session:
        headers["mcp-session-id"] = session
        headers["mcp-protocol-version"] = "2025-11-25"
    req = urllib.request.Request(url, json.dumps(body).encode(), headers, method="POST")
    with urllib.request.urlopen(req, timeout=10) as r:
        text = r.read().decode()
        return (json.loads(text) if text else {}), r.headers.get("mcp-session-id")


def _call_as_raw_host(url: str, capabilities: dict[str, Any]) -> str:
    """A host speaking raw JSON-RPC over HTTP: initialize with ``capabilities``, then call."""
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": capabilities,
            "clientInfo": {"name": "raw-host", "version": "1"},
        },
    }
    _, session = _post(url, init, None)
    _post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "get_weather"}}
    answer, _ = _post(url, call, session)
    return str(answer["result"]["content"][0]["text"])


async def test_capability_check_sees_a_client_that_advertises_ui() -> None:
    async with await server().serve_http("127.0.0.1", 0, json_response=True) as http:
        text = await asyncio.to_thread(_call_as_raw_host, http.url, ui_client_capability())
        assert text == "ui"


@pytest.mark.parametrize("mode", ["handshake", "perRequest"])
async def test_capability_check_sees_a_client_without_ui(mode: str) -> None:
    async with Client.memory(server(), protocol_mode=mode) as c:
        r = await c.call_tool("get_weather", {})
        assert r["content"][0]["text"] == "text only"
    async with await server().serve_http("127.0.0.1", 0, json_response=True) as http:
        assert await asyncio.to_thread(_call_as_raw_host, http.url, {}) == "text only"


def test_non_ui_uri_is_refused_at_registration() -> None:
    s = Server("x")
    with pytest.raises(ValueError, match=r'"https://a.example/ui" must use the ui:// scheme'):
        add_ui_resource(s, "https://a.example/ui", "<p>")
    with pytest.raises(ValueError, match="nothing after ui://"):
        add_ui_resource(s, "ui://", "<p>")


def test_wrong_mime_type_is_refused_at_registration() -> None:
    # A ui:// resource registered by hand (another MIME type) is not a UI a tool may name.
    s = Server("x")

    @s.resource("ui://a/b", mime_type="text/html")
    def page() -> str:
        return "<p>"

    with pytest.raises(ValueError, match="not registered on this server as a UI resource"):

        @ui_tool(s, "ui://a/b")
        def t() -> str:
            return ""


def test_tool_naming_an_unregistered_ui_is_refused_at_registration() -> None:
    s = Server("x")
    with pytest.raises(ValueError, match='tool "t" names UI resource "ui://missing/view"'):

        @ui_tool(s, "ui://missing/view")
        def t() -> str:
            return ""

    with pytest.raises(ValueError, match="must use the ui:// scheme"):

        @ui_tool(s, "https://x.example")
        def u() -> str:
            return ""


def test_malformed_ui_meta_is_refused_at_registration() -> None:
    s = Server("x")
    with pytest.raises(ValueError, match="connectDomains must be a list of non-empty strings"):
        add_ui_resource(s, "ui://a/b", "<p>", csp=UiCsp(connect_domains=[""]))
    with pytest.raises(ValueError, match="permissions.usb is not a permission"):
        add_ui_resource(s, "ui://a/c", "<p>", permissions=["usb"])
    with pytest.raises(ValueError, match="visibility must be a non-empty list"):
        add_ui_resource(s, "ui://a/d", "<p>")

        @ui_tool(s, "ui://a/d", visibility=["user"])
        def t() -> str:
            return ""

    with pytest.raises(ValueError, match="prefersBorder must be a boolean"):
        check_ui_resource_meta({"prefersBorder": "yes"})
