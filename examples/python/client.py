"""Spawns ``echo_server.py`` and exercises it with the ferromcp client."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from ferromcp import Client

SERVER = str(Path(__file__).with_name("echo_server.py"))


def on_progress(progress: float, total: float | None, message: str | None) -> None:
    print(f"  progress {progress}/{total}: {message}")


async def main() -> None:
    async with Client.stdio(sys.executable, [SERVER]) as client:
        print("server:", client.server_info)
        tools = await client.list_all_tools()
        print("tools:", [t["name"] for t in tools])
        print("echo:", (await client.call_tool("echo", {"text": "hi"}))["content"][0]["text"])
        print("add:", (await client.call_tool("add", {"a": 2, "b": 3}))["content"][0]["text"])
        r = await client.call_tool("countdown", {"steps": 3}, progress=on_progress)
        print("countdown:", r["content"][0]["text"])
        print("resource:", (await client.read_resource("greeting://ada"))["contents"][0]["text"])
        p = await client.get_prompt("review", {"code": "print(1)"})
        print("prompt:", p["messages"][0]["content"]["text"].splitlines()[0])
        c = await client.complete({"type": "ref/prompt", "name": "review"}, "language", "r")
        print("completion:", c["values"])


if __name__ == "__main__":
    asyncio.run(main())
