"""The 2026-07-28 server options from Python: caching hints (``cache_ttl_ms``, ``cache_scope``,
``cache_hints``), the ``subscriptions/listen`` cap (``max_listen_streams``) and the
``requestState`` key ring (``request_state_keys``, ``request_state_replay_capacity``): each one
reaches the engine (a replica sharing the key opens another's token, one without it does not),
and a bad value fails at construction."""

from __future__ import annotations

import asyncio
import http.client
import json
import urllib.parse
from typing import Any

import pytest
from test_mrtr import ALL_CAPS, ask_name, call, meta

from ferromcp import Client, Context, McpError, Server, input_required

K1, K2 = "1f" * 32, "a0" * 32


def make_server(**options: Any) -> Server:
    server = Server("options", version="1.0.0", **options)

    @server.tool()
    def explicit(ctx: Context) -> str:
        """Asks for a name, then answers with it."""
        answer = ctx.input_response("who")
        if answer is None:
            raise input_required(ask_name(), state={"n": 1})
        return str(answer["content"]["name"])

    @server.resource("mem://plain")
    def plain() -> str:
        """A plain resource."""
        return "plain"

    return server


async def test_cache_hints_default_and_per_method() -> None:
    server = make_server(
        cache_ttl_ms=60_000,
        cache_scope="public",
        cache_hints={"tools/list": {"ttlMs": 5, "cacheScope": "private"}},
    )
    async with Client.memory(server, protocol_mode="perRequest") as c:
        tools = await c.list_tools()
        assert (tools["ttlMs"], tools["cacheScope"]) == (5, "private")
        resources = await c.list_resources()
        assert (resources["ttlMs"], resources["cacheScope"]) == (60_000, "public")
        read = await c.request("resources/read", {"uri": "mem://plain"})
        assert (read["ttlMs"], read["cacheScope"]) == (60_000, "public")
    async with Client.memory(make_server(), protocol_mode="perRequest") as c:
        tools = await c.list_tools()
        assert (tools["ttlMs"], tools["cacheScope"]) == (0, "private")


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"cache_scope": "shared"}, "unknown variant"),
        ({"cache_hints": {"tools/call": {"ttlMs": 1}}}, "has no cacheable result"),
        ({"request_state_keys": [{"id": "k1", "secret": "abcd"}]}, "must be 64 hex digits"),
        ({"request_state_replay_capacity": 0}, "must be at least 1"),
        ({"max_listen_streams": 0}, "maxListenStreams must be at least 1"),
    ],
)
def test_bad_options_fail_at_construction(options: dict[str, Any], says: str) -> None:
    with pytest.raises(McpError, match=says):
        Server("bad", **options)


def open_listen(url: str, request_id: int) -> tuple[http.client.HTTPConnection, dict[str, Any]]:
    """Opens a ``subscriptions/listen`` stream and reads its first message (the acknowledgement
    or the error); the connection stays open until closed."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=10)
    body = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "subscriptions/listen",
        "params": {"notifications": {"toolsListChanged": True}, "_meta": meta({})},
    }
    conn.request(
        "POST",
        parts.path,
        json.dumps(body),
        {
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "subscriptions/listen",
        },
    )
    resp = conn.getresponse()
    if not resp.headers.get("content-type", "").startswith("text/event-stream"):
        return conn, dict(json.loads(resp.read()))
    while True:
        line = resp.readline().decode()
        if not line:
            raise AssertionError("the stream ended before its first message")
        if line.startswith("data:") and line[5:].strip():
            return conn, dict(json.loads(line[5:]))


async def test_listen_streams_are_capped() -> None:
    server = make_server(max_listen_streams=1)
    async with await server.serve_http("127.0.0.1", 0) as h:
        first, ack = await asyncio.to_thread(open_listen, h.url, 1)
        assert ack["method"] == "notifications/subscriptions/acknowledged", ack
        second, refused = await asyncio.to_thread(open_listen, h.url, 2)
        second.close()
        assert refused["id"] == 2, refused
        assert refused["error"]["data"] == {"reason": "tooManyListenStreams", "limit": 1}, refused
        first.close()


async def test_request_state_key_ring_is_shared_between_replicas() -> None:
    a = make_server(request_state_keys=[{"id": "k1", "secret": K1}])
    b = make_server(request_state_keys=[{"id": "k2", "secret": K2}, {"id": "k1", "secret": K1}])
    c = make_server(request_state_keys=[{"id": "k2", "secret": K2}])
    answer = {"who": {"action": "accept", "content": {"name": "Ada"}}}
    async with (
        await a.serve_http("127.0.0.1", 0) as ha,
        await b.serve_http("127.0.0.1", 0) as hb,
        await c.serve_http("127.0.0.1", 0) as hc,
    ):
        state = (await call(ha.url, "explicit", ALL_CAPS))["result"]["requestState"]
        refused = await call(
            hc.url, "explicit", ALL_CAPS, inputResponses=answer, requestState=state
        )
        assert refused["error"]["data"]["reason"] == "tampered", refused
        opened = await call(hb.url, "explicit", ALL_CAPS, inputResponses=answer, requestState=state)
        assert opened["result"]["content"][0]["text"] == "Ada", opened


async def test_replay_capacity_reaches_the_engine() -> None:
    server = make_server(request_state_replay_capacity=1)
    answer = {"who": {"action": "accept", "content": {"name": "Ada"}}}
    async with await server.serve_http("127.0.0.1", 0) as h:
        first = (await call(h.url, "explicit", ALL_CAPS))["result"]["requestState"]
        second = (await call(h.url, "explicit", ALL_CAPS))["result"]["requestState"]
        ok = await call(h.url, "explicit", ALL_CAPS, inputResponses=answer, requestState=first)
        assert ok["result"]["content"][0]["text"] == "Ada", ok
        full = await call(h.url, "explicit", ALL_CAPS, inputResponses=answer, requestState=second)
        assert full["error"]["data"]["reason"] == "overloaded", full
