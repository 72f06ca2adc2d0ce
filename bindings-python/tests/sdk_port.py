"""The import rewrite of the SDK porting tests (tests/test_sdk_examples.py,
tests/test_sdk_client_examples.py): the whole port of an official SDK example to ferromcp. Not a
test."""

from __future__ import annotations

import re

# The whole port: each official import -> its ferromcp equivalent (MIGRATION.md's table).
IMPORTS = [
    (r"^from mcp\.server\.fastmcp import", "from ferromcp import"),
    (r"^from mcp\.server\.mcpserver\.prompts import", "from ferromcp.prompts import"),
    (r"^from mcp\.server\.mcpserver import", "from ferromcp import"),
    (r"^from mcp\.server(\.lowlevel)? import", "from ferromcp.lowlevel import"),
    (r"^import mcp\.server\.stdio$", "import ferromcp.lowlevel.stdio"),
    (r"\bmcp\.server\.stdio\.stdio_server\b", "ferromcp.lowlevel.stdio.stdio_server"),
    (r"^from mcp import types$", "from ferromcp import types"),
    (r"^from mcp\.types import", "from ferromcp.types import"),
    (r"^import mcp\.types as types$", "import ferromcp.types as types"),
    (r"^from mcp\.shared\.exceptions import", "from ferromcp.errors import"),
    # The client side: mcp.ClientSession and its transports (ferromcp.client.*).
    (r"^from mcp import", "from ferromcp import"),
    (r"^from mcp\.client\.(\w+) import", r"from ferromcp.client.\1 import"),
    (r"^from mcp\.shared\.metadata_utils import", "from ferromcp.shared.metadata_utils import"),
]


def port_source(source: str) -> str:
    """``source`` with its official-SDK imports replaced by ferromcp's."""
    for pattern, replacement in IMPORTS:
        source = re.sub(pattern, replacement, source, flags=re.M)
    return source
