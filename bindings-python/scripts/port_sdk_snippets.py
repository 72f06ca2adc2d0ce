#!/usr/bin/env python3
"""Ports the official Python SDK's server snippets (``examples/snippets/servers`` of
github.com/modelcontextprotocol/python-sdk, MIT) to ferromcp by rewriting their imports only, and
runs each original (in memory, with the SDK's server) and each port (ferromcp over stdio) with the
official ``mcp`` client, in the handshake era (``legacy``) and with ``auto`` (2026-07-28 when
offered). Prints one line per snippet and mode: SAME, or DIFF with the diff of the transcripts
(``"version"`` lines, the server's default version, are ignored). MIGRATION.md says what came out.

    port_sdk_snippets.py SNIPPETS_DIR SDK_PYTHON FERROMCP_PYTHON [NAME ...]

SDK_PYTHON: an interpreter with the official ``mcp`` (``.tools/venv/bin/python`` after
``scripts/setup-test-deps --python-only``); FERROMCP_PYTHON: one that imports ferromcp
(``.tools/venv-python-binding/bin/python``). For the low-level snippets pass
``SNIPPETS_DIR/lowlevel`` (and ``pagination_example``); their ``mcp.server.stdio.stdio_server``
is rewritten too. Nothing is copied into the repository: the ports are
written to a temporary directory. Run as ``port_sdk_snippets.py --client ...`` it is the client
side (internal)."""

from __future__ import annotations

import difflib
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

IMPORTS = [
    # The low-level API (ferromcp.lowlevel); the stdio module's dotted path is used in the body.
    (r"^from mcp\.server(\.lowlevel)? import", "from ferromcp.lowlevel import"),
    (r"^import mcp\.server\.stdio$", "import ferromcp.lowlevel.stdio"),
    (r"\bmcp\.server\.stdio\.stdio_server\b", "ferromcp.lowlevel.stdio.stdio_server"),
    (r"^from mcp import types$", "from ferromcp import types"),
    (r"^from mcp\.server\.mcpserver\.prompts import", "from ferromcp.prompts import"),
    (r"^from mcp\.server\.mcpserver import", "from ferromcp import"),
    (r"^from mcp\.types import", "from ferromcp.types import"),
    (r"^import mcp\.types as types", "import ferromcp.types as types"),
    (r"^from mcp\.shared\.exceptions import", "from ferromcp.errors import"),
]
ARGS = {"a": 2, "b": 3, "city": "Paris", "name": "Ada", "data": "d", "topic": "sea", "user_id": "7",
        "address": "x", "data_type": "t", "task_name": "job", "steps": 2, "date": "2024-12-25",
        "time": "19:00", "party_size": 2, "amount": 9.5, "service_name": "gh", "text": "t",
        "image_path": "/nonexistent.png", "message": "m"}  # fmt: skip


def port(source: str) -> str:
    for pattern, replacement in IMPORTS:
        source = re.sub(pattern, replacement, source, flags=re.M)
    return source


