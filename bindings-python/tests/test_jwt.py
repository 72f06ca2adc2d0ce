"""ferromcp.JwtVerifier: a server protected by the built-in JWT verifier, its keys fetched from a
JWKS URL served here, accepts a token signed with the test-only RSA key (RS256, signed in pure
Python) and refuses a tampered, an expired and a wrong-audience one, and a token under the
required scope; ctx.auth carries the token's claims. Also the settings checks."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import pathlib
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from ferromcp import (
    Client,
    Context,
    IntrospectionVerifier,
    JwtVerifier,
    ProtectedResource,
    Server,
    TransportError,
)

KEY = json.loads(
    (pathlib.Path(__file__).parents[2] / "core/tests/fixtures/jwt-rsa-test-key.json").read_text()
)
ISSUER = "http://as.example"


def b64e(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64int(text: str) -> int:
    return int.from_bytes(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)), "big")


def rs256(claims: dict[str, Any]) -> str:
    """An RS256 JWS (RSASSA-PKCS1-v1_5 with SHA-256, RFC 8017 section 8.2) with the fixture key."""
    header = {"alg": "RS256", "typ": "at+jwt", "kid": KEY["kid"]}
    signed = f"{b64e(json.dumps(header).encode())}.{b64e(json.dumps(claims).encode())}"
    n, d = b64int(KEY["n"]), b64int(KEY["d"])
    k = (n.bit_length() + 7) // 8
    digest_info = bytes.fromhex("3031300d060960864801650304020105000420")
    digest_info += hashlib.sha256(signed.encode()).digest()
    em = b"\x00\x01" + b"\xff" * (k - 3 - len(digest_info)) + b"\x00" + digest_info
    sig = pow(int.from_bytes(em, "big"), d, n).to_bytes(k, "big")
    return f"{signed}.{b64e(sig)}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Jwks(BaseHTTPRequestHandler):
    fetches = 0

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        Jwks.fetches += 1
        body = json.dumps(
            {"keys": [{"kty": "RSA", "kid": KEY["kid"], "n": KEY["n"], "e": KEY["e"]}]}
        )
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError):
        JwtVerifier()
    with pytest.raises(ValueError):
        JwtVerifier(jwks_url="http://x/jwks", jwks={"keys": []})
    with pytest.raises(ValueError):
        IntrospectionVerifier(endpoint="http://x/introspect", client_id="a")
    jwt = JwtVerifier(jwks_url="http://x/jwks")
    with pytest.raises(ValueError):
        ProtectedResource(resource="http://x/mcp", authorization_servers=[ISSUER])
    with pytest.raises(ValueError):
        ProtectedResource(
            resource="http://x/mcp", authorization_servers=[ISSUER], jwt=jwt, verify=lambda t: None
        )


async def test_jwt_protected_server_accepts_a_good_token_and_refuses_bad_ones() -> None:
    jwks = ThreadingHTTPServer(("127.0.0.1", 0), Jwks)
    threading.Thread(target=jwks.serve_forever, daemon=True).start()
    port = free_port()
    resource = f"http://127.0.0.1:{port}/mcp"
    server = Server("jwt-protected")

    @server.tool()
    async def whoami(ctx: Context) -> str:
        auth = ctx.auth
        assert auth is not None
        return f"{auth['subject']}|{' '.join(auth['scopes'])}|{auth['claims']['tenant']}"

    protection = ProtectedResource(
        resource=resource,
        authorization_servers=[ISSUER],
        jwt=JwtVerifier(jwks_url=f"http://127.0.0.1:{jwks.server_address[1]}/jwks"),
        required_scopes=["mcp"],
    )

    def claims(**over: Any) -> dict[str, Any]:
        c = {
            "iss": ISSUER,
            "sub": "alice",
            "aud": resource,
            "scope": "mcp extra",
            "exp": int(time.time()) + 600,
            "tenant": "t1",
        }
        c.update(over)
        return c

    try:
        async with await server.serve_http("127.0.0.1", port, auth=protection) as http:
            good = {"Authorization": f"Bearer {rs256(claims())}"}
            async with Client.http(http.url, headers=good) as client:
                r = await client.call_tool("whoami", {})
                assert r["content"][0]["text"] == "alice|mcp extra|t1"
            head, payload, sig = rs256(claims()).split(".")
            tampered = f"{head}.{b64e(json.dumps(claims(sub='admin')).encode())}.{sig}"
            for token, status in [
                (tampered, 401),
                (rs256(claims(exp=int(time.time()) - 600)), 401),
                (rs256(claims(aud="http://other.example/mcp")), 401),
                (rs256(claims(iss="http://evil.example")), 401),
                (rs256(claims(scope="extra")), 403),
            ]:
                with pytest.raises(TransportError) as e:
                    headers = {"Authorization": f"Bearer {token}"}
                    await Client.http(http.url, headers=headers, legacy_fallback=False).connect()
                assert (e.value.data or {}).get("httpStatus") == status, (token, e.value)
        assert Jwks.fetches == 1
    finally:
        await asyncio.to_thread(jwks.shutdown)
        jwks.server_close()
