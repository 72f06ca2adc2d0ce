"""The cost of middleware per call, in process: sequential ``tools/call`` of a sync ``echo`` over
an in-memory client, with no middleware, one Rust built-in layer (``RequestLog``, events
unread), one Python ``async def`` layer and one plain ``def`` layer that hand every request on.
Each variant is its own server; the rounds alternate the variants so that a shared machine's
drift hits them alike. Prints the median per-call time of each over the rounds.

Usage: middleware_memory.py [CALLS_PER_ROUND] [ROUNDS]  (defaults 2,000 and 5; 300 warm-up calls)
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from typing import Any

from ferromcp import Client, Server
from ferromcp.middleware import RequestLog


def make(variant: str) -> Server:
    server = Server(f"mw-{variant}")

    @server.tool()
    def echo(text: str) -> str:
        """Echoes."""
        return text

    if variant == "rust":
        server.add_middleware(RequestLog())
    elif variant == "python-async":

        @server.middleware
        async def passes(ctx: Any, call_next: Any) -> Any:
            return await call_next(ctx)

    elif variant == "python-sync":

        @server.middleware
        def passes_sync(ctx: Any, call_next: Any) -> Any:
            return call_next(ctx)

    return server


async def main() -> None:
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    variants = ["none", "rust", "python-async", "python-sync"]
    clients = {v: Client.memory(make(v)) for v in variants}
    for c in clients.values():
        await c.__aenter__()
    args = {"text": "hi"}
    for c in clients.values():
        for _ in range(300):
            await c.call_tool("echo", args)
    per_call: dict[str, list[float]] = {v: [] for v in variants}
    for _ in range(rounds):
        for v, c in clients.items():
            t = time.perf_counter()
            for _ in range(calls):
                await c.call_tool("echo", args)
            per_call[v].append((time.perf_counter() - t) / calls * 1e6)
    for c in clients.values():
        await c.__aexit__(None, None, None)
    base = statistics.median(per_call["none"])
    for v in variants:
        m = statistics.median(per_call[v])
        print(
            f"{v:13} {m:8.1f} us/call  (+{m - base:6.1f} us)  rounds: "
            + " ".join(f"{x:.1f}" for x in per_call[v])
        )


if __name__ == "__main__":
    asyncio.run(main())
