"""The official SDK's ``mcp.types`` names that FastMCP/MCPServer code uses, as pydantic models
with the same fields (snake_case in Python, camelCase on the wire, ``_meta`` as ``meta``), so
that such code ports by changing its import::

    from ferromcp.types import CallToolResult, TextContent   # was: from mcp.types import ...

Only the types a server's handlers build or receive are here (tool results and content,
completions, sampling, elicitation, roots, and the request parameters and list/get/read
results of the low-level API, :mod:`ferromcp.lowlevel`), and what the SDK-shaped client
(:mod:`ferromcp.client.session`) returns and hands its callbacks. Handlers may also use the official SDK's own models
when it is installed: ferromcp reads any pydantic model by its aliases. Imported on first use
(``import ferromcp`` does not import pydantic)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

__all__ = [
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "PARSE_ERROR",
    "URL_ELICITATION_REQUIRED",
    "AudioContent",
    "BlobResourceContents",
    "CallToolRequestParams",
    "CallToolResult",
    "ClientCapabilities",
    "Completion",
    "CompletionArgument",
    "CompletionContext",
    "CompleteResult",
    "CreateMessageRequestParams",
    "CreateMessageResult",
    "ElicitRequestFormParams",
    "ElicitRequestParams",
    "ElicitRequestURLParams",
    "ElicitResult",
    "EmbeddedResource",
    "EmptyResult",
    "ErrorData",
    "GetPromptRequestParams",
    "GetPromptResult",
    "ImageContent",
    "Implementation",
    "InitializeRequestParams",
    "InitializeResult",
    "ListPromptsResult",
    "ListResourceTemplatesResult",
    "ListResourcesResult",
    "ListRootsResult",
    "ListToolsResult",
    "LoggingMessageNotificationParams",
    "PaginatedRequestParams",
    "Prompt",
    "PromptArgument",
    "PromptMessage",
    "PromptReference",
    "ReadResourceRequestParams",
    "ReadResourceResult",
    "Resource",
    "ResourceLink",
    "ResourceTemplate",
    "ResourceTemplateReference",
    "Root",
    "SamplingMessage",
    "ServerNotification",
    "TextContent",
    "TextResourceContents",
    "Tool",
    "to_wire",
]


# JSON-RPC error codes, as the SDK's mcp.types names them.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
URL_ELICITATION_REQUIRED = -32042


class MCPModel(BaseModel):
    """Base of these types: camelCase aliases, either spelling accepted, unknown fields kept."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:
        """pydantic's, leaving out ``None`` fields unless told otherwise (the wire has no
        ``null`` for absent fields), so ``to_jsonable`` gives wire JSON."""
        kwargs.setdefault("exclude_none", True)
        return super().model_dump(**kwargs)

    def to_wire(self) -> dict[str, Any]:
        """The wire dict (camelCase keys, ``None`` fields left out)."""
        out: dict[str, Any] = self.model_dump(by_alias=True, exclude_none=True, mode="json")
        return out


def to_wire(value: Any) -> Any:
    """``value`` as wire JSON when it is a pydantic model (ours or the official SDK's: by
    alias, ``None`` fields left out); anything else unchanged."""
    dump = getattr(value, "model_dump", None)
    if callable(dump) and isinstance(value, BaseModel):
        return dump(by_alias=True, exclude_none=True, mode="json")
    return value


class TextContent(MCPModel):
    type: Literal["text"] = "text"
    text: str
    annotations: dict[str, Any] | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class ImageContent(MCPModel):
    type: Literal["image"] = "image"
    data: str
    mime_type: str
    annotations: dict[str, Any] | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class AudioContent(MCPModel):
    type: Literal["audio"] = "audio"
    data: str
    mime_type: str
    annotations: dict[str, Any] | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class ResourceLink(MCPModel):
    type: Literal["resource_link"] = "resource_link"
    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None
    annotations: dict[str, Any] | None = None
    icons: list[Any] | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class EmbeddedResource(MCPModel):
    type: Literal["resource"] = "resource"
    resource: dict[str, Any]
    annotations: dict[str, Any] | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource


class CallToolResult(MCPModel):
    """A full ``tools/call`` result. A tool annotated ``-> CallToolResult`` has no
    ``outputSchema`` and its result is sent as it is; ``-> Annotated[CallToolResult, Model]``
    declares ``Model``'s schema as the ``outputSchema`` (``structured_content`` is checked
    against it)."""

    content: list[Any] = Field(default_factory=list)
    #: A JSON object in 2025-11-25; any JSON value in 2026-07-28.
    structured_content: Any = None
    is_error: bool = False
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")

    def to_wire(self) -> dict[str, Any]:
        out = super().to_wire()
        out["content"] = [to_wire(c) for c in self.content]
        return out


class PromptReference(MCPModel):
    type: Literal["ref/prompt"] = "ref/prompt"
    name: str
    title: str | None = None


class ResourceTemplateReference(MCPModel):
    type: Literal["ref/resource"] = "ref/resource"
    uri: str


class CompletionArgument(MCPModel):
    name: str
    value: str


class CompletionContext(MCPModel):
    arguments: dict[str, str] | None = None


class Completion(MCPModel):
    """What a ``@server.completion()`` handler returns (or ``None``: no values)."""

    values: list[str]
    total: int | None = None
    has_more: bool | None = None


