"""Pydantic models as tool arguments and results (when pydantic is installed)."""

from __future__ import annotations

import ferromcp
import pytest
from ferromcp import Server

pydantic = pytest.importorskip("pydantic")


class Point(pydantic.BaseModel):
    x: int
    y: int = 0


class Sum(pydantic.BaseModel):
    total: int


def make_server() -> Server:
    server = Server("pyd", version="1")

    @server.tool()
    def add_point(p: Point) -> Sum:
        """Adds the coordinates of a point."""
        assert isinstance(p, Point)
        return Sum(total=p.x + p.y)

    return server


async def test_pydantic_schema_validation_and_structured_output() -> None:
    async with ferromcp.Client.memory(make_server()) as c:
        tools = await c.list_all_tools()
        tool = next(t for t in tools if t["name"] == "add_point")
        # pydantic's shape: the model is a $ref into the document's $defs.
        assert tool["inputSchema"]["properties"]["p"] == {"$ref": "#/$defs/Point"}
        assert "x" in tool["inputSchema"]["$defs"]["Point"]["properties"]
        assert tool["outputSchema"]["type"] == "object"
        r = await c.call_tool("add_point", {"p": {"x": 2, "y": 3}})
        assert r["structuredContent"] == {"total": 5}
        # Arguments the schema refuses: a tool execution error the model can read (SEP-1303).
        bad = await c.call_tool("add_point", {"p": {"x": "two"}})
        assert bad["isError"] is True
        assert bad["content"][0]["text"].startswith('Invalid arguments of tool "add_point":')
