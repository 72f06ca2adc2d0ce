"""Protocol revision 2026-07-28 from Python handlers: multi round-trip requests
(``ctx.input``, ``input_required``, ``ctx.input_response``, ``ctx.request_state``), the
request's own client capabilities, and the same handler code in the handshake era.

The 2026-07-28 requests are sent raw (urllib in a thread), as a per-request-era client sends
them: ``_meta`` with version, capabilities and client info, and the request metadata headers."""

from __future__ import annotations

import asyncio
import base64
import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from ferromcp import (
    Client,
    Context,
    InputRequired,
    InvalidParams,
    McpError,
    MissingRequiredClientCapability,
    Server,
    input_required,
)
from ferromcp.errors import CODES, from_code

V = "2026-07-28"
ALL_CAPS: dict[str, Any] = {"elicitation": {}, "sampling": {}, "roots": {}}


def ask_name(key: str = "who") -> dict[str, Any]:
    schema = {"type": "object", "properties": {"name": {"type": "string"}}}
    return {
        key: {
            "method": "elicitation/create",
            "params": {"message": "name?", "requestedSchema": schema},
        }
    }


def make_server() -> Server:
    server = Server("mrtr", version="1.0.0")

    @server.tool()
    async def greet(ctx: Context) -> str:
        """Asks for a name with ctx.input (either era)."""
        answers = await ctx.input(ask_name())
        return f"Hello, {answers['who']['content']['name']}!"

    @server.tool()
    def explicit(ctx: Context) -> str:
        """Raises input_required with its own state; reads the answer and the state back."""
        answer = ctx.input_response("who")
        if answer is None:
            raise input_required(ask_name(), state={"n": 42})
        return f"{answer['content']['name']} {ctx.request_state['n']}"

    @server.tool()
    async def unchanged(ctx: Context) -> str:
        """Handshake-era code: a plain elicitation request."""
        result = await ctx.elicit(
            "name?", {"type": "object", "properties": {"name": {"type": "string"}}}
        )
        return f"action={result.action}"

    @server.tool()
    async def needs_sampling(ctx: Context) -> str:
        """Asks for sampling whatever the client declared."""
        await ctx.request("sampling/createMessage", {"messages": [], "maxTokens": 5})
        return "sampled"

    @server.tool()
    async def samples(ctx: Context) -> str:
        """Handshake-era code asking for sampling through the helper."""
        await ctx.sample("hi")
        return "sampled"

    @server.prompt()
    def framed(ctx: Context) -> str:
        """A prompt that needs context first."""
        answer = ctx.input_response("ctx")
        if answer is None:
            raise input_required(ask_name("ctx"))
        return f"Context: {answer['content']['name']}"

    return server


def meta(caps: dict[str, Any]) -> dict[str, Any]:
    return {
        "io.modelcontextprotocol/protocolVersion": V,
        "io.modelcontextprotocol/clientCapabilities": caps,
        "io.modelcontextprotocol/clientInfo": {"name": "py-test", "version": "1.0"},
    }


def post(url: str, method: str, params: dict[str, Any], name: str | None = None) -> dict[str, Any]:
    """One 2026-07-28 request; returns the JSON-RPC answer (JSON body or last SSE message)."""
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": V,
        "mcp-method": method,
    }
    if name is not None:
        headers["mcp-name"] = name
    req = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers=headers, method="POST"
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            text = resp.read().decode()
            kind = resp.headers.get("content-type", "")
    except urllib.error.HTTPError as e:
        text, kind = e.read().decode(), e.headers.get("content-type", "")
    if kind.startswith("text/event-stream"):
        messages = [
            json.loads(line[5:])
            for line in text.splitlines()
            if line.startswith("data:") and line[5:].strip()
        ]
        answers = [m for m in messages if "id" in m]
        return answers[-1]
    answer: dict[str, Any] = json.loads(text)
    return answer


def unpadded_b64(part: str) -> bytes:
    """Decodes one base64url segment of a requestState token (what a peer could read without the key)."""
    try:
        return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
    except ValueError:
        return part.encode()


async def call(url: str, tool: str, caps: dict[str, Any], **extra: Any) -> dict[str, Any]:
    params = {"name": tool, "arguments": {}, "_meta": meta(caps), **extra}
    return await asyncio.to_thread(post, url, "tools/call", params, tool)


async def test_ctx_input_round_trip() -> None:
    async with await make_server().serve_http("127.0.0.1", 0) as http:
        first = (await call(http.url, "greet", ALL_CAPS))["result"]
        assert first["resultType"] == "input_required"
        assert first["inputRequests"]["who"]["method"] == "elicitation/create"
        retry = await call(
            http.url,
            "greet",
            ALL_CAPS,
            inputResponses={"who": {"action": "accept", "content": {"name": "Ada"}}},
            requestState=first.get("requestState"),
        )
        assert retry["result"]["content"][0]["text"] == "Hello, Ada!"
        assert retry["result"]["resultType"] == "complete"


