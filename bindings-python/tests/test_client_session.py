"""``ferromcp.ClientSession`` and its transports (the official SDK's client API, ported by
changing the imports) against a ferromcp server over stdio: the SDK's result models, errors and
callbacks. tests/test_sdk_client_examples.py runs the SDK's own client snippets with it."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

import ferromcp.types as types
import pytest
from ferromcp import ClientSession, McpError, StdioServerParameters
from ferromcp.client.context import ClientRequestContext
from ferromcp.client.sse import sse_client
from ferromcp.client.stdio import stdio_client
from ferromcp.client.streamable_http import streamable_http_client
from ferromcp.errors import MCPError, UrlElicitationRequiredError
from ferromcp.shared.metadata_utils import get_display_name

SERVER = textwrap.dedent(
    """
    from ferromcp import Context, Server, UrlElicitationRequiredError
    from ferromcp.types import ElicitRequestURLParams

    mcp = Server("session-test", page_size=2)

    for i in range(5):
        mcp.tool(name=f"t{i}", title=f"Tool {i}" if i == 0 else None)(lambda: "x")

    @mcp.tool()
    def add(a: int, b: int) -> int:
        return a + b

    @mcp.tool()
    def needs_url() -> str:
        raise UrlElicitationRequiredError(
            [ElicitRequestURLParams(message="Sign in", url="https://x.test/a", elicitation_id="e1")]
        )

    @mcp.tool()
    async def ask(ctx: Context) -> str:
        try:
            r = await ctx.elicit("Name?", response_type=str)
        except Exception as e:
            return f"{type(e).__name__} {getattr(e, 'code', None)}: {e}"
        return f"{r.action} {r.data}"

    @mcp.resource("mem://note", mime_type="text/plain")
    def note() -> str:
        return "hello"

    @mcp.prompt()
    def greet(name: str) -> str:
        return f"Hi {name}"

    mcp.run()
    """
)


@pytest.fixture
def params(tmp_path: Path) -> StdioServerParameters:
    path = tmp_path / "server.py"
    path.write_text(SERVER)
    return StdioServerParameters(command=sys.executable, args=[str(path)])


async def test_results_are_the_sdk_models(params: StdioServerParameters) -> None:
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.server_info.name == "session-test"
            r = await session.call_tool("add", {"a": 2, "b": 3})
            assert isinstance(r.content[0], types.TextContent) and r.content[0].text == "5"
            assert r.structured_content == {"result": 5} and r.is_error is False
            read_result = await session.read_resource("mem://note")
            assert isinstance(read_result.contents[0], types.TextResourceContents)
            assert read_result.contents[0].text == "hello"
            prompt = await session.get_prompt("greet", {"name": "Ada"})
            assert isinstance(prompt.messages[0].content, types.TextContent)
            assert prompt.messages[0].content.text == "Hi Ada"


async def test_lists_are_paged_with_paginated_request_params(
    params: StdioServerParameters,
) -> None:
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            names: list[str] = []
            cursor = None
            pages = 0
            while True:
                page = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor))
                pages += 1
                names += [t.name for t in page.tools]
                if page.next_cursor is None:
                    break
                cursor = page.next_cursor
            assert pages == 4 and len(names) == 8
            first = (await session.list_tools()).tools[0]
            assert isinstance(first, types.Tool) and get_display_name(first) == "Tool 0"


async def test_a_json_rpc_error_raises_mcp_error_with_its_error_data(
    params: StdioServerParameters,
) -> None:
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            with pytest.raises(MCPError) as e:
                await session.call_tool("needs_url", {})
            assert e.value.code == types.URL_ELICITATION_REQUIRED
            assert isinstance(e.value.error, types.ErrorData)
            url_error = UrlElicitationRequiredError.from_error(e.value.error)
            [elicitation] = url_error.elicitations
            assert (elicitation.url, elicitation.elicitation_id) == ("https://x.test/a", "e1")


async def test_an_elicitation_callback_answers_or_returns_error_data(
    params: StdioServerParameters,
) -> None:
    seen: list[Any] = []

    async def accept(ctx: ClientRequestContext, p: types.ElicitRequestParams) -> Any:
        seen.append((type(ctx.session).__name__, type(p).__name__, p.message))
        return types.ElicitResult(action="accept", content={"value": "Ada"})

    async def refuse(ctx: ClientRequestContext, p: types.ElicitRequestParams) -> Any:
        return types.ErrorData(code=types.INVALID_REQUEST, message="no forms here")

    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, elicitation_callback=accept) as session:
            await session.initialize()
            assert (await session.call_tool("ask", {})).content[0].text == "accept Ada"
    assert seen == [("ClientSession", "ElicitRequestFormParams", "Name?")]
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, elicitation_callback=refuse) as session:
            await session.initialize()
            text = (await session.call_tool("ask", {})).content[0].text
            assert text == "InvalidRequest -32600: no forms here"


async def test_a_session_needs_what_a_ferromcp_transport_yields() -> None:
    with pytest.raises(TypeError, match="stdio_client"):
        ClientSession(object(), object())
    async with streamable_http_client("http://127.0.0.1:9/mcp") as (read, write):
        session = ClientSession(read, write)
        with pytest.raises(McpError):  # nothing listens there: the connection fails
            await session.initialize()
    async with sse_client("http://127.0.0.1:9/sse") as (read, _):
        assert "HTTP+SSE" in repr(read)
