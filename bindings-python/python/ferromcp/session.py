"""``ctx.session``: the official SDK's ``ServerSession`` methods that FastMCP/MCPServer handlers
call, mapped onto :class:`ferromcp.Context` (which talks to the engine's session). Results come
back as the :mod:`ferromcp.types` models the SDK returns (``result.content.text``,
``result.roots``, ``result.action``)."""

from __future__ import annotations

import typing
from collections.abc import Mapping
from typing import Any, Protocol

from .schema import to_jsonable

if typing.TYPE_CHECKING:
    from .types import (
        ClientCapabilities,
        CreateMessageResult,
        ElicitResult,
        InitializeRequestParams,
        ListRootsResult,
    )


def _wire(value: Any) -> Any:
    """A model (ours or the official SDK's) or plain data as wire JSON."""
    from .types import to_wire

    if isinstance(value, (list, tuple)):
        return [_wire(v) for v in value]
    return to_jsonable(to_wire(value))


def _contains(have: Any, want: Any) -> bool:
    """Whether capabilities ``have`` include everything ``want`` names (keys, recursively)."""
    if not isinstance(want, dict):
        return have is not None and (want is True or want == have or isinstance(have, dict))
    if not isinstance(have, dict):
        return False
    return all(k in have and _contains(have[k], v) for k, v in want.items())


class SessionContext(Protocol):
    """What :class:`ServerSession` uses of the request's :class:`ferromcp.Context` (its one
    implementation; mypy checks it where ``Context.session`` passes itself): named here so that
    this module, which ``context`` imports for ``ctx.session``, never imports ``context``."""

    @property
    def protocol_version(self) -> str | None: ...

    @property
    def client_info(self) -> Any: ...

    @property
    def client_capabilities(self) -> Any: ...

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None: ...

    async def log(self, level: str, data: Any, logger: str | None = None) -> None: ...

    async def request(self, method: str, params: Any = None) -> Any: ...

    async def elicit_url(
        self, message: str, url: str, elicitation_id: str
    ) -> Mapping[str, Any]: ...

    async def notify(self, method: str, params: Any = None) -> None: ...

    async def notify_tool_list_changed(self) -> None: ...

    async def notify_resource_list_changed(self) -> None: ...

    async def notify_prompt_list_changed(self) -> None: ...

    async def notify_resource_updated(self, uri: str) -> None: ...

    async def list_roots(self) -> list[dict[str, Any]]: ...


