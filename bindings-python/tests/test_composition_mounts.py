"""Composition scenarios of core/tests/integration/composition.rs that the other Python tests
did not have, with its test names: mounts nested two deep join their prefixes (tools and
resource URIs), a mounted server's ``notifications/resources/updated`` reaches a subscribed client
of the parent with the namespaced URI (and only for a subscribed URI), and the parent advertises
the capabilities of what it mounts. The rest of that file's mount scenarios follow under its names too (listing with the prefix,
unknown prefixed names, own items first, pages across servers, the mounted server's own
middleware, an authorization layer of the parent). Python servers and handlers on both sides."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from ferromcp import Client, InvalidParams, McpError, Server
from ferromcp.composition import Authorization


def weather() -> Server:
    """The weather server: a tool, a static resource, a template, a prompt, completions."""
    wx = Server("weather", version="1")

    @wx.tool()
    def forecast(city: str = "Oslo") -> str:
        """Forecast."""
        return f"forecast for {city}"

    @wx.resource("data://stations")
    def stations() -> str:
        """Stations."""
        return "Oslo, Lima"

    @wx.resource("weather://{city}/now")
    def now(city: str) -> str:
        """Now."""
        return f"sunny in {city}"

    @wx.prompt()
    def report(city: str) -> str:
        """Report."""
        return f"report for {city}"

    @wx.completion(prompt="report", argument="city")
    def report_cities(value: str) -> list[str]:
        return ["Bergen"]

    return wx


def main_server() -> Server:
    main = Server("main", version="1")

    @main.tool()
    def status() -> str:
        """Status."""
        return "ok"

    return main


async def all_tools(c: Client) -> list[str]:
    names: list[str] = []
    cursor: str | None = None
    while True:
        r = await c.list_tools(cursor)
        names += [t["name"] for t in r["tools"]]
        cursor = r.get("nextCursor")
        if cursor is None:
            return names


async def test_nested_mounts_join_their_prefixes() -> None:
    inner = Server("inner", version="1")

    @inner.tool()
    def deep() -> str:
        """Deep."""
        return "deep"

    @inner.resource("data://leaf")
    def leaf() -> str:
        """Leaf."""
        return "leaf text"

    middle = Server("middle", version="1")
    middle.mount("in", inner)
    main = main_server()
    main.mount("mid", middle)
    async with Client.memory(main) as c:
        assert await all_tools(c) == ["status", "mid_in_deep"]
        r = await c.call_tool("mid_in_deep", {})
        assert r["content"][0]["text"] == "deep"
        listed = await c.list_resources()
        assert [x["uri"] for x in listed["resources"]] == ["data://mid/in/leaf"]
        read = await c.read_resource("data://mid/in/leaf")
        assert read["contents"][0]["text"] == "leaf text"
        # The contents carry the URI the innermost server gave them (as in Rust).
        assert read["contents"][0]["uri"] == "data://leaf"


async def test_resource_updates_of_a_mounted_server_carry_the_namespaced_uri() -> None:
    main = main_server()
    wx = weather()
    main.mount("wx", wx)
    notes: list[tuple[str, Any]] = []
    got = asyncio.Event()

    def on_notification(method: str, params: Any) -> None:
        notes.append((method, params))
        if method == "notifications/resources/updated":
            got.set()

    async with Client.memory(main, on_notification=on_notification) as c:
        await c.subscribe("data://wx/stations")
        # An update of a resource nobody subscribed to is not sent; then the subscribed one is.
        wx.notify_resource_updated("weather://Oslo/now")
        wx.notify_resource_updated("data://stations")
        await asyncio.wait_for(got.wait(), 5)
        await c.ping()  # anything still in flight arrives before the answer
    updated = [p for m, p in notes if m == "notifications/resources/updated"]
    assert updated == [{"uri": "data://wx/stations"}], notes


async def test_the_parent_advertises_what_a_mounted_server_offers() -> None:
    main = Server("empty", version="1")
    async with Client.memory(main) as c:
        bare = c.initialize_result["capabilities"]
    main = Server("empty", version="1")
    main.mount("wx", weather())
    async with Client.memory(main) as c:
        caps = c.initialize_result["capabilities"]
        assert caps["tools"]["listChanged"] is True, caps
        assert isinstance(caps.get("resources"), dict), caps
        assert isinstance(caps.get("prompts"), dict), caps
        assert isinstance(caps.get("completions"), dict), caps
        assert await all_tools(c) == ["wx_forecast"]
    # What the empty server advertises on its own lacks what the mount brought.
    assert "completions" not in bare, bare


def named_tools(server: Server, *names: str) -> Server:
    for name in names:

        def run(n: str = name) -> str:
            return f"{n} ran"

        server.add_tool(run, name=name, description=name)
    return server


async def test_mounted_tools_and_prompts_are_listed_with_the_prefix() -> None:
    main = main_server()
    main.mount("weather", weather())
    async with Client.memory(main) as c:
        assert await all_tools(c) == ["status", "weather_forecast"]
        prompts = (await c.list_prompts())["prompts"]
        assert [p["name"] for p in prompts] == ["weather_report"]


async def test_unknown_prefixed_names_get_the_unknown_errors() -> None:
    main = main_server()
    main.mount("wx", weather())
    async with Client.memory(main) as c:
        with pytest.raises(InvalidParams) as e:
            await c.call_tool("wx_nothing", {})
        assert e.value.message == "Unknown tool: wx_nothing"
        # The mounted server's name without the prefix is not the parent's.
        with pytest.raises(InvalidParams) as e:
            await c.call_tool("forecast", {})
        assert e.value.message == "Unknown tool: forecast"
        with pytest.raises(McpError) as read:
            await c.read_resource("data://stations")
        assert read.value.code == -32002
        with pytest.raises(InvalidParams) as e:
            await c.get_prompt("wx_none", {})
        assert e.value.message == "Unknown prompt: wx_none"


async def test_own_items_win_over_mounted_ones_with_the_same_name() -> None:
    main = named_tools(Server("main", version="1"), "wx_forecast")
    main.mount("wx", weather())
    async with Client.memory(main) as c:
        assert await all_tools(c) == ["wx_forecast"]
        r = await c.call_tool("wx_forecast", {})
        assert r["content"][0]["text"] == "wx_forecast ran"


async def test_pages_span_own_and_mounted_items() -> None:
    main = named_tools(Server("main", version="1", page_size=2), "a", "b", "c")
    main.mount("o", named_tools(Server("other", version="1", page_size=1), "x", "y", "z"))
    async with Client.memory(main) as c:
        first = await c.list_tools()
        assert len(first["tools"]) == 2
        assert await all_tools(c) == ["a", "b", "c", "o_x", "o_y", "o_z"]


async def test_the_mounted_servers_middleware_runs_for_its_items() -> None:
    wx = named_tools(
        Server(
            "weather",
            version="1",
            middleware=[Authorization([("tool", "admin_*", ["admin"])])],
        ),
        "forecast",
        "admin_purge",
    )
    main = main_server()
    main.mount("wx", wx)
    async with Client.memory(main) as c:
        assert await all_tools(c) == ["status", "wx_forecast"]
        with pytest.raises(InvalidParams) as e:
            await c.call_tool("wx_admin_purge", {})
        assert e.value.message == "Unknown tool: wx_admin_purge"


async def test_authorization_added_before_the_mount_sees_mounted_items() -> None:
    main = named_tools(
        Server(
            "main",
            version="1",
            middleware=[Authorization([("tool", "wx_*", ["weather"])])],
        ),
        "status",
    )
    main.mount("wx", weather())
    async with Client.memory(main) as c:
        assert await all_tools(c) == ["status"]
        with pytest.raises(InvalidParams):
            await c.call_tool("wx_forecast", {})
