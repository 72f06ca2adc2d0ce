"""Tasks the client runs for its server (2025-11-25, handshake era): ``Client(..., tasks=True)``
declares ``tasks.requests.sampling.createMessage`` / ``tasks.requests.elicitation.create`` for the
handlers it has, and a server's task-augmented request (``params.task``) is answered at once with
a ``CreateTaskResult`` while the handler runs as the task; the server reads it with ``tasks/get``
and waits for the handler's answer with ``tasks/result``. Without the option the client answers in
the request. The server is a Python one whose ``ask`` tool does the server's part. Same scenarios
as bindings-node/test/client_task_receiver.test.mjs and
bindings-swift/Tests/FerroMCPTests/ClientTaskReceiverTests.swift."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import pytest
from ferromcp import Client, Context, Server

RELATED_TASK = "io.modelcontextprotocol/related-task"

REQUESTS: dict[str, dict[str, Any]] = {
    "sampling/createMessage": {
        "messages": [{"role": "user", "content": {"type": "text", "text": "Hello?"}}],
        "maxTokens": 10,
    },
    "elicitation/create": {
        "message": "Who?",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}},
    },
}


def make_server(release: threading.Event) -> Server:
    """A server whose ``ask`` tool sends ``method`` to its client as a task (ttl 60 s), reads the
    task's state while the client's handler waits, lets the handler answer, and reports what it
    saw; a client that made no task has its answer reported as it came."""
    server = Server("task-asker", version="1.0.0")

    @server.tool()
    async def ask(method: str, ctx: Context) -> str:
        created = await ctx.request(method, {**REQUESTS[method], "task": {"ttl": 60000}})
        if "task" not in created:
            return json.dumps(
                {"answered": created, "declared": ctx.client_capabilities.get("tasks")}
            )
        task_id = created["task"]["taskId"]
        while_running = await ctx.request("tasks/get", {"taskId": task_id})
        release.set()
        result = await ctx.request("tasks/result", {"taskId": task_id})
        after = await ctx.request("tasks/get", {"taskId": task_id})
        return json.dumps(
            {
                "created": created["task"]["status"],
                "while": while_running["status"],
                "result": result,
                "related": result.get("_meta", {}).get(RELATED_TASK, {}).get("taskId") == task_id,
                "after": after["status"],
                "declared": ctx.client_capabilities.get("tasks"),
            }
        )

    return server


def handlers(release: threading.Event, seen: list[Any]) -> dict[str, Any]:
    """Sampling and elicitation handlers that record the ``task`` of their params and answer once
    the server lets them."""

    async def wait() -> None:
        while not release.is_set():
            await asyncio.sleep(0.01)

    async def sample(params: dict[str, Any], ctx: Any) -> dict[str, Any]:
        seen.append(params.get("task"))
        await wait()
        return {"role": "assistant", "content": {"type": "text", "text": "sampled"}, "model": "m"}

    async def elicit(params: dict[str, Any], ctx: Any) -> dict[str, Any]:
        seen.append(params.get("task"))
        await wait()
        return {"action": "accept", "content": {"name": "Ada"}}

    return {"sampling_handler": sample, "elicitation_handler": elicit}


def text(result: Any) -> str:
    return str(result["content"][0]["text"])


@pytest.mark.parametrize("method", ["sampling/createMessage", "elicitation/create"])
async def test_a_servers_task_augmented_request_runs_as_a_task_of_the_client(method: str) -> None:
    release = threading.Event()
    seen: list[Any] = []
    server = make_server(release)
    async with Client.memory(server, tasks=True, **handlers(release, seen)) as client:
        report = json.loads(text(await client.call_tool("ask", {"method": method})))
    assert report["created"] == "working"
    # The handler was still waiting: the task was working when the server looked.
    assert report["while"] == "working"
    if method == "sampling/createMessage":
        assert report["result"]["content"] == {"type": "text", "text": "sampled"}
    else:
        assert report["result"]["action"] == "accept"
        assert report["result"]["content"] == {"name": "Ada"}
    assert report["related"], report["result"]
    assert report["after"] == "completed"
    assert report["declared"]["requests"] == {
        "sampling": {"createMessage": {}},
        "elicitation": {"create": {}},
    }
    # The handler ran once, its params keeping the server's task.
    assert seen == [{"ttl": 60000}]


async def test_without_tasks_the_client_answers_in_the_request() -> None:
    release = threading.Event()
    seen: list[Any] = []
    release.set()  # answered in the request: nothing to wait for
    async with Client.memory(make_server(release), **handlers(release, seen)) as client:
        report = json.loads(
            text(await client.call_tool("ask", {"method": "sampling/createMessage"}))
        )
    assert report["answered"]["content"] == {"type": "text", "text": "sampled"}
    assert report["declared"] is None
    assert seen == [{"ttl": 60000}]
