#!/usr/bin/env python3
"""Official Python SDK (PyPI `mcp`) client that checks a server's interop surface (SURFACE.md).

Usage: py_client.py [--mode legacy|auto] [--expect-version V] --stdio CMD [ARGS...]
       py_client.py [--mode legacy|auto] [--expect-version V] --http URL
Prints a JSON report to stdout; exits 1 on any mismatch, 2 on usage errors.
--mode legacy (default) uses the initialize handshake (2025-11-25 era). --mode auto lets the
SDK probe server/discover and speak 2026-07-28 when the server offers it (the report's
"protocolVersion" says which was used; `--expect-version V` fails the run on another one). In
2026-07-28 `logging/setLevel` is gone: the client opts in to log messages per request
(`_meta` `io.modelcontextprotocol/logLevel`, the SDK's `log_level`) instead.
"""

from __future__ import annotations

import json
import sys
import time
import warnings
from typing import Any

import anyio
import mcp
from mcp import Client, StdioServerParameters

if sys.version_info >= (3, 11):
    from builtins import BaseExceptionGroup
else:  # before 3.11: the backport anyio depends on there
    from exceptiongroup import BaseExceptionGroup

TIMEOUT_S = 30
warnings.filterwarnings("ignore", message=".*deprecated as of 2026-07-28.*")


def _text_of(content: list[Any]) -> list[str]:
    return [c.text for c in content if getattr(c, "type", None) == "text"]


async def run(target: Any, mode: str, expect_version: str | None = None) -> dict[str, Any]:
    report: dict[str, Any] = {
        "client": f"python mcp {mcp.__version__ if hasattr(mcp, '__version__') else ''}".strip(),
        "mode": mode,
        "checks": [],
    }
    logs: list[Any] = []

    async def on_log(params: Any) -> None:
        logs.append(params)

    def check(name: str, ok: bool, detail: Any = None) -> None:
        report["checks"].append({"name": name, "ok": bool(ok), "detail": detail})

    async with Client(target, mode=mode, logging_callback=on_log, log_level="debug") as client:
        version = client.protocol_version
        report["protocolVersion"] = version
        modern = version >= "2026-07-28"
        if expect_version is not None:
            check(
                f"negotiated protocol version {expect_version}", version == expect_version, version
            )
        # tools/list
        tools = await client.list_tools()
        names = sorted(t.name for t in tools.tools)
        check("tools/list", {"echo", "add", "progress", "log", "fail"} <= set(names), names)

        # echo
        r = await client.call_tool("echo", {"text": "interop ✓ text"})
        check(
            "tools/call echo",
            not r.is_error and _text_of(r.content) == ["interop ✓ text"],
            _text_of(r.content),
        )

        # add
        r = await client.call_tool("add", {"a": 2, "b": 0.5})
        check(
            "tools/call add", not r.is_error and _text_of(r.content) == ["2.5"], _text_of(r.content)
        )

        # progress
        seen: list[tuple[float, float | None, str | None]] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            seen.append((progress, total, message))

        r = await client.call_tool("progress", {"steps": 3}, progress_callback=on_progress)
        await anyio.sleep(0.1)
        ok = (
            not r.is_error
            and _text_of(r.content) == ["done"]
            and [p for p, _, _ in seen] == [1, 2, 3]
            and all(t == 3 for _, t, _ in seen)
        )
        check(
            "tools/call progress (progress notifications)",
            ok,
            {"result": _text_of(r.content), "progress": seen},
        )

        # logging
        if not modern:  # 2026-07-28: the log_level opt-in above rides every request's _meta
            await client.set_logging_level("debug")
        logs.clear()
        r = await client.call_tool("log", {"message": "interop log line", "level": "info"})
        deadline = time.monotonic() + 2
        while not logs and time.monotonic() < deadline:
            await anyio.sleep(0.02)
        got = [(str(p.level), p.data, p.logger) for p in logs]
        ok = (
            not r.is_error
            and _text_of(r.content) == ["logged"]
            and any(lv == "info" and data == "interop log line" for lv, data, _ in got)
        )
        check(
            "tools/call log (logging notification)",
            ok,
            {"result": _text_of(r.content), "logs": got},
        )

        # fail
        r = await client.call_tool("fail", {})
        texts = _text_of(r.content)
        check(
            "tools/call fail (isError)",
            bool(r.is_error) and any("intentional failure" in t for t in texts),
            texts,
        )

        # resources
        res = await client.list_resources()
        uris = [str(x.uri) for x in res.resources]
        check("resources/list", "mem://greeting" in uris, uris)
        rr = await client.read_resource("mem://greeting")
        texts = [getattr(c, "text", None) for c in rr.contents]
        check("resources/read mem://greeting", texts == ["hello"], texts)
        tl = await client.list_resource_templates()
        tmpls = [t.uri_template for t in tl.resource_templates]
        check("resources/templates/list", "mem://items/{id}" in tmpls, tmpls)
        rr = await client.read_resource("mem://items/42")
        texts = [getattr(c, "text", None) for c in rr.contents]
        check("resources/read mem://items/42", texts == ["item 42"], texts)

        # prompts
        pl = await client.list_prompts()
        pnames = [p.name for p in pl.prompts]
        check("prompts/list", "greet" in pnames, pnames)
        gp = await client.get_prompt("greet", {"name": "Ferris"})
        msgs = [(m.role, getattr(m.content, "text", None)) for m in gp.messages]
        check(
            "prompts/get greet",
            any(role == "user" and t and "Ferris" in t for role, t in msgs),
            msgs,
        )

    report["ok"] = all(c["ok"] for c in report["checks"])
    return report


def main() -> int:
    argv = sys.argv[1:]
    mode = "legacy"
    expect_version: str | None = None
    while len(argv) >= 2 and argv[0] in ("--mode", "--expect-version"):
        if argv[0] == "--mode":
            mode = argv[1]
        else:
            expect_version = argv[1]
        argv = argv[2:]
    if len(argv) >= 2 and argv[0] == "--http":
        target: Any = argv[1]
        where = f"http {argv[1]}"
    elif len(argv) >= 2 and argv[0] == "--stdio":
        target = StdioServerParameters(command=argv[1], args=argv[2:])
        where = "stdio " + " ".join(argv[1:])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        report = anyio.run(_with_timeout, target, mode, expect_version)
    except Exception as e:  # noqa: BLE001 - a crash is a failed check, reported as JSON
        report = {"ok": False, "checks": [], "error": _describe(e)}
    report["target"] = where
    print(json.dumps(report, indent=2, default=str))
    return 0 if report.get("ok") else 1


def _describe(e: BaseException) -> str:
    """The innermost errors of an exception group, as text."""
    if isinstance(e, BaseExceptionGroup):
        return "; ".join(_describe(x) for x in e.exceptions)
    return f"{type(e).__name__}: {e}"


async def _with_timeout(target: Any, mode: str, expect_version: str | None) -> dict[str, Any]:
    with anyio.fail_after(TIMEOUT_S):
        return await run(target, mode, expect_version)


if __name__ == "__main__":
    sys.exit(main())
