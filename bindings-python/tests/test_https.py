"""``Client.http`` over ``https://``: a TLS front (Python's ``ssl``, with the test-only certificate
of ``core/tests/fixtures``, made as ``core/tests/integration/http_client_tls.rs`` says) before a
ferromcp server in this process. Trusting the test CA through ``root_certificates`` the client calls
a tool; without it the certificate is refused with rustls's reason."""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from ferromcp import Client, Server, TransportError

FIXTURES = Path(__file__).resolve().parents[2] / "core" / "tests" / "fixtures"


def make_server() -> Server:
    server = Server("https-test", version="1.0.0")

    @server.tool()
    def add(a: int, b: int) -> int:
        """Adds."""
        return a + b

    return server


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, ssl.SSLError):
        pass
    finally:
        writer.close()


@contextlib.asynccontextmanager
async def https_front(backend_port: int) -> AsyncIterator[int]:
    """A TLS server for ``localhost`` passing decrypted bytes to ``backend_port``."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(FIXTURES / "tls-test-localhost.pem")
    ctx.set_alpn_protocols(["http/1.1"])

    async def on_client(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        br, bw = await asyncio.open_connection("127.0.0.1", backend_port)
        await asyncio.gather(_pipe(r, bw), _pipe(br, w))

    front = await asyncio.start_server(on_client, "127.0.0.1", 0, ssl=ctx)
    try:
        yield front.sockets[0].getsockname()[1]
    finally:
        front.close()


async def test_https_with_the_test_ca_calls_a_tool() -> None:
    ca = (FIXTURES / "tls-test-ca.pem").read_text()
    server = make_server()
    async with await server.serve_http("127.0.0.1", 0, allowed_hosts=["localhost"]) as http:
        async with https_front(http.port) as port:
            url = f"https://localhost:{port}/mcp"
            async with Client.http(url, root_certificates=[ca]) as c:
                r = await c.call_tool("add", {"a": 2, "b": 3})
                assert r["content"][0]["text"] == "5"
            with pytest.raises(TransportError, match="invalid peer certificate: UnknownIssuer"):
                async with Client.http(url, legacy_fallback=False):
                    pass
            with pytest.raises(TransportError, match="no PEM CERTIFICATE block"):
                async with Client.http(url, root_certificates=["not a certificate"]):
                    pass
