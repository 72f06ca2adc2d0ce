"""The "everything" server in Python: the surface the official MCP conformance suite drives
(tests/conformance/SCENARIOS.md), the same as examples/rust/src/everything_server.rs.

    python everything_server.py [--transport stdio|http] [--port N]

HTTP serves Streamable HTTP at http://127.0.0.1:N/mcp (stateful sessions, SSE responses,
`retry: 5000` on priming events). Logs go to stderr only. Replicas serving the same clients
seal 2026-07-28 `requestState` with one shared key: `FERROMCP_REQUEST_STATE_KEY` (64 hex
digits), as the Rust everything server reads it. It serves the tasks extension
`io.modelcontextprotocol/tasks` to 2026-07-28 clients (the `tasks-*` scenarios' fixtures).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

from ferromcp import Context, InternalError, InvalidParams, Server, input_required

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
WAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
LOGGER = "conformance-test-server"
NO_ARGS: dict[str, Any] = {"type": "object", "properties": {}}

_STATE_KEY = os.environ.get("FERROMCP_REQUEST_STATE_KEY")
server = Server(
    "mcp-conformance-test-server",
    version="1.0.0",
    request_state_keys=[{"id": "shared", "secret": _STATE_KEY}] if _STATE_KEY else None,
    tasks_extension=True,
)
F = TypeVar("F", bound=Callable[..., Any])


def result(content: list[dict[str, Any]], is_error: bool = False) -> dict[str, Any]:
    """A CallToolResult dict (returned as-is by the facade)."""
    return {"content": content, "isError": is_error}


def text(t: str, is_error: bool = False) -> dict[str, Any]:
    return result([{"type": "text", "text": t}], is_error)


def compact(value: Any) -> str:
    """JSON without spaces, like JavaScript's JSON.stringify."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def tool(name: str, description: str, schema: dict[str, Any] | None = None) -> Callable[[F], F]:
    """Registers a tool with a fixed input schema and results built by hand."""
    return server.tool(
        name, description=description, input_schema=schema or NO_ARGS, structured_output=False
    )


def client_has(ctx: Context, capability: str) -> bool:
    caps = ctx.client_capabilities
    return isinstance(caps, dict) and capability in caps


@tool("test_simple_text", "Returns a simple text response")
def simple_text() -> dict[str, Any]:
    return text("This is a simple text response for testing.")


@tool("test_image_content", "Returns an image")
def image_content() -> dict[str, Any]:
    return result([{"type": "image", "data": PNG, "mimeType": "image/png"}])


@tool("test_audio_content", "Returns an audio clip")
def audio_content() -> dict[str, Any]:
    return result([{"type": "audio", "data": WAV, "mimeType": "audio/wav"}])


@tool("test_embedded_resource", "Returns an embedded resource")
def embedded_resource() -> dict[str, Any]:
    resource = {
        "uri": "test://embedded-resource",
        "mimeType": "text/plain",
        "text": "This is an embedded resource content.",
    }
    return result([{"type": "resource", "resource": resource}])


@tool("test_multiple_content_types", "Returns text, an image and a resource")
def multiple_content_types() -> dict[str, Any]:
    resource = {
        "uri": "test://mixed-content-resource",
        "mimeType": "application/json",
        "text": compact({"test": "data", "value": 123}),
    }
    return result(
        [
            {"type": "text", "text": "Multiple content types test:"},
            {"type": "image", "data": PNG, "mimeType": "image/png"},
            {"type": "resource", "resource": resource},
        ]
    )


@tool("test_tool_with_logging", "Sends three log messages while running")
async def tool_with_logging(ctx: Context) -> dict[str, Any]:
    messages = ["Tool execution started", "Tool processing data", "Tool execution completed"]
    for i, message in enumerate(messages):
        if i:
            await asyncio.sleep(0.05)
        await ctx.info(message, logger=LOGGER)
    return text("Tool with logging executed successfully")


@tool("test_error_handling", "Always fails with a tool error")
def error_handling() -> dict[str, Any]:
    return text("This tool intentionally returns an error for testing", is_error=True)


