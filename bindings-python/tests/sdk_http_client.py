"""The official ``mcp`` client against a Streamable HTTP URL, run under an interpreter that has
the official SDK (``.tools/venv``, requirements-test.txt): ``sdk_http_client.py SCENARIO URL
MODE``. Prints one JSON transcript on stdout. Used by tests/test_asgi_app.py (not a test)."""

from __future__ import annotations

import asyncio
import json
import sys
import warnings
from typing import Any


def norm(x: Any) -> Any:
    if hasattr(x, "model_dump"):
        return x.model_dump(by_alias=True, exclude_none=True, mode="json")
    return x


async def full(url: str, mode: str) -> dict[str, Any]:
    """initialize (or discover), tools/call with progress, a resource read, and a notification
    the server sends outside any request (GET stream in the handshake era, a
    ``subscriptions/listen`` stream with 2026-07-28)."""
    from mcp import Client

    out: dict[str, Any] = {}
    notified = asyncio.Event()
    notes: list[Any] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, Exception):
            notes.append(["error", str(message)])
            return
        d = norm(message)
        notes.append(d.get("method"))
        if d.get("method") == "notifications/tools/list_changed":
            notified.set()

    progress: list[Any] = []

    async def on_progress(p: float, total: float | None, message: str | None) -> None:
        progress.append([p, total, message])

    async with Client(url, mode=mode, message_handler=on_message) as c:  # type: ignore[arg-type]
        out["protocol"] = c.protocol_version
        out["server"] = norm(c.server_info)
        r = await c.call_tool("add", {"a": 2, "b": 3}, progress_callback=on_progress)
        out["call"] = norm(r)
        out["progress"] = progress
        out["read"] = norm(await c.read_resource("config://app"))
        if mode == "legacy":
            await c.call_tool("poke_later", {})
            await asyncio.wait_for(notified.wait(), 10)
            out["notified"] = True
        else:
            async with c.listen(tools_list_changed=True) as sub:
                await c.call_tool("poke_later", {})
                async for event in sub:
                    out["event"] = type(event).__name__
                    break
    out["notes"] = sorted({n for n in notes if isinstance(n, str)})
    return out


async def call(url: str, mode: str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    from mcp import Client

    async with Client(url, mode=mode) as c:
        return {"protocol": c.protocol_version, "call": norm(await c.call_tool(tool, args))}


def main() -> None:
    warnings.filterwarnings("ignore")
    scenario, url, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    if scenario == "full":
        result = asyncio.run(full(url, mode))
    else:
        result = asyncio.run(call(url, mode, scenario, json.loads(sys.argv[4])))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
