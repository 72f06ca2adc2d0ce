"""The official Python SDK's own client examples (``examples/snippets/clients``, in
tests/sdk_examples) ported to ferromcp by changing their imports only (tests/sdk_port.py), run
against the official SDK's servers.

Each client runs twice from a copy of the snippets directory, as its docstring says to run it:
the original under the SDK's interpreter, the port under ferromcp's. The servers they start
(``uv run server NAME stdio``, ``uv run mcp-simple-pagination``, ``python
path/to/mcp_server.py``) are the SDK's originals under the SDK's interpreter, through ``uv`` and
``python`` stand-ins on ``PATH`` (``uv`` itself is not needed). The clients that connect to
``http://localhost:8000`` run with their server in a network namespace of their own
(``unshare -rn``), so that port 8000 is theirs. The port's output must equal the original's
(random elicitation ids aside), and holds the answers checked in :data:`EXPECTED`. The clients
that do not port are in :data:`NOT_PORTING` with the reason, checked."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from sdk_port import port_source

HERE = Path(__file__).resolve().parent
SDK_EXAMPLES = HERE / "sdk_examples"
ROOT = HERE.parents[1]
SDK_PYTHON = os.environ.get("FERROMCP_SDK_PYTHON", str(ROOT / ".tools" / "venv" / "bin" / "python"))

# A server for parsing_tool_results.py, which names "path/to/mcp_server.py" and the tools it
# calls but ships no server: written here with the official SDK.
PARSING_SERVER = """
from pydantic import BaseModel

from mcp.server.mcpserver import Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import EmbeddedResource, TextResourceContents

mcp = MCPServer("parsing")


class User(BaseModel):
    name: str
    age: int


@mcp.tool()
def get_data(format: str) -> str:
    return f"data as {format}"


@mcp.tool()
def get_user(id: str) -> User:
    return User(name=f"user {id}", age=36)


@mcp.tool()
def read_config() -> EmbeddedResource:
    contents = TextResourceContents(uri="config://app", text="debug=true", mime_type="text/plain")
    return EmbeddedResource(type="resource", resource=contents)


@mcp.tool()
def generate_chart(data: list[int]) -> Image:
    return Image(data=bytes(data), format="png")


@mcp.tool()
def failing_tool() -> str:
    raise ToolError("the chart service is down")


if __name__ == "__main__":
    mcp.run()
