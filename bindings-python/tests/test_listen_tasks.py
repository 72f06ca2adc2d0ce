"""The tasks extension from the client's options and its listen (2026-07-28), against a real
ferromcp server over Streamable HTTP: ``client.listen(task_ids=[...])`` gets the
``notifications/tasks`` of a task started with ``call_tool_as_task`` up to its terminal state
(an id the server does not run is left out of the acknowledgement), and
``Client(tasks_extension=False)`` does not declare the extension: the server answers the call
itself instead of making a task of it, and refuses a listen naming ``task_ids`` with -32021."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from ferromcp import Client, ClientCapabilityError, Server
from ferromcp.listen import SUBSCRIPTION_ID_META, ListenFilter


def make_server() -> Server:
    server = Server("listen-tasks", version="1.0.0", tasks_extension=True)

    @server.tool(task_support="optional")
    async def slow(ms: int = 50) -> str:
        """Sleeps, then reports."""
        await asyncio.sleep(ms / 1000)
        return f"slept {ms} ms"

    return server


@asynccontextmanager
async def serving() -> AsyncIterator[str]:
    async with await make_server().serve_http("127.0.0.1", 0) as http:
        yield http.url


async def test_listen_with_task_ids_gets_the_task_status_notifications() -> None:
    async with serving() as url, Client.http(url, protocol_mode="perRequest") as c:
        created = await c.call_tool_as_task("slow", {"ms": 600})
        task_id = created["task"]["taskId"]
        assert not task_id.startswith("ferromcp-local-"), created
        async with c.listen(task_ids=[task_id, "no-such-task"]) as sub:
            # The server agrees to the task it runs only.
            assert sub.filter == ListenFilter(task_ids=(task_id,))
            statuses = []
            while True:
                n = await asyncio.wait_for(anext(sub), 5)
                assert n.method == "notifications/tasks", n
                assert n.params is not None
                assert n.params["taskId"] == task_id, n
                assert n.params["_meta"][SUBSCRIPTION_ID_META] == sub.id
                statuses.append(n.params["status"])
                if n.params["status"] == "completed":
                    assert n.params["result"]["content"][0]["text"] == "slept 600 ms"
                    break
                assert n.params["status"] == "working", n
            # The current state first, then the change to the terminal state.
            assert statuses[0] == "working" and len(statuses) <= 3, statuses
        assert (await c.get_task(task_id))["status"] == "completed"


async def test_tasks_extension_off_is_not_declared() -> None:
    async with (
        serving() as url,
        Client.http(url, protocol_mode="perRequest") as on,
        Client.http(url, protocol_mode="perRequest", tasks_extension=False) as off,
    ):
        # Declared (the default): a slow call becomes a task of the server's.
        made = (await on.call_tool_as_task("slow", {"ms": 400}))["task"]
        assert not made["taskId"].startswith("ferromcp-local-"), made
        assert made["status"] == "working"

        # Not declared: the server answers the call itself; the client holds that answer as a
        # completed task of its own.
        held = (await off.call_tool_as_task("slow", {"ms": 400}))["task"]
        assert held["taskId"].startswith("ferromcp-local-"), held
        assert held["status"] == "completed"
        result = await off.get_task_result(held["taskId"])
        assert result["content"][0]["text"] == "slept 400 ms"
        assert (await off.call_tool("slow", {"ms": 300})).text == "slept 300 ms"

        # A listen naming task ids needs the extension declared (-32021), even for a task the
        # server runs; one without task ids is served as ever.
        with pytest.raises(ClientCapabilityError) as refused:
            await off.listen(tools_list_changed=True, task_ids=[made["taskId"]])
        assert refused.value.code == -32021
        async with off.listen(tools_list_changed=True) as sub:
            assert sub.filter == ListenFilter(tools_list_changed=True)
        async with on.listen(task_ids=[made["taskId"]]) as sub:
            assert sub.filter.task_ids == (made["taskId"],)
