"""The "everything" client in Python: the client the official MCP conformance suite drives in
client mode (`core` suite; tests/conformance/SCENARIOS.md), like
examples/rust/src/everything_client.rs.

    MCP_CONFORMANCE_SCENARIO=NAME python everything_client.py URL

Unknown scenario: prints the known ones and exits 1. (The interop checks live in
interop_client.py.)
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import sys
import urllib.parse
from typing import Any

from ferromcp import Client, Context, MethodNotFound, OAuth

SCENARIOS = [
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
    # The alpha's 2026-07-28 client scenarios (every scenario runs in protocol_mode="auto").
    "request-metadata",
    "sep-2322-client-request-state",
    "http-standard-headers",
    "http-custom-headers",
    "http-invalid-tool-headers",
    "json-schema-ref-no-deref",
    "json-schema-2020-12-preservation",
]
"""Every ``auth/*`` scenario runs the OAuth client (``run_auth``)."""
EXERCISED = {
    "request-metadata",
    "sep-2322-client-request-state",
    "http-standard-headers",
    "http-custom-headers",
    "http-invalid-tool-headers",
}
"""Scenarios run by ``exercise``."""

# The Client ID Metadata Document URL the suite expects (auth/basic-cimd).
CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"
REDIRECT_URI = "http://localhost:3000/callback"


def approve(authorization_url: str) -> str:
    """The redirect step against the suite's mock authorization server, which approves at once:
    request the authorization URL and return the Location it redirects to (a real host would
    show the URL to the user instead)."""
    u = urllib.parse.urlsplit(authorization_url)
    conn = http.client.HTTPConnection(u.hostname or "localhost", u.port or 80, timeout=30)
    try:
        conn.request("GET", u.path + (f"?{u.query}" if u.query else ""))
        resp = conn.getresponse()
        location = resp.getheader("Location")
        if resp.status // 100 != 3 or not location:
            raise RuntimeError(f"authorization endpoint answered HTTP {resp.status}, no redirect")
        return location
    finally:
        conn.close()


async def on_redirect(authorization_url: str) -> str:
    return await asyncio.to_thread(approve, authorization_url)


def conformance_auth() -> OAuth:
    """Pre-registered credentials and client credentials come from MCP_CONFORMANCE_CONTEXT."""
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    client_id = context.get("client_id")
    secret = context.get("client_secret")
    return OAuth(
        on_redirect=on_redirect,
        redirect_uri=REDIRECT_URI,
        client_name="ferromcp-everything-client",
        client_id=client_id,
        client_secret=secret,
        client_metadata_url=CLIENT_METADATA_URL,
        client_credentials=str(context.get("name", "")).startswith("auth/client-credentials")
        and client_id is not None
        and secret is not None,
    )


async def run_auth(url: str) -> None:
    """Connect (authorizing on the first 401), list the tools, call each one."""
    # The revision the suite runs at: 2026-07-28 speaks the per-request era (server/discover,
    # MCP-Protocol-Version on every request), falling back to the handshake on older servers.
    revision = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION") or ""
    per_request = revision >= "2026-07-28"
    client = Client.http(
        url,
        legacy_fallback=False,
        auth=conformance_auth(),
        name="ferromcp-everything-client",
        version="0.1.0",
        protocol_version=revision if per_request else None,
        protocol_mode="auto" if per_request else None,
    )
    await client.connect()
    try:
        for tool in await client.list_all_tools():
            await client.call_tool(tool["name"], {})
    finally:
        try:
            await asyncio.wait_for(client.close(), 5)
        except asyncio.TimeoutError:
            print("everything-client: close timed out", file=sys.stderr)


def apply_defaults(schema: dict[str, Any], content: dict[str, Any]) -> dict[str, Any]:
    """Fills every field the user left out with the schema's ``default`` (SEP-1034)."""
    out = dict(content)
    for name, prop in (schema.get("properties") or {}).items():
        if isinstance(prop, dict) and "default" in prop and name not in out:
            out[name] = prop["default"]
    return out


async def sampling(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": {"type": "text", "text": "This is a test response from the client"},
        "model": "test-model",
        "stopReason": "endTurn",
    }


async def elicitation(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    schema = params.get("requestedSchema") or {}
    return {"action": "accept", "content": apply_defaults(schema, {})}


def first_text(result: dict[str, Any]) -> str:
    return "".join(c.get("text", "") for c in result.get("content", []) if c.get("type") == "text")


async def run(scenario: str, url: str) -> None:
    client = Client.http(
        url,
        legacy_fallback=False,
        name="ferromcp-everything-client",
        version="0.1.0",
        # Both eras: server/discover first, the initialize handshake where it is not offered.
        protocol_mode="auto",
        sampling_handler=sampling,
        elicitation_handler=elicitation,
    )
    await client.connect()
    try:
        await scenario_steps(client, scenario)
    finally:
        # Bounded: against the `initialize` mock server the HTTP client's close can hang (engine
        # issue, see bindings-python/README.md "Known issues").
        try:
            await asyncio.wait_for(client.close(), 5)
        except asyncio.TimeoutError:
            print("everything-client: close timed out", file=sys.stderr)


def context_tool_calls() -> list[tuple[str, dict[str, Any]]] | None:
    """The tool calls MCP_CONFORMANCE_CONTEXT asks for (``toolCalls: [{name, arguments}]``)."""
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    calls = context.get("toolCalls")
    if not isinstance(calls, list):
        return None
    return [(c["name"], c.get("arguments") or {}) for c in calls if isinstance(c, dict)]


async def exercise(client: Client) -> None:
    """The 2026-07-28 scenarios' common run: the tool calls the context names, or else every
    listed tool called with ``{}``, then every resource read and every prompt got where the
    server offers them."""
    tools = await client.list_all_tools()
    calls = context_tool_calls()
    for name, arguments in calls if calls is not None else [(t["name"], {}) for t in tools]:
        await client.call_tool(name, arguments)
    caps = client.initialize_result.get("capabilities") or {}
    if "resources" in caps:
        for r in (await client.list_resources()).get("resources", []):
            await client.read_resource(r["uri"])
    if "prompts" in caps:
        for p in (await client.list_prompts()).get("prompts", []):
            await client.get_prompt(p["name"])


async def scenario_steps(client: Client, scenario: str) -> None:
    if True:
        if scenario in EXERCISED:
            await exercise(client)
        elif scenario == "json-schema-ref-no-deref":
            await client.list_all_tools()  # listing is the scenario: no network $ref fetched
        elif scenario == "json-schema-2020-12-preservation":
            tools = await client.list_all_tools()
            schema = next(
                t["inputSchema"] for t in tools if t["name"] == "json_schema_2020_12_tool"
            )
            await client.call_tool("json_schema_echo", {"schema": schema})
        elif scenario == "initialize":
            try:
                await client.list_tools()
            except MethodNotFound:
                pass  # the mock server advertises no tools capability
        elif scenario == "tools_call":
            tools = await client.list_all_tools()
            print("tools:", [t["name"] for t in tools], file=sys.stderr)
            r = await client.call_tool("add_numbers", {"a": 5, "b": 3})
            print("add_numbers ->", first_text(r), file=sys.stderr)
        elif scenario == "elicitation-sep1034-client-defaults":
            await client.list_all_tools()
            r = await client.call_tool("test_client_elicitation_defaults", {})
            print("result ->", first_text(r), file=sys.stderr)
        elif scenario == "sse-retry":
            await client.list_all_tools()
            r = await client.call_tool("test_reconnection", {})
            print("result ->", first_text(r), file=sys.stderr)


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: MCP_CONFORMANCE_SCENARIO=NAME everything_client.py URL", file=sys.stderr)
        return 2
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    is_auth = scenario.startswith("auth/")
    if scenario not in SCENARIOS and not is_auth:
        print(
            f"unknown scenario {scenario!r}; known: {', '.join(SCENARIOS)}, auth/*", file=sys.stderr
        )
        return 1
    try:
        asyncio.run(run_auth(sys.argv[1]) if is_auth else run(scenario, sys.argv[1]))
    except Exception as e:  # noqa: BLE001 - reported, exit status 1
        print(f"everything-client: {scenario}: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
