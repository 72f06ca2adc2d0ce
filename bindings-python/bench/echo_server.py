"""Echo server on ferromcp (Python handler) with the interface of bench/servers/python.

Usage: echo_server.py stdio | http PORT [stateful|stateless|json]
Env: FERROMCP_BENCH_ASYNC=1 registers ``echo`` as an ``async def`` instead of a ``def``;
FERROMCP_BENCH_MIDDLEWARE=python adds one ``async def`` middleware layer that hands every
request on, ``=rust`` one built-in layer (``RequestLog``, its events unread), for the middleware
rows (issue 37); FERROMCP_BENCH_ASGI=1 serves HTTP as the ASGI app (``server.http_app()``) under uvicorn (one
worker, its defaults) instead of ``serve_http``; FERROMCP_BENCH_ASGI_HTTP / _LOOP pick uvicorn's
``http`` / ``loop`` implementation (default ``auto``).
"""

import os
import sys
from typing import Any

from ferromcp import Server

server = Server("bench-ferromcp-python", version="1.0")

if os.environ.get("FERROMCP_BENCH_ASYNC") == "1":

    @server.tool()
    async def echo(text: str) -> str:
        """Echoes the text back."""
        return text

else:

    @server.tool()
    def echo(text: str) -> str:
        """Echoes the text back."""
        return text


_MIDDLEWARE = os.environ.get("FERROMCP_BENCH_MIDDLEWARE", "")
if _MIDDLEWARE == "python":

    @server.middleware
    async def passes(ctx: Any, call_next: Any) -> Any:
        return await call_next(ctx)

elif _MIDDLEWARE == "rust":
    from ferromcp.middleware import RequestLog

    server.add_middleware(RequestLog())
elif _MIDDLEWARE:
    sys.exit(f"FERROMCP_BENCH_MIDDLEWARE must be python or rust, not {_MIDDLEWARE!r}")


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] == "stdio":
        server.run()
    else:
        mode = sys.argv[3] if len(sys.argv) > 3 else "stateful"
        if os.environ.get("FERROMCP_BENCH_ASGI") == "1":
            import uvicorn

            app = server.http_app(stateless=mode != "stateful", json_response=mode == "json")
            uvicorn.run(
                app,
                host="127.0.0.1",
                port=int(sys.argv[2]),
                log_level="warning",
                http=os.environ.get("FERROMCP_BENCH_ASGI_HTTP", "auto"),
                loop=os.environ.get("FERROMCP_BENCH_ASGI_LOOP", "auto"),
            )
            sys.exit(0)
        server.run(
            "http",
            host="127.0.0.1",
            port=int(sys.argv[2]),
            stateless=mode != "stateful",
            json_response=mode == "json",
        )
