#!/usr/bin/env python3
"""Official Python SDK (PyPI `mcp`) client that checks the surface of the official TypeScript
everything-server (`@modelcontextprotocol/server-everything`, pinned in tests/package.json),
directly or through `ferromcp proxy` (tests/run-proxy.sh): tools (echo, get-sum, structured
content, progress, sampling, elicitation, roots, a tool that must run as a task), resources and
templates, prompts, completions, and a log message sent outside any call.

Usage: everything_py_client.py --stdio CMD [ARGS...] | --http URL
Prints a JSON report to stdout; exits 1 on any mismatch, 2 on usage errors. The server speaks
only the handshake era (its TypeScript SDK is 1.x), so the client uses --mode legacy.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import warnings

import anyio
import mcp_types as mt
from mcp import Client, StdioServerParameters, types

if sys.version_info >= (3, 11):
    from builtins import BaseExceptionGroup
else:  # before 3.11: the backport anyio depends on there
    from exceptiongroup import BaseExceptionGroup

TIMEOUT_S = 60
ROOT = "file:///interop/everything-root"
warnings.filterwarnings("ignore", message=".*deprecated as of 2026-07-28.*")


def _text_of(content: list[Any]) -> list[str]:
    return [c.text for c in content if getattr(c, "type", None) == "text"]


async def run(target: Any) -> dict[str, Any]:
    report: dict[str, Any] = {"client": "python mcp (everything checks)", "checks": []}
    logs: list[Any] = []

    def check(name: str, ok: bool, detail: Any = None) -> None:
        report["checks"].append({"name": name, "ok": bool(ok), "detail": detail})

    async def on_log(params: Any) -> None:
        logs.append(params)

    async def on_sampling(
        _ctx: Any, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        asked = [getattr(m.content, "text", "") for m in params.messages]
        return types.CreateMessageResult(
            role="assistant",
            model="interop-model",
            content=types.TextContent(type="text", text=f"sampled: {' | '.join(asked)}"),
        )

    async def on_elicit(_ctx: Any, params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="decline")

    async def on_roots(_ctx: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=ROOT, name="interop root")])  # type: ignore[arg-type]

    async with Client(
        target,
        mode="legacy",
        logging_callback=on_log,
        sampling_callback=on_sampling,
        elicitation_callback=on_elicit,
        list_roots_callback=on_roots,
    ) as client:
        # Conditional tools are registered once the server knows the client's capabilities.
        deadline = time.monotonic() + 5
        while True:
            names = sorted(t.name for t in (await client.list_tools()).tools)
            if "trigger-sampling-request" in names or time.monotonic() > deadline:
                break
            await anyio.sleep(0.1)
        want = {
            "echo",
            "get-sum",
            "get-structured-content",
            "trigger-long-running-operation",
            "trigger-sampling-request",
            "trigger-elicitation-request",
            "get-roots-list",
            "toggle-simulated-logging",
        }
        check("tools/list", want <= set(names), names)

        r = await client.call_tool("echo", {"message": "everything ✓"})
        check(
            "tools/call echo",
            not r.is_error and _text_of(r.content) == ["Echo: everything ✓"],
            _text_of(r.content),
        )

        r = await client.call_tool("get-sum", {"a": 2, "b": 0.5})
        check(
            "tools/call get-sum",
            not r.is_error and _text_of(r.content) == ["The sum of 2 and 0.5 is 2.5."],
            _text_of(r.content),
        )

        r = await client.call_tool("get-structured-content", {"location": "New York"})
        sc = r.structured_content or {}
        check(
            "tools/call get-structured-content (structuredContent, output schema)",
            not r.is_error and isinstance(sc.get("temperature"), (int, float)),
            sc,
        )

        seen: list[tuple[float, float | None]] = []

        async def on_progress(progress: float, total: float | None, _message: str | None) -> None:
            seen.append((progress, total))

        r = await client.call_tool(
            "trigger-long-running-operation",
            {"duration": 0.3, "steps": 3},
            progress_callback=on_progress,
        )
        await anyio.sleep(0.1)
        check(
            "tools/call trigger-long-running-operation (progress notifications)",
            not r.is_error and seen == [(1, 3), (2, 3), (3, 3)],
            {"result": _text_of(r.content), "progress": seen},
        )

        r = await client.call_tool("trigger-sampling-request", {"prompt": "ping", "maxTokens": 20})
        texts = _text_of(r.content)
        check(
            "tools/call trigger-sampling-request (sampling/createMessage answered)",
            not r.is_error and any("sampled: " in t and "ping" in t for t in texts),
            texts,
        )

        r = await client.call_tool("trigger-elicitation-request", {})
        texts = _text_of(r.content)
        check(
            "tools/call trigger-elicitation-request (elicitation/create answered)",
            not r.is_error and any("decline" in t for t in texts),
            texts,
        )

        r = await client.call_tool("get-roots-list", {})
        texts = _text_of(r.content)
        check(
            "tools/call get-roots-list (roots/list answered)",
            not r.is_error and any(ROOT in t for t in texts),
            texts,
        )

        # A tool that must run as a task (2025-11-25 tasks): made with a task-augmented call, it
        # asks for a clarification while it runs (an elicitation request delivered on the
        # tasks/result stream, declined here), its result fetched with tasks/result; then the
        # session's tasks listed and read.
        # The SDK (mcp 2.3.0) has no task call: its send_request checks a tools/call answer as a
        # CallToolResult, so the task-augmented call goes through its dispatcher, untyped.
        raw = await client.session._dispatcher.send_raw_request(  # noqa: SLF001
            "tools/call",
            {
                "name": "simulate-research-query",
                "arguments": {"topic": "gateways", "ambiguous": True},
                "task": {"ttl": 60000},
            },
            {"timeout": TIMEOUT_S},
        )
        created = mt.CreateTaskResult.model_validate(raw)
        task_id = created.task.task_id
        r = await client.session.send_request(
            mt.GetTaskPayloadRequest(params=mt.GetTaskPayloadRequestParams(task_id=task_id)),
            types.CallToolResult,
        )
        research = "\n".join(_text_of(r.content))
        check(
            "tools/call simulate-research-query as a task (tasks/result, elicitation inside the task)",
            created.task.status == "working"
            and not r.is_error
            and "# Research Report: gateways" in research
            and "User declined" in research,
            {"created": created.task.status, "text": research[:160]},
        )
        listed = await client.session.send_request(mt.ListTasksRequest(), mt.ListTasksResult)
        state = await client.session.send_request(
            mt.GetTaskRequest(params=mt.GetTaskRequestParams(task_id=task_id)), mt.GetTaskResult
        )
        check(
            "tasks/list and tasks/get",
            any(t.task_id == task_id and t.status == "completed" for t in listed.tasks)
            and state.status == "completed",
            {"listed": [(t.task_id, t.status) for t in listed.tasks], "state": state.status},
        )

        await client.set_logging_level("debug")
        logs.clear()
        r = await client.call_tool("toggle-simulated-logging", {})
        deadline = time.monotonic() + 3
        while not logs and time.monotonic() < deadline:
            await anyio.sleep(0.02)
        got = [(str(p.level), p.data) for p in logs]
        await client.call_tool("toggle-simulated-logging", {})
        check(
            "notifications/message outside a call (toggle-simulated-logging)",
            not r.is_error and any("message" in str(d) for _, d in got),
            got,
        )

        res = await client.list_resources()
        uris = [str(x.uri) for x in res.resources]
        doc = "demo://resource/static/document/architecture.md"
        check("resources/list", doc in uris, uris)
        rr = await client.read_resource(doc)
        texts = [getattr(c, "text", None) or "" for c in rr.contents]
        check(
            "resources/read static document",
            len(texts) == 1 and len(texts[0]) > 100,
            [t[:60] for t in texts],
        )
        tl = await client.list_resource_templates()
        tmpls = [t.uri_template for t in tl.resource_templates]
        check(
            "resources/templates/list", "demo://resource/dynamic/text/{resourceId}" in tmpls, tmpls
        )
        rr = await client.read_resource("demo://resource/dynamic/text/7")
        got_uris = [str(c.uri) for c in rr.contents]
        texts = [getattr(c, "text", None) or "" for c in rr.contents]
        check(
            "resources/read from a template",
            got_uris == ["demo://resource/dynamic/text/7"] and "7" in texts[0],
            {"uris": got_uris, "texts": texts},
        )

        pl = await client.list_prompts()
        pnames = [p.name for p in pl.prompts]
        check(
            "prompts/list",
            {"simple-prompt", "args-prompt", "completable-prompt"} <= set(pnames),
            pnames,
        )
        gp = await client.get_prompt("args-prompt", {"city": "Lyon", "state": "Rhone"})
        msgs = [getattr(m.content, "text", "") for m in gp.messages]
        check("prompts/get args-prompt", any("Lyon" in t for t in msgs), msgs)
        c = await client.complete(
            types.PromptReference(type="ref/prompt", name="completable-prompt"),
            {"name": "department", "value": "E"},
        )
        check("completion/complete", c.completion.values == ["Engineering"], c.completion.values)
        c = await client.complete(
            types.PromptReference(type="ref/prompt", name="completable-prompt"),
            {"name": "name", "value": ""},
            context_arguments={"department": "Sales"},
        )
        check(
            "completion/complete with context",
            c.completion.values == ["David", "Eve", "Frank"],
            c.completion.values,
        )

    report["ok"] = all(c["ok"] for c in report["checks"])
    return report


def main() -> int:
    argv = sys.argv[1:]
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
        report = anyio.run(_with_timeout, target)
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


async def _with_timeout(target: Any) -> dict[str, Any]:
    with anyio.fail_after(TIMEOUT_S):
        return await run(target)


if __name__ == "__main__":
    sys.exit(main())