# ---- client side (runs under SDK_PYTHON) -------------------------------------------------------
async def transcript(target: Any, mode: str, do_complete: bool) -> list[Any]:
    import mcp.types as types
    from mcp import Client

    def norm(x: Any) -> Any:
        return (
            x.model_dump(by_alias=True, exclude_none=True, mode="json")
            if hasattr(x, "model_dump")
            else x
        )

    async def sampling(ctx: Any, params: Any) -> Any:
        text = types.TextContent(type="text", text="a poem")
        return types.CreateMessageResult(role="assistant", content=text, model="m")

    async def elicit(ctx: Any, params: Any) -> Any:
        if norm(params).get("mode") == "url":
            return types.ElicitResult(action="accept")
        content = {"checkAlternative": True, "alternativeDate": "2024-12-26"}
        return types.ElicitResult(action="accept", content=content)

    out: list[Any] = []
    logs: list[Any] = []

    async def on_log(p: Any) -> None:
        logs.append(norm(p))

    async def listed(call: Any, key: str) -> list[Any]:
        try:
            return list(getattr(await call(), key))
        except Exception as e:  # noqa: BLE001 - a capability the server lacks: nothing listed
            if "Method not found" in str(e):
                return []
            raise

    async with Client(target, mode=mode, sampling_callback=sampling, elicitation_callback=elicit,
                      logging_callback=on_log, log_level="debug") as c:  # fmt: skip
        for t in sorted(await listed(c.list_tools, "tools"), key=lambda t: t.name):
            d = norm(t)
            out.append(["tool", t.name, d.get("inputSchema"), d.get("outputSchema")])
            args = {k: ARGS.get(k, "x") for k in (t.input_schema.get("required") or [])}
            try:
                out.append(["call", t.name, norm(await c.call_tool(t.name, args))])
            except Exception as e:  # noqa: BLE001
                out.append(["call-error", t.name, str(e)[:200], getattr(e, "code", None)])
        for r in sorted(await listed(c.list_resources, "resources"), key=lambda r: str(r.uri)):
            out.append(["resource", norm(r)])
            out.append(["read", norm(await c.read_resource(str(r.uri)))])
        for r in await listed(c.list_resource_templates, "resource_templates"):
            out.append(["template", norm(r)])
            uri = r.uri_template
            for k in ("name", "owner", "repo", "user_id"):
                uri = uri.replace("{" + k + "}", str(ARGS.get(k, k)))
            out.append(["read", norm(await c.read_resource(uri))])
        for p in sorted(await listed(c.list_prompts, "prompts"), key=lambda p: p.name):
            out.append(["prompt", norm(p)])
            args = {a.name: str(ARGS.get(a.name, "x")) for a in (p.arguments or []) if a.required}
            out.append(["get", norm(await c.get_prompt(p.name, args))])
        if do_complete:
            ref = types.PromptReference(type="ref/prompt", name="review_code")
            out.append(
                ["complete", norm(await c.complete(ref, {"name": "language", "value": "py"}))]
            )
            tref = types.ResourceTemplateReference(
                type="ref/resource", uri="github://repos/{owner}/{repo}"
            )
            r = await c.complete(
                tref, {"name": "repo", "value": ""}, {"owner": "modelcontextprotocol"}
            )
            out.append(["complete", norm(r)])
    out.append(["logs", logs])
    return out


def client_main(argv: list[str]) -> None:
    import importlib.util
    import warnings

    import anyio
    from mcp import StdioServerParameters

    warnings.filterwarnings("ignore")
    which, path, mode = argv[0], argv[1], argv[2]
    target: Any
    if which == "orig":
        spec = importlib.util.spec_from_file_location("snippet", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["snippet"] = module
        spec.loader.exec_module(module)
        # `mcp` (MCPServer snippets) or `server` (low-level ones, where `mcp` is the package).
        target = next(
            v
            for v in (getattr(module, "mcp", None), getattr(module, "server", None))
            if v is not None and not isinstance(v, type(sys))
        )
    else:  # the ferromcp command's way of serving a file: python -m ferromcp._serve FILE
        target = StdioServerParameters(command=argv[3], args=["-m", "ferromcp._serve", path])
    result = anyio.run(transcript, target, mode, "completion" in path)
    print(json.dumps(result, indent=1, sort_keys=True, default=str))


# ---- driver -----------------------------------------------------------------------------------
def main(argv: list[str]) -> int:
    if argv and argv[0] == "--client":
        client_main(argv[1:])
        return 0
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    snippets, sdk_py, ferro_py, names = Path(argv[0]), argv[1], argv[2], argv[3:]
    files = sorted(snippets.glob("*.py")) if not names else [snippets / f"{n}.py" for n in names]
    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            if f.name == "__init__.py":
                continue
            ported = Path(tmp) / f.name
            ported.write_text(port(f.read_text()))
            for mode in ("legacy", "auto"):
                runs = []
                for which, path in (("orig", f), ("port", ported)):
                    cmd = [sdk_py, __file__, "--client", which, str(path), mode, ferro_py]
                    try:
                        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
                        runs.append(p.stdout if p.returncode == 0 else f"FAILED: {p.stderr[-300:]}")
                    except subprocess.TimeoutExpired:
                        runs.append("FAILED: timeout")
                a, b = ([ln for ln in r.splitlines() if '"version": ' not in ln] for r in runs)
                if a == b:
                    print(f"{f.stem} {mode} SAME")
                else:
                    print(f"{f.stem} {mode} DIFF")
                    diff = difflib.unified_diff(a, b, "original", "ferromcp port", n=1, lineterm="")
                    print("\n".join(f"    {ln}" for ln in list(diff)[:60]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
