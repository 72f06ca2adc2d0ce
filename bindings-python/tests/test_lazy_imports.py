"""A server's start-up imports only what serving needs (cold start, issue 18); the rest of the
public names are imported on first use and are the same objects as before."""

from __future__ import annotations

import subprocess
import sys

import ferromcp

LAZY_MODULES = (
    "ferromcp.auth",
    "ferromcp.client",
    "ferromcp.compat",
    "ferromcp.content",
    "ferromcp.results",
)


def test_a_plain_server_imports_no_optional_module() -> None:
    code = (
        "import sys\n"
        "from ferromcp import Server\n"
        "s = Server('t')\n"
        "@s.tool()\n"
        "def echo(text: str) -> str:\n"
        "    return text\n"
        f"loaded = [m for m in {LAZY_MODULES!r} + ('asyncio',) if m in sys.modules]\n"
        "assert not loaded, f'imported at start-up: {loaded}'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_lazy_names_are_the_modules_objects() -> None:
    from ferromcp import auth, client, compat, content, results

    assert ferromcp.Image is content.Image
    assert ferromcp.ToolAnnotations is content.ToolAnnotations
    assert ferromcp.FastMCP is compat.FastMCP
    assert ferromcp.OAuth is auth.OAuth
    assert ferromcp.CallToolResult is results.CallToolResult
    assert ferromcp.Client is client.Client
    assert set(ferromcp.__all__) <= set(dir(ferromcp))


def test_star_import_and_unknown_names() -> None:
    namespace: dict[str, object] = {}
    exec("from ferromcp import *", namespace)
    assert all(name in namespace for name in ferromcp.__all__)
    try:
        ferromcp.NoSuchName  # noqa: B018
    except AttributeError as e:
        assert "NoSuchName" in str(e)
    else:
        raise AssertionError("an unknown name resolved")