@tool("test_tool_with_progress", "Reports progress 0, 50, 100")
async def tool_with_progress(ctx: Context) -> dict[str, Any]:
    for i, p in enumerate([0, 50, 100]):
        if i:
            await asyncio.sleep(0.05)
        await ctx.report_progress(p, 100, f"Completed step {p} of 100")
    token = ctx.progress_token
    if token is None:
        return text("no progress token")
    return text(token if isinstance(token, str) else json.dumps(token))


@tool(
    "test_sampling",
    "Asks the client's LLM to answer a prompt",
    {
        "type": "object",
        "properties": {
            "prompt": {"type": "string", "description": "The prompt to send to the LLM"}
        },
        "required": ["prompt"],
    },
)
async def sampling(prompt: str, ctx: Context) -> dict[str, Any]:
    if not client_has(ctx, "sampling"):
        return text("the client does not support sampling", is_error=True)
    try:
        r = await ctx.sample(prompt, max_tokens=100)
    except Exception as e:  # noqa: BLE001 - reported to the caller as a tool error
        return text(f"Sampling failed: {e}", is_error=True)
    content = r.get("content")
    items = content if isinstance(content, list) else [content or {}]
    answer = "".join(c.get("text", "") for c in items if isinstance(c, dict))
    return text(f"LLM response: {answer}")


@tool(
    "test_elicitation",
    "Asks the user for a username and an email address",
    {
        "type": "object",
        "properties": {
            "message": {"type": "string", "description": "The message to show the user"}
        },
        "required": ["message"],
    },
)
async def elicitation(message: str, ctx: Context) -> dict[str, Any]:
    if not client_has(ctx, "elicitation"):
        return text("the client does not support elicitation", is_error=True)
    schema = {
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"},
        },
        "required": ["username", "email"],
    }
    try:
        r = await ctx.elicit(message, schema)
    except Exception as e:  # noqa: BLE001
        return text(f"Elicitation failed: {e}", is_error=True)
    action = r.get("action", "unknown")
    return text(f"User response: action={action}, content={compact(r.get('content', {}))}")


async def elicit_form(ctx: Context, message: str, schema: dict[str, Any]) -> dict[str, Any]:
    if not client_has(ctx, "elicitation"):
        return text("the client does not support elicitation", is_error=True)
    try:
        r = await ctx.elicit(message, schema)
    except Exception as e:  # noqa: BLE001
        return text(f"Elicitation failed: {e}", is_error=True)
    action = r.get("action", "unknown")
    return text(f"Elicitation completed: action={action}, content={compact(r.get('content', {}))}")


@tool(
    "test_elicitation_sep1034_defaults",
    "Elicits a form whose fields carry default values (SEP-1034)",
)
async def elicitation_defaults(ctx: Context) -> dict[str, Any]:
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {
                "type": "string",
                "description": "User status",
                "enum": ["active", "inactive", "pending"],
                "default": "active",
            },
            "verified": {
                "type": "boolean",
                "description": "Verification status",
                "default": True,
            },
        },
        "required": [],
    }
    return await elicit_form(ctx, "Please review and update the form fields with defaults", schema)


def titled(values: list[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"const": c, "title": t} for c, t in values]


@tool("test_elicitation_sep1330_enums", "Elicits every enum variant of SEP-1330")
async def elicitation_enums(ctx: Context) -> dict[str, Any]:
    options = ["option1", "option2", "option3"]
    schema = {
        "type": "object",
        "properties": {
            "untitledSingle": {
                "type": "string",
                "description": "Select one option",
                "enum": options,
            },
            "titledSingle": {
                "type": "string",
                "description": "Select one option with titles",
                "oneOf": titled(
                    [
                        ("value1", "First Option"),
                        ("value2", "Second Option"),
                        ("value3", "Third Option"),
                    ]
                ),
            },
            "legacyEnum": {
                "type": "string",
                "description": "Select one option (legacy)",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"],
            },
            "untitledMulti": {
                "type": "array",
                "description": "Select multiple options",
                "minItems": 1,
                "maxItems": 3,
                "items": {"type": "string", "enum": options},
            },
            "titledMulti": {
                "type": "array",
                "description": "Select multiple options with titles",
                "minItems": 1,
                "maxItems": 3,
                "items": {
                    "anyOf": titled(
                        [
                            ("value1", "First Choice"),
                            ("value2", "Second Choice"),
                            ("value3", "Third Choice"),
                        ]
                    )
                },
            },
        },
        "required": [],
    }
    return await elicit_form(ctx, "Please select options from the enum fields", schema)


