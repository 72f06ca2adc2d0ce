"""The official ``mcp`` client's side of tests/test_sdk_examples.py (not a test): run under an
interpreter with the official SDK (``.tools/venv``, requirements-test.txt) as
``sdk_port_driver.py JOBS.json OUT.json``. Each job names a server (an SDK snippet loaded in
memory, a ferromcp port spawned over stdio, or a URL) and an era (``legacy``: the handshake;
``auto``: 2026-07-28 when offered); the driver connects with ``mcp.Client``, lists and uses
everything the server offers (every tool called, every resource and template read, every
prompt got, completions asked, sampling and elicitation answered, notifications kept) and
writes one transcript per job to OUT.json. One process serves all jobs, so the SDK is imported
once."""

from __future__ import annotations

import importlib.util
import json
import sys
import traceback
import warnings
from typing import Any

# Arguments for the snippets' required parameters, by name.
ARGS: dict[str, Any] = {
    "a": 2,
    "b": 3,
    "city": "Paris",
    "name": "Ada",
    "data": "d",
    "topic": "sea",
    "user_id": "7",
    "address": "x",
    "data_type": "t",
    "task_name": "job",
    "steps": 2,
    "date": "2024-12-25",
    "time": "19:00",
    "party_size": 2,
    "amount": 9.5,
    "service_name": "gh",
    "text": "t",
    "message": "m",
    "arg1": "one",
    "query": "q",
    "n": 2,
}


def norm(x: Any) -> Any:
    if hasattr(x, "model_dump"):
        return x.model_dump(by_alias=True, exclude_none=True, mode="json")
    return x