class SamplingMessage(MCPModel):
    role: Literal["user", "assistant"]
    content: Any
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class CreateMessageResult(MCPModel):
    role: Literal["user", "assistant"] = "assistant"
    content: Any
    model: str = ""
    stop_reason: str | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class ElicitRequestURLParams(MCPModel):
    """A URL-mode elicitation (for ``UrlElicitationRequiredError``)."""

    mode: Literal["url"] = "url"
    message: str
    url: str
    #: Required in 2025-11-25; 2026-07-28 has no such field.
    elicitation_id: str | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class ElicitResult(MCPModel):
    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Any] | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class Root(MCPModel):
    uri: str
    name: str | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class ListRootsResult(MCPModel):
    roots: list[Root] = Field(default_factory=list)
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class Implementation(MCPModel):
    name: str = ""
    version: str = ""
    title: str | None = None
    description: str | None = None
    website_url: str | None = None
    icons: list[Any] | None = None


class ClientCapabilities(MCPModel):
    experimental: dict[str, Any] | None = None
    sampling: dict[str, Any] | None = None
    elicitation: dict[str, Any] | None = None
    roots: dict[str, Any] | None = None


class InitializeRequestParams(MCPModel):
    """``ctx.session.client_params``: what the client said about itself."""

    protocol_version: str | None = None
    capabilities: ClientCapabilities = Field(default_factory=ClientCapabilities)
    client_info: Implementation = Field(default_factory=Implementation)
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


def _content_block(value: Any) -> Any:
    """A content dict from the client as one of the content models (others as they are)."""
    if isinstance(value, dict):
        kind = value.get("type")
        models: dict[str, type[MCPModel]] = {
            "text": TextContent,
            "image": ImageContent,
            "audio": AudioContent,
            "resource_link": ResourceLink,
            "resource": EmbeddedResource,
        }
        cls = models.get(kind if isinstance(kind, str) else "")
        if cls is not None:
            return cls.model_validate(value)
    return value


# ---- the low-level API's requests and results (ferromcp.lowlevel) -----------------------------
class PaginatedRequestParams(MCPModel):
    cursor: str | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class CallToolRequestParams(MCPModel):
    name: str
    arguments: dict[str, Any] | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class GetPromptRequestParams(MCPModel):
    name: str
    arguments: dict[str, str] | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class ReadResourceRequestParams(MCPModel):
    uri: str
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class Tool(MCPModel):
    name: str
    title: str | None = None
    description: str | None = None
    input_schema: dict[str, Any] = Field(default_factory=lambda: {"type": "object"})
    output_schema: dict[str, Any] | None = None
    annotations: Any = None
    icons: list[Any] | None = None
    execution: dict[str, Any] | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class ListToolsResult(MCPModel):
    tools: list[Tool] = Field(default_factory=list)
    next_cursor: str | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class Resource(MCPModel):
    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None
    annotations: Any = None
    icons: list[Any] | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class ResourceTemplate(MCPModel):
    uri_template: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    annotations: Any = None
    icons: list[Any] | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class ListResourcesResult(MCPModel):
    resources: list[Resource] = Field(default_factory=list)
    next_cursor: str | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class ListResourceTemplatesResult(MCPModel):
    resource_templates: list[ResourceTemplate] = Field(default_factory=list)
    next_cursor: str | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class TextResourceContents(MCPModel):
    uri: str
    text: str
    mime_type: str | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class BlobResourceContents(MCPModel):
    uri: str
    blob: str
    mime_type: str | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class ReadResourceResult(MCPModel):
    contents: list[Any] = Field(default_factory=list)
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class PromptArgument(MCPModel):
    name: str
    title: str | None = None
    description: str | None = None
    required: bool | None = None


class Prompt(MCPModel):
    name: str
    title: str | None = None
    description: str | None = None
    arguments: list[PromptArgument] | None = None
    icons: list[Any] | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class ListPromptsResult(MCPModel):
    prompts: list[Prompt] = Field(default_factory=list)
    next_cursor: str | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class PromptMessage(MCPModel):
    role: Literal["user", "assistant"]
    content: Any


class GetPromptResult(MCPModel):
    description: str | None = None
    messages: list[PromptMessage] = Field(default_factory=list)
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


# ---- what the SDK-shaped client (ferromcp.client.session) returns and hands its callbacks ------
class ErrorData(MCPModel):
    """A JSON-RPC error: what a client callback may return instead of a result, and
    ``McpError.error``."""

    code: int
    message: str
    data: Any = None


class EmptyResult(MCPModel):
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class InitializeResult(MCPModel):
    protocol_version: str
    capabilities: dict[str, Any] = Field(default_factory=dict)
    server_info: Implementation = Field(default_factory=Implementation)
    instructions: str | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class CompleteResult(MCPModel):
    completion: Completion
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class CreateMessageRequestParams(MCPModel):
    """``sampling/createMessage``'s parameters (a sampling callback's ``params``)."""

    messages: list[SamplingMessage]
    max_tokens: int
    system_prompt: str | None = None
    include_context: str | None = None
    temperature: float | None = None
    stop_sequences: list[str] | None = None
    metadata: dict[str, Any] | None = None
    model_preferences: dict[str, Any] | None = None
    tools: list[Any] | None = None
    tool_choice: Any = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class ElicitRequestFormParams(MCPModel):
    """A form-mode ``elicitation/create`` (an elicitation callback's ``params``)."""

    mode: Literal["form"] = "form"
    message: str
    requested_schema: dict[str, Any]
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


ElicitRequestParams = ElicitRequestFormParams | ElicitRequestURLParams


class LoggingMessageNotificationParams(MCPModel):
    level: str
    logger: str | None = None
    data: Any = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class ServerNotification(MCPModel):
    """A notification from the server, as a ``message_handler`` gets it."""

    method: str
    params: dict[str, Any] | None = None