"""

# What each ported client prints, among the rest (the whole output is compared with the
# original's).
EXPECTED = {
    "stdio_client": [
        "Available tools: ['add']",
        "Resource content: Hello, World!",
        "Tool result: 8",
        "Structured tool result: {'result': 8}",
    ],
    "completion_client": [
        "Completions for 'repo' with owner='modelcontextprotocol': "
        "['python-sdk', 'typescript-sdk', 'specification']",
    ],
    "display_utilities": ["Tool: add", "Resource Template: get_greeting"],
    "pagination_client": ["Fetched 10 resources", "Total resources: 30"],
    "parsing_tool_results": [
        "Text: data as text",
        "User: user 123, Age: 36",
        "Config from config://app: debug=true",
        "Image (image/png): 4 bytes",
        "Tool execution failed!",
        "Error: Error executing tool failing_tool: the chart service is down",
    ],
    "streamable_basic": ["Available tools: ['add']"],
    "url_elicitation_client": [
        "Connected! Type 'help' for available commands.",
        "  - secure_payment: Process a secure payment requiring URL confirmation.",
        "  Full URL: https://payments.example.com/confirm?amount=99.99&id=<id>",
        "  Payment of $99.99 initiated - check your browser to complete",
        "[Tool requires URL elicitation to proceed]",
        "    Authorization required to connect to github",
        "Open this URL in your browser? (y/n): URL navigation declined.",
        "> Goodbye!",
    ],
}
# The clients that need http://localhost:8000, with the command serving it there (run in the
# snippets directory under the SDK's interpreter) and what they read on stdin.
ON_PORT_8000 = {
    "streamable_basic": (["servers/mcpserver_quickstart.py"], ""),
    "url_elicitation_client": (
        ["-c", "from servers import run_server; run_server()", "elicitation", "sse"],
        "list-tools\nsecure-payment\ny\nconnect-service\nn\nquit\n",
    ),
}
NOT_PORTING = {
    "oauth_client": (
        "the SDK's OAuth client (mcp.client.auth.OAuthClientProvider, TokenStorage, "
        "mcp.shared.auth models) has no import-compatible equivalent: ferromcp's is "
        "Client.http(url, auth=OAuth(...)) (it stops first at the SDK's HTTP client, httpx2)",
        "No module named 'httpx2'",
    ),
    "identity_assertion_client": (
        "the SDK's identity-assertion OAuth extension (mcp.client.auth.extensions) has no "
        "equivalent in ferromcp (it stops first at the SDK's HTTP client, httpx2)",
        "No module named 'httpx2'",
    ),
}


def all_client_snippets() -> list[str]:
    names = [p.stem for p in (SDK_EXAMPLES / "clients").glob("*.py")]
    return sorted(n for n in names if n != "__init__")


def write_stand_ins(bin_dir: Path, originals: Path) -> None:
    """``uv`` and ``python`` on PATH, starting the SDK's original servers."""
    bin_dir.mkdir()
    simple = originals / "simple-pagination"
    uv = f"""#!/bin/sh
# The two `uv run` forms the client snippets use; the servers are the SDK's originals.
if [ "$1 $2" = "run server" ]; then
  cd "{originals}" && exec "{SDK_PYTHON}" -c "from servers import run_server; run_server()" \
    "$3" "${{4:-stdio}}"
elif [ "$1 $2" = "run mcp-simple-pagination" ]; then
  cd "{simple}" && exec "{SDK_PYTHON}" -m mcp_simple_pagination
fi
echo "uv stand-in: unexpected arguments: $*" >&2
exit 2
"""
    (bin_dir / "uv").write_text(uv)
    (bin_dir / "python").write_text(f'#!/bin/sh\nexec "{SDK_PYTHON}" "$@"\n')
    for f in ("uv", "python"):
        (bin_dir / f).chmod(0o755)


def netns_available() -> bool:
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return False
    p = subprocess.run(["unshare", "-rn", "ip", "link", "set", "lo", "up"], capture_output=True)
    return p.returncode == 0


def port_8000_free() -> bool:
    import socket

    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", 8000))
        except OSError:
            return False
        return True


SERVE_ON_8000 = """
set -e
[ -n "$NETNS" ] && ip link set lo up
cd "$SERVER_DIR"
"$SDK_PYTHON" "$@" >"$SERVER_LOG" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null || true' EXIT
"$SDK_PYTHON" -c "
import socket, time
for _ in range(600):
    try:
        socket.create_connection(('127.0.0.1', 8000), 0.2).close()
        break
    except OSError:
        time.sleep(0.05)
else:
    raise SystemExit('the server did not listen on 8000')
"
cd "$CLIENT_DIR"
"$CLIENT_PYTHON" "clients/$CLIENT.py" <"$CLIENT_INPUT"
"""


