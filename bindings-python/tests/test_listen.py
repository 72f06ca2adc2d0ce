"""``Client.listen`` (``subscriptions/listen``, 2026-07-28) against real servers, over
Streamable HTTP and over a spawned stdio server (``listen_server.py``): the subscription gets
exactly the notifications it asked for, tagged with its id, and nothing reaches
``on_notification``; closing it makes the server let go (the server allows one listen stream, so
a new listen succeeds only once the old one is gone); a handshake-era session gets -32600."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from ferromcp import Client, InvalidRequest, McpError, RequestCancelled
from ferromcp.listen import SUBSCRIPTION_ID_META, ListenFilter, Subscription

sys.path.insert(0, str(Path(__file__).parent))
from listen_server import make_server  # noqa: E402

LISTEN_SERVER = str(Path(__file__).parent / "listen_server.py")

Connect = Callable[..., Any]


@asynccontextmanager
async def http_client(**options: Any) -> AsyncIterator[Client]:
    async with await make_server().serve_http("127.0.0.1", 0) as http:
        async with Client.http(http.url, **options) as c:
            yield c


@asynccontextmanager
async def stdio_client(**options: Any) -> AsyncIterator[Client]:
    async with Client.stdio(sys.executable, [LISTEN_SERVER], **options) as c:
        yield c


CLIENTS = pytest.mark.parametrize("connect", [http_client, stdio_client], ids=["http", "stdio"])


async def open_again(c: Client) -> Subscription:
    """A new listen, retried while the server still holds the old one (its only slot)."""
    for _ in range(100):
        try:
            return await c.listen(tools_list_changed=True)
        except McpError as e:
            assert e.data and e.data.get("reason") == "tooManyListenStreams", e
            await asyncio.sleep(0.05)
    raise AssertionError("the server did not let the closed listen go within 5 s")


def assert_ended_gracefully(sub: Subscription) -> None:
    """The subscription ended gracefully: the server answered the listen request with its
    completion result (2026-07-28 "Graceful Closure") tagged with the subscription's id."""
    assert sub.ended and sub.error is None, sub.error
    assert sub.result is not None
    assert sub.result["resultType"] == "complete"
    assert sub.result["_meta"][SUBSCRIPTION_ID_META] == sub.id


@CLIENTS
async def test_listener_gets_what_it_asked_for(connect: Connect) -> None:
    seen: list[str] = []
    async with connect(protocol_mode="auto", on_notification=lambda m, _p: seen.append(m)) as c:
        assert c.protocol_version == "2026-07-28"
        async with c.listen(tools_list_changed=True, resource_subscriptions=["mem://a"]) as sub:
            assert isinstance(sub.id, (int, str))
            assert sub.filter == ListenFilter(
                tools_list_changed=True, resource_subscriptions=("mem://a",)
            )
            assert not sub.ended and sub.result is None and sub.error is None
            # The server's only listen slot is taken.
            with pytest.raises(McpError) as busy:
                await c.listen(prompts_list_changed=True)
            assert busy.value.data["reason"] == "tooManyListenStreams"

            assert (await c.call_tool("change")).text == "changed"
            n1 = await asyncio.wait_for(anext(sub), 5)
            n2 = await asyncio.wait_for(anext(sub), 5)
            assert n1.method == "notifications/tools/list_changed"
            assert n2.method == "notifications/resources/updated"
            assert n2.params is not None and n2.params["uri"] == "mem://a"
            for n in (n1, n2):
                assert n.params is not None
                assert n.params["_meta"][SUBSCRIPTION_ID_META] == sub.id
            # Neither the prompt change nor the other resource's update, nor a copy elsewhere.
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(anext(sub), 0.3)
            assert seen == []
        # Closed at the end of the block: iteration is over, the server lets go.
        assert sub.ended
        assert isinstance(sub.error, RequestCancelled)
        assert [n async for n in sub] == []
        again = await open_again(c)
        await again.aclose()


@CLIENTS
async def test_aclose_stops_a_waiting_iteration(connect: Connect) -> None:
    async with connect(protocol_mode="auto") as c:
        sub = await c.listen(tools_list_changed=True)
        got: list[Any] = []

        async def read() -> None:
            async for n in sub:
                got.append(n)

        reader = asyncio.create_task(read())
        await asyncio.sleep(0.1)
        await sub.aclose()
        await asyncio.wait_for(reader, 5)
        assert got == [] and isinstance(sub.error, RequestCancelled)
        again = await open_again(c)
        await again.aclose()


@CLIENTS
async def test_handshake_era_points_to_subscribe(connect: Connect) -> None:
    async with connect(protocol_mode="handshake") as c:
        with pytest.raises(InvalidRequest) as e:
            await c.listen(tools_list_changed=True)
        assert e.value.code == -32600
        assert "subscribe()" in str(e.value)
        assert len(await c.list_all_tools()) == 1


async def test_server_shutdown_ends_the_subscription_gracefully() -> None:
    """The HTTP server shutting down answers the open listen with its completion result: the
    iteration ends and ``sub.result`` (not ``sub.error``) says so."""
    http = await make_server().serve_http("127.0.0.1", 0)
    async with Client.http(http.url, protocol_mode="auto") as c:
        sub = await c.listen(tools_list_changed=True)
        reader = asyncio.ensure_future(sub.__anext__())
        await asyncio.wait_for(http.close(), 10)
        with pytest.raises(StopAsyncIteration):
            await asyncio.wait_for(reader, 10)
        assert_ended_gracefully(sub)


@pytest.mark.parametrize("mode", ["--stop-tool", "--async-stop-tool", "--cancel-tool"])
async def test_stdio_server_stop_ends_the_subscription_gracefully(mode: str) -> None:
    """A stdio server stopped by one of its tools (``Server.stop()`` under ``run()`` or
    ``run_stdio_async()``, or its serving task cancelled) answers the open listen with its
    completion result, and the stopping call itself is answered."""
    async with Client.stdio(sys.executable, [LISTEN_SERVER, mode], protocol_mode="auto") as c:
        assert c.protocol_version == "2026-07-28"
        sub = await c.listen(tools_list_changed=True)
        reader = asyncio.ensure_future(sub.__anext__())
        stopped = await asyncio.wait_for(c.call_tool("stop"), 10)
        assert stopped.text == "stopping"
        with pytest.raises(StopAsyncIteration):
            await asyncio.wait_for(reader, 10)
        assert_ended_gracefully(sub)
