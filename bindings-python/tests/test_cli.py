"""The ``ferromcp`` command and ``ferromcp.__version__``."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import ferromcp
import pytest
from ferromcp import Context, Server

ROOT = Path(__file__).resolve().parents[2]

SERVER = textwrap.dedent(
    """
    import asyncio
    from ferromcp import Context, Server

    server = Server("cli-test")

    @server.tool
    def add(a: int, b: int = 2) -> int:
        '''Adds two numbers.'''
        return a + b

    @server.tool
    async def slow(ctx: Context, steps: int = 2) -> str:
        for i in range(1, steps + 1):
            await ctx.report_progress(i, steps, f"step {i}")
        return "done"

    @server.tool
    def fail() -> str:
        raise RuntimeError("nope")

    server.run()
    """
)


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ferromcp", *args], capture_output=True, text=True, timeout=60
    )


@pytest.fixture
def server_py(tmp_path: Path) -> str:
    path = tmp_path / "server.py"
    path.write_text(SERVER)
    return str(path)


def test_version() -> None:
    from importlib.metadata import version

    assert ferromcp.__version__ == version("ferromcp")
    assert ferromcp.__version__ == ferromcp.ENGINE_VERSION


def test_console_script_is_declared() -> None:
    text = (ROOT / "bindings-python" / "pyproject.toml").read_text()
    assert 'ferromcp = "ferromcp.cli:main"' in text


def test_list_over_stdio(server_py: str) -> None:
    r = cli("list", server_py)
    assert r.returncode == 0, r.stderr
    assert "add(a: integer, b?: integer)" in r.stdout
    assert "    Adds two numbers." in r.stdout
    r = cli("list", "--json", "--", sys.executable, server_py)
    assert r.returncode == 0, r.stderr
    listing = json.loads(r.stdout)
    assert {t["name"] for t in listing["tools"]} == {"add", "slow", "fail"}
    assert listing["resources"] == listing["prompts"] == []


def test_call_with_arguments_and_progress(server_py: str) -> None:
    r = cli("call", "add", "a=40", "--", server_py)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "42\n"  # a wrapped {"result": ...} prints as its text
    r = cli("call", "add", "--json", '{"a": 1, "b": 1}', "--raw", "--", server_py)
    assert json.loads(r.stdout)["structuredContent"] == {"result": 2}
    r = cli("call", "slow", "steps=3", "--", server_py)
    assert r.returncode == 0, r.stderr
    assert "progress 3/3 step 3" in r.stderr
    assert r.stdout == "done\n"
    r = cli("call", "fail", "--", server_py)
    assert r.returncode == 1
    assert "RuntimeError: nope" in r.stdout


def test_usage_and_unreachable_errors(server_py: str) -> None:
    assert cli("call", "add", "a=1").returncode == 2
    r = cli("call", "add", "a", "--", server_py)
    assert r.returncode != 0 and "KEY=VALUE" in r.stderr
    r = cli("list", "/nonexistent/program")
    assert r.returncode == 3


async def test_over_http() -> None:
    import asyncio

    server = Server("http-cli")

    @server.tool
    def who(ctx: Context) -> str:
        return ctx.headers.get("x-user", "?")

    async with await server.serve_http("127.0.0.1", 0) as http:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "ferromcp",
            "call",
            "who",
            "-H",
            "X-User: ada",
            "--",
            http.url,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(proc.communicate(), 60)
        assert proc.returncode == 0, err
        assert out == b"ada\n"
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "ferromcp",
            "list",
            http.url,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(proc.communicate(), 60)
        assert proc.returncode == 0, err
        assert out.decode().startswith("who()")


def test_object_results_print_as_json(tmp_path: Path) -> None:
    path = tmp_path / "obj.py"
    path.write_text(
        "from ferromcp import Server\n"
        "s = Server('o')\n"
        "@s.tool\n"
        "def point(x: int) -> dict:\n"
        "    return {'x': x, 'y': 0}\n"
        "s.run()\n"
    )
    r = cli("call", "point", "x=3", "--", str(path))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {"x": 3, "y": 0}


SDK_STYLE = textwrap.dedent(
    """
    import sys
    from ferromcp import MCPServer

    mcp = MCPServer("sdk-style", port=1)   # port 1: running __main__ would fail at once

    @mcp.tool()
    def add(a: int, b: int) -> int:
        '''Adds two numbers.'''
        return a + b

    @mcp.resource("config://app", mime_type="application/json")
    def config() -> str:
        '''The configuration.'''
        return "{}"

    @mcp.resource("users://{user_id}/profile")
    def profile(user_id: str) -> str:
        return user_id

    @mcp.prompt()
    def review(code: str, strict: bool = False) -> str:
        '''Reviews code.'''
        return code

    if __name__ == "__main__":
        print("__main__ ran", file=sys.stderr)
        mcp.run(transport="streamable-http")
    """
)


def test_list_imports_the_file_without_running_its_main_block(tmp_path: Path) -> None:
    path = tmp_path / "sdk_style.py"
    path.write_text(SDK_STYLE)
    r = cli("list", str(path))
    assert r.returncode == 0, r.stderr
    assert "__main__ ran" not in r.stderr
    assert r.stdout == textwrap.dedent(
        """\
        add(a: integer, b: integer)
            Adds two numbers.

        Resources:
        config://app (config) application/json
            The configuration.

        Resource templates:
        users://{user_id}/profile (profile) text/plain

        Prompts:
        review(code, strict?)
            Reviews code.
        """
    )
    r = cli("list", "--json", f"{path}:mcp")
    assert r.returncode == 0, r.stderr
    listing = json.loads(r.stdout)
    assert [t["name"] for t in listing["tools"]] == ["add"]
    assert [x["uri"] for x in listing["resources"]] == ["config://app"]
    assert [x["uriTemplate"] for x in listing["resourceTemplates"]] == ["users://{user_id}/profile"]
    assert [x["name"] for x in listing["prompts"]] == ["review"]
    r = cli("call", "add", "a=1", "b=2", "--", str(path))
    assert r.returncode == 0, r.stderr
    assert r.stdout == "3\n"
