"""How handlers are called: sync handlers on worker threads, async ones started eagerly."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from typing import Any

import ferromcp
from ferromcp import Server

VAR: contextvars.ContextVar[str] = contextvars.ContextVar("VAR", default="unset")


def make_server() -> Server:
    server = Server("calling", version="1")

    @server.tool()
    def where() -> str:
        """Sync: runs off the event loop's thread."""
        return threading.current_thread().name

    @server.tool()
    def lazy() -> Any:
        """Sync returning a coroutine: awaited on the serving loop."""

        async def later() -> str:
            await asyncio.sleep(0)
            return "awaited"

        return later()

    @server.tool()
    async def eager(n: int) -> int:
        """Finishes without suspending."""
        return n + 1

    @server.tool()
    async def suspends(n: int) -> str:
        """Suspends several times; its context survives the switch to a task."""
        VAR.set(f"v{n}")
        await asyncio.sleep(0)
        await asyncio.sleep(0.01)
        return VAR.get()

    @server.tool()
    async def fails_eagerly() -> str:
        raise ferromcp.InvalidParams("early")

    return server


def text(r: dict[str, Any]) -> str:
    content: list[dict[str, Any]] = r["content"]
    return str(content[0]["text"])


async def test_sync_handler_runs_off_the_loop_thread() -> None:
    async with ferromcp.Client.memory(make_server()) as c:
        name = text(await c.call_tool("where"))
        assert name != threading.current_thread().name
        assert text(await c.call_tool("lazy")) == "awaited"


async def test_async_handlers_eager_and_suspending() -> None:
    async with ferromcp.Client.memory(make_server()) as c:
        assert text(await c.call_tool("eager", {"n": 1})) == "2"
        got = await asyncio.gather(*(c.call_tool("suspends", {"n": i}) for i in range(20)))
        assert [text(r) for r in got] == [f"v{i}" for i in range(20)]
        assert VAR.get() == "unset"
        r = await c.call_tool("fails_eagerly")  # an McpError in a tool: isError, as the SDKs do
        assert r["isError"] is True and text(r) == "early"
