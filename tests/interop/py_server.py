#!/usr/bin/env python3
"""Official Python SDK (PyPI `mcp`) server exposing the interop surface of SURFACE.md.

Usage: py_server.py --transport stdio
       py_server.py --transport http --port N     (Streamable HTTP at http://127.0.0.1:N/mcp)
"""

from __future__ import annotations

import argparse
import asyncio
import warnings

import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

# The 2.x SDK flags logging as deprecated by 2026-07-28; the surface still uses it.
warnings.filterwarnings("ignore", message=".*deprecated as of 2026-07-28.*")

LOGGER = "interop"

server = MCPServer("interop-py-server", version="1.0.0")

LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
# Minimum level set by logging/setLevel (process-wide; enough for a test peer).
_min_level = {"level": "debug"}


async def _set_level(ctx: object, params: types.SetLevelRequestParams) -> types.EmptyResult:
    _min_level["level"] = str(params.level)
    return types.EmptyResult()


# MCPServer 2.x does not answer logging/setLevel by itself (deprecated in 2026-07-28);
# registering a handler also advertises the `logging` capability.
server._lowlevel_server.add_request_handler(
    "logging/setLevel", types.SetLevelRequestParams, _set_level
)


def _num(x: float) -> str:
    """A number as JSON writes it: 3 for 3.0, 2.75 for 2.75."""
    return str(int(x)) if float(x).is_integer() else repr(float(x))


@server.tool(
    name="echo", description="Returns its text argument unchanged.", structured_output=False
)
def echo(text: str) -> str:
    return text


@server.tool(name="add", description="Adds two numbers.", structured_output=False)
def add(a: float, b: float) -> str:
    return _num(a + b)


@server.tool(
    name="progress",
    description="Sends `steps` progress notifications (progress 1..steps of total steps), then returns 'done'.",
    structured_output=False,
)
async def progress(ctx: Context, steps: int = 3) -> str:
    for i in range(1, steps + 1):
        await ctx.report_progress(i, steps, f"step {i} of {steps}")
        await asyncio.sleep(0.01)
    return "done"


@server.tool(
    name="log",
    description="Sends one notifications/message at `level` with `message` as data (logger 'interop'), then returns 'logged'.",
    structured_output=False,
)
async def log(ctx: Context, message: str = "hello from log", level: str = "info") -> str:
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}")
    if LEVELS.index(level) >= LEVELS.index(_min_level["level"]):
        await ctx.log(level, message, logger_name=LOGGER)  # type: ignore[arg-type]
    return "logged"


@server.tool(
    name="fail",
    description="Always fails: a tool error result (isError true).",
    structured_output=False,
)
def fail() -> str:
    raise ToolError("intentional failure")


@server.resource(
    "mem://greeting", name="greeting", description="A fixed greeting.", mime_type="text/plain"
)
def greeting() -> str:
    return "hello"


@server.resource("mem://items/{id}", name="item", description="Item by id.", mime_type="text/plain")
def item(id: str) -> str:
    return f"item {id}"


@server.prompt(name="greet", description="Greets someone by name.")
def greet(name: str) -> str:
    return f"Hello, {name}!"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    p.add_argument("--port", type=int, default=8000)
    a = p.parse_args()
    if a.transport == "stdio":
        server.run("stdio")
    else:
        server.run("streamable-http", host="127.0.0.1", port=a.port, streamable_http_path="/mcp")


if __name__ == "__main__":
    main()
