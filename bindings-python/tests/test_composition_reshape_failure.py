"""A failing ``transform_output`` from Python: the engine's seam (embed/src/compose.rs)
words it once for every binding, so a Python exception reads as Node's and Swift's do, and an
``McpError`` the function raises reaches the client with its code (scenario names as in
embed/tests/integration/compose.rs)."""

from __future__ import annotations

from typing import Any

import pytest

from ferromcp import Client, InternalError, McpError, Server


def count_hits(out: dict[str, Any]) -> dict[str, int]:
    if not out["hits"]:
        raise RuntimeError("no hits to count")
    return {"count": len(out["hits"])}


async def test_a_failing_reshape_is_an_internal_error_naming_the_tool() -> None:
    s = Server("t", version="1")

    @s.tool()
    def search(q: str, limit: int = 2) -> dict[str, Any]:
        """Search."""
        return {"hits": [f"{q} {i}" for i in range(limit)]}

    s.transform_tool("search", "count", transform_output=count_hits)
    async with Client.memory(s) as c:
        r = await c.call_tool("count", {"q": "x", "limit": 3})
        assert r["structuredContent"] == {"count": 3}
        with pytest.raises(InternalError) as e:
            await c.call_tool("count", {"q": "x", "limit": 0})
        assert e.value.code == -32603
        assert e.value.message == (
            'transformOutput of tool "count" failed: RuntimeError: no hits to count'
        )


def count_few_hits(out: dict[str, Any]) -> dict[str, int]:
    if len(out["hits"]) > 5:
        raise McpError("too many hits to count", code=-32004, data={"limit": 5})
    return {"count": len(out["hits"])}


async def test_an_mcp_error_raised_by_the_reshape_reaches_the_client_with_its_code() -> None:
    s = Server("t", version="1")

    @s.tool()
    def search(q: str, limit: int = 2) -> dict[str, Any]:
        """Search."""
        return {"hits": [f"{q} {i}" for i in range(limit)]}

    s.transform_tool("search", "count", transform_output=count_few_hits)
    async with Client.memory(s) as c:
        with pytest.raises(McpError) as e:
            await c.call_tool("count", {"q": "x", "limit": 6})
        assert e.value.code == -32004
        assert e.value.message == "too many hits to count"
        assert e.value.data == {"limit": 5}
