"""The ``ferromcp`` command: list and call the tools of any MCP server.

    ferromcp list [OPTIONS] SERVER...
    ferromcp call [OPTIONS] TOOL [KEY=VALUE ...] -- SERVER...

SERVER is an ``http(s)://`` URL (Streamable HTTP, with a fallback to the 2024-11-05 HTTP+SSE
transport), a ``.py`` file (``FILE.py`` or ``FILE.py:OBJECT``: imported by this Python under
another module name than ``__main__``, so that its ``if __name__ == "__main__":`` block does not
run, and its server object served over stdio), or a command line (run over stdio). ``list``
prints the tools, resources, resource templates and prompts. ``KEY=VALUE`` values are JSON when they parse as JSON (``n=3``, ``flag=true``,
``tags='["a"]'``), else strings; ``--json '{...}'`` gives all arguments at once. Progress
notifications are shown on stderr. Exit status: 0, 1 when the tool answered ``isError``, 2 on
usage errors, 3 when the server could not be reached or refused the request."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from .errors import McpError


def _client(server: list[str], headers: dict[str, str], timeout: float | None) -> Any:
    from .client import Client

    if not server:
        raise SystemExit("ferromcp: no server given (a URL, a .py file or a command)")
    first = server[0]
    options: dict[str, Any] = {"name": "ferromcp-cli", "timeout": timeout}
    if first.startswith(("http://", "https://")):
        if len(server) > 1:
            raise SystemExit("ferromcp: a URL takes no further arguments")
        return Client.http(first, headers=headers, **options)
    if headers:
        raise SystemExit("ferromcp: --header is for HTTP servers")
    if first.endswith(".py") or ".py:" in first:
        # Imported under another name by ferromcp._serve: the file's __main__ block (an HTTP
        # server, say) does not run, its server object is served over stdio.
        return Client.stdio(sys.executable, ["-m", "ferromcp._serve", *server], **options)
    return Client.stdio(first, server[1:], **options)


def _parse_headers(values: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for v in values:
        name, sep, value = v.partition(":")
        if not sep or not name.strip():
            raise SystemExit(f"ferromcp: --header wants 'Name: value', not {v!r}")
        out[name.strip()] = value.strip()
    return out


def _parse_arguments(pairs: list[str], as_json: str | None) -> dict[str, Any]:
    args: dict[str, Any] = {}
    if as_json is not None:
        try:
            loaded = json.loads(as_json)
        except ValueError as e:
            raise SystemExit(f"ferromcp: --json is not JSON: {e}") from None
        if not isinstance(loaded, dict):
            raise SystemExit("ferromcp: --json must be a JSON object")
        args.update(loaded)
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise SystemExit(f"ferromcp: arguments are KEY=VALUE, not {pair!r}")
        try:
            args[key] = json.loads(raw)
        except ValueError:
            args[key] = raw
    return args


def _signature(tool: dict[str, Any]) -> str:
    schema = tool.get("inputSchema") or {}
    props = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    parts = []
    for name, prop in props.items():
        kind = prop.get("type") if isinstance(prop, dict) else None
        if kind is None and isinstance(prop, dict):
            if "$ref" in prop:
                kind = prop["$ref"].rsplit("/", 1)[-1]
            elif "anyOf" in prop:
                kind = "|".join(
                    str(p.get("type", "?")) for p in prop["anyOf"] if isinstance(p, dict)
                )
        opt = "" if name in required else "?"
        parts.append(f"{name}{opt}: {kind or 'any'}")
    return f"{tool['name']}({', '.join(parts)})"


def _print_tools(tools: list[dict[str, Any]]) -> None:
    for tool in tools:
        print(_signature(tool))
        desc = (tool.get("description") or "").strip()
        if desc:
            print(f"    {desc.splitlines()[0]}")


def _print_definitions(listing: dict[str, list[dict[str, Any]]]) -> None:
    """Tools, then resources, resource templates and prompts (sections that are empty or that
    the server does not offer are left out)."""
    _print_tools(listing["tools"])
    sections = (
        ("resources", "Resources", "uri"),
        ("resourceTemplates", "Resource templates", "uriTemplate"),
        ("prompts", "Prompts", None),
    )
    for key, title, uri_key in sections:
        items = listing.get(key) or []
        if not items:
            continue
        print(f"\n{title}:")
        for item in items:
            if uri_key is None:
                args = ", ".join(
                    a["name"] + ("" if a.get("required") else "?")
                    for a in item.get("arguments") or []
                    if isinstance(a, dict) and "name" in a
                )
                line = f"{item.get('name')}({args})"
            else:
                line = f"{item.get(uri_key)} ({item.get('name')})"
                if item.get("mimeType"):
                    line += f" {item['mimeType']}"
            print(line)
            desc = (item.get("description") or "").strip()
            if desc:
                print(f"    {desc.splitlines()[0]}")


async def _list_all(client: Any, method: str, key: str) -> list[dict[str, Any]]:
    """Every page of a list method; empty when the server does not offer it."""
    items: list[dict[str, Any]] = []
    cursor = None
    try:
        while True:
            page = await getattr(client, method)(cursor)
            items.extend(page.get(key) or [])
            cursor = page.get("nextCursor")
            if not cursor:
                return items
    except McpError:
        return items


def _print_result(result: dict[str, Any]) -> None:
    structured = result.get("structuredContent")
    if isinstance(structured, dict) and structured.keys() == {"result"}:
        structured = None  # a wrapped value: its text block says it
    for block in result.get("content") or []:
        kind = block.get("type")
        if kind == "text":
            if structured is None:
                print(block.get("text", ""))
        elif kind in ("image", "audio"):
            size = len(block.get("data", "")) * 3 // 4
            print(f"[{kind} {block.get('mimeType', '?')}, {size} bytes]")
        elif kind == "resource":
            res = block.get("resource", {})
            if "text" in res:
                print(f"[resource {res.get('uri')}]\n{res['text']}")
            else:
                print(f"[resource {res.get('uri')} {res.get('mimeType', '?')}]")
        elif kind == "resource_link":
            print(f"[link {block.get('uri')}]")
        else:
            print(json.dumps(block, ensure_ascii=False))
    if structured is not None:
        print(json.dumps(structured, indent=2, ensure_ascii=False))


def _progress(progress: float, total: float | None, message: str | None) -> None:
    text = f"{progress:g}" + (f"/{total:g}" if total is not None else "")
    print(f"progress {text}" + (f" {message}" if message else ""), file=sys.stderr, flush=True)


async def _run(ns: argparse.Namespace, server: list[str]) -> int:
    client = _client(server, _parse_headers(ns.header), ns.timeout)
    try:
        async with client:
            if ns.command == "list":
                listing: dict[str, list[dict[str, Any]]] = {}
                for method, key in (
                    ("list_tools", "tools"),
                    ("list_resources", "resources"),
                    ("list_resource_templates", "resourceTemplates"),
                    ("list_prompts", "prompts"),
                ):
                    listing[key] = await _list_all(client, method, key)
                if ns.json:
                    print(json.dumps(listing, indent=2, ensure_ascii=False))
                else:
                    _print_definitions(listing)
                return 0
            arguments = _parse_arguments(ns.arguments, ns.json_args)
            result = await client.call_tool(ns.tool, arguments, progress=_progress)
            if ns.raw:
                print(json.dumps(result, indent=2, ensure_ascii=False))
            else:
                _print_result(result)
            return 1 if result.get("isError") else 0
    except McpError as e:
        print(f"ferromcp: {type(e).__name__}: {e}", file=sys.stderr)
        return 3


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="ferromcp",
        description="List and call the tools of an MCP server (stdio or Streamable HTTP).",
        epilog="SERVER: an http(s):// URL, a .py file, or a command line (after --).",
    )
    sub = p.add_subparsers(dest="command", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--header",
        "-H",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="an HTTP header for every request (repeatable)",
    )
    common.add_argument("--timeout", type=float, default=None, help="request timeout in seconds")
    lp = sub.add_parser(
        "list",
        parents=[common],
        help="list the tools, resources, resource templates and prompts",
        usage="ferromcp list [OPTIONS] [--] SERVER...",
    )
    lp.add_argument(
        "--json",
        action="store_true",
        help="print the definitions as JSON: {tools, resources, resourceTemplates, prompts}",
    )
    cp = sub.add_parser(
        "call",
        parents=[common],
        help="call a tool",
        usage="ferromcp call [OPTIONS] TOOL [KEY=VALUE ...] -- SERVER...",
    )
    cp.add_argument("tool")
    cp.add_argument("arguments", nargs="*", metavar="KEY=VALUE")
    cp.add_argument("--json", dest="json_args", metavar="OBJECT", help="arguments as a JSON object")
    cp.add_argument("--raw", action="store_true", help="print the whole CallToolResult as JSON")
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``ferromcp`` command."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = _parser()
    if "--" in argv:
        i = argv.index("--")
        argv, server = argv[:i], argv[i + 1 :]
    else:
        server = []
    if argv and argv[0] == "list" and not server:
        # `ferromcp list [OPTIONS] SERVER...`: the server is what follows the options.
        rest = argv[1:]
        opts: list[str] = []
        while rest and rest[0].startswith("-") and rest[0] not in ("-",):
            opt = rest.pop(0)
            opts.append(opt)
            if opt in ("--header", "-H", "--timeout") and rest:
                opts.append(rest.pop(0))
        argv, server = ["list", *opts], rest
    ns = parser.parse_args(argv)
    if ns.command == "call" and not server:
        parser.error(
            "call needs the server after --: ferromcp call TOOL [KEY=VALUE ...] -- SERVER..."
        )
    try:
        return asyncio.run(_run(ns, server))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
