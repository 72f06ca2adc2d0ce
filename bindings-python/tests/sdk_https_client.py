"""The official ``mcp`` client over ``https://``, run under an interpreter that has the official
SDK (``.tools/venv``): ``sdk_https_client.py URL CA_PEM [CERT_PEM KEY_PEM]``. It trusts the
test CA (and presents the client certificate when given), calls the tool ``whoami`` and prints
``{"protocol", "text"}``, or ``{"error": ...}`` naming what failed. Used by tests/test_tls.py
(not a test)."""

from __future__ import annotations

import asyncio
import json
import ssl
import sys
from typing import Any


def causes(e: BaseException) -> str:
    """The exception and its causes, group members included, as one line."""
    seen: list[str] = []
    stack: list[BaseException] = [e]
    while stack:
        x = stack.pop()
        seen.append(f"{type(x).__name__}: {x}")
        stack.extend(getattr(x, "exceptions", ()))  # an exception group's members
        for nxt in (x.__cause__, x.__context__):
            if nxt is not None and len(seen) < 20:
                stack.append(nxt)
    return " | ".join(seen)


async def main(url: str, ca: str, cert: str | None, key: str | None) -> dict[str, Any]:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    ctx = ssl.create_default_context(cafile=ca)
    if cert is not None:
        ctx.load_cert_chain(cert, key)
    async with httpx2.AsyncClient(verify=ctx, timeout=20) as http:
        async with Client(streamable_http_client(url, http_client=http)) as c:
            r = await c.call_tool("whoami", {})
            return {"protocol": c.protocol_version, "text": r.content[0].text}  # type: ignore[union-attr]


if __name__ == "__main__":
    url, ca, *rest = sys.argv[1:]
    cert, key = (rest[0], rest[1]) if rest else (None, None)
    try:
        out = asyncio.run(asyncio.wait_for(main(url, ca, cert, key), 30))
    except Exception as e:  # noqa: BLE001 - the test reads what failed
        out = {"error": causes(e)}
    print(json.dumps(out))
