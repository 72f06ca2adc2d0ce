"""Shared fixtures."""

from __future__ import annotations

import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ferromcp import ProtectedResource

ROOT = Path(__file__).resolve().parents[2]
ECHO_SERVER = str(ROOT / "examples" / "python" / "echo_server.py")


@pytest.fixture
def echo_server_cmd() -> list[str]:
    return [sys.executable, ECHO_SERVER]


def token_protection(
    claims: Callable[[str], tuple[str, list[str]] | None],
    authorization_server: str = "http://as.example",
) -> tuple[int, str, ProtectedResource]:
    """A free local port, its `/mcp` resource URL and a `ProtectedResource` for a server to
    listen there with: a bearer token is verified as `claims(token)`'s (subject, scopes) with
    the resource as audience, or refused when `claims` gives None."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    resource = f"http://127.0.0.1:{port}/mcp"

    def verify(token: str) -> dict[str, Any] | None:
        found = claims(token)
        if found is None:
            return None
        subject, scopes = found
        return {"subject": subject, "scopes": scopes, "audience": [resource]}

    protection = ProtectedResource(
        resource=resource, verify=verify, authorization_servers=[authorization_server]
    )
    return port, resource, protection
