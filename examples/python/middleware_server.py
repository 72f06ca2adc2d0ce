"""A ferromcp server over stdio with middleware: error masking, timing lines on stderr, a rate
limit of 3 ``tools/call`` per 10 s and session, and a Python layer that refuses ``admin_*``
tools to clients not named ``admin`` and stamps every tool result.

Run it directly (``python middleware_server.py``); bindings-python/tests/test_middleware.py
spawns it and checks each layer. The same scenario as examples/rust/src/middleware_server.rs,
bindings-node/examples/middleware_server.mts and examples/swift's MiddlewareServer;
tests/examples/check.mjs runs all four with the official TypeScript SDK client.
"""

from __future__ import annotations

import sys
from typing import Any

from ferromcp import McpError, Server
from ferromcp.middleware import (
    CallNext,
    MaskErrors,
    MiddlewareContext,
    RateLimit,
    Timing,
    TimingEvent,
)


def log_timing(e: TimingEvent) -> None:
    print(f"{e.method} {e.tool or '-'} {e.outcome} {e.duration_ms:.2f} ms", file=sys.stderr)


server = Server(
    "middleware-server",
    version="1.0.0",
    middleware=[
        MaskErrors(),  # first: masks what every later layer answers
        Timing(log_timing),
        RateLimit(3, 10.0, methods=["tools/call"]),
    ],
)


@server.middleware
async def admin_only(ctx: MiddlewareContext, call_next: CallNext) -> dict[str, Any]:
    """Refuses ``admin_*`` tools unless the client calls itself ``admin``; stamps results."""
    if ctx.tool is not None and ctx.tool.startswith("admin_"):
        client = ctx.request_context.client_info or {}
        if client.get("name") != "admin":
            raise McpError("Permission denied", code=-32003, data={"tool": ctx.tool})
    result = await call_next(ctx)
    if ctx.method == "tools/call":
        result.setdefault("_meta", {})["example.com/served-by"] = "middleware-server"
    return result


@server.tool()
def echo(text: str) -> str:
    """Returns the text unchanged."""
    return text


@server.tool()
def admin_reset() -> str:
    """Resets everything (admins only)."""
    return "reset"


@server.tool()
def crash() -> str:
    """Fails with an internal detail (a tool's failure is an isError result, not masked)."""
    raise RuntimeError("db password is hunter2")


@server.resource("mem://secrets")
def secrets() -> str:
    """A failure whose details a client must not see: masked as "Internal error"."""
    raise RuntimeError("db at 10.0.0.7 refused user admin")


if __name__ == "__main__":
    server.run()
