"""Echo server on FastMCP (fastmcp 4.1.6 from PyPI, pinned in requirements-test.txt).

Usage: echo_fastmcp.py stdio | http PORT [stateful|stateless|json]
Env: FERROMCP_BENCH_MIDDLEWARE=python adds one FastMCP middleware (a ``Middleware`` subclass
whose ``on_message`` hands every message on), for the middleware rows (issue 37); unset, none.
The tool is written as FastMCP's documentation writes one (``@mcp.tool`` on a typed function).
"""

import os
import sys
from typing import Any

from fastmcp import FastMCP
from fastmcp.server.middleware import Middleware, MiddlewareContext

mcp = FastMCP("bench-fastmcp")


@mcp.tool
def echo(text: str) -> str:
    """Echoes the text back."""
    return text


class PassThrough(Middleware):
    """Hands every message on unchanged."""

    async def on_message(self, context: MiddlewareContext[Any], call_next: Any) -> Any:
        return await call_next(context)


_MIDDLEWARE = os.environ.get("FERROMCP_BENCH_MIDDLEWARE", "")
if _MIDDLEWARE == "python":
    mcp.add_middleware(PassThrough())
elif _MIDDLEWARE:
    sys.exit(f"FERROMCP_BENCH_MIDDLEWARE must be python or unset, not {_MIDDLEWARE!r}")


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] == "stdio":
        mcp.run("stdio", show_banner=False)
    else:
        mode = sys.argv[3] if len(sys.argv) > 3 else "stateful"
        mcp.run(
            "http",
            show_banner=False,
            host="127.0.0.1",
            port=int(sys.argv[2]),
            path="/mcp",
            log_level="warning",
            stateless_http=mode != "stateful",
            json_response=mode == "json",
        )
