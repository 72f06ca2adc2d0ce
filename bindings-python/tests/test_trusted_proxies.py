"""RateLimit(by=["clientAddress"], address_header=..., trusted_proxies=...): the forwarding
header is believed only on connections from a trusted proxy, and its rightmost address that is
not a trusted proxy is the client. Over HTTP (serve_http) from 127.0.0.1 with
X-Forwarded-For; the same scenario as bindings-node/test/trusted_proxies.test.mjs and core's
tests/integration/client_address.rs."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request

import pytest

from ferromcp import InvalidParams, Server
from ferromcp.middleware import RateLimit

INIT = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
).encode()


def post(url: str, forwarded: str) -> int:
    """The status of an initialize POST from this host with X-Forwarded-For: forwarded."""
    req = urllib.request.Request(
        url,
        data=INIT,
        method="POST",
        headers={
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "x-forwarded-for": forwarded,
        },
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            r.read()
            status: int = r.status
            return status
    except urllib.error.HTTPError as e:
        return e.code


def limited(trusted: list[str]) -> Server:
    server = Server("proxied", version="1")
    server.add_middleware(
        RateLimit(
            2,
            60,
            by=["clientAddress"],
            address_header="x-forwarded-for",
            trusted_proxies=trusted,
        )
    )
    return server


async def test_the_forwarding_header_is_read_only_from_trusted_proxies() -> None:
    # 127.0.0.1 is not a trusted proxy: every request is the peer's, whatever the header says.
    async with await limited(["10.0.0.0/8"]).serve_http("127.0.0.1", 0) as http:
        statuses = [await asyncio.to_thread(post, http.url, f"198.51.100.{i}") for i in (1, 2, 3)]
        assert statuses == [200, 200, 429]
    # 127.0.0.1 trusted: each forwarded client has its own bucket, and an entry the client
    # wrote left of its own address does not move it to another bucket.
    async with await limited(["127.0.0.1", "10.0.0.0/8"]).serve_http("127.0.0.1", 0) as http:
        chains = ["198.51.100.1", "198.51.100.1, 10.0.0.9", "6.6.6.6, 198.51.100.1", "198.51.100.2"]
        statuses = [await asyncio.to_thread(post, http.url, c) for c in chains]
        assert statuses == [200, 200, 429, 200]


def test_a_trusted_proxy_that_is_not_a_range_is_refused() -> None:
    with pytest.raises(InvalidParams, match="10.0.0.0/33"):
        limited(["10.0.0.0/33"])
