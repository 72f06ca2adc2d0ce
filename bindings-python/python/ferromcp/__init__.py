"""ferromcp: Model Context Protocol servers and clients on a Rust engine.

>>> from ferromcp import Server, Context
>>> server = Server("demo", version="1.0")
>>> @server.tool()
... def add(a: int, b: int) -> int:
...     "Adds two numbers."
...     return a + b
"""

from typing import TYPE_CHECKING, Any

from ._native import ENGINE_VERSION, CancelHandle
from .auth import IntrospectionVerifier, JwtVerifier, OAuth, ProtectedResource, TokenStore
from .compat import FastMCP, MCPServer
from .content import Audio, File, Icon, Image, ToolAnnotations
from .errors import (
    ClientCapabilityError,
    ConnectionClosed,
    HeaderMismatch,
    InputRequired,
    InternalError,
    InvalidParams,
    InvalidRequest,
    McpError,
    MethodNotFound,
    MissingRequiredClientCapability,
    ParseError,
    RequestCancelled,
    RequestTimeout,
    ResourceNotFound,
    TransportError,
    UnsupportedProtocolVersion,
    input_required,
)
from .results import (
    CallToolResult,
    GetPromptResult,
    ReadResourceResult,
    ResourceContents,
    Tool,
)
from .schema import schema_for
from .server import Context, ElicitResult, HttpServer, RequestContext, Server

if TYPE_CHECKING:
    from .client import Client

__version__: str = ENGINE_VERSION
"""The package version (the same as the native module's)."""


def __getattr__(name: str) -> Any:
    # The client (and asyncio, which it needs) is imported on first use: a server started as
    # `python server.py` should not pay for it (cold start).
    if name == "Client":
        from .client import Client

        return Client
    raise AttributeError(f"module 'ferromcp' has no attribute {name!r}")

__all__ = [
    "__version__",
    "ENGINE_VERSION",
    "Audio",
    "CallToolResult",
    "CancelHandle",
    "Client",
    "ClientCapabilityError",
    "ConnectionClosed",
    "Context",
    "ElicitResult",
    "FastMCP",
    "File",
    "GetPromptResult",
    "HeaderMismatch",
    "HttpServer",
    "Icon",
    "Image",
    "InputRequired",
    "InternalError",
    "IntrospectionVerifier",
    "InvalidParams",
    "InvalidRequest",
    "JwtVerifier",
    "MCPServer",
    "McpError",
    "MethodNotFound",
    "OAuth",
    "MissingRequiredClientCapability",
    "ParseError",
    "ProtectedResource",
    "ReadResourceResult",
    "RequestCancelled",
    "RequestContext",
    "RequestTimeout",
    "ResourceContents",
    "ResourceNotFound",
    "Server",
    "Tool",
    "TokenStore",
    "ToolAnnotations",
    "TransportError",
    "UnsupportedProtocolVersion",
    "input_required",
    "schema_for",
]
