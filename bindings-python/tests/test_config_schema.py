"""The Python binding's options against the engine's configuration schema
(``embed/config-schema.json``: the JSON Schema of embed's ``ServerConfig``, ``HttpConfig`` and
``ClientConfig``, derived from those structs and checked against them by ``cargo test -p
ferromcp-embed``). With every option given, each key Python sends must be a key of the schema (a
misnamed key fails here, not only when some test sets that option), and each key of the schema
must be sent or listed in ``NOT_OFFERED`` with the reason (an option added to the engine fails
here until Python offers it or says why not). A listed key Python now sends fails too."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import pytest

from ferromcp import Server, server as server_module
from ferromcp.client import Client
from ferromcp.content import Icon
from ferromcp.serving import Serving

SCHEMA_FILE = Path(__file__).resolve().parents[2] / "embed" / "config-schema.json"

_NOT_YET = "not offered by the Python binding"
#: Keys of each config Python does not send, with the reason.
NOT_OFFERED: dict[str, dict[str, str]] = {
    "ServerConfig": {
        "requestTimeoutMs": _NOT_YET + " (server-to-client requests take the engine's default)",
        "enableTools": _NOT_YET + ": capabilities follow what is registered",
        "enableResources": _NOT_YET + ": capabilities follow what is registered",
        "enablePrompts": _NOT_YET + ": capabilities follow what is registered",
        "enableLogging": _NOT_YET + " (logging is always advertised)",
        "middleware": "sent apart: server.add_middleware hands each built-in's config to the engine",
    },
    "HttpConfig": {
        "legacySsePath": _NOT_YET + " (the legacy endpoints keep their default paths)",
        "legacyMessagesPath": _NOT_YET + " (the legacy endpoints keep their default paths)",
        "maxConnectionsPerClient": _NOT_YET,
        "sseIdleTimeoutMs": _NOT_YET,
        "connectionsKeptForSessions": _NOT_YET,
        "maxStreamBufferedBytes": _NOT_YET,
        "maxSessionBufferedBytes": _NOT_YET,
        "healthPath": "serve_http keeps the engine's default; http_app() sends null (the host app has its own routes)",
    },
    "ClientConfig": {
        "samplingTools": _NOT_YET + " (tool use inside sampling)",
    },
}


def _schema_keys(name: str) -> set[str]:
    assert SCHEMA_FILE.is_file(), (
        f"no {SCHEMA_FILE} (cargo test -p ferromcp-embed writes it with FERROMCP_BLESS=1)"
    )
    schema: dict[str, Any] = json.loads(SCHEMA_FILE.read_text())[name]
    return set(schema["properties"])


def _check(name: str, sent: set[str]) -> None:
    keys = _schema_keys(name)
    listed = set(NOT_OFFERED[name])
    problems = []
    if unknown := sent - keys:
        problems.append(
            f"sent keys the engine's {name} does not have (misnamed?): {sorted(unknown)}"
        )
    if missing := keys - sent - listed:
        problems.append(
            f"{name} keys Python never sends (offer them or list them in NOT_OFFERED): {sorted(missing)}"
        )
    if stale := listed & sent:
        problems.append(f"NOT_OFFERED lists keys Python sends: {sorted(stale)}")
    if gone := listed - keys:
        problems.append(f"NOT_OFFERED lists keys {name} no longer has: {sorted(gone)}")
    assert not problems, "\n".join(problems)


def _given(func: Any, given: dict[str, Any], apart: set[str]) -> None:
    """Every parameter of ``func`` is given (or named in ``apart``), so a new option cannot go
    unchecked."""
    params = {p for p in inspect.signature(func).parameters if p != "self"}
    assert params - apart == set(given), (
        f"{func.__qualname__}: give every option here: missing {sorted(params - apart - set(given))}, "
        f"unknown {sorted(set(given) - params)}"
    )


class _Sent(Exception):
    """Raised by the fakes below with what would have gone to the engine."""

    def __init__(self, config: dict[str, Any]) -> None:
        super().__init__("sent")
        self.config = config


def test_server_options_are_the_engines_server_config(monkeypatch: pytest.MonkeyPatch) -> None:
    def native_server(config: dict[str, Any]) -> Any:
        raise _Sent(config)

    monkeypatch.setattr(server_module._native, "NativeServer", native_server)
    given: dict[str, Any] = dict(
        name="s",
        version="1",
        title="t",
        instructions="i",
        page_size=5,
        website_url="https://example.com",
        icons=[Icon("https://example.com/i.png")],
        max_message_size=1000,
        cache_ttl_ms=1,
        cache_scope="public",
        cache_hints={"tools/list": {"ttlMs": 1}},
        max_listen_streams=2,
        request_state_keys=[{"id": "k", "secret": "00" * 32}],
        request_state_replay_capacity=3,
        tasks_extension=True,
        supported_versions=["2025-11-25"],
    )
    _given(Server.__init__, given, apart={"lifespan", "mask_error_details", "middleware"})
    with pytest.raises(_Sent) as sent:
        Server(**given)
    _check("ServerConfig", set(sent.value.config))


class _NativeConfig:
    def _native_config(self) -> dict[str, Any]:
        return {}


class _FakeServing:
    """What ``Serving.serve_http`` uses of its server, recording the options it sends."""

    class _Native:
        async def serve_http(self, host: str, port: int, options: dict[str, Any], auth: Any) -> Any:
            raise _Sent(options)

    _native = _Native()

    async def _start_use(self) -> None:
        pass

    async def _end_use(self) -> None:
        pass


async def test_serve_http_options_are_the_engines_http_config() -> None:
    given: dict[str, Any] = dict(
        host="127.0.0.1",
        port=0,
        path="/mcp",
        stateless=True,
        json_response=True,
        allowed_hosts=["a"],
        allowed_origins=["b"],
        dns_rebinding_protection=True,
        max_sessions=1,
        session_idle_timeout=1.0,
        max_body_size=1,
        retry_interval=1.0,
        enable_get_stream=True,
        legacy_sse=True,
        stream_queue_capacity=1,
        close_streams_after=1.0,
        sse_keep_alive=1.0,
        max_connections=1,
        max_head_size=1,
        header_read_timeout=1.0,
        request_timeout=1.0,
        keep_alive_timeout=1.0,
        write_timeout=1.0,
        max_buffered_bytes=1,
        redis_url="redis://127.0.0.1:1",
        tls=_NativeConfig(),
        compression=True,
        oauth_proxy=_NativeConfig(),
    )
    _given(Serving.serve_http, given, apart={"auth"})
    with pytest.raises(_Sent) as sent:
        await Serving.serve_http(_FakeServing(), **given)  # type: ignore[arg-type]
    options = sent.value.config
    # host and port are the listener's arguments, not config keys.
    _check("HttpConfig", set(options))


def test_client_options_are_the_engines_client_config() -> None:
    async def connect(config: dict[str, Any], handler: Any) -> Any:
        raise AssertionError("not connected")

    def handler(*args: Any) -> None:
        return None

    given: dict[str, Any] = dict(
        name="c",
        version="1",
        protocol_version="2025-11-25",
        protocol_mode="auto",
        timeout=1.0,
        max_message_size=1,
        sampling_handler=handler,
        elicitation_handler=handler,
        roots=[],
        on_notification=handler,
        tasks_extension=False,
        tasks=True,
        elicitation_url=True,
        capabilities={"experimental": {}},
        open_telemetry={"serviceName": "c"},
    )
    _given(Client.__init__, given, apart={"connect"})
    client = Client(connect, **given)
    _check("ClientConfig", set(client._config))
