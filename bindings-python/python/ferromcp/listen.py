"""``subscriptions/listen`` (protocol revision 2026-07-28): :meth:`Client.listen` returns a
:class:`Subscription`, an async context manager and async iterator of the change notifications
the server agreed to send.

>>> async with client.listen(tools_list_changed=True, resource_subscriptions=["mem://a"]) as sub:
...     async for n in sub:
...         print(n.method, n.params)
"""

from __future__ import annotations

from collections.abc import Awaitable, Generator
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any, NamedTuple

from . import _native
from .errors import McpError

if TYPE_CHECKING:
    from typing_extensions import Self

SUBSCRIPTION_ID_META = "io.modelcontextprotocol/subscriptionId"
"""The ``_meta`` key under which every notification of a subscription carries its id."""


@dataclass(frozen=True)
class ListenFilter:
    """What a subscription asks for, or (``Subscription.filter``) what the server agreed to send:
    list changes of tools, prompts and resources, updates of the resources named, and
    (``task_ids``, the tasks extension ``io.modelcontextprotocol/tasks``) the status
    notifications ``notifications/tasks`` of the tasks named. A server acknowledges only the
    task ids of tasks it runs (an unknown id is left out); a client without the extension
    (``Client(tasks_extension=False)``) naming task ids is refused with
    ``ClientCapabilityError`` (-32021), as the extension requires."""

    tools_list_changed: bool = False
    prompts_list_changed: bool = False
    resources_list_changed: bool = False
    resource_subscriptions: tuple[str, ...] = ()
    task_ids: tuple[str, ...] = ()

    def _wire(self) -> dict[str, Any]:
        """The ``SubscriptionFilter`` JSON object."""
        w: dict[str, Any] = {}
        if self.tools_list_changed:
            w["toolsListChanged"] = True
        if self.prompts_list_changed:
            w["promptsListChanged"] = True
        if self.resources_list_changed:
            w["resourcesListChanged"] = True
        if self.resource_subscriptions:
            w["resourceSubscriptions"] = list(self.resource_subscriptions)
        if self.task_ids:
            w["taskIds"] = list(self.task_ids)
        return w

    @classmethod
    def _from_wire(cls, w: dict[str, Any]) -> ListenFilter:
        return cls(
            tools_list_changed=w.get("toolsListChanged") is True,
            prompts_list_changed=w.get("promptsListChanged") is True,
            resources_list_changed=w.get("resourcesListChanged") is True,
            resource_subscriptions=tuple(w.get("resourceSubscriptions") or ()),
            task_ids=tuple(w.get("taskIds") or ()),
        )


class ListenNotification(NamedTuple):
    """One notification of a subscription (``notifications/tools/list_changed``,
    ``notifications/resources/updated``, ``notifications/tasks``, ...); ``params["_meta"]``
    carries the subscription id."""

    method: str
    params: dict[str, Any] | None


class Subscription:
    """An open ``subscriptions/listen`` subscription. Use it as ``async with client.listen(...)
    as sub`` (closed at the end of the block) or ``sub = await client.listen(...)`` (then close
    it with :meth:`aclose`). Iterating it yields :class:`ListenNotification` until the
    subscription is over: the server ended it (:attr:`result`), the connection closed or it was
    closed (:attr:`error`). Closing it ends the subscription on the server."""

    def __init__(self, opening: Awaitable[_native.NativeSubscription]) -> None:
        self._opening: Awaitable[_native.NativeSubscription] | None = opening
        self._native: _native.NativeSubscription | None = None

    async def _open(self) -> Self:
        if self._opening is not None:
            opening, self._opening = self._opening, None
            self._native = await opening
        return self

    def __await__(self) -> Generator[Any, None, Self]:
        return self._open().__await__()

    async def __aenter__(self) -> Self:
        return await self._open()

    async def __aexit__(
        self,
        et: type[BaseException] | None,
        e: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    @property
    def _sub(self) -> _native.NativeSubscription:
        if self._native is None:
            raise RuntimeError("the subscription is not open yet: await it or use `async with`")
        return self._native

    @property
    def id(self) -> Any:
        """The subscription id (the ``subscriptions/listen`` request's JSON-RPC id)."""
        return self._sub.id

    @property
    def filter(self) -> ListenFilter:
        """What the server agreed to send (kinds it does not support are left out)."""
        return ListenFilter._from_wire(self._sub.acknowledged)

    @property
    def ended(self) -> bool:
        """Whether the subscription is over."""
        return self._sub.ended

    @property
    def result(self) -> dict[str, Any] | None:
        """The server's final ``subscriptions/listen`` result if it ended the subscription."""
        r: dict[str, Any] | None = self._sub.result
        return r

    @property
    def error(self) -> McpError | None:
        """What ended the subscription otherwise: ``ConnectionClosed`` (-32000),
        ``RequestCancelled`` (-32800) once this side closed it, or the server's error."""
        e = self._sub.error
        # The engine's errors come from ferromcp.errors.from_code; anything else (the native
        # layer's RuntimeError when building one failed) becomes an internal error.
        if e is None or isinstance(e, McpError):
            return e
        return McpError(str(e))

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> ListenNotification:
        got = await self._sub.next()
        if got is None:
            raise StopAsyncIteration
        method, params = got
        return ListenNotification(method, params)

    async def aclose(self) -> None:
        """Ends the subscription on the server (idempotent). A pending iteration stops."""
        if self._native is not None:
            self._native.close()
