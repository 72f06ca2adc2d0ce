"""The tasks extension ``io.modelcontextprotocol/tasks`` (2026-07-28) from Python:
``Server(tasks_extension=True)`` declares it, a ``task_support="optional"`` tool called by a
request that declares it answers with a task handle, ``ctx.input`` in it parks the task until
``tasks/update`` answers, and ``tasks/get`` inlines the result. Requests are sent raw, as in
test_mrtr.py."""

from __future__ import annotations

import asyncio
from typing import Any

from ferromcp import Context, Server
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

    return server


async def rpc(url: str, method: str, params: dict[str, Any], caps: dict[str, Any]) -> dict[str, Any]:
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
        handle = (await rpc(http.url, "tools/call", {"name": "slow", "arguments": {"ms": 50}}, CAPS))[
            "result"
        ]
        assert handle["resultType"] == "task" and handle["status"] == "working"
        done = await wait_for(http.url, handle["taskId"], "completed")
        assert done["result"]["content"][0]["text"] == "slept 50 ms"
        # Without the extension in the request: a plain call.
        plain = await rpc(http.url, "tools/call", {"name": "slow", "arguments": {"ms": 1}}, {})
        assert plain["result"]["resultType"] == "complete"


async def test_ctx_input_parks_the_task_until_tasks_update() -> None:
    async with await make_server(True).serve_http("127.0.0.1", 0) as http:
        handle = (await rpc(http.url, "tools/call", {"name": "ask", "arguments": {}}, CAPS))["result"]
        task_id = handle["taskId"]
        waiting = await wait_for(http.url, task_id, "input_required")
        assert waiting["inputRequests"]["who"]["method"] == "elicitation/create"
        answer = {"who": {"action": "accept", "content": {"name": "Ada"}}}
        ack = await rpc(http.url, "tasks/update", {"taskId": task_id, "inputResponses": answer}, CAPS)
        assert ack["result"]["resultType"] == "complete"
        done = await wait_for(http.url, task_id, "completed")
        assert done["result"]["content"][0]["text"] == "Hello, Ada!"


async def test_off_by_default() -> None:
    async with await make_server(False).serve_http("127.0.0.1", 0) as http:
        found = await rpc(http.url, "server/discover", {}, {})
        assert "extensions" not in found["result"]["capabilities"]
        plain = await rpc(http.url, "tools/call", {"name": "slow", "arguments": {"ms": 1}}, CAPS)
        assert plain["result"]["resultType"] == "complete"
