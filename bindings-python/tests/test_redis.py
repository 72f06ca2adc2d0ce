"""Scale-out (issue 17): ``serve_http(redis_url=...)`` keeps the sessions on Redis, so two
servers on the same Redis serve one session: initialized on one, called on the other. Needs
``redis-server`` (``scripts/setup-test-deps --redis-only`` installs it)."""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from ferromcp import InternalError, InvalidParams, Server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def redis_port() -> Iterator[int]:
    if shutil.which("redis-server") is None:
        pytest.skip(
            "redis-server is not installed (scripts/setup-test-deps --redis-only installs it)"
        )
    port = free_port()
    proc = subprocess.Popen(
        [
            "redis-server",
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ],
        stdout=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("redis-server did not start") from None
                time.sleep(0.02)
        yield port
    finally:
        proc.kill()
        proc.wait()


def redis_cli(port: int, *args: str) -> str:
    out = subprocess.run(
        ["redis-cli", "-p", str(port), *args], check=True, capture_output=True, text=True
    )
    return out.stdout.strip()


def make_server() -> Server:
    server = Server("replica", version="1.0.0")

    @server.tool()
    def add(a: int, b: int) -> int:
        """Adds."""
        return a + b

    return server


def post(url: str, message: dict[str, Any], session: str | None) -> tuple[dict[str, str], Any]:
    """One JSON-RPC POST; the answer from a JSON body or the SSE stream's data line."""
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-11-25",
    }
    if session is not None:
        headers["Mcp-Session-Id"] = session
    req = urllib.request.Request(url, json.dumps(message).encode(), headers, method="POST")
    with urllib.request.urlopen(req, timeout=10) as resp:
        head = {k.lower(): v for k, v in resp.headers.items()}
        body = resp.read().decode()
    if not body:
        return head, None
    if head.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:].strip() for line in body.splitlines() if line.startswith("data:")]
        return head, json.loads([d for d in data if d][-1])
    return head, json.loads(body)


async def test_a_session_initialized_on_one_server_is_served_by_the_other(redis_port: int) -> None:
    url = f"redis://127.0.0.1:{redis_port}/0"
    one = await make_server().serve_http("127.0.0.1", 0, redis_url=url)
    two = await make_server().serve_http("127.0.0.1", 0, redis_url=url)
    async with one, two:
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
        head, answer = await asyncio.to_thread(post, one.url, init, None)
        assert answer["result"]["serverInfo"]["name"] == "replica"
        session = head["mcp-session-id"]
        # The session's state is in Redis, under the store's key.
        assert redis_cli(redis_port, "EXISTS", f"ferromcp:s:{session}") == "1"
        initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        await asyncio.to_thread(post, two.url, initialized, session)
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": 2, "b": 3}},
        }
        _, answer = await asyncio.to_thread(post, two.url, call, session)
        assert answer["result"]["content"][0]["text"] == "5", answer
        _, answer = await asyncio.to_thread(post, one.url, {**call, "id": 3}, session)
        assert answer["result"]["content"][0]["text"] == "5", answer


async def test_a_bad_redis_url_is_invalid_params() -> None:
    with pytest.raises(InvalidParams, match="redisUrl"):
        await make_server().serve_http("127.0.0.1", 0, redis_url="http://127.0.0.1:6379")


async def test_an_unreachable_redis_fails_the_start() -> None:
    with pytest.raises(InternalError, match="redis"):
        await make_server().serve_http("127.0.0.1", 0, redis_url=f"redis://127.0.0.1:{free_port()}")
