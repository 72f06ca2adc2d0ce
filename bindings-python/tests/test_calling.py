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


def test_a_forked_child_serves_handlers() -> None:
    """The binding's threads (tokio runtime, sync-handler pool) are not in a forked child: it
    makes its own on first use instead of queueing work for the parent's threads forever."""
    import os
    import time

    async def call_both() -> list[str]:
        async with ferromcp.Client.memory(make_server()) as c:
            return [text(await c.call_tool("where")), text(await c.call_tool("eager", {"n": 1}))]

    assert asyncio.run(call_both())[1] == "2"  # the parent's threads exist now
    pid = os.fork()
    if pid == 0:  # the child: exit status 0 only if both handlers answered
        code = 1
        try:
            got = asyncio.run(call_both())
            code = 0 if got[1] == "2" and got[0] != threading.current_thread().name else 1
        finally:
            os._exit(code)
    deadline = time.monotonic() + 30
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            raise AssertionError("the forked child did not answer within 30 s")
        time.sleep(0.05)
    assert os.waitstatus_to_exitcode(status) == 0
