"""The interop server in Python: the fixed surface of tests/interop/SURFACE.md (tools echo, add,
progress, log, fail; resource mem://greeting; template mem://items/{id}; prompt greet) that the
official Python and TypeScript SDK clients check. Same as examples/rust/src/interop_server.rs.

    python interop_server.py [--transport stdio|http] [--port N]

HTTP binds 127.0.0.1 and serves /mcp. Logs go to stderr only.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from ferromcp import Context, Server

LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]

server = Server("interop-python-server", version="1.0.0")


def shortest_number(x: float) -> str:
    """A number the way JSON writes it: ``3``, not ``3.0``; ``2.5``."""
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return repr(float(x))


@server.tool()
def echo(text: str) -> str:
    """Echoes the text back unchanged."""
    return text


@server.tool()
def add(a: float, b: float) -> str:
    """Adds two numbers."""
    return shortest_number(a + b)


@server.tool(
    input_schema={
        "type": "object",
        "properties": {"steps": {"type": "integer", "minimum": 0, "default": 3}},
    }
)
async def progress(ctx: Context, steps: int = 3) -> str:
    """Reports progress 1..steps, then answers "done"."""
    for i in range(1, steps + 1):
        await ctx.report_progress(i, steps, f"step {i} of {steps}")
        await asyncio.sleep(0.01)
    return "done"


@server.tool(
    input_schema={
        "type": "object",
        "properties": {
            "message": {"type": "string", "default": "hello from log"},
            "level": {"type": "string", "enum": LEVELS, "default": "info"},
        },
    }
)
async def log(ctx: Context, message: str = "hello from log", level: str = "info") -> str:
    """Sends one log message at the given level."""
    await ctx.log(level, message, logger="interop")
    return "logged"


@server.tool()
def fail() -> Any:
    """Always fails with a tool error."""
    raise RuntimeError("intentional failure")


@server.resource("mem://greeting", name="greeting", mime_type="text/plain")
def greeting() -> str:
    """A greeting."""
    return "hello"


@server.resource("mem://items/{id}", name="item", mime_type="text/plain")
def item(id: str) -> str:  # noqa: A002 - the template variable's name
    """One item by id."""
    return f"item {id}"


@server.prompt(arguments=[{"name": "name", "description": "Who to greet", "required": True}])
def greet(name: str) -> str:
    """Greets someone."""
    return f"Hello, {name}!"


def main() -> None:
    parser = argparse.ArgumentParser(description="ferromcp Python interop server")
    parser.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    parser.add_argument("--port", type=int, default=3000)
    args = parser.parse_args()
    if args.transport == "stdio":
        server.run()
    else:
        server.run("http", host="127.0.0.1", port=args.port)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(130)
