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