async def test_explicit_input_required_with_state() -> None:
    async with await make_server().serve_http("127.0.0.1", 0) as http:
        first = (await call(http.url, "explicit", ALL_CAPS))["result"]
        assert first["resultType"] == "input_required"
        state = first["requestState"]
        assert isinstance(state, str)
        assert not any(b'"n":42' in unpadded_b64(part) for part in state.split(".")), (
            "state sent in the clear"
        )
        answer = {"who": {"action": "accept", "content": {"name": "Bo"}}}
        retry = await call(
            http.url, "explicit", ALL_CAPS, inputResponses=answer, requestState=state
        )
        assert retry["result"]["content"][0]["text"] == "Bo 42"
        tampered = state[:-2] + ("AA" if not state.endswith("AA") else "BB")
        refused = await call(
            http.url, "explicit", ALL_CAPS, inputResponses=answer, requestState=tampered
        )
        assert refused["error"]["code"] == CODES["InvalidParams"]


async def test_unchanged_handler_code_becomes_input_required() -> None:
    async with await make_server().serve_http("127.0.0.1", 0) as http:
        first = (await call(http.url, "unchanged", ALL_CAPS))["result"]
        assert first["resultType"] == "input_required"
        [(key, request)] = first["inputRequests"].items()
        assert request["method"] == "elicitation/create"
        retry = await call(
            http.url,
            "unchanged",
            ALL_CAPS,
            inputResponses={key: {"action": "decline"}},
            requestState=first.get("requestState"),
        )
        assert retry["result"]["content"][0]["text"] == "action=decline"


async def test_missing_capability_is_32021() -> None:
    async with await make_server().serve_http("127.0.0.1", 0) as http:
        answer = await call(http.url, "needs_sampling", {"elicitation": {}})
        assert answer["error"]["code"] == CODES["MissingRequiredClientCapability"] == -32021
        # ctx.sample too: the engine's -32021 is the answer under 2026-07-28 (not an isError).
        answer = await call(http.url, "samples", {"elicitation": {}})
        assert answer["error"]["code"] == -32021
        assert answer["error"]["data"]["requiredCapabilities"] == {"sampling": {}}


async def test_prompt_asks_for_input() -> None:
    async with await make_server().serve_http("127.0.0.1", 0) as http:
        params: dict[str, Any] = {"name": "framed", "_meta": meta(ALL_CAPS)}
        first = (await asyncio.to_thread(post, http.url, "prompts/get", params, "framed"))["result"]
        assert first["resultType"] == "input_required"
        params |= {
            "inputResponses": {"ctx": {"action": "accept", "content": {"name": "docs"}}},
            "requestState": first.get("requestState"),
        }
        retry = (await asyncio.to_thread(post, http.url, "prompts/get", params, "framed"))["result"]
        assert retry["messages"][0]["content"]["text"] == "Context: docs"


async def test_ctx_input_sends_requests_in_the_handshake_era() -> None:
    asked: list[dict[str, Any]] = []

    async def on_elicit(params: dict[str, Any], _ctx: Context) -> dict[str, Any]:
        asked.append(params)
        return {"action": "accept", "content": {"name": "Cy"}}

    async with await make_server().serve_http("127.0.0.1", 0) as http:
        async with Client.http(http.url, elicitation_handler=on_elicit) as c:
            r = await c.call_tool("greet", {})
    assert r["content"][0]["text"] == "Hello, Cy!"
    assert asked and asked[0]["message"] == "name?"


def test_error_classes_follow_the_engine_table() -> None:
    assert isinstance(from_code(-32021, "x"), MissingRequiredClientCapability)
    assert CODES["HeaderMismatch"] == -32020
    assert CODES["UnsupportedProtocolVersion"] == -32022
    err = input_required(ask_name(), state=[1, 2])
    assert isinstance(err, InputRequired) and isinstance(err, McpError)
    assert err.data == {"inputRequests": ask_name(), "state": [1, 2]}
    with pytest.raises(TypeError):
        input_required({})
    with pytest.raises(TypeError):
        input_required({"k": {"params": {}}})
    assert not isinstance(err, InvalidParams)


@pytest.mark.parametrize("options", [{"protocol_mode": "auto"}, {"protocol_version": "2026-07-28"}])
async def test_python_client_speaks_2026(options: dict[str, Any]) -> None:
    asked: list[str] = []

    async def on_elicit(params: dict[str, Any], _ctx: Context) -> dict[str, Any]:
        asked.append(params["message"])
        return {"action": "accept", "content": {"name": "Di"}}

    async with await make_server().serve_http("127.0.0.1", 0) as http:
        async with Client.http(http.url, elicitation_handler=on_elicit, **options) as c:
            assert c.protocol_version == V
            # input_required answered by the client's own handler, then retried
            r = await c.call_tool("greet", {})
            assert r["content"][0]["text"] == "Hello, Di!"
            r = await c.call_tool("explicit", {})
            assert r["content"][0]["text"] == "Di 42"
    assert asked == ["name?", "name?"]
