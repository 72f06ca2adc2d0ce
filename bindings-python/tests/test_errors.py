"""Errors a user can see: logged tracebacks, decorators without parentheses, duplicates."""

from __future__ import annotations

import logging
import sys
import textwrap
from pathlib import Path

import ferromcp
import pytest
from ferromcp import Server


async def test_tool_exception_is_logged_with_traceback(caplog: pytest.LogCaptureFixture) -> None:
    server = Server("t")

    def helper() -> None:
        raise ValueError("kaput")

    @server.tool()
    def boom() -> str:
        helper()
        return "never"

    @server.tool()
    async def aboom() -> str:
        raise KeyError("missing")

    with caplog.at_level(logging.ERROR, logger="ferromcp"):
        async with ferromcp.Client.memory(server) as c:
            r = await c.call_tool("boom")
            assert r["isError"] is True
            assert r["content"][0]["text"] == "ValueError: kaput"
            r = await c.call_tool("aboom")
            assert r["isError"] is True
    records = [r for r in caplog.records if r.name == "ferromcp"]
    assert len(records) == 2
    assert "boom" in records[0].getMessage()
    assert records[0].exc_info is not None
    assert "helper" in caplog.text  # the traceback reaches the handler's frames
    assert "KeyError" in caplog.text


async def test_resource_and_prompt_exceptions_are_logged(caplog: pytest.LogCaptureFixture) -> None:
    server = Server("t")

    @server.resource("r://x")
    def res() -> str:
        raise RuntimeError("resource broke")

    @server.prompt()
    def pr() -> str:
        raise RuntimeError("prompt broke")

    with caplog.at_level(logging.ERROR, logger="ferromcp"):
        async with ferromcp.Client.memory(server) as c:
            with pytest.raises(ferromcp.McpError):
                await c.read_resource("r://x")
            with pytest.raises(ferromcp.McpError):
                await c.get_prompt("pr")
    assert "resource broke" in caplog.text
    assert "prompt broke" in caplog.text


async def test_mcp_errors_are_not_logged(caplog: pytest.LogCaptureFixture) -> None:
    server = Server("t")

    @server.tool()
    def strict() -> str:
        raise ferromcp.InvalidParams("no")

    @server.prompt()
    def strict_prompt() -> str:
        raise ferromcp.InvalidParams("not now")

    with caplog.at_level(logging.ERROR, logger="ferromcp"):
        async with ferromcp.Client.memory(server) as c:
            r = await c.call_tool("strict")  # in a tool: a tool execution error
            assert r["isError"] is True and r["content"][0]["text"] == "no"
            with pytest.raises(ferromcp.InvalidParams):  # elsewhere: the JSON-RPC error
                await c.get_prompt("strict_prompt")
    assert caplog.records == []


async def test_decorators_without_parentheses() -> None:
    server = Server("t")

    @server.tool
    def add(a: int, b: int) -> int:
        """Adds."""
        return a + b

    @server.prompt
    def hello(name: str) -> str:
        return f"hi {name}"

    assert add(1, 2) == 3  # the function is returned unchanged
    async with ferromcp.Client.memory(server) as c:
        (tool,) = await c.list_all_tools()
        assert tool["name"] == "add" and tool["description"] == "Adds."
        assert (await c.call_tool("add", {"a": 1, "b": 2}))["structuredContent"] == {"result": 3}
        r = await c.get_prompt("hello", {"name": "x"})
        assert r["messages"][0]["content"]["text"] == "hi x"


def test_resource_without_uri_raises() -> None:
    server = Server("t")
    with pytest.raises(TypeError, match="URI"):

        @server.resource  # type: ignore[arg-type]
        def r() -> str:
            return ""


def test_duplicate_names_raise() -> None:
    server = Server("t")

    @server.tool()
    def a() -> str:
        return ""

    def b() -> str:
        return ""

    with pytest.raises(ValueError, match="'a' is already registered"):
        server.tool(name="a")(b)

    server.remove_tool("a")
    server.add_tool(b, name="a")  # free again after removal

    @server.prompt()
    def p() -> str:
        return ""

    with pytest.raises(ValueError, match="already registered"):
        server.prompt(name="p")(b)

    @server.resource("r://x")
    def r() -> str:
        return ""

    with pytest.raises(ValueError, match="already registered"):
        server.resource("r://x")(b)


async def test_resource_parameters_must_match_the_uri() -> None:
    server = Server("t")
    with pytest.raises(ValueError, match="no parameter for the URI variable"):

        @server.resource("items://{id}")
        def item(item_id: str) -> str:
            return item_id

    with pytest.raises(ValueError, match="not URI variables"):

        @server.resource("static://x")
        def needs(arg: str) -> str:
            return arg

    @server.resource("repo://{owner}/{+path}{?ref,depth}")
    def ok(owner: str, path: str, ref: str = "main", depth: int = 1) -> str:
        return owner

    @server.resource("any://{a}/{b}")
    def kw(**parts: str) -> str:
        return ",".join(parts)

    async with ferromcp.Client.memory(server) as c:
        assert (await c.read_resource("any://x/y")).text == "a,b"
        assert (await c.read_resource("repo://me/src/lib.rs?ref=dev")).text == "me"


async def test_a_servers_own_minus_32000_is_an_mcp_error_not_a_closed_connection(
    tmp_path: Path,
) -> None:
    script = tmp_path / "server.py"
    script.write_text(
        textwrap.dedent(
            """
            import os
            import ferromcp

            server = ferromcp.Server("minus-32000")

            @server.prompt()
            def refuses() -> str:
                raise ferromcp.McpError("the server says no", code=-32000, data={"why": "busy"})

            @server.prompt()
            def dies() -> str:
                os._exit(0)

            server.run()
            """
        )
    )
    async with ferromcp.Client.stdio(sys.executable, [str(script)]) as c:
        with pytest.raises(ferromcp.McpError) as raised:
            await c.get_prompt("refuses")
        # The peer's answer keeps its code, but it is not the engine's own closed connection.
        assert type(raised.value) is ferromcp.McpError
        assert raised.value.code == -32000
        assert raised.value.message == "the server says no"
        assert raised.value.data == {"why": "busy"}
        # A connection that really closes is still ConnectionClosed.
        with pytest.raises(ferromcp.ConnectionClosed):
            await c.get_prompt("dies")
