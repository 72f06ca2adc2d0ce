"""``serve_http(tls=TLS(...))``: the server itself serves ``https://`` (rustls in the engine), with
the client certificate's identity as ``ctx.auth``. The scenario names are the same in
core/tests/integration/http_tls.rs, bindings-node/test/tls.test.mjs and the Swift TLSTests. The PKI
is made per test module by tests/tls/make-test-pki.sh (the ``openssl`` command): a CA, its server
certificate, a client certificate for ``alice``, an expired one, and another CA's ``mallory``. The
official ``mcp`` client (``.tools/venv``) runs in a subprocess (tests/sdk_https_client.py); refusals
are read with the standard library's ``ssl``, which reports the TLS alert."""

from __future__ import annotations

import asyncio
import json
import shutil
import ssl
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ferromcp import TLS, Client, Context, InternalError, InvalidParams, Server, TransportError

from test_asgi_app import SDK_PYTHON, needs_sdk

ROOT = Path(__file__).resolve().parents[2]
SDK_HTTPS_CLIENT = str(Path(__file__).with_name("sdk_https_client.py"))


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    assert shutil.which("openssl"), "the openssl command makes the test PKI"
    d = tmp_path_factory.mktemp("pki")
    subprocess.run([str(ROOT / "tests" / "tls" / "make-test-pki.sh"), str(d)], check=True)
    yield d


def whoami_server() -> Server:
    server = Server("tls-test", version="1.0.0")

    @server.tool()
    def whoami(ctx: Context) -> str:
        """The request's identity (``ctx.auth``) as JSON."""
        return json.dumps(ctx.auth)

    @server.tool()
    def add(a: int, b: int) -> int:
        """Adds."""
        return a + b

    return server


