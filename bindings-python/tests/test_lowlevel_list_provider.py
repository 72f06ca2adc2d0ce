"""The low-level server's paging list handlers answered through the engine's list provider
(``embed/src/list_provider.rs``): what is not a page is refused by the engine with a message
naming the handler, a cursor that is not a string is refused before the handler runs, and a
call never passes through Python's list code."""

from __future__ import annotations

from typing import Any

import pytest

import ferromcp
import ferromcp.types as types
from ferromcp.lowlevel import Server

calls: list[Any] = []


async def not_a_page(ctx: Any, params: Any) -> Any:
    """A page as the server starts (its tools are registered from it), then no page."""
    if ctx.request_id is None:
        return await paged(ctx, params)
    return {"items": []}


async def paged(ctx: Any, params: Any) -> types.ListToolsResult:
    calls.append(params.cursor)
    tool = types.Tool(name="t", input_schema={"type": "object"})
    return types.ListToolsResult(tools=[tool], next_cursor=None)


async def call_tool(ctx: Any, params: Any) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text="ok")])


async def test_an_answer_that_is_not_a_page_is_refused_by_the_engine() -> None:
    server = Server("bad", on_list_tools=paged, lists_per_request=True)
    async with ferromcp.Client.memory(server) as c:
        assert [t["name"] for t in (await c.list_tools())["tools"]] == ["t"]
    broken = Server("bad", on_list_tools=not_a_page, lists_per_request=True)
    with pytest.raises(ferromcp.McpError) as e:
        async with ferromcp.Client.memory(broken) as c:
            await c.list_tools()
    assert e.value.code == -32603
    assert 'the tools/list handler returned a result without a "tools" list' in e.value.message


async def test_a_cursor_that_is_not_a_string_never_reaches_the_handler() -> None:
    server = Server("cursor", on_list_tools=paged, on_call_tool=call_tool, lists_per_request=True)
    async with ferromcp.Client.memory(server) as c:
        calls.clear()
        with pytest.raises(ferromcp.InvalidParams, match="cursor must be a string"):
            await c.request("tools/list", {"cursor": 5})
        assert calls == []
        assert (await c.call_tool("t", {}))["content"][0]["text"] == "ok"
        assert calls == []
