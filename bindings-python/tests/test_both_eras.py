"""One example server, unchanged, under both protocol eras.

``examples/python/interop_server.py`` is started once over Streamable HTTP; a handshake client
(``protocol_mode="handshake"``, 2025-11-25: ``initialize``) and a per-request client
(``protocol_mode="auto"``, which must settle on 2026-07-28: ``server/discover`` and ``_meta`` on
every request) each run the interop surface (tests/interop/SURFACE.md) against that same process:
tools, progress, a log message at the level the client asked for, a tool error, resources, a
template and a prompt. The server's code knows nothing of eras; the engine answers each client in
its own.
"""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

from ferromcp import Client

from conftest import ROOT

INTEROP_SERVER = str(ROOT / "examples" / "python" / "interop_server.py")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, INTEROP_SERVER, "--transport", "http", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            assert proc.poll() is None, (
                f"server exited: {proc.stderr.read() if proc.stderr else ''!r}"
            )
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "server did not listen within 20 s"
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.kill()
        proc.wait()


async def _surface(url: str, mode: str) -> str:
    """Runs the interop surface with one client in ``mode``; returns the revision it settled on."""
    logs: list[Any] = []

    def on_notification(method: str, params: Any) -> None:
        if method == "notifications/message":
            logs.append(params)

    async with Client.http(url, protocol_mode=mode, on_notification=on_notification) as c:
        names = sorted(t["name"] for t in await c.list_all_tools())
        assert names == ["add", "echo", "fail", "log", "progress"], mode
        assert (await c.call_tool("echo", {"text": "interop ✓ text"})).text == "interop ✓ text"
        assert (await c.call_tool("add", {"a": 2, "b": 0.5})).text == "2.5"

        seen: list[tuple[float, float | None]] = []
        r = await c.call_tool(
            "progress", {"steps": 3}, progress=lambda p, t, _m: seen.append((p, t))
        )
        assert r.text == "done"
        assert seen == [(1, 3), (2, 3), (3, 3)], mode

        await c.set_logging_level("info")
        r = await c.call_tool("log", {"message": "below the level", "level": "debug"})
        assert r.text == "logged"
        r = await c.call_tool("log", {"message": "interop log line", "level": "warning"})
        assert r.text == "logged"
        for _ in range(100):  # a notification may trail its result by a moment
            if logs:
                break
            await asyncio.sleep(0.01)
        assert [(m["level"], m["data"]) for m in logs] == [("warning", "interop log line")], mode

        r = await c.call_tool("fail", {})
        assert r.is_error and "intentional failure" in r.text, mode

        uris = [x["uri"] for x in (await c.list_resources())["resources"]]
        assert uris == ["mem://greeting"], mode
        read = await c.read_resource("mem://greeting")
        assert [x["text"] for x in read["contents"]] == ["hello"], mode
        templates = (await c.list_resource_templates())["resourceTemplates"]
        assert [t["uriTemplate"] for t in templates] == ["mem://items/{id}"], mode
        read = await c.read_resource("mem://items/42")
        assert [x["text"] for x in read["contents"]] == ["item 42"], mode

        prompts = [p["name"] for p in (await c.list_prompts())["prompts"]]
        assert prompts == ["greet"], mode
        got = await c.get_prompt("greet", {"name": "Ferris"})
        assert got["messages"][0]["content"]["text"] == "Hello, Ferris!", mode
        return c.protocol_version


async def test_handshake_client(server_url: str) -> None:
    assert await _surface(server_url, "handshake") == "2025-11-25"


async def test_per_request_client(server_url: str) -> None:
    assert await _surface(server_url, "auto") == "2026-07-28"


async def test_both_at_once(server_url: str) -> None:
    """The two eras side by side on the same server, interleaved."""
    versions = await asyncio.gather(
        _surface(server_url, "handshake"), _surface(server_url, "perRequest")
    )
    assert versions == ["2025-11-25", "2026-07-28"]