async def sdk_https(url: str, pki: Path, client: str | None = None) -> dict[str, Any]:
    """The official client's answer to ``whoami`` (``text``), or ``error``."""
    extra = [str(pki / f"{client}.pem"), str(pki / f"{client}.key")] if client else []
    proc = await asyncio.create_subprocess_exec(
        SDK_PYTHON,
        SDK_HTTPS_CLIENT,
        url,
        str(pki / "ca.pem"),
        *extra,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()[-3000:]
    answer: dict[str, Any] = json.loads(out)
    return answer


async def raw_https(port: int, pki: Path, client: str | None) -> str:
    """One ``GET /healthz`` with the standard library's TLS: the status line, or the
    ``ssl.SSLError`` reason (the server's alert) when the handshake is refused."""
    ctx = ssl.create_default_context(cafile=str(pki / "ca.pem"))
    if client is not None:
        ctx.load_cert_chain(str(pki / f"{client}.pem"), str(pki / f"{client}.key"))
    try:
        reader, writer = await asyncio.open_connection(
            "127.0.0.1", port, ssl=ctx, server_hostname="localhost"
        )
        try:
            head = f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
            writer.write(head.encode())
            await writer.drain()
            line = await asyncio.wait_for(reader.readline(), 10)
        finally:
            writer.close()
    except ssl.SSLError as e:
        return str(e.reason)
    return line.decode().strip()


async def test_an_https_client_trusting_the_test_ca_calls_a_tool(pki: Path) -> None:
    tls = TLS(cert=pki / "server.pem", key=str(pki / "server.key"))
    async with await whoami_server().serve_http("127.0.0.1", 0, tls=tls) as http:
        assert http.url.startswith("https://127.0.0.1:")
        ca = (pki / "ca.pem").read_text()
        async with Client.http(http.url, root_certificates=[ca]) as c:
            r = await c.call_tool("add", {"a": 2, "b": 3})
            assert r["content"][0]["text"] == "5"
            who = await c.call_tool("whoami", {})
            assert json.loads(who["content"][0]["text"]) is None  # no client certificate asked
        with pytest.raises(TransportError, match="UnknownIssuer"):
            async with Client.http(http.url, legacy_fallback=False):
                pass


@needs_sdk
async def test_the_official_python_client_connects_over_https(pki: Path) -> None:
    tls = TLS(cert=pki / "server.pem", key=pki / "server.key")
    async with await whoami_server().serve_http("127.0.0.1", 0, tls=tls) as http:
        answer = await sdk_https(http.url, pki)
        assert "error" not in answer, answer
        assert json.loads(answer["text"]) is None


async def test_pem_bytes_serve_as_well_as_files(pki: Path) -> None:
    tls = TLS(
        cert=(pki / "server.pem").read_bytes(),
        key=(pki / "server.key").read_bytes(),
        client_ca=(pki / "ca.pem").read_bytes(),
    )
    async with await whoami_server().serve_http("127.0.0.1", 0, tls=tls) as http:
        assert await raw_https(http.port, pki, "alice") == "HTTP/1.1 200 OK"


@needs_sdk
async def test_a_client_certificate_is_the_principal_handlers_see(pki: Path) -> None:
    tls = TLS(cert=pki / "server.pem", key=pki / "server.key", client_ca=pki / "ca.pem")
    async with await whoami_server().serve_http("127.0.0.1", 0, tls=tls) as http:
        answer = await sdk_https(http.url, pki, "alice")
        assert "error" not in answer, answer
        auth = json.loads(answer["text"])
        assert auth["subject"] == "alice"
        cert = auth["claims"]["clientCertificate"]
        assert cert["subject"] == "CN=alice"
        assert cert["commonName"] == "alice"
        assert cert["dnsNames"] == ["alice"]
        assert cert["serialNumber"] == "02"
        assert auth["scopes"] == [] and auth["clientId"] is None


async def test_required_client_certificates_refuse_none_expired_and_other_cas_at_the_handshake(
    pki: Path,
) -> None:
    tls = TLS(cert=pki / "server.pem", key=pki / "server.key", client_ca=pki / "ca.pem")
    async with await whoami_server().serve_http("127.0.0.1", 0, tls=tls) as http:
        assert await raw_https(http.port, pki, None) == "TLSV13_ALERT_CERTIFICATE_REQUIRED"
        assert await raw_https(http.port, pki, "expired") == "SSLV3_ALERT_CERTIFICATE_EXPIRED"
        assert await raw_https(http.port, pki, "mallory") == "TLSV1_ALERT_UNKNOWN_CA"
        # the server goes on serving a client with a good certificate
        assert await raw_https(http.port, pki, "alice") == "HTTP/1.1 200 OK"


@needs_sdk
async def test_the_official_python_client_without_a_valid_certificate_is_refused(
    pki: Path,
) -> None:
    tls = TLS(cert=pki / "server.pem", key=pki / "server.key", client_ca=pki / "ca.pem")
    async with await whoami_server().serve_http("127.0.0.1", 0, tls=tls) as http:
        for client in (None, "expired", "mallory"):
            answer = await sdk_https(http.url, pki, client)
            assert "text" not in answer, (client, answer)
            assert "BrokenPipeError" in answer["error"] or "SSL" in answer["error"], answer


async def test_optional_client_certificates_serve_clients_without_one_anonymously(
    pki: Path,
) -> None:
    tls = TLS(
        cert=pki / "server.pem",
        key=pki / "server.key",
        client_ca=pki / "ca.pem",
        client_cert_required=False,
    )
    async with await whoami_server().serve_http("127.0.0.1", 0, tls=tls) as http:
        ca = (pki / "ca.pem").read_text()
        async with Client.http(http.url, root_certificates=[ca]) as c:
            who = await c.call_tool("whoami", {})
            assert json.loads(who["content"][0]["text"]) is None
        # one that is presented must still verify
        assert await raw_https(http.port, pki, "mallory") == "TLSV1_ALERT_UNKNOWN_CA"
        assert await raw_https(http.port, pki, "alice") == "HTTP/1.1 200 OK"


async def test_tls_options_that_do_not_load_are_an_error_at_start(pki: Path) -> None:
    server = whoami_server()
    missing = pki / "no-such.pem"
    with pytest.raises(InternalError, match="^HTTP options refused: .*cannot read .*no-such.pem"):
        await server.serve_http("127.0.0.1", 0, tls=TLS(cert=missing, key=pki / "server.key"))
    # a key that is not the certificate's
    with pytest.raises(InternalError, match="alice.key: keys may not be consistent"):
        await server.serve_http(
            "127.0.0.1", 0, tls=TLS(cert=pki / "server.pem", key=pki / "alice.key")
        )
    with pytest.raises(InvalidParams, match="clientCertRequired needs clientCaPath"):
        await server.serve_http(
            "127.0.0.1",
            0,
            tls=TLS(cert=pki / "server.pem", key=pki / "server.key", client_cert_required=True),
        )
    with pytest.raises(TypeError, match="TLS cert: expected a path"):
        TLS(cert=42, key=b"")._native_config()  # type: ignore[arg-type]
    # the server still starts afterwards
    async with await server.serve_http(
        "127.0.0.1", 0, tls=TLS(cert=pki / "server.pem", key=pki / "server.key")
    ) as http:
        assert await raw_https(http.port, pki, None) == "HTTP/1.1 200 OK"
