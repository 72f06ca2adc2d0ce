"""Code written for the official SDK's MCPServer/FastMCP that ports by changing its imports:
``CallToolResult`` returns, SDK-style completions, structured output of ordinary classes,
``ctx.session``, URL elicitation, ``elicit(response_type=...)``, masked exceptions, the generic
``Context``."""

from __future__ import annotations

import dataclasses
import logging
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Annotated, Any, Literal, TypedDict

import ferromcp
import pytest
from ferromcp import Context, MCPServer, ServerSession, ToolError, UrlElicitationRequiredError
from ferromcp.types import (
    CallToolResult,
    Completion,
    CompletionArgument,
    CompletionContext,
    ElicitRequestURLParams,
    PromptReference,
    ResourceTemplateReference,
    SamplingMessage,
    TextContent,
)
from pydantic import BaseModel


# ---- 1. -> CallToolResult ----------------------------------------------------------------------
class ValidationModel(BaseModel):
    status: str
    data: dict[str, int]


async def test_call_tool_result_return_annotation_is_not_an_output_schema() -> None:
    mcp = MCPServer("CallToolResult Example")

    @mcp.tool()
    def advanced_tool() -> CallToolResult:
        return CallToolResult(
            content=[TextContent(type="text", text="Response visible to the model")],
            _meta={"hidden": "data for client applications only"},
        )

    @mcp.tool()
    def empty_result_tool() -> CallToolResult:
        return CallToolResult(content=[])

    @mcp.tool()
    def client_type() -> ferromcp.CallToolResult:  # ferromcp's own (dict) result type
        return ferromcp.CallToolResult(content=[{"type": "text", "text": "hi"}], is_error=True)

    async with ferromcp.Client.memory(mcp) as c:
        tools = {t.name: t for t in await c.list_all_tools()}
        assert tools["advanced_tool"].output_schema is None
        assert tools["empty_result_tool"].output_schema is None
        assert tools["client_type"].output_schema is None
        r = await c.call_tool("advanced_tool")
        assert not r.is_error
        assert r.content == [{"type": "text", "text": "Response visible to the model"}]
        assert r["_meta"] == {"hidden": "data for client applications only"}
        r = await c.call_tool("empty_result_tool")
        assert not r.is_error and r.content == []
        r = await c.call_tool("client_type")
        assert r.is_error and r.text == "hi"


async def test_annotated_call_tool_result_declares_the_models_output_schema() -> None:
    mcp = MCPServer("t")

    @mcp.tool()
    def validated_tool() -> Annotated[CallToolResult, ValidationModel]:
        return CallToolResult(
            content=[TextContent(type="text", text="Validated response")],
            structured_content={"status": "success", "data": {"result": 42}},
            _meta={"internal": "metadata"},
        )

    async with ferromcp.Client.memory(mcp) as c:
        (tool,) = await c.list_all_tools()
        assert tool.output_schema is not None
        assert set(tool.output_schema["properties"]) == {"status", "data"}
        r = await c.call_tool("validated_tool")
        assert not r.is_error, r
        assert r.structured_content == {"status": "success", "data": {"result": 42}}
        assert r.text == "Validated response"
        assert r["_meta"] == {"internal": "metadata"}


# ---- 2. SDK-style completions ------------------------------------------------------------------
async def test_completion_accepts_the_sdk_signature() -> None:
    mcp = MCPServer(name="Example")
    seen: list[Any] = []

    @mcp.resource("github://repos/{owner}/{repo}")
    def github_repo(owner: str, repo: str) -> str:
        return f"Repository: {owner}/{repo}"

    @mcp.prompt(description="Code review prompt")
    def review_code(language: str, code: str) -> str:
        return f"Review this {language} code:\n{code}"

    @mcp.completion()
    async def handle_completion(
        ref: PromptReference | ResourceTemplateReference,
        argument: CompletionArgument,
        context: CompletionContext | None,
    ) -> Completion | None:
        seen.append(context)
        if isinstance(ref, PromptReference):
            if ref.name == "review_code" and argument.name == "language":
                languages = ["python", "javascript", "typescript", "go", "rust"]
                return Completion(
                    values=[lang for lang in languages if lang.startswith(argument.value)],
                    has_more=False,
                )
        if isinstance(ref, ResourceTemplateReference):
            if ref.uri == "github://repos/{owner}/{repo}" and argument.name == "repo":
                if context and context.arguments and context.arguments.get("owner") == "mcp":
                    return Completion(values=["python-sdk", "specification"], has_more=False)
        return None

    async with ferromcp.Client.memory(mcp) as c:
        r = await c.complete({"type": "ref/prompt", "name": "review_code"}, "language", "py")
        assert r["values"] == ["python"] and r.get("hasMore") is False
        assert seen[-1] is None
        ref = {"type": "ref/resource", "uri": "github://repos/{owner}/{repo}"}
        r = await c.complete(ref, "repo", "", {"owner": "mcp"})
        assert r["values"] == ["python-sdk", "specification"]
        assert isinstance(seen[-1], CompletionContext)
        r = await c.complete(ref, "owner", "x")
        assert r["values"] == []


