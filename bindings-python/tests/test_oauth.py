"""ferromcp.OAuth: argument checks and what reaches the engine (the flow itself runs in the
conformance suite's auth/* scenarios, tests/run-python.sh)."""

from __future__ import annotations

import pathlib
from typing import Any

import pytest

from ferromcp import Client, OAuth


class DictStore:
    def __init__(self) -> None:
        self.data: dict[str, dict[str, Any]] = {}

    def load(self, key: str) -> dict[str, Any] | None:
        return self.data.get(key)

    def save(self, key: str, value: dict[str, Any]) -> None:
        self.data[key] = value

    def remove(self, key: str) -> None:
        self.data.pop(key, None)


async def redirect(url: str) -> str:
    return url


def test_inconsistent_options_are_refused() -> None:
    with pytest.raises(ValueError, match="redirect_uri"):
        OAuth(on_redirect=redirect)
    with pytest.raises(ValueError, match="client_id and client_secret"):
        OAuth(client_credentials=True, client_id="x")
    with pytest.raises(ValueError, match="max_attempts"):
        OAuth(max_attempts=0)


def test_token_store_kinds(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "tokens.json"
    c = OAuth(token_store=path)._native_config()
    assert (c["token_file"], c["token_store"]) == (str(path), None)
    store = DictStore()
    c = OAuth(token_store=store)._native_config()
    assert (c["token_file"], c["token_store"]) == (None, store)
    c = OAuth(client_credentials=True, client_id="a", client_secret="b")._native_config()
    assert c["grant"] == "client_credentials"


async def test_unreachable_server_fails_with_a_transport_error() -> None:
    # Nothing listens on port 9: the engine accepts the OAuth config and fails to connect.
    client = Client.http(
        "http://127.0.0.1:9/mcp",
        legacy_fallback=False,
        auth=OAuth(
            on_redirect=redirect, redirect_uri="http://127.0.0.1:1/cb", token_store=DictStore()
        ),
    )
    with pytest.raises(Exception, match="(?i)transport|connect"):
        await client.connect()
