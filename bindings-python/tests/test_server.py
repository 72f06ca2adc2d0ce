"""Server behaviour over the in-memory transport: errors, cancellation, client features."""

from __future__ import annotations

import asyncio
from typing import Any

import ferromcp
import pytest
from ferromcp import Context, Server


def make_server() -> tuple[Server, dict[str, Any]]:
    server = Server("t", version="1")
    state: dict[str, Any] = {}

    @server.tool()
    def boom() -> str:
        """Always fails."""
        raise ValueError("kaput")

    @server.tool()
    def strict() -> str:
        raise ferromcp.InvalidParams("no", data={"why": 1})

    @server.tool()
    async def wait(ctx: Context) -> str:
        state["started"] = True
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            state["cancelled"] = True
            raise
        return "done"

    @server.tool()
    async def ask(ctx: Context) -> dict[str, Any]:
        roots = await ctx.list_roots()
        sampled = await ctx.sample("hi")
        answer = await ctx.elicit(
            "name?", {"type": "object", "properties": {"n": {"type": "string"}}}
        )
        return {"roots": len(roots), "model": sampled["model"], "answer": answer["content"]["n"]}

    return server, state


async def test_raise_gives_is_error_and_server_survives() -> None:
    server, _ = make_server()
    async with ferromcp.Client.memory(server) as c:
        r = await c.call_tool("boom")
        assert r["isError"] is True
        assert "kaput" in r["content"][0]["text"]
        r = await c.call_tool("strict")  # an McpError in a tool is a tool execution error too
        assert r["isError"] is True
        assert r["content"][0]["text"] == "no"
        await c.ping()


async def test_cancellation_reaches_task() -> None:
    server, state = make_server()
    async with ferromcp.Client.memory(server) as c:
        t = asyncio.ensure_future(c.call_tool("wait"))
        for _ in range(100):
            if state.get("started"):
                break
            await asyncio.sleep(0.01)
        t.cancel()
        with pytest.raises(asyncio.CancelledError):
            await t
        for _ in range(100):
            if state.get("cancelled"):
                break
            await asyncio.sleep(0.01)
        assert state.get("cancelled") is True


async def test_explicit_cancel_handle() -> None:
    server, state = make_server()
    async with ferromcp.Client.memory(server) as c:
        h = ferromcp.CancelHandle()
        t = asyncio.ensure_future(c.call_tool("wait", cancel=h))
        await asyncio.sleep(0.1)
        h.cancel()
        with pytest.raises(ferromcp.RequestCancelled):
            await t


async def test_client_features_round_trip() -> None:
    server, _ = make_server()

    def sampling(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
        return {"role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "m1"}

    async def elicitation(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
        return {"action": "accept", "content": {"n": "ada"}}

    async with ferromcp.Client.memory(
        server,
        sampling_handler=sampling,
        elicitation_handler=elicitation,
        roots=[{"uri": "file:///tmp", "name": "tmp"}],
    ) as c:
        r = await c.call_tool("ask")
        assert r["structuredContent"] == {"roots": 1, "model": "m1", "answer": "ada"}


async def test_error_classes() -> None:
    server, _ = make_server()
    async with ferromcp.Client.memory(server) as c:
        with pytest.raises(ferromcp.MethodNotFound):
            await c.request("nope/nope")
        with pytest.raises(ferromcp.McpError):
            await c.list_prompts()
    with pytest.raises(ferromcp.TransportError):
        await ferromcp.Client.stdio("/nonexistent/program").connect()


async def test_missing_client_capability_is_a_clear_tool_error() -> None:
    server = Server("t")

    @server.tool()
    async def ask(ctx: Context) -> str:
        try:
            await ctx.elicit("name?", {"type": "object", "properties": {}})
        except ferromcp.ClientCapabilityError as e:
            assert isinstance(e, ferromcp.MissingRequiredClientCapability)
            return f"caught: {e.capability} {e.method} {e.code}"
        return "asked"

    @server.tool()
    async def sample(ctx: Context) -> str:
        await ctx.sample("hi")
        return "sampled"

    @server.tool()
    async def roots(ctx: Context) -> int:
        return len(await ctx.list_roots())

    async with ferromcp.Client.memory(server) as c:
        r = await c.call_tool("ask")
        assert r["structuredContent"] == {"result": "caught: elicitation elicitation/create -32021"}
        r = await c.call_tool("sample")  # uncaught: an isError result, not a JSON-RPC error
        assert r["isError"] is True
        assert "did not declare the sampling capability" in r["content"][0]["text"]
        r = await c.call_tool("roots")
        assert r["isError"] is True and "roots" in r["content"][0]["text"]

    async def elicitation(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
        return {"action": "decline"}

    async with ferromcp.Client.memory(server, elicitation_handler=elicitation) as c:
        r = await c.call_tool("ask")
        assert r["structuredContent"] == {"result": "asked"}