async def test_completion_keeps_the_ferromcp_signature() -> None:
    server = ferromcp.Server("t")

    @server.prompt()
    def p(language: str) -> str:
        return language

    @server.completion(prompt="p", argument="language")
    def languages(value: str) -> list[str]:
        return [x for x in ("go", "rust") if x.startswith(value)]

    async with ferromcp.Client.memory(server) as c:
        r = await c.complete({"type": "ref/prompt", "name": "p"}, "language", "r")
        assert r["values"] == ["rust"]


# ---- 3. structured output of typed classes -----------------------------------------------------
class UserProfile:
    name: str
    age: int
    email: str | None = None

    def __init__(self, name: str, age: int, email: str | None = None):
        self.name = name
        self.age = age
        self.email = email


@dataclasses.dataclass
class Point:
    x: int
    y: int


class Weather(BaseModel):
    temperature: float
    condition: str


class Location(TypedDict):
    latitude: float
    name: str


async def test_typed_class_return_gives_structured_content() -> None:
    mcp = MCPServer("t")

    @mcp.tool()
    def get_user(user_id: str) -> UserProfile:
        return UserProfile(name="Alice", age=30, email="alice@example.com")

    @mcp.tool()
    def get_point() -> Point:
        return Point(1, 2)

    @mcp.tool()
    def get_weather() -> Weather:
        return Weather(temperature=22.5, condition="sunny")

    @mcp.tool()
    def get_location() -> Location:
        return Location(latitude=51.5, name="London")

    expected = {
        "get_user": {"name": "Alice", "age": 30, "email": "alice@example.com"},
        "get_point": {"x": 1, "y": 2},
        "get_weather": {"temperature": 22.5, "condition": "sunny"},
        "get_location": {"latitude": 51.5, "name": "London"},
    }
    async with ferromcp.Client.memory(mcp) as c:
        tools = {t.name: t for t in await c.list_all_tools()}
        schema = tools["get_user"].output_schema
        assert schema is not None and schema["type"] == "object"
        assert set(schema["properties"]) == {"name", "age", "email"}
        assert schema["required"] == ["name", "age"]
        for name, value in expected.items():
            assert tools[name].output_schema is not None, name
            r = await c.call_tool(name, {"user_id": "1"} if name == "get_user" else {})
            assert not r.is_error, r
            assert r.structured_content == value
            import json

            assert json.loads(r.text) == value


