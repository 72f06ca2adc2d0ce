"""The client's task calls against a ferromcp server over Streamable HTTP, with the same code in
both eras: ``protocol_mode="handshake"`` (2025-11-25 tasks) and ``"perRequest"`` (2026-07-28, the
tasks extension ``io.modelcontextprotocol/tasks``): a task made, polled and its result fetched,
input asked inside a task answered by the client's elicitation handler, a cancel that stops the
tool, a failed task raising its error, and a plain ``call_tool`` the extension server made a task
of returning the tool's result."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from ferromcp import Client, Context, InternalError, InvalidParams, Server

MODES = ["handshake", "perRequest"]


def make_server(stopped: list[str]) -> Server:
    server = Server("client-tasks", version="1.0.0", tasks_extension=True)

    @server.tool(task_support="optional")
    async def slow(ms: int = 50) -> str:
        """Sleeps, then reports."""
        try:
            await asyncio.sleep(ms / 1000)
        except asyncio.CancelledError:
            stopped.append("slow")
            raise
        return f"slept {ms} ms"

    @server.tool(task_support="optional")
    async def confirm(ctx: Context) -> str:
        """Asks the client for a name while it runs."""
        await asyncio.sleep(0.05)
        answer = await ctx.elicit(
            "Name?", {"type": "object", "properties": {"name": {"type": "string"}}}
        )
        return f"{answer['action']} {answer['content']['name']}"

    @server.tool(task_support="optional")
    async def broken() -> str:
        """Fails with a JSON-RPC error."""
        await asyncio.sleep(0.05)
        raise InternalError("the backend is down")

    return server


async def elicit(params: dict[str, Any], ctx: Any) -> dict[str, Any]:
    return {"action": "accept", "content": {"name": "Ada"}}


@pytest.mark.parametrize("mode", MODES)
async def test_task_calls_in_both_eras(mode: str) -> None:
    stopped: list[str] = []
    async with await make_server(stopped).serve_http("127.0.0.1", 0) as http:
        async with Client.http(http.url, protocol_mode=mode, elicitation_handler=elicit) as c:
            assert c.protocol_version == ("2026-07-28" if mode == "perRequest" else "2025-11-25")
            created = await c.call_tool_as_task("slow", {"ms": 400}, ttl=60)
            task = created["task"]
            assert task["status"] == "working"
            assert isinstance(task["ttl"], int) and isinstance(task["pollInterval"], int)
            assert "ttlMs" not in task
            assert (await c.get_task(task["taskId"]))["status"] == "working"
            result = await c.get_task_result(task["taskId"])
            assert result["content"][0]["text"] == "slept 400 ms"
            assert (await c.get_task(task["taskId"]))["status"] == "completed"

            # Input asked inside the task: answered with the elicitation handler.
            created = await c.call_tool_as_task("confirm")
            result = await c.get_task_result(created["task"]["taskId"])
            assert result["content"][0]["text"] == "accept Ada"

            # An McpError raised by the tool: with the extension the task ends failed and the
            # result call raises it; a 2025-11-25 task keeps the ordinary call's isError result.
            created = await c.call_tool_as_task("broken")
            if mode == "perRequest":
                with pytest.raises(InternalError, match="the backend is down"):
                    await c.get_task_result(created["task"]["taskId"])
            else:
                failed = await c.get_task_result(created["task"]["taskId"])
                assert failed["isError"] is True
                assert "the backend is down" in failed["content"][0]["text"]

            # Cancel: the tool stops, the task ends cancelled, its result is InvalidParams.
            created = await c.call_tool_as_task("slow", {"ms": 20000})
            task_id = created["task"]["taskId"]
            await asyncio.sleep(0.1)
            assert (await c.cancel_task(task_id))["status"] == "cancelled"
            with pytest.raises(InvalidParams):
                await c.get_task_result(task_id)
            for _ in range(100):
                if stopped:
                    break
                await asyncio.sleep(0.02)
            assert stopped == ["slow"]


async def test_plain_calls_follow_the_servers_task() -> None:
    async with await make_server([]).serve_http("127.0.0.1", 0) as http:
        async with Client.http(
            http.url, protocol_mode="perRequest", elicitation_handler=elicit
        ) as c:
            assert (await c.call_tool("slow", {"ms": 300})).text == "slept 300 ms"
            assert (await c.call_tool("confirm")).text == "accept Ada"