@tool(
    "json_schema_2020_12_tool",
    "A tool whose input schema uses JSON Schema 2020-12 features ($defs, $ref)",
    {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"},
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": False,
    },
)
def json_schema_tool(**arguments: Any) -> dict[str, Any]:
    return text(f"JSON Schema 2020-12 tool called with: {compact(arguments)}")


@tool(
    "test_reconnection",
    "Checks that the client reconnects after the server closes the request's stream (SEP-1699)",
)
async def reconnection(ctx: Context) -> dict[str, Any]:
    ctx.close_sse_stream()
    await asyncio.sleep(0.1)
    return text(
        "Reconnection test completed successfully. If you received this, the client properly "
        "reconnected after stream closure."
    )


# ---- 2026-07-28: diagnostics of server-stateless -------------------------------------------------
def trigger_tool_change() -> dict[str, Any]:
    server.remove_tool("test_trigger_tool_change")
    tool("test_trigger_tool_change", "Registers itself again (a tools list change)")(
        trigger_tool_change
    )
    return text("Tool list changed")


tool("test_trigger_tool_change", "Registers itself again (a tools list change)")(
    trigger_tool_change
)


@tool("test_trigger_prompt_change", "Registers test_simple_prompt again (a prompts list change)")
def trigger_prompt_change() -> dict[str, Any]:
    server.remove_prompt("test_simple_prompt")
    register_simple_prompt()
    return text("Prompt list changed")


@tool("test_missing_capability", "Asks for sampling whether or not the client declared it")
async def missing_capability(ctx: Context) -> dict[str, Any]:
    # ctx.request, not ctx.sample: the engine answers -32021 when the request's client
    # capabilities lack sampling (2026-07-28).
    params = {
        "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
        "maxTokens": 10,
    }
    await ctx.request("sampling/createMessage", params)
    return text("Sampling succeeded")


