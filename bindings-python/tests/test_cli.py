"""The ``ferromcp`` command of the Python package: the engine's command (crate ``ferromcp-cli``)
run from ``ferromcp._native.cli_main`` by the console script and by ``python -m ferromcp``;
``.py`` servers are served by this interpreter (``ferromcp.cli.python_servers``)."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import ferromcp
import pytest
from ferromcp import Context, Server
from ferromcp.cli import python_servers

ROOT = Path(__file__).resolve().parents[2]

SERVER = textwrap.dedent(
    """
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


def console_script() -> Path:
    """The ``ferromcp`` script pip (or maturin develop) installed beside this interpreter."""
    return Path(sys.executable).parent / ("ferromcp.exe" if sys.platform == "win32" else "ferromcp")


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


def test_help_of_the_console_script_and_python_m_is_the_engine_command() -> None:
    script = console_script()
    assert script.is_file(), f"{script}: the console script is not installed"
    for argv in ([str(script), "--help"], [sys.executable, "-m", "ferromcp", "--help"]):
        r = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        assert r.stdout.startswith("ferromcp: a proxy in front of MCP servers")
        assert "ferromcp proxy --config mcp.json --port N" in r.stdout
        assert "ferromcp inspect SERVER [--json]" in r.stdout
    r = cli("--version")
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"ferromcp {ferromcp.ENGINE_VERSION}\n"


def test_python_files_become_this_interpreter_serving_them() -> None:
    serve = shlex.join([sys.executable, "-m", "ferromcp._serve", "s.py"])
    assert python_servers(["list", "s.py"]) == ["list", serve]
    assert python_servers(["call", "--json", "s.py", "add", "a=1"]) == [
        "call",
        "--json",
        serve,
        "add",
        "a=1",
    ]
    obj = shlex.join([sys.executable, "-m", "ferromcp._serve", "dir/s.py:mcp"])
    assert python_servers(["inspect", "--", "dir/s.py:mcp"]) == ["inspect", "--", obj]
    # Only the SERVER operand, only for client commands; a command line is left as it is.
    assert python_servers(["call", "node s.js", "x.py"]) == ["call", "node s.js", "x.py"]
    assert python_servers(["list", "python s.py"]) == ["list", "python s.py"]
    assert python_servers(["proxy", "--config", "a.py"]) == ["proxy", "--config", "a.py"]
    assert python_servers([]) == []


def test_list_over_stdio(server_py: str) -> None:
    r = subprocess.run(
        [str(console_script()), "list", server_py], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0, r.stderr
    assert "add(a: integer, b?: integer)\n    Adds two numbers.\n" in r.stdout
    assert "slow(steps?: integer)" in r.stdout
    # A command line works too: this interpreter running the file as a script.
    r = cli("list", shlex.join([sys.executable, server_py]), "--json")
    assert r.returncode == 0, r.stderr
    assert {t["name"] for t in json.loads(r.stdout)["tools"]} == {"add", "slow", "fail"}


def test_call_with_arguments_and_progress(server_py: str) -> None:
    r = cli("call", server_py, "add", "a=40")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("42\n")
    r = cli("call", server_py, "add", '{"a": 1, "b": 1}', "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["structuredContent"] == {"result": 2}
    r = cli("call", server_py, "slow", "steps=3")
    assert r.returncode == 0, r.stderr
    assert "progress 3/3: step 3\n" in r.stderr
    assert r.stdout.startswith("done\n")  # then the structured content, {"result": "done"}
    r = cli("call", server_py, "fail")
    assert r.returncode == 1
    assert "RuntimeError: nope" in r.stdout + r.stderr


def test_usage_and_unreachable_errors(server_py: str) -> None:
    r = cli("call", server_py)
    assert r.returncode == 2
    assert "TOOL is required" in r.stderr
    assert cli("frobnicate").returncode == 2
    r = cli("list", "/nonexistent/program")
    assert r.returncode == 1
    assert "cannot connect to" in r.stderr


async def test_over_http() -> None:
    import asyncio

    server = Server("http-cli")

    @server.tool
    def who(ctx: Context) -> str:
        return ctx.headers.get("x-user", "anonymous")

    async with await server.serve_http("127.0.0.1", 0) as http:
        for args, want in (
            (("call", http.url, "who"), "anonymous\n"),
            (("list", http.url), "who()\n"),
        ):
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "ferromcp",
                *args,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
            out, err = await asyncio.wait_for(proc.communicate(), 60)
            assert proc.returncode == 0, err
            assert out.decode().startswith(want), out


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

    @mcp.prompt()
    def review(code: str, strict: bool = False) -> str:
        '''Reviews code.'''
        return code

    if __name__ == "__main__":
        print("__main__ ran", file=sys.stderr)
        mcp.run(transport="streamable-http")
    """
)


def test_a_python_file_is_imported_without_running_its_main_block(tmp_path: Path) -> None:
    path = tmp_path / "sdk_style.py"
    path.write_text(SDK_STYLE)
    r = cli("list", str(path))
    assert r.returncode == 0, r.stderr
    assert "__main__ ran" not in r.stderr
    assert r.stdout.startswith("add(a: integer, b: integer)\n    Adds two numbers.\n")
    r = cli("list", f"{path}:mcp", "resources", "--json")
    assert r.returncode == 0, r.stderr
    assert [x["uri"] for x in json.loads(r.stdout)["resources"]] == ["config://app"]
    r = cli("list", str(path), "prompts", "--json")
    assert [x["name"] for x in json.loads(r.stdout)["prompts"]] == ["review"]
    r = cli("call", str(path), "add", "a=1", "b=2")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("3\n")
