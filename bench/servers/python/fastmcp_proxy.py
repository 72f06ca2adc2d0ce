"""FastMCP's proxy (fastmcp 4.1.6, ``fastmcp.server.create_proxy``) in front of one backend, for
the proxy rows of proxy/examples/proxy_bench.rs (issue 39 point 5).

Usage: fastmcp_proxy.py stdio|PORT (--backend-url URL | --backend-stdio COMMAND [ARG ...])
       fastmcp_proxy.py --wrap SERVER [ARG ...] (stdio | http PORT [stateful|stateless|json])

``stdio`` serves the proxy over stdio, a PORT over Streamable HTTP at http://127.0.0.1:PORT/mcp
(stateful). The backend is a Streamable HTTP URL or a stdio command (FastMCP's
``StreamableHttpTransport`` / ``StdioTransport``).

``--wrap`` takes a bench server's command line (the interface of every bench server) and serves
the proxy on that interface, with the server run over stdio as its backend, so that mcp-bench
drives FastMCP's proxy in front of any of its servers without a row of its own:
``MCP_BENCH_WRAP="python fastmcp_proxy.py --wrap" mcp-bench --only "ferromcp (Rust handler)"``.

Env: FERROMCP_BENCH_FASTMCP_SESSION=fresh (the default) builds the proxy as FastMCP's
documentation shows, ``create_proxy(transport)``, which gives every request a fresh backend
session; =shared hands it a connected ``Client`` instead, whose one session all requests share
(FastMCP logs that this may mix contexts between concurrent clients).
"""

import os
import sys
from typing import NoReturn

import anyio
from fastmcp import Client
from fastmcp.client.transports import StdioTransport, StreamableHttpTransport
from fastmcp.server import create_proxy


def usage(message: str) -> NoReturn:
    sys.exit(f"fastmcp_proxy.py: {message}\n{__doc__}")


async def main(argv: list[str]) -> None:
    mode = "stateful"
    if argv[:1] == ["--wrap"]:
        server = argv[1:]
        if server[-1:] == ["stdio"] and len(server) >= 2:
            argv = ["stdio", "--backend-stdio", *server]
        elif len(server) >= 3 and "http" in server[1:]:
            i = len(server) - 1 - server[::-1].index("http")
            front = server[i + 1] if len(server) > i + 1 else usage("http needs a PORT")
            mode = server[i + 2] if len(server) > i + 2 else "stateful"
            argv = [str(front), "--backend-stdio", *server[:i], "stdio"]
        else:
            usage(f"--wrap: not a bench server's command line: {server!r}")
    if len(argv) < 3:
        usage("missing arguments")
    front, how, rest = argv[0], argv[1], argv[2:]
    if how == "--backend-url" and len(rest) == 1:
        transport = StreamableHttpTransport(rest[0])
    elif how == "--backend-stdio" and rest:
        transport = StdioTransport(command=rest[0], args=rest[1:])
    else:
        usage(f"unknown backend {how!r}")
    session = os.environ.get("FERROMCP_BENCH_FASTMCP_SESSION", "fresh")
    if session not in ("fresh", "shared"):
        usage(f"FERROMCP_BENCH_FASTMCP_SESSION must be fresh or shared, not {session!r}")

    async def serve(target: object) -> None:
        proxy = create_proxy(target, name="bench-fastmcp-proxy")
        if front == "stdio":
            await proxy.run_async("stdio", show_banner=False)
        else:
            await proxy.run_async(
                "http",
                show_banner=False,
                host="127.0.0.1",
                port=int(front),
                path="/mcp",
                log_level="warning",
                stateless_http=mode != "stateful",
                json_response=mode == "json",
            )

    if session == "shared":
        async with Client(transport) as client:
            await serve(client)
    else:
        await serve(transport)


if __name__ == "__main__":
    anyio.run(main, sys.argv[1:])