# ---- 4. ctx.session ----------------------------------------------------------------------------
async def test_ctx_session_maps_the_sdk_session_methods() -> None:
    mcp = MCPServer(name="Notifications Example")
    seen: dict[str, Any] = {}

    @mcp.tool()
    async def process_data(data: str, ctx: Context) -> str:
        session = ctx.session
        assert isinstance(session, ServerSession)
        await session.send_resource_list_changed()
        await session.send_tool_list_changed()
        await session.send_prompt_list_changed()
        await session.send_log_message(level="info", data="hello", logger="me")
        await session.send_progress_notification("tok", 1, 2, "half")
        seen["client"] = session.client_params.client_info.name
        seen["sampling"] = session.check_client_capability({"sampling": {}})
        seen["roots"] = session.check_client_capability({"roots": {}})
        seen["experimental"] = session.check_client_capability({"experimental": {"x": {}}})
        result = await session.create_message(
            messages=[SamplingMessage(role="user", content=TextContent(type="text", text="x"))],
            max_tokens=100,
        )
        seen["roots_list"] = (await session.list_roots()).roots
        answer = await session.elicit("ok?", {"type": "object", "properties": {}})
        seen["elicit"] = answer.action
        assert result.content.type == "text"
        return result.content.text

    notes: list[tuple[str, Any]] = []

    async def sample(params: dict[str, Any], _ctx: Any) -> dict[str, Any]:
        text = params["messages"][0]["content"]["text"]
        return {
            "role": "assistant",
            "content": {"type": "text", "text": f"poem:{text}"},
            "model": "m",
        }

    async def elicit(params: dict[str, Any], _ctx: Any) -> dict[str, Any]:
        return {"action": "decline"}

    async with ferromcp.Client.memory(
        mcp,
        name="porter",
        sampling_handler=sample,
        elicitation_handler=elicit,
        roots=[{"uri": "file:///work", "name": "work"}],
        on_notification=lambda m, p: notes.append((m, p)),
    ) as c:
        r = await c.call_tool("process_data", {"data": "d"})
        assert not r.is_error, r
        assert r.text == "poem:x"
    methods = [m for m, _ in notes]
    for m in (
        "notifications/resources/list_changed",
        "notifications/tools/list_changed",
        "notifications/prompts/list_changed",
        "notifications/message",
    ):
        assert m in methods
    assert ("notifications/message", {"level": "info", "data": "hello", "logger": "me"}) in notes
    assert seen["client"] == "porter"
    assert seen["sampling"] is True and seen["roots"] is True
    assert seen["experimental"] is False
    assert [(r.uri, r.name) for r in seen["roots_list"]] == [("file:///work", "work")]
    assert seen["elicit"] == "decline"


# ---- 5. URL elicitation ------------------------------------------------------------------------
async def test_url_elicitation_required_error_is_a_jsonrpc_error_32042() -> None:
    mcp = MCPServer("t")

    @mcp.tool()
    async def connect_service(service_name: str, ctx: Context) -> str:
        raise UrlElicitationRequiredError(
            [
                ElicitRequestURLParams(
                    mode="url",
                    message=f"Authorization required to connect to {service_name}",
                    url="https://example.com/oauth?elicit=e1",
                    elicitation_id="e1",
                )
            ]
        )

    async with ferromcp.Client.memory(mcp) as c:
        with pytest.raises(ferromcp.McpError) as info:
            await c.call_tool("connect_service", {"service_name": "gh"})
    err = info.value
    assert err.code == -32042
    assert isinstance(err, UrlElicitationRequiredError)
    assert err.data == {
        "elicitations": [
            {
                "mode": "url",
                "message": "Authorization required to connect to gh",
                "url": "https://example.com/oauth?elicit=e1",
                "elicitationId": "e1",
            }
        ]
    }
    assert err.elicitations[0].elicitation_id == "e1"


async def test_elicit_url_sends_a_url_mode_elicitation() -> None:
    mcp = MCPServer("t")

    @mcp.tool()
    async def secure_payment(amount: float, ctx: Context) -> str:
        result = await ctx.elicit_url(
            message=f"Please confirm payment of ${amount:.2f}",
            url="https://payments.example.com/confirm?id=p1",
            elicitation_id="p1",
        )
        return result.action

    asked: list[dict[str, Any]] = []

    async def elicit(params: dict[str, Any], _ctx: Any) -> dict[str, Any]:
        asked.append(params)
        return {"action": "accept"}

    async with ferromcp.Client.memory(mcp, elicitation_handler=elicit, elicitation_url=True) as c:
        r = await c.call_tool("secure_payment", {"amount": 3})
        assert not r.is_error, r
        assert r.structured_content == {"result": "accept"}
    assert asked[0]["mode"] == "url"
    assert asked[0]["url"] == "https://payments.example.com/confirm?id=p1"
    assert asked[0]["elicitationId"] == "p1"
    assert asked[0]["message"] == "Please confirm payment of $3.00"


# ---- 6. elicit(response_type=...) --------------------------------------------------------------
@dataclasses.dataclass
class Booking:
    date: str
    seats: int = 2


class Prefs(BaseModel):
    check_alternative: bool


