"""The interop client in Python: checks a server exposing tests/interop/SURFACE.md (the official
SDK servers py_server.py / ts_server.mjs, or any ferromcp interop server) and prints a JSON report
``{ok, checks: [{name, ok, detail}], error?}``; exits 0 only if every check passed.

    python interop_client.py --stdio CMD ARGS... | --http URL
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from ferromcp import Client


class Checks:
    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []

    def add(self, name: str, ok: bool, detail: Any) -> None:
        self.items.append({"name": name, "ok": bool(ok), "detail": detail})

    def ok(self) -> bool:
        return bool(self.items) and all(c["ok"] for c in self.items)


def first_text(result: dict[str, Any]) -> str:
    return "".join(c.get("text", "") for c in result.get("content", []) if c.get("type") == "text")


def texts(read: dict[str, Any]) -> list[str]:
    return [c["text"] for c in read.get("contents", []) if "text" in c]


async def run_checks(client: Client, logs: list[Any], checks: Checks) -> None:
    # 1. handshake and tools/list
    tools = [t["name"] for t in await client.list_all_tools()]
    want = ["echo", "add", "progress", "log", "fail"]
    checks.add(
        "tools/list",
        all(w in tools for w in want),
        {"tools": tools, "protocolVersion": client.protocol_version},
    )
    # 2. echo
    text = "interop ✓ text"
    got = first_text(await client.call_tool("echo", {"text": text}))
    checks.add("echo", got == text, {"got": got})
    # 3. add
    got = first_text(await client.call_tool("add", {"a": 2, "b": 0.5}))
    checks.add("add", got == "2.5", {"got": got})
    # 4. progress
    seen: list[dict[str, Any]] = []
    r = await client.call_tool(
        "progress",
        {"steps": 3},
        progress=lambda p, t, m: seen.append({"progress": p, "total": t, "message": m}),
    )
    got = first_text(r)
    checks.add(
        "progress",
        [p["progress"] for p in seen] == [1, 2, 3]
        and all(p["total"] == 3 for p in seen)
        and got == "done",
        {"notifications": seen, "result": got},
    )
    # 5. logging
    await client.set_logging_level("debug")
    got = first_text(
        await client.call_tool("log", {"message": "interop log line", "level": "info"})
    )
    for _ in range(20):  # over stdio the notification may be read just after the result
        if logs:
            break
        await asyncio.sleep(0.025)
    ok = any(m.get("level") == "info" and m.get("data") == "interop log line" for m in logs)
    checks.add("log", ok and got == "logged", {"messages": logs, "result": got})
    # 6. fail
    r = await client.call_tool("fail", {})
    got = first_text(r)
    checks.add(
        "fail",
        r.get("isError") is True and "intentional failure" in got,
        {"isError": r.get("isError"), "text": got},
    )
    # 7. resources
    uris = [x["uri"] for x in (await client.list_resources()).get("resources", [])]
    got_texts = texts(await client.read_resource("mem://greeting"))
    checks.add(
        "resources",
        "mem://greeting" in uris and got_texts == ["hello"],
        {"uris": uris, "texts": got_texts},
    )
    # 8. templates
    listed = (await client.list_resource_templates()).get("resourceTemplates", [])
    templates = [t["uriTemplate"] for t in listed]
    got_texts = texts(await client.read_resource("mem://items/42"))
    checks.add(
        "resource-templates",
        "mem://items/{id}" in templates and got_texts == ["item 42"],
        {"templates": templates, "texts": got_texts},
    )
    # 9. prompts
    names = [p["name"] for p in (await client.list_prompts()).get("prompts", [])]
    prompt = await client.get_prompt("greet", {"name": "Ferris"})
    msgs = prompt.get("messages", [])
    ok = any(
        m.get("role") == "user" and "Ferris" in (m.get("content") or {}).get("text", "")
        for m in msgs
    )
    checks.add("prompts", "greet" in names and ok, {"prompts": names, "messages": msgs})


async def run(argv: list[str], checks: Checks) -> None:
    logs: list[Any] = []

    def on_notification(method: str, params: Any) -> None:
        if method == "notifications/message":
            logs.append(params)

    options: dict[str, Any] = {
        "name": "interop-python-ferromcp-client",
        "version": "1.0.0",
        "on_notification": on_notification,
    }
    if argv[0] == "--stdio" and len(argv) >= 2:
        client = Client.stdio(argv[1], argv[2:], **options)
    elif argv[0] == "--http" and len(argv) == 2:
        client = Client.http(argv[1], legacy_fallback=False, **options)
    else:
        raise SystemExit("usage: interop_client.py --stdio CMD ARGS... | --http URL")
    async with client:
        await run_checks(client, logs, checks)


def main() -> int:
    if len(sys.argv) < 2:
        print("usage: interop_client.py --stdio CMD ARGS... | --http URL", file=sys.stderr)
        return 2
    checks = Checks()
    report: dict[str, Any] = {}
    try:
        asyncio.run(asyncio.wait_for(run(sys.argv[1:], checks), 30))
    except SystemExit:
        raise
    except BaseException as e:  # noqa: BLE001 - goes into the report
        report["error"] = f"{type(e).__name__}: {e}"
    report = {"ok": checks.ok() and "error" not in report, "checks": checks.items, **report}
    print(json.dumps(report, indent=2, ensure_ascii=False))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
