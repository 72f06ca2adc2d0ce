"""Streamable HTTP: a server in this process (serve_http) and the ferromcp client over HTTP."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from ferromcp import Client, Context, Server


def make_server() -> Server:
    server = Server("http-test", version="1.0.0")

    @server.tool()
    async def add(a: int, b: int, ctx: Context) -> int:
        """Adds."""
        await ctx.report_progress(1, 2, "half")
        await ctx.info("adding")
        return a + b

    @server.resource("mem://greeting", mime_type="text/plain")
    def greeting() -> str:
        """Greeting."""
        return "hello"

    return server


@pytest.mark.parametrize(
    "options",
    [{}, {"stateless": True}, {"json_response": True}],
    ids=["sse", "stateless", "json"],
)
async def test_http_roundtrip(options: dict[str, Any]) -> None:
    server = make_server()
    async with await server.serve_http("127.0.0.1", 0, **options) as http:
        assert http.url.endswith("/mcp") and http.port > 0
        notes: list[tuple[str, Any]] = []
        progress: list[float] = []
        async with Client.http(http.url, on_notification=lambda m, p: notes.append((m, p))) as c:
            r = await c.call_tool(
                "add", {"a": 2, "b": 3}, progress=lambda p, t, m: progress.append(p)
            )
            assert r["content"][0]["text"] == "5"
            read = await c.read_resource("mem://greeting")
            assert read["contents"][0]["text"] == "hello"
            if not options.get("json_response"):
                await asyncio.sleep(0.1)
                assert progress == [1]
                assert any(m == "notifications/message" for m, _ in notes)


async def test_http_subscription_update() -> None:
    server = make_server()
    async with await server.serve_http("127.0.0.1", 0) as http:
        updates: list[Any] = []
        got = asyncio.Event()

        def on_note(method: str, params: Any) -> None:
            if method == "notifications/resources/updated":
                updates.append(params)
                got.set()

        async with Client.http(http.url, on_notification=on_note) as c:
            await c.subscribe("mem://greeting")
            await asyncio.sleep(0.2)  # the GET stream opens after initialized
            server.notify_resource_updated("mem://greeting")
            await asyncio.wait_for(got.wait(), 5)
            assert updates[0]["uri"] == "mem://greeting"


async def test_http_headers_reach_handlers() -> None:
    server = Server("headers", version="1.0.0")

    @server.tool()
    def whoami(ctx: Context) -> str:
        """The caller's headers."""
        headers = ctx.http_headers
        return "none" if headers is None else headers.get("x-tenant", "missing")

    async with await server.serve_http("127.0.0.1", 0) as http:
        async with Client.http(http.url, headers={"x-tenant": "acme"}) as client:
            r = await client.call_tool("whoami", {})
            assert r["content"][0]["text"] == "acme"
    async with Client.memory(server) as client:
        r = await client.call_tool("whoami", {})
        assert r["content"][0]["text"] == "none"
