"""Typed client results (still the wire dicts)."""

from __future__ import annotations

from typing import Any

import ferromcp
from ferromcp import CallToolResult, GetPromptResult, ReadResourceResult, Server, Tool


def make_server() -> Server:
    server = Server("t")

    @server.tool(description="Adds.")
    def add(a: int, b: int) -> int:
        return a + b

    @server.tool()
    def point() -> dict[str, Any]:
        return {"x": 1}

    @server.tool()
    def fail() -> str:
        raise RuntimeError("no")

    @server.resource("r://bin")
    def binary() -> bytes:
        return b"\x01\x02"

    @server.resource("r://txt")
    def txt() -> str:
        return "hello"

    @server.prompt(description="Greets.")
    def greet(name: str, times: int = 1) -> str:
        return " ".join([f"hi {name}"] * times)

    return server


async def test_typed_results() -> None:
    async with ferromcp.Client.memory(make_server()) as c:
        tools = {t.name: t for t in await c.list_all_tools()}
        add = tools["add"]
        assert isinstance(add, Tool)
        assert add.description == "Adds."
        assert add.input_schema["required"] == ["a", "b"]
        assert add.output_schema is not None and add.annotations == {}
        page = await c.list_tools()
        assert all(isinstance(t, Tool) for t in page["tools"])

        r = await c.call_tool("add", {"a": 1, "b": 2})
        assert isinstance(r, CallToolResult)
        assert r.data == 3 and r.structured_content == {"result": 3}
        assert r.text == "3" and r.is_error is False
        assert r["content"][0]["text"] == "3"  # still the wire dict
        r = await c.call_tool("point")
        assert r.data == {"x": 1}
        r = await c.call_tool("fail")
        assert r.is_error is True and r.data is None
        assert r.text == "RuntimeError: no"

        res = await c.read_resource("r://bin")
        assert isinstance(res, ReadResourceResult)
        assert res.blob == b"\x01\x02" and res.text == ""
        assert (await c.read_resource("r://txt")).text == "hello"

        p = await c.get_prompt("greet", {"name": "ada", "times": 2})
        assert isinstance(p, GetPromptResult)
        assert p.messages[0]["content"]["text"] == "hi ada hi ada"
