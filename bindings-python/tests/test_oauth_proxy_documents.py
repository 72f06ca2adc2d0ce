"""ferromcp.OAuthProxy's Client ID Metadata Documents option (``client_id_documents``): the
metadata advertises ``client_id_metadata_document_supported`` when they are on (the default)
and not when they are off, and the limits given reach the engine's fetch: an ``https://``
client id on a loopback address is refused as not public by default, and fetched (here: a
connection refused, nothing listens) with ``allow_private_addresses``. The same scenarios as
bindings-node/test/oauth_proxy_documents.test.mjs."""

from __future__ import annotations

import json
import socket
import urllib.parse
from typing import Any

import pytest

from ferromcp import InvalidParams, OAuthProxy


def closed_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def proxy(documents: dict[str, Any] | None) -> OAuthProxy:
    return await OAuthProxy.create(
        issuer_url="http://127.0.0.1:8000",
        resource_server_url="http://127.0.0.1:8000/mcp",
        upstream={"preset": "github", "client_id": "id", "client_secret": "s"},
        client_id_documents=documents,
    )


async def authorize_refusal(p: OAuthProxy, client_id: str) -> dict[str, Any]:
    """The JSON error /authorize answers for ``client_id``."""
    query = urllib.parse.urlencode(
        {
            "client_id": client_id,
            "response_type": "code",
            "redirect_uri": "http://127.0.0.1:5555/cb",
            "code_challenge": "c" * 43,
            "code_challenge_method": "S256",
        }
    )
    answer = await p.handle("GET", f"/authorize?{query}", [], b"")
    assert answer is not None
    status, _headers, body = answer
    assert status == 400, body
    refusal: dict[str, Any] = json.loads(body)
    return refusal


async def test_client_id_documents_are_advertised_when_enabled_and_their_limits_applied() -> None:
    url = f"https://127.0.0.1:{closed_port()}/client.json"
    default = await proxy(None)
    assert default.metadata()["client_id_metadata_document_supported"] is True
    not_public = await authorize_refusal(default, url)
    assert not_public["error"] == "invalid_client"
    assert "not a public address" in not_public["error_description"]

    enabled = await proxy(
        {"enabled": True, "allow_private_addresses": True, "timeout_seconds": 2, "max_bytes": 512}
    )
    assert enabled.metadata()["client_id_metadata_document_supported"] is True
    fetched = await authorize_refusal(enabled, url)
    assert fetched["error"] == "invalid_client"
    assert "connecting to 127.0.0.1" in fetched["error_description"], fetched

    disabled = await proxy({"enabled": False})
    assert "client_id_metadata_document_supported" not in disabled.metadata()
    unknown = await authorize_refusal(disabled, url)
    assert unknown["error"] == "invalid_client"
    assert "could not be read" not in unknown["error_description"]

    for bad, word in [({"max_bytes": 0}, "maxBytes"), ({"max_size": 1}, "maxSize")]:
        with pytest.raises(InvalidParams, match=word):
            await proxy(bad)