async def transcript(target: Any, mode: str, job: dict[str, Any]) -> dict[str, Any]:
    import mcp.types as types
    from mcp import Client

    asked: list[Any] = []
    logs: list[Any] = []
    notes: list[str] = []

    async def sampling(ctx: Any, params: Any) -> Any:
        asked.append(["sampling", norm(params)])
        text = types.TextContent(type="text", text="a poem")
        return types.CreateMessageResult(role="assistant", content=text, model="m")

    async def elicit(ctx: Any, params: Any) -> Any:
        p = norm(params)
        # The ids and URLs of URL elicitations are random (uuid4): keep their shape only.
        if p.get("mode") == "url":
            asked.append(["elicit-url", p["message"], sorted(p)])
            return types.ElicitResult(action="accept")
        asked.append(["elicit-form", p])
        content = {"checkAlternative": True, "alternativeDate": "2024-12-26"}
        return types.ElicitResult(action="accept", content=content)

    async def on_log(p: Any) -> None:
        logs.append(norm(p))

    async def on_message(message: Any) -> None:
        if not isinstance(message, Exception):
            method = norm(message).get("method")
            # Logs and progress are kept by their own callbacks.
            if isinstance(method, str) and method not in (
                "notifications/message",
                "notifications/progress",
            ):
                notes.append(method)

    pages: dict[str, list[Any]] = {}

    async def listed(call: Any, key: str) -> list[Any]:
        """Every item of a list, its pages followed (how many pages is the server's choice:
        recorded, as ``[items on the page, its next_cursor]``, only for jobs with ``pages``)."""
        items: list[Any] = []
        cursor = None
        for _ in range(1000):
            try:
                page = await call(cursor=cursor)
            except Exception as e:  # a capability the server lacks: nothing listed
                if "Method not found" in str(e):
                    return []
                raise
            items += getattr(page, key)
            cursor = page.next_cursor
            pages.setdefault(key, []).append([len(getattr(page, key)), cursor])
            if cursor is None:
                return items
        raise AssertionError(f"{key}: more than 1000 pages")

    def failure(e: Exception) -> list[Any]:
        error = getattr(e, "error", None)
        data = norm(getattr(error, "data", None))
        if isinstance(data, dict) and "elicitations" in data:  # random ids and URLs
            data = {"elicitations": [sorted(x) for x in data["elicitations"]]}
        return [type(e).__name__, str(e)[:300], getattr(e, "code", None), data]

    out: dict[str, Any] = {"tools": [], "resources": [], "templates": [], "prompts": []}
    async with Client(
        target,
        mode=mode,
        sampling_callback=sampling,
        elicitation_callback=elicit,
        logging_callback=on_log,
        message_handler=on_message,
        log_level="debug",
    ) as c:
        out["protocol"] = c.protocol_version
        for t in sorted(await listed(c.list_tools, "tools"), key=lambda t: t.name):
            progress: list[Any] = []

            async def on_progress(p: float, total: float | None, message: str | None) -> None:
                progress.append([p, total, message])  # noqa: B023 - awaited before the next tool

            given = {**ARGS, **job.get("arguments", {})}
            args = {k: given.get(k, "x") for k in (t.input_schema.get("required") or [])}
            entry: dict[str, Any] = {"tool": norm(t), "arguments": args}
            try:
                entry["result"] = norm(
                    await c.call_tool(t.name, args, progress_callback=on_progress)
                )
            except Exception as e:
                entry["error"] = failure(e)
            entry["progress"] = progress
            out["tools"].append(entry)
        for r in sorted(await listed(c.list_resources, "resources"), key=lambda r: str(r.uri)):
            entry = {"resource": norm(r)}
            try:
                entry["read"] = norm(await c.read_resource(str(r.uri)))
            except Exception as e:
                entry["error"] = failure(e)
            out["resources"].append(entry)
        templates = await listed(c.list_resource_templates, "resource_templates")
        for r in sorted(templates, key=lambda r: r.uri_template):
            uri = r.uri_template
            for k in ("name", "owner", "repo", "user_id"):
                uri = uri.replace("{" + k + "}", str(ARGS.get(k, k)))
            entry = {"template": norm(r), "uri": uri}
            try:
                entry["read"] = norm(await c.read_resource(uri))
            except Exception as e:
                entry["error"] = failure(e)
            out["templates"].append(entry)
        for p in sorted(await listed(c.list_prompts, "prompts"), key=lambda p: p.name):
            args = {a.name: str(ARGS.get(a.name, "x")) for a in (p.arguments or []) if a.required}
            entry = {"prompt": norm(p), "arguments": args}
            try:
                entry["get"] = norm(await c.get_prompt(p.name, args))
            except Exception as e:
                entry["error"] = failure(e)
            out["prompts"].append(entry)
        completions = []
        for ref, argument, context in job.get("complete", []):
            if ref["type"] == "ref/prompt":
                r: Any = types.PromptReference(**ref)
            else:
                r = types.ResourceTemplateReference(**ref)
            try:
                completions.append(norm(await c.complete(r, argument, context)))
            except Exception as e:
                completions.append({"error": failure(e)})
        out["completions"] = completions
    if job.get("pages"):
        out["pages"] = pages
    out["asked"] = asked
    out["logs"] = logs
    out["notifications"] = sorted(set(notes))
    return out


def load(path: str, name: str) -> Any:
    """An SDK snippet imported in memory: its ``mcp`` (MCPServer) or ``server`` (low-level)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    for attr in ("mcp", "server"):
        value = getattr(module, attr, None)
        if value is not None and not isinstance(value, type(sys)):
            return value
    raise LookupError(f"no mcp or server object in {path}")


def run_job(job: dict[str, Any]) -> dict[str, Any]:
    import anyio
    from mcp import StdioServerParameters

    kind = job["kind"]
    if kind == "memory":
        target: Any = load(job["path"], "sdk_snippet_" + job["id"].replace("/", "_"))
    elif kind == "stdio":
        target = StdioServerParameters(
            command=job["command"], args=job["args"], cwd=job.get("cwd"), env=job.get("env")
        )
    else:
        target = job["url"]

    async def bounded() -> dict[str, Any]:
        with anyio.fail_after(job.get("timeout", 60)):
            return await transcript(target, job["mode"], job)

    return anyio.run(bounded)


def main() -> None:
    warnings.filterwarnings("ignore")
    with open(sys.argv[1]) as f:
        jobs = json.load(f)
    results: dict[str, Any] = {}
    for job in jobs:
        key = f"{job['id']}:{job['kind']}:{job['mode']}"
        try:
            results[key] = run_job(job)
        except BaseException as e:  # noqa: BLE001 - reported to the test, which fails on it
            if isinstance(e, KeyboardInterrupt):
                raise
            results[key] = {"failed": "".join(traceback.format_exception(e))[-3000:]}
    with open(sys.argv[2], "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
