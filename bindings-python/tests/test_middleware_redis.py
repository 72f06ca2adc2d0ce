"""Rate limiting shared by three Python servers on a real ``redis-server``
(``RateLimit(redis_url=...)``), the scenario of core/tests/integration/middleware_redis.rs with
its test names: one client (keyed by its address, from a proxy's ``x-forwarded-for``) sends
2026-07-28 calls to the servers in turn; once over its limit it is refused by every server with
-32004 and the same ``retryAfter``, ``limit`` and ``window`` (the bucket lives on Redis's clock),
and is allowed again after it. Another address is not affected. A Redis away lets requests
through; one back empty limits again. Needs ``redis-server`` (``scripts/setup-test-deps
--redis-only`` installs it; tests/run-python.sh does)."""

from __future__ import annotations

import asyncio
import json
import math
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from ferromcp import McpError, Server
from ferromcp.middleware import RateLimit

V = "2026-07-28"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Redis:
    """A ``redis-server`` on a free port, without persistence, that a test may kill and start
    again (empty) on the same port."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1"]
            + ["--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise RuntimeError("redis-server did not start") from None
                time.sleep(0.02)

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None


@pytest.fixture
def redis() -> Iterator[Redis]:
    if shutil.which("redis-server") is None:
        pytest.skip(
            "redis-server is not installed (scripts/setup-test-deps --redis-only installs it)"
        )
    r = Redis()
    try:
        yield r
    finally:
        r.kill()


def replica(redis_url: str) -> Server:
    """A server limiting each client address (from the proxy's ``x-forwarded-for``, trusted on
    loopback) to 3 calls per 1.5 s, its buckets on ``redis_url``."""
    server = Server(
        "mw-redis",
        version="1",
        middleware=[
            RateLimit(
                3,
                1.5,
                by=["clientAddress"],
                address_header="x-forwarded-for",
                redis_url=redis_url,
            )
        ],
    )

    @server.tool()
    def ping_tool() -> str:
        """Answers pong."""
        return "pong"

    return server


def _post(url: str, id: int, addr: str) -> dict[str, Any]:
    """One 2026-07-28 ``tools/call`` of ``ping_tool`` from client address ``addr``: the JSON-RPC
    answer, with ``"status"`` (the HTTP status) and ``"retry-after"`` (the header, if any)."""
    body = {
        "jsonrpc": "2.0",
        "id": id,
        "method": "tools/call",
        "params": {
            "name": "ping_tool",
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": V,
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "redis-test", "version": "1"},
            },
        },
    }
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": V,
        "Mcp-Method": "tools/call",
        "Mcp-Name": "ping_tool",
        "X-Forwarded-For": addr,
    }
    req = urllib.request.Request(url, json.dumps(body).encode(), headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            status, head, text = resp.status, resp.headers, resp.read().decode()
    except urllib.error.HTTPError as e:
        # A per-address limit answers before any JSON is read: 429, Retry-After, the error.
        status, head, text = e.code, e.headers, e.read().decode()
    answer: dict[str, Any]
    if head.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:] for line in text.splitlines() if line.startswith("data:")]
        answer = [m for m in map(json.loads, filter(str.strip, data)) if "id" in m][-1]
    else:
        answer = json.loads(text)
    return {**answer, "status": status, "retry-after": head.get("retry-after")}


async def call_from(url: str, id: int, addr: str) -> dict[str, Any]:
    return await asyncio.to_thread(_post, url, id, addr)


def pong(m: dict[str, Any]) -> bool:
    return bool(m.get("result", {}).get("content", [{}])[0].get("text") == "pong")


async def test_three_replicas_share_the_buckets_on_redis(redis: Redis) -> None:
    servers = [await replica(redis.url).serve_http("127.0.0.1", 0) for _ in range(3)]
    try:
        urls = [s.url for s in servers]
        # Three calls, one per server: the limit.
        for i, url in enumerate(urls):
            m = await call_from(url, i, "10.1.1.1")
            assert pong(m), f"call {i}: {m}"
        # Over the limit on every server, with the same retryAfter (within the few ms between
        # the calls).
        retries = []
        for i, url in enumerate(urls):
            m = await call_from(url, 10 + i, "10.1.1.1")
            assert m["error"]["code"] == -32004, f"server {i}: {m}"
            assert m["error"]["message"] == "Rate limited"
            assert m["error"]["data"]["limit"] == 3
            assert m["error"]["data"]["window"] == 1.5
            retry_after = float(m["error"]["data"]["retryAfter"])
            assert m["status"] == 429 and m["retry-after"] == str(math.ceil(retry_after)), m
            retries.append(retry_after)
        lo, hi = min(retries), max(retries)
        assert 0 < lo and hi <= 0.5, f"one token in 0.5 s: {retries}"
        assert hi - lo < 0.2, f"servers agree: {retries}"
        # Another client is not affected.
        assert pong(await call_from(urls[1], 20, "10.2.2.2"))
        # Allowed again after retryAfter, on any server; then over the limit again.
        await asyncio.sleep(hi + 0.05)
        m = await call_from(urls[2], 30, "10.1.1.1")
        assert pong(m), m
        m = await call_from(urls[0], 31, "10.1.1.1")
        assert m["error"]["code"] == -32004, m
    finally:
        for s in servers:
            await s.close()


async def test_a_redis_away_lets_requests_through(redis: Redis) -> None:
    server = await replica(redis.url).serve_http("127.0.0.1", 0)
    try:
        assert pong(await call_from(server.url, 1, "10.3.3.3"))
        redis.kill()
        # Four calls, one over the limit: all served while the store is away.
        for id in range(2, 6):
            m = await call_from(server.url, id, "10.3.3.3")
            assert pong(m), m
        # A Redis back empty limits again once the server has reconnected.
        redis.start()
        deadline = time.monotonic() + 10
        id = 10
        while True:
            m = await call_from(server.url, id, "10.3.3.3")
            if m.get("error", {}).get("code") == -32004:
                break
            assert pong(m), m
            assert time.monotonic() < deadline, "never limited again"
            id += 1
            await asyncio.sleep(0.02)
    finally:
        await server.close()


def test_redis_url_reaches_the_engines_config() -> None:
    c = RateLimit(3, 1.5, redis_url="redis://127.0.0.1:6379/0").config()
    assert c["redisUrl"] == "redis://127.0.0.1:6379/0"
    assert "redisUrl" not in RateLimit(3, 1.5).config()
    # A configuration error: invalid params, naming the option, not repeating the URL.
    with pytest.raises(McpError, match="redisUrl is not a Redis URL") as refused:
        Server("x", middleware=[RateLimit(3, 1.5, redis_url="http://u:secret@127.0.0.1:6379")])
    assert refused.value.code == -32602
    assert "secret" not in str(refused.value)
