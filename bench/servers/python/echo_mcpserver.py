"""Echo server on the official Python SDK's high-level API (MCPServer, mcp 2.3.0).

Usage: echo_mcpserver.py stdio | http PORT [stateful|stateless|json]
Env: FERROMCP_BENCH_MIDDLEWARE=python adds one server middleware (mcp 2's context-tier
``ServerMiddleware``, ``(ctx, call_next)``, that hands every request on), for the middleware
rows (issue 37); unset, none.
"""

import os
import sys
from typing import Any

from mcp.server.mcpserver import MCPServer


async def passes(ctx: Any, call_next: Any) -> Any:
    """A server middleware that hands every request on unchanged."""
    return await call_next(ctx)


_MIDDLEWARE = os.environ.get("FERROMCP_BENCH_MIDDLEWARE", "")
if _MIDDLEWARE not in ("", "python"):
    sys.exit(f"FERROMCP_BENCH_MIDDLEWARE must be python or unset, not {_MIDDLEWARE!r}")

mcp = MCPServer(
    "bench-mcpserver",
    log_level="WARNING",
    middleware=[passes] if _MIDDLEWARE == "python" else None,
)


@mcp.tool()
def echo(text: str) -> str:
    """Echoes the text back."""
    return text


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] == "stdio":
        mcp.run("stdio")
    else:
        port = int(sys.argv[2])
        mode = sys.argv[3] if len(sys.argv) > 3 else "stateful"
        mcp.run(
            "streamable-http",
            host="127.0.0.1",
            port=port,
            stateless_http=mode != "stateful",
            json_response=mode == "json",
        )