@tool(
    "test_header_param",
    "Echoes its region, which clients mirror into the Mcp-Param-Region header",
    {"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}},
)
def header_param(region: str = "") -> dict[str, Any]:
    return text(f"region: {region}")


@tool(
    "test_logging_tool", "Sends a log message (delivered only when the request asked for a level)"
)
async def logging_tool(ctx: Context) -> dict[str, Any]:
    await ctx.info("test_logging_tool ran", logger=LOGGER)
    return text("Logging tool executed")


# ---- 2026-07-28: multi round-trip requests (input_required) --------------------------------------
def elicit_input(message: str, prop: str, kind: str) -> dict[str, Any]:
    schema = {"type": "object", "properties": {prop: {"type": kind}}, "required": [prop]}
    return {
        "method": "elicitation/create",
        "params": {"message": message, "requestedSchema": schema},
    }


def sampling_input(prompt: str, max_tokens: int) -> dict[str, Any]:
    messages = [{"role": "user", "content": {"type": "text", "text": prompt}}]
    return {
        "method": "sampling/createMessage",
        "params": {"messages": messages, "maxTokens": max_tokens},
    }


ROOTS_INPUT: dict[str, Any] = {"method": "roots/list", "params": {}}


def accepted(ctx: Context, key: str) -> dict[str, Any] | None:
    """The content of an accepted elicitation answer to ``key``, if this retry carries one."""
    answer = ctx.input_response(key)
    if isinstance(answer, dict) and answer.get("action") == "accept":
        content = answer.get("content")
        return content if isinstance(content, dict) else {}
    return None


@tool("test_input_required_result_elicitation", "Asks for the user's name, then greets")
async def ir_elicitation(ctx: Context) -> dict[str, Any]:
    # ctx.input serves both eras: input_required (2026-07-28) or a request to the client.
    answers = await ctx.input({"user_name": elicit_input("What is your name?", "name", "string")})
    name = (answers["user_name"].get("content") or {}).get("name", "stranger")
    return text(f"Hello, {name}!")


@tool("test_input_required_result_sampling", "Asks the client's LLM a question, then reports it")
async def ir_sampling(ctx: Context) -> dict[str, Any]:
    answers = await ctx.input(
        {"capital_question": sampling_input("What is the capital of France?", 100)}
    )
    return text(
        f"LLM response: {(answers['capital_question'].get('content') or {}).get('text', '')}"
    )


@tool("test_input_required_result_list_roots", "Asks for the client's roots, then lists them")
async def ir_list_roots(ctx: Context) -> dict[str, Any]:
    answers = await ctx.input({"client_roots": ROOTS_INPUT})
    uris = [r.get("uri", "") for r in answers["client_roots"].get("roots", [])]
    return text(f"Client roots: {', '.join(uris)}")


def confirm_with_state(ctx: Context) -> dict[str, Any]:
    """Round 1 asks for a confirmation with state; round 2 finds the state intact (the engine
    refuses an altered one before the tool runs)."""
    state = ctx.request_state
    state_ok = isinstance(state, dict) and state.get("nonce") == "state-ok"
    if ctx.input_response("confirm") is None:
        raise input_required(
            {"confirm": elicit_input("Please confirm", "ok", "boolean")},
            state={"nonce": "state-ok"},
        )
    if not state_ok:
        raise InvalidParams("requestState is missing")
    return text("state-ok: confirmation received with valid requestState")


@tool("test_input_required_result_request_state", "Asks for a confirmation with requestState")
def ir_request_state(ctx: Context) -> dict[str, Any]:
    return confirm_with_state(ctx)


@tool("test_input_required_result_tampered_state", "The same; a tampered requestState is refused")
def ir_tampered_state(ctx: Context) -> dict[str, Any]:
    return confirm_with_state(ctx)


@tool("test_input_required_result_multiple_inputs", "Asks for three inputs in one round")
def ir_multiple_inputs(ctx: Context) -> dict[str, Any]:
    keys = ["user_name", "greeting", "client_roots"]
    if all(ctx.input_response(k) is not None for k in keys):
        return text("Received all inputs: user_name, greeting, client_roots")
    raise input_required(
        {
            "user_name": elicit_input("What is your name?", "name", "string"),
            "greeting": sampling_input("Generate a greeting", 50),
            "client_roots": ROOTS_INPUT,
        },
        state={"round": 1},
    )


@tool("test_input_required_result_multi_round", "Two questions in two rounds, state carried")
def ir_multi_round(ctx: Context) -> dict[str, Any]:
    state = ctx.request_state if isinstance(ctx.request_state, dict) else {}
    step = state.get("step", 0)
    if step == 1 and (first := accepted(ctx, "step1")) and isinstance(first.get("name"), str):
        raise input_required(
            {"step2": elicit_input("Step 2: What is your favorite color?", "color", "string")},
            state={"step": 2, "name": first["name"]},
        )
    if step == 2 and (second := accepted(ctx, "step2")) and isinstance(second.get("color"), str):
        return text(f"{state.get('name', '?')} likes {second['color']}")
    raise input_required(
        {"step1": elicit_input("Step 1: What is your name?", "name", "string")}, state={"step": 1}
    )


@tool("test_input_required_result_capabilities", "Asks only for what the client can answer")
def ir_capabilities(ctx: Context) -> dict[str, Any]:
    if ctx.input_response("llm") is not None or ctx.input_response("user") is not None:
        return text("Received the input")
    wanted: dict[str, Any] = {}
    if client_has(ctx, "sampling"):
        wanted["llm"] = sampling_input("Say hello", 20)
    if client_has(ctx, "elicitation"):
        wanted["user"] = elicit_input("Your name?", "name", "string")
    if not wanted:
        return text("The client declared no capability to ask with")
    raise input_required(wanted)


@tool("test_streaming_elicitation", "Elicits through ctx.request (input_required in 2026-07-28)")
async def streaming_elicitation(ctx: Context) -> dict[str, Any]:
    answer = await ctx.request(
        "elicitation/create", elicit_input("Your name?", "name", "string")["params"]
    )
    return text(f"Elicitation answered: {answer.get('action', '?')}")


# ---- resources ----------------------------------------------------------------------------------
@server.resource(
    "test://static-text",
    name="static-text",
    title="Static Text Resource",
    description="A static text resource for testing",
    mime_type="text/plain",
)
def static_text() -> str:
    return "This is the content of the static text resource."


@server.resource(
    "test://static-binary",
    name="static-binary",
    title="Static Binary Resource",
    description="A static binary resource (image) for testing",
    mime_type="image/png",
)
def static_binary() -> dict[str, str]:
    return {"mimeType": "image/png", "blob": PNG}


@server.resource(
    "test://watched-resource",
    name="watched-resource",
    title="Watched Resource",
    description="A resource that auto-updates every 3 seconds",
    mime_type="text/plain",
)
def watched_resource() -> str:
    return "Watched resource content"


@server.resource(
    "test://template/{id}/data",
    name="template",
    title="Resource Template",
    description="A resource template with parameter substitution",
    mime_type="application/json",
)
def template_data(id: str) -> str:  # noqa: A002 - the template variable's name
    return compact({"id": id, "templateTest": True, "data": f"Data for ID: {id}"})


# ---- prompts ------------------------------------------------------------------------------------
def simple_prompt() -> str:
    return "This is a simple prompt for testing."


def register_simple_prompt() -> None:
    server.prompt(
        "test_simple_prompt",
        title="Simple Test Prompt",
        description="A simple prompt without arguments",
    )(simple_prompt)


register_simple_prompt()


@server.prompt(
    "test_input_required_result_prompt",
    description="Asks for context (input_required) before it is built",
)
def input_required_prompt(ctx: Context) -> str:
    answer = accepted(ctx, "user_context")
    if answer is None:
        raise input_required(
            {
                "user_context": elicit_input(
                    "What context should the prompt use?", "context", "string"
                )
            }
        )
    return f"Context: {answer.get('context', '')}"


@server.prompt(
    "test_prompt_with_arguments",
    title="Prompt With Arguments",
    description="A prompt with required arguments",
    arguments=[
        {"name": "arg1", "description": "First test argument", "required": True},
        {"name": "arg2", "description": "Second test argument", "required": True},
    ],
)
def prompt_with_arguments(arg1: str = "", arg2: str = "") -> str:
    return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"


@server.prompt(
    "test_prompt_with_embedded_resource",
    title="Prompt With Embedded Resource",
    description="A prompt that includes an embedded resource",
    arguments=[
        {"name": "resourceUri", "description": "URI of the resource to embed", "required": True}
    ],
)
def prompt_with_embedded_resource(resourceUri: str = "") -> list[Any]:  # noqa: N803 - MCP name
    resource = {
        "uri": resourceUri,
        "mimeType": "text/plain",
        "text": "Embedded resource content for testing.",
    }
    return [
        {"role": "user", "content": {"type": "resource", "resource": resource}},
        "Please process the embedded resource above.",
    ]


@server.prompt(
    "test_prompt_with_image",
    title="Prompt With Image",
    description="A prompt that includes image content",
)
def prompt_with_image() -> list[Any]:
    return [
        {"role": "user", "content": {"type": "image", "data": PNG, "mimeType": "image/png"}},
        "Please analyze the image above.",
    ]


# ---- completion ---------------------------------------------------------------------------------
@server.completion()
def complete(value: str) -> dict[str, Any]:
    values = [v for v in ("test", "testValue1", "testValue2", "example") if v.startswith(value)]
    return {"values": values, "total": len(values), "hasMore": False}


# ---- 2026-07-28: the tasks extension's fixtures (tasks-* scenarios) ------------------------------
def task_tool(
    name: str, description: str, support: str, schema: dict[str, Any] | None = None
) -> Callable[[F], F]:
    """A tool whose calls become tasks when the request declares the tasks extension."""
    return server.tool(
        name,
        description=description,
        input_schema=schema or NO_ARGS,
        structured_output=False,
        task_support=support,
    )


def ask(message: str) -> dict[str, Any]:
    props = {"name": {"type": "string"}, "confirm": {"type": "boolean"}}
    schema = {"type": "object", "properties": props}
    params = {"mode": "form", "message": message, "requestedSchema": schema}
    return {"method": "elicitation/create", "params": params}


def answer_text(answer: Any) -> str:
    if not isinstance(answer, dict) or answer.get("action") != "accept":
        return "declined"
    return str((answer.get("content") or {}).get("name", "confirmed"))


@tool("greet", "Greets by name", {"type": "object", "properties": {"name": {"type": "string"}}})
def greet(name: str = "World") -> dict[str, Any]:
    return text(f"Hello, {name}!")


@task_tool(
    "slow_compute",
    "Sleeps `seconds` seconds, then reports",
    "optional",
    {"type": "object", "properties": {"seconds": {"type": "number"}, "label": {"type": "string"}}},
)
async def slow_compute(seconds: float = 1.0, label: str = "job") -> dict[str, Any]:
    await asyncio.sleep(max(0.0, min(float(seconds), 3600.0)))
    return text(f"{label}: computed after {seconds} s")


@task_tool("failing_job", "Always ends with a tool execution error", "required")
async def failing_job() -> dict[str, Any]:
    await asyncio.sleep(0.5)
    return text("failing_job failed, as it always does", is_error=True)


@task_tool("protocol_error_job", "Always ends with a JSON-RPC error", "optional")
async def protocol_error_job() -> dict[str, Any]:
    await asyncio.sleep(0.2)
    # An McpError ends the task `failed` with that error; any other exception would be a tool
    # execution error (the task `completed` with isError), as in an ordinary call.
    raise InternalError("protocol_error_job failed with a protocol error on purpose")


@task_tool(
    "confirm_delete",
    "Asks the user to confirm, then deletes `filename` (pretend)",
    "optional",
    {"type": "object", "properties": {"filename": {"type": "string"}}},
)
async def confirm_delete(ctx: Context, filename: str = "file") -> dict[str, Any]:
    answers = await ctx.input({"confirm": ask(f"Delete {filename}?")})
    confirmed = answers["confirm"].get("action") == "accept"
    return text(f"Deleted {filename}" if confirmed else f"Kept {filename}")


@task_tool("multi_input", "Asks two questions at once, then reports both answers", "optional")
async def multi_input(ctx: Context) -> dict[str, Any]:
    answers = await ctx.input({"first": ask("First value?"), "second": ask("Second value?")})
    return text(f"Got {answer_text(answers['first'])} and {answer_text(answers['second'])}")


@task_tool("test_tool_with_task", "Asks for the user's name, then completes as a task", "required")
def tool_with_task(ctx: Context) -> dict[str, Any]:
    answer = ctx.input_response("user_name")
    if answer is None:
        raise input_required({"user_name": elicit_input("What is your name?", "name", "string")})
    return text(f"Hello, {answer_text(answer)}!")


async def watch() -> None:
    """Tells subscribers that test://watched-resource changed, every 3 seconds."""
    while True:
        await asyncio.sleep(3)
        server.notify_resource_updated("test://watched-resource")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    parser.add_argument("--port", type=int, default=3000)
    args = parser.parse_args()
    watcher = asyncio.create_task(watch())
    try:
        if args.transport == "stdio":
            await server.run_stdio_async()
        else:
            await server.run_http_async("127.0.0.1", args.port, retry_interval=5.0)
    finally:
        watcher.cancel()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(130)
