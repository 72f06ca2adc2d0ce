"""Shared fixtures."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ECHO_SERVER = str(ROOT / "examples" / "python" / "echo_server.py")


@pytest.fixture
def echo_server_cmd() -> list[str]:
    return [sys.executable, ECHO_SERVER]
