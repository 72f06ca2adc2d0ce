"""Helpers the native layer calls on the asyncio loop. Private."""

from __future__ import annotations

import asyncio
import contextvars
import sys
import types
from collections.abc import Awaitable, Callable, Coroutine, Generator
from typing import Any


def resolve(fut: asyncio.Future[Any], value: Any, exc: BaseException | None) -> None:
    """Completes ``fut`` unless it was cancelled meanwhile."""
    if fut.done():
        return
    if exc is not None:
        fut.set_exception(exc)
    else:
        fut.set_result(value)


_CoroutineType = types.CoroutineType  # read once, not on every call


def start(func: Callable[..., Awaitable[Any]], args: tuple[Any, ...], responder: Any) -> None:
    """Runs ``func(*args)`` and reports its outcome to ``responder``.

    The coroutine's first step runs right here, in a copy of the context (an "eager start", as
    ``asyncio.eager_task_factory`` does on 3.12+): a handler that finishes without suspending is
    answered without creating a task or waiting for further loop iterations. One that suspends
    continues as a task in the same context."""
    try:
        coro = func(*args)
    except BaseException as e:  # noqa: BLE001 - reported to the peer
        responder.fail(e)
        return
    if sys.version_info < (3, 11) or type(coro) is not _CoroutineType:
        # create_task(context=...) exists from 3.11; 3.10 keeps plain tasks.
        _as_task(coro, responder)
        return
    ctx = contextvars.copy_context()
    try:
        yielded = ctx.run(coro.send, None)
    except StopIteration as stop:
        responder.value(stop.value)
        return
    except asyncio.CancelledError:
        responder.cancelled()
        return
    except BaseException as e:  # noqa: BLE001 - reported to the peer
        responder.fail(e)
        return
    task = asyncio.get_running_loop().create_task(_Resume(coro, yielded).run(), context=ctx)
    responder.set_task(task)
    task.add_done_callback(responder.done)


def _as_task(aw: Awaitable[Any], responder: Any) -> None:
    try:
        task = asyncio.ensure_future(aw)
    except BaseException as e:  # noqa: BLE001 - reported to the peer
        responder.fail(e)
        return
    responder.set_task(task)
    task.add_done_callback(responder.done)


class _Resume:
    """Continues a coroutine that already ran its first step and yielded ``yielded``: passes
    what it yields to the driving task and what the task sends or throws back to it."""

    __slots__ = ("coro", "yielded")

    def __init__(self, coro: Coroutine[Any, Any, Any], yielded: Any) -> None:
        self.coro = coro
        self.yielded = yielded

    async def run(self) -> Any:
        return await self

    def __await__(self) -> Generator[Any, Any, Any]:
        coro, yielded = self.coro, self.yielded
        while True:
            try:
                sent = yield yielded
            except BaseException as e:  # noqa: BLE001 - thrown in by the task (cancellation)
                try:
                    yielded = coro.throw(e)
                except StopIteration as stop:
                    return stop.value
            else:
                try:
                    yielded = coro.send(sent)
                except StopIteration as stop:
                    return stop.value


def run_batch(calls: list[tuple[Any, ...]]) -> None:
    """Runs ``f(*args)`` for each ``(f, *args)`` queued by the native layer in one loop wake-up;
    an exception in one call goes to the loop's exception handler and does not stop the rest."""
    for call in calls:
        try:
            call[0](*call[1:])
        except Exception as e:  # noqa: BLE001 - reported like a failing call_soon callback
            asyncio.get_running_loop().call_exception_handler(
                {"message": "ferromcp callback failed", "exception": e}
            )
