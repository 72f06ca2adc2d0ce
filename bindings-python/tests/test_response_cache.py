"""The engine's ResponseCache from Python (``ferromcp.caching.ResponseCache``, or its config
dict by name): scenario names as in core/tests/integration/response_cache.rs. The engine does
the caching; these prove the Python surface reaches it, Python handlers included."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from ferromcp import Client, Context, InvalidParams, Server
from ferromcp.caching import ResponseCache, invalidate_cache

from conftest import token_protection


def server(*layers: Any) -> tuple[Server, dict[str, int]]:
    counts = {"read": 0, "call": 0}
    s = Server("cache", middleware=list(layers))

    @s.resource("mem://a")
    def a(ctx: Context) -> str:
        counts["read"] += 1
        return f"read {counts['read']}"

    @s.tool()
    def forecast(city: str) -> str:
        counts["call"] += 1
        return f"call {counts['call']} for {city}"

    @s.tool()
    def roll() -> str:
        counts["call"] += 1
        return f"roll {counts['call']}"

    return s, counts


async def read(c: Client, uri: str) -> str:
    return str((await c.read_resource(uri))["contents"][0]["text"])


async def test_a_second_list_and_read_within_the_ttl_are_hits() -> None:
    s, counts = server(ResponseCache(60.0))
    async with Client.memory(s) as c:
        assert await read(c, "mem://a") == await read(c, "mem://a") == "read 1"
        assert counts["read"] == 1
        assert await c.list_tools() == await c.list_tools()


async def test_invalidation_makes_a_cached_answer_fresh() -> None:
    s, counts = server(ResponseCache(60.0, tools=["forecast"]))
    async with Client.memory(s) as c:
        assert await read(c, "mem://a") == await read(c, "mem://a") == "read 1"
        invalidate_cache(s, uri="mem://a")
        assert await read(c, "mem://a") == "read 2"
        invalidate_cache(s, "resources/read")
        assert await read(c, "mem://a") == "read 3"
        first = await c.call_tool("forecast", {"city": "Oslo"})
        assert await c.call_tool("forecast", {"city": "Oslo"}) == first
        invalidate_cache(s)
        assert await c.call_tool("forecast", {"city": "Oslo"}) != first
        assert await read(c, "mem://a") == await read(c, "mem://a") == "read 4"
    assert counts["read"] == 4
    with pytest.raises(ValueError, match="not both"):
        invalidate_cache(s, "resources/read", uri="mem://a")
    plain, _ = server()
    with pytest.raises(ValueError, match="no responseCache middleware"):
        invalidate_cache(plain)


async def test_tool_calls_are_cached_only_for_named_tools_by_arguments() -> None:
    s, counts = server({"name": "responseCache", "ttlMs": 60000, "tools": ["forecast"]})
    async with Client.memory(s) as c:
        first = await c.call_tool("forecast", {"city": "Oslo"})
        assert await c.call_tool("forecast", {"city": "Oslo"}) == first
        await c.call_tool("forecast", {"city": "Lima"})
        assert counts["call"] == 2
        r1 = await c.call_tool("roll", {})
        r2 = await c.call_tool("roll", {})
        assert r1 != r2


async def test_entries_expire_after_the_ttl() -> None:
    s, counts = server(ResponseCache(0.3))
    async with Client.memory(s) as c:
        first = await read(c, "mem://a")
        assert await read(c, "mem://a") == first
        await asyncio.sleep(0.5)
        assert await read(c, "mem://a") != first


async def test_list_changed_and_resource_updated_invalidate() -> None:
    s, counts = server(ResponseCache(60.0))
    async with Client.memory(s) as c:
        await read(c, "mem://a")
        s.notify_resource_updated("mem://a")
        await read(c, "mem://a")
        assert counts["read"] == 2
        before = [t["name"] for t in (await c.list_tools())["tools"]]

        @s.tool()
        def added() -> str:
            return "new"

        after = [t["name"] for t in (await c.list_tools())["tools"]]
        assert "added" in after and "added" not in before


async def test_one_session_never_gets_another_sessions_answer() -> None:
    s, counts = server(ResponseCache(60.0))
    async with Client.memory(s) as c1, Client.memory(s) as c2:
        a1 = await read(c1, "mem://a")
        a2 = await read(c2, "mem://a")
        assert a1 != a2
        assert await read(c1, "mem://a") == a1
    s, counts = server(ResponseCache(60.0, scope="shared"))
    async with Client.memory(s) as c1, Client.memory(s) as c2:
        assert await read(c1, "mem://a") == await read(c2, "mem://a")


async def test_no_cross_principal_leak_over_http() -> None:
    # The default scope is the principal: over HTTP with verified tokens, alice's two sessions
    # share her cached read, and bob, asking the same thing, never gets her answer.
    port, resource, protection = token_protection(lambda token: (f"user-{token}", []))
    reads = 0
    s = Server("cache", middleware=[ResponseCache(60.0)])

    @s.resource("mem://a")
    def a(ctx: Context) -> str:
        nonlocal reads
        reads += 1
        return f"read {reads} for {(ctx.auth or {}).get('subject')}"

    def as_(who: str) -> Client:
        return Client.http(resource, headers={"Authorization": f"Bearer {who}"})

    async with await s.serve_http("127.0.0.1", port, auth=protection):
        async with as_("alice") as alice1, as_("alice") as alice2, as_("bob") as bob:
            first = await read(alice1, "mem://a")
            assert first == "read 1 for user-alice"
            assert await read(alice2, "mem://a") == first, "alice's sessions share her entry"
            assert await read(bob, "mem://a") == "read 2 for user-bob", "bob never gets hers"
    assert reads == 2


def test_bad_options_are_refused() -> None:
    with pytest.raises(ValueError, match="ttl_seconds must be at least"):
        ResponseCache(0)
    with pytest.raises(ValueError, match="scope must be one of"):
        ResponseCache(1.0, scope="everyone")


def test_unknown_cache_options_are_refused_by_the_engine() -> None:
    with pytest.raises(InvalidParams, match="unknown field `ttl`"):
        server({"name": "responseCache", "ttlMs": 1000, "ttl": 3})