class ServerSession:
    """The session of the request being served, as the official SDK's ``ServerSession``
    offers it to handlers (``ctx.session``). ``related_request_id`` arguments are accepted and
    ignored: everything goes on the stream of the request being served."""

    __slots__ = ("_ctx",)

    def __init__(self, ctx: SessionContext) -> None:
        self._ctx = ctx

    # ---- what the client said ------------------------------------------------------------
    @property
    def client_params(self) -> InitializeRequestParams:
        """The client's ``initialize`` parameters (``protocol_version``, ``capabilities``,
        ``client_info``); under 2026-07-28, what the request's ``_meta`` declares."""
        from .types import InitializeRequestParams

        return InitializeRequestParams.model_validate(
            {
                "protocolVersion": self._ctx.protocol_version,
                "capabilities": self._ctx.client_capabilities or {},
                "clientInfo": self._ctx.client_info or {},
            }
        )

    @property
    def client_capabilities(self) -> ClientCapabilities:
        from .types import ClientCapabilities

        return ClientCapabilities.model_validate(self._ctx.client_capabilities or {})

    @property
    def protocol_version(self) -> str | None:
        return self._ctx.protocol_version

    def check_client_capability(self, capability: Any) -> bool:
        """Whether the client declared every capability ``capability`` (a
        ``ClientCapabilities`` model or dict) names."""
        want = _wire(capability)
        return _contains(self._ctx.client_capabilities or {}, want or {})

    # ---- notifications -------------------------------------------------------------------
    async def send_notification(self, notification: Any, related_request_id: Any = None) -> None:
        """Sends a notification: a model or dict with ``method`` and ``params``."""
        n = _wire(notification)
        if not isinstance(n, dict) or not isinstance(n.get("method"), str):
            raise TypeError("send_notification needs a notification with a 'method'")
        await self._ctx.notify(n["method"], n.get("params"))

    async def send_resource_list_changed(self) -> None:
        await self._ctx.notify_resource_list_changed()

    async def send_tool_list_changed(self) -> None:
        await self._ctx.notify_tool_list_changed()

    async def send_prompt_list_changed(self) -> None:
        await self._ctx.notify_prompt_list_changed()

    async def send_resource_updated(self, uri: Any) -> None:
        await self._ctx.notify_resource_updated(str(uri))

    async def send_log_message(
        self, level: str, data: Any, logger: str | None = None, related_request_id: Any = None
    ) -> None:
        await self._ctx.log(level, data, logger)

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        await self._ctx.report_progress(progress, total, message)

    async def send_progress_notification(
        self,
        progress_token: str | int,
        progress: float,
        total: float | None = None,
        message: str | None = None,
        related_request_id: Any = None,
    ) -> None:
        params: dict[str, Any] = {"progressToken": progress_token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        await self._ctx.notify("notifications/progress", params)

    async def send_elicit_complete(
        self, elicitation_id: str, related_request_id: Any = None
    ) -> None:
        """``notifications/elicitation/complete``: a URL elicitation finished."""
        await self._ctx.notify(
            "notifications/elicitation/complete", {"elicitationId": elicitation_id}
        )

    # ---- requests to the client ----------------------------------------------------------
    async def send_request(self, request: Any, result_type: Any = None, **_: Any) -> Any:
        """Sends a request (a model or dict with ``method`` and ``params``); the result is
        validated into ``result_type`` (a pydantic model) when given."""
        r = _wire(request)
        if not isinstance(r, dict) or not isinstance(r.get("method"), str):
            raise TypeError("send_request needs a request with a 'method'")
        result = await self._ctx.request(r["method"], r.get("params"))
        validate = getattr(result_type, "model_validate", None)
        return validate(result) if callable(validate) else result

    async def send_ping(self) -> Any:
        return await self._ctx.request("ping")

    async def create_message(
        self,
        messages: list[Any],
        *,
        max_tokens: int,
        system_prompt: str | None = None,
        include_context: str | None = None,
        temperature: float | None = None,
        stop_sequences: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        model_preferences: Any = None,
        tools: list[Any] | None = None,
        tool_choice: Any = None,
        related_request_id: Any = None,
    ) -> CreateMessageResult:
        """``sampling/createMessage``; ``messages`` are ``SamplingMessage`` models or dicts.
        The result's ``content`` is a content model (a list of them with ``tools``)."""
        from .types import CreateMessageResult, _content_block

        params: dict[str, Any] = {"messages": _wire(messages), "maxTokens": max_tokens}
        for key, value in (
            ("systemPrompt", system_prompt),
            ("includeContext", include_context),
            ("temperature", temperature),
            ("stopSequences", stop_sequences),
            ("metadata", metadata),
            ("modelPreferences", model_preferences),
            ("tools", tools),
            ("toolChoice", tool_choice),
        ):
            if value is not None:
                params[key] = _wire(value)
        raw: dict[str, Any] = await self._ctx.request("sampling/createMessage", params)
        content = raw.get("content")
        if isinstance(content, list):
            blocks: Any = [_content_block(c) for c in content]
        else:
            blocks = _content_block(content)
        return CreateMessageResult.model_validate({**raw, "content": blocks})

    async def elicit(
        self, message: str, requested_schema: dict[str, Any], related_request_id: Any = None
    ) -> ElicitResult:
        """``elicitation/create`` in form mode with a JSON Schema."""
        return await self.elicit_form(message, requested_schema)

    async def elicit_form(
        self, message: str, requested_schema: dict[str, Any], related_request_id: Any = None
    ) -> ElicitResult:
        from .types import ElicitResult

        raw = await self._ctx.request(
            "elicitation/create", {"message": message, "requestedSchema": _wire(requested_schema)}
        )
        return ElicitResult.model_validate(raw)

    async def elicit_url(
        self, message: str, url: str, elicitation_id: str, related_request_id: Any = None
    ) -> ElicitResult:
        from .types import ElicitResult

        raw = await self._ctx.elicit_url(message, url, elicitation_id)
        return ElicitResult.model_validate(dict(raw))

    async def list_roots(self) -> ListRootsResult:
        from .types import ListRootsResult

        return ListRootsResult.model_validate({"roots": await self._ctx.list_roots()})
