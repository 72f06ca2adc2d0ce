"""The example server over stdio, driven by the ferromcp client and by raw JSON lines."""

from __future__ import annotations

import json
import selectors
import subprocess
import sys
from typing import Any

import ferromcp
import pytest

from conftest import ECHO_SERVER


@pytest.mark.parametrize("dispatch", ["pull", "callback"])
async def test_client_against_stdio_server(echo_server_cmd: list[str], dispatch: str) -> None:
    """Both ways of delivering `async def` handlers to the server's loop (README: "Handler
    calling pattern"); `countdown` is async and reports progress and logs from its context."""
    seen: list[tuple[float, float | None, str | None]] = []
    logs: list[Any] = []

    def note(method: str, params: Any) -> None:
        if method == "notifications/message":
            logs.append(params)

    async with ferromcp.Client.stdio(
        echo_server_cmd[0],
        echo_server_cmd[1:],
        env={"FERROMCP_ASYNC_DISPATCH": dispatch},
        on_notification=note,
    ) as c:
        assert c.server_info["name"] == "echo-server"
        names = [t["name"] for t in await c.list_all_tools()]
        assert names == ["echo", "add", "countdown"]
        r = await c.call_tool("add", {"a": 1, "b": 2})
        assert r["content"][0]["text"] == "3"
        await c.set_logging_level("debug")
        r = await c.call_tool(
            "countdown", {"steps": 2}, progress=lambda p, t, m: seen.append((p, t, m))
        )
        assert r["content"][0]["text"] == "counted 2 steps"
        assert [s[0] for s in seen] == [1.0, 2.0]
        assert len(logs) == 2
        await c.ping()


async def test_validation_error_is_a_tool_error(echo_server_cmd: list[str]) -> None:
    async with ferromcp.Client.stdio(echo_server_cmd[0], echo_server_cmd[1:]) as c:
        # SEP-1303: arguments the schema refuses are a tool execution error, not -32602.
        r = await c.call_tool("add", {"a": "x", "b": 2})
        assert r["isError"] is True
        assert "/a: " in r["content"][0]["text"]
        with pytest.raises(ferromcp.InvalidParams):  # an unknown tool stays a protocol error
            await c.call_tool("nope", {})
        with pytest.raises(ferromcp.ResourceNotFound):
            await c.read_resource("missing://x")


def _rpc(proc: subprocess.Popen[str], msg: str) -> dict[str, Any]:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(msg + "\n")
    proc.stdin.flush()
    line = proc.stdout.readline()
    out: dict[str, Any] = json.loads(line)
    return out


def test_raw_json_lines() -> None:
    proc = subprocess.Popen(
        [sys.executable, ECHO_SERVER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        init = _rpc(
            proc,
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": "2025-06-18",
                        "capabilities": {},
                        "clientInfo": {"name": "raw", "version": "0"},
                    },
                }
            ),
        )
        assert init["result"]["protocolVersion"] == "2025-06-18"
        assert proc.stdin is not None
        proc.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        bad = _rpc(proc, "{not json")
        assert bad["error"]["code"] == -32700
        r = _rpc(
            proc,
            '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"yo"}}}',
        )
        assert r["result"]["content"][0]["text"] == "yo"
        r = _rpc(
            proc,
            '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{}}}',
        )
        assert r["result"]["isError"] is True  # a schema-refused call is a tool error (SEP-1303)
        assert '"text" is a required property' in r["result"]["content"][0]["text"]
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        assert proc.wait(timeout=10) == 0


def test_async_call_sent_with_the_handshake() -> None:
    """`Server.run()` answers the handshake before its asyncio loop is up; an async handler
    call written in the same burst waits for the loop and is answered."""
    lines = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "countdown", "arguments": {"steps": 2, "delay": 0}},
        },
    ]
    out, _ = subprocess.Popen(
        [sys.executable, ECHO_SERVER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ).communicate("".join(json.dumps(m) + "\n" for m in lines), timeout=30)
    answers = {m["id"]: m for m in map(json.loads, out.splitlines()) if "id" in m}
    assert answers[1]["result"]["serverInfo"]["name"] == "echo-server"
    assert [t["name"] for t in answers[2]["result"]["tools"]] == ["echo", "add", "countdown"]
    assert answers[3]["result"]["content"][0]["text"] == "counted 2 steps"


_SLOW_ASYNCIO_SERVER = """
import importlib.abc
import os
import sys
import time

RELEASE = sys.argv[1]


class HoldAsyncio(importlib.abc.MetaPathFinder):
    # Stands for a slow `import asyncio` (tens of ms on a cold machine): it waits for the test.
    def find_spec(self, name, path=None, target=None):
        if name == "asyncio":
            sys.meta_path.remove(self)
            deadline = time.monotonic() + 20
            while not os.path.exists(RELEASE) and time.monotonic() < deadline:
                time.sleep(0.01)
        return None


sys.meta_path.insert(0, HoldAsyncio())

from ferromcp import Server

server = Server("slow-asyncio", version="1.0")


@server.tool()
async def shout(text: str) -> str:
    return text.upper()


server.run()
"""


def test_handshake_is_not_held_by_the_asyncio_import(tmp_path: Any) -> None:
    """With an `async def` handler, `Server.run()` starts serving stdio before it imports
    asyncio: `initialize` is answered while that import is still running, and the async
    handler's call is answered once the loop is up."""
    script = tmp_path / "server.py"
    script.write_text(_SLOW_ASYNCIO_SERVER)
    release = tmp_path / "release"
    proc = subprocess.Popen(
        [sys.executable, str(script), str(release)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdin is not None and proc.stdout is not None
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        }
        proc.stdin.write(json.dumps(init) + "\n")
        proc.stdin.flush()
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ)
            ready = sel.select(timeout=10)
        assert ready, "initialize was not answered while asyncio was being imported"
        answer = json.loads(proc.stdout.readline())
        assert answer["result"]["serverInfo"]["name"] == "slow-asyncio"
        assert not release.exists()  # the import was still held when the answer came
        release.write_text("go")
        proc.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        call = _rpc(
            proc,
            '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"shout","arguments":{"text":"hi"}}}',
        )
        assert call["result"]["content"][0]["text"] == "HI"
    finally:
        release.write_text("go")
        assert proc.stdin is not None
        proc.stdin.close()
        assert proc.wait(timeout=20) == 0
