"""Task-augmented tool calls (2025-11-25) from Python: the server runs the tool as a task, the
client polls, fetches the result, lists and cancels; the engine enforces taskSupport."""

from __future__ import annotations

import asyncio

import ferromcp
import pytest
from ferromcp import Server


def make_server() -> Server:
    server = Server("tasks", version="1")

    @server.tool(task_support="optional")
    async def slow_add(a: int, b: int) -> str:
        """Adds slowly."""
        await asyncio.sleep(0.2)
        return str(a + b)

    @server.tool(task_support="required")
    async def forever() -> str:
        await asyncio.sleep(30)
        return "never"

    @server.tool()
    def plain() -> str:
        return "plain"

    return server


async def test_task_flow_poll_result_list() -> None:
    async with ferromcp.Client.memory(make_server()) as c:
        created = await c.call_tool_as_task("slow_add", {"a": 2, "b": 3}, ttl=60)
        task_id = created["task"]["taskId"]
        assert created["task"]["status"] == "working"
        assert (await c.get_task(task_id))["status"] in ("working", "completed")
        result = await c.get_task_result(task_id)
        assert result["content"][0]["text"] == "5"
        assert result["_meta"]["io.modelcontextprotocol/related-task"]["taskId"] == task_id
        assert (await c.get_task(task_id))["status"] == "completed"
        listed = await c.list_tasks()
        assert [t["taskId"] for t in listed["tasks"]] == [task_id]


async def test_cancel_and_task_support_rules() -> None:
    async with ferromcp.Client.memory(make_server()) as c:
        created = await c.call_tool_as_task("forever")
        task_id = created["task"]["taskId"]
        cancelled = await c.cancel_task(task_id)
        assert cancelled["status"] == "cancelled"
        with pytest.raises(ferromcp.InvalidParams):
            await c.cancel_task(task_id)  # already terminal
        with pytest.raises(ferromcp.InvalidParams):
            await c.get_task("no-such-task")
        with pytest.raises(ferromcp.MethodNotFound):
            await c.call_tool("forever")  # taskSupport: required
        with pytest.raises(ferromcp.MethodNotFound):
            await c.call_tool_as_task("plain")  # taskSupport absent: forbidden


def test_task_support_value_is_checked() -> None:
    server = Server("bad", version="1")
    with pytest.raises(ValueError):
        server.tool(task_support="sometimes")(lambda: "x")