def run_client(
    name: str, interpreter: str, client_dir: Path, originals: Path, bin_dir: Path, tmp: Path
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    env["BROWSER"] = "true"  # url_elicitation_client "opens" the URL with `true URL`
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if name not in ON_PORT_8000:
        return subprocess.run(
            [interpreter, f"clients/{name}.py"],
            cwd=client_dir,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
    server_args, stdin = ON_PORT_8000[name]
    kind = "port" if interpreter == sys.executable else "original"
    stdin_file = tmp / f"{name}-{kind}.stdin"
    stdin_file.write_text(stdin)
    env |= {
        "SERVER_DIR": str(originals),
        "SDK_PYTHON": SDK_PYTHON,
        "SERVER_LOG": str(tmp / f"{name}-{kind}-server.log"),
        "CLIENT_DIR": str(client_dir),
        "CLIENT_PYTHON": interpreter,
        "CLIENT": name,
        "CLIENT_INPUT": str(stdin_file),
    }
    command = ["sh", "-c", SERVE_ON_8000, "serve", *server_args]
    if NETNS:
        env["NETNS"] = "1"
        command = ["unshare", "-rn", *command]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)


NETNS = netns_available()


class Runs:
    def __init__(self, ported: Path, out: dict[str, dict[str, subprocess.CompletedProcess[str]]]):
        self.ported = ported
        self.out = out


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runs]:
    if not Path(SDK_PYTHON).exists():
        pytest.fail(
            f"the official mcp SDK's interpreter {SDK_PYTHON} is missing: run "
            "scripts/setup-test-deps --python-only (or set FERROMCP_SDK_PYTHON)"
        )
    if not NETNS and not port_8000_free():
        pytest.fail(
            "streamable_basic.py and url_elicitation_client.py need port 8000: `unshare -rn` "
            "(a network namespace of their own) is not available and 127.0.0.1:8000 is taken"
        )
    tmp = tmp_path_factory.mktemp("sdk-clients")
    ported, originals = tmp / "ported", tmp / "originals"
    for d in (ported, originals):
        shutil.copytree(SDK_EXAMPLES, d, ignore=shutil.ignore_patterns("__pycache__"))
        (d / "path" / "to").mkdir(parents=True)
        (d / "path" / "to" / "mcp_server.py").write_text(PARSING_SERVER)
    for f in (ported / "clients").glob("*.py"):
        f.write_text(port_source(f.read_text()))
    bin_dir = tmp / "bin"
    write_stand_ins(bin_dir, originals)

    names = [n for n in all_client_snippets() if n not in NOT_PORTING]
    jobs = [
        (name, kind, interpreter, d)
        for name in names
        for kind, interpreter, d in (
            ("original", SDK_PYTHON, originals),
            ("port", sys.executable, ported),
        )
    ]
    # The two clients on port 8000 share it when there is no namespace: not at the same time.
    parallel = [j for j in jobs if NETNS or j[0] not in ON_PORT_8000]
    serial = [j for j in jobs if j not in parallel]
    out: dict[str, dict[str, subprocess.CompletedProcess[str]]] = {n: {} for n in names}
    with ThreadPoolExecutor(4) as pool:
        futures = {
            (name, kind): pool.submit(run_client, name, py, d, originals, bin_dir, tmp)
            for name, kind, py, d in parallel
        }
        for (name, kind), future in futures.items():
            out[name][kind] = future.result()
    for name, kind, py, d in serial:
        out[name][kind] = run_client(name, py, d, originals, bin_dir, tmp)
    yield Runs(ported, out)


def normalized(output: str) -> list[str]:
    """The output's lines, elicitation ids (uuid4) replaced."""
    uuid = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    return re.sub(uuid, "<id>", output).splitlines()


def check_client(runs: Runs, name: str) -> None:
    if name in NOT_PORTING:
        _reason, error = NOT_PORTING[name]
        p = subprocess.run(
            [sys.executable, f"clients/{name}.py"],
            cwd=runs.ported,
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        assert p.returncode != 0 and error in p.stderr, p.stderr[-2000:]
        return
    original, port = runs.out[name]["original"], runs.out[name]["port"]
    assert original.returncode == 0, f"the SDK's own {name} failed:\n{original.stderr[-3000:]}"
    assert port.returncode == 0, f"the port of {name} failed:\n{port.stderr[-3000:]}"
    lines = normalized(port.stdout)
    for expected in EXPECTED[name]:
        assert expected in lines, f"{expected!r} not in the output of {name}:\n{port.stdout}"
    assert lines == normalized(original.stdout), (
        f"{name}: the port printed\n{port.stdout}\nthe original\n{original.stdout}"
    )


@pytest.mark.parametrize("name", all_client_snippets())
def test_sdk_client_snippet_ports_by_changing_its_imports(runs: Runs, name: str) -> None:
    """Each client snippet: the port prints what the original prints against the same SDK
    servers (or, for :data:`NOT_PORTING`, stops with the reason given)."""
    assert name in EXPECTED or name in NOT_PORTING, f"new snippet {name}: add it"
    check_client(runs, name)


def test_the_sdk_client_snippets_that_port(runs: Runs) -> None:
    names = all_client_snippets()
    ported: list[Any] = []
    for name in names:
        if name in NOT_PORTING:
            continue
        try:
            check_client(runs, name)
        except AssertionError:
            continue
        ported.append(name)
    print(f"SDK client snippets ported by an import change: {len(ported)}/{len(names)}")
    assert sorted(ported) == sorted(set(names) - set(NOT_PORTING))