async def test_elicit_response_type_wraps_primitives_and_validates_models() -> None:
    mcp = MCPServer("t")
    got: dict[str, Any] = {}

    @mcp.tool()
    async def ask(ctx: Context) -> str:
        name = await ctx.elicit("Your name?", response_type=str)
        got["name"] = (name.action, name.data)
        n = await ctx.elicit("How many?", response_type=int)
        got["n"] = n.data
        color = await ctx.elicit("Color?", response_type=Literal["red", "blue"])
        got["color"] = color.data
        booking = await ctx.elicit("Booking?", response_type=Booking)
        got["booking"] = booking.data
        prefs = await ctx.elicit(message="Prefs?", schema=Prefs)
        got["prefs"] = prefs.data
        return "ok"

    schemas: list[dict[str, Any]] = []
    answers = iter(
        [
            {"value": "Ada"},
            {"value": 3},
            {"value": "blue"},
            {"date": "2025-01-01"},
            {"check_alternative": True},
        ]
    )

    async def elicit(params: dict[str, Any], _ctx: Any) -> dict[str, Any]:
        schemas.append(params["requestedSchema"])
        return {"action": "accept", "content": next(answers)}

    async with ferromcp.Client.memory(mcp, elicitation_handler=elicit) as c:
        r = await c.call_tool("ask")
        assert not r.is_error, r
    assert schemas[0] == {
        "type": "object",
        "properties": {"value": {"type": "string"}},
        "required": ["value"],
    }
    assert schemas[1]["properties"]["value"]["type"] == "integer"
    assert schemas[2]["properties"]["value"]["enum"] == ["red", "blue"]
    assert set(schemas[3]["properties"]) == {"date", "seats"}
    assert got == {
        "name": ("accept", "Ada"),
        "n": 3,
        "color": "blue",
        "booking": Booking("2025-01-01", 2),
        "prefs": Prefs(check_alternative=True),
    }


# ---- 7. masked exceptions ----------------------------------------------------------------------
async def test_unexpected_exception_text_is_masked_by_default(
    caplog: pytest.LogCaptureFixture,
) -> None:
    mcp = MCPServer("t")

    @mcp.tool()
    def boom() -> str:
        raise ValueError("secret database password in here")

    @mcp.tool()
    def expected_failure() -> str:
        raise ToolError("the city is unknown")

    @mcp.resource("r://x")
    def res() -> str:
        raise RuntimeError("secret resource detail")

    with caplog.at_level(logging.INFO, logger="ferromcp"):
        async with ferromcp.Client.memory(mcp) as c:
            r = await c.call_tool("boom")
            assert r.is_error and r.text == "Error executing tool boom"
            r = await c.call_tool("expected_failure")
            assert (
                r.is_error
                and r.text == "Error executing tool expected_failure: the city is unknown"
            )
            with pytest.raises(ferromcp.McpError) as info:
                await c.read_resource("r://x")
            assert "secret" not in str(info.value)
    assert "secret database password in here" in caplog.text  # logged on the server
    assert "secret resource detail" in caplog.text


async def test_mask_error_details_false_sends_the_exception_text() -> None:
    mcp = MCPServer("t", mask_error_details=False)

    @mcp.tool()
    def boom() -> str:
        raise ValueError("details")

    async with ferromcp.Client.memory(mcp) as c:
        r = await c.call_tool("boom")
        assert r.is_error and r.text == "ValueError: details"


