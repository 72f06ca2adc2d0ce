"""The tasks extension ``io.modelcontextprotocol/tasks`` (2026-07-28) from Python:
``Server(tasks_extension=True)`` declares it, a ``task_support="optional"`` tool called by a
request that declares it answers with a task handle, ``ctx.input`` in it parks the task until
``tasks/update`` answers, and ``tasks/get`` inlines the result; an ``McpError`` raised in a task
ends it ``failed``, any other exception ``completed`` with ``isError``; a handler answering
``input_required`` at once keeps its multi round-trip round (no task), every time. Requests are
sent raw, as in test_mrtr.py."""

from __future__ import annotations

import asyncio
from typing import Any

from ferromcp import Context, InternalError, Server, input_required
from test_mrtr import ask_name, meta, post

EXT = "io.modelcontextprotocol/tasks"
CAPS: dict[str, Any] = {"elicitation": {}, "extensions": {EXT: {}}}


def make_server(declare: bool) -> Server:
    server = Server("tasks-ext", version="1.0.0", tasks_extension=declare)

    @server.tool(task_support="optional")
    async def slow(ms: int = 50) -> str:
        """Sleeps, then reports."""
        await asyncio.sleep(ms / 1000)
        return f"slept {ms} ms"

    @server.tool(task_support="optional")
    async def ask(ctx: Context) -> str:
        """Asks for a name while it runs as a task."""
        answers = await ctx.input(ask_name())
        return f"Hello, {answers['who']['content']['name']}!"

    @server.tool(task_support="optional")
    async def fails_mcp() -> str:
        """Fails with a JSON-RPC error."""
        await asyncio.sleep(0.05)
        raise InternalError("the backend is down")

    @server.tool(task_support="optional")
    async def throws() -> str:
        """Fails with an exception that is not an McpError."""
        await asyncio.sleep(0.05)
        raise RuntimeError("boom")

    @server.tool(task_support="required")
    def asks_first(ctx: Context) -> str:
        """Answers input_required at once (on a worker thread), then greets in a task."""
        answer = ctx.input_response("user_name")
        if answer is None:
            raise input_required(ask_name("user_name"))
        return f"Hello, {answer['content']['name']}!"

    return server


async def rpc(
    url: str, method: str, params: dict[str, Any], caps: dict[str, Any]
) -> dict[str, Any]:
    params = {**params, "_meta": meta(caps)}
    name = params.get("name", params.get("taskId"))
    return await asyncio.to_thread(post, url, method, params, name)


async def wait_for(url: str, task_id: str, status: str) -> dict[str, Any]:
    for _ in range(250):
        got = (await rpc(url, "tasks/get", {"taskId": task_id}, CAPS))["result"]
        if got["status"] == status:
            return got
        await asyncio.sleep(0.02)
    raise AssertionError(f"task {task_id} never reached {status}")


async def test_declared_and_tasks_run_to_completion() -> None:
    async with await make_server(True).serve_http("127.0.0.1", 0) as http:
        found = await rpc(http.url, "server/discover", {}, {})
        assert found["result"]["capabilities"]["extensions"] == {EXT: {}}
        # Longer than the engine's wait for a binding handler's first answer (200 ms).
        handle = (
            await rpc(http.url, "tools/call", {"name": "slow", "arguments": {"ms": 400}}, CAPS)
        )["result"]
        assert handle["resultType"] == "task" and handle["status"] == "working"
        done = await wait_for(http.url, handle["taskId"], "completed")
        assert done["result"]["content"][0]["text"] == "slept 400 ms"
        # Without the extension in the request: a plain call.
        plain = await rpc(http.url, "tools/call", {"name": "slow", "arguments": {"ms": 1}}, {})
        assert plain["result"]["resultType"] == "complete"


async def test_ctx_input_parks_the_task_until_tasks_update() -> None:
    async with await make_server(True).serve_http("127.0.0.1", 0) as http:
        handle = (await rpc(http.url, "tools/call", {"name": "ask", "arguments": {}}, CAPS))[
            "result"
        ]
        task_id = handle["taskId"]
        waiting = await wait_for(http.url, task_id, "input_required")
        assert waiting["inputRequests"]["who"]["method"] == "elicitation/create"
        answer = {"who": {"action": "accept", "content": {"name": "Ada"}}}
        ack = await rpc(
            http.url, "tasks/update", {"taskId": task_id, "inputResponses": answer}, CAPS
        )
        assert ack["result"]["resultType"] == "complete"
        done = await wait_for(http.url, task_id, "completed")
        assert done["result"]["content"][0]["text"] == "Hello, Ada!"


async def test_off_by_default() -> None:
    async with await make_server(False).serve_http("127.0.0.1", 0) as http:
        found = await rpc(http.url, "server/discover", {}, {})
        assert "extensions" not in found["result"]["capabilities"]
        plain = await rpc(http.url, "tools/call", {"name": "slow", "arguments": {"ms": 1}}, CAPS)
        assert plain["result"]["resultType"] == "complete"


async def test_an_mcp_error_fails_the_task_and_another_exception_is_a_tool_error() -> None:
    async with await make_server(True).serve_http("127.0.0.1", 0) as http:
        handle = (await rpc(http.url, "tools/call", {"name": "fails_mcp", "arguments": {}}, CAPS))[
            "result"
        ]
        failed = await wait_for(http.url, handle["taskId"], "failed")
        assert (
            failed["error"]["code"] == -32603
            and failed["error"]["message"] == "the backend is down"
        )
        assert "result" not in failed
        handle = (await rpc(http.url, "tools/call", {"name": "throws", "arguments": {}}, CAPS))[
            "result"
        ]
        done = await wait_for(http.url, handle["taskId"], "completed")
        assert done["result"]["isError"] is True
        assert done["result"]["content"][0]["text"] == "RuntimeError: boom"
        # An ordinary call answers both as tool execution errors, as in 2025-11-25.
        for name in ("fails_mcp", "throws"):
            plain = await rpc(http.url, "tools/call", {"name": name, "arguments": {}}, {})
            assert plain["result"]["isError"] is True, plain


async def test_an_immediate_input_required_keeps_its_round_every_time() -> None:
    async with await make_server(True).serve_http("127.0.0.1", 0) as http:
        for _ in range(10):
            first = (
                await rpc(http.url, "tools/call", {"name": "asks_first", "arguments": {}}, CAPS)
            )["result"]
            assert first["resultType"] == "input_required" and "taskId" not in first, first
            retry = {
                "name": "asks_first",
                "arguments": {},
                "inputResponses": {"user_name": {"action": "accept", "content": {"name": "Alice"}}},
                "requestState": first["requestState"],
            }
            second = (await rpc(http.url, "tools/call", retry, CAPS))["result"]
            assert second["resultType"] == "task", second
            done = await wait_for(http.url, second["taskId"], "completed")
            assert done["result"]["content"][0]["text"] == "Hello, Alice!"
