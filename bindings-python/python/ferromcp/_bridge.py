"""Helpers the native layer calls on the asyncio loop. Private."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any


def resolve(fut: asyncio.Future[Any], value: Any, exc: BaseException | None) -> None:
    """Completes ``fut`` unless it was cancelled meanwhile."""
    if fut.done():
        return
    if exc is not None:
        fut.set_exception(exc)
    else:
        fut.set_result(value)


def start(func: Callable[..., Awaitable[Any]], args: tuple[Any, ...], responder: Any) -> None:
    """Runs ``func(*args)`` as a task and reports its outcome to ``responder``."""
    try:
        coro = func(*args)
        task = asyncio.ensure_future(coro)
    except BaseException as e:  # noqa: BLE001 - reported to the peer
        responder.fail(e)
        return
    responder.set_task(task)
    task.add_done_callback(responder.done)


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
