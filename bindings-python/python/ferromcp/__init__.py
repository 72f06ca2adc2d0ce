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
    RateLimited,
    RequestCancelled,
    RequestTimeout,
    ResourceError,
    ResourceNotFound,
    ToolError,
    TransportError,
    UnsupportedProtocolVersion,
    UrlElicitationRequiredError,
    input_required,
)
from .schema import schema_for
from .server import Context, ElicitResult, HttpServer, ProtocolRevision, RequestContext, Server

if TYPE_CHECKING:
    from .auth import IntrospectionVerifier, JwtVerifier, OAuth, ProtectedResource, TokenStore
    from .client import Client
    from .compat import FastMCP, MCPServer
    from .content import Audio, File, Icon, Image, ToolAnnotations
    from .listen import ListenFilter, ListenNotification, Subscription
    from .multi import MultiClient
    from .oauth_proxy import OAuthProxy, OAuthProxyConfig
    from .session import ServerSession
    from .tls import TLS
    from .results import (
        CallToolResult,
        GetPromptResult,
        ReadResourceResult,
        ResourceContents,
        Tool,
    )

__version__: str = ENGINE_VERSION
"""The package version (the same as the native module's)."""


#: Names whose module is imported on first use (PEP 562), so that a server started as
#: ``python server.py`` does not pay at start-up for what it does not use (cold start): the
#: client (and asyncio, which it needs), the auth helpers, the FastMCP aliases, the content
#: helpers and the typed client results. ``from ferromcp import Image`` imports ``content`` then.
_LAZY: dict[str, str] = {
    "Client": "client",
    "MultiClient": "multi",
    "ClientSession": "client.session",
    "StdioServerParameters": "client.stdio",
    "IntrospectionVerifier": "auth",
    "JwtVerifier": "auth",
    "OAuth": "auth",
    "OAuthProxy": "oauth_proxy",
    "OAuthProxyConfig": "oauth_proxy",
    "ProtectedResource": "auth",
    "TokenStore": "auth",
    "FastMCP": "compat",
    "MCPServer": "compat",
    "Audio": "content",
    "File": "content",
    "Icon": "content",
    "Image": "content",
    "ToolAnnotations": "content",
    "CallToolResult": "results",
    "GetPromptResult": "results",
    "ReadResourceResult": "results",
    "ResourceContents": "results",
    "Tool": "results",
    "ListenFilter": "listen",
    "ListenNotification": "listen",
    "Subscription": "listen",
    "ServerSession": "session",
    "TLS": "tls",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ferromcp' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "__version__",
    "ENGINE_VERSION",
    "Audio",
    "CallToolResult",
    "CancelHandle",
    "Client",
    "MultiClient",
    "ClientCapabilityError",
    "ClientSession",
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
    "ListenFilter",
    "ListenNotification",
    "MCPServer",
    "McpError",
    "MethodNotFound",
    "OAuth",
    "OAuthProxy",
    "OAuthProxyConfig",
    "MissingRequiredClientCapability",
    "ParseError",
    "ProtectedResource",
    "ProtocolRevision",
    "RateLimited",
    "ReadResourceResult",
    "RequestCancelled",
    "RequestContext",
    "RequestTimeout",
    "ResourceContents",
    "ResourceError",
    "ResourceNotFound",
    "Server",
    "ServerSession",
    "TLS",
    "StdioServerParameters",
    "Subscription",
    "Tool",
    "TokenStore",
    "ToolAnnotations",
    "ToolError",
    "TransportError",
    "UnsupportedProtocolVersion",
    "UrlElicitationRequiredError",
    "input_required",
    "schema_for",
]
