"""The ASGI app (`server.http_app()`) called directly, no HTTP server: the app's own cost per
stateless JSON `tools/call` (engine and handler included). README "ASGI deployment".

Usage: asgi_direct.py [N]  (500 warm-up calls, then N timed; default 5,000)
"""

import asyncio
import json
import time
import sys
from ferromcp import Server

server = Server("direct")


@server.tool()
async def echo(text: str) -> str:
    return text


app = server.http_app(stateless=True, json_response=True)
body = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "hi"}},
    }
).encode()
scope = {
    "type": "http",
    "asgi": {"version": "3.0"},
    "http_version": "1.1",
    "method": "POST",
    "scheme": "http",
    "path": "/mcp",
    "raw_path": b"/mcp",
    "query_string": b"",
    "root_path": "",
    "headers": [
        (b"host", b"127.0.0.1:8000"),
        (b"content-type", b"application/json"),
        (b"accept", b"application/json, text/event-stream"),
        (b"mcp-protocol-version", b"2025-11-25"),
        (b"content-length", str(len(body)).encode()),
    ],
    "client": ("127.0.0.1", 1),
    "server": ("127.0.0.1", 8000),
}


async def one():
    msgs = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive():
        return msgs.pop() if msgs else (await asyncio.sleep(3600))

    out = []

    async def send(m):
        out.append(m)

    await app(scope, receive, send)
    assert out[0]["status"] == 200, out


async def main():
    for _ in range(500):
        await one()
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    lat = []
    c0 = time.process_time()
    t0 = time.perf_counter()
    for _ in range(n):
        s = time.perf_counter()
        await one()
        lat.append(time.perf_counter() - s)
    wall = time.perf_counter() - t0
    cpu = time.process_time() - c0
    lat.sort()
    print(
        f"direct ASGI call, stateless JSON tools/call: p50 {lat[len(lat) // 2] * 1e6:.0f} us, {n / wall:.0f} calls/s, process CPU {cpu / n * 1e6:.0f} us/call (n={n})"
    )


asyncio.run(main())
