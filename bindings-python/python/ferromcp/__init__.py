"""ferromcp: Model Context Protocol servers and clients on a Rust engine.

>>> from ferromcp import Server, Context
>>> server = Server("demo", version="1.0")
>>> @server.tool()
... def add(a: int, b: int) -> int:
...     "Adds two numbers."
...     return a + b
"""

from ._native import ENGINE_VERSION, CancelHandle
from .client import Client
from .errors import (
    ConnectionClosed,
    InternalError,
    InvalidParams,
    InvalidRequest,
    McpError,
    MethodNotFound,
    ParseError,
    RequestCancelled,
    RequestTimeout,
    ResourceNotFound,
    TransportError,
    UnsupportedProtocolVersion,
)
from .schema import schema_for
from .server import Context, HttpServer, Server

__all__ = [
    "ENGINE_VERSION",
    "CancelHandle",
    "Client",
    "ConnectionClosed",
    "Context",
    "HttpServer",
    "InternalError",
    "InvalidParams",
    "InvalidRequest",
    "McpError",
    "MethodNotFound",
    "ParseError",
    "RequestCancelled",
    "RequestTimeout",
    "ResourceNotFound",
    "Server",
    "TransportError",
    "UnsupportedProtocolVersion",
    "schema_for",
]