# ---- 8. Context generic in the lifespan type ---------------------------------------------------
def test_context_lifespan_context_is_typed_for_mypy(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    code = textwrap.dedent(
        """
        from dataclasses import dataclass
        from ferromcp import Context, MCPServer, ServerSession

        @dataclass
        class AppContext:
            db: str

        mcp = MCPServer("t")

        @mcp.tool()
        def query(ctx: Context[ServerSession, AppContext]) -> str:
            db: str = ctx.request_context.lifespan_context.db
            also: str = ctx.lifespan_context.db
            wrong: int = ctx.request_context.lifespan_context.db
            return db + also + str(wrong)

        @mcp.tool()
        def plain(ctx: Context) -> str:
            return str(ctx.request_context.lifespan_context)

        @mcp.tool()
        def sdk2_style(ctx: Context[AppContext]) -> str:
            db: str = ctx.request_context.lifespan_context.db
            wrong: int = ctx.lifespan_context.db
            return db + str(wrong)
        """
    )
    path = tmp_path / "typed_user.py"
    path.write_text(code)
    r = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    lines = [ln for ln in r.stdout.splitlines() if ": error:" in ln]
    assert len(lines) == 2, r.stdout
    assert "typed_user.py:15:" in lines[0] and 'has type "str"' in lines[0], r.stdout
    assert "typed_user.py:25:" in lines[1] and 'has type "str"' in lines[1], r.stdout


async def test_official_sdk_mcp_error_in_a_tool_keeps_its_code_and_data() -> None:
    # The official SDK's MCPError (UrlElicitationRequiredError among them) carries its JSON-RPC
    # error as `.error` (ErrorData: code, message, data); this mimics it without importing mcp.
    class ErrorData(BaseModel):
        code: int
        message: str
        data: Any = None

    class MCPError(Exception):
        def __init__(self, code: int, message: str, data: Any = None) -> None:
            super().__init__(code, message, data)
            self.error = ErrorData(code=code, message=message, data=data)

    mcp = MCPServer("t")

    @mcp.tool()
    def needs_auth() -> str:
        elicitation = {"mode": "url", "message": "m", "url": "https://x", "elicitationId": "e"}
        raise MCPError(-32042, "URL elicitation required", {"elicitations": [elicitation]})

    async with ferromcp.Client.memory(mcp) as c:
        with pytest.raises(UrlElicitationRequiredError) as info:
            await c.call_tool("needs_auth")
    assert info.value.code == -32042
    assert info.value.data["elicitations"][0]["elicitationId"] == "e"


async def test_untyped_class_return_is_unstructured_text_of_its_str() -> None:
    class UntypedConfig:
        def __init__(self, setting: str) -> None:
            self.setting = setting

        def __str__(self) -> str:
            return f"UntypedConfig({self.setting})"

    mcp = MCPServer("t")

    @mcp.tool()
    def get_config() -> UntypedConfig:
        return UntypedConfig("v")

    async with ferromcp.Client.memory(mcp) as c:
        (tool,) = await c.list_all_tools()
        assert tool.output_schema is None
        r = await c.call_tool("get_config")
        assert not r.is_error, r
        assert r.text == '"UntypedConfig(v)"'  # the official SDK's JSON of str(value)


async def test_prompt_returning_sdk_base_messages() -> None:
    from ferromcp.prompts import base

    mcp = MCPServer("t")

    @mcp.prompt(title="Debug Assistant")
    def debug_error(error: str) -> list[base.Message]:
        return [
            base.UserMessage("I'm seeing this error:"),
            base.UserMessage(error),
            base.AssistantMessage("I'll help debug that."),
        ]

    async with ferromcp.Client.memory(mcp) as c:
        r = await c.get_prompt("debug_error", {"error": "E1"})
    assert r.messages == [
        {"role": "user", "content": {"type": "text", "text": "I'm seeing this error:"}},
        {"role": "user", "content": {"type": "text", "text": "E1"}},
        {"role": "assistant", "content": {"type": "text", "text": "I'll help debug that."}},
    ]


def test_mcpserver_auth_takes_a_protected_resource() -> None:
    from ferromcp import ProtectedResource

    def verify(token: str) -> dict[str, Any] | None:
        return {"subject": "u"} if token == "t" else None

    auth = ProtectedResource(
        resource="http://127.0.0.1:8000/mcp", verify=verify, authorization_servers=["https://a"]
    )
    mcp = MCPServer("x", auth=auth, port=8123)
    assert mcp._http_options({})["auth"] is auth  # what run(transport="streamable-http") serves
    assert mcp._http_options({"auth": None})["auth"] is None
    with pytest.raises(TypeError, match="ProtectedResource"):
        MCPServer("x", auth={"issuer_url": "https://auth"})


def test_sse_app_says_what_to_do_instead() -> None:
    mcp = MCPServer("x")
    assert callable(mcp.streamable_http_app(json_response=True))  # tests/test_asgi_app.py
    with pytest.raises(NotImplementedError, match="streamable_http_app"):
        mcp.sse_app(mount_path="/x")
